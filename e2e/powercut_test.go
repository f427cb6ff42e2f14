package e2e

import (
	sf "starfortune/cli"

	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"starfortune/internal/powercut"
	"starfortune/journal"
)

// The power-cut test runs the program on internal/powercut's file system
// and cuts the power at random moments: everything not synced to the disk
// is lost at that instant, as on a kiosk whose plug is pulled, which a
// SIGKILL cannot show (the kernel still writes the page cache out). After
// each cut the backing directory is used again as the next start would use
// it: every operation the program acknowledged must be there, the audit
// clean; a store that cannot serve must say so, and `recover` must then
// bring everything back.

// cutRounds is how many cuts TestPowerCuts makes: 10 in make test, more
// through STARFORTUNE_POWERCUTS (`make powercut` asks for 100). make test
// runs it without -race: its children, built with the race detector, take
// minutes to give value-log GC something to rewrite.
func cutRounds() int {
	if n, err := strconv.Atoi(os.Getenv("STARFORTUNE_POWERCUTS")); err == nil && n > 0 {
		return n
	}
	return 10
}

// A cut scenario: what the child does when the power goes.
type cutScenario struct {
	name  string
	fresh bool // a new data directory: the child starts by drawing blocks
	run   func(c *cutTest, round int)
}

var cutScenarios = []cutScenario{
	{"blocks", true, (*cutTest).cutAtStart},
	{"sale", false, (*cutTest).cutDuringPlay},
	{"reveal", false, (*cutTest).cutDuringReveal},
	{"flush", false, (*cutTest).cutDuringFlush},
	{"sale", false, (*cutTest).cutDuringPlay},
	{"gc", false, (*cutTest).cutDuringGC},
	{"backup", false, (*cutTest).cutDuringBackup},
	{"restore", false, (*cutTest).cutDuringRestore},
	{"recover", false, (*cutTest).cutDuringRecover},
	{"migration", false, (*cutTest).cutDuringMigration},
}

// cutTest is the state of TestPowerCuts between rounds.
type cutTest struct {
	t          *testing.T
	root       string
	mnt        string
	backing    string // the current backing directory; the data directory is data/ in it
	printed    []opLine
	known      map[string]bool
	fs         *powercut.FS
	phases     map[string]int // cuts by what was under way
	acked      int            // operations acknowledged before a cut
	recovers   map[string]int // why a start needed recover, and how often
	lost       []string       // everything any cut undid, by kind of file
	gcRewrites int            // value-log files rewritten by GC in the children
}

func (c *cutTest) data() string { return filepath.Join(c.backing, "data") }

// mount mounts the backing directory; the child sees it at c.mnt.
func (c *cutTest) mount() {
	fs, err := powercut.Mount(c.backing, c.mnt)
	if err != nil {
		c.t.Fatal(err)
	}
	c.fs = fs
}

// cutChild mounts the file system, runs cmd on it, and cuts the power when
// cut says so for a line the child printed, when after has passed (if not
// zero), or when watch receives; a child that ends first is cut after it
// ended. It returns every line the child printed, also those it printed
// between the cut and its death (their operations were synced before the
// cut: after it nothing is), and what the cut undid.
func (c *cutTest) cutChild(cmd *exec.Cmd, after time.Duration, watch <-chan struct{}, cut func(line string, n int) bool) ([]string, cutInfo) {
	c.t.Helper()
	stdout, _ := cmd.StdoutPipe()
	var stderr safeBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var timer <-chan time.Time
	if after > 0 {
		timer = time.After(after)
	}
	var got []string
	for cutNow := false; !cutNow; {
		select {
		case l, ok := <-lines:
			if !ok {
				cmd.Wait()
				if ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus); ws.ExitStatus() != 0 {
					c.t.Fatalf("child %v failed before the cut: %s", cmd.Args, stderr.String())
				}
				lines, cutNow = nil, true
				break
			}
			got = append(got, l)
			cutNow = cut != nil && cut(l, len(got))
		case <-timer:
			cutNow = true
		case <-watch:
			cutNow = true
		}
	}
	atCut := len(got)
	st, err := c.fs.Cut()
	if cmd.ProcessState == nil {
		cmd.Process.Signal(syscall.SIGKILL)
		for l := range lines {
			got = append(got, l)
		}
		cmd.Wait()
	}
	c.fs = nil
	if err != nil {
		c.t.Fatalf("cut: %v", err)
	}
	for _, p := range st.Lost {
		c.lost = append(c.lost, fileKind(p))
	}
	c.t.Logf("cut after %d lines; undone: %v", len(got), st.Lost)
	return got, cutInfo{st, atCut}
}

