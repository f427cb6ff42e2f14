package central

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"starfortune/engine"
)

// DefaultPackSize is the units per pack unless the emission says otherwise.
const DefaultPackSize = 1000

// MinPackSize is the fewest units per pack: a block's packs are numbered on
// five digits (P00001 to P99999), and a block of 850 000 units needs at
// most 99 999 packs. The most is engine.MaxPackSize, what a kiosk holds.
const MinPackSize = (engine.BlockSize + 99_998) / 99_999

// maxPackSize is engine.MaxPackSize; the central's own tests raise it
// (export_test.go), to close a block in a claim or two.
var maxPackSize = engine.MaxPackSize

// Admin is the operator's side of the central, connected as the role that
// owns the schema (the one that ran Init).
type Admin struct {
	pool *pgxpool.Pool
	url  string
	// NewSeed draws a block's seed: engine.NewSeed (crypto/rand).
	NewSeed func() (engine.Seed, error)
	// Draw draws a block from its seed and computes its Merkle levels:
	// DrawBlock. Drawing takes about a second, which tests save by
	// pinning NewSeed and memoizing Draw.
	Draw func(ref engine.BlockRef, seed engine.Seed) (*engine.Block, [][]engine.Hash, error)
}

// DrawBlock draws block ref from seed (engine.GenerateBlock) and the levels
// of its Merkle tree, checked against its commitment.
func DrawBlock(ref engine.BlockRef, seed engine.Seed) (*engine.Block, [][]engine.Hash, error) {
	b := engine.GenerateBlock(ref, seed)
	leaves, err := engine.LeafHashes(b.Ref, engine.NewSalter(b.Seed), 0, b.Units)
	if err != nil {
		return nil, nil, err
	}
	levels := engine.MerkleLevels(leaves)
	if engine.MerkleRoot(leaves) != b.Commitment {
		return nil, nil, errors.New("the Merkle levels do not lead to the block's commitment")
	}
	return b, levels, nil
}

// OpenAdmin connects to the central database at url (a libpq connection
// string or URL).
func OpenAdmin(ctx context.Context, url string) (*Admin, error) {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("central: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("central: connect: %w", err)
	}
	return &Admin{pool: pool, url: url, NewSeed: engine.NewSeed, Draw: DrawBlock}, nil
}

// Close closes the connections.
func (a *Admin) Close() { a.pool.Close() }

// Init creates or migrates the schema; it returns the migrations applied.
func (a *Admin) Init(ctx context.Context) ([]string, error) {
	conn, err := a.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("central: %w", err)
	}
	defer conn.Release()
	return migrate(ctx, conn.Conn())
}

// CheckSchema reports ErrNotInitialised unless the schema is the one this
// program writes.
func (a *Admin) CheckSchema(ctx context.Context) error {
	var v int
	err := a.pool.QueryRow(ctx, query("schema_version")).Scan(&v)
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.Code == "42P01" { // undefined table
		return ErrNotInitialised
	}
	if err != nil {
		return fmt.Errorf("central: %w", err)
	}
	if v != latestVersion() {
		return fmt.Errorf("%w (schema version %d, this program writes %d)", ErrNotInitialised, v, latestVersion())
	}
	return nil
}

// Emission is an emission drawn centrally.
type Emission struct {
	ID         int      `json:"id"`
	StakeCents int64    `json:"stake_cents"`
	PackSize   int      `json:"pack_size"`
	Blocks     []string `json:"blocks"`      // block ids, "01-050-0001"
	Roots      []string `json:"commitments"` // their published Merkle roots, hex
}

