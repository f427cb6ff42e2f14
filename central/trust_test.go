package central_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/rs/zerolog"

	"starfortune/central"
	"starfortune/engine"
	"starfortune/engine/memstore"
)

// The tests of issue 36: an attacker holding one kiosk's credentials,
// talking SQL to the central directly.

// as connects as kiosk id's role, as an attacker with its credentials would.
func (f *fleet) as(t *testing.T, id string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(ctx, f.urls[id])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	return conn
}

// sqlState is the SQLSTATE of err, "" if none.
func sqlState(err error) string {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code
	}
	return ""
}

// A kiosk claiming in a loop gets its current pack and one ahead, then is
// refused (SF007) until 75 % of its current pack is sold and pushed; past
// claims_per_minute it is refused (SF008); another kiosk claims all along.
func TestClaimCapAndRate(t *testing.T) {
	f := newFleet(t, 1, 1000, "k1", "k2")
	k1 := f.as(t, "k1")
	var serials []string
	for i := range 50 {
		var s string
		err := k1.QueryRow(ctx, "SELECT serial FROM claim_pack(50)").Scan(&s)
		if err != nil {
			if code := sqlState(err); code != "SF007" || i != 2 {
				t.Fatalf("claim %d: %v (SQLSTATE %s), want SF007 at the third", i+1, err, code)
			}
			break
		}
		serials = append(serials, s)
	}
	if len(serials) != 2 {
		t.Fatalf("k1 claimed %d packs in a loop, want 2", len(serials))
	}
	// Through the client: a typed error, not "central unavailable".
	c := f.kiosks["k1"]
	if _, err := c.ClaimPack(ctx, 50); !errors.Is(err, engine.ErrClaimRefused) || errors.Is(err, engine.ErrCentralUnavailable) {
		t.Fatalf("claim past the cap: %v, want ErrClaimRefused", err)
	}
	if _, err := f.kiosks["k2"].ClaimPack(ctx, 50); err != nil {
		t.Fatalf("k2's claim while k1 is refused: %v", err)
	}
	p, err := c.FetchPack(ctx, serials[0])
	if err != nil {
		t.Fatal(err)
	}
	push(t, c, sell(t, p, 0, 749, 1, "ann"))
	if _, err := c.ClaimPack(ctx, 50); !errors.Is(err, engine.ErrClaimRefused) {
		t.Fatalf("claim with 749 of 1 000 sold: %v, want ErrClaimRefused", err)
	}
	push(t, c, sell(t, p, 749, 1, 750, "ann"))
	if _, err := c.ClaimPack(ctx, 50); err != nil {
		t.Fatalf("claim with 750 of 1 000 sold: %v", err)
	}
	// The rate: k1 has claimed 3 packs within the minute; the cap lifted, a
	// fourth is allowed, not a fifth.
	f.set(t, "claim_packs_ahead = 100, claims_per_minute = 4")
	if _, err := c.ClaimPack(ctx, 50); err != nil {
		t.Fatalf("fourth claim within the minute: %v", err)
	}
	_, err = k1.Exec(ctx, "SELECT serial FROM claim_pack(50)")
	if code := sqlState(err); code != "SF008" {
		t.Fatalf("claim past claims_per_minute: %v (SQLSTATE %s), want SF008", err, code)
	}
	if _, err := f.kiosks["k2"].ClaimPack(ctx, 50); err != nil {
		t.Fatalf("k2's claim while k1 is rate-limited: %v", err)
	}
	// The audit finds nothing with these limits; under the defaults again,
	// k1 holds more than they allow: an over-claiming finding.
	if rep := f.audit(t); !rep.OK {
		t.Fatalf("audit: %q", rep.Findings)
	}
	f.set(t, "claim_packs_ahead = 1, claims_per_minute = 30")
	if rep := f.audit(t); !hasFinding(rep, "kiosk k1", "over-claiming") {
		t.Fatalf("audit findings %q, want k1 over-claiming", rep.Findings)
	}
}

