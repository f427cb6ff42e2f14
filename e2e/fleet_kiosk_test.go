package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"starfortune/central"
	"starfortune/engine"
	"starfortune/engine/memstore"
	"starfortune/internal/pgtest"
)

// The kiosk's side of the fleet, run as a user would: the command line of a
// kiosk against a central on a private PostgreSQL cluster.

// fleetCentral creates a central with one 0,50 € block cut in packs of
// packSize, and returns its connection string.
func fleetCentral(t *testing.T, packSize int) string {
	t.Helper()
	return fleetCentralIn(t, pgtest.DB(t), packSize)
}

// fleetCentralIn makes the database db a central with one 0,50 € block in
// packs of packSize.
func fleetCentralIn(t *testing.T, db string, packSize int) string {
	t.Helper()
	for _, args := range [][]string{{"init"}, {"emission", "create", "--stake", "0.5", "--blocks", "1", "--pack-size", fmt.Sprint(packSize)}} {
		if _, errOut, code := centralCLI(t, db, args...); code != 0 {
			t.Fatalf("central %v: %d %s", args, code, errOut)
		}
	}
	return db
}

// fleetKiosk adds kiosk id to the central and returns its connection
// string: its own role's, or the pooled role's through the pooler of a
// central behind one (fleetCentralPooled), its call key in a file of its
// own that centralFlag gives it.
func fleetKiosk(t *testing.T, db, id string) string {
	t.Helper()
	out, errOut, code := centralCLI(t, db, "kiosk", "add", id, "--json")
	var k central.Kiosk
	if code != 0 || json.Unmarshal([]byte(out), &k) != nil {
		t.Fatalf("kiosk add %s: %d %s", id, code, errOut)
	}
	if pooled, ok := pooledCentrals.Load(db); ok {
		callKeyFiles.Store(pooled.(string)+" "+id, secretFile(k.CallKey))
		return pooled.(string)
	}
	return k.URL
}

// kioskCLI runs the command line of kiosk id connected to url.
func kioskCLI(t *testing.T, dir, url, id string, args ...string) (string, string, int) {
	t.Helper()
	return cli(t, dir, append(centralFlag(url, id), args...)...)
}

var centralFiles sync.Map // connection string → the file holding it

// centralFlag is how a kiosk is given its central and its id: the
// connection string, which holds the kiosk's password, in a file of mode
// 600 (--central-file), as a service manager's credential would be; the
// program refuses it on the command line, where ps shows it. Behind a
// pooler, its call key likewise (--call-key-file).
func centralFlag(url, id string) []string {
	path, ok := centralFiles.Load(url)
	if !ok {
		path, _ = centralFiles.LoadOrStore(url, secretFile(url))
	}
	flags := []string{"--central-file", path.(string), "--kiosk-id", id}
	if key, ok := callKeyFiles.Load(url + " " + id); ok {
		flags = append(flags, "--call-key-file", key.(string))
	}
	return flags
}

// secretFile writes s to a new file of mode 600 and returns its path.
func secretFile(s string) string {
	f, err := os.CreateTemp(buildDir, "secret-*") // mode 600
	if err == nil {
		_, err = f.WriteString(s + "\n")
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		panic(err) // the run's own temporary directory
	}
	return f.Name()
}

func mustKiosk(t *testing.T, dir, url, id string, args ...string) string {
	t.Helper()
	out, errOut, code := kioskCLI(t, dir, url, id, args...)
	if code != 0 {
		t.Fatalf("kiosk %s %s: status %d: %s", id, strings.Join(args, " "), code, errOut)
	}
	return out
}

func syncStatus(t *testing.T, dir, url, id string) syncJSON {
	t.Helper()
	var s syncJSON
	out, errOut, _ := kioskCLI(t, dir, url, id, "sync", "--status", "--json")
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("sync --status: %q %s: %v", out, errOut, err)
	}
	return s
}