// CreateEmission draws a new emission of n blocks at one stake, in one
// transaction: each block from a crypto/rand seed with the engine's
// generator, its units, its Merkle levels (for the packs' range proofs) and
// its root published; the seed goes to block_seeds, which no kiosk role
// can read.
func (a *Admin) CreateEmission(ctx context.Context, stake engine.Cents, n, packSize int) (Emission, error) {
	if !engine.ValidStake(stake) {
		return Emission{}, fmt.Errorf("%w: %d cents", engine.ErrBadStake, stake)
	}
	if n < 1 || n > 9999 {
		return Emission{}, fmt.Errorf("central: %d blocks: want 1 to 9999", n)
	}
	if packSize == 0 {
		packSize = DefaultPackSize
	}
	if packSize < MinPackSize || packSize > maxPackSize {
		return Emission{}, fmt.Errorf("central: pack size %d: want %d to %d", packSize, MinPackSize, maxPackSize)
	}
	em := Emission{StakeCents: int64(stake), PackSize: packSize}
	err := pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, query("emission_lock")); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, query("emission_next")).Scan(&em.ID); err != nil {
			return err
		}
		if em.ID > 99 {
			return ErrEmissions
		}
		if _, err := tx.Exec(ctx, query("emission_insert"), em.ID, int(stake), packSize); err != nil {
			return err
		}
		if err := insertLeafTails(ctx, tx, stake); err != nil {
			return err
		}
		for num := 1; num <= n; num++ {
			ref := engine.BlockRef{Emission: uint16(em.ID), Stake: stake, Number: uint32(num)}
			seed, err := a.NewSeed()
			if err != nil {
				return err
			}
			b, levels, err := a.Draw(ref, seed)
			if err != nil {
				return fmt.Errorf("block %s: %w", ref, err)
			}
			if err := insertBlock(ctx, tx, b, levels, packSize); err != nil {
				return fmt.Errorf("block %s: %w", ref, err)
			}
			em.Blocks, em.Roots = append(em.Blocks, ref.String()), append(em.Roots, b.Commitment.String())
		}
		return nil
	})
	if err != nil {
		return Emission{}, fmt.Errorf("central: emission: %w", err)
	}
	return em, nil
}

// storedLevel is the lowest level of a block's tree kept in block_levels;
// sf_node hashes the nodes below from the units.
const storedLevel = 4

// insertLeafTails gives sf_leaf the leaf bytes that follow the salt, block
// and position, for every unit encoding at the stake.
func insertLeafTails(ctx context.Context, tx pgx.Tx, stake engine.Cents) error {
	ref := engine.BlockRef{Stake: stake}
	var batch pgx.Batch
	insert := query("leaf_tail_insert")
	for t := range engine.NumTiers {
		for _, u := range engine.Scripts(t) {
			leaf := engine.AppendLeaf(nil, ref, 0, engine.Hash{}, u)
			enc := u.Encode()
			batch.Queue(insert, int(stake), enc[:], leaf[32+2+2+4+4:])
		}
	}
	return tx.SendBatch(ctx, &batch).Close()
}

// insertBlock stores a drawn block, its secret seed, its Merkle levels and
// its cursor.
func insertBlock(ctx context.Context, tx pgx.Tx, b *engine.Block, levels [][]engine.Hash, packSize int) error {
	var id int64
	err := tx.QueryRow(ctx, query("block_insert"), int(b.Ref.Emission), int(b.Ref.Stake), int(b.Ref.Number), b.Len(),
		b.Commitment[:], b.Units).Scan(&id)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, query("block_seed_insert"), id, b.Seed[:]); err != nil {
		return err
	}
	for lv, hs := range levels {
		if lv < storedLevel {
			continue
		}
		var buf bytes.Buffer
		buf.Grow(len(hs) * 32)
		for _, h := range hs {
			buf.Write(h[:])
		}
		if _, err := tx.Exec(ctx, query("block_level_insert"), id, lv, buf.Bytes()); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, query("block_cursor_insert"), id, b.Len(), packSize); err != nil {
		return err
	}
	_, err = tx.Exec(ctx, cutPacksSQL, id)
	return err
}

// cutPacksSQL cuts block $1 into its packs ahead, each available to one
// claim (migrations/0005): claims then share no row.
const cutPacksSQL = "SELECT sf_cut_packs($1)"

// Kiosk is a kiosk registered with the central (what it does: FleetView).
type Kiosk struct {
	ID        string    `json:"id"`
	Role      string    `json:"role"`
	CreatedAt time.Time `json:"created_at"`
	// URL is the kiosk's connection string and CallKey (hex) the key its
	// calls through a pooler prove it with (OpenPooled): only AddKiosk
	// fills them, once.
	URL     string `json:"url,omitempty"`
	CallKey string `json:"call_key,omitempty"`
}

var kioskID = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)

// currentDatabaseSQL names the database, which prefixes its kiosk roles,
// their group role (migrations/0002) and the pooled role (0011).
const currentDatabaseSQL = "SELECT current_database()"

// database is the name of tx's database.
func database(ctx context.Context, tx pgx.Tx) (string, error) {
	var db string
	err := tx.QueryRow(ctx, currentDatabaseSQL).Scan(&db)
	return db, err
}

