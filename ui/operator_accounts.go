package ui

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"starfortune/engine"
)

// AccountDesk is what the Accounts tab needs of the engine: the player
// accounts as attendants handle them (SPEC §10), every change made under
// the attendant's name. *engine.Service satisfies it; the tab shows on a
// kiosk playing real money from accounts (Terminal.ServeAccounts).
type AccountDesk interface {
	Accounts
	// Open opens an account and issues its card: *engine.IdentityError
	// (under 18, listed, document taken, impossible date),
	// engine.ErrLimitRequired, engine.ErrBadLimit, engine.ErrPlayerPINRule.
	Open(ctx context.Context, actor string, req engine.OpenRequest) (engine.Account, error)
	// Complete makes a wallet from before accounts an account, as Open does.
	Complete(ctx context.Context, actor, player string, req engine.OpenRequest) (engine.Account, error)
	ByCard(ctx context.Context, c engine.Card) (engine.Account, error)
	// ListAccounts lists the accounts and the former wallets (not complete).
	ListAccounts(ctx context.Context) ([]engine.Account, error)
	// UnlockCard ends a card's PIN lockout, setting newPIN unless empty.
	UnlockCard(ctx context.Context, actor, player, newPIN string) (engine.Account, error)
	ImportExclusions(ctx context.Context, actor string, keys []string) (added int, closed []string, err error)
	// CheckIdentity records the document seen for a held prize.
	CheckIdentity(ctx context.Context, actor, player string, t engine.Ticket, document string) (engine.Account, error)
	// PayHeld pays a held prize whose identity was checked.
	PayHeld(ctx context.Context, actor, player string, t engine.Ticket, method, reference string) (engine.LedgerEntry, error)
	// AccountLog is the account's records, oldest first.
	AccountLog(ctx context.Context, player string) ([]engine.AccountRecord, error)
	Register(ctx context.Context) ([]engine.RegisterEntry, error)
	// FleetAccount reads, at a fleet's kiosk, card c's account as the
	// central holds it, the player present typing its PIN: *engine.PlayerPINError,
	// engine.ErrCardLocked, engine.ErrUnknownCard, engine.ErrCentralUnavailable.
	FleetAccount(ctx context.Context, actor string, c engine.Card, pin string) (engine.FleetAccount, error)
}

var _ AccountDesk = (*engine.Service)(nil)

// accountsView is the Accounts tab: an account looked up by its card or
// chosen from the list, shown whole (holder, funds, prizes held, limits,
// break, card, session, its log and its movements) with what an attendant
// does to it; an account opened or a former wallet completed; the
// exclusion list imported; the register exported.
type accountsView struct {
	p      *OperatorPanel
	d      AccountDesk
	fleet  bool // a fleet's kiosk: accounts are the central's, read with the player's PIN
	card   *widget.Entry
	status *canvas.Text // the card number's check, as typed
	list   *widget.Select
	// players are the wallets of list's options, in order.
	players []string
	top     *fyne.Container // the look-up and the tab's actions, hidden under a form
	body    *fyne.Container // the account shown, a form, or the hint
	hint    fyne.CanvasObject
	shown   *shownAccount // the account last shown, nil: none
	onPage  string        // the player whose account is on screen ("": a form, the hint)
	form    *openForm     // the form on screen, nil: none
	pin     *pinTwice     // the card's PIN typed on screen, nil: none
	content fyne.CanvasObject
}

// shownAccount is the account on screen, as read.
type shownAccount struct {
	acct    engine.Account
	balance engine.Cents
	log     []engine.AccountRecord
	ledger  []engine.LedgerEntry
	// fleet is, at a fleet's kiosk, the account as the central holds it
	// (its identity, limits and break are acct's too; acct's funds,
	// prizes held and session are this kiosk's); nil at a lone kiosk.
	fleet *engine.FleetAccount
}

// How many of the account's records and movements are shown, newest first.
const (
	accountLogLines    = 60
	accountLedgerLines = 30
)

func newAccountsView(p *OperatorPanel, d AccountDesk) *accountsView {
	v := &accountsView{p: p, d: d, fleet: p.op.InFleet()}
	v.content = v.build()
	return v
}

