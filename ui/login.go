package ui

import (
	"context"
	"errors"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"starfortune/engine"
)

// loginScreen is what a kiosk playing real money shows while nobody is
// logged in: the card number, then the PIN, typed on the large keypad or
// the keyboard. Nothing of the game is reachable behind it.
type loginScreen struct {
	k       *Kiosk
	card    string // the digits typed
	pin     string
	onPIN   bool         // the card is read, the PIN is asked
	hint    *canvas.Text // what to do, or the card whose PIN is asked
	prompt  *canvas.Text
	shown   *canvas.Text // the card grouped as printed, or the PIN masked
	message *widget.Label
	pad     *keypad
	other   *widget.Button // back to the card number, on the PIN step
	front   *frontScreen
}

// Lengths of what is typed: a card number, a card PIN (engine.CheckCardPIN).
const (
	cardLength = 10
	pinMin     = 4
	pinMax     = 8
)

// showLogin puts the login screen in front, saying note (why the last
// session ended, or nothing).
func (k *Kiosk) showLogin(note string) {
	l := &loginScreen{k: k, pad: newKeypad(), message: widget.NewLabel(note)}
	l.prompt = &canvas.Text{Color: colText, TextSize: 24, TextStyle: fyne.TextStyle{Bold: true}, Alignment: fyne.TextAlignCenter}
	l.shown = &canvas.Text{Color: colGold, TextSize: 46, TextStyle: fyne.TextStyle{Bold: true}, Alignment: fyne.TextAlignCenter}
	l.message.Wrapping = fyne.TextWrapWord
	l.message.Alignment = fyne.TextAlignCenter
	l.message.TextStyle = fyne.TextStyle{Bold: true}
	l.pad.OnDigit, l.pad.OnBack, l.pad.OnEnter = l.digit, l.back, l.enter
	l.other = widget.NewButtonWithIcon(lang.L("Another card"), theme.NavigateBackIcon(), func() { l.toCard("") })
	l.hint = &canvas.Text{Color: colDim, TextSize: 17, Alignment: fyne.TextAlignCenter}
	l.front = &frontScreen{name: "login", content: k.cornered(cover(520, l.hint, gap(8), l.prompt, card(l.shown), gap(4), l.pad, tall(l.message, 64), tall(l.other, stakeButtonHeight))),
		pad: l.pad}
	k.login = l
	l.refresh()
	k.showFront(l.front)
}

// refresh shows the step and what is typed.
func (l *loginScreen) refresh() {
	if l.onPIN {
		l.hint.Text = lang.L("Card {{.Card}}", map[string]any{"Card": groupedCard(l.card)})
		l.prompt.Text = lang.L("Type your PIN")
		l.shown.Text = strings.Repeat("● ", len(l.pin))
		if l.pin == "" {
			l.shown.Text = "–"
		}
		l.other.Show()
	} else {
		l.hint.Text = lang.L("Real-money play: log in with your player card")
		l.prompt.Text = lang.L("Type your card number")
		l.shown.Text = groupedCard(l.card)
		l.other.Hide()
	}
	l.hint.Refresh()
	l.prompt.Refresh()
	l.shown.Refresh()
}

// groupedCard writes the digits typed of a card as it is printed, the
// digits still to type as dashes: "123 45– ––– –".
func groupedCard(digits string) string {
	full := []rune(digits + strings.Repeat("–", cardLength-len(digits)))
	return string(full[0:3]) + " " + string(full[3:6]) + " " + string(full[6:9]) + " " + string(full[9:])
}

func (l *loginScreen) say(msg string, alert bool) {
	l.message.Importance = widget.MediumImportance
	if alert {
		l.message.Importance = widget.DangerImportance
	}
	l.message.SetText(msg)
}

func (l *loginScreen) digit(d byte) {
	l.k.touched()
	switch {
	case !l.onPIN && len(l.card) < cardLength:
		l.card += string(d)
	case l.onPIN && len(l.pin) < pinMax:
		l.pin += string(d)
	default:
		return
	}
	l.say("", false)
	l.refresh()
}

// back is the correction: the last digit typed goes.
func (l *loginScreen) back() {
	l.k.touched()
	if l.onPIN && l.pin != "" {
		l.pin = l.pin[:len(l.pin)-1]
	} else if !l.onPIN && l.card != "" {
		l.card = l.card[:len(l.card)-1]
	}
	l.refresh()
}

// toCard goes back to the card number's step, cleared, saying msg.
func (l *loginScreen) toCard(msg string) {
	l.card, l.pin, l.onPIN = "", "", false
	l.say(msg, msg != "")
	l.refresh()
}

// enter validates the card number (its check digit is checked here, before
// any PIN is asked), then the PIN, which the engine checks.
func (l *loginScreen) enter() {
	l.k.touched()
	if !l.onPIN {
		if _, err := engine.ParseCard(l.card); err != nil {
			l.say(loginRefusal(err), true)
			return
		}
		l.onPIN = true
		l.say("", false)
		l.refresh()
		return
	}
	if len(l.pin) < pinMin {
		l.say(lang.L("A PIN has 4 to 8 digits."), true)
		return
	}
	c, _ := engine.ParseCard(l.card)
	pin := l.pin
	l.pin = ""
	l.refresh()
	l.pad.SetEnabled(false)
	l.say(lang.L("Checking…"), false)
	acc := l.k.acc
	l.k.call(false, func(ctx context.Context) func() {
		a, err := acc.OpenSession(ctx, c, pin)
		return func() {
			if l.k.login != l {
				return
			}
			l.pad.SetEnabled(true)
			var wrong *engine.PlayerPINError
			switch {
			case err == nil:
				l.k.loggedIn(a)
			case errors.As(err, &wrong):
				l.say(loginRefusal(err), true)
			default:
				l.toCard(loginRefusal(err))
			}
		}
	})
}

// loginRefusal is the player's message for a refused login.
func loginRefusal(err error) string {
	var bad *engine.CardError
	var wrong *engine.PlayerPINError
	var excluded *engine.ExcludedError
	switch {
	case errors.As(err, &bad) && bad.Problem == engine.CardCheckDigit:
		return lang.L("This card number is wrong (its check digit does not match): check it and type it again.")
	case errors.As(err, &bad):
		return lang.L("A card number has 10 digits.")
	case errors.Is(err, engine.ErrUnknownCard):
		return lang.L("Unknown card: check its number.")
	case errors.As(err, &wrong):
		return lang.L("Wrong PIN. Attempts left: {{.N}}", nth(wrong.Left))
	case errors.Is(err, engine.ErrCardLocked):
		return lang.L("Card locked after too many wrong PINs: please see an attendant.")
	case errors.As(err, &excluded):
		return breakText(excluded.Break)
	case errors.Is(err, engine.ErrListed):
		return lang.L("This account may not play (exclusion list): please see an attendant.")
	case errors.Is(err, engine.ErrAccountIncomplete):
		return lang.L("Your account is not complete: an attendant must record your identity before you play.")
	}
	return errorText(err)
}

// breakText says that the player is on a break, until when.
func breakText(b engine.Exclusion) string {
	if b.Indefinite {
		return lang.L("You are on a break of indefinite length: play is refused.")
	}
	return lang.L("You are on a break until {{.Date}}: play is refused until then.", map[string]any{"Date": when(b.Until)})
}
