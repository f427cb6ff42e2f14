package ui_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"starfortune/engine"
	"starfortune/present"
	"starfortune/ui"
)

// The attendant's side of the player accounts (SPEC §10) in the operator
// panel: attendants log in under their own names, and the Accounts tab
// shows an account, opens one, changes limits, records breaks, unlocks
// cards, pays held prizes, imports the exclusion list and exports the
// register.

// attendantPIN is the PIN of camille, an attendant added to the first.
const attendantPIN = "739261"

// newPanelRig is a kiosk playing real money with an operator PIN, on a
// game protecting players with p (zero: the defaults).
func newPanelRig(t *testing.T, o ui.Options, p engine.Protection) rig {
	t.Helper()
	r := newAccountsRig(t, o, p)
	if err := r.svc.SetPIN(context.Background(), "cli", pin); err != nil {
		t.Fatal(err)
	}
	return r
}

// showAccount shows the account of card c in the Accounts tab.
func (r rig) showAccount(t *testing.T, p *ui.OperatorPanel, c engine.Card) {
	t.Helper()
	p.Select(ui.TabAccounts)
	r.k.Wait()
	p.LookUpCard(string(c))
	r.k.Wait()
	if !shows(r, "Carte "+c.Spaced()) {
		t.Fatalf("the account of %s is not shown (%q, %q)", c, p.CardStatus(), p.Message())
	}
}

// typeIn types text in the visible entry whose placeholder is hint (a
// dialog's, as a rule).
func typeIn(t *testing.T, r rig, hint, text string) {
	t.Helper()
	for _, o := range objects(r.k.Window().Canvas()) {
		if e, ok := o.(*widget.Entry); ok && e.PlaceHolder == hint && e.Visible() {
			e.SetText(text)
			return
		}
	}
	t.Fatalf("no entry %q on screen", hint)
}

func lastRecord(t *testing.T, r rig, player string) engine.AccountRecord {
	t.Helper()
	log, err := r.svc.AccountLog(context.Background(), player)
	if err != nil || len(log) == 0 {
		t.Fatalf("account log of %s: %v", player, err)
	}
	return log[len(log)-1]
}

