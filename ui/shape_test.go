package ui_test

import (
	"fmt"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"starfortune/ui"
)

// At every kiosk shape, a whole unit plays by taps alone (JOUER, the pucks,
// GO, a stake, the history and its recall), the board and the controls do
// not overlap, and a portrait screen's buttons are large touch targets.
func TestTapsAtEveryShape(t *testing.T) {
	for _, size := range []fyne.Size{
		{Width: 1080, Height: 1920}, {Width: 768, Height: 1366}, {Width: 800, Height: 1280},
		{Width: 1280, Height: 800}, {Width: 1024, Height: 768}, {Width: 1280, Height: 720},
	} {
		t.Run(fmt.Sprintf("%gx%g", size.Width, size.Height), func(t *testing.T) {
			r := newRig(t, ui.Options{})
			r.k.Window().Resize(size)
			test.Tap(r.k.Controls().StakeButtons()[0])
			r.tapPlay()
			r.playOut(t, 1)
			h := r.history(t)
			if len(h) != 1 || !h[0].Done() || h[0].Stake() != 50 || h[0].Reveal.Slots[0] != 1 {
				t.Fatalf("after a unit played by taps: %+v", h)
			}
			board, side := bounds(r.k.Board()), bounds(r.k.Controls())
			win := fyne.NewSize(size.Width, size.Height)
			for name, b := range map[string][2]fyne.Position{"board": board, "controls": side} {
				if b[0].X < 0 || b[0].Y < 0 || b[1].X > win.Width+0.5 || b[1].Y > win.Height+0.5 {
					t.Errorf("%s %v lies outside the %v window", name, b, win)
				}
			}
			if overlap(board, side) {
				t.Errorf("board %v and controls %v overlap", board, side)
			}
			if size.Height > size.Width {
				if board[1].Y > side[0].Y || board[1].X-board[0].X < size.Width*0.95 {
					t.Errorf("portrait: the board %v is not across the width above the controls %v", board, side)
				}
				for _, b := range append([]fyne.CanvasObject{r.k.Controls().PlayButton(), r.k.Controls().HistoryButton()}, asObjects(r.k.Controls().StakeButtons())...) {
					if b.Size().Height < 64 {
						t.Errorf("portrait: a button %v tall, want at least 64 px", b.Size().Height)
					}
				}
			}
			test.Tap(r.k.Controls().HistoryButton())
			r.k.Wait()
			if !r.k.History().Visible() || r.k.History().Size().Width < 300 || overlap(bounds(r.k.History()), board) {
				t.Fatalf("history panel %v at %v, board %v", r.k.History().Size(), bounds(r.k.History()), board)
			}
		})
	}
}

// bounds is an object's rectangle in window coordinates.
func bounds(o fyne.CanvasObject) [2]fyne.Position {
	p := fyne.CurrentApp().Driver().AbsolutePositionForObject(o)
	return [2]fyne.Position{p, p.Add(fyne.NewPos(o.Size().Width, o.Size().Height))}
}

func overlap(a, b [2]fyne.Position) bool {
	return a[0].X < b[1].X && b[0].X < a[1].X && a[0].Y < b[1].Y && b[0].Y < a[1].Y
}

func asObjects[T fyne.CanvasObject](l []T) []fyne.CanvasObject {
	out := make([]fyne.CanvasObject, len(l))
	for i, o := range l {
		out[i] = o
	}
	return out
}