// kioskRoleLimitsSQL gives kiosk role $1 the settings' connection limit
// and session timeouts (migrations/0005).
const kioskRoleLimitsSQL = "SELECT sf_kiosk_role_limits($1)"

// AddKiosk creates kiosk id: a LOGIN role (scram-sha-256, a random
// password) whose only right is membership of the kiosk group, and returns
// its connection string, which is shown this once and stored nowhere.
func (a *Admin) AddKiosk(ctx context.Context, id string) (Kiosk, error) {
	if !kioskID.MatchString(id) {
		return Kiosk{}, fmt.Errorf("%w: %q", ErrBadKioskID, id)
	}
	pw := make([]byte, 24)
	if _, err := rand.Read(pw); err != nil {
		return Kiosk{}, err
	}
	password := hex.EncodeToString(pw)
	verifier, err := scramVerifier(password)
	if err != nil {
		return Kiosk{}, err
	}
	k := Kiosk{ID: id}
	err = pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		db, err := database(ctx, tx)
		if err != nil {
			return err
		}
		k.Role = db + "_k_" + id
		if len(k.Role) > 63 {
			return fmt.Errorf("%w: role name %q is longer than PostgreSQL's 63 bytes", ErrBadKioskID, k.Role)
		}
		var exists bool
		if err := tx.QueryRow(ctx, query("kiosk_exists"), id, k.Role).Scan(&exists); err != nil {
			return err
		}
		if exists {
			return fmt.Errorf("%w: %s", ErrKioskExists, id)
		}
		var stmt string
		if err := tx.QueryRow(ctx, query("kiosk_role"), k.Role, verifier, db+"_kiosk").Scan(&stmt); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, kioskRoleLimitsSQL, k.Role); err != nil {
			return err
		}
		return tx.QueryRow(ctx, query("kiosk_insert"), id, k.Role).Scan(&k.CreatedAt, &k.CallKey)
	})
	if err != nil {
		return Kiosk{}, fmt.Errorf("central: kiosk add: %w", err)
	}
	k.URL = a.kioskURL(k.Role, password)
	return k, nil
}

// Pooler is the role kiosks behind a pooler log in as (migrations/0011).
type Pooler struct {
	Role string `json:"role"`
	// URL is the role's connection string through the pooler, the same
	// for every kiosk; UserList the line of the pooler's auth_file
	// (PgBouncer's userlist.txt: the role and its SCRAM verifier). Shown
	// once, stored nowhere.
	URL      string `json:"url"`
	UserList string `json:"userlist"`
}

// AddPooler creates the pooled role, or gives it a new password: a LOGIN
// role (scram-sha-256, a random password) whose only right is the kiosk
// group's, and which acts as no kiosk until a call proves one (sf_call).
// pooler is where kiosks reach the pooler ("host=H port=P"; "": the
// central's own host and port).
func (a *Admin) AddPooler(ctx context.Context, pooler string) (Pooler, error) {
	pw := make([]byte, 24)
	if _, err := rand.Read(pw); err != nil {
		return Pooler{}, err
	}
	password := hex.EncodeToString(pw)
	verifier, err := scramVerifier(password)
	if err != nil {
		return Pooler{}, err
	}
	var p Pooler
	err = pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		db, err := database(ctx, tx)
		if err != nil {
			return err
		}
		p.Role = db + "_pool"
		var stmt string
		if err := tx.QueryRow(ctx, poolerRoleSQL, p.Role, verifier, db+"_kiosk").Scan(&stmt); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, poolRoleLimitsSQL, p.Role)
		return err
	})
	if err != nil {
		return Pooler{}, fmt.Errorf("central: pooler: %w", err)
	}
	p.URL = a.kioskURL(p.Role, password)
	if pooler != "" {
		cfg := a.pool.Config().ConnConfig
		p.URL = fmt.Sprintf("%s dbname=%s user=%s password=%s", pooler, cfg.Database, p.Role, password)
	}
	p.UserList = fmt.Sprintf("%q %q", p.Role, verifier)
	return p, nil
}

// poolRoleLimitsSQL gives pooled role $1 the kiosk roles' timeouts
// (migrations/0014).
const poolRoleLimitsSQL = "SELECT sf_pool_role_limits($1)"

// poolerRoleSQL is the statement that creates pooled role $1 with SCRAM
// verifier $2, member of group $3, or sets its password if it exists.
const poolerRoleSQL = `SELECT CASE WHEN EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)
	THEN format('ALTER ROLE %I PASSWORD %L', $1::text, $2::text)
	ELSE format('CREATE ROLE %I LOGIN PASSWORD %L IN ROLE %I', $1::text, $2::text, $3::text) END`