// cutInfo is what a cut undid, and how many lines the child had printed
// at that instant.
type cutInfo struct {
	powercut.Stats
	lines int
}

// fileKind names what a path of the data directory is, for the figures.
func fileKind(p string) string {
	base := filepath.Base(p)
	switch ext := filepath.Ext(base); {
	case ext == ".sst", ext == ".mem", ext == ".vlog", ext == ".sfj", ext == ".sfbak":
		return ext
	case ext == ".partial":
		return "backup.partial"
	case strings.HasPrefix(base, "MANIFEST"), base == "KEYREGISTRY", base == "LOCK":
		return base
	case strings.Contains(p, "logs"):
		return "log"
	case strings.HasSuffix(p, "(deleted)"), strings.HasPrefix(p, "../"):
		return "deleted-file"
	}
	return base
}

// torture starts the workload on the mounted data directory, its Badger
// sized small (tuning) so that flushes, compactions and, with "vlog",
// value-log garbage collection happen within the seconds a round lasts.
func (c *cutTest) torture(round int, tuning string) *exec.Cmd {
	return tortureCmd(c.t, filepath.Join(c.mnt, "data"), 1000+round, tuning)
}

// cli starts the program's command line on the mounted data directory dir
// (relative to the mount).
func (c *cutTest) cli(dir string, args ...string) *exec.Cmd {
	return child(c.t, filepath.Join(c.mnt, dir), args...)
}

// played records a torture child's printed operations and says what was
// under way at the cut: the phase the figures count it in.
func (c *cutTest) played(lines []string, st cutInfo, start string) {
	phase, gc := start, false
	for i, l := range lines {
		if i == st.lines { // what was under way at the cut instant
			defer c.classify(phase, gc, st)
		}
		var o opLine
		if json.Unmarshal([]byte(l), &o) != nil {
			continue
		}
		switch o.Op {
		case "gc-start", "gc-end":
			gc = o.Op == "gc-start"
			continue
		case "gc-rewrote":
			c.gcRewrites++
			continue
		case "sold", "step":
			if o.Done {
				phase = "sale"
			} else {
				phase = "reveal" // the unit's next step comes next
			}
		default:
			phase = "sale" // credits and payouts count with sales
		}
		c.printed = append(c.printed, o)
		c.acked++
	}
	if st.lines >= len(lines) {
		c.classify(phase, gc, st)
	}
}

// classify counts the cut in the phase of what was under way.
func (c *cutTest) classify(phase string, gc bool, st cutInfo) {
	switch {
	case gc:
		phase = "GC"
	case phase == "block drawing": // its chunks are flushed to tables too
	case slices.ContainsFunc(st.Lost, func(p string) bool { return strings.HasSuffix(p, ".sst") }):
		phase = "flush/compaction"
	}
	c.phases[phase]++
}

// Block drawing: a fresh directory, cut a random moment after the start.
func (c *cutTest) cutAtStart(round int) {
	c.mount()
	lines, st := c.cutChild(c.torture(round, "small"), time.Duration(5+rand.IntN(1500))*time.Millisecond, nil, nil)
	c.played(lines, st, "block drawing")
	c.check()
}

// Sales, credits and payouts: cut a random moment after a random number of
// acknowledged operations.
func (c *cutTest) cutDuringPlay(round int) {
	c.mount()
	want, delay := 1+rand.IntN(60), time.Duration(rand.IntN(3000))*time.Microsecond
	lines, st := c.cutChild(c.torture(round, "small"), 0, nil, func(l string, n int) bool {
		if n >= want {
			time.Sleep(delay)
			return true
		}
		return false
	})
	c.played(lines, st, "sale")
	c.check()
}

