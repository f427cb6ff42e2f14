package ui

import (
	"context"
	"errors"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"starfortune/engine"
)

// openForm opens an account, or completes the former wallet player: the
// holder present, the attendant types the identity and the limits the
// player chose, the player types the card's PIN twice on the keypad. The
// engine decides: under 18, a listed identity, a document already used,
// an impossible date, a weak PIN are refused and said here.
type openForm struct {
	v       *accountsView
	player  string // "": a new account
	holder  *widget.Entry
	born    *widget.Entry
	docType *widget.SelectEntry
	docNo   *widget.Entry
	limits  map[engine.LimitKey]*widget.Entry
	pin     *pinTwice
	message *widget.Label
	submit  *widget.Button
}

// documentTypes are the identity documents offered; another may be typed.
var documentTypes = []string{"CNI", "PASSEPORT", "TITRE-SEJOUR"}

// openForm shows the form in the tab: a new account, or the former wallet
// player completed.
func (v *accountsView) openForm(player string) {
	f := &openForm{v: v, player: player, limits: map[engine.LimitKey]*widget.Entry{}}
	f.holder = widget.NewEntry()
	f.holder.SetPlaceHolder(lang.L("First and last name"))
	f.born = widget.NewEntry()
	f.born.SetPlaceHolder(lang.L("DD/MM/YYYY"))
	f.docType = widget.NewSelectEntry(documentTypes)
	f.docType.SetText(documentTypes[0])
	f.docNo = widget.NewEntry()
	f.docNo.SetPlaceHolder(lang.L("Document number"))
	table := limitTable(func(k engine.LimitKey) fyne.CanvasObject {
		e := widget.NewEntry()
		e.SetPlaceHolder(lang.L("optional"))
		if k.Mandatory() {
			e.SetPlaceHolder(lang.L("required"))
		}
		f.limits[k] = e
		return e
	})
	f.pin = newPinTwice()
	f.message = widget.NewLabel("")
	f.message.Wrapping = fyne.TextWrapWord
	title, action := lang.L("Open an account"), lang.L("Open the account")
	if player != "" {
		title = lang.L("Complete the wallet {{.Wallet}}", map[string]any{"Wallet": player})
		action = lang.L("Complete the account")
	}
	f.submit = widget.NewButtonWithIcon(action, theme.ConfirmIcon(), f.send)
	f.submit.Importance = widget.HighImportance
	cancel := widget.NewButtonWithIcon(lang.L("Cancel"), theme.CancelIcon(), v.back)
	identity := container.New(formLayout{gap: 6},
		dimLabel(lang.L("Holder")), f.holder,
		dimLabel(lang.L("Date of birth")), f.born,
		dimLabel(lang.L("Identity document")), container.NewGridWithColumns(2, f.docType, f.docNo),
	)
	hint := widget.NewLabel(lang.L("Limits in euros, chosen by the player: deposits and stakes over 7 days are required. The player may lower them at once later; a raise waits the cooling-off."))
	hint.Wrapping = fyne.TextWrapWord
	left := container.NewVBox(identity, heading(lang.L("Limits")), hint, table)
	right := container.NewVBox(heading(lang.L("Card PIN")), f.pin.content)
	foot := container.NewBorder(nil, nil, nil, container.NewHBox(cancel, tall(f.submit, stakeButtonHeight)), f.message)
	pin := container.NewVBox(container.NewCenter(container.New(minWidth(520), card(right))))
	v.setForm(container.NewBorder(heading(title), foot, nil, nil, container.New(pair{even: true}, container.NewVScroll(left), container.NewVScroll(pin))))
	v.form, v.pin = f, f.pin
	v.p.say("", false)
	v.p.k.win.Canvas().Focus(f.holder)
}

// back leaves a form for the account shown, or the hint.
func (v *accountsView) back() {
	if v.shown == nil {
		v.setBody(v.hint)
		return
	}
	v.show(v.shown.acct.Player, false)
}

func (f *openForm) say(msg string) {
	f.message.Importance = widget.DangerImportance
	f.message.SetText(msg)
}

