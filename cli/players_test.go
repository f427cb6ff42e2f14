package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cliIn runs the command line with in as its standard input.
func cliIn(dir, in string, args ...string) (string, string, int) {
	var out, errOut bytes.Buffer
	code := Main(append([]string{"--passphrase-file", passphraseFile, "--data", dir}, args...),
		Program{Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errOut, OpenLog: testLog})
	return out.String(), errOut.String(), code
}

// A support agent's day with player accounts, command by command: refusals
// exit 1 with the reason, mistakes in the command line exit 2; an
// attendant named with --attendant signs what they do, their PIN checked.
func TestPlayerAccountsAtTheCommandLine(t *testing.T) {
	dir := newData(t)
	open := []string{"player", "open", "--holder", "Camille Martin", "--born", "1990-05-17", "--id-type", "CNI", "--id-number", "X4RTBPFW4",
		"--deposit-week", "100", "--stake-week", "5", "--loss-day", "20", "--pin-stdin", "--json"}
	for _, tc := range []struct {
		args []string
		in   string
		code int
		says string
	}{
		{[]string{"player", "open", "--holder", "A", "--born", "2001-02-30", "--id-type", "CNI", "--id-number", "1", "--deposit-week", "1", "--stake-week", "1"}, "2580\n2580\n", 2, "--born"},
		{[]string{"player", "open", "--holder", "A", "--born", "2015-01-01", "--id-type", "CNI", "--id-number", "1", "--deposit-week", "1", "--stake-week", "1"}, "2580\n2580\n", 1, "under 18"},
		{[]string{"player", "open", "--holder", "A", "--born", "1990-01-01", "--id-type", "CNI", "--id-number", "1", "--deposit-week", "1"}, "2580\n2580\n", 1, "stake-week"},
		{[]string{"player", "open", "--holder", "A", "--born", "1990-01-01", "--id-type", "CNI", "--id-number", "1", "--deposit-week", "1", "--stake-week", "1"}, "2580\n2581\n", 2, "differ"},
		{[]string{"player", "show", "--card", "0000000012"}, "", 2, "check digit"},
		{[]string{"player", "show", "--card", "0000000021"}, "", 1, "unknown card"},
		{[]string{"player", "exclude", "--card", "0000000013", "--break", "2w"}, "", 2, "24h, 7d"},
	} {
		if _, errOut, code := cliIn(dir, tc.in, tc.args...); code != tc.code || !strings.Contains(errOut, tc.says) {
			t.Errorf("%s: status %d, want %d, saying %q: %s", strings.Join(tc.args, " "), code, tc.code, tc.says, errOut)
		}
	}
	out, errOut, code := cliIn(dir, "2580\n", open...)
	if code != 0 {
		t.Fatalf("player open: %d %s", code, errOut)
	}
	var a accountJSON
	if err := json.Unmarshal([]byte(out), &a); err != nil || a.Card != "0000000013" || !a.Complete || len(a.Limits) != 3 {
		t.Fatalf("opened: %s %v", out, err)
	}
	card := []string{"--card", a.Card}
	if _, errOut, code := cliIn(dir, "", append([]string{"wallet", "credit", "--amount", "101", "--pin", "2580"}, card...)...); code != 1 || !strings.Contains(errOut, "deposit-week") {
		t.Fatalf("a deposit over the limit: %d %s", code, errOut)
	}
	if _, errOut, code := cliIn(dir, "9999\n", append([]string{"wallet", "credit", "--amount", "20"}, card...)...); code != 1 || !strings.Contains(errOut, "wrong card PIN") {
		t.Fatalf("a deposit with a wrong PIN: %d %s", code, errOut)
	}
	mustCLI(t, dir, append([]string{"wallet", "credit", "--amount", "20", "--pin", "2580"}, card...)...)
	out, errOut, code = cliIn(dir, "", append([]string{"play", "--stake", "1", "--n", "9", "--pin", "2580", "--json"}, card...)...)
	if code != 1 || len(decodeSales(t, out)) != 5 || !strings.Contains(errOut, "stake-week") {
		t.Fatalf("nine units under a 5 € stake limit: status %d, %d sold: %s", code, len(decodeSales(t, out)), errOut)
	}
	if out := mustCLI(t, dir, append([]string{"player", "limits", "--set", "stake-week=50", "--set", "loss-day=0"}, card...)...); !strings.Contains(out, "5,00 €, 50,00 € from") {
		t.Fatalf("an increase waits: %s", out)
	}
	if _, errOut, code := cliIn(dir, "", append([]string{"player", "limits", "--set", "stake-week=60"}, card...)...); code != 1 || !strings.Contains(errOut, "already pending") {
		t.Fatalf("a second increase: %d %s", code, errOut)
	}

	// An attendant of their own, whose name the log and the register keep.
	cliIn(dir, "482915\n482915\n", "operator", "set-pin")
	if _, errOut, code := cliIn(dir, "739164\n739164\n", "operator", "add", "marie"); code != 0 {
		t.Fatalf("operator add: %s", errOut)
	}
	if _, errOut, code := cliIn(dir, "000000\n", append([]string{"player", "exclude", "--break", "7d", "--attendant", "marie"}, card...)...); code != 1 || !strings.Contains(errOut, "wrong operator PIN") {
		t.Fatalf("an attendant's wrong PIN: %d %s", code, errOut)
	}
	if out, errOut, code := cliIn(dir, "739164\n", append([]string{"player", "exclude", "--break", "7d", "--attendant", "marie"}, card...)...); code != 0 || !strings.Contains(out, "cannot be shortened") {
		t.Fatalf("a break: %d %s", code, errOut)
	}
	if _, errOut, code := cliIn(dir, "", append([]string{"player", "exclude", "--break", "24h"}, card...)...); code != 1 || !strings.Contains(errOut, "cannot be shortened") {
		t.Fatalf("a shorter break: %d %s", code, errOut)
	}
	if _, errOut, code := cliIn(dir, "", append([]string{"play", "--stake", "1", "--pin", "2580"}, card...)...); code != 1 || !strings.Contains(errOut, "break") {
		t.Fatalf("play on a break: %d %s", code, errOut)
	}
	mustCLI(t, dir, append([]string{"wallet", "payout", "--amount", "1"}, card...)...) // a break's balance is payable

	list := filepath.Join(t.TempDir(), "exclusions.csv")
	os.WriteFile(list, []byte("id_type,id_number\nCNI,X4RTBPFW4\nPASSEPORT,12AB345\n"), 0o600)
	if out := mustCLI(t, dir, "exclusions", "import", list); !strings.Contains(out, "2 new") {
		t.Fatalf("exclusions import: %s", out)
	}
	var accounts []accountJSON
	json.Unmarshal([]byte(mustCLI(t, dir, "player", "list", "--json")), &accounts)
	if len(accounts) != 1 || accounts[0].BreakUntil == "" || accounts[0].BalanceCents <= 0 {
		t.Fatalf("player list: %+v", accounts)
	}
	var reg []map[string]any
	json.Unmarshal([]byte(mustCLI(t, dir, "register", "--json")), &reg)
	if csv := mustCLI(t, dir, "register", "--csv"); !strings.HasPrefix(csv, "seq,time,kind,player,holder") {
		t.Fatalf("register CSV: %s", csv)
	}
	if log := mustCLI(t, dir, "operator", "log"); !strings.Contains(log, "marie") {
		t.Fatalf("operator log: %s", log)
	}
	if out := mustCLI(t, dir, "audit"); !strings.Contains(out, "audit OK") {
		t.Fatalf("audit: %s", out)
	}
}