// Reveal steps: cut just after a unit's step (or its sale) was
// acknowledged with more steps to come.
func (c *cutTest) cutDuringReveal(round int) {
	c.mount()
	skip, delay := rand.IntN(20), time.Duration(rand.IntN(2000))*time.Microsecond
	lines, st := c.cutChild(c.torture(round, "small"), 20*time.Second, nil, func(l string, n int) bool {
		var o opLine
		if json.Unmarshal([]byte(l), &o) == nil && (o.Op == "sold" || o.Op == "step") && !o.Done && n > skip {
			time.Sleep(delay)
			return true
		}
		return false
	})
	c.played(lines, st, "reveal")
	c.check()
}

// Memtable flushes and compactions: cut when Badger writes a table or its
// MANIFEST, after a random number of such writes.
func (c *cutTest) cutDuringFlush(round int) {
	c.mount()
	watch := c.fs.Watch(func(rel string) bool {
		return strings.HasSuffix(rel, ".sst") || strings.Contains(rel, "MANIFEST")
	})
	skip := rand.IntN(4)
	relay := make(chan struct{})
	go func() {
		defer close(relay)
		for range skip + 1 {
			if _, ok := <-watch; !ok {
				return
			}
		}
		time.Sleep(time.Duration(rand.IntN(5000)) * time.Microsecond)
	}()
	lines, st := c.cutChild(c.torture(round, "small"), 30*time.Second, relay, nil)
	c.played(lines, st, "sale")
	c.check()
}

// Value-log garbage collection: values kept in the value log, a GC round
// every 100 ms; once GC has rewritten a file, cut a random moment after it
// starts again (a round goes on while it finds files to rewrite).
func (c *cutTest) cutDuringGC(round int) {
	c.mount()
	delay := time.Duration(rand.IntN(1000)) * time.Microsecond
	rewrote := false
	lines, st := c.cutChild(c.torture(round, "vlog"), 20*time.Second, nil, func(l string, n int) bool {
		switch {
		case l == `{"op":"gc-rewrote"}`:
			rewrote = true
		case rewrote && (l == `{"op":"gc-start"}` || rand.IntN(2) == 0 && l == `{"op":"gc-rewrote"}`):
			time.Sleep(delay)
			return true
		}
		return false
	})
	c.played(lines, st, "sale")
	c.check()
}

// Backup: cut while the program writes a backup into the data directory's
// file system, or just after.
func (c *cutTest) cutDuringBackup(round int) {
	c.mount()
	name := fmt.Sprintf("backup-%d.sfbak", round)
	lines, _ := c.cutChild(c.cli("data", "backup", filepath.Join(c.mnt, name)), time.Duration(rand.IntN(400))*time.Millisecond, nil, nil)
	c.phases["backup/restore/recover"]++
	acked := slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "backup written") })
	c.check()
	file := filepath.Join(c.backing, name)
	if _, err := os.Stat(file); err != nil {
		if acked {
			c.t.Fatalf("round %d: backup acknowledged, then lost: %v", round, err)
		}
		return
	}
	if acked {
		c.acked++
	}
	// A backup that exists, acknowledged or not, must restore whole.
	into := filepath.Join(c.root, fmt.Sprint("check-", round))
	if _, errOut, code := cli(c.t, into, "restore", file); code != 0 {
		c.t.Fatalf("round %d: the backup left by the cut (acknowledged: %v) does not restore: %s", round, acked, errOut)
	}
	os.RemoveAll(into)
}