func (v *accountsView) build() fyne.CanvasObject {
	v.card = widget.NewEntry()
	v.card.SetPlaceHolder(lang.L("Card number (10 digits)"))
	v.card.OnChanged = func(string) { v.checkCard() }
	v.card.OnSubmitted = func(string) { v.lookUp() }
	show := widget.NewButtonWithIcon(lang.L("Show"), theme.SearchIcon(), v.lookUp)
	v.status = statusText()
	v.list = widget.NewSelect(nil, func(string) {
		i := v.list.SelectedIndex()
		switch {
		case i < 0 || v.shown != nil && v.shown.acct.Player == v.players[i]:
		case v.fleet:
			v.askFleetPIN(engine.Card(v.players[i]))
		default:
			v.show(v.players[i], true)
		}
	})
	v.list.PlaceHolder = lang.L("or choose an account")
	open := widget.NewButtonWithIcon(lang.L("Open an account"), theme.ContentAddIcon(), func() { v.openForm("") })
	open.Importance = widget.HighImportance
	exclusions := widget.NewButtonWithIcon(lang.L("Import the exclusion list"), theme.FolderOpenIcon(), v.askImport)
	register := widget.NewButtonWithIcon(lang.L("Export the register"), theme.DocumentSaveIcon(), v.exportRegister)
	hint := widget.NewLabel(lang.L("Type a card number, or choose an account in the list. Former wallets are listed as to be completed."))
	acts := container.NewHBox(open, exclusions, register)
	if v.fleet {
		hint.SetText(lang.L("Type a card number, or choose an account this kiosk has seen: the player types the card's PIN, and the account is read from the central, with its limits counted over every kiosk of the network. Accounts are opened, and limits, breaks and the exclusion list managed, at the central (central players)."))
		acts = container.NewHBox(register)
	}
	hint.Wrapping = fyne.TextWrapWord
	v.hint = hint
	v.body = container.NewStack(v.hint)
	v.top = container.NewVBox(
		container.NewBorder(nil, nil, heading(lang.L("Player accounts")), acts),
		container.NewBorder(nil, nil, dimLabel(lang.L("Card")), container.NewHBox(show, container.New(minWidth(380), v.list)), v.card),
		v.status,
	)
	v.checkCard()
	return container.NewBorder(v.top, nil, nil, nil, v.body)
}

// checkCard checks the card number as it is typed: a character that is
// not a digit at once, the check digit once the ten digits are there (a
// length is said when the card is looked up).
func (v *accountsView) checkCard() {
	var bad *engine.CardError
	_, err := engine.ParseCard(v.card.Text)
	if strings.TrimSpace(v.card.Text) != "" && errors.As(err, &bad) && bad.Problem != engine.CardLength {
		v.say(loginRefusal(err))
		return
	}
	v.say("")
}

// say writes why the card typed is refused, under it ("": nothing, and
// the line goes).
func (v *accountsView) say(msg string) {
	setStatus(v.status, msg, colRed)
	if msg == "" {
		v.status.Hide()
	} else {
		v.status.Show()
	}
}

// lookUp shows the account of the card typed.
func (v *accountsView) lookUp() {
	c, err := engine.ParseCard(v.card.Text)
	if err != nil {
		v.say(loginRefusal(err))
		return
	}
	if v.fleet {
		v.askFleetPIN(c)
		return
	}
	v.p.call(func(ctx context.Context) func() {
		a, err := v.d.ByCard(ctx, c)
		return func() {
			if err != nil {
				v.say(deskError(err))
				return
			}
			v.show(a.Player, true)
		}
	})
}

// load reads the list of accounts again, and the account on screen.
func (v *accountsView) load() {
	v.loadList()
	if v.onPage != "" {
		v.show(v.onPage, false)
	}
}

// loadList reads the list of accounts again.
func (v *accountsView) loadList() {
	v.p.call(func(ctx context.Context) func() {
		list, err := v.d.ListAccounts(ctx)
		return func() {
			if err != nil {
				v.p.fail(err)
				return
			}
			v.setList(list)
		}
	})
}

// setList offers the accounts: card and holder, or a former wallet's name
// to be completed.
func (v *accountsView) setList(list []engine.Account) {
	v.players = v.players[:0]
	var options []string
	for _, a := range list {
		v.players = append(v.players, a.Player)
		options = append(options, accountName(a))
	}
	v.list.SetOptions(options)
	if v.shown != nil {
		if i := slices.Index(v.players, v.shown.acct.Player); i >= 0 {
			v.list.SetSelectedIndex(i) // the account shown: no reload
		}
	}
}