// tlsParams are the settings of the operator's connection string a kiosk's
// must keep: how it checks the server.
var tlsParams = regexp.MustCompile(`\b(sslmode|sslrootcert|target_session_attrs)=([^\s&]+)`)

// kioskURL is the connection string of a kiosk role: the operator's hosts
// (every one of a multi-host string, for a standby to take over), port,
// database and TLS settings, with the kiosk's role and password.
func (a *Admin) kioskURL(role, password string) string {
	cfg := a.pool.Config().ConnConfig
	hosts, ports := []string{cfg.Host}, []string{strconv.Itoa(int(cfg.Port))}
	for _, f := range cfg.Fallbacks {
		if f.Host != hosts[len(hosts)-1] || strconv.Itoa(int(f.Port)) != ports[len(ports)-1] { // TLS fallbacks repeat a host
			hosts, ports = append(hosts, f.Host), append(ports, strconv.Itoa(int(f.Port)))
		}
	}
	u := fmt.Sprintf("host=%s port=%s dbname=%s user=%s password=%s", strings.Join(hosts, ","), strings.Join(ports, ","), cfg.Database, role, password)
	for _, m := range tlsParams.FindAllStringSubmatch(a.url, -1) {
		u += " " + m[1] + "=" + m[2]
	}
	return u
}

// Block is a block's status as `central blocks` prints it. Seed is empty
// until the block is closed.
type Block struct {
	ID         string     `json:"id"`
	StakeCents int64      `json:"stake_cents"`
	Size       int64      `json:"size"`
	Sold       int64      `json:"sold"`
	Voided     int64      `json:"voided"`
	HandedOut  int64      `json:"handed_out"`
	Commitment string     `json:"commitment"`
	Closed     bool       `json:"closed"`
	ClosedAt   *time.Time `json:"closed_at,omitempty"`
	Seed       string     `json:"seed,omitempty"`
}

// blockRow is a block as sql/blocks_list.sql reads it.
type blockRow struct {
	blockRefCols
	Size     int64      `db:"size"`
	Sold     int64      `db:"sold"`
	Voided   int64      `db:"voided"`
	Next     int64      `db:"next"`
	Root     []byte     `db:"root"`
	ClosedAt *time.Time `db:"closed_at"`
	Seed     []byte     `db:"seed"` // NULL until the block closes
}

// Blocks lists the blocks of every emission.
func (a *Admin) Blocks(ctx context.Context) ([]Block, error) {
	rows, err := a.pool.Query(ctx, query("blocks_list"))
	if err != nil {
		return nil, fmt.Errorf("central: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Block, error) {
		r, err := pgx.RowToStructByName[blockRow](row)
		b := Block{ID: r.blockRef().String(), StakeCents: int64(r.StakeCents), Size: r.Size, Sold: r.Sold, Voided: r.Voided,
			HandedOut: r.Next, Commitment: hex.EncodeToString(r.Root), Closed: r.ClosedAt != nil, ClosedAt: r.ClosedAt}
		if r.Seed != nil {
			b.Seed = hex.EncodeToString(r.Seed)
		}
		return b, err
	})
	if err != nil {
		return nil, fmt.Errorf("central: %w", err)
	}
	return out, nil
}

// Show finds a sold unit of the fleet.
func (a *Admin) Show(ctx context.Context, t engine.Ticket) (engine.FleetSale, error) {
	rows, _ := a.pool.Query(ctx, query("sale_show"), t.String())
	s, err := collectSale(rows, t)
	if errors.Is(err, pgx.ErrNoRows) {
		return s, fmt.Errorf("%w: %s was not sold by any kiosk of the fleet (or not synced yet)", engine.ErrUnknownTicket, t)
	}
	if err != nil {
		return s, fmt.Errorf("central: %w", err)
	}
	return s, nil
}

// ErrBlockOpen: the block is in play (not closed): nothing that would tell
// its outcomes or the prizes paid from it so far (its sold units, its
// closing report) is given until it closes.
var ErrBlockOpen = errors.New("central: the block is still in play")

