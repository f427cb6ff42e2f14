package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"starfortune/engine"
	"starfortune/internal/testenv"
)

// killRounds is how many times TestRandomKills kills a child: at least 20
// in make test; `make soak` asks for more through STARFORTUNE_SOAK_KILLS.
func killRounds() int {
	if n, err := strconv.Atoi(os.Getenv("STARFORTUNE_SOAK_KILLS")); err == nil && n > 0 {
		return n
	}
	return 22
}

// Kill a real process with SIGKILL at random moments: while it draws its
// first blocks, between or during sales, reveal steps, credits and payouts.
// After each kill the data must audit clean, hold every operation the child
// printed, show an unprinted (never seen) sale only as the player's newest,
// and offer the player's interrupted unit for resumption; an operator's
// credit is in the ledger and the operator log, or in neither.
func TestRandomKills(t *testing.T) {
	t.Parallel()
	rounds := killRounds()
	root := t.TempDir()
	var dir string
	printed := map[string][]opLine{}      // per data directory
	known := map[string]map[string]bool{} // tickets found at earlier checks
	kills, ops, startupKills := 0, 0, 0
	for round := 0; round < rounds; round++ {
		if round%6 == 0 { // a fresh directory: the child starts by drawing blocks
			dir = filepath.Join(root, fmt.Sprint("d", round))
			known[dir] = map[string]bool{}
		}
		cmd := tortureCmd(t, dir, round, "")
		stdout, _ := cmd.StdoutPipe()
		var stderr safeBuffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan opLine)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				var l opLine
				if json.Unmarshal(sc.Bytes(), &l) == nil {
					lines <- l
				}
			}
			close(lines)
		}()
		// Kill either at a random time after start (one round in three:
		// often while blocks are drawn) or after a random number of
		// printed operations.
		wantOps, after := 1+rand.IntN(60), time.Duration(1<<62)
		if rand.IntN(3) == 0 {
			wantOps, after = 1<<30, time.Duration(10+rand.IntN(800))*time.Millisecond
		}
		timer := time.After(after)
		got, killed := 0, false
		for lines != nil {
			select {
			case l, ok := <-lines:
				if !ok {
					lines = nil
					break
				}
				printed[dir] = append(printed[dir], l)
				if got++; got == wantOps {
					cmd.Process.Signal(syscall.SIGKILL)
					killed = true
				}
			case <-timer:
				cmd.Process.Signal(syscall.SIGKILL)
				killed = true
			}
		}
		if !killed {
			t.Fatalf("round %d: the child stopped by itself: %s", round, stderr.String())
		}
		err := cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("round %d: child ended by itself (%v): %s", round, err, stderr.String())
		}
		kills++
		if got == 0 {
			startupKills++
		}
		ops += got
		checkAfterKill(t, dir, "", printed[dir], known[dir])
	}
	t.Logf("%d kills (%d before any operation), %d operations printed and found", kills, startupKills, ops)
}

// played fills a data directory through the command line and returns its
// history as JSON lines; the store is closed (Badger flushes its tables).
func played(t *testing.T, dir string) string {
	t.Helper()
	mustCLI(t, dir, "play", "--stake", "0.5", "--n", "300", "--batch", "50")
	bob := openCard(t, dir)
	mustCLI(t, dir, "wallet", "credit", "--card", bob, "--pin", testCardPIN, "--amount", "20")
	mustCLI(t, dir, "play", "--stake", "2", "--card", bob, "--pin", testCardPIN, "--n", "5")
	return history(t, dir)
}

// history is the demo wallet's and the first card's history.
func history(t *testing.T, dir string) string {
	t.Helper()
	return mustCLI(t, dir, "history", "--last", "1000", "--json") + mustCLI(t, dir, "history", "--player", string(engine.NewCard(1)), "--json")
}

func tables(t *testing.T, dir string) []string {
	t.Helper()
	sst, _ := filepath.Glob(filepath.Join(dir, "db", "*.sst"))
	if len(sst) == 0 {
		t.Fatal("no table file to damage")
	}
	return sst
}

