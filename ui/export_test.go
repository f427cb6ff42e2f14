package ui

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"starfortune/engine"
)

// What the black-box tests (package ui_test) reach of the operator panel:
// test-only, compiled with the tests alone.

// The session's ticks are the tests' to make (Kiosk.Tick): the test
// driver runs fyne.Do on the calling goroutine, which for the ticker's
// would touch the widgets beside the test's own goroutine.
func init() { sessionTick = time.Hour }

func (p *OperatorPanel) TicketEntry() *widget.Entry   { return p.ticket.ticket }
func (p *OperatorPanel) TicketStatus() string         { return p.ticket.status.Text }
func (p *OperatorPanel) LookupButton() *widget.Button { return p.ticket.lookup }
func (p *OperatorPanel) LookUp()                      { p.ticket.lookUp() }
func (p *OperatorPanel) Found() *engine.Sale          { return p.ticket.found }

func (p *OperatorPanel) HistoryPlayer() *widget.SelectEntry { return p.players.player }
func (p *OperatorPanel) ShowHistory(i int)                  { p.players.show(i) }
func (p *OperatorPanel) HistoryRows() int                   { return max(0, len(p.players.box.Objects)-1) }

func (p *OperatorPanel) FundsPlayer() *widget.SelectEntry { return p.cash.player }
func (p *OperatorPanel) AmountEntry() *widget.Entry       { return p.cash.amount }
func (p *OperatorPanel) CreditButton() *widget.Button     { return p.cash.credit }
func (p *OperatorPanel) PayoutButton() *widget.Button     { return p.cash.payout }
func (p *OperatorPanel) FundsBalance() string             { return p.cash.funds.Text }
func (p *OperatorPanel) FundsResult() string              { return p.cash.result.Text }
func (p *OperatorPanel) LoadFunds()                       { p.cash.loadFunds() }

func (p *OperatorPanel) Report() []engine.BlockStatus { return p.blocks.report }

func (p *OperatorPanel) RunAudit()              { p.audit.start() }
func (p *OperatorPanel) AuditProgress() float64 { return p.audit.progress.Value }

// AuditSummary is the first line of the audit's result ("" before a run).
func (p *OperatorPanel) AuditSummary() string {
	if len(p.audit.result.Objects) == 0 {
		return ""
	}
	return p.audit.result.Objects[0].(*canvas.Text).Text
}

func (p *OperatorPanel) HasTab(id int) bool { return p.tab(id) != nil }

// FleetTicket types t in the Fleet tab's look-up and submits it.
func (p *OperatorPanel) FleetTicket(t string) {
	p.fleet.ticket.SetText(t)
	p.fleet.ticket.OnSubmitted(t)
}

// NewOpening builds the window before its game, as Run does: the opener
// then tells it where the game stands through its Terminal.
func NewOpening(a fyne.App, o Options) *Kiosk { return newKiosk(a, o) }

// Down is the out-of-service screen's staff reason and whether it shows,
// or false when the screen is not up.
func (k *Kiosk) Down() (reason string, shown, down bool) {
	if k.down == nil {
		return "", false, false
	}
	return k.down.reason.Text, k.down.reason.Visible(), true
}

// HoldDownCorner holds the out-of-service screen's corner until it fires.
func (k *Kiosk) HoldDownCorner() {
	c := k.down.corner
	fired, show := make(chan struct{}), c.onHold
	c.onHold = func() { show(); close(fired) }
	c.MouseDown(&desktop.MouseEvent{})
	<-fired
	c.MouseUp(&desktop.MouseEvent{})
}

// Unlock types pass on the unlock screen and submits it.
func (k *Kiosk) Unlock(pass string) {
	k.unlock.entry.SetText(pass)
	k.unlock.entry.OnSubmitted(pass)
}

// Locked is the unlock screen's message while it shows, or false.
func (k *Kiosk) Locked() (string, bool) {
	if k.unlock == nil {
		return "", false
	}
	return k.unlock.message.Text, true
}

