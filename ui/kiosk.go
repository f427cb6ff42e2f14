package ui

import (
	"context"
	"errors"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"starfortune/engine"
)

// Pauses between the steps of a unit, so the player sees each result.
const (
	pauseAfterSpot  = 1200 * time.Millisecond
	pauseAfterBonus = 1500 * time.Millisecond
	pauseInRecall   = 900 * time.Millisecond
)

// Kiosk is the main window's content and the player's session: it sells
// units through the Game, persists each reveal step before showing it, and
// drives the board, the controls, the BONUS view and the history.
//
// Every method runs on the Fyne thread; engine calls run in goroutines and
// come back through fyne.Do.
type Kiosk struct {
	app    fyne.App
	win    fyne.Window
	game   Game
	opts   Options
	unlock *unlockScreen // while the data directory's key is locked
	down   *outOfService // while the game cannot be opened

	// acc is the game's player accounts when real money is played
	// (Terminal.ServeAccounts), nil when the window plays Options.Player.
	acc    Accounts
	player string       // the wallet played: Options.Player, or the account's logged in ("": nobody)
	sess   *session     // the player logged in, nil: nobody
	login  *loginScreen // while nobody is logged in
	front  *frontScreen // the player's screen in front of the game, nil: the game
	asked  dialog.Dialog
	strip  *SessionStrip
	// gen counts the sessions: what the engine answers, and what a pause
	// runs, for a session that ended is dropped.
	gen int

	board    *Board
	controls *Controls
	bonus    *BonusView
	history  *HistoryPanel
	side     *fyne.Container
	content  fyne.CanvasObject

	// Speed multiplies the falls' speed (1: real time). Scripts raise it.
	Speed float64

	stake   engine.Cents
	sale    *engine.Sale // the unit being revealed, nil between units
	busy    bool         // an engine call is in flight
	recall  bool         // the board replays a past unit
	replay  int          // generation of the running replay, to cancel it
	balance engine.Cents // the wallet's balance as last read
	won     engine.Cents // sum of the current unit's drops revealed so far

	pages   pager // the history's pages
	last    *engine.Sale
	idle    *time.Timer
	idleGen int

	oper operatorState

	calls    sync.WaitGroup
	applying sync.Mutex
	// stop ends the engine calls in flight (a sale waiting for a pack from
	// a central that hangs): the window is closing.
	ctx  context.Context
	stop context.CancelFunc
}

// NewKiosk builds the window for game on a (a test app or a real one); it
// starts loading funds and history at once.
func NewKiosk(a fyne.App, g Game, o Options) *Kiosk {
	k := newKiosk(a, o)
	k.attach(g)
	return k
}

// DefaultStake is the stake the window selects when it opens (1 €): a
// lone kiosk draws its block first (engine.Config.DrawFirst).
var DefaultStake = engine.Stakes[1]

// newKiosk builds the window without its game: Run builds it while the
// store opens.
func newKiosk(a fyne.App, o Options) *Kiosk {
	o = o.withDefaults()
	loadTranslations(o.Language)
	a.Settings().SetTheme(newStarTheme())
	fonts := warmFonts()
	// Busy until the game is attached: the board shows, play waits.
	k := &Kiosk{app: a, opts: o, player: o.Player, stake: DefaultStake, Speed: 1, pages: newPager(), busy: true}
	k.ctx, k.stop = context.WithCancel(context.Background())
	name := "Star Fortune"
	if o.KioskID != "" {
		name += " — " + o.KioskID
	}
	k.win = a.NewWindow(name)
	<-fonts

	k.board = NewBoard(k.stake)
	k.board.OnPick = k.Pick
	k.wireSounds()
	k.controls = NewControls(k.stake)
	k.controls.OnPlay = k.Play
	k.controls.OnStake = k.SetStake
	k.controls.OnHistory = k.ShowHistory
	k.bonus = NewBonusView()
	k.bonus.OnGo = k.Go
	k.history = NewHistoryPanel()
	k.history.OnRecall = k.Recall
	k.history.OnBack = k.BackToGame
	k.history.OnOlder = func() {
		if i := k.pages.older(); i >= 0 {
			k.loadHistory(i)
		}
	}
	k.history.OnNewer = func() {
		if i := k.pages.newer(); i >= 0 {
			k.loadHistory(i)
		}
	}
	k.history.Hide()
	k.strip = NewSessionStrip()
	k.strip.OnAccount = k.showAccount
	k.strip.OnLogout = func() { k.logout(engine.ActorPlayer, goodbye()) }
	k.strip.Hide()

	title := &canvas.Text{Text: "★ STAR FORTUNE ★", Color: colGold, TextSize: 30, TextStyle: fyne.TextStyle{Bold: true}}
	keys := &canvas.Text{Text: lang.L("Keys: 1 2 3 pick a puck · Enter PLAY · Space GO"), Color: colDim, TextSize: 14}
	header := container.NewHBox(k.withCorner(title), layout.NewSpacer(), container.NewCenter(keys))
	k.side = container.NewStack(k.controls, k.history)
	sideBg := &canvas.Rectangle{FillColor: colPanel}
	sideBg.FillColor = colNight
	side := container.NewStack(sideBg, container.New(layout.NewCustomPaddedLayout(4, 8, 8, 8),
		container.New(minWidth(440), container.NewBorder(nil, k.strip, nil, nil, k.side))))
	top := container.NewPadded(header)
	play := container.NewStack(k.board, k.bonus)
	k.content = container.New(&shapeLayout{header: top, board: play, side: side, onShape: k.setPortrait}, top, play, side)
	k.win.SetContent(k.content)
	k.controls.SetMessage(lang.L("Opening the terminal…"), false)
	k.update()
	k.win.Resize(fyne.NewSize(1280, 800))
	k.win.Canvas().SetOnTypedKey(k.typedKey)
	if o.Fullscreen {
		k.win.SetFullScreen(true)
		k.win.SetCloseIntercept(k.askToClose)
	}
	return k
}

