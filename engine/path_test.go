package engine_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"starfortune/engine"
)

const pathSeeds = 1000

func pathDestName(d engine.Destination) string {
	if d.Bonus {
		return fmt.Sprintf("box%d", d.Index)
	}
	return fmt.Sprintf("spot%d", d.Index)
}

func pathMustPlan(tb testing.TB, d engine.Destination, slot int, seed uint64) engine.Path {
	tb.Helper()
	p, err := engine.PlanPath(d, slot, seed)
	if err != nil {
		tb.Fatalf("PlanPath(%+v, %d, %d): %v", d, slot, seed, err)
	}
	return p
}

func TestGeometrySpots(t *testing.T) {
	g := engine.Board()
	width := 1.0 / engine.NumSpots
	for i, s := range g.Spots {
		if math.Abs(s.Min.X-float64(i)*width) > 1e-12 || math.Abs(s.Max.X-s.Min.X-width) > 1e-12 {
			t.Errorf("spot %d spans x %g..%g, want %g wide from %g", i, s.Min.X, s.Max.X, width, float64(i)*width)
		}
		if s.Min.Y != g.Spots[0].Min.Y || s.Max.Y != 1 {
			t.Errorf("spot %d spans y %g..%g, want the bottom band", i, s.Min.Y, s.Max.Y)
		}
	}
	if g.Spots[engine.NumSpots-1].Max.X != 1 {
		t.Errorf("spots end at x %g, want 1", g.Spots[engine.NumSpots-1].Max.X)
	}
}

func TestGeometryBoxes(t *testing.T) {
	g := engine.Board()
	for i, box := range g.BonusBoxes {
		c := box.Center()
		if c.Y < 0.4 || c.Y > 0.6 {
			t.Errorf("box %d centre %+v not in the middle rows", i, c)
		}
		for j, s := range g.Spots {
			if geoRectsOverlap(box, s) {
				t.Errorf("box %d overlaps spot %d", i, j)
			}
		}
		for j, s := range g.Slots {
			if box.Contains(s) || s.Y >= box.Min.Y {
				t.Errorf("slot %d %+v is not above box %d", j, s, i)
			}
		}
		for j, p := range g.Pegs {
			grown := engine.Rect{
				Min: engine.Point{X: box.Min.X - g.PegRadius, Y: box.Min.Y - g.PegRadius},
				Max: engine.Point{X: box.Max.X + g.PegRadius, Y: box.Max.Y + g.PegRadius},
			}
			if grown.Contains(p) {
				t.Errorf("peg %d %+v inside box %d", j, p, i)
			}
		}
	}
	left, right := g.BonusBoxes[0], g.BonusBoxes[1]
	if geoRectsOverlap(left, right) || left.Center().X >= 0.5 || right.Center().X <= 0.5 {
		t.Errorf("boxes %+v and %+v are not left and right of centre", left, right)
	}
	if math.Abs(left.Center().X+right.Center().X-1) > 1e-12 || left.Center().Y != right.Center().Y {
		t.Errorf("boxes %+v and %+v are not symmetric", left, right)
	}
}

func TestGeometryPegsAndSlots(t *testing.T) {
	g := engine.Board()
	if g != engine.Board() {
		t.Error("Board() is not shared")
	}
	if g.PegRadius <= 0 || g.PuckRadius <= g.PegRadius {
		t.Errorf("radii peg %g puck %g", g.PegRadius, g.PuckRadius)
	}
	for i, p := range g.Pegs {
		if p.X-g.PegRadius < 0 || p.X+g.PegRadius > 1 || p.Y <= g.Slots[0].Y || p.Y >= g.Spots[0].Min.Y {
			t.Errorf("peg %d %+v outside the playing field", i, p)
		}
		for j := range i {
			if q := g.Pegs[j]; math.Hypot(p.X-q.X, p.Y-q.Y) < 2*g.PuckRadius+2*g.PegRadius {
				t.Errorf("pegs %d and %d too close for a puck to pass between", j, i)
			}
		}
	}
	for i := 1; i < engine.NumSlots; i++ {
		if g.Slots[i].X <= g.Slots[i-1].X || g.Slots[i].Y != g.Slots[0].Y {
			t.Errorf("slots not left to right on one line: %+v", g.Slots)
		}
	}
	if m := g.Slots[engine.NumSlots/2].X; m != 0.5 {
		t.Errorf("middle slot at x %g, want 0.5", m)
	}
}

func geoRectsOverlap(a, b engine.Rect) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