// accountName names an account in the list.
func accountName(a engine.Account) string {
	if !a.Complete {
		return lang.L("{{.Wallet}} · to be completed", map[string]any{"Wallet": a.Player})
	}
	return a.Card.Spaced() + " · " + a.Identity.Holder
}

// show reads player's account, its log and its movements, and shows them;
// looked says an attendant looked it up (the operator log keeps who looked
// at whose account).
func (v *accountsView) show(player string, looked bool) {
	var fleet *engine.FleetAccount // the central's account last read, kept while this kiosk's part is read again
	if v.shown != nil && v.shown.acct.Player == player {
		fleet = v.shown.fleet
	}
	v.p.call(func(ctx context.Context) func() {
		s, err := v.read(ctx, player, fleet, looked)
		return func() {
			if err != nil {
				v.p.fail(err)
				return
			}
			v.present(s, looked)
		}
	})
}

// read reads player's account, its log and its movements at this kiosk;
// at a fleet's kiosk, with fleet, the account as the central holds it
// (the kiosk may hold none of it: a player never logged in here).
func (v *accountsView) read(ctx context.Context, player string, fleet *engine.FleetAccount, looked bool) (*shownAccount, error) {
	s := &shownAccount{fleet: fleet}
	var err error
	s.acct, err = v.d.Account(ctx, player)
	if fleet != nil && errors.Is(err, engine.ErrNoAccount) {
		s.acct = engine.Account{Player: player}
		err = nil
	} else {
		if err == nil {
			s.balance, err = v.d.Balance(ctx, player)
		}
		if err == nil {
			s.log, err = v.d.AccountLog(ctx, player)
		}
		if err == nil {
			s.ledger, err = v.p.op.LedgerPage(ctx, player, accountLedgerLines)
		}
	}
	if err == nil && looked {
		err = v.p.op.RecordOperator(ctx, v.p.actor, "account", "player "+player)
	}
	if fleet != nil {
		// What the central holds, with what only this kiosk holds.
		a := fleet.Account
		a.Held, a.SetAside, a.Session, a.Clock = s.acct.Held, s.acct.SetAside, s.acct.Session, s.acct.Clock
		if a.Clock.IsZero() {
			a.Clock = time.Now()
		}
		s.acct = a
	}
	return s, err
}

// present shows the account read; looked: an attendant looked it up.
func (v *accountsView) present(s *shownAccount, looked bool) {
	player := s.acct.Player
	v.shown = s
	if i := slices.Index(v.players, player); i >= 0 && v.list.SelectedIndex() != i {
		v.list.SetSelectedIndex(i)
	}
	if looked {
		v.p.say("", false) // what was said of another account
	}
	v.card.SetText(s.acct.Card.Spaced()) // "" for a former wallet
	v.setBody(v.accountPage(s))
	v.onPage = player
}

// setBody shows obj in the tab's body, under the look-up.
func (v *accountsView) setBody(obj fyne.CanvasObject) {
	v.form, v.pin, v.onPage = nil, nil, ""
	v.top.Show()
	v.body.Objects = []fyne.CanvasObject{obj}
	v.body.Refresh()
}

// setForm shows a form in the whole tab, the look-up hidden.
func (v *accountsView) setForm(obj fyne.CanvasObject) {
	v.setBody(obj)
	v.top.Hide()
}

// reshow shows the account last shown, read again, saying msg under the
// tabs.
func (v *accountsView) reshow(msg string, danger bool) {
	v.p.say(msg, danger)
	v.loadList()
	if v.shown != nil {
		v.show(v.shown.acct.Player, false)
	}
}