// warmFonts parses the fonts of the window's text styles on a goroutine of
// its own, while the window is made (GLFW's start): the first text measured
// in a style parses its font and looks up the system's fallback for the
// locale's language, about 40 ms at the first start of the window, on the
// way to its first frame. The channel is closed when they are parsed.
func warmFonts() <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, style := range []fyne.TextStyle{{}, {Bold: true}} {
			fyne.MeasureText("0", theme.TextSize(), style)
		}
	}()
	return done
}

// setPortrait arranges the side panel for the window's shape.
func (k *Kiosk) setPortrait(portrait bool) {
	k.controls.SetPortrait(portrait)
	k.history.SetPortrait(portrait)
	k.strip.SetPortrait(portrait)
}

// attach gives the window its game and starts loading funds and history,
// or, when real money is played from accounts, shows the login screen.
func (k *Kiosk) attach(g Game) {
	k.game = g
	k.setupOperator()
	k.update()
	if k.acc != nil {
		k.player = ""
		k.showLogin("")
		return
	}
	k.start()
}

// Window is the kiosk's window.
func (k *Kiosk) Window() fyne.Window { return k.win }

// Content is the window's content.
func (k *Kiosk) Content() fyne.CanvasObject { return k.content }

// Board is the board widget.
func (k *Kiosk) Board() *Board { return k.board }

// Controls is the controls bar.
func (k *Kiosk) Controls() *Controls { return k.controls }

// Bonus is the BONUS view.
func (k *Kiosk) Bonus() *BonusView { return k.bonus }

// History is the history panel.
func (k *Kiosk) History() *HistoryPanel { return k.history }

// Wait returns once the engine calls started so far have come back. With
// Fyne's test driver, whose fyne.Do runs at once and whose animations jump
// to their end, the window has then reached its next resting state.
func (k *Kiosk) Wait() { k.calls.Wait() }

// call runs work off the UI thread with a deadline, then what it returns on
// the UI thread. hold marks the kiosk busy meanwhile (JOUER disabled).
func (k *Kiosk) call(hold bool, work func(ctx context.Context) func()) {
	if hold {
		k.busy = true
		k.update()
	}
	k.calls.Add(1)
	gen := k.gen
	go func() {
		defer k.calls.Done()
		ctx, cancel := context.WithTimeout(k.ctx, engineTimeout)
		apply := work(ctx)
		cancel()
		fyne.Do(func() {
			// One result at a time: the GL driver runs them all on its
			// thread anyway; the test driver runs each in its goroutine.
			k.applying.Lock()
			defer k.applying.Unlock()
			if hold {
				k.busy = false
			}
			if gen == k.gen { // else the session it was for has ended
				apply()
			}
			k.update()
		})
	}()
}

// after runs fn on the UI thread after d (at once in the test driver),
// unless the session has ended meanwhile.
func (k *Kiosk) after(d time.Duration, fn func()) {
	gen := k.gen
	fyne.NewAnimation(d, func(f float32) {
		if f >= 1 && gen == k.gen {
			fn()
		}
	}).Start()
}

