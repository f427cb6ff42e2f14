package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"starfortune/central"
	"starfortune/engine"
)

// centralPlayer opens a fleet account at the central db with the
// shipped binary (the PIN on standard input) and returns its card.
func centralPlayer(t testing.TB, db, doc string, limits ...string) string {
	t.Helper()
	args := append([]string{"central", "--db", db, "players", "open", "--holder", "Camille Martin", "--born", "1990-05-17",
		"--id-type", "CNI", "--id-number", doc, "--pin-stdin", "--json"}, limits...)
	cmd := exec.Command(starfortune(t), args...)
	cmd.Stdin = strings.NewReader(testCardPIN + "\n")
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("central players open: %v: %s", err, errOut.String())
	}
	return cardOf(t, string(out))
}

// stakedAtCentral is what the central's tables say card staked, summed
// here from its movements, over every kiosk.
func stakedAtCentral(t *testing.T, db, card string) int64 {
	t.Helper()
	conn := ownerConn(t, db)
	var staked int64
	if err := conn.QueryRow(context.Background(), "SELECT coalesce(sum(debit_cents), 0) FROM movements WHERE player = $1 AND kind = 'sale'", card).Scan(&staked); err != nil {
		t.Fatal(err)
	}
	return staked
}

// TestFleetPlayerLimitAcrossKiosks: one player, two kiosk processes, one
// weekly stake limit of 5,00 €. Three euros played at the first kiosk
// count at the second, which stops the player at the limit with the
// limit's refusal; a break recorded at the central refuses the player at
// every kiosk; the central's audit is clean, and its tables, summed here,
// hold the player within the limit.
func TestFleetPlayerLimitAcrossKiosks(t *testing.T) {
	t.Parallel()
	db, _ := fleetCentralPooled(t, 100, 4) // through PgBouncer, as a national fleet
	k1, k2 := fleetKiosk(t, db, "k1"), fleetKiosk(t, db, "k2")
	d1, d2 := t.TempDir(), t.TempDir()
	card := centralPlayer(t, db, "FLEET1", "--deposit-week", "100", "--stake-week", "5")
	login := []string{"--card", card, "--pin", testCardPIN}

	mustKiosk(t, d1, k1, "k1", append([]string{"wallet", "credit", "--amount", "20"}, login...)...)
	if sales := decodeSales(t, mustKiosk(t, d1, k1, "k1", append([]string{"play", "--stake", "0,50", "--n", "6", "--json"}, login...)...)); len(sales) != 6 {
		t.Fatalf("k1 sold %d units", len(sales))
	}
	mustKiosk(t, d2, k2, "k2", append([]string{"wallet", "credit", "--amount", "20"}, login...)...)
	out, errOut, code := kioskCLI(t, d2, k2, "k2", append([]string{"play", "--stake", "0,50", "--n", "6", "--json"}, login...)...)
	if sales := decodeSales(t, out); code != 1 || len(sales) != 4 || !strings.Contains(errOut, "stake-week") {
		t.Fatalf("k2 after 3,00 € at k1: status %d, %d units sold, %s", code, len(sales), errOut)
	}
	if staked := stakedAtCentral(t, db, card); staked != 500 {
		t.Fatalf("the central counts %d cents staked, want 500", staked)
	}
	// An attendant at k2 reads the account fleet-wide, the player typing
	// the PIN: what k1 and k2 staked, and the funds at each as synced.
	if _, errOut, code := kioskCLI(t, d2, k2, "k2", "player", "show", "--card", card, "--pin", "0000"); code != 1 || !strings.Contains(errOut, "PIN") {
		t.Fatalf("player show with a wrong PIN: status %d: %s", code, errOut)
	}
	var shown struct {
		Usage []struct {
			Limit     string `json:"limit"`
			UsedCents int64  `json:"used_cents"`
		} `json:"usage"`
		Funds []struct {
			Kiosk        string `json:"kiosk"`
			BalanceCents int64  `json:"balance_cents"`
		} `json:"funds"`
		Here *struct {
			BalanceCents int64 `json:"balance_cents"`
		} `json:"here"`
	}
	if err := json.Unmarshal([]byte(mustKiosk(t, d2, k2, "k2", append([]string{"player", "show", "--json"}, login...)...)), &shown); err != nil {
		t.Fatal(err)
	}
	if len(shown.Usage) != 2 || shown.Usage[1].Limit != "stake-week" || shown.Usage[1].UsedCents != 500 ||
		len(shown.Funds) != 2 || shown.Funds[1].Kiosk != "k2" || shown.Here == nil || shown.Here.BalanceCents != shown.Funds[1].BalanceCents {
		t.Fatalf("player show at k2: %+v", shown)
	}

	if _, errOut, code := centralCLI(t, db, "players", "exclude", card, "7d"); code != 0 {
		t.Fatalf("central players exclude: %d %s", code, errOut)
	}
	for _, k := range []struct{ dir, url, id string }{{d1, k1, "k1"}, {d2, k2, "k2"}} {
		if _, errOut, code := kioskCLI(t, k.dir, k.url, k.id, append([]string{"play", "--stake", "0,50"}, login...)...); code != 1 || !strings.Contains(errOut, "break") {
			t.Fatalf("%s during the break: status %d: %s", k.id, code, errOut)
		}
	}
	centralAuditOK(t, db)
}

