package ui

import (
	"context"
	"errors"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"starfortune/engine"
)

// accountScreen is the player's own account (SPEC §10): the limits in
// force and the changes waiting with their dates; a limit lowered, which
// applies at once, or raised or removed, which applies after the
// cooling-off; a break taken, which cannot be shortened and logs out.
type accountScreen struct {
	k       *Kiosk
	acct    engine.Account
	balance engine.Cents
	funds   *fyne.Container // the balance and what of it is not stakeable
	limits  *fyne.Container // a row per limit
	side    *fyne.Container // the breaks, or the limit being changed
	breaks  fyne.CanvasObject
	edit    *limitEditor // nil: none
	message *widget.Label
	front   *frontScreen
}

// showAccount opens the player's account, between units.
func (k *Kiosk) showAccount() {
	k.touched()
	if k.sess == nil || k.sale != nil || k.busy {
		return
	}
	a := &accountScreen{k: k, funds: container.NewVBox(), limits: container.NewVBox(), side: container.NewStack(), message: widget.NewLabel("")}
	a.message.Wrapping, a.message.Alignment, a.message.TextStyle = fyne.TextWrapWord, fyne.TextAlignCenter, fyne.TextStyle{Bold: true}
	a.breaks = a.breakPanel()
	a.side.Objects = []fyne.CanvasObject{a.breaks}
	title := &canvas.Text{Text: lang.L("MY ACCOUNT"), Color: colGold, TextSize: 30, TextStyle: fyne.TextStyle{Bold: true}}
	back := widget.NewButtonWithIcon(lang.L("Back to the game"), theme.NavigateBackIcon(), func() {
		k.touched()
		if k.front == a.front {
			k.showFront(nil)
		}
	})
	back.Importance = widget.HighImportance
	cardNo := &canvas.Text{Text: lang.L("Card {{.Card}}", map[string]any{"Card": k.sess.acct.Card.Spaced()}), Color: colDim, TextSize: 17}
	head := container.NewBorder(nil, nil, container.NewHBox(title, container.NewCenter(cardNo)), container.New(minWidth(260), tall(back, stakeButtonHeight)))
	limits := container.NewVBox(heading(lang.L("Your limits")), a.funds, a.limits)
	body := container.New(pair{}, card(limits), card(a.side))
	page := container.NewBorder(container.NewVBox(head, a.message), nil, nil, nil, body)
	a.front = &frontScreen{
		name:    "account",
		content: k.cornered(container.NewStack(&canvas.Rectangle{FillColor: colNight}, container.NewPadded(page))),
	}
	k.showFront(a.front)
	a.load("", false)
}

// load reads the account and its funds again and shows them, saying msg.
func (a *accountScreen) load(msg string, alert bool) {
	k := a.k
	acc, player := k.acc, k.player
	k.call(false, func(ctx context.Context) func() {
		acct, err := acc.Account(ctx, player)
		var bal engine.Cents
		if err == nil {
			bal, err = acc.Balance(ctx, player)
		}
		return func() {
			if err != nil {
				a.say(errorText(err), true)
				return
			}
			a.acct, a.balance = acct, bal
			a.show()
			a.say(msg, alert)
		}
	})
}

func (a *accountScreen) say(msg string, alert bool) {
	a.message.Importance = widget.MediumImportance
	if alert {
		a.message.Importance = widget.DangerImportance
	}
	a.message.SetText(msg)
}

// show writes the funds and the limits as read.
func (a *accountScreen) show() {
	acct := a.acct
	rows := []fyne.CanvasObject{dimLabel(lang.L("Funds")), valueLabel(money(a.balance))}
	if v := acct.SetAside + acct.HeldTotal(); v > 0 {
		rows = append(rows, dimLabel(lang.L("Of which to be paid out")), valueLabel(money(v)))
	}
	a.funds.Objects = []fyne.CanvasObject{container.New(formLayout{gap: 4}, rows...), gap(6)}
	a.funds.Refresh()
	a.limits.Objects = nil
	now := acct.Clock
	for _, key := range engine.LimitKeys {
		value := lang.L("none")
		if v, ok := acct.Limit(key, now); ok {
			value = money(v)
		}
		change := widget.NewButton(lang.L("Change"), func() { a.editLimit(key) })
		row := container.NewBorder(nil, nil, nil, container.NewHBox(valueLabel(value), container.New(minWidth(130), keyCap(change, 44))),
			&canvas.Text{Text: limitName(key), Color: colText, TextSize: 16})
		a.limits.Add(row)
		if p, ok := acct.PendingFor(key, now); ok {
			a.limits.Add(&canvas.Text{Text: pendingText(p), Color: colGold, TextSize: 14})
		}
	}
	a.limits.Refresh()
}

