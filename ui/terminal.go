package ui

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"
)

// Terminal is how the window learns where its game stands while the
// program opens it: the window shows at once, on the board with play held,
// and whoever opens the game (Run's open) tells it, from any goroutine,
// that the data directory waits for its passphrase, that the game cannot
// be opened (the terminal is out of service and the opener tries again), or
// that the game is there. The window never decides; it shows.
type Terminal struct{ k *Kiosk }

// Terminal is the window's side of its opening.
func (k *Kiosk) Terminal() Terminal { return Terminal{k} }

// Serve gives the window its game: the screen in front goes and play starts.
func (t Terminal) Serve(g Game) {
	fyne.Do(func() {
		t.k.uncover()
		t.k.attach(g)
	})
}

// ServeAccounts gives the window a game whose real money is played from
// player accounts (SPEC §10): the screen in front goes for the login
// screen, and the window plays the wallet of whoever logs in, until the
// logout.
func (t Terminal) ServeAccounts(g Accounts) {
	fyne.Do(func() {
		t.k.uncover()
		t.k.acc = g
		t.k.attach(g)
	})
}

// Locked shows the unlock screen: unlock is called with what an attendant
// types, and the window waits for Serve (or OutOfService) once it succeeds.
func (t Terminal) Locked(unlock Unlock) {
	fyne.Do(func() { t.k.showUnlock(unlock) })
}

// OutOfService covers the window with the out-of-service screen: err is
// why, for staff; the players only read that the terminal is out of
// service. The opener tries again by itself and calls Serve once the cause
// is gone, or OutOfService again with the new reason.
func (t Terminal) OutOfService(err error) {
	fyne.Do(func() { t.k.showOutOfService(err) })
}

// outOfService is the screen a terminal shows when its game cannot be
// opened: a store locked by another process, a full disk, a damaged store,
// a key the central did not give. No PIN can be checked (the PIN lives in
// the store that did not open), so the reason is not behind it: holding
// the top-left corner shows it, and it says nothing secret (paths and
// causes; the log has it too).
type outOfService struct {
	reason  *widget.Label // hidden until the corner is held
	corner  *cornerPress
	since   time.Time
	content fyne.CanvasObject
}

func (k *Kiosk) showOutOfService(err error) {
	if k.game != nil {
		return // served meanwhile
	}
	if o := k.down; o != nil { // already shown: the new reason
		o.reason.SetText(staffReason(err, o.since))
		return
	}
	k.unlock = nil
	o := &outOfService{reason: widget.NewLabel(""), since: time.Now()}
	o.reason.Wrapping = fyne.TextWrapWord
	o.reason.Alignment = fyne.TextAlignCenter
	o.reason.SetText(staffReason(err, o.since))
	o.reason.Hide()
	head := &canvas.Text{Text: lang.L("Terminal out of service"), Color: colText, TextSize: 34, TextStyle: fyne.TextStyle{Bold: true}, Alignment: fyne.TextAlignCenter}
	hint := widget.NewLabel(lang.L("Please call an attendant. The terminal tries again by itself."))
	hint.Alignment = fyne.TextAlignCenter
	hint.Wrapping = fyne.TextWrapWord
	o.corner = newCornerPress(k.opts.CornerHold, func() { o.reason.Show() })
	o.content = container.NewStack(cover(640, head, hint, o.reason), container.NewWithoutLayout(o.corner))
	o.corner.Resize(fyne.NewSize(120, 120))
	k.down = o
	k.win.SetContent(o.content)
}

// cover is a screen in front of the game (unlock, out of service): the
// title above objs, centred, at least width wide, on the night sky.
func cover(width float32, objs ...fyne.CanvasObject) fyne.CanvasObject {
	title := &canvas.Text{Text: "★ STAR FORTUNE ★", Color: colGold, TextSize: 30, TextStyle: fyne.TextStyle{Bold: true}, Alignment: fyne.TextAlignCenter}
	return container.NewStack(&canvas.Rectangle{FillColor: colNight},
		container.NewCenter(container.New(minWidth(width), container.NewVBox(append([]fyne.CanvasObject{title}, objs...)...))))
}

// staffReason is what staff read on the out-of-service screen.
func staffReason(err error, since time.Time) string {
	return lang.L("Out of service since {{.Since}}: {{.Reason}}",
		map[string]any{"Since": since.Format("02/01 15:04:05"), "Reason": err.Error()})
}

// uncover takes the unlock or out-of-service screen away (on the UI
// thread).
func (k *Kiosk) uncover() {
	k.unlock, k.down = nil, nil
	k.win.SetContent(k.content)
}
