package ui

import (
	"context"
	"errors"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"starfortune/engine"
)

// The player's protections at the window (SPEC §10): what a JOUER refused
// by one of them shows. A refused JOUER sold nothing, so nothing moves on
// the board, the funds or the strip: the reality check and the hand-pay
// lock come in front of the game, a limit is said on the message line.

// refused shows why the engine refused a JOUER.
func (k *Kiosk) refused(err error) {
	var check *engine.RealityCheckError
	var held *engine.HeldError
	var excluded *engine.ExcludedError
	switch {
	case k.sess == nil:
		k.fail(err)
	case errors.As(err, &check):
		k.realityCheck()
	case errors.As(err, &held):
		k.showHeld(held.Held)
	case errors.As(err, &excluded): // a break an attendant recorded
		k.endSession(breakText(excluded.Break))
	case errors.Is(err, engine.ErrListed), errors.Is(err, engine.ErrNoSession): // ended by an attendant
		k.endSession(loginRefusal(err))
	default:
		k.fail(err)
	}
}

// limitText says which limit refused a stake, how much of it is used, and
// when the stake fits again (never, when it is above the limit itself).
func limitText(e *engine.LimitError) string {
	data := map[string]any{"Limit": limitName(e.Limit), "Used": money(e.Used), "Max": money(e.Max), "Amount": money(e.Amount)}
	switch {
	case e.Never():
		return lang.L("{{.Limit}}: the amount of {{.Amount}} is over the limit of {{.Max}}.", data)
	case e.Frees.IsZero(): // a fleet's limit: room frees as older stakes leave the window, at any kiosk
		return lang.L("{{.Limit}} reached: {{.Used}} of {{.Max}} used, or held by a session open at another kiosk, at every kiosk of the network.", data)
	}
	data["Date"] = when(e.Frees)
	return lang.L("{{.Limit}} reached: {{.Used}} used of {{.Max}}. A stake of {{.Amount}} fits again from {{.Date}}.", data)
}

// limitName names a limit for the player: "Stake limit over 7 days".
func limitName(k engine.LimitKey) string {
	switch k {
	case engine.LimitKey{Kind: engine.LimitDeposit, Window: engine.WindowDay}:
		return lang.L("Deposit limit over 24 hours")
	case engine.LimitKey{Kind: engine.LimitDeposit, Window: engine.WindowWeek}:
		return lang.L("Deposit limit over 7 days")
	case engine.LimitKey{Kind: engine.LimitDeposit, Window: engine.WindowMonth}:
		return lang.L("Deposit limit over 30 days")
	case engine.LimitKey{Kind: engine.LimitStake, Window: engine.WindowDay}:
		return lang.L("Stake limit over 24 hours")
	case engine.LimitKey{Kind: engine.LimitStake, Window: engine.WindowWeek}:
		return lang.L("Stake limit over 7 days")
	case engine.LimitKey{Kind: engine.LimitStake, Window: engine.WindowMonth}:
		return lang.L("Stake limit over 30 days")
	case engine.LimitKey{Kind: engine.LimitLoss, Window: engine.WindowDay}:
		return lang.L("Loss limit over 24 hours")
	case engine.LimitKey{Kind: engine.LimitLoss, Window: engine.WindowWeek}:
		return lang.L("Loss limit over 7 days")
	}
	return lang.L("Loss limit over 30 days")
}

// realityCheck pauses play on the session's figures, read again from the
// engine, until the player says they read them.
func (k *Kiosk) realityCheck() {
	s, acc, player := k.sess, k.acc, k.player
	k.call(true, func(ctx context.Context) func() {
		a, err := acc.Account(ctx, player)
		return func() {
			if err != nil {
				k.fail(err)
				return
			}
			s.acct, s.readAt = a, time.Now()
			k.showSession()
			k.showFront(k.realityScreen(s))
		}
	})
}

// realityScreen is the reality check: the time played, the stakes, the
// wins and the net result, and play goes on only once acknowledged.
func (k *Kiosk) realityScreen(s *session) *frontScreen {
	head := &canvas.Text{Text: lang.L("Reality check"), Color: colGold, TextSize: 36, TextStyle: fyne.TextStyle{Bold: true}, Alignment: fyne.TextAlignCenter}
	intro := widget.NewLabel(lang.L("You have been playing for {{.Time}}. Take a moment to look at your session: play goes on once you have read it.",
		map[string]any{"Time": span(s.elapsed())}))
	intro.Wrapping, intro.Alignment = fyne.TextWrapWord, fyne.TextAlignCenter
	figs := newFigures()
	figs.arrange(2, 34)
	figs.setTime(s.elapsed())
	figs.setMoney(s.acct.Session.Staked, s.acct.Session.Won)
	message := widget.NewLabel("")
	message.Wrapping, message.Alignment, message.Importance = fyne.TextWrapWord, fyne.TextAlignCenter, widget.DangerImportance
	var goOn *bigButton
	goOn = newBigButton(lang.L("I HAVE READ IT: PLAY ON"), 26, func() {
		k.touched()
		acc, player := k.acc, k.player
		goOn.Disable()
		k.call(true, func(ctx context.Context) func() {
			a, err := acc.RealityCheck(ctx, player)
			return func() {
				goOn.Enable()
				if err != nil {
					message.SetText(errorText(err))
					return
				}
				s.acct, s.readAt = a, time.Now()
				k.showSession()
				k.showFront(nil)
				k.controls.Welcome()
			}
		})
	})
	leave := widget.NewButtonWithIcon(lang.L("LOG OUT"), theme.LogoutIcon(), func() { k.logout(engine.ActorPlayer, goodbye()) })
	return &frontScreen{name: "reality-check", content: k.cornered(cover(640, gap(12), head, intro, card(figs.content), gap(8),
		tall(goOn, bigButtonHeight), message, tall(leave, stakeButtonHeight)))}
}

