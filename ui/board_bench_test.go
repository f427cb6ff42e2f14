package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"starfortune/engine"
)

// boardInFlight is a board in a 800×700 test window with a puck in flight.
func boardInFlight(tb testing.TB) (*Board, fyne.Window, engine.Path) {
	test.NewTempApp(tb)
	board := NewBoard(100)
	w := test.NewTempWindow(tb, board)
	w.Resize(fyne.NewSize(800, 700))
	path, err := engine.PlanPath(engine.Destination{Index: 5}, 1, engine.PathSeed(1, 2, 0, 1))
	if err != nil {
		tb.Fatal(err)
	}
	board.pucks[0] = puckState{shown: true, at: path.At(0)}
	board.fall = fallState{active: true, path: path}
	board.Refresh()
	return board, w, path
}

// BenchmarkFrameUpdate is what one 60 fps animation tick costs the UI
// thread: moving the puck, its trail and the lit peg.
func BenchmarkFrameUpdate(b *testing.B) {
	board, _, path := boardInFlight(b)
	dur := path.Duration()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		board.frame(float64(i%600) / 600 * dur)
		i++
	}
}

// BenchmarkBackdrop is the one-off painting of the sky and board surface
// at a new size (1280×800 window's board area).
func BenchmarkBackdrop(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		bd := newBackdrop()
		bd.generate(810, 740, 1)
	}
}