// Restore: cut while a backup is restored into a new data directory.
func (c *cutTest) cutDuringRestore(round int) {
	file := filepath.Join(c.root, fmt.Sprintf("r%d.sfbak", round))
	mustCLI(c.t, c.data(), "backup", file)
	want := playersHistory(c.t, c.data())
	c.mount()
	dir := fmt.Sprint("restored-", round)
	lines, _ := c.cutChild(c.cli(dir, "restore", file), time.Duration(rand.IntN(1500))*time.Millisecond, nil, nil)
	c.phases["backup/restore/recover"]++
	acked := slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, "audit OK") })
	restored := filepath.Join(c.backing, dir)
	_, serr := os.Stat(sf.DataDir(restored).Store())
	_, jerr := os.Stat(sf.DataDir(restored).Journal())
	if serr != nil && jerr != nil {
		// Cut before anything was moved in: nothing was restored.
		if acked {
			c.t.Fatalf("round %d: restore acknowledged, then nothing there", round)
		}
		mustCLI(c.t, restored, "restore", file)
	}
	out, errOut, code := cli(c.t, restored, "audit")
	switch {
	case code == 0:
		// Whatever opens clean must hold the whole backup.
		if got := playersHistory(c.t, restored); got != want {
			c.t.Fatalf("round %d: the restore cut (acknowledged: %v) opens clean but differs from the backup", round, acked)
		}
	case acked:
		c.t.Fatalf("round %d: restore acknowledged, then the store does not open: %s%s", round, out, errOut)
	default:
		// Cut between moving in the journal and the store: the start
		// says so, and recover rebuilds the store from the journal.
		c.needRecover(round, "", out+errOut)
		if out, errOut, code := cli(c.t, restored, "recover", "--override", powerCutOverride); code != 0 || !strings.Contains(out, "audit OK") {
			c.t.Fatalf("round %d: recover after a restore cut: %d %s%s", round, code, out, errOut)
		}
		if got := playersHistory(c.t, restored); got != want {
			c.t.Fatalf("round %d: recovered, the history differs from the backup", round)
		}
	}
	if acked {
		c.acked++
	}
	os.RemoveAll(restored)
	c.check()
}

// Recover: cut while the store is rebuilt from the journal.
func (c *cutTest) cutDuringRecover(round int) {
	c.mount()
	lines, _ := c.cutChild(c.cli("data", "recover"), time.Duration(rand.IntN(2000))*time.Millisecond, nil, nil)
	c.phases["backup/restore/recover"]++
	if slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, "audit OK") }) {
		c.acked++
	}
	c.check()
}

// Migration: the store is taken back to schema version 1 (the last journal
// entry kept whole, as the first release did), and the cut comes while the
// program opens it, migrating it.
func (c *cutTest) cutDuringMigration(round int) {
	downgrade(c.t, c.data())
	c.mount()
	c.cutChild(c.cli("data", "audit"), time.Duration(rand.IntN(300))*time.Millisecond, nil, nil)
	c.phases["migration"]++
	c.check()
}

