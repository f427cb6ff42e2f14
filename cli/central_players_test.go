package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"starfortune/central"
	"starfortune/engine"
	"starfortune/internal/pgtest"
)

// centralIn runs `central --db db args…` with in as standard input.
func centralIn(db, in string, args ...string) (string, string, int) {
	var out, errOut bytes.Buffer
	code := Main(append([]string{"--passphrase-file", passphraseFile, "central", "--db", db}, args...),
		Program{Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errOut, OpenLog: testLog})
	return out.String(), errOut.String(), code
}

// The fleet's accounts at the central's command line, with the lone
// kiosk's words: refusals exit 1 with the reason, mistakes in the command
// line exit 2.
func TestCentralPlayersCommandLine(t *testing.T) {
	ctx := context.Background()
	db := pgtest.DB(t)
	must := func(in string, args ...string) string {
		t.Helper()
		out, errOut, code := centralIn(db, in, args...)
		if code != 0 {
			t.Fatalf("central %s: status %d: %s", strings.Join(args, " "), code, errOut)
		}
		return out
	}
	must("", "init")
	var k central.Kiosk
	if err := json.Unmarshal([]byte(must("", "kiosk", "add", "k1", "--json")), &k); err != nil {
		t.Fatal(err)
	}
	open := []string{"players", "open", "--holder", "Camille Martin", "--born", "1990-05-17", "--id-type", "CNI", "--id-number", "X4RTBPFW4",
		"--deposit-week", "100", "--stake-week", "50", "--loss-day", "20", "--pin-stdin", "--attendant", "marie", "--json"}
	var p centralPlayerJSON
	if err := json.Unmarshal([]byte(must("4071\n", open...)), &p); err != nil || p.Card != string(engine.NewCard(1)) || len(p.Limits) != 3 ||
		p.OpenedBy != "marie" || p.Document != "CNI:X4RTBPFW4" {
		t.Fatalf("opened: %+v %v", p, err)
	}
	for _, tc := range []struct {
		args []string
		in   string
		code int
		says string
	}{
		{[]string{"players", "open", "--holder", "A", "--born", "2001-02-30", "--id-type", "CNI", "--id-number", "1", "--deposit-week", "1", "--stake-week", "1"}, "2580\n2580\n", 2, "--born"},
		{[]string{"players", "open", "--holder", "A", "--born", "1990-01-01", "--id-type", "CNI", "--id-number", "1", "--deposit-week", "1"}, "2580\n2580\n", 1, "stake-week"},
		{open, "4071\n", 1, "document already holds an account"},
		{[]string{"players", "show", "0000000012"}, "", 2, "check digit"},
		{[]string{"players", "show", string(engine.NewCard(7))}, "", 1, "unknown card"},
		{[]string{"players", "limits", p.Card, "stake-fortnight", "10"}, "", 2, "stake-week"},
		{[]string{"players", "limits", p.Card, "stake-week", "0"}, "", 1, "mandatory"},
		{[]string{"players", "exclude", p.Card, "2w"}, "", 2, "24h, 7d"},
		{[]string{"players", "unlock-pin", p.Card, "--new-pin-stdin"}, "1234\n", 1, "easy to guess"},
	} {
		if _, errOut, code := centralIn(db, tc.in, tc.args...); code != tc.code || !strings.Contains(errOut, tc.says) {
			t.Errorf("central %s: status %d, want %d, saying %q: %s", strings.Join(tc.args, " "), code, tc.code, tc.says, errOut)
		}
	}

	// A kiosk logs the player in and sells a large prize under the lease.
	c, err := central.Open(ctx, k.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, l, err := c.PlayerLogin(ctx, engine.Card(p.Card), "4071")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.PushMovements(ctx, []engine.FleetMovement{{Seq: 1, ID: "1", Player: p.Card, Kind: engine.LedgerSale, Debit: 200, Credit: 150000,
		Time: time.Now(), Lease: l.ID}}); err != nil {
		t.Fatal(err)
	}
	if out := must("", "players", "show", p.Card); !strings.Contains(out, "Camille Martin") || !strings.Contains(out, "kiosk k1") ||
		!strings.Contains(out, "used 2,00 €") {
		t.Fatalf("show: %s", out)
	}
	var reg []central.RegisterEntry
	if err := json.Unmarshal([]byte(must("", "register", "--json")), &reg); err != nil || len(reg) != 1 || reg[0].Holder != "Camille Martin" || reg[0].Kiosk != "k1" ||
		reg[0].HandPay != nil {
		t.Fatalf("register: %+v %v", reg, err)
	}
	if out := must("", "register", "--csv", "--min", "2000"); out != "time,kiosk,player,holder,document,ticket,stake_eur,prize_eur,"+
		"hand_paid_at,document_seen,checked_by,paid_by,method,reference\n" {
		t.Fatalf("register over 2 000 €: %q", out)
	}
	if out := must("", "register"); !strings.Contains(out, "PAID BY HAND") || !strings.HasSuffix(strings.Join(strings.Fields(out), " "), "1 500,00 € - - - - - -") {
		t.Fatalf("register, a prize not paid by hand: %q", out)
	}
	if _, errOut, code := centralIn(db, "", "players", "limits", p.Card, "deposit-week", "60"); code != 0 || !strings.Contains(errOut, "from now") {
		t.Fatalf("a decrease: %d %s", code, errOut)
	}
	if out := must("", "players", "exclude", p.Card, "7d", "--attendant", "marie"); !strings.Contains(out, "break until") {
		t.Fatalf("exclude: %q", out)
	}
	var list []centralPlayerJSON
	if err := json.Unmarshal([]byte(must("", "players", "list", "--json")), &list); err != nil || len(list) != 1 || list[0].BreakUntil == "" ||
		list[0].Limits[0] != (limitJSON{Limit: "deposit-week", Cents: 6000}) || len(list[0].Leases) != 1 || list[0].Leases[0].Revoked != "break" {
		t.Fatalf("list: %+v %v", list, err)
	}
	if out := must("5183\n", "players", "unlock-pin", p.Card, "--new-pin-stdin"); !strings.Contains(out, "card unlocked") {
		t.Fatalf("unlock: %q", out)
	}
	file := filepath.Join(t.TempDir(), "exclusions.csv")
	if err := os.WriteFile(file, []byte("id_type,id_number\nCNI,X4RTBPFW4\nPASSEPORT,12AB\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := must("", "exclusions", "import", file); !strings.Contains(out, "2 new; 1 accounts closed") {
		t.Fatalf("import: %q", out)
	}
	if out := must("", "players", "list"); !strings.Contains(out, "listed") {
		t.Fatalf("list: %q", out)
	}
	out, _, _ := centralIn(db, "", "audit", "--json")
	var rep central.AuditReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Accounts != 1 || rep.PlayerFindings == nil {
		t.Fatalf("audit: %s %v", out, err)
	}
}