func TestPlanPathValid(t *testing.T) {
	for _, d := range engine.Destinations() {
		for slot := range engine.NumSlots {
			t.Run(fmt.Sprintf("%s/slot%d", pathDestName(d), slot), func(t *testing.T) {
				t.Parallel()
				for i := range pathSeeds {
					seed := engine.PathSeed(7, uint32(i), i%2, slot)
					p := pathMustPlan(t, d, slot, seed)
					if err := engine.ValidatePath(p, slot); err != nil {
						t.Fatalf("seed %d: %v", seed, err)
					}
					if p.Dest != d {
						t.Fatalf("seed %d: path bound for %+v, want %+v", seed, p.Dest, d)
					}
					// Boxes are half-way down: their falls are shorter.
					lo, hi := 2.0, 4.5
					if d.Bonus {
						lo, hi = 1.0, 3.5
					}
					if dur := p.Duration(); dur < lo || dur > hi {
						t.Fatalf("seed %d: fall lasts %.2f s, want %g..%g", seed, dur, lo, hi)
					}
				}
			})
		}
	}
}

func TestPlanPathDeterministic(t *testing.T) {
	for _, d := range engine.Destinations() {
		for slot := range engine.NumSlots {
			seen := map[string]bool{}
			for seed := range uint64(50) {
				p, q := pathMustPlan(t, d, slot, seed), pathMustPlan(t, d, slot, seed)
				if !slices.Equal(p.Points, q.Points) || p.Dest != q.Dest {
					t.Fatalf("%s slot %d seed %d: two plans differ", pathDestName(d), slot, seed)
				}
				seen[fmt.Sprint(p.Points)] = true
			}
			if len(seen) < 10 {
				t.Errorf("%s slot %d: only %d different falls in 50 seeds", pathDestName(d), slot, len(seen))
			}
		}
	}
}

func TestPlanPathSlotKeepsDestination(t *testing.T) {
	g := engine.Board()
	for _, d := range engine.Destinations() {
		want := g.Spots[d.Index%engine.NumSpots].Center()
		if d.Bonus {
			want = g.BonusBoxes[d.Index].Center()
		}
		for slot := range engine.NumSlots {
			p := pathMustPlan(t, d, slot, 42)
			if end := p.Points[len(p.Points)-1].Point; end != want || p.Dest != d {
				t.Errorf("%s from slot %d ends at %+v (%+v), want %+v", pathDestName(d), slot, end, p.Dest, want)
			}
			if p.Points[0].Point != g.Slots[slot] {
				t.Errorf("%s from slot %d starts at %+v", pathDestName(d), slot, p.Points[0])
			}
		}
	}
}

func TestPlanPathErrors(t *testing.T) {
	tests := []struct {
		dest engine.Destination
		slot int
	}{
		{engine.Destination{Index: 0}, -1},
		{engine.Destination{Index: 0}, engine.NumSlots},
		{engine.Destination{Index: -1}, 0},
		{engine.Destination{Index: engine.NumSpots}, 0},
		{engine.Destination{Bonus: true, Index: -1}, 1},
		{engine.Destination{Bonus: true, Index: engine.NumBonusBoxes}, 1},
	}
	for _, tt := range tests {
		if p, err := engine.PlanPath(tt.dest, tt.slot, 1); err == nil {
			t.Errorf("PlanPath(%+v, %d) = %d points, want an error", tt.dest, tt.slot, len(p.Points))
		}
		if err := engine.ValidatePath(engine.Path{Dest: tt.dest}, tt.slot); err == nil {
			t.Errorf("ValidatePath(%+v, %d) accepted an invalid call", tt.dest, tt.slot)
		}
	}
}

func TestValidatePathRejects(t *testing.T) {
	spot := engine.Destination{Index: 5}
	box := engine.Destination{Bonus: true, Index: 0}
	good := pathMustPlan(t, spot, 0, 3)
	tests := []struct {
		name string
		slot int
		edit func(p *engine.Path)
	}{
		{"other slot", 1, func(p *engine.Path) {}},
		{"other destination", 0, func(p *engine.Path) { p.Dest = engine.Destination{Index: 4} }},
		{"moved start", 0, func(p *engine.Path) { p.Points[0].X += 0.01 }},
		{"moved end", 0, func(p *engine.Path) { p.Points[len(p.Points)-1].Y -= 0.001 }},
		{"off peg", 0, func(p *engine.Path) { p.Points[3].X += 0.001 }},
		{"wrong peg index", 0, func(p *engine.Path) { p.Points[3].Peg++ }},
		{"teleport", 0, func(p *engine.Path) { p.Points = slices.Delete(p.Points, 3, 5) }},
		{"time backwards", 0, func(p *engine.Path) { p.Points[4].T = p.Points[3].T }},
		{"short", 0, func(p *engine.Path) { p.Points = p.Points[:2] }},
		{"beyond its box", 0, func(p *engine.Path) {
			b := pathMustPlan(t, box, 0, 3)
			last := b.Points[len(b.Points)-1]
			b.Points = append(b.Points, engine.PathPoint{Point: p.Points[len(p.Points)-1].Point, T: last.T + 1, Peg: -1})
			*p = engine.Path{Points: b.Points, Dest: spot}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := engine.Path{Points: slices.Clone(good.Points), Dest: good.Dest}
			tt.edit(&p)
			if err := engine.ValidatePath(p, tt.slot); err == nil {
				t.Error("accepted")
			} else {
				t.Log(err)
			}
		})
	}
}