// Stop ends what the window runs by itself (a session's clock and idle
// logout, the attract screen's timer), as Run does once the window is
// closed. The tests stop each kiosk they make: a timer left running
// would touch its widgets through fyne.Do, which the test driver runs on
// the timer's goroutine, beside the next test's.
func (k *Kiosk) Stop() {
	k.stop()
	if k.sess != nil {
		k.sess.idle.Stop()
	}
	if k.idle != nil { // the attract screen's timer (Fullscreen): not in the next test
		k.idle.Stop()
	}
}

// Front names the player's screen in front of the game ("": the game).
func (k *Kiosk) Front() string {
	if k.front == nil {
		return ""
	}
	return k.front.name
}

// Strip is the session strip.
func (k *Kiosk) Strip() *SessionStrip { return k.strip }

// Keypad taps keys on the keypad on screen (the login's, or the account's
// limit editor's): digits, '<' the correction, '=' the validation.
func (k *Kiosk) Keypad(keys string) { k.front.pad.tap(keys, k.Wait) }

// tap taps keys on the pad: digits, '<' the correction, '=' the
// validation; after each, after.
func (p *keypad) tap(keys string, after func()) {
	for _, c := range keys {
		switch c {
		case '<':
			test.Tap(p.back)
		case '=':
			test.Tap(p.enter)
		default:
			test.Tap(p.digits[c-'0'])
		}
		after()
	}
}

// LoginText is the login screen's prompt, what it shows typed, and its
// message (nothing when it is not up).
func (k *Kiosk) LoginText() (prompt, shown, message string) {
	l := k.login
	if l == nil {
		return "", "", ""
	}
	return l.prompt.Text, l.shown.Text, l.message.Text
}

// IdleLogout runs the idle logout as if the player had left.
func (k *Kiosk) IdleLogout() {
	s := k.sess
	s.input = time.Time{}
	k.idleCheck(s, k.acc.Protection().IdleLogout)
}

// Tick runs the session's clock once, as it does every few seconds.
func (k *Kiosk) Tick() { k.tick(k.sess) }

// Label is a big button's text (JOUER, GO, the keypad's and the player's
// screens' buttons).
func (b *bigButton) Label() string { return b.Text }

// LookUpCard types c in the Accounts tab's card entry and shows its account.
func (p *OperatorPanel) LookUpCard(c string) {
	p.accounts.card.SetText(c)
	p.accounts.lookUp()
}

// CardStatus is what the Accounts tab says of the card number typed.
func (p *OperatorPanel) CardStatus() string { return p.accounts.status.Text }

// AccountList is the Accounts tab's list of accounts.
func (p *OperatorPanel) AccountList() *widget.Select { return p.accounts.list }

// OpenForm is the account-opening form's entries, while it shows: the
// holder, the date of birth, the document's type and number, the limits.
func (p *OperatorPanel) OpenForm() (holder, born *widget.Entry, docType *widget.SelectEntry, docNo *widget.Entry, limits map[engine.LimitKey]*widget.Entry) {
	f := p.accounts.form
	return f.holder, f.born, f.docType, f.docNo, f.limits
}

// TypeCardPIN taps keys on the Accounts tab's keypad, where the player
// types the card's PIN: digits, '<' the correction, '=' the validation.
func (p *OperatorPanel) TypeCardPIN(keys string) { p.accounts.pin.pad.tap(keys, func() {}) }

// CardPINPrompt is what the Accounts tab's PIN keypad asks, and its message.
func (p *OperatorPanel) CardPINPrompt() (prompt, message string) {
	return p.accounts.pin.prompt.Text, p.accounts.pin.message.Text
}

// Message is the line under the panel's tabs.
func (p *OperatorPanel) Message() string { return p.message.Text }

// ChooseAccount chooses the account named name in the Accounts tab's list,
// as a tap on it does (the account it shows is read meanwhile: one result
// at a time, as Select does).
func (p *OperatorPanel) ChooseAccount(name string) {
	p.k.applying.Lock()
	defer p.k.applying.Unlock()
	p.accounts.list.SetSelected(name)
}