// downgrade turns the store in dir into one of schema version 1. It knows
// two keys of storage's layout: 'v' the schema version, 'j' the journal's
// last entry (a whole entry in version 1).
func downgrade(t *testing.T, dir string) {
	t.Helper()
	keys := unlock(t, dir)
	j, err := journal.Open(sf.DataDir(dir).Journal(), journal.Keys{Current: journal.Key{Gen: keys.Current().Gen(), Secret: keys.Current().Journal()}})
	if err != nil {
		t.Fatal(err)
	}
	last, ok := j.Last()
	j.Close()
	if !ok {
		t.Fatal("downgrade: the journal is empty")
	}
	raw, err := last.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	db, err := badger.Open(badger.DefaultOptions(sf.DataDir(dir).Store()).WithLogger(nil).WithSyncWrites(true).
		WithMemTableSize(1 << 20).WithValueLogFileSize(1 << 20).WithValueThreshold(64 << 10).
		WithEncryptionKey(keys.Current().Badger()).WithIndexCacheSize(1 << 20).WithBlockCacheSize(1 << 20))
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(txn *badger.Txn) error {
		if err := txn.Set([]byte{'j'}, raw); err != nil {
			return err
		}
		return txn.Set([]byte{'v'}, []byte{0, 0, 0, 1})
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
}

// playersHistory is every torture player's history, as JSON lines.
func playersHistory(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	for _, p := range torturePlayers {
		b.WriteString(mustCLI(t, dir, "history", "--player", p, "--last", "1000000", "--json"))
	}
	return b.String()
}

// check starts the program on the data directory as the next start after
// the cut would: either it serves, audits clean and holds every
// acknowledged operation, or it says why it cannot, and recover brings
// everything back.
func (c *cutTest) check() {
	c.t.Helper()
	if _, err := os.Stat(c.data()); err != nil {
		if len(c.printed) > 0 {
			c.t.Fatalf("the data directory is gone after %d acknowledged operations", len(c.printed))
		}
		return
	}
	out, errOut, code := cli(c.t, c.data(), "audit")
	if code != 0 {
		c.needRecover(-1, "", out+errOut)
		if out, errOut, code := cli(c.t, c.data(), "recover", "--override", powerCutOverride); code != 0 || !strings.Contains(out, "audit OK") {
			c.t.Fatalf("recover after a cut: status %d\n%s%s", code, out, errOut)
		}
	}
	checkAfterKill(c.t, c.data(), "small", c.printed, c.known)
}

// powerCutOverride is the test's word for recover on a store the cut left
// unreadable: the test itself is the anchor, checking afterwards that every
// acknowledged operation is there (checkAfterKill).
const powerCutOverride = "power-cut test: every acknowledged operation is checked afterwards"

// needRecover notes a start that refused to serve; what it said must be
// clear (an error, not a panic).
func (c *cutTest) needRecover(round int, why, said string) {
	c.t.Helper()
	if strings.Contains(said, "goroutine ") || strings.TrimSpace(said) == "" {
		c.t.Fatalf("after a cut, the program fails without a clear reason:\n%s", said)
	}
	if why == "" {
		why = reason(said)
	}
	c.recovers[why]++
	c.t.Logf("needs recover (%s):\n%s", why, said)
}

// reason shortens what a refused start said to its gist, for the figures.
func reason(said string) string {
	for _, l := range strings.Split(said, "\n") {
		if i := strings.Index(l, "FINDING"); i >= 0 {
			return strings.TrimSpace(l[i:])
		}
	}
	l, _, _ := strings.Cut(strings.TrimSpace(said), "\n")
	return l
}

func TestPowerCuts(t *testing.T) {
	t.Parallel()
	powercut.Require(t)
	c := &cutTest{t: t, root: t.TempDir(), phases: map[string]int{}, recovers: map[string]int{}}
	c.mnt = filepath.Join(c.root, "mnt")
	os.Mkdir(c.mnt, 0o755)
	t.Cleanup(func() {
		if c.fs != nil {
			c.fs.Unmount()
		}
	})
	rounds := cutRounds()
	scenarios := cutScenarios
	if only := os.Getenv("STARFORTUNE_POWERCUT_ONLY"); only != "" { // to chase one finding
		scenarios = slices.DeleteFunc(slices.Clone(scenarios), func(s cutScenario) bool { return s.name != only && !s.fresh })
	}
	for round := 0; round < rounds; round++ {
		sc := scenarios[round%len(scenarios)]
		if sc.fresh || c.backing == "" {
			c.backing = filepath.Join(c.root, fmt.Sprint("d", round))
			os.Mkdir(c.backing, 0o755)
			c.printed, c.known = nil, map[string]bool{}
		}
		c.t.Logf("round %d: %s", round, sc.name)
		sc.run(c, round)
	}
	var phases, recovers, lost []string
	needed := 0
	for p, n := range c.phases {
		phases = append(phases, fmt.Sprintf("%s=%d", strings.ReplaceAll(p, " ", "_"), n))
	}
	for r, n := range c.recovers {
		recovers = append(recovers, fmt.Sprintf("%dx %s", n, r))
		needed += n
	}
	kinds := map[string]int{}
	for _, k := range c.lost {
		kinds[k]++
	}
	for k, n := range kinds {
		lost = append(lost, fmt.Sprintf("%s=%d", k, n))
	}
	sort.Strings(phases)
	sort.Strings(recovers)
	sort.Strings(lost)
	// The figures make powercut prints.
	fmt.Printf("POWERCUT cuts=%d acknowledged=%d found=%d lost=0 recover_needed=%d\n", rounds, c.acked, c.acked, needed)
	fmt.Printf("POWERCUT phases %s\n", strings.Join(phases, " "))
	fmt.Printf("POWERCUT undone at the cuts (files or entries) %s\n", strings.Join(lost, " "))
	fmt.Printf("POWERCUT value-log files rewritten by GC in the children: %d\n", c.gcRewrites)
	for _, r := range recovers {
		fmt.Printf("POWERCUT needed recover: %s\n", r)
	}
}