// TestFleetHandPayReachesTheRegister: at a fleet's kiosk whose settings
// hold prizes from 1,00 € for an attendant (and a central whose hand-pay
// threshold is as low), a player wins a held prize; the attendant records
// the identity check and the hand pay with the shipped binary on that
// kiosk, which syncs; the central's register lists the prize paid by
// hand, with the document seen, the method and the reference.
func TestFleetHandPayReachesTheRegister(t *testing.T) {
	t.Parallel()
	db := fleetCentral(t, 100)
	k1, d1 := fleetKiosk(t, db, "k1"), t.TempDir()
	conf := filepath.Join(t.TempDir(), "starfortune.toml")
	if err := os.WriteFile(conf, []byte("[players]\npayout_threshold = \"1.00\"\nhandpay_threshold = \"1.00\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ownerConn(t, db).Exec(context.Background(), "UPDATE fleet_settings SET handpay_threshold_cents = 100"); err != nil {
		t.Fatal(err)
	}
	card := centralPlayer(t, db, "HAND1", "--deposit-week", "100", "--stake-week", "100")
	kiosk := func(args ...string) string {
		return mustKiosk(t, d1, k1, "k1", append([]string{"--config", conf}, args...)...)
	}
	login := []string{"--card", card, "--pin", testCardPIN}

	kiosk(append([]string{"wallet", "credit", "--amount", "40"}, login...)...)
	var held saleJSON
	for try := 0; held.Ticket == "" && try < 4; try++ { // a play stops at the prize held
		out, errOut, code := kioskCLI(t, d1, k1, "k1", append([]string{"--config", conf, "play", "--stake", "0,50", "--n", "20", "--json"}, login...)...)
		if sales := decodeSales(t, out); code != 0 && len(sales) > 0 && sales[len(sales)-1].PrizeCents >= 100 {
			held = sales[len(sales)-1]
		} else if code != 0 {
			t.Fatalf("play: status %d: %s", code, errOut)
		}
	}
	if held.Ticket == "" {
		t.Fatal("no prize of 1,00 € or more in 80 units")
	}
	kiosk("player", "identity", "--card", card, "--ticket", held.Ticket, "--document", "CNI HAND1")
	kiosk("player", "handpay", "--card", card, "--ticket", held.Ticket, "--method", "virement", "--reference", "VIR-2026-118")
	kiosk("sync")

	out, errOut, code := centralCLI(t, db, "register", "--json", "--min", "1")
	var reg []central.RegisterEntry
	if err := json.Unmarshal([]byte(out), &reg); code != 0 || err != nil {
		t.Fatalf("central register: %d %v %s", code, err, errOut)
	}
	i := slices.IndexFunc(reg, func(e central.RegisterEntry) bool { return e.Ticket == held.Ticket })
	if i < 0 {
		t.Fatalf("the held prize %s is not in the register: %+v", held.Ticket, reg)
	}
	want := engine.HandPay{Document: "CNI HAND1", CheckedBy: "cli", PaidBy: "cli", Method: "virement", Reference: "VIR-2026-118"}
	if h := reg[i].HandPay; h == nil || h.HandPay != want || int64(reg[i].PrizeCents) != held.PrizeCents {
		t.Fatalf("register line of %s: %+v, hand pay %+v", held.Ticket, reg[i], h)
	}
	if out, errOut, code := centralCLI(t, db, "register", "--csv", "--min", "1"); code != 0 || !strings.Contains(out, ",CNI HAND1,cli,cli,virement,VIR-2026-118\n") {
		t.Fatalf("central register --csv: %d %s%s", code, out, errOut)
	}
	for _, e := range reg {
		if e.Ticket != held.Ticket && e.HandPay != nil {
			t.Fatalf("%s is listed paid by hand: %+v", e.Ticket, e.HandPay)
		}
	}
	centralAuditOK(t, db)
}
