package ui

import (
	"errors"
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"

	"starfortune/engine"
)

// Unlock unlocks the data directory's key with the attendant's passphrase:
// nil once unlocked, an error matching engine.ErrWrongPassphrase for a wrong
// one. The window calls it off the UI thread.
type Unlock func(passphrase []byte) error

// unlockScreen is what a lone kiosk shows at start-up until an attendant
// types the data directory's passphrase: the game's data is encrypted at
// rest and its key is nowhere on the disk in clear (docs/terminal.md).
// Nothing of the game is reachable behind it.
type unlockScreen struct {
	entry   *widget.Entry
	button  *widget.Button
	message *widget.Label
	content fyne.CanvasObject
}

// showUnlock covers the window with the unlock screen; once unlock
// succeeds, it says the game is opening and waits for the opener (Terminal).
func (k *Kiosk) showUnlock(unlock Unlock) {
	if k.game != nil {
		return // served meanwhile
	}
	// A password entry without the button that shows what is typed: the
	// players stand by.
	u := &unlockScreen{entry: widget.NewEntry(), message: widget.NewLabel("")}
	u.entry.Password = true
	u.entry.ActionItem = canvas.NewRectangle(color.Transparent) // instead of the revealing eye Fyne would put there
	u.entry.SetPlaceHolder(lang.L("Passphrase"))
	u.message.Wrapping = fyne.TextWrapWord
	u.message.Alignment = fyne.TextAlignCenter
	submit := func() {
		pass := []byte(u.entry.Text)
		if len(pass) == 0 {
			return
		}
		u.entry.SetText("")
		u.entry.Disable()
		u.button.Disable()
		u.message.SetText(lang.L("Unlocking…"))
		k.calls.Add(1)
		go func() {
			defer k.calls.Done()
			err := unlock(pass)
			clear(pass)
			fyne.Do(func() {
				if k.unlock != u {
					return // gone: served, or out of service
				}
				if err == nil {
					u.message.SetText(lang.L("Opening the terminal…"))
					return
				}
				u.entry.Enable()
				u.button.Enable()
				u.message.SetText(unlockErrorText(err))
				k.win.Canvas().Focus(u.entry)
			})
		}()
	}
	u.entry.OnSubmitted = func(string) { submit() }
	u.button = widget.NewButton(lang.L("Unlock"), submit)
	u.button.Importance = widget.HighImportance
	locked := &canvas.Text{Text: lang.L("Terminal locked"), Color: colDim, TextSize: 22, Alignment: fyne.TextAlignCenter}
	hint := widget.NewLabel(lang.L("An attendant unlocks the terminal with its passphrase."))
	hint.Alignment = fyne.TextAlignCenter
	u.content = cover(480, locked, hint, u.entry, u.button, u.message)
	k.unlock, k.down = u, nil
	k.win.SetContent(u.content)
	k.win.Canvas().Focus(u.entry)
}

// unlockErrorText is the attendant's message for a failed unlock.
func unlockErrorText(err error) string {
	if errors.Is(err, engine.ErrWrongPassphrase) {
		return lang.L("Wrong passphrase.")
	}
	return errorText(err)
}
