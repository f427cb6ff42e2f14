package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"starfortune/central"
	"starfortune/engine"
	"starfortune/internal/pgtest"
)

func centralCLI(t *testing.T, db string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(append([]string{"central", "--db", db}, args...), &out, &errOut)
	return out.String(), errOut.String(), code
}

// The central's command line as an operator uses it, with a kiosk selling
// through the central's client in between.
func TestCentralCommandLine(t *testing.T) {
	ctx := context.Background()
	db := pgtest.DB(t)
	mustCentral := func(args ...string) string {
		t.Helper()
		out, errOut, code := centralCLI(t, db, args...)
		if code != 0 {
			t.Fatalf("central %s: status %d: %s", strings.Join(args, " "), code, errOut)
		}
		return out
	}
	if _, errOut, code := centralCLI(t, db, "blocks"); code != 1 || !strings.Contains(errOut, "central init") {
		t.Fatalf("blocks before init: status %d, %q", code, errOut)
	}
	if out := mustCentral("init"); !strings.Contains(out, "applied 0001_tables.sql") {
		t.Fatalf("init: %q", out)
	}
	if out := mustCentral("init"); !strings.Contains(out, "up to date") {
		t.Fatalf("second init: %q", out)
	}
	var em central.Emission
	if err := json.Unmarshal([]byte(mustCentral("emission", "create", "--stake", "0,50", "--blocks", "1", "--pack-size", "100", "--json")), &em); err != nil || len(em.Roots) != 1 || em.PackSize != 100 {
		t.Fatalf("emission: %+v %v", em, err)
	}
	// A pack a kiosk could not hold, or more packs than a block numbers.
	for _, size := range []string{"10001", "850000", "8"} {
		if _, errOut, code := centralCLI(t, db, "emission", "create", "--stake", "1", "--blocks", "1", "--pack-size", size); code != 1 ||
			!strings.Contains(errOut, "pack size "+size+": want 9 to 10000") {
			t.Errorf("emission with packs of %s: %d %q", size, code, errOut)
		}
	}
	for _, bad := range [][]string{{"emission", "create", "--stake", "3", "--blocks", "1"}, {"emission", "create", "--stake", "1"},
		{"kiosk", "add"}, {"pack", "void", "X"}, {"frobnicate"}} {
		if _, _, code := centralCLI(t, db, bad...); code != 2 {
			t.Errorf("central %s: status %d, want 2", strings.Join(bad, " "), code)
		}
	}
	var k central.Kiosk
	if err := json.Unmarshal([]byte(mustCentral("kiosk", "add", "k1", "--json")), &k); err != nil || !strings.Contains(k.URL, "password=") {
		t.Fatalf("kiosk add: %+v %v", k, err)
	}
	if _, errOut, code := centralCLI(t, db, "kiosk", "add", "k1"); code != 1 || !strings.Contains(errOut, "already exists") {
		t.Fatalf("kiosk added twice: %d %q", code, errOut)
	}

	c, err := central.Open(ctx, k.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p, err := c.ClaimPack(ctx, 50)
	if err != nil || p.Verify() != nil {
		t.Fatalf("claim: %v", err)
	}
	u, _ := p.Unit(2)
	sale := engine.FleetSale{Seq: 1, Pack: p.Serial, Ticket: p.Ticket(2), Time: time.Now(), Player: "ann", Unit: u, Revealed: true}
	if _, err := c.PushSales(ctx, []engine.FleetSale{sale}); err != nil {
		t.Fatal(err)
	}
	var shown fleetSaleJSON
	if err := json.Unmarshal([]byte(mustCentral("show", p.Ticket(2).String(), "--json")), &shown); err != nil ||
		shown.Kiosk != "k1" || shown.PrizeCents != int64(u.Prize(50)) || len(shown.Drops) != 2 || shown.Index != 2 {
		t.Fatalf("show: %+v %v", shown, err)
	}
	if _, errOut, code := centralCLI(t, db, "show", p.Ticket(3).String()); code != 1 || !strings.Contains(errOut, "not sold") {
		t.Fatalf("show of an unsold ticket: %d %q", code, errOut)
	}
	var fleet fleetJSON
	if err := json.Unmarshal([]byte(mustCentral("kiosks", "--json")), &fleet); err != nil || len(fleet.Kiosks) != 1 || len(fleet.Stakes) != 1 {
		t.Fatalf("kiosks --json: %+v %v", fleet, err)
	}
	if k := fleet.Kiosks[0]; k.ID != "k1" || !k.Online || k.Sales != 1 || len(k.Held) != 1 || k.Held[0] != (heldStakeJSON{50, 1, 99}) {
		t.Fatalf("kiosk k1 after a sale: %+v", k)
	}
	if s := fleet.Stakes[0]; s != (stakeProgressJSON{StakeCents: 50, Blocks: 1, Size: 850000, HandedOut: 100, Sold: 1}) {
		t.Fatalf("stake progress: %+v", s)
	}
	if out := mustCentral("kiosks"); !regexp.MustCompile(`(?m)^k1 +online .* 0 +1 +0.50 EUR: 1 \(99\)$`).MatchString(out) ||
		!strings.Contains(out, "0.50 EUR  1       0       1 / 850000   0.00 %") {
		t.Fatalf("kiosks: %q", out)
	}
	// Silent for longer than engine.OnlineWithin: late; than
	// engine.LostAfter: lost.
	for silent, status := range map[string]string{"80 seconds": "late", "11 minutes": "lost"} {
		if conn, err := pgx.Connect(ctx, db); err != nil {
			t.Fatal(err)
		} else if _, err := conn.Exec(ctx, "UPDATE kiosks SET last_seen = now() - $1::interval", silent); err != nil {
			t.Fatal(err)
		} else {
			conn.Close(ctx)
		}
		if out := mustCentral("kiosks"); !regexp.MustCompile(`(?m)^k1 +` + status + ` `).MatchString(out) {
			t.Fatalf("kiosks after %s of silence: %q", silent, out)
		}
	}
	if out := mustCentral("pack", "void", p.Serial, "--reason", "kiosk lost"); !strings.Contains(out, "voided") {
		t.Fatalf("void: %q", out)
	}
	var b central.Block
	if err := json.Unmarshal([]byte(mustCentral("blocks", "--json")), &b); err != nil || b.Sold != 1 || b.Voided != 99 || b.Closed || b.Seed != "" {
		t.Fatalf("blocks: %+v %v", b, err)
	}
	if out := mustCentral("audit"); !strings.Contains(out, "audit OK") {
		t.Fatalf("audit: %q", out)
	}

	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "UPDATE sales SET prize_cents = prize_cents + 100"); err != nil {
		t.Fatal(err)
	}
	out, _, code := centralCLI(t, db, "audit", "--json")
	var rep central.AuditReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 || rep.OK || len(rep.Findings) == 0 ||
		!strings.Contains(rep.Findings[0], p.Ticket(2).String()) { // the drawn prize decides whether "no tier" is a second finding
		t.Fatalf("audit after tampering: status %d, %+v %v", code, rep, err)
	}
}