// goodbye is the login screen's word after a logout.
func goodbye() string { return lang.L("Goodbye: your session is closed.") }

// showHeld puts the hand-pay lock in front while the account holds prizes
// for an attendant ("Gain exceptionnel : adressez-vous à un agent"), and
// takes it away once they are paid.
func (k *Kiosk) showHeld(held []engine.HeldPrize) {
	s := k.sess
	if len(held) == 0 {
		if s.held != nil {
			if k.front == s.held {
				k.showFront(nil)
			}
			s.held = nil
			k.start() // the funds, after the payout
		}
		return
	}
	if s.held != nil {
		return
	}
	head := widget.NewLabel(lang.L("Exceptional win: please see an attendant"))
	head.Wrapping, head.Alignment, head.Importance = fyne.TextWrapWord, fyne.TextAlignCenter, widget.HighImportance
	head.SizeName, head.TextStyle = theme.SizeNameHeadingText, fyne.TextStyle{Bold: true}
	prizes := container.NewVBox()
	for _, h := range held {
		prizes.Add(container.NewBorder(nil, nil, container.NewCenter(dimLabel(lang.L("Ticket {{.Ticket}}", map[string]any{"Ticket": h.Ticket.String()}))),
			&canvas.Text{Text: money(h.Prize), Color: colGold, TextSize: 30, TextStyle: fyne.TextStyle{Bold: true}, Alignment: fyne.TextAlignTrailing}))
	}
	why := widget.NewLabel(lang.L("This win is paid by an attendant once your identity is checked. Play on your account resumes once it is paid."))
	why.Wrapping, why.Alignment = fyne.TextWrapWord, fyne.TextAlignCenter
	leave := widget.NewButtonWithIcon(lang.L("LOG OUT"), theme.LogoutIcon(), func() { k.logout(engine.ActorPlayer, goodbye()) })
	s.held = &frontScreen{name: "hand-pay", content: k.cornered(cover(760, gap(12), head, card(prizes), why, gap(12), tall(leave, stakeButtonHeight)))}
	k.showFront(s.held)
}

// figures are the session's four figures, as the strip and the reality
// check show them: the time played, the stakes, the wins, the net result.
type figures struct {
	time, staked, won, net *canvas.Text
	titles                 []*canvas.Text
	content                *fyne.Container
}

func newFigures() *figures {
	value := func() *canvas.Text {
		return &canvas.Text{Color: colText, TextStyle: fyne.TextStyle{Bold: true}, Alignment: fyne.TextAlignCenter}
	}
	f := &figures{time: value(), staked: value(), won: value(), net: value(), content: container.NewStack()}
	for _, t := range []string{lang.L("Time played"), lang.L("Staked"), lang.L("Won"), lang.L("Net result")} {
		f.titles = append(f.titles, &canvas.Text{Text: t, Color: colDim, TextSize: 15, Alignment: fyne.TextAlignCenter})
	}
	return f
}

// arrange lays the figures out in columns, their values at size.
func (f *figures) arrange(columns int, size float32) {
	grid := container.NewGridWithColumns(columns)
	for i, v := range []*canvas.Text{f.time, f.staked, f.won, f.net} {
		v.TextSize = size
		grid.Add(container.NewVBox(f.titles[i], v))
	}
	f.content.Objects = []fyne.CanvasObject{grid}
	f.content.Refresh()
}

// setTime writes the time played.
func (f *figures) setTime(played time.Duration) {
	if t := span(played); t != f.time.Text {
		f.time.Text = t
		f.time.Refresh()
	}
}

// setMoney writes the stakes, the wins and the net result, green ahead
// and red behind.
func (f *figures) setMoney(staked, won engine.Cents) {
	f.staked.Text, f.won.Text, f.net.Text = money(staked), money(won), money(won-staked)
	f.net.Color = colText
	if won > staked {
		f.net.Color = colGreen
	} else if won < staked {
		f.net.Color = colRed
	}
	for _, t := range []*canvas.Text{f.staked, f.won, f.net} {
		t.Refresh()
	}
}

// text is what the figures say: time, staked, won, net.
func (f *figures) text() [4]string {
	return [4]string{f.time.Text, f.staked.Text, f.won.Text, f.net.Text}
}
