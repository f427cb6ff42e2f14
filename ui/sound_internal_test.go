package ui

import (
	"testing"
)

// Each peg the falling puck hits is heard once, at the frame it is hit,
// with the puck's speed on the screen; a stalled window skips the hits it
// is late for rather than playing them in a heap.
func TestBoardSoundsPegHits(t *testing.T) {
	for _, speed := range []float64{1, 2} {
		board, _, path := boardInFlight(t)
		var hits []float64
		board.OnPeg = func(v float64) { hits = append(hits, v) }
		board.fall.speed, board.fall.next = speed, 1
		pegs := 0
		for _, p := range path.Points[1 : len(path.Points)-1] {
			if p.Peg >= 0 {
				pegs++
			}
		}
		frame := speed / 60 // path seconds per frame at 60 fps
		for tt := 0.0; tt < path.Duration(); tt += frame {
			board.frame(tt)
		}
		if len(hits) != pegs || pegs == 0 {
			t.Fatalf("speed %v: %d peg sounds for %d pegs hit", speed, len(hits), pegs)
		}
		for _, v := range hits {
			if v < 0.5*speed || v > 1.0*speed {
				t.Errorf("speed %v: a hit at %.2f board lengths/s, want %.1f to %.1f", speed, v, 0.5*speed, 1.0*speed)
			}
		}
	}

	board, _, path := boardInFlight(t)
	n := 0
	board.OnPeg = func(float64) { n++ }
	board.fall.speed, board.fall.next = 1, 1
	board.frame(path.Duration() - 0.001) // one frame for the whole fall
	if n > 1 {
		t.Errorf("a stalled frame played %d peg sounds at once", n)
	}
}
