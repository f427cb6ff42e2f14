package ui

import (
	"context"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"starfortune/engine"
)

// A kiosk playing real money (Terminal.ServeAccounts) plays the wallet of
// the player logged in, from the login screen to the logout: the player's
// button, the idle logout, a break. Meanwhile the session strip shows the
// session's time, stakes, wins and net result, and the player's screens
// (the reality check, the hand-pay lock, the account) come in front of
// the game when the engine says so.

// frontScreen is a player's screen in front of the game: the login, the
// reality check, the hand-pay lock, the account. The keyboard types on
// its keypad, if it shows one; else it does nothing there.
type frontScreen struct {
	name    string // "login", "reality-check", "hand-pay", "account"
	content fyne.CanvasObject
	pad     *keypad
}

// showFront puts f in front of the game (nil: the game itself). While the
// operator panel is open, f waits behind it: closing the panel shows it.
func (k *Kiosk) showFront(f *frontScreen) {
	k.front = f
	if k.oper.panel != nil {
		return
	}
	if f == nil {
		k.win.SetContent(k.content)
		return
	}
	k.win.SetContent(f.content)
}

// cornered lays over a player's screen the top-left corner that, held,
// asks for the operator PIN, as the game's title does.
func (k *Kiosk) cornered(obj fyne.CanvasObject) fyne.CanvasObject {
	c := newCornerPress(k.opts.CornerHold, k.OpenOperator)
	c.Resize(fyne.NewSize(120, 120))
	return container.NewStack(obj, container.NewWithoutLayout(c))
}

// session is the player logged in at the window.
type session struct {
	acct   engine.Account // as last read, and the units sold since
	readAt time.Time      // when acct was read, on the window's clock
	owed   engine.Cents   // the prize of the unit in play, not revealed yet
	held   *frontScreen   // the hand-pay lock, while it shows
	input  time.Time      // the player's last touch or key
	idle   *time.Timer    // the idle logout
	stop   chan struct{}  // ends the clock
}

// elapsed is the time in session: the engine's, as last read, and the
// time passed since on the window's clock.
func (s *session) elapsed() time.Duration {
	return s.acct.Clock.Sub(s.acct.Session.Start) + time.Since(s.readAt)
}

// kioskActor names the window itself in the engine's records: its sales,
// its idle logouts.
const kioskActor = "kiosk"

// sessionTick is how often the strip's time is written again, and the
// account read while a prize is held.
var sessionTick = 5 * time.Second // a var: the package's tests drive the ticks (export_test.go)

// loggedIn starts the session of a: the game comes back, on its wallet.
func (k *Kiosk) loggedIn(a engine.Account) {
	k.gen++
	k.login = nil
	k.player = a.Player
	s := &session{acct: a, readAt: time.Now(), input: time.Now(), stop: make(chan struct{})}
	k.sess = s
	idle := k.acc.Protection().IdleLogout
	s.idle = time.AfterFunc(idle, func() { fyne.Do(func() { k.idleCheck(s, idle) }) })
	go func() {
		t := time.NewTicker(sessionTick)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				fyne.Do(func() { k.tick(s) })
			case <-s.stop:
				return
			case <-k.ctx.Done():
				return
			}
		}
	}()
	k.showSession()
	k.strip.Show()
	k.content.Refresh() // the side column makes room for the strip
	k.showFront(nil)
	k.start()
}

// tick writes the session's time again, and reads the account while a
// prize is held: the lock goes once an attendant paid it.
func (k *Kiosk) tick(s *session) {
	if k.sess != s {
		return
	}
	k.strip.SetTime(s.elapsed())
	if s.held != nil {
		k.settled()
	}
}

// idleCheck logs the player out once nobody touched the kiosk for idle;
// not while an attendant works at it.
func (k *Kiosk) idleCheck(s *session, idle time.Duration) {
	if k.sess != s {
		return
	}
	switch left := idle - time.Since(s.input); {
	case k.oper.active():
		s.idle.Reset(idle)
		return
	case left > 0:
		s.idle.Reset(left)
		return
	}
	k.logout(kioskActor, lang.L("Your session was closed after {{.Time}} without activity.", map[string]any{"Time": span(idle)}))
}

// logout ends the session (actor: the player's button, or the kiosk's idle
// logout) and says note on the login screen, which takes a card again
// once the engine has closed the session.
func (k *Kiosk) logout(actor, note string) {
	if k.sess == nil {
		return
	}
	player := k.player
	k.endSession(note)
	l, acc := k.login, k.acc
	l.pad.SetEnabled(false)
	k.call(false, func(ctx context.Context) func() {
		_, err := acc.CloseSession(ctx, player, actor)
		return func() {
			l.pad.SetEnabled(true)
			if err != nil { // the next login closes it
				fyne.LogError("logout", err)
			}
		}
	})
}