// BlockSales lists the sold units of a closed block, in position order: what
// anyone recomputes its root from, with its revealed seed (voided positions
// are drawn again from the seed).
func (a *Admin) BlockSales(ctx context.Context, ref engine.BlockRef) ([]engine.FleetSale, error) {
	if _, err := closedBlock(ctx, a.pool, ref); err != nil {
		return nil, err
	}
	rows, _ := a.pool.Query(ctx, query("block_sales"), int(ref.Emission), int(ref.Stake), int(ref.Number))
	type positioned struct {
		Position int64 `db:"position"`
		fleetSaleRow
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (engine.FleetSale, error) {
		r, err := pgx.RowToStructByName[positioned](row)
		if err != nil {
			return engine.FleetSale{}, err
		}
		s, err := r.sale(engine.Ticket{Block: ref, Index: uint32(r.Position)})
		if err != nil {
			return s, fmt.Errorf("position %d: %w", r.Position, err)
		}
		return s, nil
	})
	if err != nil {
		return nil, fmt.Errorf("central: %w", err)
	}
	return out, nil
}

// fleetSaleRow is a sold unit as sql/sale_show.sql and lookup_ticket()
// read it (and sql/block_sales.sql, with its position).
type fleetSaleRow struct {
	Kiosk    string    `db:"kiosk"`
	Pack     string    `db:"pack"`
	Seq      int64     `db:"seq"`
	SoldAt   time.Time `db:"sold_at"`
	Player   string    `db:"player"`
	Unit     []byte    `db:"unit"`
	Revealed bool      `db:"revealed"`
}

// sale is the row as the sale of ticket t.
func (r fleetSaleRow) sale(t engine.Ticket) (engine.FleetSale, error) {
	u, err := engine.DecodeUnit(r.Unit)
	return engine.FleetSale{Seq: uint64(r.Seq), Kiosk: r.Kiosk, Pack: r.Pack, Ticket: t, Time: r.SoldAt, Player: r.Player,
		Unit: u, Revealed: r.Revealed}, err
}

// collectSale reads the sale of ticket t that rows hold (a failed query's
// error comes from rows): pgx.ErrNoRows if none.
func collectSale(rows pgx.Rows, t engine.Ticket) (engine.FleetSale, error) {
	r, err := pgx.CollectOneRow(rows, pgx.RowToStructByName[fleetSaleRow])
	if err != nil {
		return engine.FleetSale{Ticket: t}, err
	}
	return r.sale(t)
}

// closeIfDoneSQL closes block $1 (revealing its seed) once every position
// is sold or voided (migrations/0002).
const closeIfDoneSQL = "SELECT sf_close_if_done($1)"

// reanchorSQL forgets kiosk $1's journal anchor for reason $2 and resolves
// its alarms (migrations/0006).
const reanchorSQL = "SELECT sf_reanchor($1, $2)"

// Reanchor accepts kiosk's journal as it now is, for reason: a kiosk
// restored from an older backup on purpose, whose head the central
// refused as a rollback (migrations/0006). Its next heartbeat anchors
// anew; the alarms it raised are resolved (kept, with who and why). It
// returns how many alarms it resolved.
func (a *Admin) Reanchor(ctx context.Context, kiosk, reason string) (int, error) {
	if strings.TrimSpace(reason) == "" {
		return 0, errors.New("central: re-anchoring a kiosk needs a reason")
	}
	var n int
	if err := a.pool.QueryRow(ctx, reanchorSQL, kiosk, reason).Scan(&n); err != nil {
		return 0, fmt.Errorf("re-anchor kiosk %s: %w", kiosk, err)
	}
	return n, nil
}

// VoidPack voids a pack whose kiosk is lost: its unsold positions will never
// be sold, and count as voided for the block's closure. Sales of the pack
// the central already holds stay sold; any pushed later are conflicts.
func (a *Admin) VoidPack(ctx context.Context, serial, reason string) error {
	if reason == "" {
		return errors.New("central: a void needs a reason")
	}
	err := pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		var block int64
		var status string
		var closed bool
		err := tx.QueryRow(ctx, query("pack_lock"), serial).Scan(&block, &status, &closed)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("%w: no pack %q", engine.ErrPackState, serial)
		}
		if err != nil {
			return err
		}
		if status == "voided" || closed {
			return fmt.Errorf("%w: pack %s is %s", engine.ErrPackState, serial, map[bool]string{true: "in a closed block", false: "already voided"}[closed])
		}
		if _, err := tx.Exec(ctx, query("pack_void"), serial, reason); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, closeIfDoneSQL, block)
		return err
	})
	if err != nil {
		return fmt.Errorf("central: pack void: %w", err)
	}
	return nil
}
