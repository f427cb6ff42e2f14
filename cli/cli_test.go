package cli

import (
	"sync"

	"github.com/pelletier/go-toml/v2"

	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"starfortune/engine"
	"starfortune/internal/pgtest"
	"starfortune/keyring"

	"github.com/rs/zerolog"
)

func TestMain(m *testing.M) {
	// Every data directory of these tests is sealed under testPassphrase,
	// at an Argon2 cost that keeps them quick.
	keyring.PassphraseCost = keyring.Argon2Params{Time: 1, MemoryKiB: 64, Threads: 1}
	f, err := os.CreateTemp("", "starfortune-cli-passphrase-")
	if err == nil {
		_, err = f.WriteString(testPassphrase + "\n")
		f.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	passphraseFile = f.Name()
	code := pgtest.Main(m)
	os.Remove(passphraseFile) // stops the PostgreSQL cluster the fleet tests started, if any
	if drawn != "" {
		os.RemoveAll(drawn)
	}
	os.Exit(code)
}

// drawn is a data directory whose blocks are drawn, unsold: newData copies
// it. Under the race detector a block takes seconds of CPU to draw, and a
// data directory draws six (an open block and the next for each stake).
var drawn string

var drawOnce = sync.OnceValue(func() error {
	dir, err := os.MkdirTemp("", "starfortune-cli-drawn-")
	if err != nil {
		return err
	}
	drawn = dir
	var errOut bytes.Buffer
	if code := run([]string{"--data", dir, "blocks"}, io.Discard, &errOut); code != 0 {
		return fmt.Errorf("drawing the blocks: status %d: %s", code, errOut.String())
	}
	return nil
})

// newData is a fresh data directory whose blocks are drawn, unsold, as a
// terminal's after its first start.
func newData(t testing.TB) string {
	t.Helper()
	if err := drawOnce(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(drawn)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// stdin is the command line's standard input in these tests (set-pin).
var stdin io.Reader = strings.NewReader("")

// cli runs the command line in-process and returns stdout, stderr and
// status; its log goes to the data directory as the program's does.
func cli(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(append([]string{"--data", dir}, args...), &out, &errOut)
	return out.String(), errOut.String(), code
}

// testPassphrase opens the tests' data directories, given in the file
// passphraseFile to every command run.
const testPassphrase = "correct horse battery staple"

var passphraseFile string

// run runs the command line args in-process, with the tests' passphrase.
func run(args []string, stdout, stderr io.Writer) int {
	return Main(append([]string{"--passphrase-file", passphraseFile}, args...), Program{Stdin: stdin, Stdout: stdout, Stderr: stderr, OpenLog: testLog})
}

// runCommand runs the command named name on args as Main would, without
// opening anything, and returns its error.
func runCommand(name string, args []string, out io.Writer) error {
	cmd := find(name)
	c := &call{ctx: context.Background(), stdin: stdin, out: out, stderr: io.Discard, shared: &shared{set: map[string]bool{}}}
	run, err := parseCommand(cmd, args, c)
	if err != nil {
		return err
	}
	return run(c)
}

// testLog writes the log of a data directory as JSON lines to one file.
func testLog(dir string) (zerolog.Logger, func(), error) {
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o750); err != nil {
		return zerolog.Nop(), nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, "logs", "starfortune.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o640)
	if err != nil {
		return zerolog.Nop(), nil, err
	}
	return zerolog.New(f).With().Timestamp().Logger(), func() { f.Close() }, nil
}

func mustCLI(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, errOut, code := cli(t, dir, args...)
	if code != 0 {
		t.Fatalf("starfortune %s: status %d: %s", strings.Join(args, " "), code, errOut)
	}
	return out
}

func decodeSales(t *testing.T, out string) []saleJSON {
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

func TestCommandLine(t *testing.T) {
	dir := newData(t)
	card := openCard(t, dir)
	sales := decodeSales(t, mustCLI(t, dir, "play", "--stake", "0,50", "--n", "7", "--batch", "3", "--json"))
	if len(sales) != 7 {
		t.Fatalf("played %d units, want 7", len(sales))
	}
	bal := int64(10_000)
	for i, s := range sales {
		if s.Player != "demo" || s.StakeCents != 50 || s.Index != uint32(i) || len(s.Drops) != 2 || !s.Revealed {
			t.Fatalf("unit %d: %+v", i, s)
		}
		if s.BalanceBefore != bal || s.BalanceAfter != bal-50+s.PrizeCents || s.Drops[0].ValueCents+s.Drops[1].ValueCents != s.PrizeCents {
			t.Fatalf("unit %d: money does not add up: %+v", i, s)
		}
		if _, err := time.Parse(time.RFC3339, s.Time); err != nil {
			t.Fatalf("time %q: %v", s.Time, err)
		}
		bal = s.BalanceAfter
	}
	hist := decodeSales(t, mustCLI(t, dir, "history", "--last", "3", "--json"))
	if len(hist) != 3 || hist[0].Ticket != sales[6].Ticket || hist[2].Ticket != sales[4].Ticket {
		t.Fatalf("history newest first: %+v", hist)
	}
	csv := strings.Split(strings.TrimSpace(mustCLI(t, dir, "history", "--last", "3", "--csv")), "\n")
	if len(csv) != 4 || !strings.HasPrefix(csv[0], "time,ticket,player,stake_eur,prize_eur") || !strings.Contains(csv[1], sales[6].Ticket+",demo,0.50,") {
		t.Fatalf("history --csv:\n%s", strings.Join(csv, "\n"))
	}
	shown := decodeSales(t, mustCLI(t, dir, "show", sales[2].Ticket, "--json"))
	if len(shown) != 1 || shown[0].Ticket != sales[2].Ticket || shown[0].PrizeCents != sales[2].PrizeCents {
		t.Fatalf("show: %+v", shown)
	}
	if out := mustCLI(t, dir, "show", sales[2].Ticket); !strings.Contains(out, "Mise            0,50 €") {
		t.Fatalf("show in French:\n%s", out)
	}
	var w struct {
		Player       string `json:"player"`
		BalanceCents int64  `json:"balance_cents"`
	}
	json.Unmarshal([]byte(mustCLI(t, dir, "wallet", "credit", "--card", card, "--pin", testCardPIN, "--amount", "12,50", "--json")), &w)
	if w.Player != card || w.BalanceCents != 1250 {
		t.Fatalf("credit: %+v", w)
	}
	json.Unmarshal([]byte(mustCLI(t, dir, "wallet", "payout", "--player", card, "--amount", "2.5", "--json")), &w)
	if w.BalanceCents != 1000 {
		t.Fatalf("payout: %+v", w)
	}
	if out := mustCLI(t, dir, "wallet", "show"); !strings.Contains(out, "demo : disponibilités") {
		t.Fatalf("wallet show: %q", out)
	}
	var blocks []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(mustCLI(t, dir, "blocks", "--json")), "\n") {
		var b map[string]any
		json.Unmarshal([]byte(line), &b)
		blocks = append(blocks, b)
	}
	if len(blocks) < 3 || blocks[0]["id"] != "01-050-0001" || blocks[0]["served"] != 7.0 || blocks[0]["seed"] != "" || len(blocks[0]["commitment"].(string)) != 64 {
		t.Fatalf("blocks: %v", blocks)
	}
	var audit struct {
		OK       bool     `json:"ok"`
		Findings []string `json:"findings"`
	}
	json.Unmarshal([]byte(mustCLI(t, dir, "audit", "--json")), &audit)
	if !audit.OK || len(audit.Findings) != 0 {
		t.Fatalf("audit: %+v", audit)
	}
}

func TestCommandLineErrors(t *testing.T) {
	dir := newData(t)
	mustCLI(t, dir, "play", "--stake", "1")
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"play", "--stake", "3"}, 2, "0.50, 1 or 2"},
		{[]string{"play"}, 2, "bad stake"},
		{[]string{"play", "--stake", "1", "--player", "nobody"}, 1, "no account"},
		{[]string{"show", "01-050-0001-000000-0"}, 1, "bad ticket"},
		{[]string{"show", "01-100-0001-000099-" + checkDigit(t, dir, "01-100-0001-000099")}, 1, "unknown ticket"},
		{[]string{"show"}, 2, "give TICKET"},
		{[]string{"wallet", "payout", "--player", "demo", "--amount", "1000"}, 1, "insufficient funds"},
		{[]string{"wallet", "credit", "--amount", "-3"}, 2, "bad amount"},
		{[]string{"wallet", "credit", "--amount", "1,234"}, 2, "two decimals"},
		{[]string{"wallet", "steal"}, 2, "show, credit or payout"},
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"history", "--last", "x"}, 2, "invalid value"},
	} {
		out, errOut, code := cli(t, dir, c.args...)
		if code != c.code || !strings.Contains(errOut, c.says) {
			t.Errorf("%v: status %d, stderr %q, stdout %q; want %d and %q", c.args, code, errOut, out, c.code, c.says)
		}
	}
	// Refused operations moved nothing.
	var audit struct{ OK bool }
	json.Unmarshal([]byte(mustCLI(t, dir, "audit", "--json")), &audit)
	if !audit.OK {
		t.Fatal("audit after refused operations")
	}
}

