package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"
)

// keypad is the large on-screen keypad of the player's screens: the ten
// digits, the correction and the validation, for a finger. It types into
// what its owner shows (a card number, a PIN, an amount) through its
// callbacks; the keyboard's digits, Backspace and Enter do the same
// through typed.
type keypad struct {
	widget.BaseWidget

	OnDigit func(d byte) // '0' to '9'
	OnBack  func()
	OnEnter func()

	digits  [10]*bigButton
	back    *bigButton
	enter   *bigButton
	content fyne.CanvasObject
}

// keypadKeyHeight is the height of a key: about 15 mm on a kiosk's screen.
const keypadKeyHeight = 84

func newKeypad() *keypad { return newKeypadOf(keypadKeyHeight) }

// newKeypadOf is a keypad whose keys are h high (the operator panel's,
// beside a form, are a little lower).
func newKeypadOf(h float32) *keypad {
	p := &keypad{}
	p.ExtendBaseWidget(p)
	for d := range p.digits {
		p.digits[d] = newBigButton(string(rune('0'+d)), 36, func() { p.digit(byte('0' + d)) })
		p.digits[d].Importance = widget.MediumImportance
	}
	p.back = newBigButton(lang.L("CORRECT"), 20, func() {
		if p.OnBack != nil {
			p.OnBack()
		}
	})
	p.back.Importance = widget.MediumImportance
	p.enter = newBigButton(lang.L("CONFIRM"), 22, func() {
		if p.OnEnter != nil {
			p.OnEnter()
		}
	})
	grid := container.NewGridWithColumns(3)
	for _, d := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9} {
		grid.Add(keyCap(p.digits[d], h))
	}
	grid.Add(keyCap(p.back, h))
	grid.Add(keyCap(p.digits[0], h))
	grid.Add(keyCap(p.enter, h))
	p.content = grid
	return p
}

func (p *keypad) digit(d byte) {
	if p.OnDigit != nil {
		p.OnDigit(d)
	}
}

// CreateRenderer is part of fyne.Widget.
func (p *keypad) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(p.content) }

// SetEnabled allows the keys, or greys them while the engine answers.
func (p *keypad) SetEnabled(on bool) {
	for _, b := range append(p.digits[:], p.back, p.enter) {
		if on {
			b.Enable()
		} else {
			b.Disable()
		}
	}
}

// typed is the keyboard on the keypad: digits (the numeric keypad's too),
// Backspace and Enter. It reports whether the key was the keypad's.
func (p *keypad) typed(ev *fyne.KeyEvent) bool {
	if p.enter.Disabled() {
		return false
	}
	switch name := ev.Name; {
	case name >= fyne.Key0 && name <= fyne.Key9 && len(name) == 1:
		p.digit(name[0])
	case name == fyne.KeyBackspace:
		p.back.OnTapped()
	case name == fyne.KeyReturn || name == fyne.KeyEnter:
		p.enter.OnTapped()
	default:
		return false
	}
	return true
}