// endSession takes the player's session off the window, the engine's
// being closed (or ended by a break), and shows the login screen saying
// note. Nothing of the player stays on screen; what the engine still
// answers for the session is dropped (call).
func (k *Kiosk) endSession(note string) {
	s := k.sess
	if s == nil {
		return
	}
	k.gen++
	k.sess, k.player = nil, ""
	s.idle.Stop()
	close(s.stop)
	if k.asked != nil {
		k.asked.Hide()
		k.asked = nil
	}
	k.sale, k.won = nil, 0
	k.leaveRecall()
	k.bonus.Hide()
	k.board.Clear()
	k.board.Glow(false)
	k.board.SetBanner("", false)
	k.history.Hide()
	k.history.SetPage(nil, nil, 1, false)
	k.pages, k.last = newPager(), nil
	k.controls.Reset()
	k.controls.Show()
	k.strip.Hide()
	k.content.Refresh()
	k.showLogin(note)
}

// showSession writes the session's figures on the strip: a prize shows
// once its unit is revealed.
func (k *Kiosk) showSession() {
	s := k.sess
	k.strip.SetTime(s.elapsed())
	k.strip.SetFigures(s.acct.Session.Staked, s.acct.Session.Won-s.owed)
}

// soldInSession counts a unit sold in the session.
func (k *Kiosk) soldInSession(sale engine.Sale) {
	if s := k.sess; s != nil {
		s.acct.Session.Staked += sale.Stake()
		s.acct.Session.Won += sale.Prize()
		s.owed = sale.Prize()
		k.showSession()
	}
}

// settled reads the account again between units: the session's figures
// from the engine, and the hand-pay lock while a prize is held (so it
// shows once the unit that won it is revealed, and at login, and goes once
// an attendant paid it).
func (k *Kiosk) settled() {
	s := k.sess
	if s == nil {
		return
	}
	acc, player := k.acc, k.player
	k.call(false, func(ctx context.Context) func() {
		a, err := acc.Account(ctx, player)
		return func() {
			if err != nil {
				fyne.LogError("account", err)
				return
			}
			if k.sale != nil {
				return // a unit is in play: its sale counted it
			}
			s.acct, s.readAt, s.owed = a, time.Now(), 0
			k.showSession()
			k.showHeld(a.Held)
		}
	})
}

// SessionStrip is the player's session, always in sight while logged in
// (SPEC §10): the time in session, the stakes, the wins and the net
// result, with the buttons to the account and to log out. In portrait it
// fills the lower third under the controls; in landscape it sits at the
// foot of the column beside the board.
type SessionStrip struct {
	widget.BaseWidget

	OnAccount func()
	OnLogout  func()

	figures         *figures
	account, logout *widget.Button
	holder          *fyne.Container
	portrait        bool
}

// NewSessionStrip returns a strip at zero.
func NewSessionStrip() *SessionStrip {
	s := &SessionStrip{figures: newFigures()}
	s.ExtendBaseWidget(s)
	s.account = widget.NewButtonWithIcon(lang.L("MY ACCOUNT"), theme.AccountIcon(), func() {
		if s.OnAccount != nil {
			s.OnAccount()
		}
	})
	s.logout = widget.NewButtonWithIcon(lang.L("LOG OUT"), theme.LogoutIcon(), func() {
		if s.OnLogout != nil {
			s.OnLogout()
		}
	})
	s.holder = container.NewStack()
	s.SetTime(0)
	s.SetFigures(0, 0)
	s.arrange()
	return s
}

// SetPortrait arranges the strip for a portrait window (a title, larger
// figures) or a landscape one (compact, under the controls).
func (s *SessionStrip) SetPortrait(portrait bool) {
	if portrait != s.portrait {
		s.portrait = portrait
		s.arrange()
	}
}

func (s *SessionStrip) arrange() {
	size, buttonH := float32(20), float32(stakeButtonHeight)
	var top []fyne.CanvasObject
	if s.portrait { // the lower third has room: a title, larger figures and keys
		size, buttonH = 34, portraitStakeHeight
		top = append(top, &canvas.Text{Text: lang.L("YOUR SESSION"), Color: colGold, TextSize: 16, TextStyle: fyne.TextStyle{Bold: true}})
	}
	s.figures.arrange(4, size)
	buttons := container.NewGridWithColumns(2, keyCap(s.account, buttonH), keyCap(s.logout, buttonH))
	s.holder.Objects = []fyne.CanvasObject{card(container.NewVBox(append(top, s.figures.content, buttons)...))}
	s.holder.Refresh()
}

// CreateRenderer is part of fyne.Widget.
func (s *SessionStrip) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(s.holder)
}

// SetTime writes the time in session.
func (s *SessionStrip) SetTime(d time.Duration) { s.figures.setTime(d) }

// SetFigures writes what the session staked and won, and the net result.
func (s *SessionStrip) SetFigures(staked, won engine.Cents) { s.figures.setMoney(staked, won) }

// Figures are the strip's texts: time, staked, won, net.
func (s *SessionStrip) Figures() [4]string { return s.figures.text() }

// AccountButton opens the player's account.
func (s *SessionStrip) AccountButton() *widget.Button { return s.account }

// LogoutButton logs the player out.
func (s *SessionStrip) LogoutButton() *widget.Button { return s.logout }