// A kiosk's role cannot act as another kiosk: it cannot take another
// kiosk's role, and whatever it calls is its own.
func TestNoClaimForAnotherKiosk(t *testing.T) {
	f := newFleet(t, 1, 1000, "k1", "k2")
	k1 := f.as(t, "k1")
	var role string
	if err := k1.QueryRow(ctx, "SELECT role FROM kiosks WHERE id = 'k2'").Scan(&role); err == nil {
		t.Fatal("k1 read the kiosks table")
	}
	for _, sql := range []string{"SET ROLE starfortune_k_k2", "SET SESSION AUTHORIZATION starfortune_k_k2"} {
		if _, err := k1.Exec(ctx, strings.ReplaceAll(sql, "starfortune", dbName(t, k1))); err == nil {
			t.Fatalf("%s as k1: allowed", sql)
		}
	}
	var serial string
	if err := k1.QueryRow(ctx, "SELECT serial FROM claim_pack(50)").Scan(&serial); err != nil {
		t.Fatal(err)
	}
	st, err := f.kiosks["k2"].KioskState(ctx)
	if err != nil || len(st.Packs) != 0 {
		t.Fatalf("k2 holds %+v after k1's claim (%v)", st.Packs, err)
	}
	st, err = f.kiosks["k1"].KioskState(ctx)
	if err != nil || len(st.Packs) != 1 || st.Packs[0].Serial != serial {
		t.Fatalf("k1's state %+v %v", st, err)
	}
}

func dbName(t *testing.T, conn *pgx.Conn) string {
	t.Helper()
	return conn.Config().Database
}

// Released units are never handed to anyone: two kiosks release their
// packs, the block closes with the remainders voided, the audit finds
// nothing and the closing report reconciles sold and voided units and
// their prizes with the prize table to the cent.
func TestReleasedUnitsAreVoidedAndReconcile(t *testing.T) {
	f := newFleet(t, 1, engine.BlockSize/2, "k1", "k2")
	p1, err := f.kiosks["k1"].ClaimPack(ctx, 50) // 425 000 units: not verified, to keep the test quick
	if err != nil {
		t.Fatal(err)
	}
	push(t, f.kiosks["k1"], sell(t, p1, 0, 10, 1, "ann"))
	if _, err := f.kiosks["k1"].ReleasePack(ctx, p1.Serial, p1.First+10); err != nil {
		t.Fatal(err)
	}
	p2, err := f.kiosks["k2"].ClaimPack(ctx, 50)
	if err != nil {
		t.Fatal(err)
	}
	if p2.First != p1.First+p1.Count() {
		t.Fatalf("k2 got positions from %d: k1 released [%d, %d)", p2.First, p1.First+10, p1.First+p1.Count())
	}
	push(t, f.kiosks["k2"], sell(t, p2, 0, 5, 1, "bob"))
	if _, err := f.kiosks["k2"].ReleasePack(ctx, p2.Serial, p2.First+5); err != nil {
		t.Fatal(err)
	}
	if _, err := f.kiosks["k1"].ClaimPack(ctx, 50); !errors.Is(err, engine.ErrNoPack) {
		t.Fatalf("claim after both releases: %v, want ErrNoPack", err)
	}
	rep, err := f.admin.ClosingReport(ctx, p1.Block)
	if err != nil {
		t.Fatal(err)
	}
	var table int64
	for i, n := range engine.TableTally() {
		table += int64(n) * int64(engine.PrizeTable[i].Prize(50))
	}
	if rep.Sold != 15 || rep.Voided != engine.BlockSize-15 || !rep.TableMatches || rep.PrizesPaidCents+rep.PrizesVoidedCents != table {
		t.Fatalf("closing report: sold %d voided %d, table matches %v, prizes %d + %d ≠ %d", rep.Sold, rep.Voided, rep.TableMatches,
			rep.PrizesPaidCents, rep.PrizesVoidedCents, table)
	}
	if a := f.audit(t); !a.OK {
		t.Fatalf("audit: %q", a.Findings)
	}
}

