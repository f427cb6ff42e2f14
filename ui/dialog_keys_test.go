package ui_test

import (
	"context"
	"errors"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"starfortune/engine"
	"starfortune/ui"
)

// gameOnly is the window's game without the operator's side: the panel is
// "not available on this terminal", and in kiosk mode closing asks to
// confirm.
type gameOnly struct{ ui.Game }

// pinUnreadable is the engine whose operator PIN cannot be read: the
// window shows the error in a dialog.
type pinUnreadable struct{ *engine.Service }

func (pinUnreadable) Attendants(context.Context) ([]string, error) {
	return nil, errors.New("the store cannot be read")
}

// board is what the player's keys could change: the units sold, their
// reveal, the funds.
type board struct {
	sales   []engine.Sale
	balance engine.Cents
}

func (r rig) board(t *testing.T) board {
	t.Helper()
	bal, err := r.svc.Balance(context.Background(), engine.DemoPlayer)
	if err != nil {
		t.Fatal(err)
	}
	return board{r.history(t), bal}
}

// same fails unless nothing the keys act on moved between was and now.
func (was board) same(t *testing.T, now board, what string) {
	t.Helper()
	if len(now.sales) != len(was.sales) || now.balance != was.balance {
		t.Fatalf("%s: %d units sold and funds %s, were %d and %s", what, len(now.sales), now.balance, len(was.sales), was.balance)
	}
	for i := range now.sales {
		if now.sales[i].Reveal != was.sales[i].Reveal {
			t.Fatalf("%s: unit %s revealed %+v, was %+v", what, now.sales[i].Ticket, now.sales[i].Reveal, was.sales[i].Reveal)
		}
	}
}

// playerKeys are every key of the player's keypad.
var playerKeys = []fyne.KeyName{fyne.KeyReturn, fyne.KeyEnter, fyne.KeySpace, fyne.Key1, fyne.Key2, fyne.Key3}

// No key of the player's reaches the board while a dialog is up, whatever
// the dialog and whatever the board waits for: Enter sells nothing, 1, 2
// and 3 pick no puck, Space reveals no BONUS. Once the dialog is gone, the
// keys play again.
func TestNoKeyReachesTheBoardBehindADialog(t *testing.T) {
	shortcut := func(r rig) { r.shortcut() }
	askToClose := func(r rig) { r.k.AskToClose(); r.k.Wait() }
	dialogs := []struct {
		name string
		o    ui.Options
		as   func(*engine.Service) ui.Game
		pin  bool
		show func(rig)
	}{
		{name: "operator PIN pad", pin: true, show: shortcut},
		{name: "operator panel disabled (no PIN)", show: shortcut},
		{name: "operator panel not available", as: func(s *engine.Service) ui.Game { return gameOnly{s} }, show: shortcut},
		{name: "operator error", as: func(s *engine.Service) ui.Game { return pinUnreadable{s} }, show: shortcut},
		{name: "confirm close", o: ui.Options{Fullscreen: true}, as: func(s *engine.Service) ui.Game { return gameOnly{s} }, show: askToClose},
		{name: "PIN to close", o: ui.Options{Fullscreen: true}, pin: true, show: askToClose},
	}
	states := []struct {
		name string
		to   func(*testing.T, rig)
	}{
		{"at rest", func(*testing.T, rig) {}},
		{"pucks offered", func(_ *testing.T, r rig) { r.tapPlay() }},
		{"GO asked", func(t *testing.T, r rig) { toBonus(t, r) }},
	}
	for _, d := range dialogs {
		for _, st := range states {
			t.Run(d.name+", "+st.name, func(t *testing.T) {
				as := d.as
				if as == nil {
					as = func(s *engine.Service) ui.Game { return s }
				}
				r := newRigAs(t, d.o, as)
				if d.pin {
					if err := r.svc.SetPIN(context.Background(), "cli", pin); err != nil {
						t.Fatal(err)
					}
				}
				st.to(t, r)
				was := r.board(t)
				overlays := r.k.Window().Canvas().Overlays()
				d.show(r)
				if overlays.Top() == nil {
					t.Fatal("no dialog shown")
				}
				for _, key := range playerKeys {
					r.key(key)
				}
				was.same(t, r.board(t), "keys behind the dialog")
				if overlays.Top() == nil {
					t.Fatal("the keys closed the dialog")
				}
				if d.pin || st.name != "at rest" {
					return
				}
				overlays.Top().Hide() // dismissed: the keys play again
				r.key(fyne.KeyReturn)
				if n := len(r.history(t)); n != 1 {
					t.Fatalf("Enter once the dialog was gone sold %d units, want 1", n)
				}
			})
		}
	}
}

// The offer to resume the unit the window was closed on is a dialog too:
// Enter behind it sells no other unit.
func TestNoKeyReachesTheBoardBehindTheResumeOffer(t *testing.T) {
	r := newRig(t, ui.Options{})
	r.tapPlay() // a unit left at its first pick
	k := ui.NewKiosk(test.NewTempApp(t), r.svc, ui.Options{})
	k.Wait()
	overlays := k.Window().Canvas().Overlays()
	if overlays.Top() == nil {
		t.Fatal("no offer to resume the unfinished unit")
	}
	was := r.board(t)
	for _, key := range playerKeys {
		k.Window().Canvas().OnTypedKey()(&fyne.KeyEvent{Name: key})
		k.Wait()
	}
	was.same(t, r.board(t), "keys behind the resume offer")
	if k.Board().Offering() {
		t.Fatal("the keys put a unit on the board behind the resume offer")
	}
}
