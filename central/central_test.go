package central_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"starfortune/central"
	"starfortune/engine"
	"starfortune/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

var ctx = context.Background()

// fleet is a fresh central database, initialised, with one emission at
// 0,50 € and the named kiosks.
type fleet struct {
	url    string
	admin  *central.Admin
	kiosks map[string]*central.Client
	urls   map[string]string
	keys   map[string][]byte // each kiosk's call key (migrations/0011)
}

func newFleet(t testing.TB, blocks, packSize int, kiosks ...string) *fleet {
	t.Helper()
	f := &fleet{url: pgtest.DB(t), kiosks: map[string]*central.Client{}, urls: map[string]string{}, keys: map[string][]byte{}}
	var err error
	if f.admin, err = central.OpenAdmin(ctx, f.url); err != nil {
		t.Fatal(err)
	}
	f.admin.NewSeed, f.admin.Draw = pinnedSeed, memoDraw
	t.Cleanup(f.admin.Close)
	if _, err := f.admin.Init(ctx); err != nil {
		t.Fatal(err)
	}
	if blocks > 0 {
		if _, err := f.admin.CreateEmission(ctx, 50, blocks, packSize); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range kiosks {
		f.addKiosk(t, id)
	}
	// Sales are dated after their packs' claims, as the central requires.
	soldAt = time.Now().UTC().Truncate(time.Millisecond)
	return f
}

// set changes the central's limits (fleet_settings, migrations/0005) for
// a test that needs more than a kiosk is allowed, e.g.
// "claim_packs_ahead = 100".
func (f *fleet) set(t testing.TB, settings string) {
	t.Helper()
	f.exec(t, "UPDATE fleet_settings SET "+settings)
}

// Drawing a block takes a second (several under -race): the tests draw
// each from one pinned seed, once per test binary. The command-line test
// draws with crypto/rand as the program does.
var (
	drawMu sync.Mutex
	drawn  = map[engine.BlockRef]drawing{}
)

type drawing struct {
	b      *engine.Block
	levels [][]engine.Hash
}

func pinnedSeed() (engine.Seed, error) { return engine.Seed{7, 7, 7}, nil }

func memoDraw(ref engine.BlockRef, seed engine.Seed) (*engine.Block, [][]engine.Hash, error) {
	drawMu.Lock()
	defer drawMu.Unlock()
	d, ok := drawn[ref]
	if !ok || d.b.Seed != seed {
		b, levels, err := central.DrawBlock(ref, seed)
		if err != nil {
			return nil, nil, err
		}
		d = drawing{b, levels}
		drawn[ref] = d
	}
	return d.b, d.levels, nil
}

func (f *fleet) addKiosk(t testing.TB, id string) *central.Client {
	t.Helper()
	k, err := f.admin.AddKiosk(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	c, err := central.Open(ctx, k.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	key, err := hex.DecodeString(k.CallKey)
	if err != nil || len(key) != central.CallKeySize {
		t.Fatalf("kiosk %s's call key %q: %v", id, k.CallKey, err)
	}
	f.kiosks[id], f.urls[id], f.keys[id] = c, k.URL, key
	return c
}

func (f *fleet) claim(t *testing.T, kiosk string) engine.Pack {
	t.Helper()
	p, err := f.kiosks[kiosk].ClaimPack(ctx, 50)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Verify(); err != nil {
		t.Fatal(err)
	}
	return p
}

// soldAt dates the sales of a test: newFleet sets it, the kiosks' sales
// come a millisecond apart from it.
var soldAt time.Time

// sell makes the sales of n units of p from unit from on, numbered from seq.
func sell(t *testing.T, p engine.Pack, from uint32, n int, seq uint64, player string) []engine.FleetSale {
	t.Helper()
	out := make([]engine.FleetSale, n)
	for i := range out {
		u, err := p.Unit(from + uint32(i))
		if err != nil {
			t.Fatal(err)
		}
		out[i] = engine.FleetSale{Seq: seq + uint64(i), Pack: p.Serial, Ticket: p.Ticket(from + uint32(i)), Time: soldAt.Add(time.Duration(from+uint32(i)) * time.Millisecond),
			Player: player, Unit: u, Revealed: true}
	}
	return out
}

// ledger is the sale movements of sales, numbered from seq.
func ledger(sales []engine.FleetSale, seq uint64) []engine.FleetMovement {
	out := make([]engine.FleetMovement, len(sales))
	for i, s := range sales {
		t := s.Ticket
		out[i] = engine.FleetMovement{Seq: seq + uint64(i), ID: fmt.Sprintf("%s/%d", s.Player, seq+uint64(i)), Player: s.Player,
			Kind: engine.LedgerSale, Debit: t.Block.Stake, Credit: s.Unit.Prize(t.Block.Stake), Ticket: &t, Time: s.Time}
	}
	return out
}

func push(t *testing.T, c *central.Client, sales []engine.FleetSale) engine.PushResult {
	t.Helper()
	r, err := c.PushSales(ctx, sales)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (f *fleet) audit(t *testing.T) central.AuditReport {
	t.Helper()
	rep, err := f.admin.Audit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// scan reads one row of sql into dest, as the central's owner.
func (f *fleet) scan(t testing.TB, sql string, dest ...any) {
	t.Helper()
	conn, err := pgx.Connect(ctx, f.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, sql).Scan(dest...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func (f *fleet) exec(t testing.TB, sql string, args ...any) {
	t.Helper()
	conn, err := pgx.Connect(ctx, f.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func hasFinding(rep central.AuditReport, parts ...string) bool {
	return slices.ContainsFunc(rep.Findings, func(f string) bool {
		for _, p := range parts {
			if !strings.Contains(f, p) {
				return false
			}
		}
		return true
	})
}

func TestInitIsIdempotentAndChecked(t *testing.T) {
	url := pgtest.DB(t)
	a, err := central.OpenAdmin(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.CheckSchema(ctx); !errors.Is(err, central.ErrNotInitialised) {
		t.Fatalf("schema check before init: %v, want ErrNotInitialised", err)
	}
	first, err := a.Init(ctx)
	if err != nil || len(first) == 0 {
		t.Fatalf("init applied %v: %v", first, err)
	}
	again, err := a.Init(ctx)
	if err != nil || len(again) != 0 {
		t.Fatalf("second init applied %v: %v", again, err)
	}
	if err := a.CheckSchema(ctx); err != nil {
		t.Fatal(err)
	}
}

// Many kiosks claiming at once get packs that tile the blocks exactly:
// no position twice, none skipped, each pack verified against its root.
func TestConcurrentClaimsNeverOverlap(t *testing.T) {
	const packSize = 50_000 // 17 packs per block
	f := newFleet(t, 2, packSize, "k1", "k2", "k3", "k4", "k5", "k6")
	f.set(t, "claim_packs_ahead = 100, claims_per_minute = 1000") // claiming without selling, on purpose
	var mu sync.Mutex
	got := map[engine.BlockRef][][2]uint32{}
	var wg sync.WaitGroup
	var refused int
	for id, c := range f.kiosks {
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					p, err := c.ClaimPack(ctx, 50)
					if errors.Is(err, engine.ErrNoPack) {
						mu.Lock()
						refused++
						mu.Unlock()
						return
					}
					if errors.Is(err, engine.ErrClaimRefused) { // every pack left being claimed: again
						continue
					}
					if err != nil {
						t.Errorf("%s: %v", id, err)
						return
					}
					mu.Lock()
					got[p.Block] = append(got[p.Block], [2]uint32{p.First, p.Count()})
					if len(got[p.Block])%4 == 1 { // a sample: Verify has its own test
						if err := p.Verify(); err != nil {
							t.Errorf("%s: %v", id, err)
						}
					}
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	if len(got) != 2 || refused != 12 {
		t.Fatalf("packs from %d blocks, %d claimers told no unit is left; want 2 and 12", len(got), refused)
	}
	for ref, ranges := range got {
		slices.SortFunc(ranges, func(a, b [2]uint32) int { return int(a[0]) - int(b[0]) })
		var at uint32
		for _, r := range ranges {
			if r[0] != at {
				t.Fatalf("block %s: a pack starts at %d, the previous ones end at %d", ref, r[0], at)
			}
			at += r[1]
		}
		if at != engine.BlockSize {
			t.Fatalf("block %s: packs end at %d", ref, at)
		}
	}
}

func TestTamperedPackIsRefused(t *testing.T) {
	f := newFleet(t, 1, 1000, "k1")
	f.claim(t, "k1")
	p := f.claim(t, "k1")            // the second pack: a proof with nodes on both sides
	other := func(u []byte) []byte { // another valid unit: a losing unit's other 0 € spot
		out := slices.Clone(u)
		for i := 0; i < int(p.Count()); i++ {
			if int(out[i*3]) == engine.LosingTier && out[i*3+1] != out[i*3+2] {
				out[i*3+1], out[i*3+2] = out[i*3+2], out[i*3+1]
				return out
			}
		}
		t.Fatal("no losing unit with two different spots")
		return nil
	}
	cases := []struct {
		name   string
		tamper func(*engine.Pack)
	}{
		{"an outcome changed", func(p *engine.Pack) { p.Units = other(p.Units) }},
		{"a salt changed", func(p *engine.Pack) { p.Salts = slices.Clone(p.Salts); p.Salts[7][0] ^= 1 }},
		{"a proof hash changed", func(p *engine.Pack) { p.Proof = slices.Clone(p.Proof); p.Proof[0][31] ^= 1 }},
		{"the last proof hash changed", func(p *engine.Pack) { p.Proof = slices.Clone(p.Proof); p.Proof[len(p.Proof)-1][0] ^= 1 }},
		{"shifted", func(p *engine.Pack) { p.First++ }},
		{"another block's name", func(p *engine.Pack) { p.Block.Number = 2 }},
		{"a unit dropped", func(p *engine.Pack) { p.Units, p.Salts = p.Units[:len(p.Units)-3], p.Salts[:len(p.Salts)-1] }},
		{"another root", func(p *engine.Pack) { p.Root[0] ^= 1 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := p
			c.tamper(&q)
			if err := q.Verify(); !errors.Is(err, engine.ErrBadProof) {
				t.Fatalf("Verify: %v, want ErrBadProof", err)
			}
		})
	}
}

// A kiosk role can only call its functions: it cannot read a seed, a
// block, another kiosk's packs or sales, nor change a table directly.
func TestKioskRoleLeastPrivilege(t *testing.T) {
	f := newFleet(t, 1, 1000, "k1", "k2")
	p2 := f.claim(t, "k2")
	push(t, f.kiosks["k2"], sell(t, p2, 0, 2, 1, "bob"))
	f.claim(t, "k1")
	conn, err := pgx.Connect(ctx, f.urls["k1"])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	forbidden := []string{
		"SELECT seed FROM block_seeds",
		"SELECT seed FROM blocks",
		"SELECT units FROM blocks",
		"SELECT hashes FROM block_levels",
		"SELECT * FROM packs",
		"SELECT * FROM sales",
		"SELECT * FROM kiosks",
		"UPDATE kiosks SET last_sale_seq = 0",
		"UPDATE block_cursors SET next = 0",
		"INSERT INTO sales (ticket) VALUES ('x')",
		"DELETE FROM sale_conflicts",
		"UPDATE blocks SET closed_at = now()",
		"SELECT sf_close_if_done(1)",
		"SELECT sf_node(1, 0, 0)",
		"SELECT sf_fleet_view()",
		"CREATE TABLE mine (x int)",
		"CREATE TEMP TABLE mine (x int)",
	}
	for _, sql := range forbidden {
		var pg *pgconn.PgError
		if _, err := conn.Exec(ctx, sql); !errors.As(err, &pg) || pg.Code != "42501" {
			t.Errorf("%s as a kiosk: %v, want insufficient privilege (42501)", sql, err)
		}
	}
	// Through its functions it sees only its own packs and cannot act on
	// another kiosk's.
	st, err := f.kiosks["k1"].KioskState(ctx)
	if err != nil || len(st.Packs) != 1 || st.Kiosk != "k1" {
		t.Fatalf("k1's state: %+v %v", st, err)
	}
	if _, err := f.kiosks["k1"].ReleasePack(ctx, p2.Serial, p2.First+2); !errors.Is(err, engine.ErrPackState) {
		t.Fatalf("k1 releasing k2's pack: %v, want ErrPackState", err)
	}
	if r := push(t, f.kiosks["k1"], sell(t, p2, 5, 1, 1, "eve")); r.Conflicts != 1 || r.Applied != 0 {
		t.Fatalf("k1 pushing a sale of k2's pack: %+v, want a conflict", r)
	}
	// A sold ticket is visible to all (support staff), with its outcome.
	s, err := f.kiosks["k1"].LookupTicket(ctx, p2.Ticket(1))
	if err != nil || s.Kiosk != "k2" || s.Player != "bob" {
		t.Fatalf("look-up of k2's sale from k1: %+v %v", s, err)
	}
	if _, err := f.kiosks["k1"].LookupTicket(ctx, p2.Ticket(3)); !errors.Is(err, engine.ErrUnknownTicket) {
		t.Fatalf("look-up of an unsold ticket: %v, want ErrUnknownTicket", err)
	}
	// Wrong password: no connection. The admin's superuser is not a kiosk.
	bad := strings.Replace(f.urls["k1"], "password=", "password=x", 1)
	if c, err := pgx.Connect(ctx, bad); err == nil {
		c.Close(ctx)
		t.Fatal("connected with a wrong password")
	}
	admin, _ := central.Open(ctx, f.url)
	defer admin.Close()
	if _, err := admin.ClaimPack(ctx, 50); !errors.Is(err, engine.ErrUnknownKiosk) {
		t.Fatalf("claim by a role that is not a kiosk: %v, want ErrUnknownKiosk", err)
	}
}

func TestPushIsIdempotentAndInOrder(t *testing.T) {
	f := newFleet(t, 1, 1000, "k1")
	c := f.kiosks["k1"]
	p := f.claim(t, "k1")
	first := sell(t, p, 0, 5, 1, "ann")
	if r := push(t, c, first); r.Applied != 5 || r.LastSeq != 5 {
		t.Fatalf("first push: %+v", r)
	}
	if r := push(t, c, first); r.Applied != 0 || r.Duplicates != 5 || r.Conflicts != 0 {
		t.Fatalf("re-push: %+v, want 5 duplicates", r)
	}
	// A batch overlapping what the central has: the old part is a duplicate.
	if r := push(t, c, sell(t, p, 3, 4, 4, "ann")); r.Applied != 2 || r.Duplicates != 2 || r.LastSeq != 7 {
		t.Fatalf("overlapping push: %+v", r)
	}
	if _, err := c.PushSales(ctx, sell(t, p, 9, 1, 9, "ann")); !errors.Is(err, engine.ErrSyncGap) {
		t.Fatalf("push after a gap: %v, want ErrSyncGap", err)
	}
	// Two sales under one number: refused whole (no unique index spans the
	// partitions of sales, migrations/0013).
	twice := sell(t, p, 7, 2, 8, "ann")
	twice[1].Seq = twice[0].Seq
	if _, err := c.PushSales(ctx, twice); !errors.Is(err, engine.ErrSyncGap) {
		t.Fatalf("two sales numbered alike: %v, want ErrSyncGap", err)
	}
	ms := ledger(sell(t, p, 0, 7, 1, "ann"), 1)
	for range 2 {
		r, err := c.PushMovements(ctx, ms)
		if err != nil || r.Applied+r.Duplicates != 7 || r.Conflicts != 0 {
			t.Fatalf("movements: %+v %v", r, err)
		}
	}
	if _, err := c.PushMovements(ctx, ledger(sell(t, p, 10, 1, 1, "ann"), 9)); !errors.Is(err, engine.ErrSyncGap) {
		t.Fatalf("movement after a gap: %v, want ErrSyncGap", err)
	}
	if rep := f.audit(t); !rep.OK {
		t.Fatalf("audit: %q", rep.Findings)
	}
	st, err := c.KioskState(ctx)
	if err != nil || st.LastSaleSeq != 7 || st.LastMovementSeq != 7 || st.Packs[0].Sold != 7 || st.Packs[0].Next != p.First+7 {
		t.Fatalf("state %+v %v", st, err)
	}
}

// A position sold twice (a kiosk restored from an old backup sells again
// what it had sold) is refused by the unique constraint, recorded, and
// reported by the audit; the first sale stays as it was.
func TestPositionSoldTwiceIsCaught(t *testing.T) {
	f := newFleet(t, 1, 1000, "k1")
	c := f.kiosks["k1"]
	p := f.claim(t, "k1")
	push(t, c, sell(t, p, 0, 3, 1, "ann"))
	again := sell(t, p, 2, 1, 4, "bob") // position 2 again, as sale 4
	if r := push(t, c, again); r.Conflicts != 1 || r.Applied != 0 {
		t.Fatalf("second sale of a position: %+v, want a conflict", r)
	}
	if r := push(t, c, again); r.Duplicates != 1 || r.Conflicts != 0 || r.LastSeq != 4 {
		t.Fatalf("re-push of the refused sale: %+v, want a duplicate", r)
	}
	s, err := f.admin.Show(ctx, p.Ticket(2))
	if err != nil || s.Player != "ann" || s.Seq != 3 {
		t.Fatalf("the first sale changed: %+v %v", s, err)
	}
	rep := f.audit(t)
	if rep.OK || !hasFinding(rep, p.Ticket(2).String(), "position already sold", "kiosk k1, sale 4") {
		t.Fatalf("audit findings %q", rep.Findings)
	}
}

// Release, void, closure, seed reveal: a closed block never reopens.
func TestReleaseVoidAndClosure(t *testing.T) {
	f := newFleet(t, 1, engine.BlockSize-1000, "k1", "k2", "k3")
	big, err := f.kiosks["k1"].ClaimPack(ctx, 50) // 849 000 units: not verified, to keep the test quick
	if err != nil {
		t.Fatal(err)
	}
	push(t, f.kiosks["k1"], sell(t, big, 0, 10, 1, "ann"))
	// k2 takes the last 1 000 positions, sells 4 and returns the rest.
	small := f.claim(t, "k2")
	push(t, f.kiosks["k2"], sell(t, small, 0, 4, 1, "bob"))
	rest, err := f.kiosks["k2"].ReleasePack(ctx, small.Serial, small.First+4)
	if err != nil || rest == "" || rest == small.Serial {
		t.Fatalf("release: %q %v", rest, err)
	}
	if _, err := f.kiosks["k2"].ReleasePack(ctx, small.Serial, small.First+4); !errors.Is(err, engine.ErrPackState) {
		t.Fatalf("second release: %v, want ErrPackState", err)
	}
	// The kiosk can fetch what it kept again (a lost answer, a restore).
	kept, err := f.kiosks["k2"].FetchPack(ctx, small.Serial)
	if err != nil || kept.Count() != 4 || kept.First != small.First || kept.Verify() != nil {
		t.Fatalf("fetch of the kept part: %d units from %d, %v", kept.Count(), kept.First, err)
	}
	if _, err := f.kiosks["k1"].FetchPack(ctx, small.Serial); !errors.Is(err, engine.ErrPackState) {
		t.Fatalf("fetch of another kiosk's pack: %v, want ErrPackState", err)
	}
	// A sale beyond what it kept is a conflict.
	if r := push(t, f.kiosks["k2"], sell(t, small, 4, 1, 5, "bob")); r.Conflicts != 1 {
		t.Fatalf("sale of a released position: %+v", r)
	}
	// k2 has seen the remainder's outcomes: no kiosk ever gets it (#36).
	if p, err := f.kiosks["k3"].ClaimPack(ctx, 50); !errors.Is(err, engine.ErrNoPack) {
		t.Fatalf("claim after release: %s [%d+%d] %v, want ErrNoPack (the remainder is voided)", p.Serial, p.First, p.Count(), err)
	}
	blocks, _ := f.admin.Blocks(ctx)
	if blocks[0].Closed || blocks[0].Seed != "" || blocks[0].Voided != 996 {
		t.Fatalf("block closed or seed shown early, or the remainder not voided: %+v", blocks[0])
	}
	// k1 is lost: its pack is voided; every position is then sold or
	// voided, and the block closes.
	if err := f.admin.VoidPack(ctx, big.Serial, "kiosk stolen"); err != nil {
		t.Fatal(err)
	}
	if err := f.admin.VoidPack(ctx, big.Serial, "again"); !errors.Is(err, engine.ErrPackState) {
		t.Fatalf("second void: %v", err)
	}
	if r := push(t, f.kiosks["k1"], sell(t, big, 10, 1, 11, "ann")); r.Conflicts != 1 {
		t.Fatalf("sale of a voided pack: %+v", r)
	}
	blocks, _ = f.admin.Blocks(ctx)
	b := blocks[0]
	if !b.Closed || b.Seed == "" || b.Sold != 10+4 || b.Voided != int64(big.Count())-10+996 {
		t.Fatalf("after the last void: %+v", b)
	}
	// The revealed seed redraws the block to its published root.
	var seed engine.Seed
	if raw, err := hex.DecodeString(b.Seed); err != nil || copy(seed[:], raw) != 32 {
		t.Fatalf("seed %q: %v", b.Seed, err)
	}
	if g := engine.GenerateBlock(big.Block, seed); g.Commitment.String() != b.Commitment {
		t.Fatal("the revealed seed does not lead to the published root")
	}
	if err := f.admin.VoidPack(ctx, small.Serial, "late"); !errors.Is(err, engine.ErrPackState) {
		t.Fatalf("void in a closed block: %v", err)
	}
	conn, _ := pgx.Connect(ctx, f.url)
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "UPDATE blocks SET closed_at = NULL, seed = NULL"); err == nil {
		t.Fatal("a closed block was reopened")
	}
	rep := f.audit(t)
	// The two refused sales are the only findings.
	if len(rep.Findings) != 2 || !hasFinding(rep, "pack voided", "kiosk k1, sale 11") || !hasFinding(rep, "position outside the pack", "kiosk k2, sale 5") {
		t.Fatalf("audit findings %q", rep.Findings)
	}
}

// Each kind of tampering with the central's rows is an audit finding.
func TestAuditFindsTampering(t *testing.T) {
	cases := []struct {
		name   string
		sql    string
		finds  []string
		ticket uint32 // the unit the finding names
	}{
		{"a prize updated", "UPDATE sales SET prize_cents = prize_cents + 5000 WHERE ticket = $1", []string{"prize"}, 3},
		{"a sale row deleted", "DELETE FROM sales WHERE ticket = $1", []string{"closure counts"}, 4},
		{"a position duplicated", `ALTER TABLE sales DROP CONSTRAINT sales_position_once;
			INSERT INTO sales SELECT * FROM sales WHERE ticket = $1`, []string{"sold twice"}, 5},
		{"a published root changed", "UPDATE blocks SET root = sha256(root) WHERE $1 <> ''", []string{"published root"}, 0},
		{"a movement id used again", `INSERT INTO movements (kiosk, id, seq, player, kind, debit_cents, credit_cents, ticket, at)
			SELECT kiosk, id, 9, player, kind, debit_cents, credit_cents, ticket, at FROM movements WHERE ticket = $1`, []string{"movement id", "used 2 times"}, 6},
		{"a hand pay without its payout", `INSERT INTO hand_pays (kiosk, movement, player, ticket, prize_cents, document, checked_by, paid_by, method, reference, at)
			VALUES ('k1', 'forged', 'ann', $1, 100, 'CNI', 'eve', 'eve', 'virement', '', now())`, []string{"hand pay whose payout"}, 7},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFleet(t, 1, 1000, "k1")
			p := f.claim(t, "k1")
			sales := sell(t, p, 0, 8, 1, "ann")
			push(t, f.kiosks["k1"], sales)
			if _, err := f.kiosks["k1"].PushMovements(ctx, ledger(sales, 1)); err != nil {
				t.Fatal(err)
			}
			// (A clean fleet's audit is TestPushIsIdempotentAndInOrder's.)
			ticket := p.Ticket(c.ticket).String()
			if strings.Contains(c.sql, ";") { // several statements: no parameters
				f.exec(t, strings.ReplaceAll(c.sql, "$1", "'"+ticket+"'"))
			} else {
				f.exec(t, c.sql, ticket)
			}
			rep := f.audit(t)
			if rep.OK || !hasFinding(rep, c.finds...) {
				t.Fatalf("audit findings %q, want one with %q", rep.Findings, c.finds)
			}
		})
	}
}

// The PostgreSQL server killed with SIGKILL while kiosks claim packs and
// push sales: every claim either happened or not (a claim whose answer was
// lost is found again through kiosk_state and fetched), every push is
// retried until applied exactly once, and the audit finds nothing.
func TestServerKilledDuringClaimsAndPushes(t *testing.T) {
	cluster := pgtest.Need(t)
	f := newFleet(t, 1, 1000, "k1", "k2", "k3")
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	const packsEach, batch = 4, 250
	sold := map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for id, c := range f.kiosks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			held := map[string]bool{}
			var seq uint64
			process := func(p engine.Pack) {
				if err := p.Verify(); err != nil {
					t.Errorf("%s: %v", id, err)
					return
				}
				held[p.Serial] = true
				for off := uint32(0); off < p.Count(); off += batch {
					sales := sell(t, p, off, batch, seq+1, id)
					for {
						r, err := c.PushSales(ctx, sales)
						if err == nil {
							if r.Conflicts != 0 || r.Applied+r.Duplicates != batch {
								t.Errorf("%s: push %+v", id, r)
							}
							break
						}
						if ctx.Err() != nil || !errors.Is(err, engine.ErrCentralUnavailable) {
							t.Errorf("%s: push: %v", id, err)
							return
						}
						time.Sleep(20 * time.Millisecond)
					}
					seq += batch
				}
				mu.Lock()
				sold[id] += int(p.Count())
				mu.Unlock()
			}
			adopt := func() { // packs the central gave whose answer was lost
				st, err := c.KioskState(ctx)
				if err != nil {
					return
				}
				for _, ps := range st.Packs {
					if !held[ps.Serial] && ps.Status == "claimed" {
						if p, err := c.FetchPack(ctx, ps.Serial); err == nil {
							process(p)
						}
					}
				}
			}
			for len(held) < packsEach && ctx.Err() == nil {
				p, err := c.ClaimPack(ctx, 50)
				if err != nil {
					time.Sleep(20 * time.Millisecond)
					adopt()
					continue
				}
				process(p)
			}
			for ctx.Err() == nil { // the server may still be restarting
				if _, err := c.KioskState(ctx); err == nil {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			adopt()
		}()
	}
	for range 3 {
		time.Sleep(300 * time.Millisecond)
		if err := cluster.Crash(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		if err := cluster.Start(); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if rep := f.audit(t); !rep.OK || rep.Sales != sold["k1"]+sold["k2"]+sold["k3"] {
		t.Fatalf("after 3 server kills: %d sales on record, %v pushed; findings %q", rep.Sales, sold, rep.Findings)
	}
	for id, c := range f.kiosks {
		st, err := c.KioskState(ctx)
		if err != nil || int(st.LastSaleSeq) != sold[id] {
			t.Fatalf("%s: central at sale %d (%v), the kiosk pushed %d", id, st.LastSaleSeq, err, sold[id])
		}
	}
}

// Each kiosk gets its own data key-encryption key, the same at every
// start, and no kiosk reads another's: the table is not theirs to read.
func TestKioskDataKeyIsItsOwn(t *testing.T) {
	f := newFleet(t, 0, 0, "k1", "k2")
	k1, err := f.kiosks["k1"].DataKey(ctx)
	if err != nil || len(k1) != 32 {
		t.Fatalf("k1's data key: %d bytes, %v", len(k1), err)
	}
	again, err := f.kiosks["k1"].DataKey(ctx)
	if err != nil || !bytes.Equal(again, k1) {
		t.Fatalf("k1's data key changed between two starts: %v", err)
	}
	k2, err := f.kiosks["k2"].DataKey(ctx)
	if err != nil || bytes.Equal(k2, k1) {
		t.Fatalf("k2's data key is k1's (or %v)", err)
	}
	conn, err := pgx.Connect(ctx, f.urls["k1"])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var stolen []byte
	if err := conn.QueryRow(ctx, "SELECT data_kek FROM kiosks WHERE id = 'k2'").Scan(&stolen); err == nil {
		t.Fatal("k1 read k2's data key from the table")
	}
}
