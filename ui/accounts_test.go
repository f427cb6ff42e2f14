package ui_test

import (
	"context"
	"image"
	"image/draw"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"starfortune/engine"
	"starfortune/present"
	"starfortune/ui"
)

// euro writes a sum as the French window does.
func euro(c engine.Cents) string { return present.French.Money(c) }

// The window of a kiosk playing real money from player accounts (SPEC
// §10): the login, the session strip, the reality check, the limits, the
// hand-pay lock, the player's account.

const cardPIN = "4821"

var (
	depositWeek = engine.LimitKey{Kind: engine.LimitDeposit, Window: engine.WindowWeek}
	stakeWeek   = engine.LimitKey{Kind: engine.LimitStake, Window: engine.WindowWeek}
	lossDay     = engine.LimitKey{Kind: engine.LimitLoss, Window: engine.WindowDay}
)

// generous are the mandatory limits, high enough for tests that do not
// mean to reach them.
func generous() engine.Limits {
	return engine.Limits{depositWeek: 1_000_000, stakeWeek: 1_000_000}
}

// openAccount opens an account for the holder of identity document doc,
// with limits, and credits it funds.
func openAccount(t testing.TB, svc *engine.Service, doc string, limits engine.Limits, funds engine.Cents) engine.Account {
	t.Helper()
	ctx := context.Background()
	a, err := svc.Open(ctx, "operator", engine.OpenRequest{
		Identity: engine.Identity{Holder: "Camille Martin", Born: time.Date(1990, 5, 17, 0, 0, 0, 0, time.UTC), DocType: "CNI", DocNumber: doc},
		Limits:   limits, PIN: cardPIN})
	if err != nil {
		t.Fatal(err)
	}
	if funds > 0 {
		if _, err := svc.Credit(ctx, a.Player, funds, "test"); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

// playing opens an account with generous limits and funds, and its
// session, for tests that sell through the service.
func playing(t testing.TB, svc *engine.Service, doc string, funds engine.Cents) string {
	t.Helper()
	a := openAccount(t, svc, doc, generous(), funds)
	if _, err := svc.OpenSession(context.Background(), a.Card, cardPIN); err != nil {
		t.Fatal(err)
	}
	return a.Player
}

// newAccountsRig is a kiosk playing real money, at 1280×800, on a game
// protecting players with p (zero: the defaults): on its login screen.
func newAccountsRig(t *testing.T, o ui.Options, p engine.Protection) rig {
	t.Helper()
	r := newGame(t, p)
	r.k = ui.NewOpening(test.NewTempApp(t), o)
	t.Cleanup(r.k.Stop)
	r.k.Window().Resize(fyne.NewSize(1280, 800))
	r.k.Terminal().ServeAccounts(r.svc)
	r.k.Wait()
	return r
}

// logIn types the card and the PIN on the login screen's keypad.
func (r rig) logIn(t *testing.T, c engine.Card, pin string) {
	t.Helper()
	if got := r.k.Front(); got != "login" {
		t.Fatalf("front %q, not the login screen", got)
	}
	r.k.Keypad(string(c) + "=" + pin + "=")
}

// loggedIn logs a in and checks that the game is back.
func (r rig) loggedIn(t *testing.T, a engine.Account) {
	t.Helper()
	r.logIn(t, a.Card, cardPIN)
	if got := r.k.Front(); got != "" {
		_, _, msg := r.k.LoginText()
		t.Fatalf("after login, front %q (%s)", got, msg)
	}
}

func (r rig) account(t *testing.T, player string) engine.Account {
	t.Helper()
	a, err := r.svc.Account(context.Background(), player)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (r rig) sales(t *testing.T, player string) []engine.Sale {
	t.Helper()
	h, _, err := r.svc.History(context.Background(), player, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func (r rig) balance(t *testing.T, player string) engine.Cents {
	t.Helper()
	b, err := r.svc.Balance(context.Background(), player)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// capture is the window as the GL driver paints it, laid out again for
// the sizes its texts took (the test driver lays out on a resize only).
func capture(r rig) image.Image {
	r.k.Window().Content().Refresh()
	return r.k.Window().Canvas().Capture()
}

// tapBig taps the visible big button labelled text.
func tapBig(t *testing.T, r rig, text string) {
	t.Helper()
	for _, o := range objects(r.k.Window().Canvas()) {
		if b, ok := o.(interface {
			fyne.Tappable
			Label() string
			Visible() bool
		}); ok && b.Label() == text && b.Visible() {
			test.Tap(b)
			r.k.Wait()
			return
		}
	}
	t.Fatalf("no big button %q on screen", text)
}

func TestGoldenLoginScreen(t *testing.T) {
	r := newAccountsRig(t, ui.Options{}, engine.Protection{})
	r.k.Keypad("0000")
	if prompt, shown, _ := r.k.LoginText(); prompt != "Tapez votre numéro de carte" || shown != "000 0–– ––– –" {
		t.Fatalf("card step: %q, %q", prompt, shown)
	}
	test.AssertImageMatches(t, "accounts-login.png", capture(r))
	r.key(fyne.KeyReturn) // JOUER's key: nothing to play, the card is not complete
	if _, _, msg := r.k.LoginText(); msg != "Un numéro de carte a 10 chiffres." {
		t.Fatalf("a short card: %q", msg)
	}
	if h, _, _ := r.svc.History(context.Background(), engine.DemoPlayer, 0, 1); len(h) != 0 {
		t.Fatal("a unit was sold behind the login screen")
	}
}

// The keyboard logs in as the keypad does: digits, Backspace, Enter.
func TestLoginWithTheKeyboard(t *testing.T) {
	r := newAccountsRig(t, ui.Options{}, engine.Protection{})
	a := openAccount(t, r.svc, "K1", generous(), 2_000)
	for _, c := range string(a.Card) + "9" {
		r.key(fyne.KeyName(string(c))) // an eleventh digit is not taken
	}
	r.key(fyne.KeyBackspace)
	r.key(fyne.KeyBackspace)
	r.key(fyne.KeyName(a.Card[8:9]))
	r.key(fyne.KeyName(a.Card[9:]))
	r.key(fyne.KeyEnter)
	if prompt, _, _ := r.k.LoginText(); prompt != "Tapez votre code secret" {
		t.Fatalf("after the card: %q", prompt)
	}
	for _, c := range cardPIN {
		r.key(fyne.KeyName(string(c)))
	}
	if _, shown, _ := r.k.LoginText(); shown != "● ● ● ● " {
		t.Fatalf("the PIN shows %q", shown)
	}
	r.key(fyne.KeyReturn)
	if r.k.Front() != "" || !r.k.Strip().Visible() || r.k.Controls().Funds() != "20,00 €" {
		t.Fatalf("after the PIN: front %q, strip shown %v, funds %q", r.k.Front(), r.k.Strip().Visible(), r.k.Controls().Funds())
	}
	if !r.account(t, a.Player).Session.Open {
		t.Fatal("no session open in the engine")
	}
	r.tapPlay()
	if h, _, _ := r.svc.History(context.Background(), a.Player, 0, 10); len(h) != 1 {
		t.Fatalf("JOUER sold %d units on the account", len(h))
	}
}

// Each refusal of a login says why in words, and where the player goes on.
func TestLoginRefusals(t *testing.T) {
	r := newAccountsRig(t, ui.Options{}, engine.Protection{})
	ctx := context.Background()
	a := openAccount(t, r.svc, "R1", generous(), 0)
	bad := a.Card[:9] + engine.Card(string(rune('0'+(a.Card[9]-'0'+1)%10)))
	r.k.Keypad(string(bad) + "=")
	if prompt, _, msg := r.k.LoginText(); prompt != "Tapez votre numéro de carte" ||
		msg != "Ce numéro de carte est erroné (son chiffre de contrôle ne correspond pas) : vérifiez-le et tapez-le de nouveau." {
		t.Fatalf("wrong check digit: %q, %q", prompt, msg)
	}
	r.k.Keypad("<<<<<<<<<<")
	r.logIn(t, engine.NewCard(99), cardPIN)
	if _, _, msg := r.k.LoginText(); msg != "Carte inconnue : vérifiez son numéro." {
		t.Fatalf("unknown card: %q", msg)
	}
	r.logIn(t, a.Card, "12")
	if prompt, _, msg := r.k.LoginText(); prompt != "Tapez votre code secret" || msg != "Un code secret a de 4 à 8 chiffres." {
		t.Fatalf("a short PIN: %q, %q", prompt, msg)
	}
	r.k.Keypad("<<")
	for left := 4; left > 0; left-- {
		r.k.Keypad("9999=")
		if want := "Code secret erroné. Essais restants : " + string(rune('0'+left)); func() string { _, _, m := r.k.LoginText(); return m }() != want {
			_, _, msg := r.k.LoginText()
			t.Fatalf("wrong PIN: %q, want %q", msg, want)
		}
	}
	r.k.Keypad("9999=")
	if prompt, _, msg := r.k.LoginText(); prompt != "Tapez votre numéro de carte" || msg != "Carte bloquée après trop de codes erronés : adressez-vous à un agent." {
		t.Fatalf("fifth wrong PIN: %q, %q", prompt, msg)
	}

	b := openAccount(t, r.svc, "R2", generous(), 0)
	if _, err := r.svc.TakeBreak(ctx, "operator", b.Player, engine.Break7d); err != nil {
		t.Fatal(err)
	}
	r.logIn(t, b.Card, cardPIN)
	if _, _, msg := r.k.LoginText(); msg != "Pause en cours jusqu'au 09/12/2026 14:05:00 : la connexion et le jeu vous sont refusés jusque-là." {
		t.Fatalf("on a break: %q", msg)
	}
	c := openAccount(t, r.svc, "R3", generous(), 0)
	if _, err := r.svc.TakeBreak(ctx, "operator", c.Player, engine.BreakIndefinite); err != nil {
		t.Fatal(err)
	}
	r.logIn(t, c.Card, cardPIN)
	if _, _, msg := r.k.LoginText(); msg != "Pause en cours, de durée indéfinie : la connexion et le jeu vous sont refusés." {
		t.Fatalf("on an indefinite break: %q", msg)
	}
	d := openAccount(t, r.svc, "R4", generous(), 0)
	if _, _, err := r.svc.ImportExclusions(ctx, "operator", []string{d.Identity.Key()}); err != nil {
		t.Fatal(err)
	}
	r.logIn(t, d.Card, cardPIN)
	if _, _, msg := r.k.LoginText(); msg != "Ce compte est interdit de jeu (fichier des exclusions) : adressez-vous à un agent." {
		t.Fatalf("listed: %q", msg)
	}
}

func TestLoginRefusalInEnglish(t *testing.T) {
	r := newAccountsRig(t, ui.Options{Language: "en"}, engine.Protection{})
	a := openAccount(t, r.svc, "E1", generous(), 0)
	r.logIn(t, a.Card, "9999")
	if prompt, _, msg := r.k.LoginText(); prompt != "Type your PIN" || msg != "Wrong PIN. Attempts left: 4" {
		t.Fatalf("%q, %q", prompt, msg)
	}
}

// The strip shows the session's time, stakes, wins and net, the prize
// once its unit is revealed; under the controls in portrait, at the foot
// of the side column in landscape.
func TestGoldenSessionStrip(t *testing.T) {
	for _, c := range []struct {
		name string
		size fyne.Size
	}{{"accounts-strip-portrait.png", fyne.NewSize(1080, 1920)}, {"accounts-strip-landscape.png", fyne.NewSize(1280, 800)}} {
		t.Run(c.name, func(t *testing.T) {
			r := newAccountsRig(t, ui.Options{}, engine.Protection{})
			r.k.Window().Resize(c.size)
			a := openAccount(t, r.svc, "S1", generous(), 5_000)
			r.loggedIn(t, a)
			if got := r.k.Strip().Figures(); got != [4]string{"0 s", "0,00 €", "0,00 €", "0,00 €"} {
				t.Fatalf("at login: %q", got)
			}
			r.clock.run(12 * time.Minute)
			var won engine.Cents
			for range 3 {
				r.tapPlay()
				if got := r.k.Strip().Figures(); got[2] != euro(won) {
					t.Fatalf("the strip shows %s won before the reveal (%q)", got[2], got)
				}
				r.playOut(t, 1)
				h, _, _ := r.svc.History(context.Background(), a.Player, 0, 1)
				won += h[0].Prize()
			}
			want := [4]string{"12 min", "3,00 €", euro(won), euro(won - 300)}
			if got := r.k.Strip().Figures(); got != want {
				t.Fatalf("after 3 units: %q, want %q", got, want)
			}
			test.AssertImageMatches(t, c.name, capture(r))
		})
	}
}

// A JOUER refused by a limit sells nothing and moves nothing on screen
// but the message, which says which limit, how much of it is used, and
// from when the stake fits again.
func TestGoldenLimitRefusal(t *testing.T) {
	r := newAccountsRig(t, ui.Options{}, engine.Protection{})
	a := openAccount(t, r.svc, "L1", engine.Limits{depositWeek: 10_000, stakeWeek: 300}, 5_000)
	r.loggedIn(t, a)
	for range 3 {
		r.tapPlay()
		r.playOut(t, 0)
		r.clock.run(time.Minute)
	}
	bal := r.balance(t, a.Player)
	figures, funds := r.k.Strip().Figures(), r.k.Controls().Funds()
	before := capture(r)
	r.tapPlay()
	want := "Limite de mises sur 7 jours atteinte : 3,00 € utilisés sur 3,00 €. Une mise de 1,00 € sera de nouveau possible à partir du 09/12/2026 14:05:01."
	if got := r.k.Controls().Message(); got != want {
		t.Fatalf("message %q, want %q", got, want)
	}
	after := capture(r)
	test.AssertImageMatches(t, "accounts-limit.png", after)
	if r.balance(t, a.Player) != bal || r.k.Strip().Figures() != figures || r.k.Controls().Funds() != funds || r.k.Board().Offering() {
		t.Fatalf("the refused sale moved something: balance %s, strip %q, funds %q", r.balance(t, a.Player), r.k.Strip().Figures(), r.k.Controls().Funds())
	}
	if h, _, _ := r.svc.History(context.Background(), a.Player, 0, 10); len(h) != 3 {
		t.Fatalf("%d units sold", len(h))
	}
	for _, o := range []fyne.CanvasObject{r.k.Board(), r.k.Strip()} {
		if !sameRegion(before, after, o) {
			t.Errorf("the refused sale changed the %T on screen", o)
		}
	}
	// A stake the limit itself is below: never.
	test.Tap(r.k.Controls().StakeButtons()[2])
	if err := setLimit(r, a.Player, stakeWeek, 100); err != nil {
		t.Fatal(err)
	}
	r.tapPlay()
	if got, want := r.k.Controls().Message(), "Limite de mises sur 7 jours : le montant de 2,00 € dépasse la limite de 1,00 €."; got != want {
		t.Fatalf("message %q, want %q", got, want)
	}
}

func setLimit(r rig, player string, k engine.LimitKey, v engine.Cents) error {
	_, err := r.svc.SetLimit(context.Background(), "operator", player, k, v)
	return err
}

// sameRegion reports whether o's place on screen is the same in a and b.
func sameRegion(a, b image.Image, o fyne.CanvasObject) bool {
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(o)
	rect := image.Rect(int(pos.X), int(pos.Y), int(pos.X+o.Size().Width), int(pos.Y+o.Size().Height))
	crop := func(img image.Image) *image.RGBA {
		out := image.NewRGBA(image.Rect(0, 0, rect.Dx(), rect.Dy()))
		draw.Draw(out, out.Bounds(), img, rect.Min, draw.Src)
		return out
	}
	x, y := crop(a), crop(b)
	return string(x.Pix) == string(y.Pix)
}

// The reality check pauses play after the configured time: JOUER sells
// nothing and shows the session's figures, and play goes on once the
// player read them.
func TestGoldenRealityCheck(t *testing.T) {
	r := newAccountsRig(t, ui.Options{}, engine.Protection{})
	a := openAccount(t, r.svc, "C1", generous(), 5_000)
	r.loggedIn(t, a)
	r.tapPlay()
	r.playOut(t, 2)
	bal := r.balance(t, a.Player)
	r.clock.run(61 * time.Minute)
	r.tapPlay()
	if r.k.Front() != "reality-check" {
		t.Fatalf("front %q after an hour of play", r.k.Front())
	}
	if r.balance(t, a.Player) != bal || len(r.sales(t, a.Player)) != 1 {
		t.Fatal("the refused sale sold")
	}
	test.AssertImageMatches(t, "accounts-reality-check.png", capture(r))
	r.key(fyne.KeyReturn) // JOUER's key does not read the reminder
	if r.k.Front() != "reality-check" {
		t.Fatal("Enter dismissed the reality check")
	}
	tapBig(t, r, "J'AI LU : CONTINUER")
	if r.k.Front() != "" {
		t.Fatalf("front %q once read", r.k.Front())
	}
	r.tapPlay()
	if len(r.sales(t, a.Player)) != 2 {
		t.Fatalf("JOUER sold nothing after the reality check: %q", r.k.Controls().Message())
	}
	log, _ := r.svc.AccountLog(context.Background(), a.Player)
	if log[len(log)-1].Kind != engine.AccRealityCheck && log[len(log)-2].Kind != engine.AccRealityCheck {
		t.Error("the reality check is not in the account log")
	}
}

// A prize at the hand-pay threshold locks the kiosk on "Gain exceptionnel"
// once its unit is revealed, and at the next login, until an attendant
// paid it.
func TestGoldenHandPayLock(t *testing.T) {
	const threshold = 1_000
	i := firstPrizeOf(t, threshold)
	r := newAccountsRig(t, ui.Options{}, engine.Protection{RealityCheck: time.Hour, PayoutThreshold: threshold, HandpayThreshold: threshold,
		IdleLogout: 3 * time.Minute, CoolingOff: 48 * time.Hour, PINTries: 5})
	ctx := context.Background()
	a := openAccount(t, r.svc, "H1", generous(), 100_000)
	r.loggedIn(t, a)
	if i > 0 {
		if _, err := r.svc.Sell(ctx, engine.SellRequest{Player: a.Player, Stake: 100, Count: i, Picks: func(int) [2]int { return [2]int{0, 0} }, Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	r.tapPlay()
	if r.k.Front() != "" {
		t.Fatal("the lock came before the reveal")
	}
	r.playOut(t, 1)
	if r.k.Front() != "hand-pay" {
		t.Fatalf("front %q after a prize to be paid by hand", r.k.Front())
	}
	test.AssertImageMatches(t, "accounts-handpay.png", capture(r))

	test.Tap(objectButton(t, r, "SE DÉCONNECTER"))
	r.k.Wait()
	if r.k.Front() != "login" {
		t.Fatalf("front %q after logging out of the lock", r.k.Front())
	}
	r.logIn(t, a.Card, cardPIN)
	if r.k.Front() != "hand-pay" {
		t.Fatalf("front %q at the next login", r.k.Front())
	}
	held := r.account(t, a.Player).Held[0]
	if _, err := r.svc.CheckIdentity(ctx, "operator", a.Player, held.Ticket, "CNI H1"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.PayHeld(ctx, "operator", a.Player, held.Ticket, "virement", "VIR-1"); err != nil {
		t.Fatal(err)
	}
	r.k.Tick()
	r.k.Wait()
	if r.k.Front() != "" {
		t.Fatalf("front %q once paid", r.k.Front())
	}
	if got, want := r.k.Controls().Funds(), euro(r.balance(t, a.Player)); got != want {
		t.Errorf("funds %q after the payout, want %q", got, want)
	}
}

// objectButton is the visible button labelled text.
func objectButton(t *testing.T, r rig, text string) *widget.Button {
	t.Helper()
	for _, o := range objects(r.k.Window().Canvas()) {
		if b, ok := o.(*widget.Button); ok && b.Text == text && b.Visible() {
			return b
		}
	}
	t.Fatalf("no button %q on screen", text)
	return nil
}

// The player's account: the limits in force and pending with their
// dates; a limit lowered at once, raised after the cooling-off; a break,
// confirmed, that logs out and refuses the next login.
func TestGoldenAccountScreen(t *testing.T) {
	r := newAccountsRig(t, ui.Options{}, engine.Protection{})
	a := openAccount(t, r.svc, "A1", engine.Limits{depositWeek: 50_000, stakeWeek: 20_000, lossDay: 5_000}, 12_000)
	if err := setLimit(r, a.Player, depositWeek, 80_000); err != nil { // pending until 04/12
		t.Fatal(err)
	}
	r.loggedIn(t, a)
	test.Tap(r.k.Strip().AccountButton())
	r.k.Wait()
	if r.k.Front() != "account" {
		t.Fatalf("front %q", r.k.Front())
	}
	test.AssertImageMatches(t, "accounts-account.png", capture(r))

	rows := objectButtons(r, "Modifier")
	test.Tap(rows[1]) // stakes over 7 days
	r.k.Wait()
	r.k.Keypad("150=")
	if !shows(r, "Limite de mises sur 7 jours : 150,00 €, en vigueur dès maintenant.") {
		t.Fatal("no word of the lower limit")
	}
	if v, _ := r.account(t, a.Player).Limit(stakeWeek, r.clock.now); v != 15_000 {
		t.Fatalf("stake limit %s after lowering it", v)
	}
	test.Tap(objectButtons(r, "Modifier")[1])
	r.k.Wait()
	r.key(fyne.Key3)
	r.key(fyne.Key0)
	r.key(fyne.Key0)
	r.key(fyne.KeyReturn)
	if !shows(r, "Limite de mises sur 7 jours : hausse à 300,00 € demandée. Elle s'appliquera le 04/12/2026 14:05:00.") {
		t.Fatal("no word of the raise asked")
	}
	if v, _ := r.account(t, a.Player).Limit(stakeWeek, r.clock.now); v != 15_000 {
		t.Fatalf("stake limit %s right after a raise was asked", v)
	}
	if !shows(r, "↳ 300,00 € à partir du 04/12/2026 14:05:00") {
		t.Fatal("the raise is not shown pending")
	}
	test.Tap(objectButtons(r, "Modifier")[1])
	r.k.Wait()
	r.k.Keypad("400=")
	if !shows(r, "Une modification de cette limite est déjà en attente jusqu'au 04/12/2026 14:05:00") {
		t.Fatal("a second change while one waits is not refused in words")
	}
	tapButton(t, r, "Annuler")
	test.Tap(objectButtons(r, "Modifier")[6]) // losses over 24 hours: optional, removed after the cooling-off
	r.k.Wait()
	tapButton(t, r, "Supprimer cette limite")
	if !shows(r, "Limite de pertes sur 24 heures : suppression demandée. Elle s'appliquera le 04/12/2026 14:05:00.") ||
		!shows(r, "↳ supprimée le 04/12/2026 14:05:00") {
		t.Fatal("no word of the removal asked, or not shown pending")
	}
	if v, ok := r.account(t, a.Player).Limit(lossDay, r.clock.now); !ok || v != 5_000 {
		t.Fatalf("loss limit %s (%v) right after its removal was asked", v, ok)
	}

	tapButton(t, r, "7 jours")
	if !shows(r, "Une pause ne peut pas être raccourcie") {
		t.Fatal("the break is not confirmed with its warning")
	}
	tapButton(t, r, "Annuler")
	if r.account(t, a.Player).Break.Active(r.clock.now) {
		t.Fatal("a cancelled break was taken")
	}
	tapButton(t, r, "24 heures")
	tapButton(t, r, "Faire la pause")
	if r.k.Front() != "login" {
		t.Fatalf("front %q after a break", r.k.Front())
	}
	if _, _, msg := r.k.LoginText(); msg != "Votre pause est enregistrée jusqu'au 03/12/2026 14:05:00. Prenez soin de vous." {
		t.Fatalf("login screen after the break: %q", msg)
	}
	if acct := r.account(t, a.Player); !acct.Break.Active(r.clock.now) || acct.Session.Open {
		t.Fatalf("after the break: %+v, session %+v", acct.Break, acct.Session)
	}
	r.logIn(t, a.Card, cardPIN)
	if _, _, msg := r.k.LoginText(); !strings.HasPrefix(msg, "Pause en cours jusqu'au 03/12/2026") {
		t.Fatalf("login during the break: %q", msg)
	}
}

// objectButtons are the visible buttons labelled text, in screen order.
func objectButtons(r rig, text string) []*widget.Button {
	var out []*widget.Button
	for _, o := range objects(r.k.Window().Canvas()) {
		if b, ok := o.(*widget.Button); ok && b.Text == text && b.Visible() {
			out = append(out, b)
		}
	}
	return out
}

// The logout button and the idle logout close the session in the engine
// and leave nothing of the player on screen.
func TestLogout(t *testing.T) {
	r := newAccountsRig(t, ui.Options{}, engine.Protection{})
	a := openAccount(t, r.svc, "O1", generous(), 5_000)
	r.loggedIn(t, a)
	r.tapPlay()
	r.playOut(t, 0)
	test.Tap(r.k.Strip().LogoutButton())
	r.k.Wait()
	if _, _, msg := r.k.LoginText(); r.k.Front() != "login" || msg != "Au revoir : votre session est fermée." {
		t.Fatalf("after logout: front %q, %q", r.k.Front(), msg)
	}
	if r.account(t, a.Player).Session.Open {
		t.Fatal("the session is still open in the engine")
	}
	if r.k.Strip().Visible() || r.k.Controls().Funds() != "" {
		t.Fatalf("the player's figures stay: strip %v, funds %q", r.k.Strip().Visible(), r.k.Controls().Funds())
	}

	r.loggedIn(t, a)
	r.k.IdleLogout()
	r.k.Wait()
	if _, _, msg := r.k.LoginText(); r.k.Front() != "login" || msg != "Votre session a été fermée après 3 min sans activité." {
		t.Fatalf("after the idle logout: front %q, %q", r.k.Front(), msg)
	}
	log, _ := r.svc.AccountLog(context.Background(), a.Player)
	if last := log[len(log)-1]; last.Kind != engine.AccSessionEnd || last.Actor != "kiosk" {
		t.Fatalf("the idle logout is recorded as %+v", last)
	}
}

// An account without funds: JOUER says so, and nothing is sold.
func TestInsufficientFunds(t *testing.T) {
	for _, c := range []struct{ lang, want string }{{"fr", "Disponibilités insuffisantes"}, {"en", "Insufficient funds"}} {
		t.Run(c.lang, func(t *testing.T) {
			r := newAccountsRig(t, ui.Options{Language: c.lang}, engine.Protection{})
			a := openAccount(t, r.svc, "F1", generous(), 0)
			r.loggedIn(t, a)
			r.tapPlay()
			if got := r.k.Controls().Message(); got != c.want {
				t.Errorf("message %q, want %q", got, c.want)
			}
			if r.k.Board().Offering() {
				t.Error("pucks offered without a sale")
			}
		})
	}
}

// firstPrizeOf is the index of the first unit of the 1 € block that wins at
// least min.
func firstPrizeOf(t *testing.T, min engine.Cents) int {
	t.Helper()
	for j := range 500 {
		if u, _ := block(100).Unit(j); u.Prize(100) >= min {
			return j
		}
	}
	t.Fatalf("no unit of %s or more in the first 500", min)
	return -1
}
