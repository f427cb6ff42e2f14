package central

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"starfortune/engine"
)

// Client is a kiosk's connection to the central, as its own login role:
// every call is one of the SECURITY DEFINER functions that are that role's
// only rights. It implements engine.Central.
type Client struct {
	pool *pgxpool.Pool
}

var _ engine.Central = (*Client)(nil)

// Open connects a kiosk to the central at url (the connection string
// `central kiosk add` printed). It does not wait for the central to answer:
// a kiosk starts and sells from its packs while the central is away.
func Open(ctx context.Context, url string) (*Client, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("central: %w", err)
	}
	cfg.MaxConns = 4
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("central: %w", err)
	}
	return &Client{pool: pool}, nil
}

// Close closes the connections.
func (c *Client) Close() { c.pool.Close() }

// ClaimPack implements engine.Central. The pack is not verified here: the
// caller verifies it before selling from it.
func (c *Client) ClaimPack(ctx context.Context, stake engine.Cents) (engine.Pack, error) {
	p, err := scanPack(c.pool.QueryRow(ctx, "SELECT * FROM claim_pack($1)", int(stake)))
	if err != nil {
		return p, fmt.Errorf("claim a pack: %w", err)
	}
	return p, nil
}

// FetchPack implements engine.Central.
func (c *Client) FetchPack(ctx context.Context, serial string) (engine.Pack, error) {
	p, err := scanPack(c.pool.QueryRow(ctx, "SELECT * FROM fetch_pack($1)", serial))
	if err != nil {
		return p, fmt.Errorf("fetch pack %s: %w", serial, err)
	}
	return p, nil
}

// scanPack reads a pack as sf_pack_payload returns it.
func scanPack(row pgx.Row) (engine.Pack, error) {
	var p engine.Pack
	var em, st, num, size, first, count int
	var salts, proof, root []byte
	if err := row.Scan(&p.Serial, &em, &st, &num, &size, &first, &count, &p.Units, &salts, &proof, &root); err != nil {
		return p, translate(err)
	}
	p.Block = engine.BlockRef{Emission: uint16(em), Stake: engine.Cents(st), Number: uint32(num)}
	p.Size, p.First = uint32(size), uint32(first)
	var err error
	if p.Salts, err = hashes(salts); err == nil {
		p.Proof, err = hashes(proof)
	}
	if err != nil || len(root) != 32 || len(p.Units) != count*engine.UnitSize {
		return p, fmt.Errorf("%w: malformed pack %s", engine.ErrBadProof, p.Serial)
	}
	copy(p.Root[:], root)
	return p, nil
}

func hashes(b []byte) ([]engine.Hash, error) {
	if len(b)%32 != 0 {
		return nil, errors.New("not a whole number of hashes")
	}
	out := make([]engine.Hash, len(b)/32)
	for i := range out {
		copy(out[i][:], b[i*32:])
	}
	return out, nil
}

// saleRow is a sale as push_sales reads it (migrations/0002).
type saleRow struct {
	Seq        uint64 `json:"seq"`
	Ticket     string `json:"ticket"`
	Pack       string `json:"pack"`
	Position   uint32 `json:"position"`
	SoldAt     string `json:"sold_at"`
	Player     string `json:"player"`
	StakeCents int64  `json:"stake_cents"`
	PrizeCents int64  `json:"prize_cents"`
	Unit       string `json:"unit"`
	Revealed   bool   `json:"revealed"`
}

// wireTime is a time as PostgreSQL keeps it (microseconds), so that a
// re-push compares equal to what the central stored.
func wireTime(t time.Time) string { return t.UTC().Truncate(time.Microsecond).Format(time.RFC3339Nano) }

// PushSales implements engine.Central: one round trip for the batch.
func (c *Client) PushSales(ctx context.Context, sales []engine.FleetSale) (engine.PushResult, error) {
	rows := make([]saleRow, len(sales))
	for i, s := range sales {
		u := s.Unit.Encode()
		rows[i] = saleRow{Seq: s.Seq, Ticket: s.Ticket.String(), Pack: s.Pack, Position: s.Ticket.Index, SoldAt: wireTime(s.Time),
			Player: s.Player, StakeCents: int64(s.Ticket.Block.Stake), PrizeCents: int64(s.Unit.Prize(s.Ticket.Block.Stake)),
			Unit: hex.EncodeToString(u[:]), Revealed: s.Revealed}
	}
	return c.push(ctx, "push_sales", rows)
}

