// Package e2e runs Star Fortune as its users do: the shipped binary, built
// once per test run with the shipped tags (no race detector, Fyne's OpenGL
// driver), started as real processes, killed with SIGKILL, cut from the
// power, run against a private PostgreSQL, and its window opened under
// Xvfb. The tests read what the program prints (JSON lines), and open a
// data directory in-process only to check what the command line does not
// show.
//
// The tests whose children run long (kills, power cuts, a whole block) run
// in parallel: a child uses about one core, and the machines that run the
// suite have two. The window's sound test runs alone, as its timings need.
//
// One helper program is built beside it: internal/torture, a workload
// that drives the engine the way the window does (sales revealed step by
// step, credits, payouts) and prints each operation once it is durable, so
// that the fault tests can kill it anywhere.
package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	sf "starfortune/cli"
	"starfortune/internal/fsync"
	"starfortune/internal/pgtest"
	"starfortune/keyring"
)

// shippedTags are the build tags of `make build`.
const shippedTags = "no_emoji"

var buildDir string // the binaries built for this run

// testPassphrase seals the tests' data directories; every child finds it
// in the file $STARFORTUNE_PASSPHRASE_FILE names, as a service manager
// would hand it over.
const testPassphrase = "correct horse battery staple"

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "starfortune-e2e-")
	if err == nil {
		pass := filepath.Join(dir, "passphrase")
		err = os.WriteFile(pass, []byte(testPassphrase+"\n"), 0o600)
		os.Setenv("STARFORTUNE_PASSPHRASE_FILE", pass)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// The keyrings the tests make themselves (setUp) cost little to open.
	keyring.PassphraseCost = keyring.Argon2Params{Time: 1, MemoryKiB: 64, Threads: 1}
	buildDir = dir
	code := pgtest.Main(m) // stops the PostgreSQL cluster the fleet tests started, if any
	os.RemoveAll(dir)
	os.Exit(code)
}

// build builds the main package at pkg (relative to the module) once per
// run, with the shipped tags.
func build(pkg, name string) func() (string, error) {
	return sync.OnceValues(func() (string, error) {
		_, file, _, _ := runtime.Caller(0)
		module := filepath.Dir(filepath.Dir(file))
		bin := filepath.Join(buildDir, name)
		cmd := exec.Command("go", "build", "-tags", shippedTags, "-o", bin, "./"+pkg)
		cmd.Dir = module
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
		return bin, nil
	})
}

var (
	buildGame    = build(".", "starfortune")
	buildTorture = build("e2e/internal/torture", "torture")
)

