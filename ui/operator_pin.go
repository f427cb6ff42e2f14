package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// PINPad asks who the attendant is and their PIN: the attendants' names
// to choose from (the first chosen; no choice when there is only one), a
// password entry (the keyboard works) and an on-screen keypad for touch
// screens. The digits are never shown.
type PINPad struct {
	widget.BaseWidget

	OnSubmit func(pin string)
	OnCancel func()

	who     *widget.Select // nil: one attendant
	name    string         // the attendant chosen
	entry   *widget.Entry
	message *widget.Label
	ok      *widget.Button
	cancel  *widget.Button
	keys    [10]*widget.Button
	clear   *widget.Button
	content fyne.CanvasObject
}

// NewPINPad returns an empty pad for the attendants named (at least one),
// the first one chosen.
func NewPINPad(attendants []string) *PINPad {
	p := &PINPad{name: attendants[0]}
	p.ExtendBaseWidget(p)
	p.entry = widget.NewPasswordEntry()
	p.entry.SetPlaceHolder(lang.L("Operator PIN"))
	p.entry.OnSubmitted = func(string) { p.submit() }
	prompt := lang.L("Type the operator PIN")
	var top []fyne.CanvasObject
	if len(attendants) > 1 {
		prompt = lang.L("Choose your name, then type your PIN")
		p.who = widget.NewSelect(attendants, func(name string) {
			p.name = name
			p.entry.SetText("")
		})
		p.who.SetSelected(p.name)
		top = append(top, container.NewBorder(nil, nil, dimLabel(lang.L("Attendant")), nil, keyCap(p.who, stakeButtonHeight)))
	}
	p.message = widget.NewLabel(prompt)
	p.message.Wrapping = fyne.TextWrapWord
	p.message.Alignment = fyne.TextAlignCenter
	grid := container.NewGridWithColumns(3)
	for _, d := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9} {
		p.keys[d] = p.digitKey(d)
		grid.Add(keyCap(p.keys[d], stakeButtonHeight+8))
	}
	p.clear = widget.NewButtonWithIcon("", theme.ContentUndoIcon(), func() { p.entry.SetText("") })
	p.keys[0] = p.digitKey(0)
	p.ok = widget.NewButtonWithIcon(lang.L("OK"), theme.ConfirmIcon(), p.submit)
	p.ok.Importance = widget.HighImportance
	grid.Add(keyCap(p.clear, stakeButtonHeight+8))
	grid.Add(keyCap(p.keys[0], stakeButtonHeight+8))
	grid.Add(tall(p.ok, stakeButtonHeight+8))
	p.cancel = widget.NewButtonWithIcon(lang.L("Cancel"), theme.CancelIcon(), func() {
		if p.OnCancel != nil {
			p.OnCancel()
		}
	})
	// Room for three lines: a lockout's message wraps, and the dialog
	// does not grow once shown.
	top = append(top, tall(p.message, 3*theme.TextSize()+4*theme.InnerPadding()), p.entry, grid, p.cancel)
	p.content = container.NewVBox(top...)
	return p
}

// dialogSize is the size of the dialog the pad shows in: room for the
// names' choice when there is one.
func (p *PINPad) dialogSize() fyne.Size {
	if p.who != nil {
		return fyne.NewSize(440, 620)
	}
	return fyne.NewSize(440, 560)
}

// keyCap outlines a key (of a keypad, of a panel) at least h high, so that
// it reads as a key on a panel or on the night sky.
func keyCap(key fyne.CanvasObject, h float32) fyne.CanvasObject {
	bg := &canvas.Rectangle{FillColor: colNight, StrokeColor: colPanelLine, StrokeWidth: 2, CornerRadius: 10}
	return tall(container.NewStack(bg, key), h)
}

func (p *PINPad) digitKey(d int) *widget.Button {
	return widget.NewButton(fmt.Sprint(d), func() {
		if len(p.entry.Text) < 12 {
			p.entry.SetText(p.entry.Text + fmt.Sprint(d))
		}
	})
}

func (p *PINPad) submit() {
	pin := p.entry.Text
	if pin == "" || p.ok.Disabled() || p.OnSubmit == nil {
		return
	}
	p.OnSubmit(pin)
}

// CreateRenderer is part of fyne.Widget.
func (p *PINPad) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(p.content) }

// SetBusy disables the pad while the PIN is checked (a slow hash).
func (p *PINPad) SetBusy(busy bool) {
	if busy {
		p.ok.Disable()
		p.message.SetText(lang.L("Checking…"))
		p.message.Importance = widget.MediumImportance
		return
	}
	p.ok.Enable()
}

// Fail shows why the PIN was refused and clears it.
func (p *PINPad) Fail(msg string) {
	p.entry.SetText("")
	p.message.Importance = widget.DangerImportance
	p.message.SetText(msg)
}

// Attendant is the name of the attendant chosen, whose PIN is typed.
func (p *PINPad) Attendant() string { return p.name }

// Attendants is the choice of names, nil when there is only one attendant.
func (p *PINPad) Attendants() *widget.Select { return p.who }

// Entry is the PIN's password entry.
func (p *PINPad) Entry() *widget.Entry { return p.entry }

// Key is the keypad's button for digit d.
func (p *PINPad) Key(d int) *widget.Button { return p.keys[d] }

// OKButton submits the PIN.
func (p *PINPad) OKButton() *widget.Button { return p.ok }

// CancelButton closes the pad.
func (p *PINPad) CancelButton() *widget.Button { return p.cancel }

// Message is what the pad says (a prompt or why the PIN was refused).
func (p *PINPad) Message() string { return p.message.Text }