// update enables what the player may do now.
func (k *Kiosk) update() {
	free := k.sale == nil && !k.busy
	k.controls.Enable(free, free)
	k.bonus.SetBusy(k.busy)
	if free {
		k.strip.AccountButton().Enable()
	} else {
		k.strip.AccountButton().Disable()
	}
}

// start reads the funds and the history, and offers to resume a unit the
// window was closed on.
func (k *Kiosk) start() {
	player := k.player
	k.call(true, func(ctx context.Context) func() {
		bal, err := k.game.Balance(ctx, player)
		if err != nil {
			return func() { k.fail(err) }
		}
		sale, unfinished, err := k.game.Unfinished(ctx, player)
		if err == nil {
			err = k.game.Health()
		}
		return func() {
			k.balance = bal
			k.controls.SetFunds(bal)
			k.controls.Welcome()
			if err != nil {
				k.fail(err)
				return
			}
			if unfinished {
				k.offerResume(sale)
				return
			}
			k.settled()
		}
	})
	k.loadHistory(0)
	k.touched()
}

func (k *Kiosk) offerResume(s engine.Sale) {
	msg := widget.NewLabel(lang.L("Your last game (ticket {{.Ticket}}) was interrupted. Its result is already recorded in your history. Resume it where it stopped?",
		map[string]any{"Ticket": s.Ticket.String()}))
	msg.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomConfirm(lang.L("Unfinished game"), lang.L("Resume"), lang.L("Later"), msg, func(ok bool) {
		k.asked = nil
		if ok {
			k.Resume(s)
		} else {
			k.settled()
		}
	}, k.win)
	k.asked = d
	d.Resize(fyne.NewSize(560, 260))
	d.Show()
}

// Resume puts the unit s back on the board at the step it reached.
func (k *Kiosk) Resume(s engine.Sale) {
	if k.sale != nil || k.busy {
		return
	}
	k.leaveRecall()
	k.setSale(s)
	k.controls.SetFunds(k.balance - s.Prize())
	k.board.Stake = s.Stake()
	k.board.Clear()
	drops, won := s.Shown()
	for d, drop := range drops {
		k.board.Rest(d, drop.Dest)
		if drop.Dest.Bonus && drop.Revealed {
			k.board.RevealBox(drop.Dest.Index, shortAmount(drop.Value))
		}
	}
	k.won = won
	k.next()
}

// SetStake selects the stake of the next unit.
func (k *Kiosk) SetStake(s engine.Cents) {
	k.touched()
	if k.sale != nil || k.busy {
		return
	}
	k.leaveRecall()
	k.stake = s
	k.controls.SetStake(s)
	k.board.Stake = s
	k.board.Clear()
}

// Play is JOUER: it sells one unit of the selected stake. Nothing is shown
// until the engine has recorded the sale durably.
func (k *Kiosk) Play() {
	k.touched()
	if k.sale != nil || k.busy || k.player == "" { // nobody logged in: nothing to play
		return
	}
	k.leaveRecall()
	k.opts.Sounds.Press()
	if k.history.Visible() {
		k.history.Hide()
		k.controls.Show()
	}
	k.controls.SetMessage(lang.L("Please wait…"), false)
	req := engine.SellRequest{Player: k.player, Stake: k.stake, Count: 1, Actor: kioskActor}
	k.call(true, func(ctx context.Context) func() {
		sales, err := k.game.Sell(ctx, req)
		return func() {
			if err != nil {
				k.refused(err)
				return
			}
			s := sales[0]
			k.balance = s.BalanceAfter
			k.won = 0
			k.setSale(s)
			k.soldInSession(s)
			// The stake is gone; the prize shows once the reveal ends.
			k.controls.SetFunds(s.BalanceAfter - s.Prize())
			k.board.Stake = s.Stake()
			k.board.Clear()
			k.board.SetBanner("", false)
			k.loadHistory(0)
			k.next()
		}
	})
}