// pendingText says a change waiting for its cooling-off, and its date.
func pendingText(p engine.PendingLimit) string {
	if p.Amount == 0 {
		return lang.L("↳ removed on {{.Date}}", map[string]any{"Date": when(p.Effective)})
	}
	return lang.L("↳ {{.Amount}} from {{.Date}}", map[string]any{"Amount": money(p.Amount), "Date": when(p.Effective)})
}

// limitEditor changes one limit: the amount typed in whole euros on the
// keypad, or the limit removed (an optional one).
type limitEditor struct {
	key   engine.LimitKey
	euros string
	shown *canvas.Text
	pad   *keypad
}

// editLimit shows the editor of key in place of the breaks.
func (a *accountScreen) editLimit(key engine.LimitKey) {
	a.k.touched()
	e := &limitEditor{key: key, pad: newKeypad()}
	e.shown = &canvas.Text{Color: colGold, TextSize: 40, TextStyle: fyne.TextStyle{Bold: true}, Alignment: fyne.TextAlignCenter}
	a.edit, a.front.pad = e, e.pad
	refresh := func() {
		e.shown.Text = "– €"
		if e.euros != "" {
			v, _ := strconv.Atoi(e.euros)
			e.shown.Text = shortAmount(engine.Cents(v) * 100)
		}
		e.shown.Refresh()
	}
	e.pad.OnDigit = func(d byte) {
		if len(e.euros) < 6 && (e.euros != "" || d != '0') {
			e.euros += string(d)
			refresh()
		}
	}
	e.pad.OnBack = func() {
		if e.euros != "" {
			e.euros = e.euros[:len(e.euros)-1]
			refresh()
		}
	}
	e.pad.OnEnter = func() {
		if e.euros == "" {
			a.say(lang.L("Type the new amount in euros."), true)
			return
		}
		v, _ := strconv.Atoi(e.euros)
		a.setLimit(key, engine.Cents(v)*100)
	}
	cur := lang.L("In force: none")
	if v, ok := a.acct.Limit(key, a.acct.Clock); ok {
		cur = lang.L("In force: {{.Amount}}", amount(v))
	}
	hint := widget.NewLabel(lang.L("A lower limit applies at once; a higher one, or a limit removed, only after the cooling-off."))
	hint.Wrapping = fyne.TextWrapWord
	cancel := widget.NewButtonWithIcon(lang.L("Cancel"), theme.CancelIcon(), a.closeEditor)
	remove := keyCap(widget.NewButtonWithIcon(lang.L("Remove this limit"), theme.DeleteIcon(), func() { a.setLimit(key, 0) }), stakeButtonHeight)
	if _, ok := a.acct.Limit(key, a.acct.Clock); key.Mandatory() || !ok {
		remove.Hide()
	}
	refresh()
	a.side.Objects = []fyne.CanvasObject{container.NewVBox(heading(limitName(key)), dimLabel(cur), hint, card(e.shown), e.pad,
		container.NewGridWithColumns(2, keyCap(cancel, stakeButtonHeight), remove))}
	a.side.Refresh()
	a.say("", false)
}

func (a *accountScreen) closeEditor() {
	a.edit, a.front.pad = nil, nil
	a.side.Objects = []fyne.CanvasObject{a.breaks}
	a.side.Refresh()
}

// setLimit asks the engine for the change and says what it did: lowered
// now, or raised or removed from a date.
func (a *accountScreen) setLimit(key engine.LimitKey, v engine.Cents) {
	k := a.k
	k.touched()
	acc, player := k.acc, k.player
	a.edit.pad.SetEnabled(false)
	k.call(false, func(ctx context.Context) func() {
		ch, err := acc.SetLimit(ctx, engine.ActorPlayer, player, key, v)
		return func() {
			a.edit.pad.SetEnabled(true)
			if err != nil {
				a.say(limitChangeRefusal(err), true)
				return
			}
			a.closeEditor()
			a.load(limitChangeText(ch), false)
		}
	})
}

