package ui_test

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"starfortune/ui"
)

// The goldens are 1280×800 captures of the whole window with Fyne's
// software painter.

func TestGoldenBoardAtRest(t *testing.T) {
	r := newRig(t, ui.Options{})
	test.AssertImageMatches(t, "board-rest.png", r.k.Window().Canvas().Capture())
}

func TestGoldenBonusStep(t *testing.T) {
	r := newRig(t, ui.Options{})
	toBonus(t, r)
	test.AssertImageMatches(t, "bonus-step.png", r.k.Window().Canvas().Capture())
}

func TestGoldenHistoryPanel(t *testing.T) {
	r := newRig(t, ui.Options{})
	for range 3 {
		r.tapPlay()
		r.playOut(t, 1)
	}
	test.Tap(r.k.Controls().HistoryButton())
	r.k.Wait()
	test.AssertImageMatches(t, "history-panel.png", r.k.Window().Canvas().Capture())
}

var _ = fyne.NewSize

// A portrait kiosk screen (1080×1920) and a small landscape window
// (1024×768): the board across the width above the controls, and the
// landscape layout squeezed without overlap.
func TestGoldenShapes(t *testing.T) {
	for _, c := range []struct {
		name string
		size fyne.Size
	}{{"portrait-1080x1920.png", fyne.NewSize(1080, 1920)}, {"landscape-1024x768.png", fyne.NewSize(1024, 768)}} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, ui.Options{})
			r.k.Window().Resize(c.size)
			r.tapPlay()
			test.AssertImageMatches(t, c.name, r.k.Window().Canvas().Capture())
		})
	}
}