// checkDigit finds the check digit of a ticket body by asking the parser.
func checkDigit(t *testing.T, dir, body string) string {
	for d := '0'; d <= '9'; d++ {
		if _, errOut, _ := cli(t, dir, "show", body+"-"+string(d)); !strings.Contains(errOut, "check digit") {
			return string(d)
		}
	}
	t.Fatal("no check digit")
	return ""
}

// Any command line gets a clear answer and an exit status, never a panic.
func FuzzCommandLine(f *testing.F) {
	for _, s := range []string{
		"play --stake 1", "play --stake 0,50 --n 3 --batch 2 --json", "play --stake -1", "play --stake 1 --n 0",
		"history --last 5 --json", "history --last -1", "show 01-050-0001-000000-8", "show 0", "show",
		"wallet credit --amount 1e9", "wallet payout --amount 0.001", "wallet show --player ''",
		"blocks --json", "audit --json", "--data", "play --stake", "wallet --player " + strings.Repeat("x", 300) + " show",
	} {
		f.Add(s)
	}
	dir := newData(f)
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		if len(args) == 0 {
			return
		}
		switch args[0] {
		case "backup", "restore", "recover", "-kiosk", "--kiosk", "-fullscreen", "--fullscreen":
			return // they write where they are told, or open the window
		}
		for _, a := range args {
			if n, err := strconv.Atoi(strings.TrimLeft(a, "-=n")); err == nil && n > 50 {
				return // keep each run short
			}
		}
		var out, errOut bytes.Buffer
		code := run(append([]string{"--data", dir}, args...), &out, &errOut)
		if code < 0 || code > 2 || code != 0 && errOut.Len() == 0 {
			t.Fatalf("%q: status %d with stderr %q", line, code, errOut.String())
		}
	})
}