// Pick chooses the puck above slot (0 to 2) for the current drop. The
// choice is recorded before the puck falls.
func (k *Kiosk) Pick(slot int) {
	k.touched()
	if k.sale == nil || k.busy || k.board.Falling() || !k.board.Offering() {
		return
	}
	step := k.sale.Next()
	if step.Kind != engine.StepPick {
		return
	}
	t := k.sale.Ticket
	k.call(true, func(ctx context.Context) func() {
		s, err := k.game.Pick(ctx, t, step.Drop, slot)
		return func() {
			if err != nil {
				k.failInPlay(err)
				return
			}
			path, err := s.Fall(step.Drop, slot)
			if err != nil {
				k.failInPlay(err)
				return
			}
			k.setSale(s)
			k.controls.SetMessage("", false)
			k.board.Glow(false)
			gen := k.gen
			k.board.Drop(step.Drop, path, k.Speed, func() {
				if gen == k.gen {
					k.landed(step.Drop)
				}
			})
		}
	})
}

// landed shows what drop reached: a spot's sum, or the BONUS step.
func (k *Kiosk) landed(drop int) {
	if k.sale == nil {
		return
	}
	d := k.sale.Unit.Drops[drop]
	if d.Dest.Bonus {
		k.next()
		return
	}
	v := d.Value(k.sale.Stake())
	k.won += v
	if v > 0 {
		k.controls.SetMessage(lang.L("The puck wins {{.Amount}}", amount(v)), false)
	} else {
		k.controls.SetMessage(lang.L("0 €: this puck wins nothing"), false)
	}
	k.after(pauseAfterSpot, k.next)
}

// Go is the GO of the BONUS step: recorded, then revealed.
func (k *Kiosk) Go() {
	k.touched()
	if k.sale == nil || k.busy || !k.bonus.Waiting() {
		return
	}
	step := k.sale.Next()
	if step.Kind != engine.StepGo {
		return
	}
	t := k.sale.Ticket
	k.call(true, func(ctx context.Context) func() {
		s, err := k.game.Go(ctx, t, step.Drop)
		return func() {
			if err != nil {
				k.failInPlay(err)
				return
			}
			k.setSale(s)
			k.board.Glow(false)
			k.opts.Sounds.Reveal()
			d := s.Unit.Drops[step.Drop]
			v := d.Value(s.Stake())
			gen := k.gen
			k.bonus.Reveal(v, func() {
				if gen != k.gen {
					return
				}
				k.won += v
				k.board.RevealBox(d.Dest.Index, shortAmount(v))
				k.controls.SetMessage(lang.L("BONUS: you win {{.Amount}}", amount(v)), false)
				k.after(pauseAfterBonus, func() {
					k.bonus.Hide()
					k.next()
				})
			})
		}
	})
}

// next moves to the step the unit is at.
func (k *Kiosk) next() {
	if k.sale == nil {
		return
	}
	step := k.sale.Next()
	switch step.Kind {
	case engine.StepPick:
		if step.Drop == 0 {
			k.controls.SetMessage(lang.L("Pick a puck: 1, 2 or 3"), false)
		} else {
			k.controls.SetMessage(lang.L("Pick your second puck among three new ones"), false)
		}
		k.board.Offer(true)
		k.board.Glow(true)
	case engine.StepGo:
		k.controls.SetMessage(lang.L("BONUS! Press GO to reveal your win"), false)
		k.bonus.Ask()
		k.opts.Sounds.Bonus()
		k.board.Glow(true)
	case engine.StepDone:
		k.finish()
	}
}

// finish ends the unit: the prize as one amount, the funds with it.
func (k *Kiosk) finish() {
	s := *k.sale
	k.sale = nil
	prize := s.Prize()
	if k.won != prize { // cannot happen: the drops sum to the prize
		fyne.LogError("revealed drops differ from the prize", errors.New(s.Ticket.String()))
	}
	k.controls.SetFunds(k.balance)
	k.controls.SetLast(prize)
	result := lang.L("Not a winner this time")
	if prize > 0 {
		result = lang.L("You win {{.Amount}}!", amount(prize))
	}
	k.controls.SetMessage(result, false)
	k.board.SetBanner(result, false)
	k.resultSound(s)
	k.loadHistory(0)
	k.update()
	if k.sess != nil {
		k.sess.owed = 0
		k.showSession()
		k.after(pauseAfterSpot, k.settled) // the result seen, the hand-pay lock if it won one
	}
}

func (k *Kiosk) setSale(s engine.Sale) { k.sale = &s }

// fail reports an error of JOUER or of the start: nothing moved.
func (k *Kiosk) fail(err error) {
	fyne.LogError("kiosk", err)
	k.controls.SetMessage(errorText(err), true)
}

// failInPlay reports an error during a reveal: the unit is sold and its
// outcome recorded, so the player is sent to the history.
func (k *Kiosk) failInPlay(err error) {
	fyne.LogError("kiosk reveal", err)
	k.controls.SetMessage(errorText(err)+"\n"+lang.L("Your game is recorded: see « Last game » in the history"), true)
}

