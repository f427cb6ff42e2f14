package ui

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/driver/mobile"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"starfortune/engine"
)

// Operator is what the operator panel needs of the engine, besides Game.
// *engine.Service satisfies it.
type Operator interface {
	// Attendants lists who may log in, the first attendant first (none:
	// no operator PIN is set, the panel is disabled).
	Attendants(ctx context.Context) ([]string, error)
	// Login checks the PIN of the attendant named actor; *engine.PINError,
	// *engine.LockedError, engine.ErrNoPIN.
	Login(ctx context.Context, actor, pin string) error
	// PINStatus says whether the PIN in force meets the rule, and the lockout.
	PINStatus(ctx context.Context) (engine.PINStatus, error)
	// RecordOperator appends an action to the durable operator log.
	RecordOperator(ctx context.Context, actor, action, detail string) error
	OperatorLog(ctx context.Context, limit int) ([]engine.OperatorEvent, error)
	Lookup(ctx context.Context, t engine.Ticket) (engine.Sale, error)
	Players(ctx context.Context) ([]string, error)
	Wallet(ctx context.Context, player string) (engine.Wallet, error)
	LedgerPage(ctx context.Context, player string, limit int) ([]engine.LedgerEntry, error)
	OperatorCredit(ctx context.Context, actor, player string, amount engine.Cents) (engine.LedgerEntry, error)
	OperatorPayout(ctx context.Context, actor, player string, amount engine.Cents) (engine.LedgerEntry, error)
	BlockReport(ctx context.Context) ([]engine.BlockStatus, error)
	Audit(ctx context.Context, progress func(done, total int)) (engine.AuditReport, error)
	// InFleet says whether the terminal is a kiosk of a fleet (the panel
	// then has the Fleet tab).
	InFleet() bool
	// FleetView reads the fleet from the central (engine.ErrNotFleet on a
	// lone kiosk).
	FleetView(ctx context.Context) (engine.FleetView, error)
}

var _ Operator = (*engine.Service)(nil)

// OperatorShortcut opens the operator panel (after the PIN).
var OperatorShortcut = &desktop.CustomShortcut{KeyName: fyne.KeyO, Modifier: fyne.KeyModifierControl | fyne.KeyModifierShift}

// operatorState is the kiosk's operator side: nil op means unavailable.
type operatorState struct {
	op     Operator
	pad    *PINPad
	padDlg dialog.Dialog
	panel  *OperatorPanel
	corner *cornerPress
	// actor is the attendant whose PIN was last accepted: the panel acts
	// under their name in the operator log, the ledger and the account log.
	actor string
	// replaying: the panel is set aside while the board replays a unit.
	replaying bool
}

// active reports whether an operator session or PIN entry is on screen:
// the player's keys are then ignored.
func (o *operatorState) active() bool { return o.pad != nil || o.panel != nil }

// setupOperator hooks the shortcut and the kiosk-mode close interception.
func (k *Kiosk) setupOperator() {
	k.oper.op, _ = k.game.(Operator)
	k.win.Canvas().AddShortcut(OperatorShortcut, func(fyne.Shortcut) { k.OpenOperator() })
}

// OpenOperator asks for the operator PIN, then opens the panel.
func (k *Kiosk) OpenOperator() {
	if k.game == nil {
		return // no game, no PIN to check: the out-of-service screen has its own corner
	}
	if k.oper.panel != nil {
		if k.oper.replaying {
			k.backToPanel()
		}
		return
	}
	k.askPIN(lang.L("Operator access"), k.showPanel)
}

// askToClose is the window's close button in kiosk mode: the operator PIN,
// then the terminal closes. Before the game is open no PIN can be
// checked, and the window stays: the service manager stops a terminal out
// of service.
func (k *Kiosk) askToClose() {
	if k.game == nil {
		return
	}
	if k.oper.op == nil {
		k.confirmQuit()
		return
	}
	k.askPIN(lang.L("Close the terminal"), func() {
		k.recordOperatorThen("close-terminal", "window closed with the operator PIN", k.win.Close)
	})
}

// askPIN shows the PIN pad (or why it cannot) and runs then once the
// engine accepted the PIN of the attendant chosen on it.
func (k *Kiosk) askPIN(title string, then func()) {
	if k.oper.pad != nil {
		return
	}
	if k.oper.op == nil {
		dialog.ShowInformation(lang.L("Operator access"), lang.L("The operator panel is not available on this terminal."), k.win)
		return
	}
	op := k.oper.op
	k.call(false, func(ctx context.Context) func() {
		names, err := op.Attendants(ctx)
		return func() {
			switch {
			case err != nil:
				k.showOperatorError(err)
			case len(names) == 0:
				msg := widget.NewLabel(lang.L("The operator panel is disabled: no operator PIN is set. Set one on the command line: starfortune operator set-pin"))
				msg.Wrapping = fyne.TextWrapWord
				d := dialog.NewCustom(lang.L("Operator access"), lang.L("OK"), msg, k.win)
				d.Resize(fyne.NewSize(520, 240))
				d.Show()
			default:
				k.showPINPad(title, names, then)
			}
		}
	})
}