// Each damage Badger does not protect against is refused with a clear
// error (never a panic, never an empty store), and `recover` rebuilds the
// exact history from the journal.
func TestDamagedStoreIsRefusedThenRecovered(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		damage func(t *testing.T, dir string)
		says   string
	}{
		"MANIFEST missing": {func(t *testing.T, dir string) {
			tables(t, dir)
			os.Remove(filepath.Join(dir, "db", "MANIFEST"))
		}, "MANIFEST missing"},
		"table truncated": {func(t *testing.T, dir string) {
			sst := tables(t, dir)[0]
			st, _ := os.Stat(sst)
			os.Truncate(sst, st.Size()/2)
		}, "is damaged"},
		"table bytes flipped": {func(t *testing.T, dir string) {
			sst := tables(t, dir)[0]
			b, _ := os.ReadFile(sst)
			for i := len(b) / 3; i < len(b)/3+64; i++ {
				b[i] ^= 0x5a
			}
			os.WriteFile(sst, b, 0o640)
		}, "damaged"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			want := played(t, dir)
			head := journalHead(t, mustCLI(t, dir, "audit", "--json")) // as staff note it
			c.damage(t, dir)
			_, errOut, code := cli(t, dir, "history")
			if code != 1 || !strings.Contains(errOut, c.says) || strings.Contains(errOut, "goroutine ") {
				t.Fatalf("damaged store: status %d, stderr %q", code, errOut)
			}
			if name == "MANIFEST missing" {
				tables(t, dir) // still there: Badger did not discard them
			}
			if _, errOut, code := cli(t, dir, "recover"); code != 1 || !strings.Contains(errOut, "--expect-head") {
				t.Fatalf("recover of a lost store without its anchor: %d %q", code, errOut)
			}
			out := mustCLI(t, dir, "recover", "--expect-head", head)
			if !strings.Contains(out, "audit OK") || strings.Contains(out, "WITHOUT ANCHOR") {
				t.Fatalf("recover: %s", out)
			}
			if got := history(t, dir); got != want {
				t.Fatalf("history after recover differs:\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// Badger opens a cut write-ahead log without a word and forgets the sales
// at its end; the journal reveals the gap and rebuilds them.
func TestTruncatedWriteAheadLogIsRevealedByTheJournal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustCLI(t, dir, "play", "--stake", "1", "--n", "3") // blocks drawn, flushed at close
	// Sales acknowledged, then the process killed: they are only in the
	// write-ahead log (and the journal), not yet in a table.
	cmd := child(t, dir, "play", "--stake", "1", "--n", "100000", "--json")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	sc := bufio.NewScanner(stdout)
	for i := 0; i < 40 && sc.Scan(); i++ {
		out.WriteString(sc.Text() + "\n")
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	printed := decodeSales(t, out.String())
	// Cut the write-ahead log of the memtable in the middle of its written part.
	mems, _ := filepath.Glob(filepath.Join(dir, "db", "*.mem"))
	cut := false
	for _, m := range mems {
		b, _ := os.ReadFile(m)
		end := len(b)
		for end > 0 && b[end-1] == 0 {
			end--
		}
		if end > 4096 {
			os.Truncate(m, int64(end*2/3))
			cut = true
		}
	}
	if !cut {
		t.Fatalf("no write-ahead log with data among %v", mems)
	}
	_, errOut, code := cli(t, dir, "play", "--stake", "1")
	if code != 1 || !strings.Contains(errOut, "behind its journal") {
		t.Fatalf("play on a store that lost sales: status %d, %q", code, errOut)
	}
	if out, _, code := cli(t, dir, "audit"); code != 1 || !strings.Contains(out, "FINDING") {
		t.Fatalf("audit does not report the lost sales: %d %s", code, out)
	}
	mustCLI(t, dir, "recover")
	hist := decodeSales(t, mustCLI(t, dir, "history", "--last", "1000", "--json"))
	found := map[string]bool{}
	for _, s := range hist {
		found[s.Ticket] = true
	}
	for _, s := range printed {
		if !found[s.Ticket] {
			t.Fatalf("sale %s lost after recover", s.Ticket)
		}
	}
	mustCLI(t, dir, "play", "--stake", "1")
}

func TestBackupRestoreRoundTrip(t *testing.T) {
	t.Parallel()
	dir, other := t.TempDir(), filepath.Join(t.TempDir(), "restored")
	want := played(t, dir)
	file := filepath.Join(t.TempDir(), "kiosk.sfbak")
	mustCLI(t, dir, "backup", file)
	if _, errOut, code := cli(t, dir, "backup", file); code != 1 || !strings.Contains(errOut, "already exists") {
		t.Fatalf("backup over an existing file: %d %q", code, errOut)
	}
	if out := mustCLI(t, other, "restore", file); !strings.Contains(out, "audit OK") {
		t.Fatalf("restore: %s", out)
	}
	if got := history(t, other); got != want {
		t.Fatal("restored history differs")
	}
	if _, errOut, code := cli(t, other, "restore", file); code != 1 || !strings.Contains(errOut, "empty data directory") {
		t.Fatalf("restore over a store: %d %q", code, errOut)
	}
	os.WriteFile(file, []byte("not a backup"), 0o640)
	if _, errOut, code := cli(t, filepath.Join(t.TempDir(), "x"), "restore", file); code != 1 || !strings.Contains(errOut, "not a Star Fortune backup") {
		t.Fatalf("restore of garbage: %d %q", code, errOut)
	}
}

// A full disk refuses the sale before anything moves; selling resumes when
// space returns. The data directory is on a real, small tmpfs.
func TestFullDiskRefusesSales(t *testing.T) {
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=200m"); err != nil {
		testenv.Missing(t, "cannot mount a tmpfs here (%v): needs root, as in CI", err)
	}
	t.Cleanup(func() { syscall.Unmount(mnt, syscall.MNT_DETACH) })
	dir := filepath.Join(mnt, "data")
	mustCLI(t, dir, "play", "--stake", "1", "--n", "3")
	before := history(t, dir)
	wallet := mustCLI(t, dir, "wallet", "show")
	// Leave less than the 64 MiB reserve free.
	var st syscall.Statfs_t
	syscall.Statfs(mnt, &st)
	filler := filepath.Join(mnt, "filler")
	if err := os.WriteFile(filler, make([]byte, int64(st.Bavail)*st.Bsize-32<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := cli(t, dir, "play", "--stake", "1")
	if code != 1 || !strings.Contains(errOut, "disk full") {
		t.Fatalf("sale on a full disk: status %d, %q", code, errOut)
	}
	if _, errOut, code := cli(t, dir, "wallet", "credit", "--amount", "5"); code != 1 || !strings.Contains(errOut, "disk full") {
		t.Fatalf("credit on a full disk: %d %q", code, errOut)
	}
	os.Remove(filler)
	if history(t, dir) != before || mustCLI(t, dir, "wallet", "show") != wallet {
		t.Fatal("a refused sale moved something")
	}
	mustCLI(t, dir, "play", "--stake", "1")
	mustCLI(t, dir, "audit")
}

// recover changes nothing when it would lose sales: a journal shorter than
// the store (an older copy), or a journal damaged in the middle.
func TestRecoverRefusesToLoseSales(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "play", "--stake", "1", "--n", "5")
	jpath := filepath.Join(dir, "journal", "journal.sfj")
	old, _ := os.ReadFile(jpath)
	mustCLI(t, dir, "play", "--stake", "1", "--n", "5")
	want := history(t, dir)
	current, _ := os.ReadFile(jpath)

	os.WriteFile(jpath, old, 0o640)
	if _, errOut, code := cli(t, dir, "recover"); code != 1 || !strings.Contains(errOut, "would lose the later sales") {
		t.Fatalf("recover from an older journal: %d %q", code, errOut)
	}
	damaged := bytes.Clone(current)
	damaged[len(damaged)/3] ^= 0x20
	os.WriteFile(jpath, damaged, 0o640)
	if _, errOut, code := cli(t, dir, "recover"); code != 1 || !strings.Contains(errOut, "journal is damaged") {
		t.Fatalf("recover from a damaged journal: %d %q", code, errOut)
	}
	os.WriteFile(jpath, current, 0o640)
	if got := history(t, dir); got != want {
		t.Fatal("a refused recover changed the history")
	}
	if dirs, _ := filepath.Glob(filepath.Join(dir, "db.*")); len(dirs) != 0 {
		t.Fatalf("a refused recover left %v", dirs)
	}
}

// The rollback of a lone kiosk (issue 36): a payout recorded, then the
// journal's last line cut and the store's MANIFEST deleted. recover does
// not rebuild the store from that journal on its own word: it asks for the
// head the last report printed, refuses the cut journal against it, and
// rebuilds only on an attendant's explicit override, which every audit and
// report then lists. The erased payout never comes back silently.
func TestRollbackNeedsItsAnchor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustCLI(t, dir, "wallet", "credit", "--amount", "22")
	mustCLI(t, dir, "wallet", "payout", "--amount", "22")
	report := mustCLI(t, dir, "report")
	_, head, ok := strings.Cut(report, "journal head ")
	head, _, _ = strings.Cut(head, " ")
	if !ok || head == "" {
		t.Fatalf("the report prints no journal head:\n%s", report)
	}
	if head != journalHead(t, mustCLI(t, dir, "audit", "--json")) {
		t.Fatalf("report and audit print different heads")
	}

	// The shell: the payout's journal line cut, the store's MANIFEST gone.
	cutJournalTail(t, dir)
	if err := os.Remove(filepath.Join(dir, "db", "MANIFEST")); err != nil {
		t.Fatal(err)
	}

	if _, errOut, code := cli(t, dir, "recover"); code != 1 || !strings.Contains(errOut, "--expect-head") {
		t.Fatalf("recover with no anchor: %d %q", code, errOut)
	}
	if _, errOut, code := cli(t, dir, "recover", "--expect-head", head); code != 1 || !strings.Contains(errOut, "entries are missing") {
		t.Fatalf("recover against the report's head: %d %q", code, errOut)
	}
	if _, errOut, code := cli(t, dir, "recover", "--expect-head", "1:"+strings.Repeat("00", 32)); code != 1 || !strings.Contains(errOut, "is not the one printed") {
		t.Fatalf("recover against a head the journal does not hold: %d %q", code, errOut)
	}
	out := mustCLI(t, dir, "recover", "--override", "the manager, after the disk was replaced")
	if !strings.Contains(out, "audit OK") || !strings.Contains(out, "RECOVERED WITHOUT ANCHOR") {
		t.Fatalf("recover --override:\n%s", out)
	}
	for _, cmd := range [][]string{{"audit"}, {"report"}} {
		if out := mustCLI(t, dir, cmd...); !strings.Contains(out, "RECOVERED WITHOUT ANCHOR") || !strings.Contains(out, "after the disk was replaced") {
			t.Fatalf("%s does not list the override:\n%s", cmd[0], out)
		}
	}
	var a struct {
		Unanchored []struct {
			Detail string `json:"detail"`
		} `json:"unanchored_recoveries"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "audit", "--json")), &a); err != nil || len(a.Unanchored) != 1 {
		t.Fatalf("audit --json lists %d overrides (%v)", len(a.Unanchored), err)
	}
}

// cutJournalTail cuts the last line of the journal of the data directory
// dir, as a shell on the kiosk would to erase its last change.
func cutJournalTail(t *testing.T, dir string) {
	t.Helper()
	path := filepath.Join(dir, "journal", "journal.sfj")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b[:bytes.LastIndexByte(b[:len(b)-1], '\n')+1], 0o600); err != nil {
		t.Fatal(err)
	}
}