// request reads the form, or says what is missing.
func (f *openForm) request() (engine.OpenRequest, bool) {
	born, err := engine.ParseBirthDate(f.born.Text, time.Now())
	if err != nil {
		f.say(deskError(err))
		return engine.OpenRequest{}, false
	}
	req := engine.OpenRequest{Identity: engine.Identity{Holder: strings.TrimSpace(f.holder.Text), Born: born,
		DocType: strings.TrimSpace(f.docType.Text), DocNumber: strings.TrimSpace(f.docNo.Text)}, Limits: engine.Limits{}}
	for _, k := range engine.LimitKeys {
		text := strings.TrimSpace(f.limits[k].Text)
		if text == "" {
			continue
		}
		amount, err := engine.ParseAmount(text)
		if err != nil {
			f.say(limitName(k) + " : " + amountError(err))
			return req, false
		}
		req.Limits[k] = amount
	}
	pin, ok := f.pin.value()
	if !ok {
		f.say(lang.L("The player types the card's PIN twice on the keypad."))
		return req, false
	}
	req.PIN = pin
	return req, true
}

// send asks the engine to open (or complete) the account.
func (f *openForm) send() {
	req, ok := f.request()
	if !ok {
		return
	}
	v, actor, player := f.v, f.v.p.actor, f.player
	f.submit.Disable()
	f.message.Importance = widget.MediumImportance
	f.message.SetText(lang.L("Checking…"))
	v.p.call(func(ctx context.Context) func() {
		var a engine.Account
		var err error
		if player == "" {
			a, err = v.d.Open(ctx, actor, req)
		} else {
			a, err = v.d.Complete(ctx, actor, player, req)
		}
		return func() {
			f.submit.Enable()
			if err != nil {
				f.say(openRefusal(err))
				if errors.Is(err, engine.ErrPlayerPINRule) {
					f.pin.restart()
				}
				return
			}
			v.issued(a)
		}
	})
}

// openRefusal is why an account could not be opened.
func openRefusal(err error) string {
	if errors.Is(err, engine.ErrLimitRequired) {
		return lang.L("The deposit and stake limits over 7 days are required.")
	}
	return deskError(err)
}

// issued shows the card of an account just opened, large, to be written on
// the card given to the player.
func (v *accountsView) issued(a engine.Account) {
	v.shown = &shownAccount{acct: a}
	v.loadList()
	head := &canvas.Text{Text: lang.L("Account opened for {{.Holder}}", map[string]any{"Holder": a.Identity.Holder}), Color: colText, TextSize: 24,
		TextStyle: fyne.TextStyle{Bold: true}, Alignment: fyne.TextAlignCenter}
	number := &canvas.Text{Text: a.Card.Spaced(), Color: colGold, TextSize: 72, TextStyle: fyne.TextStyle{Bold: true, Monospace: true},
		Alignment: fyne.TextAlignCenter}
	write := widget.NewLabel(lang.L("Write this number on the player's card: the player types it, then the PIN, to log in."))
	write.Wrapping, write.Alignment = fyne.TextWrapWord, fyne.TextAlignCenter
	see := widget.NewButtonWithIcon(lang.L("See the account"), theme.AccountIcon(), func() { v.show(a.Player, false) })
	see.Importance = widget.HighImportance
	v.setBody(container.NewCenter(container.New(minWidth(640), container.NewVBox(head, dimLabel(lang.L("Card number")), card(number), write,
		container.NewCenter(tall(see, stakeButtonHeight))))))
	v.p.say(lang.L("Account opened: card {{.Card}}", map[string]any{"Card": a.Card.Spaced()}), false)
}

// pinTwice is the card's PIN typed by the player on the keypad, twice:
// checked against the rule the first time, against the first the second.
// Typed once (newPinOnce), it is the PIN of a card that has one, handed
// to typed at each validation.
type pinTwice struct {
	once    func(pin string) // typed once: what takes it (nil: twice)
	first   string
	typed   string
	again   bool // the second time
	done    bool
	prompt  *canvas.Text
	shown   *canvas.Text
	message *widget.Label
	pad     *keypad
	content fyne.CanvasObject
}

func newPinTwice() *pinTwice {
	p := &pinTwice{pad: newKeypadOf(68), message: widget.NewLabel("")}
	p.prompt = &canvas.Text{Color: colText, TextSize: 18, TextStyle: fyne.TextStyle{Bold: true}, Alignment: fyne.TextAlignCenter}
	p.shown = &canvas.Text{Color: colGold, TextSize: 40, TextStyle: fyne.TextStyle{Bold: true}, Alignment: fyne.TextAlignCenter}
	p.message.Wrapping, p.message.Alignment = fyne.TextWrapWord, fyne.TextAlignCenter
	p.pad.OnDigit = func(d byte) {
		if !p.done && len(p.typed) < pinMax {
			p.typed += string(d)
			p.say("")
			p.refresh()
		}
	}
	p.pad.OnBack = func() {
		if p.typed != "" {
			p.typed = p.typed[:len(p.typed)-1]
			p.refresh()
		}
	}
	p.pad.OnEnter = p.enter
	again := widget.NewButtonWithIcon(lang.L("Type the PIN again"), theme.ContentUndoIcon(), p.restart)
	p.content = container.NewVBox(p.prompt, p.shown, p.pad, p.message, again)
	p.say("")
	p.refresh()
	return p
}