// starfortune is the shipped binary.
func starfortune(t testing.TB) string {
	t.Helper()
	bin, err := buildGame()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// child is the program on the data directory dir, not yet started.
func child(t testing.TB, dir string, args ...string) *exec.Cmd {
	setUp(t, dir, args...)
	return exec.Command(starfortune(t), append([]string{"--data", dir}, args...)...)
}

// setUp gives a new data directory its keyring under the tests'
// passphrase, as `starfortune key init` would, at a low Argon2 cost: the
// program would make one at its kiosk's cost (a tenth of a second of CPU
// at every start). A restore brings the backup's keyring.
func setUp(t testing.TB, dir string, args ...string) {
	t.Helper()
	if len(args) > 0 && args[0] == "restore" {
		return
	}
	d := sf.DataDir(dir)
	if _, err := os.Stat(d.Keyring()); !errors.Is(err, os.ErrNotExist) {
		return
	}
	if held, _ := os.ReadDir(dir); len(held) > 0 {
		return // a data directory the test made otherwise
	}
	if err := fsync.MkdirAll(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	if _, _, err := keyring.CreatePassphrase(d.Keyring(), []byte(testPassphrase)); err != nil {
		t.Fatal(err)
	}
}

// unlock is the data directory's keys, for the tests that open it
// in-process.
func unlock(t testing.TB, dir string) keyring.Keys {
	t.Helper()
	setUp(t, dir)
	keys, err := sf.DataDir(dir).Unlock([]byte(testPassphrase))
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// run runs the program on args and returns stdout, stderr and its status.
func run(t testing.TB, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := exec.Command(starfortune(t), args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.Exited():
		return out.String(), errOut.String(), exit.ExitCode()
	case err != nil:
		t.Fatalf("starfortune %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String(), errOut.String(), 0
}

// cli runs the program's command line on the data directory dir.
func cli(t testing.TB, dir string, args ...string) (string, string, int) {
	t.Helper()
	setUp(t, dir, args...)
	return run(t, append([]string{"--data", dir}, args...)...)
}

func mustCLI(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, errOut, code := cli(t, dir, args...)
	if code != 0 {
		t.Fatalf("starfortune %s: status %d: %s", strings.Join(args, " "), code, errOut)
	}
	return out
}

// centralCLI runs `starfortune central --db db args…`.
func centralCLI(t testing.TB, db string, args ...string) (string, string, int) {
	t.Helper()
	return run(t, append([]string{"central", "--db", db}, args...)...)
}

// saleJSON is a unit as `play --json`, `history --json` and `show --json`
// print it: what these tests read of it.
type saleJSON struct {
	Ticket        string `json:"ticket"`
	Player        string `json:"player"`
	StakeCents    int64  `json:"stake_cents"`
	PrizeCents    int64  `json:"prize_cents"`
	BalanceBefore int64  `json:"balance_before_cents"`
	BalanceAfter  int64  `json:"balance_after_cents"`
	Block         string `json:"block"`
	Index         uint32 `json:"index"`
	Time          string `json:"time"`
	Revealed      bool   `json:"revealed"`
	// Drops as printed, kept so that a sale written back out still
	// makes its Merkle leaf (the fleet soak recomputes the root from them).
	Drops json.RawMessage `json:"drops"`
}

func decodeSales(t testing.TB, out string) []saleJSON {
	t.Helper()
	var sales []saleJSON
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var s saleJSON
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("bad JSON line %q: %v", line, err)
		}
		sales = append(sales, s)
	}
	return sales
}

// syncJSON is `sync --json`: what these tests read of it.
type syncJSON struct {
	Kiosk        string     `json:"kiosk"`
	Online       bool       `json:"online"`
	Backlog      int        `json:"backlog"`
	BacklogSales int        `json:"backlog_sales"`
	Oldest       *time.Time `json:"oldest"`
	Packs        []struct {
		Serial    string `json:"serial"`
		Left      uint32 `json:"left"`
		Releasing bool   `json:"releasing"`
	} `json:"packs"`
	Released []string `json:"released"`
	Error    string   `json:"error"`
}

// fleetJSON is `central kiosks --json`: what these tests read of it.
type fleetJSON struct {
	Kiosks []kioskViewJSON `json:"kiosks"`
}

// kioskViewJSON is a kiosk of `central kiosks --json`.
type kioskViewJSON struct {
	ID     string `json:"id"`
	Online bool   `json:"online"`
	Sales  uint64 `json:"sales"`
	Held   []struct {
		StakeCents int64  `json:"stake_cents"`
		Packs      int    `json:"packs"`
		Left       uint64 `json:"left"`
	} `json:"held"`
}

// safeBuffer is a bytes.Buffer written by a child's stderr copier and read
// by the test.
type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// journalHead is the journal head an `audit --json` printed: what staff
// note, and give recover when the store is lost.
func journalHead(t testing.TB, auditJSON string) string {
	t.Helper()
	var a struct {
		Head string `json:"journal_head"`
	}
	if err := json.Unmarshal([]byte(auditJSON), &a); err != nil || a.Head == "" {
		t.Fatalf("audit --json: %q %v", auditJSON, err)
	}
	return a.Head
}

// testCardPIN is the PIN of the cards openCard opens.
const testCardPIN = "2580"

// cardArgs open an account by the command line, its limits far above any
// test's play; the PIN comes on standard input.
func cardArgs(doc string) []string {
	return []string{"player", "open", "--holder", "Camille Martin", "--born", "1990-05-17", "--id-type", "CNI", "--id-number", doc,
		"--deposit-week", "100000", "--stake-week", "100000", "--pin-stdin", "--json"}
}

// cardOf reads the card number player open --json printed.
func cardOf(t testing.TB, out string) string {
	t.Helper()
	var a struct{ Card string }
	if err := json.Unmarshal([]byte(out), &a); err != nil || a.Card == "" {
		t.Fatalf("player open: %q %v", out, err)
	}
	return a.Card
}

// openCard opens an account in dir with the shipped binary and returns its
// card number.
func openCard(t testing.TB, dir string) string {
	t.Helper()
	setUp(t, dir)
	cmd := exec.Command(starfortune(t), append([]string{"--data", dir}, cardArgs(fmt.Sprintf("E%d", time.Now().UnixNano()))...)...)
	cmd.Stdin = strings.NewReader(testCardPIN + "\n")
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("player open: %v: %s", err, errOut.String())
	}
	return cardOf(t, string(out))
}
