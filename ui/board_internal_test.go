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

// The glow's pulse changes in pulseSteps levels: ticks within a level
// change nothing (each change repaints the window), the next level does.
func TestPulseLevels(t *testing.T) {
	b := NewBoard(100)
	b.Pulse(0.5)
	if b.glow != 0.5 {
		t.Fatalf("glow %v at 0.5", b.glow)
	}
	b.Pulse(0.5 + 0.4/pulseSteps)
	if b.glow != 0.5 {
		t.Errorf("glow %v within the level of 0.5", b.glow)
	}
	b.Pulse(0.5 + 1.0/pulseSteps)
	if b.glow == 0.5 {
		t.Error("the next level changed nothing")
	}
	b.Pulse(0.01)
	if b.glow != 0 {
		t.Errorf("glow %v near 0", b.glow)
	}
}