// A closed block of the fleet checks out from a shell: its sold units
// (`central units`) and its revealed seed and published root (`central
// blocks`) give `verify` the root back; the voided positions are drawn
// again from the seed.
func TestCentralClosedBlockVerifies(t *testing.T) {
	ctx := context.Background()
	db := pgtest.DB(t)
	for _, args := range [][]string{{"init"}, {"emission", "create", "--stake", "1", "--blocks", "1", "--pack-size", "10000"}} {
		if _, errOut, code := centralCLI(t, db, args...); code != 0 {
			t.Fatalf("central %v: %s", args, errOut)
		}
	}
	a, err := central.OpenAdmin(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	k, err := a.AddKiosk(ctx, "k1")
	if err != nil {
		t.Fatal(err)
	}
	c, err := central.Open(ctx, k.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p, err := c.ClaimPack(ctx, 100) // the block's first 10 000 units
	if err != nil {
		t.Fatal(err)
	}
	for i := 2; i <= 85; i++ { // the other packs, never claimed, voided: the block closes with this one's void below
		if err := a.VoidPack(ctx, fmt.Sprintf("%s-P%05d", p.Block, i), "not sold"); err != nil {
			t.Fatal(err)
		}
	}
	var sales []engine.FleetSale
	for i := range uint32(5) {
		u, _ := p.Unit(i * 1000)
		sales = append(sales, engine.FleetSale{Seq: uint64(i) + 1, Pack: p.Serial, Ticket: p.Ticket(i * 1000), Time: time.Now(), Player: "ann", Unit: u, Revealed: true})
	}
	if _, err := c.PushSales(ctx, sales); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := centralCLI(t, db, "units", p.Block.String()); code != 1 || !strings.Contains(errOut, "not closed") {
		t.Fatalf("units of an open block: %d %q", code, errOut)
	}
	// In play: no closing report; the daily report has the sales.
	for _, f := range []string{"", "--json", "--csv"} {
		args := []string{"report", "--closing", p.Block.String()}
		if f != "" {
			args = append(args, f)
		}
		if out, errOut, code := centralCLI(t, db, args...); code != 1 || out != "" || !strings.Contains(errOut, "still in play") {
			t.Fatalf("closing report of an open block (%s): %d %q %q", f, code, out, errOut)
		}
	}
	var paid int64
	for _, s := range sales {
		paid += int64(s.Unit.Prize(100))
	}
	var daily central.DailyReport
	if err := json.Unmarshal([]byte(mustRun(t, "central", "--db", db, "report", "--json")), &daily); err != nil || len(daily.Days) == 0 {
		t.Fatalf("daily report: %+v %v", daily, err)
	}
	var total central.Figures
	for _, d := range daily.Days {
		total.Units, total.StakeCents, total.PrizeCents = total.Units+d.Total.Units, total.StakeCents+d.Total.StakeCents, total.PrizeCents+d.Total.PrizeCents
	}
	if total.Units != 5 || total.StakeCents != 500 || total.PrizeCents != paid {
		t.Fatalf("daily report totals %+v, want 5 units, 500 cents staked, %d won", total, paid)
	}
	if out := mustRun(t, "central", "--db", db, "report", "--csv"); !strings.HasPrefix(out, "day,kiosk,units,stake_cents,prize_cents,credit_cents,grant_cents,payout_cents\n") ||
		!strings.Contains(out, ",TOTAL,") {
		t.Fatalf("daily report CSV: %q", out)
	}
	if _, errOut, code := centralCLI(t, db, "report", "--from", "4/12/2026"); code != 2 || !strings.Contains(errOut, "YYYY-MM-DD") {
		t.Fatalf("a bad day: %d %q", code, errOut)
	}
	if _, errOut, code := centralCLI(t, db, "pack", "void", p.Serial, "--reason", "kiosk lost"); code != 0 {
		t.Fatal(errOut)
	}
	blocksOut, _, _ := centralCLI(t, db, "blocks", "--json")
	var b central.Block
	if err := json.Unmarshal([]byte(blocksOut), &b); err != nil || !b.Closed || b.Seed == "" {
		t.Fatalf("block after the void: %+v %v", b, err)
	}
	var closing central.ClosingReport
	if err := json.Unmarshal([]byte(mustRun(t, "central", "--db", db, "report", "--closing", b.ID, "--json")), &closing); err != nil ||
		closing.Sold != 5 || closing.Voided != 849995 || closing.PrizesPaidCents != paid || closing.PrizesPaidCents+closing.PrizesVoidedCents != 595_000_00 ||
		!closing.TableMatches || closing.Seed != b.Seed || closing.Commitment != b.Commitment {
		t.Fatalf("closing report: %+v %v", closing, err)
	}
	if out := mustRun(t, "central", "--db", db, "report", "--closing"); !strings.Contains(out, "closing report of block "+b.ID) ||
		!strings.Contains(out, "they add up to the table") || !strings.Contains(out, "sold by: k1 5") {
		t.Fatalf("closing report: %q", out)
	}
	if out := mustRun(t, "central", "--db", db, "report", "--closing", "--csv"); strings.Count(out, "\n") != 2 || !strings.Contains(out, b.ID+",100,850000,") {
		t.Fatalf("closing report CSV: %q", out)
	}
	units, errOut, code := centralCLI(t, db, "units", b.ID)
	if code != 0 || strings.Count(units, "\n") != 5 {
		t.Fatalf("units: %d %q %q", code, units, errOut)
	}
	file := t.TempDir() + "/units.jsonl"
	if err := os.WriteFile(file, []byte(units), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, stderr bytes.Buffer
	if code := run([]string{"verify", "--seed", b.Seed, "--root", b.Commitment, file}, &out, &stderr); code != 0 ||
		!strings.Contains(out.String(), "5 units of the file and 849995 drawn again from the seed: matches") {
		t.Fatalf("verify: %d %q %q", code, out.String(), stderr.String())
	}
	if out := mustRun(t, "central", "--db", db, "audit"); !strings.Contains(out, "audit OK") {
		t.Fatalf("audit: %q", out)
	}
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	var out, stderr bytes.Buffer
	if code := run(args, &out, &stderr); code != 0 {
		t.Fatalf("%v: status %d: %s", args, code, stderr.String())
	}
	return out.String()
}