// Two kiosks racing for the last pack: one gets it, the other is told
// there is none left; never both.
func TestRaceForTheLastPack(t *testing.T) {
	f := newFleet(t, 1, engine.BlockSize-1000, "k0", "k1", "k2", "k3", "k4")
	if _, err := f.kiosks["k0"].ClaimPack(ctx, 50); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	got, none := 0, 0
	for _, id := range []string{"k1", "k2", "k3", "k4"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				_, err := f.kiosks[id].ClaimPack(ctx, 50)
				if errors.Is(err, engine.ErrClaimRefused) {
					continue // the last pack being claimed by another call: again
				}
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					got++
				case errors.Is(err, engine.ErrNoPack):
					none++
				default:
					t.Errorf("%s: %v", id, err)
				}
				return
			}
		}()
	}
	wg.Wait()
	if got != 1 || none != 3 {
		t.Fatalf("%d kiosks got the last pack, %d were told none is left; want 1 and 3", got, none)
	}
}

// pushRaw pushes JSON rows as kiosk conn, the way an attacker would.
func pushRaw(t *testing.T, conn *pgx.Conn, fn string, rows any) (applied, dup, conf, last int64, err error) {
	t.Helper()
	b, err := json.Marshal(rows)
	if err != nil {
		t.Fatal(err)
	}
	err = conn.QueryRow(ctx, "SELECT * FROM "+fn+"($1::jsonb)", string(b)).Scan(&applied, &dup, &conf, &last)
	return
}

// Forged sales are refused, recorded and listed by the audit, and never
// served to support staff: the unit, the prize, the stake, the ticket
// (its tail, its check digit), a sale dated in the future or before its
// pack's claim.
func TestForgedSalesAreRefused(t *testing.T) {
	f := newFleet(t, 1, 1000, "k1", "k2")
	p := f.claim(t, "k1")
	k1 := f.as(t, "k1")
	// The pack's largest prize, and a unit of another tier.
	best, other := uint32(0), uint32(0)
	for i := range p.Count() {
		u, _ := p.Unit(i)
		b, _ := p.Unit(best)
		if u.Prize(50) > b.Prize(50) {
			best = i
		}
	}
	for i := range p.Count() {
		u, _ := p.Unit(i)
		b, _ := p.Unit(best)
		if u.Prize(50) != b.Prize(50) {
			other = i
			break
		}
	}
	good := func(i uint32) map[string]any {
		u, _ := p.Unit(i)
		e := u.Encode()
		return map[string]any{"seq": 1, "ticket": p.Ticket(i).String(), "pack": p.Serial, "position": p.First + i,
			"sold_at": time.Now().UTC().Format(time.RFC3339Nano), "player": "eve", "stake_cents": 50,
			"prize_cents": int64(u.Prize(50)), "unit": hex.EncodeToString(e[:]), "revealed": true}
	}
	ticket := p.Ticket(other).String()
	wrongDigit := ticket[:len(ticket)-1] + string(rune('0'+(ticket[len(ticket)-1]-'0'+1)%10))
	bestUnit, _ := p.Unit(best)
	be := bestUnit.Encode()
	cases := []struct {
		name, reason string
		forge        func(map[string]any)
	}{
		{"another unit's bytes", "unit differs", func(r map[string]any) { r["unit"] = hex.EncodeToString(be[:]) }},
		{"the jackpot's prize", "prize differs", func(r map[string]any) { r["prize_cents"] = int64(bestUnit.Prize(50)) + 1 }},
		{"a made-up ticket tail", "ticket is not", func(r map[string]any) { r["ticket"] = ticket[:18] + "X" }},
		{"a wrong check digit", "ticket is not", func(r map[string]any) { r["ticket"] = wrongDigit }},
		{"another stake", "stake differs", func(r map[string]any) { r["stake_cents"] = 200 }},
		{"sold in 2031", "in the future", func(r map[string]any) { r["sold_at"] = "2031-01-01T00:00:00Z" }},
		{"sold before its pack", "before its pack", func(r map[string]any) { r["sold_at"] = "2026-01-01T00:00:00Z" }},
	}
	for i, c := range cases {
		r := good(other)
		r["seq"] = i + 1
		c.forge(r)
		applied, _, conf, _, err := pushRaw(t, k1, "push_sales", []any{r})
		if err != nil || applied != 0 || conf != 1 {
			t.Fatalf("%s: applied %d, conflicts %d, %v; want a conflict", c.name, applied, conf, err)
		}
		if _, err := f.kiosks["k2"].LookupTicket(ctx, p.Ticket(other)); !errors.Is(err, engine.ErrUnknownTicket) {
			t.Fatalf("%s: look-up from k2: %v, want ErrUnknownTicket", c.name, err)
		}
	}
	rep := f.audit(t)
	for i, c := range cases {
		if !hasFinding(rep, c.reason, fmt.Sprintf("kiosk k1, sale %d", i+1)) {
			t.Errorf("%s: no finding with %q in %q", c.name, c.reason, rep.Findings)
		}
	}
	// The genuine sale still goes through, stored with the central's unit.
	r := good(other)
	r["seq"] = len(cases) + 1
	if applied, _, _, _, err := pushRaw(t, k1, "push_sales", []any{r}); err != nil || applied != 1 {
		t.Fatalf("the genuine sale: applied %d, %v", applied, err)
	}
	s, err := f.kiosks["k2"].LookupTicket(ctx, p.Ticket(other))
	if u, _ := p.Unit(other); err != nil || s.Unit.Encode() != u.Encode() {
		t.Fatalf("look-up of the genuine sale: %+v %v", s, err)
	}
}