// movementRow is a movement as push_movements reads it.
type movementRow struct {
	Seq         uint64  `json:"seq"`
	ID          string  `json:"id"`
	Player      string  `json:"player"`
	Kind        string  `json:"kind"`
	DebitCents  int64   `json:"debit_cents"`
	CreditCents int64   `json:"credit_cents"`
	Ticket      *string `json:"ticket"`
	At          string  `json:"at"`
}

// PushMovements implements engine.Central.
func (c *Client) PushMovements(ctx context.Context, ms []engine.FleetMovement) (engine.PushResult, error) {
	rows := make([]movementRow, len(ms))
	for i, m := range ms {
		rows[i] = movementRow{Seq: m.Seq, ID: m.ID, Player: m.Player, Kind: m.Kind.String(), DebitCents: int64(m.Debit),
			CreditCents: int64(m.Credit), At: wireTime(m.Time)}
		if m.Ticket != nil {
			t := m.Ticket.String()
			rows[i].Ticket = &t
		}
	}
	return c.push(ctx, "push_movements", rows)
}

func (c *Client) push(ctx context.Context, fn string, rows any) (engine.PushResult, error) {
	var r engine.PushResult
	b, err := json.Marshal(rows)
	if err != nil {
		return r, err
	}
	var applied, dup, conf, last int64
	err = c.pool.QueryRow(ctx, "SELECT * FROM "+fn+"($1::jsonb)", string(b)).Scan(&applied, &dup, &conf, &last)
	if err != nil {
		return r, fmt.Errorf("%s: %w", fn, translate(err))
	}
	return engine.PushResult{Applied: int(applied), Duplicates: int(dup), Conflicts: int(conf), LastSeq: uint64(last)}, nil
}

// ReleasePack implements engine.Central.
func (c *Client) ReleasePack(ctx context.Context, serial string, from uint32) (string, error) {
	var s string
	if err := c.pool.QueryRow(ctx, "SELECT release_pack($1, $2)", serial, int64(from)).Scan(&s); err != nil {
		return "", fmt.Errorf("release pack %s: %w", serial, translate(err))
	}
	return s, nil
}

// LookupTicket implements engine.Central.
func (c *Client) LookupTicket(ctx context.Context, t engine.Ticket) (engine.FleetSale, error) {
	s, err := scanSale(c.pool.QueryRow(ctx, "SELECT * FROM lookup_ticket($1)", t.String()), t)
	if errors.Is(err, pgx.ErrNoRows) {
		return s, fmt.Errorf("%w: %s is not a sale of the fleet (or not synced yet)", engine.ErrUnknownTicket, t)
	}
	if err != nil {
		return s, fmt.Errorf("look up %s: %w", t, translate(err))
	}
	return s, nil
}

// KioskState implements engine.Central.
func (c *Client) KioskState(ctx context.Context) (engine.KioskState, error) {
	var raw []byte
	if err := c.pool.QueryRow(ctx, "SELECT kiosk_state()").Scan(&raw); err != nil {
		return engine.KioskState{}, fmt.Errorf("kiosk state: %w", translate(err))
	}
	var j struct {
		Kiosk           string `json:"kiosk"`
		LastSaleSeq     uint64 `json:"last_sale_seq"`
		LastMovementSeq uint64 `json:"last_movement_seq"`
		Packs           []struct {
			Serial     string `json:"serial"`
			Emission   uint16 `json:"emission"`
			StakeCents int64  `json:"stake_cents"`
			Number     uint32 `json:"number"`
			First      uint32 `json:"first"`
			Count      uint32 `json:"count"`
			Status     string `json:"status"`
			Sold       uint32 `json:"sold"`
			Next       uint32 `json:"next"`
		} `json:"packs"`
	}
	if err := json.Unmarshal(raw, &j); err != nil {
		return engine.KioskState{}, fmt.Errorf("kiosk state: %w", err)
	}
	st := engine.KioskState{Kiosk: j.Kiosk, LastSaleSeq: j.LastSaleSeq, LastMovementSeq: j.LastMovementSeq}
	for _, p := range j.Packs {
		st.Packs = append(st.Packs, engine.PackState{Serial: p.Serial, First: p.First, Count: p.Count, Status: p.Status, Sold: p.Sold, Next: p.Next,
			Block: engine.BlockRef{Emission: p.Emission, Stake: engine.Cents(p.StakeCents), Number: p.Number}})
	}
	return st, nil
}