// accountPage is the account shown: in a wide window, what it is and what
// to do on the left, its limits, log and movements on the right.
func (v *accountsView) accountPage(s *shownAccount) fyne.CanvasObject {
	left := container.NewVBox(container.NewBorder(nil, nil, nil, v.accountActions(s), v.accountHead(s)))
	if len(s.acct.Held) > 0 {
		left.Add(heading(lang.L("Prizes held for an attendant")))
		for _, h := range s.acct.Held {
			left.Add(v.heldRow(s, h))
		}
	}
	left.Add(v.accountFacts(s))
	if s.fleet != nil {
		left.Add(v.fleetFacts(s))
	}
	right := container.NewVBox()
	switch {
	case s.fleet != nil:
		right.Add(heading(lang.L("Limits (whole network)")))
		right.Add(v.fleetLimitGrid(s))
	case s.acct.Complete:
		right.Add(heading(lang.L("Limits")))
		right.Add(v.limitGrid(s))
	}
	if s.acct.Complete {
		var waiting []string
		for _, k := range engine.LimitKeys {
			if pl, ok := s.acct.PendingFor(k, s.acct.Clock); ok {
				waiting = append(waiting, pendingLine(pl))
			}
		}
		if waiting != nil {
			right.Add(lines(waiting, theme.ColorNameWarning))
		}
	}
	var log []string
	for i := len(s.log) - 1; i >= 0 && len(log) < accountLogLines; i-- {
		log = append(log, recordLine(s.log[i]))
	}
	if older := len(s.log) - len(log); older > 0 {
		log = append(log, lang.L("… and {{.N}} earlier records", nth(older)))
	}
	right.Add(heading(lang.L("Account log (newest first)")))
	right.Add(lines(log, theme.ColorNameForeground))
	var moves []string
	for _, l := range s.ledger {
		moves = append(moves, ledgerText(l))
	}
	right.Add(heading(lang.L("Movements (newest first)")))
	right.Add(lines(moves, theme.ColorNameForeground))
	// The right column keeps clear of the scroll bar.
	inset := layout.NewCustomPaddedLayout(0, 0, 0, 2*theme.Padding())
	return container.New(pair{even: true}, container.NewVScroll(left), container.NewVScroll(container.New(inset, right)))
}

// lines shows texts a line each, wrapped to the width they are given.
func lines(texts []string, c fyne.ThemeColorName) *widget.RichText {
	var segs []widget.RichTextSegment
	for _, t := range texts {
		segs = append(segs, &widget.TextSegment{Text: t, Style: widget.RichTextStyle{ColorName: c, SizeName: theme.SizeNameCaptionText}})
	}
	r := widget.NewRichText(segs...)
	r.Wrapping = fyne.TextWrapWord
	return r
}

// accountHead is the holder and the card, large.
func (v *accountsView) accountHead(s *shownAccount) fyne.CanvasObject {
	a := s.acct
	name := &canvas.Text{Text: a.Identity.Holder, Color: colGold, TextSize: 26, TextStyle: fyne.TextStyle{Bold: true}}
	sub := &canvas.Text{Text: lang.L("Card {{.Card}}", map[string]any{"Card": a.Card.Spaced()}), Color: colText, TextSize: 20}
	if !a.Complete {
		name.Text = a.Player
		sub.Text, sub.Color = lang.L("Wallet from before accounts: to be completed"), colRed
	}
	return container.NewVBox(name, sub)
}

// accountFacts are the account's identity and state, a line each.
func (v *accountsView) accountFacts(s *shownAccount) fyne.CanvasObject {
	a, now := s.acct, s.acct.Clock
	row := func(label, value string, c fyne.CanvasObject) []fyne.CanvasObject {
		if c == nil {
			c = valueLabel(value)
		}
		return []fyne.CanvasObject{dimLabel(label), c}
	}
	colored := func(s string, c color.Color) fyne.CanvasObject {
		return &canvas.Text{Text: s, Color: c, TextSize: 16, TextStyle: fyne.TextStyle{Bold: true}}
	}
	var rows []fyne.CanvasObject
	if a.Complete {
		rows = append(rows, row(lang.L("Born on"), a.Identity.Born.Format("02/01/2006"), nil)...)
		rows = append(rows, row(lang.L("Identity document"), a.Identity.DocType+" "+a.Identity.DocNumber, nil)...)
		rows = append(rows, row(lang.L("Opened"), lang.L("{{.Date}} by {{.Actor}}", map[string]any{"Date": when(a.Opened), "Actor": a.OpenedBy}), nil)...)
	}
	funds := lang.L("Funds")
	if s.fleet != nil {
		funds = lang.L("Funds here")
	}
	rows = append(rows, row(funds, money(s.balance), nil)...)
	rows = append(rows, row(lang.L("Set aside"), money(a.SetAside), nil)...)
	held := colored(money(a.HeldTotal()), colText)
	if a.HeldTotal() > 0 {
		held = colored(money(a.HeldTotal()), colGold)
	}
	rows = append(rows, row(lang.L("Held for an attendant"), "", held)...)
	if a.Complete {
		brk := colored(lang.L("none"), colText)
		if a.Break.Active(now) {
			brk = colored(breakLine(a.Break), colRed)
		}
		rows = append(rows, row(lang.L("Break"), "", brk)...)
		state := colored(lang.L("in use"), colText)
		if a.PINLocked {
			state = colored(lang.L("locked after too many wrong PINs"), colRed)
		}
		rows = append(rows, row(lang.L("Card state"), "", state)...)
		sess := lang.L("none")
		if a.Session.Open {
			sess = lang.L("since {{.Date}}", map[string]any{"Date": when(a.Session.Start)})
		}
		rows = append(rows, row(lang.L("Session"), sess, nil)...)
		if a.Session.Open {
			rows = append(rows, row(lang.L("In the session"), lang.L("staked {{.Staked}}, won {{.Won}}",
				map[string]any{"Staked": money(a.Session.Staked), "Won": money(a.Session.Won)}), nil)...)
		}
	}
	return container.New(formLayout{gap: 4}, rows...)
}