// limitChangeText says what a limit change did.
func limitChangeText(ch engine.PendingLimit) string {
	data := map[string]any{"Limit": limitName(ch.Key), "Amount": money(ch.Amount), "Date": when(ch.Effective)}
	switch {
	case ch.Effective.After(ch.Requested) && ch.Amount == 0:
		return lang.L("{{.Limit}}: removal asked. It applies on {{.Date}}.", data)
	case ch.Effective.After(ch.Requested):
		return lang.L("{{.Limit}}: raise to {{.Amount}} asked. It applies on {{.Date}}.", data)
	}
	return lang.L("{{.Limit}} is now {{.Amount}}.", data)
}

// limitChangeRefusal is why a limit could not be changed.
func limitChangeRefusal(err error) string {
	var pending *engine.PendingError
	switch {
	case errors.As(err, &pending):
		return lang.L("A change of this limit already waits until {{.Date}}: it cannot be changed again before.", map[string]any{"Date": when(pending.Pending.Effective)})
	case errors.Is(err, engine.ErrLimitRequired):
		return lang.L("This limit is mandatory: it can be lowered or raised, not removed.")
	case errors.Is(err, engine.ErrBadLimit):
		return lang.L("This amount is not possible for a limit.")
	}
	return errorText(err)
}

// breakPanel offers the breaks: each asks for a confirmation saying that
// it cannot be shortened.
func (a *accountScreen) breakPanel() fyne.CanvasObject {
	intro := widget.NewLabel(lang.L("Stop playing for a while: during a break you cannot log in or play. Your funds stay payable by an attendant."))
	intro.Wrapping = fyne.TextWrapWord
	grid := container.NewGridWithColumns(2)
	for _, b := range engine.Breaks {
		grid.Add(keyCap(widget.NewButton(breakName(b), func() { a.confirmBreak(b) }), stakeButtonHeight))
	}
	return container.NewVBox(heading(lang.L("Take a break")), intro, grid)
}

// breakName is a break's length: "7 days".
func breakName(b engine.Break) string {
	switch b {
	case engine.Break24h:
		return lang.L("24 hours")
	case engine.Break7d:
		return lang.L("7 days")
	case engine.Break30d:
		return lang.L("30 days")
	case engine.Break3m:
		return lang.L("3 months")
	case engine.Break6m:
		return lang.L("6 months")
	case engine.Break12m:
		return lang.L("12 months")
	}
	return lang.L("Indefinite")
}

// confirmBreak asks before a break: it cannot be shortened. Taken, it
// ends the session.
func (a *accountScreen) confirmBreak(b engine.Break) {
	k := a.k
	k.touched()
	text := lang.L("From now, you will not be able to log in or play for {{.Length}}. A break cannot be shortened, not even by an attendant.",
		map[string]any{"Length": breakName(b)})
	if b == engine.BreakIndefinite {
		text = lang.L("From now, you will not be able to log in or play, with no end date. A break cannot be shortened, not even by an attendant.")
	}
	msg := widget.NewLabel(text)
	msg.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomConfirm(lang.L("Take a break?"), lang.L("Take the break"), lang.L("Cancel"), msg, func(ok bool) {
		k.asked = nil
		if ok {
			a.takeBreak(b)
		}
	}, k.win)
	k.asked = d
	d.Resize(fyne.NewSize(560, 300))
	d.Show()
}

func (a *accountScreen) takeBreak(b engine.Break) {
	k := a.k
	k.touched()
	acc, player := k.acc, k.player
	k.call(false, func(ctx context.Context) func() {
		e, err := acc.TakeBreak(ctx, engine.ActorPlayer, player, b)
		return func() {
			if err != nil {
				a.say(errorText(err), true)
				return
			}
			k.endSession(breakTaken(e))
		}
	})
}

// breakTaken is the login screen's word after a break.
func breakTaken(e engine.Exclusion) string {
	if e.Indefinite {
		return lang.L("Your break is recorded, with no end date. Take care.")
	}
	return lang.L("Your break is recorded until {{.Date}}. Take care.", map[string]any{"Date": when(e.Until)})
}