func fleetKiosks(t *testing.T, db string) map[string]kioskViewJSON {
	t.Helper()
	out, errOut, code := centralCLI(t, db, "kiosks", "--json")
	if code != 0 {
		t.Fatalf("central kiosks: %d %s", code, errOut)
	}
	var v fleetJSON
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("central kiosks: %q: %v", out, err)
	}
	ks := map[string]kioskViewJSON{}
	for _, k := range v.Kiosks {
		ks[k.ID] = k
	}
	return ks
}

func centralAuditOK(t *testing.T, db string) {
	t.Helper()
	if out, errOut, code := centralCLI(t, db, "audit"); code != 0 {
		t.Fatalf("central audit: %d\n%s%s", code, out, errOut)
	}
}

// A kiosk sells from packs, syncs, keeps selling within its offline grace
// with the central unreachable, refuses sales beyond it (and at once in the
// strict mode), and syncs everything once the central answers again.
func TestFleetKioskOfflineThenSync(t *testing.T) {
	db := fleetCentral(t, 100)
	url := fleetKiosk(t, db, "k1")
	dir := t.TempDir()
	sales := decodeSales(t, mustKiosk(t, dir, url, "k1", "play", "--stake", "0,50", "--n", "150", "--batch", "40", "--json"))
	if len(sales) != 150 {
		t.Fatalf("sold %d units, want 150", len(sales))
	}
	for i, s := range sales { // two packs of the one block, in order
		if s.Block != "01-050-0001" || s.Index != uint32(i) {
			t.Fatalf("unit %d: %+v", i, s)
		}
	}
	if s := syncStatus(t, dir, url, "k1"); s.Backlog != 0 || !s.Online || s.Kiosk != "k1" {
		t.Fatalf("after play: %+v", s)
	}
	if k := fleetKiosks(t, db)["k1"]; k.Sales != 150 || !k.Online || len(k.Held) != 1 || k.Held[0].StakeCents != 50 || k.Held[0].Left < 50 {
		t.Fatalf("central after play: %+v", k)
	}
	mustKiosk(t, dir, url, "k1", "audit")

	// The central unreachable: a wrong address, a grace of an hour.
	down := "host=" + filepath.Join(t.TempDir(), "nowhere") + " port=5 dbname=x user=x connect_timeout=2"
	conf := filepath.Join(t.TempDir(), "starfortune.toml")
	if err := os.WriteFile(conf, []byte("[central]\nurl = \""+down+"\"\nkiosk = \"k1\"\noffline_grace = \"1h\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	offline := decodeSales(t, mustCLI(t, dir, "--config", conf, "play", "--stake", "0,50", "--n", "20", "--json"))
	if len(offline) != 20 || offline[0].Index != 150 {
		t.Fatalf("offline sales: %d, first %+v", len(offline), offline[0])
	}
	var st syncJSON
	out, _, code := cli(t, dir, "--config", conf, "sync", "--json")
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != 1 || st.Backlog != 20 || st.BacklogSales != 20 || st.Oldest == nil || st.Error == "" {
		t.Fatalf("sync while offline: status %d %+v %v", code, st, err)
	}
	// Beyond the grace (here a nanosecond), nothing is sold.
	if err := os.WriteFile(conf, []byte("[central]\nurl = \""+down+"\"\nkiosk = \"k1\"\noffline_grace = \"1ns\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := cli(t, dir, "--config", conf, "play", "--stake", "0,50")
	if code != 1 || !strings.Contains(errOut, "OFFLINE") || !strings.Contains(errOut, "offline grace") {
		t.Fatalf("play beyond the grace: status %d, %q", code, errOut)
	}
	// Back online: the backlog goes, the central has every sale once.
	if s := syncStatus(t, dir, url, "k1"); s.Backlog != 0 {
		t.Fatalf("back online: %+v", s)
	}
	if k := fleetKiosks(t, db)["k1"]; k.Sales != 170 {
		t.Fatalf("central after reconnection: %+v", k)
	}
	centralAuditOK(t, db)

	// Support at another kiosk finds k1's ticket through the central.
	other := t.TempDir()
	shown := mustKiosk(t, other, fleetKiosk(t, db, "k2"), "k2", "show", offline[3].Ticket)
	if !strings.Contains(shown, "vendu par le kiosque k1") {
		t.Fatalf("show at k2 of k1's ticket: %q", shown)
	}
}

// sync --release returns the unsold remainder of the kiosk's packs: the
// kiosk sells none of it any more, and, its outcomes having gone to that
// kiosk, the central voids it: no other kiosk ever gets it (#36).
func TestFleetKioskRelease(t *testing.T) {
	db, _ := fleetCentralPooled(t, 100, 4) // through PgBouncer, as a national fleet
	url1, url2 := fleetKiosk(t, db, "k1"), fleetKiosk(t, db, "k2")
	dir1, dir2 := t.TempDir(), t.TempDir()
	mustKiosk(t, dir1, url1, "k1", "play", "--stake", "0,50", "--n", "30")
	var rel syncJSON
	out := mustKiosk(t, dir1, url1, "k1", "sync", "--release", "--json")
	if err := json.Unmarshal([]byte(out), &rel); err != nil || len(rel.Released) == 0 || rel.Backlog != 0 {
		t.Fatalf("release: %q %v", out, err)
	}
	for _, p := range rel.Packs {
		if p.Left != 0 || p.Releasing {
			t.Fatalf("a pack still to sell or to return after the release: %+v", rel)
		}
	}
	sales := decodeSales(t, mustKiosk(t, dir2, url2, "k2", "play", "--stake", "0,50", "--n", "70", "--batch", "70", "--json"))
	// k1 held its first pack [0, 100) and, most likely, the one ahead
	// [100, 200): their remainders are voided, k2 gets the next pack.
	next := uint32(100 * len(rel.Released))
	for i, s := range sales {
		if s.Index != next+uint32(i) {
			t.Fatalf("k2's unit %d is position %d, want %d (k1 released %d packs)", i, s.Index, next+uint32(i), len(rel.Released))
		}
	}
	// k1 claims anew: never a position it released or k2 sold.
	more := decodeSales(t, mustKiosk(t, dir1, url1, "k1", "play", "--stake", "0,50", "--n", "5", "--json"))
	if more[0].Index < next+100 { // past k2's pack too
		t.Fatalf("k1 sold position %d after releasing it", more[0].Index)
	}
	centralAuditOK(t, db)
	mustKiosk(t, dir1, url1, "k1", "audit")
}

// A kiosk restored from a backup older than what the central knows is
// refused by its central (its journal went back: a rollback, as far as
// anyone can tell) until staff re-anchor it, saying why; it then asks the
// central first and never sells those positions again.
func TestFleetKioskRestoredFromOldBackup(t *testing.T) {
	db := fleetCentral(t, 100)
	url := fleetKiosk(t, db, "k1")
	dir := t.TempDir()
	mustKiosk(t, dir, url, "k1", "play", "--stake", "0,50", "--n", "20")
	backup := filepath.Join(t.TempDir(), "k1.tar.gz")
	mustCLI(t, dir, "backup", backup)
	after := decodeSales(t, mustKiosk(t, dir, url, "k1", "play", "--stake", "0,50", "--n", "30", "--json"))
	restored := t.TempDir()
	mustCLI(t, restored, "restore", backup)
	if _, errOut, code := kioskCLI(t, restored, url, "k1", "play", "--stake", "0,50", "--n", "10"); code != 1 || !strings.Contains(errOut, "journal head") {
		t.Fatalf("the restored kiosk before it is re-anchored: %d %q", code, errOut)
	}
	if out, _, code := centralCLI(t, db, "audit"); code != 1 || !strings.Contains(out, "journal rolled back") {
		t.Fatalf("central audit before the re-anchor: %d %s", code, out)
	}
	if out, errOut, code := centralCLI(t, db, "kiosk", "reanchor", "k1", "--reason", "disk replaced, restored from the backup"); code != 0 ||
		!strings.Contains(out, "1 alarms resolved") {
		t.Fatalf("reanchor: %d %s%s", code, out, errOut)
	}
	again := decodeSales(t, mustKiosk(t, restored, url, "k1", "play", "--stake", "0,50", "--n", "10", "--json"))
	sold := map[string]bool{}
	for _, s := range after {
		sold[s.Ticket] = true
	}
	for _, s := range again {
		if sold[s.Ticket] {
			t.Fatalf("the restored kiosk sold %s again", s.Ticket)
		}
	}
	if s := syncStatus(t, restored, url, "k1"); s.Backlog != 0 {
		t.Fatalf("restored kiosk's backlog: %+v", s)
	}
	if k := fleetKiosks(t, db)["k1"]; k.Sales != 60 {
		t.Fatalf("central: %d sales, want 60", k.Sales)
	}
	centralAuditOK(t, db)
	mustKiosk(t, restored, url, "k1", "audit")
}

// A kiosk killed with SIGKILL while it sells and pushes loses nothing and
// pushes nothing twice: after the kills, one sync brings the central to
// exactly the kiosk's history, and both audits are clean.
func TestFleetKioskKilledDuringSync(t *testing.T) {
	t.Parallel()
	db, _ := fleetCentralPooled(t, 500, 4) // through PgBouncer, as a national fleet
	url := fleetKiosk(t, db, "k1")
	dir := t.TempDir()
	mustKiosk(t, dir, url, "k1", "wallet", "credit", "--amount", "200000")
	printed := map[string]bool{}
	for round := range 4 {
		cmd := exec.Command(starfortune(t), append(append([]string{"--data", dir}, centralFlag(url, "k1")...),
			"play", "--stake", "0.5", "--n", "100000", "--batch", fmt.Sprint(1+rand.IntN(40)), "--json")...)
		stdout, _ := cmd.StdoutPipe()
		var stderr safeBuffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		timer := time.AfterFunc(time.Duration(800+rand.IntN(2500))*time.Millisecond, func() { cmd.Process.Signal(syscall.SIGKILL) })
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var s saleJSON
			if json.Unmarshal(sc.Bytes(), &s) == nil {
				printed[s.Ticket] = true
			}
		}
		timer.Stop()
		if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
			t.Fatalf("round %d: the child was not killed (%v): %s", round, err, stderr.String())
		}
	}
	if len(printed) == 0 {
		t.Fatal("the children sold nothing before they were killed")
	}
	if s := syncStatus(t, dir, url, "k1"); s.Backlog != 0 {
		t.Fatalf("after the kills: %+v", s)
	}
	local := decodeSales(t, mustKiosk(t, dir, url, "k1", "history", "--last", "1000000", "--json"))
	for tk := range printed {
		found := false
		for _, s := range local {
			found = found || s.Ticket == tk
		}
		if !found {
			t.Fatalf("printed sale %s lost", tk)
		}
	}
	if k := fleetKiosks(t, db)["k1"]; k.Sales != uint64(len(local)) {
		t.Fatalf("central has %d sales, the kiosk %d", k.Sales, len(local))
	}
	t.Logf("%d sales over 4 kills, %d printed", len(local), len(printed))
	centralAuditOK(t, db)
	mustKiosk(t, dir, url, "k1", "audit")
}

// tamperingCentral hands out packs with one unit's salt changed, as a
// kiosk would see a pack changed on the way or in the central's tables.
type tamperingCentral struct{ *central.Client }

func (c tamperingCentral) ClaimPack(ctx context.Context, stake engine.Cents) (engine.Pack, error) {
	p, err := c.Client.ClaimPack(ctx, stake)
	if err == nil {
		p.Salts[7][0] ^= 1
	}
	return p, err
}

// A pack whose proof does not lead to its block's root is refused before
// any unit of it is sold, and nothing of it is kept.
func TestFleetKioskRefusesTamperedPack(t *testing.T) {
	ctx := context.Background()
	db := fleetCentral(t, 100)
	c, err := central.Open(ctx, fleetKiosk(t, db, "k1"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cfg := engine.DefaultConfig()
	cfg.Fleet = &engine.FleetConfig{Central: tamperingCentral{c}, Kiosk: "k1", OfflineGrace: time.Hour}
	svc, err := engine.NewService(ctx, memstore.New(), cfg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	sales, err := svc.Sell(ctx, engine.SellRequest{Player: engine.DemoPlayer, Stake: 50, Count: 1, Actor: "test"})
	if !errors.Is(err, engine.ErrBadProof) || len(sales) != 0 {
		t.Fatalf("sale from a tampered pack: %v, %d sold", err, len(sales))
	}
	st, err := svc.Fleet.Status(ctx)
	if err != nil || len(st.Packs) != 0 || st.Backlog != 0 {
		t.Fatalf("after the refusal: %+v %v", st, err)
	}
}

// A fleet kiosk's store rebuilt from its journal alone (`recover`) holds
// its packs, its sales and its outbox again: it audits clean and sells on.
func TestFleetKioskRecoveredFromItsJournal(t *testing.T) {
	db := fleetCentral(t, 100)
	url := fleetKiosk(t, db, "k1")
	dir := t.TempDir()
	mustKiosk(t, dir, url, "k1", "play", "--stake", "0,50", "--n", "130", "--batch", "50")
	want := mustKiosk(t, dir, url, "k1", "history", "--last", "1000")
	head := journalHead(t, mustKiosk(t, dir, url, "k1", "audit", "--json"))
	if err := os.RemoveAll(filepath.Join(dir, "db")); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, dir, "recover", "--expect-head", head)
	if got := mustKiosk(t, dir, url, "k1", "history", "--last", "1000"); got != want {
		t.Fatalf("history after recover differs:\n%s\nwant\n%s", got, want)
	}
	mustKiosk(t, dir, url, "k1", "audit")
	if next := decodeSales(t, mustKiosk(t, dir, url, "k1", "play", "--stake", "0,50", "--json")); next[0].Index != 130 {
		t.Fatalf("after recover the kiosk sells position %d, want 130", next[0].Index)
	}
	if k := fleetKiosks(t, db)["k1"]; k.Sales != 131 {
		t.Fatalf("central: %d sales, want 131", k.Sales)
	}
	centralAuditOK(t, db)
}

// A fleet kiosk's history rolled back by a shell (issue 36) is caught by
// its central, which anchored its journal's head at every sync: a journal
// cut at its tail with the store gone is refused by recover, which asks the
// central; the data directory put back from an older copy, store and
// journal together, is refused at its next sync, stops selling, and the
// central's audit raises the alarm.
func TestFleetKioskRollbackIsCaughtByItsCentral(t *testing.T) {
	db := fleetCentral(t, 100)
	url := fleetKiosk(t, db, "k1")
	dir := t.TempDir()
	mustKiosk(t, dir, url, "k1", "play", "--stake", "0,50", "--n", "20")
	mustKiosk(t, dir, url, "k1", "sync")
	older := filepath.Join(t.TempDir(), "older")
	if err := os.CopyFS(older, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	mustKiosk(t, dir, url, "k1", "wallet", "credit", "--amount", "22")
	mustKiosk(t, dir, url, "k1", "wallet", "payout", "--amount", "22")
	mustKiosk(t, dir, url, "k1", "sync") // anchors the payout's entry

	// The payout's journal line cut, the store gone: recover asks the central.
	cutJournalTail(t, dir)
	if err := os.RemoveAll(filepath.Join(dir, "db")); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := kioskCLI(t, dir, url, "k1", "recover"); code != 1 || !strings.Contains(errOut, "its central anchored") {
		t.Fatalf("recover of a cut journal: %d %q", code, errOut)
	}

	// The whole directory put back from before the payout.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(older, dir); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := kioskCLI(t, dir, url, "k1", "sync"); code != 1 || !strings.Contains(errOut, "journal") {
		t.Fatalf("sync of a directory put back from an older copy: %d %q", code, errOut)
	}
	if _, errOut, code := kioskCLI(t, dir, url, "k1", "play", "--stake", "0,50"); code != 1 || !strings.Contains(errOut, "central refused this kiosk's journal head") {
		t.Fatalf("a sale on the older copy: %d %q", code, errOut)
	}
	if out, _, code := centralCLI(t, db, "audit"); code != 1 || !strings.Contains(out, "kiosk k1: journal rolled back") {
		t.Fatalf("central audit after the rollback: %d %s", code, out)
	}
}
