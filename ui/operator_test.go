package ui_test

import (
	"context"
	"crypto/pbkdf2"
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"starfortune/engine"
	"starfortune/ui"
)

const pin = "482915"

func newOperatorRig(t *testing.T, o ui.Options) (rig, *clock) {
	t.Helper()
	r := newRig(t, o)
	if err := r.svc.SetPIN(context.Background(), "cli", pin); err != nil {
		t.Fatal(err)
	}
	return r, r.clock
}

func (r rig) shortcut() {
	r.k.Window().Canvas().(fyne.Shortcutable).TypedShortcut(ui.OperatorShortcut)
	r.k.Wait()
}

// typePIN types digits on the pad's keypad and presses OK.
func (r rig) typePIN(t *testing.T, digits string) {
	t.Helper()
	pad := r.k.PINPad()
	if pad == nil {
		t.Fatal("no PIN pad on screen")
	}
	for _, d := range digits {
		test.Tap(pad.Key(int(d - '0')))
	}
	test.Tap(pad.OKButton())
	r.k.Wait()
}

func (r rig) login(t *testing.T) *ui.OperatorPanel {
	t.Helper()
	r.shortcut()
	r.typePIN(t, pin)
	p := r.k.OperatorPanel()
	if p == nil {
		t.Fatalf("no panel after the right PIN (pad says %q)", r.k.PINPad().Message())
	}
	r.k.Wait()
	return p
}

// objects lists what the window shows, overlays (dialogs) included.
func objects(c fyne.Canvas) []fyne.CanvasObject {
	objs := test.LaidOutObjects(c.Content())
	for _, o := range c.Overlays().List() {
		objs = append(objs, test.LaidOutObjects(o)...)
	}
	return objs
}

// tapButton taps the visible button labelled text.
func tapButton(t *testing.T, r rig, text string) {
	t.Helper()
	for _, o := range objects(r.k.Window().Canvas()) {
		if b, ok := o.(*widget.Button); ok && b.Text == text && b.Visible() {
			test.Tap(b)
			r.k.Wait()
			return
		}
	}
	t.Fatalf("no button %q on screen", text)
}

// shows reports whether a label or a text on the window contains text.
func shows(r rig, text string) bool {
	for _, o := range objects(r.k.Window().Canvas()) {
		var s string
		switch o := o.(type) {
		case *widget.Label:
			s = o.Text
		case *canvas.Text:
			s = o.Text
		}
		if strings.Contains(s, text) {
			return true
		}
	}
	return false
}