// The command line, not the engine, names the command that repairs a
// refusal.
func TestStaffHint(t *testing.T) {
	for _, c := range []struct {
		err  error
		says string
	}{
		{fmt.Errorf("login: %w", engine.ErrNoPIN), "starfortune operator set-pin"},
		{&engine.OutOfServiceError{Problems: []string{"behind"}, StoreBehind: true}, "starfortune recover"},
		{&engine.OutOfServiceError{Problems: []string{"modified"}}, ""},
		{engine.ErrInsufficientFunds, ""},
	} {
		if got := staffHint(c.err); c.says == "" && got != "" || !strings.Contains(got, c.says) {
			t.Errorf("staffHint(%v) = %q, want it to say %q", c.err, got, c.says)
		}
	}
}

// The window's --lang is checked before anything opens.
func TestLangFlagRejectsOtherLanguages(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run([]string{"--data", t.TempDir(), "--lang", "xx", "history"}, &out, &errOut)
	if code != 2 || !strings.Contains(errOut.String(), `--lang must be "fr" or "en"`) {
		t.Fatalf("status %d, stderr %q", code, errOut.String())
	}
}

// The bundle the fyne CLI packages says the program's version.
func TestFyneAppVersionIsTheProgramVersion(t *testing.T) {
	var app struct {
		Details struct{ Version, ID, Icon string }
	}
	data, err := os.ReadFile("../FyneApp.toml")
	if err != nil {
		t.Fatal(err)
	}
	if err := toml.Unmarshal(data, &app); err != nil {
		t.Fatal(err)
	}
	if app.Details.Version != Version {
		t.Errorf("FyneApp.toml says version %q, the program %q", app.Details.Version, Version)
	}
	if _, err := os.Stat(filepath.Join("..", app.Details.Icon)); err != nil {
		t.Errorf("FyneApp.toml icon: %v", err)
	}
}

// testCardPIN is the PIN of the cards openCard opens.
const testCardPIN = "2580"

// openCard opens an account in dir, its limits far above any test's play,
// and returns its card number.
func openCard(t *testing.T, dir string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	args := []string{"--passphrase-file", passphraseFile, "--data", dir, "player", "open", "--holder", "Camille Martin", "--born", "1990-05-17",
		"--id-type", "CNI", "--id-number", fmt.Sprintf("T%d", time.Now().UnixNano()), "--deposit-week", "100000", "--stake-week", "100000", "--pin-stdin", "--json"}
	if code := Main(args, Program{Stdin: strings.NewReader(testCardPIN + "\n"), Stdout: &out, Stderr: &errOut, OpenLog: testLog}); code != 0 {
		t.Fatalf("player open: status %d: %s", code, errOut.String())
	}
	var a struct{ Card string }
	if err := json.Unmarshal(out.Bytes(), &a); err != nil || a.Card == "" {
		t.Fatalf("player open: %q %v", out.String(), err)
	}
	return a.Card
}