// breakLine says until when a break runs.
func breakLine(b engine.Exclusion) string {
	if b.Indefinite {
		return lang.L("indefinite")
	}
	return lang.L("until {{.Date}}", map[string]any{"Date": when(b.Until)})
}

// heldRow is a prize held: its ticket and amount, whether the identity is
// checked, and the two steps of its payout.
func (v *accountsView) heldRow(s *shownAccount, h engine.HeldPrize) fyne.CanvasObject {
	state := &canvas.Text{Text: lang.L("identity not checked"), Color: colRed, TextSize: 15}
	if h.IdentityChecked {
		state.Text, state.Color = lang.L("identity checked"), colGreen
	}
	check := widget.NewButtonWithIcon(lang.L("Check the identity"), theme.AccountIcon(), func() { v.askIdentity(s, h) })
	pay := widget.NewButtonWithIcon(lang.L("Pay"), theme.ConfirmIcon(), func() { v.askHandPay(s, h) })
	pay.Importance = widget.HighImportance
	enable(check, !h.IdentityChecked)
	enable(pay, h.IdentityChecked)
	prize := &canvas.Text{Text: money(h.Prize), Color: colGold, TextSize: 26, TextStyle: fyne.TextStyle{Bold: true}}
	info := container.NewVBox(dimLabel(lang.L("Ticket {{.Ticket}}", map[string]any{"Ticket": h.Ticket.String()})), state)
	return card(container.NewVBox(container.NewHBox(prize, info), container.NewGridWithColumns(2, check, pay)))
}

// accountActions are what an attendant does to the account besides its
// limits: complete a former wallet; record a break; unlock a locked card.
func (v *accountsView) accountActions(s *shownAccount) fyne.CanvasObject {
	a := s.acct
	if !a.Complete {
		complete := widget.NewButtonWithIcon(lang.L("Complete this account"), theme.DocumentCreateIcon(), func() { v.openForm(a.Player) })
		complete.Importance = widget.HighImportance
		return container.NewVBox(complete)
	}
	if s.fleet != nil { // the central's: central players
		return container.NewVBox()
	}
	brk := widget.NewButtonWithIcon(lang.L("Record a break"), theme.MediaPauseIcon(), func() { v.askBreak(s) })
	row := container.NewVBox(brk)
	if a.PINLocked {
		unlock := widget.NewButtonWithIcon(lang.L("Unlock the card"), theme.LoginIcon(), func() { v.askUnlock(s) })
		unlock.Importance = widget.HighImportance
		row.Add(unlock)
	}
	return row
}

// limitGrid is the account's nine limits: kinds in rows, windows in
// columns, each amount in force a button that changes it.
func (v *accountsView) limitGrid(s *shownAccount) fyne.CanvasObject {
	return limitTable(func(k engine.LimitKey) fyne.CanvasObject {
		text := lang.L("none")
		if amt, ok := s.acct.Limit(k, s.acct.Clock); ok {
			text = money(amt)
		}
		return widget.NewButton(text, func() { v.askLimit(s, k) })
	})
}

