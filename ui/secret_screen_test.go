package ui_test

import (
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"starfortune/engine"
	"starfortune/ui"
)

// texts is every text the window draws, dialogs included.
func texts(c fyne.Canvas) []string {
	var out []string
	for _, o := range objects(c) {
		switch o := o.(type) {
		case *canvas.Text:
			out = append(out, o.Text)
		case *widget.Label:
			out = append(out, o.Text)
		}
	}
	return out
}

// The unlock screen draws no character of the passphrase typed, neither
// while it is typed nor after a wrong one was refused (issue #34: no
// secret on a screen).
func TestUnlockScreenNeverShowsThePassphrase(t *testing.T) {
	const pass = "orme velo brume quartz"
	k := ui.NewOpening(test.NewTempApp(t), ui.Options{})
	k.Terminal().Locked(func([]byte) error { return fmt.Errorf("unlock: %w", engine.ErrWrongPassphrase) })
	c := k.Window().Canvas()
	entry, ok := c.Focused().(*widget.Entry)
	if !ok {
		t.Fatalf("the unlock screen's field is not focused: %T", c.Focused())
	}
	test.Type(entry, pass)
	if entry.Text != pass {
		t.Fatalf("typed %q, the field holds %q", pass, entry.Text)
	}
	check := func(when string) {
		t.Helper()
		for _, s := range texts(c) {
			for _, word := range strings.Fields(pass) {
				if strings.Contains(s, word) {
					t.Fatalf("%s, the screen shows %q, a word of the passphrase", when, s)
				}
			}
		}
	}
	check("while the passphrase is typed")
	entry.OnSubmitted(entry.Text)
	k.Wait()
	if msg, locked := k.Locked(); !locked || msg != "Phrase secrète incorrecte." {
		t.Fatalf("after a wrong passphrase: locked %v, %q", locked, msg)
	}
	check("after a wrong passphrase")

	// The check sees what a field shows: the same text, not hidden, is found.
	test.Type(entry, pass)
	entry.Password = false
	entry.Refresh()
	for _, s := range texts(c) {
		if strings.Contains(s, "quartz") {
			return
		}
	}
	t.Fatal("the check does not see a field's text: it proves nothing")
}