// A lattice-perfect path can still fly into a box if a hop is slow enough:
// stretch one hop under box 0 until its arc rises into it.
func TestValidatePathCatchesHopIntoBox(t *testing.T) {
	box := engine.Board().BonusBoxes[0]
	under := func(q engine.PathPoint) bool {
		return q.X > box.Min.X && q.X < box.Max.X && q.Y > box.Max.Y && q.Y < box.Max.Y+0.1
	}
	for seed := range uint64(1000) {
		p := pathMustPlan(t, engine.Destination{Index: 3}, 0, seed)
		for i := 1; i < len(p.Points); i++ {
			if !under(p.Points[i-1]) || !under(p.Points[i]) {
				continue
			}
			for j := i; j < len(p.Points); j++ {
				p.Points[j].T += 0.5
			}
			err := engine.ValidatePath(p, 0)
			if err == nil || !strings.Contains(err.Error(), "enters BONUS box 0") {
				t.Fatalf("hop into box 0: got %v", err)
			}
			return
		}
	}
	t.Fatal("no fall passes under box 0")
}

func TestPathAt(t *testing.T) {
	g := engine.Board()
	for _, d := range engine.Destinations() {
		for slot := range engine.NumSlots {
			p := pathMustPlan(t, d, slot, uint64(100+slot))
			first, last := p.Points[0], p.Points[len(p.Points)-1]
			if first.T != 0 || p.At(0) != first.Point || p.At(-1) != first.Point {
				t.Errorf("%s slot %d: At(0) = %+v, start %+v", pathDestName(d), slot, p.At(0), first)
			}
			if p.Duration() != last.T || p.At(p.Duration()) != last.Point || p.At(p.Duration()+1) != last.Point {
				t.Errorf("%s slot %d: At(end) = %+v, end %+v", pathDestName(d), slot, p.At(p.Duration()), last)
			}
			for i, q := range p.Points {
				if i > 0 && q.T <= p.Points[i-1].T {
					t.Fatalf("%s slot %d: time not increasing at point %d", pathDestName(d), slot, i)
				}
				if got := p.At(q.T); math.Abs(got.X-q.X) > 1e-12 || math.Abs(got.Y-q.Y) > 1e-12 {
					t.Errorf("%s slot %d: At(%g) = %+v, want point %d %+v", pathDestName(d), slot, q.T, got, i, q.Point)
				}
			}
			// Smooth at 60 frames a second: no frame jumps further than a
			// peg gap.
			prev := p.At(0)
			for f := 1; float64(f)/60 < p.Duration()+0.1; f++ {
				cur := p.At(float64(f) / 60)
				if math.Hypot(cur.X-prev.X, cur.Y-prev.Y) > 2*g.PuckRadius {
					t.Fatalf("%s slot %d: jump at frame %d from %+v to %+v", pathDestName(d), slot, f, prev, cur)
				}
				prev = cur
			}
		}
	}
	if (engine.Path{}).At(1) != (engine.Point{}) || (engine.Path{}).Duration() != 0 {
		t.Error("empty path")
	}
}

func TestPathSeed(t *testing.T) {
	base := engine.PathSeed(1, 2, 0, 1)
	if base != engine.PathSeed(1, 2, 0, 1) {
		t.Fatal("PathSeed not deterministic")
	}
	for _, s := range []uint64{
		engine.PathSeed(2, 2, 0, 1), engine.PathSeed(1, 3, 0, 1),
		engine.PathSeed(1, 2, 1, 1), engine.PathSeed(1, 2, 0, 2),
	} {
		if s == base {
			t.Errorf("PathSeed ignores a field: %d", s)
		}
	}
}

func BenchmarkPlanPath(b *testing.B) {
	ds := engine.Destinations()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := engine.PlanPath(ds[i%len(ds)], i%engine.NumSlots, uint64(i)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPathAt(b *testing.B) {
	p := pathMustPlan(b, engine.Destination{Index: 5}, 0, 1)
	dur := p.Duration()
	b.ReportAllocs()
	var sink engine.Point
	for i := 0; b.Loop(); i++ {
		sink = p.At(dur * float64(i%97) / 96)
	}
	_ = sink
}