func operatorActions(t *testing.T, r rig) string {
	t.Helper()
	events, err := r.svc.OperatorLog(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	var a []string
	for i := len(events) - 1; i >= 0; i-- {
		a = append(a, events[i].Action)
	}
	return strings.Join(a, " ")
}

func TestOperatorPanelDisabledWithoutPIN(t *testing.T) {
	r := newRig(t, ui.Options{})
	r.shortcut()
	if r.k.PINPad() != nil || r.k.OperatorPanel() != nil {
		t.Fatal("PIN pad shown with no PIN set")
	}
	if !shows(r, "aucun code PIN opérateur n'est défini") {
		t.Error("no message saying the panel is disabled")
	}
}

func TestOperatorPINSuccessFailureLockout(t *testing.T) {
	r, c := newOperatorRig(t, ui.Options{})
	r.shortcut()
	r.typePIN(t, "1111")
	if got, want := r.k.PINPad().Message(), "Code PIN erroné (4 essais restants)"; got != want {
		t.Fatalf("pad says %q, want %q", got, want)
	}
	if r.k.OperatorPanel() != nil || r.k.PINPad().Entry().Text != "" {
		t.Fatal("a wrong PIN opened the panel or stayed typed")
	}
	r.key(fyne.KeyReturn) // the player's keys do nothing while the pad is up
	if n := len(r.history(t)); n != 0 {
		t.Fatalf("Enter under the PIN pad sold %d units", n)
	}
	for range 4 {
		r.typePIN(t, "2222")
	}
	if got, want := r.k.PINPad().Message(), "Trop de codes erronés : accès bloqué encore 5 min."; got != want {
		t.Fatalf("after 5 wrong PINs the pad says %q, want %q", got, want)
	}
	c.run(3*time.Minute + 10*time.Second)
	r.typePIN(t, pin)
	if got, want := r.k.PINPad().Message(), "Trop de codes erronés : accès bloqué encore 2 min."; got != want || r.k.OperatorPanel() != nil {
		t.Fatalf("right PIN during the lockout: %q (want %q), panel %v", got, want, r.k.OperatorPanel() != nil)
	}
	c.run(2 * time.Minute)
	test.Type(r.k.PINPad().Entry(), pin) // the keyboard works too
	test.Tap(r.k.PINPad().OKButton())
	r.k.Wait()
	if r.k.OperatorPanel() == nil {
		t.Fatalf("right PIN after the lockout refused: %q", r.k.PINPad().Message())
	}
	if r.k.PINPad() != nil {
		t.Error("PIN pad still up")
	}
	tapButton(t, r, "Fermer le panneau")
	if r.k.OperatorPanel() != nil || r.k.Window().Content() != r.k.Content() {
		t.Error("closing the panel did not return to the game")
	}
	want := "pin-set pin-failed pin-failed pin-failed pin-failed pin-failed locked login-locked login logout"
	if got := operatorActions(t, r); got != want {
		t.Errorf("operator log:\n got %s\nwant %s", got, want)
	}
}

// The pad says how long each lockout lasts: 5 min, then 1 h, then 24 h
// (the wall clock moved a day ahead does not end it), then that only the
// command line unlocks it.
func TestOperatorLockoutsEscalate(t *testing.T) {
	r, c := newOperatorRig(t, ui.Options{})
	r.shortcut()
	fail := func(want string) {
		t.Helper()
		for range engine.MaxPINFailures {
			r.typePIN(t, "739201")
		}
		if got := r.k.PINPad().Message(); got != want {
			t.Fatalf("after 5 wrong PINs the pad says %q, want %q", got, want)
		}
	}
	fail("Trop de codes erronés : accès bloqué encore 5 min.")
	c.run(5 * time.Minute)
	fail("Trop de codes erronés : accès bloqué encore 1 h.")
	c.run(time.Hour)
	fail("Trop de codes erronés : accès bloqué encore 24 h.")
	c.run(30 * time.Minute)
	c.now = c.now.Add(24 * time.Hour) // the wall clock alone
	r.typePIN(t, pin)
	if got, want := r.k.PINPad().Message(), "Trop de codes erronés : accès bloqué encore 23 h 30 min."; got != want || r.k.OperatorPanel() != nil {
		t.Fatalf("the right PIN, the wall clock a day ahead: %q, want %q", got, want)
	}
	c.run(23*time.Hour + 30*time.Minute)
	fail("Trop de codes erronés : accès bloqué jusqu'à ce que le personnel le débloque en ligne de commande : starfortune operator unlock")
	c.run(365 * 24 * time.Hour)
	r.typePIN(t, pin)
	if r.k.OperatorPanel() != nil {
		t.Fatal("the last lockout ended by itself")
	}
	if _, err := r.svc.Unlock(context.Background(), "cli"); err != nil { // what `starfortune operator unlock` does
		t.Fatal(err)
	}
	r.typePIN(t, pin)
	if r.k.OperatorPanel() == nil {
		t.Fatalf("the right PIN after unlock: %q", r.k.PINPad().Message())
	}
	if got := operatorActions(t, r); strings.Count(got, "locked") != 4+2 || !strings.HasSuffix(got, "login-locked unlock login") {
		t.Errorf("operator log: %s", got)
	}
}

// A PIN set under the former rule (4 digits) still opens the panel, which
// says to change it.
func TestOperatorFormerShortPIN(t *testing.T) {
	r := newRig(t, ui.Options{})
	salt := []byte("0123456789abcdef")
	key, err := pbkdf2.Key(sha256.New, "4821", salt, 1000, 32)
	if err != nil {
		t.Fatal(err)
	}
	err = r.store.Update(context.Background(), func(tx engine.Tx) error {
		return tx.PutSetting("operator.pin", fmt.Appendf(nil, "pbkdf2-sha256$1000$%x$%x", salt, key))
	})
	if err != nil {
		t.Fatal(err)
	}
	r.shortcut()
	r.typePIN(t, "4821")
	if r.k.OperatorPanel() == nil {
		t.Fatalf("the former PIN refused: %q", r.k.PINPad().Message())
	}
	r.k.Wait()
	const notice = "Le code PIN opérateur a moins de 6 chiffres : changez-le en ligne de commande (starfortune operator set-pin)."
	if !shows(r, notice) {
		t.Error("the panel does not say the PIN must be changed")
	}
	r.k.OperatorPanel().Select(ui.TabSystem)
	r.k.Wait()
	if n := count(r, notice); n != 2 {
		t.Errorf("the notice is shown %d times, want under the tabs and in the System tab", n)
	}
}

// count is how many labels of the window say text.
func count(r rig, text string) int {
	n := 0
	for _, o := range objects(r.k.Window().Canvas()) {
		if l, ok := o.(*widget.Label); ok && l.Text == text && l.Visible() {
			n++
		}
	}
	return n
}

func TestOperatorTicketLookup(t *testing.T) {
	r, _ := newOperatorRig(t, ui.Options{})
	kiosk7 := playing(t, r.svc, "T1", 0)
	_, err := r.svc.Sell(context.Background(), engine.SellRequest{Player: kiosk7, Stake: 100, Count: 1,
		Picks: func(int) [2]int { return [2]int{1, 2} }, Actor: "test"})
	if err == nil {
		t.Fatal("sold without funds")
	}
	if _, err := r.svc.Credit(context.Background(), kiosk7, 500, "test"); err != nil {
		t.Fatal(err)
	}
	sales, err := r.svc.Sell(context.Background(), engine.SellRequest{Player: kiosk7, Stake: 100, Count: 3,
		Picks: func(int) [2]int { return [2]int{1, 2} }, Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	p := r.login(t)
	p.Select(ui.TabTicket)
	good := sales[1].Ticket.String()
	bad := good[:len(good)-1] + string(rune('0'+(good[len(good)-1]-'0'+1)%10))
	test.Type(p.TicketEntry(), bad)
	if got := p.TicketStatus(); got != "Chiffre de contrôle erroné : faute de frappe ?" || !p.LookupButton().Disabled() {
		t.Fatalf("wrong check digit %s: status %q, look-up enabled %v", bad, got, !p.LookupButton().Disabled())
	}
	p.TicketEntry().SetText(good[:8])
	if got := p.TicketStatus(); got != "6 chiffres sur 16 (EE-SSS-BBBB-IIIIII-C)" {
		t.Fatalf("partial number: %q", got)
	}
	p.TicketEntry().SetText(good)
	if got := p.TicketStatus(); got != "✓ Numéro valide" || p.LookupButton().Disabled() {
		t.Fatalf("valid number: status %q", got)
	}
	test.Tap(p.LookupButton())
	r.k.Wait()
	if f := p.Found(); f == nil || f.Record != sales[1].Record {
		t.Fatalf("look-up found %+v", f)
	}
	tapButton(t, r, "Revoir sa chute sur le plateau")
	if !r.k.Recalling() || r.k.Window().Content() == fyne.CanvasObject(p) {
		t.Fatal("the fall is not replayed on the board")
	}
	if bal, _ := r.svc.Balance(context.Background(), kiosk7); bal != sales[2].BalanceAfter {
		t.Fatalf("replay moved money: %s", bal)
	}
	tapButton(t, r, "Retour au panneau opérateur")
	if r.k.Window().Content() != fyne.CanvasObject(p) || r.k.Recalling() {
		t.Fatal("not back to the panel")
	}
	if got := operatorActions(t, r); got != "pin-set login ticket-lookup replay" {
		t.Errorf("operator log: %s", got)
	}
}

func TestOperatorCreditAndPayout(t *testing.T) {
	r, _ := newOperatorRig(t, ui.Options{})
	kiosk7 := openAccount(t, r.svc, "T2", generous(), 0).Player
	p := r.login(t)
	p.Select(ui.TabFunds)
	p.FundsPlayer().SetText(kiosk7)
	p.LoadFunds()
	r.k.Wait()
	test.Type(p.AmountEntry(), "20")
	if p.CreditButton().Disabled() || !p.PayoutButton().Disabled() {
		t.Fatal("with 0 € of funds, credit must be enabled and payout disabled")
	}
	test.Tap(p.CreditButton())
	tapButton(t, r, "Confirmer")
	if got := p.FundsBalance(); got != "20,00 €" {
		t.Fatalf("balance after credit %q (%s)", got, p.FundsResult())
	}
	p.AmountEntry().SetText("7,505")
	if !p.CreditButton().Disabled() || !p.PayoutButton().Disabled() {
		t.Fatal("three decimals accepted")
	}
	p.AmountEntry().SetText("7,50")
	test.Tap(p.PayoutButton())
	tapButton(t, r, "Annuler") // a cancelled confirmation moves nothing
	if got := p.FundsBalance(); got != "20,00 €" {
		t.Fatalf("cancelled payout moved money: %q", got)
	}
	test.Tap(p.PayoutButton())
	tapButton(t, r, "Confirmer")
	if got, want := p.FundsResult(), "Fait : écriture n° 2, disponibilités 12,50 €"; got != want {
		t.Fatalf("payout result %q, want %q", got, want)
	}
	p.AmountEntry().SetText("12,51")
	if !p.PayoutButton().Disabled() {
		t.Fatal("payout beyond the balance enabled")
	}
	entries, err := r.svc.LedgerPage(context.Background(), kiosk7, 10)
	if err != nil || len(entries) != 2 {
		t.Fatalf("ledger %v %v", entries, err)
	}
	if e := entries[0]; e.Kind != engine.LedgerPayout || e.Debit != 750 || e.Balance != 1250 || e.Actor != "operator" {
		t.Errorf("payout entry %+v", e)
	}
	if e := entries[1]; e.Kind != engine.LedgerCredit || e.Credit != 2000 || e.Actor != "operator" {
		t.Errorf("credit entry %+v", e)
	}
	if got := operatorActions(t, r); got != "pin-set login credit payout" {
		t.Errorf("operator log: %s", got)
	}
	// The kiosk's own player: the window's funds follow.
	p.FundsPlayer().SetText(engine.DemoPlayer)
	p.LoadFunds()
	r.k.Wait()
	p.AmountEntry().SetText("5")
	test.Tap(p.CreditButton())
	tapButton(t, r, "Confirmer")
	if got := r.k.Controls().Funds(); got != "105,00 €" {
		t.Errorf("kiosk funds %q after crediting its player", got)
	}
	mustAuditClean(t, r)
}

func mustAuditClean(t *testing.T, r rig) {
	t.Helper()
	rep, err := r.svc.Audit(context.Background(), nil)
	if err != nil || !rep.OK() {
		t.Fatalf("audit after operator actions: %v %q", err, rep.Findings)
	}
}

func TestOperatorAudit(t *testing.T) {
	r, _ := newOperatorRig(t, ui.Options{})
	r.tapPlay()
	r.playOut(t, 0)
	p := r.login(t)
	p.Select(ui.TabAudit)
	tapButton(t, r, "Lancer l'audit")
	if p.AuditProgress() != 1 || p.AuditSummary() != "Audit OK : aucune anomalie" {
		t.Fatalf("audit: progress %v, %q", p.AuditProgress(), p.AuditSummary())
	}
	if got := operatorActions(t, r); got != "pin-set login audit" {
		t.Errorf("operator log: %s", got)
	}
}

func TestOperatorPlayersHistory(t *testing.T) {
	r, _ := newOperatorRig(t, ui.Options{})
	kiosk7 := playing(t, r.svc, "T3", 5000)
	if _, err := r.svc.Sell(context.Background(), engine.SellRequest{Player: kiosk7, Stake: 50, Count: 25,
		Picks: func(int) [2]int { return [2]int{0, 1} }, Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	p := r.login(t)
	p.Select(ui.TabPlayers)
	p.HistoryPlayer().SetText(kiosk7)
	p.ShowHistory(0)
	r.k.Wait()
	if n := p.HistoryRows(); n != ui.HistoryPage {
		t.Fatalf("%d rows on the first page", n)
	}
	tapButton(t, r, "Plus anciennes")
	tapButton(t, r, "Plus anciennes")
	if n := p.HistoryRows(); n != 5 {
		t.Fatalf("%d rows on the last page, want 5", n)
	}
}

func TestGoldenOperatorBlocks(t *testing.T) {
	r, _ := newOperatorRig(t, ui.Options{})
	ctx := context.Background()
	sim := playing(t, r.svc, "B1", 1_000_000)
	for _, c := range []struct {
		stake engine.Cents
		n     int
	}{{50, 2000}, {100, 700}, {200, 150}} {
		if _, err := r.svc.Sell(ctx, engine.SellRequest{Player: sim, Stake: c.stake, Count: c.n,
			Picks: func(int) [2]int { return [2]int{0, 1} }, Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	p := r.login(t)
	p.Select(ui.TabBlocks)
	r.k.Wait()
	if len(p.Report()) != 3 {
		t.Fatalf("report of %d blocks", len(p.Report()))
	}
	test.AssertImageMatches(t, "operator-blocks.png", r.k.Window().Canvas().Capture())
}

// TestOperatorSystemShowsProgram: the System tab identifies the running
// program; its hash is asked for only when the panel shows it.
func TestOperatorSystemShowsProgram(t *testing.T) {
	hashed := 0
	r, _ := newOperatorRig(t, ui.Options{Version: "1.2.3", Commit: "abc1234",
		BinarySHA256: func() string { hashed++; return "5f4974c5437b11cf" }})
	if hashed != 0 {
		t.Fatal("the window hashed the binary before the operator panel asked")
	}
	p := r.login(t)
	p.Select(ui.TabSystem)
	r.k.Wait()
	for _, want := range []string{"1.2.3", "abc1234", "5f4974c5437b11cf"} {
		if !shows(r, want) {
			t.Errorf("the System tab does not show %q", want)
		}
	}
	if hashed != 1 {
		t.Errorf("hashed %d times, want once", hashed)
	}
}