// errorText is the player's message for an engine error.
func errorText(err error) string {
	var limit *engine.LimitError
	switch {
	case errors.As(err, &limit):
		return limitText(limit)
	case errors.Is(err, engine.ErrInsufficientFunds):
		return lang.L("Insufficient funds")
	case errors.Is(err, engine.ErrStakeClosed):
		return lang.L("This stake is closed: all its units are sold. Choose another stake.")
	case errors.Is(err, engine.ErrDiskFull):
		return lang.L("Terminal temporarily unavailable (disk full): nothing was debited. Please call an attendant.")
	case errors.Is(err, engine.ErrDemoOnly):
		return lang.L("Demo terminal: only the demo funds play here, no real money.")
	case errors.Is(err, engine.ErrOffline), errors.Is(err, engine.ErrCentralUnavailable):
		return lang.L("Terminal offline: sales resume by themselves when the connection returns. Nothing was debited.")
	case errors.Is(err, engine.ErrLeaseSpent):
		return lang.L("Your play allowance from the central is used up and it cannot be reached to renew it: play resumes when the connection returns. Nothing was debited.")
	case errors.Is(err, engine.ErrNoSession):
		return lang.L("Your session has ended: log in again with your card.")
	case errors.Is(err, engine.ErrNoAccount):
		return lang.L("Real-money play needs a player account: please see an attendant.")
	}
	return lang.L("Terminal out of service, please call an attendant")
}

// typedKey is the keypad: 1/2/3 pick a puck, Enter is JOUER, Space is GO.
// No key reaches the board behind a dialog (the PIN pad, the resume offer,
// the confirm-close, a message): Fyne hands the canvas every key that no
// widget of the dialog has the focus for, and a dialog is on the canvas's
// overlays from its Show to its Hide.
func (k *Kiosk) typedKey(ev *fyne.KeyEvent) {
	if k.oper.active() || k.game == nil { // the attendant's keys are not the player's; nothing to play while locked
		return
	}
	if k.win.Canvas().Overlays().Top() != nil {
		return
	}
	if k.front != nil { // a player's screen in front of the game: its keypad
		if k.front.pad != nil {
			k.touched()
			k.front.pad.typed(ev)
		}
		return
	}
	switch ev.Name {
	case fyne.Key1:
		k.Pick(0)
	case fyne.Key2:
		k.Pick(1)
	case fyne.Key3:
		k.Pick(2)
	case fyne.KeyReturn, fyne.KeyEnter:
		k.Play()
	case fyne.KeySpace:
		k.Go()
	default:
		k.touched()
	}
}

// confirmQuit asks before the kiosk window closes when the game has no
// operator side (in kiosk mode the operator PIN is asked instead).
func (k *Kiosk) confirmQuit() {
	msg := widget.NewLabel(lang.L("The terminal will close."))
	dialog.NewCustomConfirm(lang.L("Leave Star Fortune?"), lang.L("Quit"), lang.L("Cancel"), msg, func(ok bool) {
		if ok {
			k.win.Close()
		}
	}, k.win).Show()
}

// touched notes player input: it ends the attract animation and restarts
// the idle countdown.
func (k *Kiosk) touched() {
	if k.sess != nil {
		k.sess.input = time.Now()
	}
	if k.board.Attracting() {
		k.board.StopAttract()
	}
	if k.opts.IdleTimeout <= 0 {
		return
	}
	k.idleGen++
	gen := k.idleGen
	if k.idle != nil {
		k.idle.Stop()
	}
	k.idle = time.AfterFunc(k.opts.IdleTimeout, func() {
		fyne.Do(func() {
			if gen == k.idleGen && k.sale == nil && !k.busy && !k.recall {
				k.board.StartAttract(lang.L("Press PLAY to start"))
				k.opts.Sounds.Attract()
			}
		})
	})
}

// minWidth is a layout giving its objects at least a width.
type minWidth float32

func (w minWidth) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objs {
		s = s.Max(o.MinSize())
	}
	return s.Max(fyne.NewSize(float32(w), 0))
}

func (w minWidth) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

// fundsChanged updates the kiosk's funds when the operator moved the
// money of the kiosk's own player between units.
func (k *Kiosk) fundsChanged(player string, bal engine.Cents) {
	if player != k.player {
		return
	}
	k.balance = bal
	if k.sale == nil {
		k.controls.SetFunds(bal)
	}
}
