package central

import (
	"context"
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

// The two pushes: a batch's sales or movements, one array per column (as
// migrations/0017 reads them), in; one row of applied, duplicates,
// conflicts and last_seq out.
const (
	pushSalesSQL     = "SELECT * FROM push_sales($1::bigint[], $2::text[], $3::text[], $4::int[], $5::timestamptz[], $6::text[], $7::bigint[], $8::bigint[], $9::bytea[], $10::boolean[])"
	pushMovementsSQL = "SELECT * FROM push_movements($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::text[], $8::timestamptz[], $9::bigint[], $10::jsonb[])"
)

// PushSales implements engine.Central: one round trip for the batch.
func (c *Client) PushSales(ctx context.Context, sales []engine.FleetSale) (engine.PushResult, error) {
	n := len(sales)
	seq, tickets, packs, positions := make([]int64, n), make([]string, n), make([]string, n), make([]int32, n)
	soldAt, players, stakes, prizes := make([]time.Time, n), make([]string, n), make([]int64, n), make([]int64, n)
	units, revealed := make([][]byte, n), make([]bool, n)
	for i, s := range sales {
		u := s.Unit.Encode()
		stake := s.Ticket.Block.Stake
		seq[i], tickets[i], packs[i], positions[i] = int64(s.Seq), s.Ticket.String(), s.Pack, int32(s.Ticket.Index)
		soldAt[i], players[i], stakes[i], prizes[i] = s.Time, s.Player, int64(stake), int64(s.Unit.Prize(stake))
		units[i], revealed[i] = u[:], s.Revealed
	}
	return c.push(ctx, "push_sales", pushSalesSQL, seq, tickets, packs, positions, soldAt, players, stakes, prizes, units, revealed)
}

// PushMovements implements engine.Central.
func (c *Client) PushMovements(ctx context.Context, ms []engine.FleetMovement) (engine.PushResult, error) {
	n := len(ms)
	seq, ids, players, kinds := make([]int64, n), make([]string, n), make([]string, n), make([]string, n)
	debits, credits, tickets, at := make([]int64, n), make([]int64, n), make([]*string, n), make([]time.Time, n)
	leases, hands := make([]int64, n), make([][]byte, n) // lease 0: none (migrations/0007); hand nil: not a hand pay (0008)
	for i, m := range ms {
		seq[i], ids[i], players[i], kinds[i] = int64(m.Seq), m.ID, m.Player, m.Kind.String()
		debits[i], credits[i], at[i], leases[i] = int64(m.Debit), int64(m.Credit), m.Time, m.Lease
		if m.Ticket != nil {
			t := m.Ticket.String()
			tickets[i] = &t
		}
		if m.Hand != nil {
			h, err := json.Marshal(m.Hand)
			if err != nil {
				return engine.PushResult{}, err
			}
			hands[i] = h
		}
	}
	return c.push(ctx, "push_movements", pushMovementsSQL, seq, ids, players, kinds, debits, credits, tickets, at, leases, hands)
}

// push calls the push function fn through its query with the batch's
// columns.
func (c *Client) push(ctx context.Context, fn, sql string, columns ...any) (engine.PushResult, error) {
	var applied, dup, conf, last int64
	if err := c.db.QueryRow(ctx, sql, columns...).Scan(&applied, &dup, &conf, &last); err != nil {
		return engine.PushResult{}, fmt.Errorf("%s: %w", fn, translate(err))
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