// operatorEvents are the operator log's events as "actor action", oldest
// first.
func operatorEvents(t *testing.T, r rig) []string {
	t.Helper()
	events, err := r.svc.OperatorLog(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := len(events) - 1; i >= 0; i-- {
		out = append(out, events[i].Actor+" "+events[i].Action)
	}
	return out
}

// An attendant chooses their name on the PIN pad and types their own PIN;
// the panel then acts under that name: the operator log, the ledger and
// the account log say who did what.
func TestAttendantsAtThePanel(t *testing.T) {
	r := newPanelRig(t, ui.Options{}, engine.Protection{})
	ctx := context.Background()
	a := openAccount(t, r.svc, "N1", generous(), 0)

	r.shortcut() // one attendant: no name to choose
	if r.k.PINPad().Attendants() != nil {
		t.Fatal("a choice of names with a single attendant")
	}
	test.Tap(r.k.PINPad().CancelButton())
	if err := r.svc.AddAttendant(ctx, "cli", "camille", attendantPIN); err != nil {
		t.Fatal(err)
	}
	r.shortcut()
	names := r.k.PINPad().Attendants()
	if names == nil || names.Selected != engine.FirstAttendant || !slices.Equal(names.Options, []string{"operator", "camille"}) {
		t.Fatalf("the names offered: %+v", names)
	}
	if got := r.k.PINPad().Message(); got != "Choisissez votre nom, puis tapez votre code PIN" {
		t.Fatalf("pad says %q", got)
	}
	names.SetSelected("camille")
	r.typePIN(t, pin) // the first attendant's PIN is not camille's
	if got, want := r.k.PINPad().Message(), "Code PIN erroné (4 essais restants)"; got != want || r.k.OperatorPanel() != nil {
		t.Fatalf("camille with the operator's PIN: %q, want %q", got, want)
	}
	r.typePIN(t, attendantPIN)
	p := r.k.OperatorPanel()
	if p == nil {
		t.Fatalf("camille's PIN refused: %q", r.k.PINPad().Message())
	}
	r.k.Wait()
	if !shows(r, "Agent : camille") {
		t.Error("the panel does not say who is logged in")
	}

	p.Select(ui.TabFunds)
	p.FundsPlayer().SetText(a.Player)
	p.LoadFunds()
	r.k.Wait()
	test.Type(p.AmountEntry(), "20")
	test.Tap(p.CreditButton())
	tapButton(t, r, "Confirmer")
	if l, err := r.svc.LedgerPage(ctx, a.Player, 1); err != nil || l[0].Kind != engine.LedgerCredit || l[0].Actor != "camille" {
		t.Fatalf("the credit is recorded as %+v (%v)", l, err)
	}

	r.showAccount(t, p, a.Card)
	test.Tap(objectButtons(r, "10 000,00 €")[1]) // stakes over 7 days
	typeIn(t, r, "Montant en euros, par ex. 20 ou 12,50", "50")
	tapButton(t, r, "Enregistrer")
	if got, want := p.Message(), "Limite de mises sur 7 jours : 50,00 €, en vigueur dès maintenant."; got != want {
		t.Fatalf("after lowering a limit: %q, want %q", got, want)
	}
	if rec := lastRecord(t, r, a.Player); rec.Kind != engine.AccLimit || rec.Actor != "camille" || rec.Amount != 5_000 {
		t.Fatalf("the limit is recorded as %+v", rec)
	}
	tapButton(t, r, "Fermer le panneau")
	if r.k.Front() != "login" || r.k.Window().Content() == r.k.Content() {
		t.Fatalf("closing the panel shows front %q, not the login screen", r.k.Front())
	}
	want := []string{"cli pin-set", "cli attendant-added", "camille pin-failed", "camille login", "camille credit", "camille account", "camille logout"}
	if got := operatorEvents(t, r); !slices.Equal(got, want) {
		t.Errorf("operator log:\n got %q\nwant %q", got, want)
	}
	mustAuditClean(t, r)
}

// heldPrize opens an account, logs it in at the window and plays until a
// unit wins a prize the attendant must pay (threshold: 10 €): the window
// shows the hand-pay lock.
func heldPrize(t *testing.T, o ui.Options) (rig, engine.Account) {
	t.Helper()
	const threshold = 1_000
	i := firstPrizeOf(t, threshold)
	r := newPanelRig(t, o, engine.Protection{RealityCheck: time.Hour, PayoutThreshold: threshold, HandpayThreshold: threshold,
		IdleLogout: 3 * time.Minute, CoolingOff: 48 * time.Hour, PINTries: 5})
	ctx := context.Background()
	a := openAccount(t, r.svc, "X4RTBPFW4", engine.Limits{depositWeek: 90_000, stakeWeek: 50_000, lossDay: 20_000}, 40_000)
	if err := setLimit(r, a.Player, stakeWeek, 80_000); err != nil { // pending until 04/12
		t.Fatal(err)
	}
	r.loggedIn(t, a)
	if i > 0 {
		if _, err := r.svc.Sell(ctx, engine.SellRequest{Player: a.Player, Stake: 100, Count: i, Picks: func(int) [2]int { return [2]int{0, 0} }, Actor: "kiosk"}); err != nil {
			t.Fatal(err)
		}
	}
	r.tapPlay()
	r.playOut(t, 1)
	if r.k.Front() != "hand-pay" {
		t.Fatalf("front %q with a prize held", r.k.Front())
	}
	return r, r.account(t, a.Player)
}

// The Accounts tab shows an account whole: the holder, the funds, the
// prize held, the limits and the change waiting, the break, the card, the
// session, its log and its movements. The attendant checks the identity,
// then pays the prize; the player's window lifts its lock by itself; the
// register says who did it, and its export says the same.
func TestGoldenPanelAccountHandPay(t *testing.T) {
	dir := t.TempDir()
	r, a := heldPrize(t, ui.Options{ExportDir: dir})
	ctx := context.Background()
	held := a.Held[0]
	p := r.login(t)
	r.showAccount(t, p, a.Card)
	for _, s := range []string{"Camille Martin", "17/05/1990", "CNI X4RTBPFW4", euro(held.Prize), "identité non contrôlée",
		"En attente : Limite de mises sur 7 jours portée à 800,00 € le 04/12/2026 14:05:00", "Gain retenu pour un agent : " + euro(held.Prize)} {
		if !shows(r, s) {
			t.Errorf("the account does not show %q", s)
		}
	}
	test.AssertImageMatches(t, "panel-accounts.png", capture(r))

	if !objectButton(t, r, "Payer").Disabled() {
		t.Fatal("the prize can be paid before the identity is checked")
	}
	tapButton(t, r, "Contrôler l'identité")
	if !shows(r, "Vérifiez la pièce présentée") {
		t.Fatal("no identity check asked")
	}
	typeIn(t, r, "Pièce présentée (type et numéro)", "CNI X4RTBPFW4, vue")
	tapButton(t, r, "Identité contrôlée")
	if !shows(r, "identité contrôlée") || r.account(t, a.Player).Held[0].IdentityChecked != true {
		t.Fatalf("the identity check is not recorded: %q", p.Message())
	}
	tapButton(t, r, "Payer")
	typeIn(t, r, "N° du virement ou du chèque", "VIR-2026-118")
	tapButton(t, r, "Payer "+euro(held.Prize))
	if acct := r.account(t, a.Player); len(acct.Held) != 0 {
		t.Fatalf("still held after the payout: %+v (%q)", acct.Held, p.Message())
	}
	if !strings.HasPrefix(p.Message(), "Gain du ticket "+held.Ticket.String()+" payé : "+euro(held.Prize)+" par virement.") {
		t.Errorf("after the payout: %q", p.Message())
	}
	if l, _ := r.svc.LedgerPage(ctx, a.Player, 1); l[0].Kind != engine.LedgerPayout || l[0].Debit != held.Prize || l[0].Actor != "operator" {
		t.Errorf("the payout is recorded as %+v", l[0])
	}
	reg, err := r.svc.Register(ctx)
	if err != nil || len(reg) != 3 {
		t.Fatalf("register %+v %v", reg, err)
	}
	if e := reg[2].Record; e.Kind != engine.AccHandPaid || e.Actor != "operator" || e.Text != "virement|VIR-2026-118" || reg[1].Record.Text != "CNI X4RTBPFW4, vue" {
		t.Errorf("the register says %+v, then %+v", reg[1].Record, e)
	}

	tapButton(t, r, "Exporter le registre")
	path := strings.TrimPrefix(p.Message(), "Registre exporté : 3 ligne(s) dans ")
	if !strings.HasPrefix(path, dir) {
		t.Fatalf("after the export: %q", p.Message())
	}
	got, err := os.ReadFile(path)
	var want bytes.Buffer
	present.RegisterCSV(&want, reg)
	if err != nil || string(got) != want.String() {
		t.Fatalf("the register's export:\n%s\nwant\n%s(%v)", got, want.String(), err)
	}

	tapButton(t, r, "Fermer le panneau")
	if r.k.Front() != "" {
		t.Fatalf("front %q once the prize is paid", r.k.Front())
	}
	if events := operatorEvents(t, r); !slices.Contains(events, "operator export") {
		t.Errorf("the export is not in the operator log: %q", events)
	}
	mustAuditClean(t, r)
}

// Opening an account: the form (identity, limits, the card's PIN typed
// twice by the player on the keypad), the refusals worded, and the card
// shown large once it is opened.
func TestGoldenPanelOpenAccount(t *testing.T) {
	r := newPanelRig(t, ui.Options{}, engine.Protection{})
	ctx := context.Background()
	if _, _, err := r.svc.ImportExclusions(ctx, "cli", []string{"CNI:LISTED1"}); err != nil {
		t.Fatal(err)
	}
	openAccount(t, r.svc, "TAKEN1", generous(), 0)
	p := r.login(t)
	p.Select(ui.TabAccounts)
	r.k.Wait()
	tapButton(t, r, "Ouvrir un compte")
	holder, born, _, docNo, limits := p.OpenForm()
	holder.SetText("Dominique Roux")
	born.SetText("03/12/2008")
	docNo.SetText("Y7KQ2M")
	limits[depositWeek].SetText("100")
	limits[stakeWeek].SetText("50")
	limits[lossDay].SetText("20")

	p.TypeCardPIN("1234=")
	if prompt, msg := p.CardPINPrompt(); !strings.HasPrefix(msg, "Code refusé : 4 à 8 chiffres") || prompt != "Le joueur tape un code de 4 à 8 chiffres" {
		t.Fatalf("a weak PIN: %q, %q", prompt, msg)
	}
	p.TypeCardPIN("5830=5831=")
	if prompt, msg := p.CardPINPrompt(); msg != "Les deux codes diffèrent : le joueur tape de nouveau un code." || prompt != "Le joueur tape un code de 4 à 8 chiffres" {
		t.Fatalf("two PINs that differ: %q, %q", prompt, msg)
	}
	p.TypeCardPIN("5830=5830=")
	if prompt, _ := p.CardPINPrompt(); prompt != "✓ Code secret tapé deux fois" {
		t.Fatalf("the PIN typed twice: %q", prompt)
	}
	test.AssertImageMatches(t, "panel-open-account.png", capture(r))

	for _, c := range []struct{ born, doc, want string }{
		{"03/12/2008", "Y7KQ2M", "Ouverture refusée : le titulaire a moins de 18 ans."},
		{"30/02/2001", "Y7KQ2M", "Date de naissance impossible : 30/02/2001. Tapez-la sous la forme JJ/MM/AAAA."},
		{"17/05/1990", "LISTED1", "Ouverture refusée : cette identité est inscrite sur la liste d'exclusion."},
		{"17/05/1990", "TAKEN1", "Ouverture refusée : cette pièce d'identité a déjà un compte."},
	} {
		born.SetText(c.born)
		docNo.SetText(c.doc)
		tapButton(t, r, "Ouvrir le compte")
		if !shows(r, c.want) {
			t.Errorf("born %s, document %s: no %q on screen", c.born, c.doc, c.want)
		}
	}
	if list, _ := r.svc.ListAccounts(ctx); len(list) != 1 {
		t.Fatalf("%d accounts after the refusals", len(list))
	}
	born.SetText("02/12/2008") // 18 today
	docNo.SetText("Y7KQ2M")
	tapButton(t, r, "Ouvrir le compte")
	c := engine.NewCard(2)
	if !shows(r, c.Spaced()) || !shows(r, "Inscrivez ce numéro sur la carte du joueur") {
		t.Fatalf("the card is not shown: %q", p.Message())
	}
	a, err := r.svc.ByCard(ctx, c)
	if err != nil || a.Identity.Holder != "Dominique Roux" || a.OpenedBy != "operator" || a.Limits[lossDay] != 2_000 || a.Limits[stakeWeek] != 5_000 {
		t.Fatalf("the account opened: %+v %v", a, err)
	}
	if _, err := r.svc.OpenSession(ctx, c, "5830"); err != nil {
		t.Fatalf("the player's PIN does not open the card: %v", err)
	}
	tapButton(t, r, "Voir le compte")
	if !shows(r, "Dominique Roux") || !shows(r, "Compte ouvert : carte "+c.Spaced()) {
		t.Error("the account opened is not shown")
	}
}

// A former wallet (from before accounts) is listed as to be completed, and
// completed with the same form: its balance is untouched.
func TestPanelCompleteFormerWallet(t *testing.T) {
	r := newPanelRig(t, ui.Options{}, engine.Protection{})
	ctx := context.Background()
	err := r.store.Update(ctx, func(tx engine.Tx) error {
		return tx.PutWallet(engine.Wallet{Player: "alice", Balance: 4_200, Seq: 1})
	})
	if err != nil {
		t.Fatal(err)
	}
	p := r.login(t)
	p.Select(ui.TabAccounts)
	r.k.Wait()
	if opts := p.AccountList().Options; !slices.Equal(opts, []string{"alice · à compléter"}) {
		t.Fatalf("the list offers %q", opts)
	}
	p.ChooseAccount("alice · à compléter")
	r.k.Wait()
	if !shows(r, "Portefeuille d'avant les comptes") || !shows(r, "42,00 €") {
		t.Fatal("the former wallet is not shown")
	}
	tapButton(t, r, "Compléter ce compte")
	holder, born, _, docNo, limits := p.OpenForm()
	holder.SetText("Alice Bernard")
	born.SetText("1985-03-09")
	docNo.SetText("AB12")
	limits[depositWeek].SetText("200")
	limits[stakeWeek].SetText("100")
	p.TypeCardPIN("6021=6021=")
	tapButton(t, r, "Compléter le compte")
	a, err := r.svc.Account(ctx, "alice")
	if err != nil || !a.Complete || a.Card != engine.NewCard(1) || a.OpenedBy != "operator" {
		t.Fatalf("after completing: %+v %v (%q)", a, err, p.Message())
	}
	if bal := r.balance(t, "alice"); bal != 4_200 {
		t.Errorf("balance %s after completing", bal)
	}
}

// Limits raised and lowered, a break recorded and never shortened, a
// locked card unlocked with a new PIN the player types.
func TestPanelLimitsBreakUnlock(t *testing.T) {
	r := newPanelRig(t, ui.Options{}, engine.Protection{})
	ctx := context.Background()
	a := openAccount(t, r.svc, "B1", engine.Limits{depositWeek: 50_000, stakeWeek: 20_000}, 0)
	for range 5 {
		r.svc.OpenSession(ctx, a.Card, "9999")
	}
	p := r.login(t)
	r.showAccount(t, p, a.Card)
	if !shows(r, "bloquée après trop de codes erronés") {
		t.Fatal("the card is not shown locked")
	}

	test.Tap(objectButtons(r, "200,00 €")[0])
	typeIn(t, r, "Montant en euros, par ex. 20 ou 12,50", "300")
	tapButton(t, r, "Enregistrer")
	if got, want := p.Message(), "Limite de mises sur 7 jours : hausse à 300,00 € demandée. Elle s'appliquera le 04/12/2026 14:05:00."; got != want {
		t.Fatalf("a raise: %q, want %q", got, want)
	}
	if !shows(r, "En attente : Limite de mises sur 7 jours portée à 300,00 € le 04/12/2026 14:05:00") {
		t.Error("the raise is not shown waiting")
	}
	test.Tap(objectButtons(r, "200,00 €")[0])
	typeIn(t, r, "Montant en euros, par ex. 20 ou 12,50", "400")
	tapButton(t, r, "Enregistrer")
	if got := p.Message(); !strings.HasPrefix(got, "Une modification de cette limite est déjà en attente jusqu'au 04/12/2026 14:05:00") {
		t.Fatalf("a second change while one waits: %q", got)
	}
	test.Tap(objectButtons(r, "aucune")[0]) // deposits over 24 hours: a new limit, lower than none
	typeIn(t, r, "Montant en euros, par ex. 20 ou 12,50", "30")
	tapButton(t, r, "Enregistrer")
	if v, ok := r.account(t, a.Player).Limit(engine.LimitKey{Kind: engine.LimitDeposit, Window: engine.WindowDay}, r.clock.now); !ok || v != 3_000 {
		t.Fatalf("deposit limit over 24 hours %s %v (%q)", v, ok, p.Message())
	}

	tapButton(t, r, "Débloquer la carte")
	tapButton(t, r, "Débloquer avec un nouveau code")
	p.TypeCardPIN("5930=5930=")
	tapButton(t, r, "Débloquer avec ce code")
	if got, want := p.Message(), "Carte "+a.Card.Spaced()+" débloquée avec un nouveau code."; got != want {
		t.Fatalf("unlock: %q, want %q", got, want)
	}
	if _, err := r.svc.OpenSession(ctx, a.Card, "5930"); err != nil {
		t.Fatalf("the new PIN: %v", err)
	}
	if rec := lastRecord(t, r, a.Player); rec.Kind != engine.AccSessionStart {
		t.Fatalf("last record %+v", rec)
	}

	tapButton(t, r, "Enregistrer une pause")
	tapButton(t, r, "7 jours")
	if !shows(r, "Camille Martin ne pourra plus se connecter ni jouer pendant 7 jours. Une pause ne peut pas être raccourcie, pas même par un agent.") {
		t.Fatal("the break is not confirmed with its warning")
	}
	tapButton(t, r, "Enregistrer la pause")
	if got, want := p.Message(), "Pause enregistrée : jusqu'au 09/12/2026 14:05:00. Une session en cours est fermée."; got != want {
		t.Fatalf("break: %q, want %q", got, want)
	}
	if acct := r.account(t, a.Player); !acct.Break.Active(r.clock.now) || acct.Session.Open {
		t.Fatalf("after the break: %+v, session %+v", acct.Break, acct.Session)
	}
	tapButton(t, r, "Enregistrer une pause")
	tapButton(t, r, "24 heures")
	tapButton(t, r, "Enregistrer la pause")
	if got, want := p.Message(), "Refusé : une pause plus longue est en cours (jusqu'au 09/12/2026 14:05:00) ; une pause ne peut pas être raccourcie."; got != want {
		t.Fatalf("a shorter break: %q, want %q", got, want)
	}
	var excluded *engine.ExcludedError
	if _, err := r.svc.OpenSession(ctx, a.Card, "5930"); !errors.As(err, &excluded) {
		t.Fatalf("login during the break: %v", err)
	}
	for _, rec := range []engine.AccountKind{engine.AccPINUnlocked, engine.AccBreak} {
		log, _ := r.svc.AccountLog(ctx, a.Player)
		i := slices.IndexFunc(log, func(x engine.AccountRecord) bool { return x.Kind == rec })
		if i < 0 || log[i].Actor != "operator" {
			t.Errorf("%s not recorded by the operator", rec)
		}
	}
}

// The card number is checked as it is typed, and an unknown card said.
func TestPanelCardLookUp(t *testing.T) {
	r := newPanelRig(t, ui.Options{}, engine.Protection{})
	a := openAccount(t, r.svc, "C1", generous(), 0)
	p := r.login(t)
	p.Select(ui.TabAccounts)
	r.k.Wait()
	bad := a.Card[:9] + engine.Card(string(rune('0'+(a.Card[9]-'0'+1)%10)))
	p.LookUpCard(string(bad))
	r.k.Wait()
	if got := p.CardStatus(); got != "Ce numéro de carte est erroné (son chiffre de contrôle ne correspond pas) : vérifiez-le et tapez-le de nouveau." {
		t.Fatalf("a wrong check digit: %q", got)
	}
	p.LookUpCard(string(engine.NewCard(7)))
	r.k.Wait()
	if got := p.CardStatus(); got != "Carte inconnue : vérifiez son numéro." {
		t.Fatalf("an unknown card: %q", got)
	}
	p.LookUpCard(a.Card.Spaced())
	r.k.Wait()
	if !shows(r, "Camille Martin") || p.AccountList().Selected != a.Card.Spaced()+" · Camille Martin" {
		t.Fatalf("the account is not shown, or not chosen in the list (%q)", p.AccountList().Selected)
	}
}

// The exclusion list imported from a CSV file in the exports' folder: how
// many identities were read and added, and the accounts closed, whose
// holders can no longer log in.
func TestPanelExclusionImport(t *testing.T) {
	dir := t.TempDir()
	r := newPanelRig(t, ui.Options{ExportDir: dir}, engine.Protection{})
	ctx := context.Background()
	a := openAccount(t, r.svc, "EX1", generous(), 0)
	if _, err := r.svc.OpenSession(ctx, a.Card, cardPIN); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fichier.csv"), []byte("type,number\n# national file\nCNI,EX1\nPASSEPORT,99AA1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := r.login(t)
	p.Select(ui.TabAccounts)
	r.k.Wait()
	tapButton(t, r, "Importer la liste d'exclusion")
	typeIn(t, r, "exclusions.csv", "fichier.csv")
	tapButton(t, r, "Lire le fichier")
	if !shows(r, "2 identité(s) lue(s) dans "+filepath.Join(dir, "fichier.csv")) {
		t.Fatalf("no confirmation of the identities read (%q)", p.Message())
	}
	tapButton(t, r, "Importer")
	if got, want := p.Message(), "Liste d'exclusion : 2 identité(s) lue(s), 2 nouvelle(s) ; 1 compte(s) fermé(s)."; got != want {
		t.Fatalf("after the import: %q, want %q", got, want)
	}
	if r.account(t, a.Player).Session.Open {
		t.Error("the listed holder's session is still open")
	}
	if _, err := r.svc.OpenSession(ctx, a.Card, cardPIN); !errors.Is(err, engine.ErrListed) {
		t.Fatalf("login of a listed holder: %v", err)
	}
	if events := operatorEvents(t, r); !slices.Contains(events, "operator exclusions-import") {
		t.Errorf("the import is not in the operator log: %q", events)
	}

	tapButton(t, r, "Importer la liste d'exclusion")
	typeIn(t, r, "exclusions.csv", "absent.csv")
	tapButton(t, r, "Lire le fichier")
	if got := p.Message(); !strings.HasPrefix(got, "La liste d'exclusion n'a pas pu être lue : ") {
		t.Fatalf("a file that is not there: %q", got)
	}
}

// An English kiosk's Accounts tab speaks English: the account, its
// limits and log, and the opening form.
func TestEnglishPanelAccounts(t *testing.T) {
	r, a := heldPrize(t, ui.Options{Language: "en"})
	p := r.login(t)
	p.Select(ui.TabAccounts)
	r.k.Wait()
	p.LookUpCard(string(a.Card))
	r.k.Wait()
	texts := assertEnglish(t, r)
	for _, want := range []string{"Accounts", "Prizes held for an attendant", "identity not checked", "Limits", "Deposits", "Account log (newest first)"} {
		if !slices.Contains(texts, want) {
			t.Errorf("no %q on the tab; it shows %q", want, texts)
		}
	}
	tapButton(t, r, "Open an account")
	assertEnglish(t, r)
	if !shows(r, "The player types a PIN of 4 to 8 digits") {
		t.Error("the form's keypad does not speak English")
	}
}

// A credit at the Cash tab is a deposit: refused by a deposit limit, it
// says which, how much is used, and from when it fits.
func TestPanelCreditOverDepositLimit(t *testing.T) {
	r := newPanelRig(t, ui.Options{}, engine.Protection{})
	a := openAccount(t, r.svc, "D1", engine.Limits{depositWeek: 5_000, stakeWeek: 5_000}, 0)
	p := r.login(t)
	p.Select(ui.TabFunds)
	p.FundsPlayer().SetText(a.Player)
	p.LoadFunds()
	r.k.Wait()
	credit := func(amount string) string {
		p.AmountEntry().SetText(amount)
		test.Tap(p.CreditButton())
		tapButton(t, r, "Confirmer")
		return p.FundsResult()
	}
	if got, want := credit("60"), "Limite de dépôts sur 7 jours : un dépôt de 60,00 € dépasse la limite de 50,00 €."; got != want {
		t.Fatalf("a credit over the limit: %q, want %q", got, want)
	}
	credit("30")
	if got, want := credit("30"), "Limite de dépôts sur 7 jours atteinte : 30,00 € déposés sur 50,00 €. Un dépôt de 30,00 € sera possible à partir du "; !strings.HasPrefix(got, want) {
		t.Fatalf("a credit past the room left: %q, want %q…", got, want)
	}
	if bal := r.balance(t, a.Player); bal != 3_000 {
		t.Fatalf("balance %s", bal)
	}
}