// newPinOnce is the PIN of a card typed once by the player on the
// keypad: typed gets it at each validation.
func newPinOnce(typed func(pin string)) *pinTwice {
	p := newPinTwice()
	p.once = typed
	p.content = container.NewVBox(p.prompt, p.shown, p.pad, p.message)
	p.refresh()
	return p
}

// refresh shows the step and the digits typed, masked.
func (p *pinTwice) refresh() {
	switch {
	case p.once != nil:
		p.prompt.Text = lang.L("The player types the card's PIN")
	case p.done:
		p.prompt.Text = lang.L("✓ PIN typed twice")
	case p.again:
		p.prompt.Text = lang.L("The player types the PIN again")
	default:
		p.prompt.Text = lang.L("The player types a PIN of 4 to 8 digits")
	}
	p.shown.Text = strings.Repeat("● ", len(p.typed))
	if p.done {
		p.shown.Text = strings.Repeat("● ", len(p.first))
	} else if p.typed == "" {
		p.shown.Text = "–"
	}
	p.prompt.Refresh()
	p.shown.Refresh()
}

// say says why what was typed is refused ("": nothing, and the line goes).
func (p *pinTwice) say(msg string) {
	p.message.Importance = widget.DangerImportance
	p.message.SetText(msg)
	if msg == "" {
		p.message.Hide()
	} else {
		p.message.Show()
	}
}

// enter takes the PIN typed: the first time if the rule allows it, the
// second if it is the same.
func (p *pinTwice) enter() {
	switch {
	case p.once != nil && len(p.typed) < pinMin:
		p.say(lang.L("A PIN has 4 to 8 digits."))
		return
	case p.once != nil:
		pin := p.typed
		p.typed = ""
		p.say("")
		p.once(pin)
	case p.done:
		return
	case !p.again:
		if err := engine.CheckCardPIN(p.typed); err != nil {
			p.typed = ""
			p.say(deskError(err))
			p.refresh()
			return
		}
		p.first, p.typed, p.again = p.typed, "", true
		p.say("")
	case p.typed != p.first:
		p.first, p.typed, p.again = "", "", false
		p.say(lang.L("The two PINs differ: the player types a PIN again."))
	default:
		p.done, p.typed = true, ""
	}
	p.refresh()
}

// restart forgets what was typed.
func (p *pinTwice) restart() {
	p.first, p.typed, p.again, p.done = "", "", false, false
	p.say("")
	p.refresh()
}

// value is the PIN, once typed twice the same.
func (p *pinTwice) value() (string, bool) { return p.first, p.done }

// newPINForm unlocks the card of the account shown with a new PIN that
// the player types twice.
func (v *accountsView) newPINForm(s *shownAccount) {
	pin := newPinTwice()
	message := widget.NewLabel("")
	message.Wrapping, message.Importance = fyne.TextWrapWord, widget.DangerImportance
	var send *widget.Button
	send = widget.NewButtonWithIcon(lang.L("Unlock with this PIN"), theme.ConfirmIcon(), func() {
		p, ok := pin.value()
		if !ok {
			message.SetText(lang.L("The player types the card's PIN twice on the keypad."))
			return
		}
		send.Disable()
		v.unlock(s, p, func(err error) {
			send.Enable()
			message.SetText(deskError(err))
			pin.restart()
		})
	})
	send.Importance = widget.HighImportance
	cancel := widget.NewButtonWithIcon(lang.L("Cancel"), theme.CancelIcon(), v.back)
	title := lang.L("New PIN for card {{.Card}}", map[string]any{"Card": s.acct.Card.Spaced()})
	foot := container.NewBorder(nil, nil, nil, container.NewHBox(cancel, tall(send, stakeButtonHeight)), message)
	v.setForm(container.NewBorder(heading(title), foot, nil, nil, container.NewCenter(container.New(minWidth(520), card(pin.content)))))
	v.pin = pin
	v.p.say("", false)
}
