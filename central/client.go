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
	db   kioskDB // the calls: pool itself, or each proven (OpenPooled)
}

var _ engine.Central = (*Client)(nil)

// Open connects a kiosk to the central at url (the connection string
// `central kiosk add` printed). It does not wait for the central to answer:
// a kiosk starts and sells from its packs while the central is away.
func Open(ctx context.Context, url string) (*Client, error) {
	pool, err := kioskPool(ctx, url, pgx.QueryExecModeCacheStatement)
	if err != nil {
		return nil, err
	}
	return &Client{pool: pool, db: pool}, nil
}

// kioskPool is a kiosk's pool of connections to url, its statements run
// in mode.
func kioskPool(ctx context.Context, url string, mode pgx.QueryExecMode) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("central: %w", err)
	}
	cfg.MaxConns = 4
	cfg.ConnConfig.DefaultQueryExecMode = mode
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("central: %w", err)
	}
	return pool, nil
}

// closeWait bounds Close. A connection whose query was cancelled while
// the central hung (a kiosk told to stop in the middle of a sync round)
// takes pgx up to 15 s to close: a cancel request, then the server's last
// bytes, neither of which comes. A kiosk that stops does not wait for
// it: the process's exit closes the socket.
const closeWait = time.Second

// Close closes the connections, waiting at most closeWait.
func (c *Client) Close() {
	done := make(chan struct{})
	go func() {
		c.pool.Close()
		close(done)
	}()
	t := time.NewTimer(closeWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// claimPackSQL hands the kiosk a pack at stake $1 (migrations/0002).
const claimPackSQL = "SELECT * FROM claim_pack($1)"

// ClaimPack implements engine.Central. The pack is not verified here: the
// caller verifies it before selling from it.
func (c *Client) ClaimPack(ctx context.Context, stake engine.Cents) (engine.Pack, error) {
	rows, _ := c.db.Query(ctx, claimPackSQL, int(stake))
	p, err := collectPack(rows)
	if err != nil {
		return p, fmt.Errorf("claim a pack: %w", err)
	}
	return p, nil
}

// fetchPackSQL sends the kiosk its pack $1 again (migrations/0002).
const fetchPackSQL = "SELECT * FROM fetch_pack($1)"

// FetchPack implements engine.Central.
func (c *Client) FetchPack(ctx context.Context, serial string) (engine.Pack, error) {
	rows, _ := c.db.Query(ctx, fetchPackSQL, serial)
	p, err := collectPack(rows)
	if err != nil {
		return p, fmt.Errorf("fetch pack %s: %w", serial, err)
	}
	return p, nil
}

// packRow is a pack as sf_pack_payload returns it (claim_pack, fetch_pack).
type packRow struct {
	Serial string `db:"serial"`
	blockRefCols
	Size  int    `db:"size"`
	First int    `db:"first"`
	Count int    `db:"count"`
	Units []byte `db:"units"`
	Salts []byte `db:"salts"`
	Proof []byte `db:"proof"`
	Root  []byte `db:"root"`
}

// collectPack reads the pack of a claim_pack or fetch_pack query (a failed
// query's error comes from rows).
func collectPack(rows pgx.Rows) (engine.Pack, error) {
	r, err := pgx.CollectOneRow(rows, pgx.RowToStructByName[packRow])
	if err != nil {
		return engine.Pack{}, translate(err)
	}
	p := engine.Pack{Serial: r.Serial, Block: r.blockRef(), Size: uint32(r.Size), First: uint32(r.First), Units: r.Units}
	if p.Salts, err = hashes(r.Salts); err == nil {
		p.Proof, err = hashes(r.Proof)
	}
	if err != nil || len(r.Root) != 32 || len(p.Units) != r.Count*engine.UnitSize {
		return p, fmt.Errorf("%w: malformed pack %s", engine.ErrBadProof, p.Serial)
	}
	copy(p.Root[:], r.Root)
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
	return c.push(ctx, "push_sales", pushSalesSQL, rows)
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
	Lease       int64   `json:"lease,omitempty"` // the player's lease it was made under (migrations/0007)
	// Hand is a held prize's hand pay, on its payout (migrations/0008).
	Hand *engine.HandPay `json:"hand,omitempty"`
}

// PushMovements implements engine.Central.
func (c *Client) PushMovements(ctx context.Context, ms []engine.FleetMovement) (engine.PushResult, error) {
	rows := make([]movementRow, len(ms))
	for i, m := range ms {
		rows[i] = movementRow{Seq: m.Seq, ID: m.ID, Player: m.Player, Kind: m.Kind.String(), DebitCents: int64(m.Debit),
			CreditCents: int64(m.Credit), At: wireTime(m.Time), Lease: m.Lease, Hand: m.Hand}
		if m.Ticket != nil {
			t := m.Ticket.String()
			rows[i].Ticket = &t
		}
	}
	return c.push(ctx, "push_movements", pushMovementsSQL, rows)
}

// The two pushes: a JSON array of saleRow or movementRow in, one row of
// applied, duplicates, conflicts and last_seq out (migrations/0002).
const (
	pushSalesSQL     = "SELECT * FROM push_sales($1::jsonb)"
	pushMovementsSQL = "SELECT * FROM push_movements($1::jsonb)"
)

// push sends rows, JSON-encoded, to the push function fn through its query.
func (c *Client) push(ctx context.Context, fn, sql string, rows any) (engine.PushResult, error) {
	var r engine.PushResult
	b, err := json.Marshal(rows)
	if err != nil {
		return r, err
	}
	var applied, dup, conf, last int64
	if err := c.db.QueryRow(ctx, sql, string(b)).Scan(&applied, &dup, &conf, &last); err != nil {
		return r, fmt.Errorf("%s: %w", fn, translate(err))
	}
	return engine.PushResult{Applied: int(applied), Duplicates: int(dup), Conflicts: int(conf), LastSeq: uint64(last)}, nil
}

// releasePackSQL returns pack $1's positions from $2 on to the central,
// which cuts them into a new pack whose serial it returns (migrations/0002).
const releasePackSQL = "SELECT release_pack($1, $2)"

// ReleasePack implements engine.Central.
func (c *Client) ReleasePack(ctx context.Context, serial string, from uint32) (string, error) {
	var s string
	if err := c.db.QueryRow(ctx, releasePackSQL, serial, int64(from)).Scan(&s); err != nil {
		return "", fmt.Errorf("release pack %s: %w", serial, translate(err))
	}
	return s, nil
}

// lookupTicketSQL finds a sold unit by ticket, rationed for blocks in play
// (migrations/0003): the columns of sql/sale_show.sql, the owner's way.
const lookupTicketSQL = "SELECT * FROM lookup_ticket($1)"

// LookupTicket implements engine.Central.
func (c *Client) LookupTicket(ctx context.Context, t engine.Ticket) (engine.FleetSale, error) {
	rows, _ := c.db.Query(ctx, lookupTicketSQL, t.String())
	s, err := collectSale(rows, t)
	if errors.Is(err, pgx.ErrNoRows) {
		return s, fmt.Errorf("%w: %s is not a sale of the fleet (or not synced yet)", engine.ErrUnknownTicket, t)
	}
	if err != nil {
		return s, fmt.Errorf("look up %s: %w", t, translate(err))
	}
	return s, nil
}

// kioskStateSQL is what the central knows of the kiosk, as JSON
// (migrations/0002).
const kioskStateSQL = "SELECT kiosk_state()"

const kioskDataKeySQL = "SELECT kiosk_data_key()"

// DataKey is the key-encryption key the central keeps for this kiosk's data
// directory (migrations/0004): the kiosk unlocks its keyring with it at
// start-up and keeps it in memory only.
func (c *Client) DataKey(ctx context.Context) ([]byte, error) {
	var kek []byte
	if err := c.db.QueryRow(ctx, kioskDataKeySQL).Scan(&kek); err != nil {
		return nil, fmt.Errorf("data key: %w", translate(err))
	}
	return kek, nil
}

// KioskState implements engine.Central.
func (c *Client) KioskState(ctx context.Context) (engine.KioskState, error) {
	var raw []byte
	if err := c.db.QueryRow(ctx, kioskStateSQL).Scan(&raw); err != nil {
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