func (k *Kiosk) showPINPad(title string, attendants []string, then func()) {
	pad := NewPINPad(attendants)
	k.oper.pad = pad
	d := dialog.NewCustomWithoutButtons(title, pad, k.win)
	k.oper.padDlg = d
	closePad := func() {
		d.Hide()
		k.oper.pad, k.oper.padDlg = nil, nil
	}
	pad.OnCancel = closePad
	pad.OnSubmit = func(pin string) {
		pad.SetBusy(true)
		op, name := k.oper.op, pad.Attendant()
		k.call(false, func(ctx context.Context) func() {
			err := op.Login(ctx, name, pin)
			return func() {
				pad.SetBusy(false)
				if err != nil {
					pad.Fail(loginError(err))
					return
				}
				closePad()
				k.oper.actor = name
				then()
			}
		})
	}
	d.Resize(pad.dialogSize())
	d.Show()
	k.win.Canvas().Focus(pad.entry)
}

// loginError is the attendant's message for a refused PIN.
func loginError(err error) string {
	var locked *engine.LockedError
	var wrong *engine.PINError
	switch {
	case errors.As(err, &locked) && locked.UntilUnlock:
		return lang.L("Too many wrong PINs: access is locked until staff unlock it on the command line: starfortune operator unlock")
	case errors.As(err, &locked):
		return lang.L("Too many wrong PINs: access locked for {{.Time}} more.", map[string]any{"Time": lockTime(locked.Remaining)})
	case errors.As(err, &wrong):
		return lang.L("Wrong PIN ({{.N}} attempts left)", nth(wrong.Left))
	case errors.Is(err, engine.ErrNoPIN):
		return lang.L("No operator PIN is set: starfortune operator set-pin")
	}
	return lang.L("The PIN could not be checked: {{.Err}}", map[string]any{"Err": err.Error()})
}

// lockTime words a lockout's remaining time, in whole minutes rounded up:
// "5 min", "1 h", "23 h 59 min".
func lockTime(d time.Duration) string { return minutesText(int(math.Ceil(d.Minutes()))) }

// span words a time spent: in seconds under a minute ("30 s"), else in
// whole minutes ("12 min", "1 h 05 min").
func span(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%d s", int(d.Seconds()))
	}
	return minutesText(int(d.Minutes()))
}

func minutesText(m int) string {
	switch {
	case m < 60:
		return fmt.Sprintf("%d min", m)
	case m%60 == 0:
		return fmt.Sprintf("%d h", m/60)
	}
	return fmt.Sprintf("%d h %02d min", m/60, m%60)
}

// pinNotice is what the attendant is told of a PIN in force that does not
// meet the rule (engine.PINStatus.Weak): it opens the panel, but must be
// changed from the command line.
func pinNotice(weak *engine.PINRuleError) string {
	switch weak.Problem {
	case engine.PINLength:
		return lang.L("The operator PIN has fewer than 6 digits: change it on the command line (starfortune operator set-pin).")
	case engine.PINFormerRule:
		return lang.L("The operator PIN dates from the former rule, which allowed 4 digits: replace it on the command line with one of at least 6 digits (starfortune operator set-pin).")
	}
	return lang.L("The operator PIN is too easy to guess: change it on the command line (starfortune operator set-pin).")
}

func (k *Kiosk) showOperatorError(err error) {
	fyne.LogError("operator", err)
	dialog.ShowError(err, k.win)
}

// PINPad returns the PIN pad on screen, or nil.
func (k *Kiosk) PINPad() *PINPad { return k.oper.pad }

// OperatorPanel returns the operator panel while a session is open, or nil.
func (k *Kiosk) OperatorPanel() *OperatorPanel { return k.oper.panel }

// showPanel opens an operator session: the panel replaces the game, and
// says so if the PIN must be changed.
func (k *Kiosk) showPanel() {
	p := newOperatorPanel(k)
	k.oper.panel = p
	k.win.SetContent(p)
	p.start()
	op := k.oper.op
	p.call(func(ctx context.Context) func() {
		st, err := op.PINStatus(ctx)
		return func() {
			if err == nil && st.Weak != nil {
				p.say(pinNotice(st.Weak), true)
			}
		}
	})
}