// limitTable lays out one cell per limit: kinds (deposits, stakes,
// losses) in rows, windows (24 hours, 7 days, 30 days) in columns.
func limitTable(cell func(engine.LimitKey) fyne.CanvasObject) fyne.CanvasObject {
	row := func(label fyne.CanvasObject, cells ...fyne.CanvasObject) fyne.CanvasObject {
		return container.NewBorder(nil, nil, container.New(minWidth(90), container.NewCenter(label)), nil, container.NewGridWithColumns(3, cells...))
	}
	center := func(s string) fyne.CanvasObject { return container.NewCenter(dimLabel(s)) }
	t := container.NewVBox(row(layout.NewSpacer(), center(lang.L("24 hours")), center(lang.L("7 days")), center(lang.L("30 days"))))
	for _, kind := range []engine.LimitKind{engine.LimitDeposit, engine.LimitStake, engine.LimitLoss} {
		var cells []fyne.CanvasObject
		for _, w := range []engine.Window{engine.WindowDay, engine.WindowWeek, engine.WindowMonth} {
			cells = append(cells, cell(engine.LimitKey{Kind: kind, Window: w}))
		}
		t.Add(row(dimLabel(kindName(kind)), cells...))
	}
	return t
}

// kindName names what a row of limits bounds.
func kindName(k engine.LimitKind) string {
	switch k {
	case engine.LimitDeposit:
		return lang.L("Deposits")
	case engine.LimitStake:
		return lang.L("Stakes")
	}
	return lang.L("Losses")
}

// pendingLine says a limit's change waiting for its cooling-off.
func pendingLine(p engine.PendingLimit) string {
	data := map[string]any{"Limit": limitName(p.Key), "Amount": money(p.Amount), "Date": when(p.Effective)}
	if p.Amount == 0 {
		return lang.L("Waiting: {{.Limit}} removed on {{.Date}}", data)
	}
	return lang.L("Waiting: {{.Limit}} raised to {{.Amount}} on {{.Date}}", data)
}

// recordLine words a record of the account log: when, what, by whom.
func recordLine(r engine.AccountRecord) string {
	data := map[string]any{"Card": r.Card.Spaced(), "Limit": limitName(r.Limit), "Amount": money(r.Amount), "Date": when(r.Effective),
		"Ticket": r.Ticket.String(), "Staked": money(r.Staked), "Won": money(r.Won), "Document": r.Text}
	var what string
	switch r.Kind {
	case engine.AccOpened:
		what = lang.L("Account opened: card {{.Card}}", data)
	case engine.AccCompleted:
		what = lang.L("Account completed: card {{.Card}}", data)
	case engine.AccPIN:
		what = lang.L("Card PIN set")
	case engine.AccPINLocked:
		what = lang.L("Card locked after wrong PINs")
	case engine.AccPINUnlocked:
		what = lang.L("Card unlocked")
	case engine.AccLimit:
		switch {
		case r.Amount == 0:
			what = lang.L("{{.Limit}}: removed from {{.Date}}", data)
		case r.Effective.After(r.Time):
			what = lang.L("{{.Limit}}: {{.Amount}} from {{.Date}}", data)
		default:
			what = lang.L("{{.Limit}}: {{.Amount}}", data)
		}
	case engine.AccBreak:
		what = lang.L("Break until {{.Date}}", map[string]any{"Date": when(r.Until)})
		if r.Until.IsZero() {
			what = lang.L("Break of indefinite length")
		}
	case engine.AccListed:
		what = lang.L("Identity put on the exclusion list")
	case engine.AccSessionStart:
		what = lang.L("Session started")
	case engine.AccRealityCheck:
		what = lang.L("Reality check read: staked {{.Staked}}, won {{.Won}}", data)
	case engine.AccSessionEnd:
		what = lang.L("Session ended: staked {{.Staked}}, won {{.Won}}", data)
	case engine.AccHeld:
		what = lang.L("Prize held for an attendant: {{.Amount}}, ticket {{.Ticket}}", data)
	case engine.AccSetAside:
		what = lang.L("Prize set aside: {{.Amount}}, ticket {{.Ticket}}", data)
	case engine.AccIdentityChecked:
		what = lang.L("Identity checked for ticket {{.Ticket}}: {{.Document}}", data)
	case engine.AccHandPaid:
		method, ref := r.PaidMethod()
		data["Method"] = methodName(method)
		data["Reference"] = ref
		what = lang.L("Prize paid by hand: {{.Amount}}, ticket {{.Ticket}}, {{.Method}} {{.Reference}}", data)
	default:
		what = r.Kind.String()
	}
	return fmt.Sprintf("%s   %s   (%s)", when(r.Time), strings.TrimSpace(what), r.Actor)
}

