package ui

import (
	"testing"

	"fyne.io/fyne/v2"

	"starfortune/engine"
)

// The pegs are painted in the backdrop; the one a falling puck touches is
// drawn lit on top of it, and goes when the bounce is over.
func TestTouchedPegLit(t *testing.T) {
	board, _, path := boardInFlight(t)
	var bounce engine.PathPoint
	for _, p := range path.Points {
		if p.Peg >= 0 {
			bounce = p
			break
		}
	}
	if bounce.Peg < 0 || bounce.T == 0 {
		t.Fatal("the path touches no peg")
	}
	r := board.r
	board.frame(bounce.T + 0.01)
	if r.lit != bounce.Peg || !r.litPeg.Visible() {
		t.Fatalf("at the bounce on peg %d: lit %d, shown %v", bounce.Peg, r.lit, r.litPeg.Visible())
	}
	c := r.pr.at(engine.Board().Pegs[bounce.Peg])
	got := r.litPeg.Position().Add(fyne.NewPos(r.litPeg.Size().Width/2, r.litPeg.Size().Height/2))
	if d := got.Subtract(c); d.X*d.X+d.Y*d.Y > 1 {
		t.Fatalf("lit peg drawn at %v, the peg is at %v", got, c)
	}
	board.frame(bounce.T + 0.2)
	if r.lit == bounce.Peg && r.litPeg.Visible() {
		t.Fatalf("peg %d still lit 0.2 s after the bounce", bounce.Peg)
	}
}