// closePanel ends the operator session and returns to the game.
func (k *Kiosk) closePanel() {
	if k.oper.panel == nil {
		return
	}
	k.oper.panel.closed()
	k.oper.panel, k.oper.replaying = nil, false
	k.recordOperator("logout", "")
	k.oper.actor = ""
	k.leaveRecall()
	k.showFront(k.front) // the player's screen (the login, a lock) waited behind the panel
	k.touched()
	if k.player != "" {
		k.loadHistory(0)
	}
	if k.sess != nil {
		k.settled() // at once what the attendant did: a prize paid lifts the lock
	}
}

// replayForOperator shows the board replaying s, with a bar leading back
// to the panel.
func (k *Kiosk) replayForOperator(s engine.Sale) error {
	if k.sale != nil || k.busy {
		return errors.New(lang.L("A game is in progress on the terminal: replay after it ends."))
	}
	k.oper.replaying = true
	back := widget.NewButtonWithIcon(lang.L("Back to the operator panel"), theme.NavigateBackIcon(), k.backToPanel)
	back.Importance = widget.HighImportance
	bar := container.NewBorder(nil, nil, valueLabel(lang.L("Operator: replay of ticket {{.Ticket}}", map[string]any{"Ticket": s.Ticket.String()})), back)
	k.win.SetContent(container.NewBorder(container.NewPadded(bar), nil, nil, nil, k.content))
	k.recordOperator("replay", s.Ticket.String())
	k.Recall(s)
	return nil
}

func (k *Kiosk) backToPanel() {
	if k.oper.panel == nil {
		return
	}
	k.oper.replaying = false
	k.leaveRecall()
	k.win.SetContent(k.oper.panel)
}

// leaveKiosk ends kiosk mode from the panel: windowed, closing freely.
func (k *Kiosk) leaveKiosk() {
	k.recordOperator("leave-kiosk", "full screen left")
	k.opts.Fullscreen = false
	k.win.SetFullScreen(false)
	k.win.SetCloseIntercept(func() { k.win.Close() })
}

// recordOperator appends an action of the panel to the operator log, by
// the attendant logged in.
func (k *Kiosk) recordOperator(action, detail string) { k.recordOperatorThen(action, detail, nil) }

// recordOperatorThen records the action, then runs then (if set) on the UI
// thread, whether or not the record could be written (it is logged).
func (k *Kiosk) recordOperatorThen(action, detail string, then func()) {
	op, actor := k.oper.op, k.oper.actor
	if op == nil {
		if then != nil {
			then()
		}
		return
	}
	k.call(false, func(ctx context.Context) func() {
		err := op.RecordOperator(ctx, actor, action, detail)
		return func() {
			if err != nil {
				fyne.LogError("operator log", err)
			}
			if then != nil {
				then()
			}
		}
	})
}

// cornerPress covers the top-left corner: held for hold, it asks for
// the operator PIN (touch kiosks have no keyboard for the shortcut).
type cornerPress struct {
	widget.BaseWidget
	onHold func()
	hold   time.Duration
	gen    atomic.Int64 // each press and release; a hold fires if unchanged (atomic: the test driver's fyne.Do runs on the timer's goroutine)
}

func newCornerPress(hold time.Duration, onHold func()) *cornerPress {
	c := &cornerPress{onHold: onHold, hold: hold}
	c.ExtendBaseWidget(c)
	return c
}

func (c *cornerPress) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewWithoutLayout())
}

func (c *cornerPress) press() {
	gen := c.gen.Add(1)
	time.AfterFunc(c.hold, func() {
		fyne.Do(func() {
			if c.gen.CompareAndSwap(gen, gen+1) {
				c.onHold()
			}
		})
	})
}

func (c *cornerPress) release() { c.gen.Add(1) }

// MouseDown is part of desktop.Mouseable (a touch screen on a desktop
// driver reports touches as the left button).
func (c *cornerPress) MouseDown(*desktop.MouseEvent) { c.press() }

// MouseUp is part of desktop.Mouseable.
func (c *cornerPress) MouseUp(*desktop.MouseEvent) { c.release() }

// TouchDown is part of mobile.Touchable.
func (c *cornerPress) TouchDown(*mobile.TouchEvent) { c.press() }

// TouchUp is part of mobile.Touchable.
func (c *cornerPress) TouchUp(*mobile.TouchEvent) { c.release() }

// TouchCancel is part of mobile.Touchable.
func (c *cornerPress) TouchCancel(*mobile.TouchEvent) { c.release() }

// withCorner lays the long-press area over obj (the title, top left).
func (k *Kiosk) withCorner(obj fyne.CanvasObject) fyne.CanvasObject {
	k.oper.corner = newCornerPress(k.opts.CornerHold, k.OpenOperator)
	return container.NewStack(obj, k.oper.corner)
}