// deskError is the attendant's message for an account operation, or a
// credit, refused.
func deskError(err error) string {
	var id *engine.IdentityError
	var card *engine.CardError
	var excluded *engine.ExcludedError
	var pending *engine.PendingError
	var limit *engine.LimitError
	switch {
	case errors.As(err, &limit) && limit.Limit.Kind == engine.LimitDeposit:
		return depositRefusal(limit)
	case errors.As(err, &limit):
		return limitText(limit)
	case errors.As(err, &id):
		return identityRefusal(id)
	case errors.Is(err, engine.ErrCardLocked):
		return lang.L("Card locked after too many wrong PINs: it is unlocked at the central (central players unlock-pin).")
	case errors.As(err, &card), errors.Is(err, engine.ErrUnknownCard), errors.Is(err, engine.ErrPlayerPIN):
		return loginRefusal(err)
	case errors.As(err, &pending), errors.Is(err, engine.ErrBadLimit), errors.Is(err, engine.ErrLimitRequired):
		return limitChangeRefusal(err)
	case errors.Is(err, engine.ErrPlayerPINRule):
		return lang.L("PIN refused: 4 to 8 digits, not easy to guess (not 0000, 1234 or 1212). The player types another one.")
	case errors.As(err, &excluded) && excluded.Shorter:
		return lang.L("Refused: a longer break is in force ({{.Until}}); a break cannot be shortened.", map[string]any{"Until": breakLine(excluded.Break)})
	case errors.As(err, &excluded):
		return lang.L("Refused: the player is on a break ({{.Until}}).", map[string]any{"Until": breakLine(excluded.Break)})
	case errors.Is(err, engine.ErrListed):
		return lang.L("Refused: the holder is on the exclusion list.")
	case errors.Is(err, engine.ErrAccountIncomplete):
		return lang.L("Refused: this wallet from before accounts must first be completed (Accounts tab).")
	case errors.Is(err, engine.ErrNotHeld):
		return lang.L("No prize of this ticket is held for this account.")
	case errors.Is(err, engine.ErrIdentityNotChecked):
		return lang.L("Check the holder's identity before paying the prize.")
	case errors.Is(err, engine.ErrInsufficientFunds):
		return lang.L("Refused: the funds do not cover this prize.")
	case errors.Is(err, engine.ErrNoAccount):
		return lang.L("No such account.")
	}
	return lang.L("Error: {{.Err}}", map[string]any{"Err": err.Error()})
}

// depositRefusal says which deposit limit refused a credit, how much of it
// is used, and when the credit fits (never, when it is above the limit).
func depositRefusal(e *engine.LimitError) string {
	data := map[string]any{"Limit": limitName(e.Limit), "Used": money(e.Used), "Max": money(e.Max), "Amount": money(e.Amount)}
	switch {
	case e.Never():
		return lang.L("{{.Limit}}: a deposit of {{.Amount}} is over the limit of {{.Max}}.", data)
	case e.Frees.IsZero(): // a fleet's limit
		return lang.L("{{.Limit}} reached: {{.Used}} of {{.Max}} used, or held by a session open at another kiosk, at every kiosk of the network.", data)
	}
	data["Date"] = when(e.Frees)
	return lang.L("{{.Limit}} reached: {{.Used}} deposited of {{.Max}}. A deposit of {{.Amount}} fits from {{.Date}}.", data)
}

// identityRefusal says why an account cannot be opened for an identity.
func identityRefusal(e *engine.IdentityError) string {
	switch e.Problem {
	case engine.IdentityNoName:
		return lang.L("Type the holder's full name.")
	case engine.IdentityNoDocument:
		return lang.L("Type the identity document's type and number.")
	case engine.IdentityBadDate:
		return lang.L("Impossible date of birth: {{.Date}}. Type it as DD/MM/YYYY.", map[string]any{"Date": e.Input})
	case engine.IdentityUnderAge:
		return lang.L("Refused: the holder is under 18.")
	case engine.IdentityListed:
		return lang.L("Refused: this identity is on the exclusion list.")
	}
	return lang.L("Refused: this identity document already holds an account.")
}