// Forged movements are refused and recorded, by the function and by the
// table's constraints: negative, two-sided, over the maximum, a direction
// its kind forbids, far in the past or in the future.
func TestForgedMovementsAreRefused(t *testing.T) {
	f := newFleet(t, 0, 0, "k1")
	k1 := f.as(t, "k1")
	now := time.Now().UTC().Format(time.RFC3339Nano)
	cases := []struct {
		name, reason string
		kind         string
		debit, cred  int64
		at           string
	}{
		{"negative debit", "negative amount", "credit", -999999999, 5, now},
		{"negative credit", "negative amount", "credit", 0, -5, now},
		{"two-sided credit", "credits nothing", "credit", 100, 100, now},
		{"over the maximum", "over the maximum", "grant", 0, int64(engine.MaxAmount) + 1, now},
		{"a payout that credits", "pays nothing out", "payout", 0, 500, now},
		{"a sale with no stake", "no stake", "sale", 0, 1000, now},
		{"an unknown kind", "unknown kind", "gift", 0, 100, now},
		{"dated 1999", "too far in the past", "credit", 0, 100, "1999-01-01T00:00:00Z"},
		{"dated 2031", "in the future", "credit", 0, 100, "2031-01-01T00:00:00Z"},
	}
	for i, c := range cases {
		row := map[string]any{"seq": i + 1, "id": fmt.Sprintf("m%d", i), "player": "eve", "kind": c.kind,
			"debit_cents": c.debit, "credit_cents": c.cred, "at": c.at}
		applied, _, conf, _, err := pushRaw(t, k1, "push_movements", []any{row})
		if err != nil || applied != 0 || conf != 1 {
			t.Fatalf("%s: applied %d, conflicts %d, %v; want a conflict", c.name, applied, conf, err)
		}
		// Idempotent: the same push again is a duplicate.
		if _, dup, _, _, err := pushRaw(t, k1, "push_movements", []any{row}); err != nil || dup != 1 {
			t.Fatalf("%s re-pushed: %d duplicates, %v", c.name, dup, err)
		}
	}
	rep := f.audit(t)
	for i, c := range cases {
		if !hasFinding(rep, fmt.Sprintf("kiosk k1: movement %d: ", i+1), c.reason) {
			t.Errorf("%s: no finding in %q", c.name, rep.Findings)
		}
	}
	daily, err := f.admin.DailyReport(ctx, "", "")
	if err != nil || len(daily.Days) != 0 {
		t.Fatalf("the daily report shows refused movements: %+v %v", daily, err)
	}
	// The table refuses them too, whoever writes.
	conn, err := pgx.Connect(ctx, f.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, sql := range []string{
		"INSERT INTO movements (kiosk, id, seq, player, kind, debit_cents, credit_cents, at) VALUES ('k1', 'x', 99, 'eve', 'credit', 0, -5, now())",
		"INSERT INTO movements (kiosk, id, seq, player, kind, debit_cents, credit_cents, at) VALUES ('k1', 'x', 99, 'eve', 'credit', 7, 5, now())",
		"INSERT INTO movements (kiosk, id, seq, player, kind, debit_cents, credit_cents, at) VALUES ('k1', 'x', 99, 'eve', 'payout', 0, 5, now())",
		"INSERT INTO movements (kiosk, id, seq, player, kind, debit_cents, credit_cents, at) VALUES ('k1', 'x', 99, 'eve', 'grant', 0, 100000001, now())",
	} {
		if _, err := conn.Exec(ctx, sql); sqlState(err) != "23514" {
			t.Errorf("%s: %v, want a check violation", sql, err)
		}
	}
}

// A kiosk holding a transaction open after a claim, a push (naming another
// kiosk's pack), a heartbeat and the advisory lock key look-ups used to
// take holds nothing another kiosk waits for: the other's push, claim,
// look-up, heartbeat and release each succeed (a wait on a lock k1 held
// would end in the functions' 2 s lock timeout, an error), their times
// logged; and the idle transaction is ended by the role's
// idle-in-transaction timeout.
func TestIdleTransactionStallsNoOne(t *testing.T) {
	f := newFleet(t, 1, 1000, "k1", "k2")
	p1 := f.claim(t, "k1")
	push(t, f.kiosks["k1"], sell(t, p1, 0, 800, 1, "ann"))
	p2 := f.claim(t, "k2")
	k1 := f.as(t, "k1")
	tx, err := k1.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// A push naming k2's pack: it used to share-lock it, holding off k2's
	// release.
	forged, _ := json.Marshal([]map[string]any{{"seq": 801, "ticket": p2.Ticket(50).String(), "pack": p2.Serial, "position": p2.First + 50,
		"sold_at": time.Now().UTC().Format(time.RFC3339Nano), "player": "eve", "stake_cents": 50, "prize_cents": 0, "unit": "000000", "revealed": true}})
	for _, sql := range []string{"SELECT serial FROM claim_pack(50)", "SELECT heartbeat(0, 0, NULL)", "SELECT * FROM push_sales('" + string(forged) + "')",
		"SELECT pg_advisory_lock(hashtext('starfortune lookups k2'))"} {
		if _, err := tx.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	// k1 is now idle in its transaction.
	c2 := f.kiosks["k2"]
	start := time.Now()
	push(t, c2, sell(t, p2, 0, 10, 1, "bob"))
	t.Logf("k2's push with k1 idle in a transaction: %s", time.Since(start))
	f.set(t, "claim_packs_ahead = 100")
	start = time.Now()
	if _, err := c2.ClaimPack(ctx, 50); err != nil {
		t.Fatalf("k2's claim with k1 idle in a transaction: %v", err)
	}
	t.Logf("k2's claim with k1 idle in a transaction: %s", time.Since(start))
	start = time.Now()
	if _, err := c2.LookupTicket(ctx, p1.Ticket(3)); err != nil {
		t.Fatalf("k2's look-up with k1 holding the old advisory lock key: %v", err)
	}
	if _, err := c2.Heartbeat(ctx, 0, engine.JournalHead{}); err != nil {
		t.Fatalf("k2's heartbeat: %v", err)
	}
	t.Logf("k2's look-up and heartbeat: %s", time.Since(start))
	start = time.Now()
	if _, err := c2.ReleasePack(ctx, p2.Serial, p2.First+10); err != nil {
		t.Fatalf("k2's release with k1 idle after pushing a sale of k2's pack: %v", err)
	}
	t.Logf("k2's release: %s", time.Since(start))
	// The role's idle_in_transaction_session_timeout (5 s) ends k1's.
	time.Sleep(6 * time.Second)
	if _, err := tx.Exec(ctx, "SELECT 1"); err == nil {
		t.Fatal("k1's transaction idle for 6 s is still open")
	}
}

// A kiosk opening connections in a loop is refused past its role's limit;
// another kiosk still connects.
func TestKioskConnectionLimit(t *testing.T) {
	f := newFleet(t, 0, 0, "k1", "k2")
	var conns []*pgx.Conn
	defer func() {
		for _, c := range conns {
			c.Close(ctx)
		}
	}()
	var refused error
	for range 100 {
		c, err := pgx.Connect(ctx, f.urls["k1"])
		if err != nil {
			refused = err
			break
		}
		conns = append(conns, c)
	}
	if refused == nil || sqlState(refused) != "53300" || len(conns) != 8 {
		t.Fatalf("k1 opened %d connections, then %v; want 8, then too many connections (53300)", len(conns), refused)
	}
	c, err := pgx.Connect(ctx, f.urls["k2"])
	if err != nil {
		t.Fatalf("k2 with k1 at its limit: %v", err)
	}
	c.Close(ctx)
}

// A push of more rows or bytes than allowed is refused at once, typed, and
// stores nothing.
func TestOversizePushIsRefused(t *testing.T) {
	f := newFleet(t, 1, 1000, "k1")
	p := f.claim(t, "k1")
	sales := make([]engine.FleetSale, 0, 100_000)
	for len(sales) < 100_000 {
		sales = append(sales, sell(t, p, 0, 1000, uint64(len(sales)+1), "eve")...)
	}
	start := time.Now()
	if _, err := f.kiosks["k1"].PushSales(ctx, sales); !errors.Is(err, engine.ErrPushRefused) {
		t.Fatalf("push of 100 000 sales: %v, want ErrPushRefused", err)
	}
	t.Logf("refusing the push of 100 000 sales took %s", time.Since(start)) // a benchmark's matter, not a test's
	ms := ledger(sales[:1001], 1)
	if _, err := f.kiosks["k1"].PushMovements(ctx, ms); !errors.Is(err, engine.ErrPushRefused) {
		t.Fatalf("push of 1 001 movements: %v, want ErrPushRefused", err)
	}
	k1 := f.as(t, "k1")
	big := strings.Repeat("x", 2<<20)
	if _, _, _, _, err := pushRaw(t, k1, "push_sales", []any{map[string]any{"seq": 1, "player": big}}); sqlState(err) != "SF009" {
		t.Fatalf("a 2 MB push: %v, want SF009", err)
	}
	// The same as the arrays the kiosks send (migrations/0017): a player of
	// 2 MB, columns of different lengths.
	arrays := func(seqs []int64, players []string) error {
		n := len(players)
		var a, d, c, l int64
		return k1.QueryRow(ctx, "SELECT * FROM push_sales($1::bigint[], $2::text[], $3::text[], $4::int[], $5::timestamptz[], $6::text[], $7::bigint[], $8::bigint[], $9::bytea[], $10::boolean[])",
			seqs, make([]string, n), make([]string, n), make([]int32, n), make([]time.Time, n), players, make([]int64, n), make([]int64, n),
			make([][]byte, n), make([]bool, n)).Scan(&a, &d, &c, &l)
	}
	if err := arrays([]int64{1}, []string{big}); sqlState(err) != "SF009" {
		t.Fatalf("a push of arrays of 2 MB: %v, want SF009", err)
	}
	if err := arrays([]int64{1}, []string{"eve", "eve"}); sqlState(err) != "SF009" {
		t.Fatalf("a push of arrays of 1 sequence number and 2 players: %v, want SF009", err)
	}
	if rep := f.audit(t); !rep.OK || rep.Sales != 0 {
		t.Fatalf("after refused pushes: %d sales, findings %q", rep.Sales, rep.Findings)
	}
}

// Refused rows are stored up to conflicts_per_kiosk, then only counted,
// and the audit says how many were not stored.
func TestConflictsAreCappedPerKiosk(t *testing.T) {
	f := newFleet(t, 1, 1000, "k1")
	f.set(t, "conflicts_per_kiosk = 10")
	p := f.claim(t, "k1")
	bad := sell(t, p, 0, 50, 1, "eve")
	for i := range bad {
		bad[i].Pack = "nope"
	}
	if r := push(t, f.kiosks["k1"], bad); r.Conflicts != 50 || r.Applied != 0 {
		t.Fatalf("push of 50 bad sales: %+v", r)
	}
	rep := f.audit(t)
	if !hasFinding(rep, "kiosk k1: 40 more refused") {
		t.Fatalf("audit findings %q, want 40 not stored", rep.Findings)
	}
}

// refusingCentral counts a kiosk's claims refused, pushes and heartbeats.
type refusingCentral struct {
	*central.Client
	mu                     sync.Mutex
	refused, pushes, beats int
}

func (c *refusingCentral) ClaimPack(ctx context.Context, stake engine.Cents) (engine.Pack, error) {
	p, err := c.Client.ClaimPack(ctx, stake)
	if errors.Is(err, engine.ErrClaimRefused) {
		c.mu.Lock()
		c.refused++
		c.mu.Unlock()
	}
	return p, err
}

func (c *refusingCentral) PushSales(ctx context.Context, s []engine.FleetSale) (engine.PushResult, error) {
	c.mu.Lock()
	c.pushes++
	c.mu.Unlock()
	return c.Client.PushSales(ctx, s)
}

func (c *refusingCentral) Heartbeat(ctx context.Context, backlog int, head engine.JournalHead) (time.Time, error) {
	c.mu.Lock()
	c.beats++
	c.mu.Unlock()
	return c.Client.Heartbeat(ctx, backlog, head)
}

// A kiosk whose claims the central refuses for now keeps selling what it
// holds, and its sync rounds go on: it pushes its sales, heartbeats, is
// never offline; once the limit allows, it claims its pack ahead.
func TestRefusedClaimKeepsTheKioskSyncing(t *testing.T) {
	f := newFleet(t, 1, 100, "k1")
	f.set(t, "claims_per_minute = 1") // the first pack, then no claim ahead for a minute
	c := &refusingCentral{Client: f.kiosks["k1"]}
	cfg := engine.DefaultConfig()
	cfg.Fleet = &engine.FleetConfig{Central: c, Kiosk: "k1", OfflineGrace: time.Hour, SyncEvery: 20 * time.Millisecond, HeartbeatEvery: 20 * time.Millisecond}
	svc, err := engine.NewService(ctx, memstore.New(), cfg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	for i := range 60 {
		if _, err := svc.Sell(ctx, engine.SellRequest{Player: engine.DemoPlayer, Stake: 50, Count: 1, Actor: "test"}); err != nil {
			t.Fatalf("sale %d: %v", i+1, err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := svc.Fleet.Status(ctx)
		if err != nil || st.Offline != nil {
			t.Fatalf("status %+v %v", st, err)
		}
		c.mu.Lock()
		refused, pushes, beats := c.refused, c.pushes, c.beats
		c.mu.Unlock()
		if st.Backlog == 0 && refused > 0 && pushes > 0 && beats > 1 {
			if len(st.Packs) != 1 {
				t.Fatalf("packs held %+v, want the first only (claims refused)", st.Packs)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("backlog %d, %d claims refused, %d pushes, %d heartbeats", st.Backlog, refused, pushes, beats)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if rep := f.audit(t); rep.Sales != 60 {
		t.Fatalf("the central has %d sales, want 60", rep.Sales)
	}
	f.set(t, "claims_per_minute = 30")
	deadline = time.Now().Add(10 * time.Second)
	for {
		st, err := svc.Fleet.Status(ctx)
		if err == nil && len(st.Packs) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pack claimed ahead once allowed: %+v %v", st.Packs, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
