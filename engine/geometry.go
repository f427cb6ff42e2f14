package engine

import "sync"

// Point is a position on the board, normalised: X runs from 0 (left edge) to
// 1 (right edge) and Y from 0 (top) to 1 (bottom). The board is drawn flat in
// these coordinates; the UI applies the perspective tilt itself.
type Point struct{ X, Y float64 }

// Rect is an axis-aligned rectangle of the board. It includes its edges.
type Rect struct{ Min, Max Point }

// Contains reports whether p lies in r, edges included.
func (r Rect) Contains(p Point) bool {
	return p.X >= r.Min.X && p.X <= r.Max.X && p.Y >= r.Min.Y && p.Y <= r.Max.Y
}

// Center is the middle of r: where a puck that lands in r comes to rest.
func (r Rect) Center() Point {
	return Point{X: (r.Min.X + r.Max.X) / 2, Y: (r.Min.Y + r.Max.Y) / 2}
}

// Geometry is the board as drawn and as pucks travel it.
//
// The pegs form a Galton lattice: staggered rows, each peg half a peg-gap to
// the side of the ones above and below, so a fall is a chain of left/right
// deflections. The two BONUS boxes replace the pegs they cover.
type Geometry struct {
	Pegs       []Point // peg centres, row by row from the top, left to right
	PegRadius  float64
	PuckRadius float64
	// Slots are the slot mouths at the top, left to right: where a puck is
	// released.
	Slots [NumSlots]Point
	// BonusBoxes are the BONUS boxes in the middle rows, left then right.
	BonusBoxes [NumBonusBoxes]Rect
	// Spots are the bottom spots, left to right, matching SpotMultiples.
	Spots [NumSpots]Rect
}

// Board returns the board geometry. It is computed once and shared: callers
// must not modify it.
func Board() *Geometry { return &geoGet().Geometry }

// The lattice. Column c sits at x = c/geoCols; a puck rests on columns
// 1..geoCols-1. Row r holds pegs on the columns c where r+c is odd, so the
// last row's deflections land on the odd columns, which are exactly the spot
// centres (spot i is column 2i+1).
const (
	geoRows    = 14
	geoCols    = 2 * NumSpots
	geoFirstY  = 0.10 // row 0
	geoLastY   = 0.86 // row geoRows-1
	geoSlotY   = 0.035
	geoSpotTop = 0.90
	geoPegR    = 0.007
	geoPuckR   = 0.02

	// The BONUS boxes replace the pegs of rows geoBoxRow and geoBoxRow+1; a
	// puck falls into one from the row above (geoEntryRow).
	geoBoxRow   = 6
	geoEntryRow = geoBoxRow - 1
	geoBoxHalfW = 2.2 // box half-width, in columns
)

var (
	geoSlotCols = [NumSlots]int{5, 11, 17}  // odd, like row 0's pegs: x ≈ 0.23, 0.5, 0.77
	geoBoxCols  = [NumBonusBoxes]int{6, 16} // x ≈ 0.27, 0.73
	geoGet      = sync.OnceValue(geoBuild)  // the shared board
)

// geoBoard is the Geometry plus the lattice bookkeeping path planning needs.
type geoBoard struct {
	Geometry
	pegAt   [geoRows][geoCols + 1]int // index into Pegs, -1 where there is none
	pegRow  []int                     // lattice row of each peg
	pegCol  []int                     // lattice column of each peg
	contact []Point                   // puck centre when resting on each peg
}

func geoRowY(r int) float64 {
	return geoFirstY + float64(r)*(geoLastY-geoFirstY)/(geoRows-1)
}

func geoColX(c int) float64 { return float64(c) / geoCols }

func geoBuild() *geoBoard {
	b := &geoBoard{}
	g := &b.Geometry
	g.PegRadius, g.PuckRadius = geoPegR, geoPuckR
	for i, c := range geoSlotCols {
		g.Slots[i] = Point{X: geoColX(c), Y: geoSlotY}
	}
	rowGap := geoRowY(1) - geoRowY(0)
	for i, c := range geoBoxCols {
		g.BonusBoxes[i] = Rect{
			Min: Point{X: (float64(c) - geoBoxHalfW) / geoCols, Y: geoRowY(geoEntryRow) + rowGap/2},
			Max: Point{X: (float64(c) + geoBoxHalfW) / geoCols, Y: geoRowY(geoBoxRow+1) + rowGap/2},
		}
	}
	for i := range g.Spots {
		g.Spots[i] = Rect{
			Min: Point{X: float64(i) / NumSpots, Y: geoSpotTop},
			Max: Point{X: float64(i+1) / NumSpots, Y: 1},
		}
	}
	for r := 0; r < geoRows; r++ {
		for c := range b.pegAt[r] {
			b.pegAt[r][c] = -1
			if c < 1 || c > geoCols-1 || (r+c)%2 == 0 {
				continue
			}
			p := Point{X: geoColX(c), Y: geoRowY(r)}
			if geoUnderBox(g, p) {
				continue
			}
			b.pegAt[r][c] = len(g.Pegs)
			g.Pegs = append(g.Pegs, p)
			b.pegRow = append(b.pegRow, r)
			b.pegCol = append(b.pegCol, c)
			b.contact = append(b.contact, Point{X: p.X, Y: p.Y - geoPegR - geoPuckR})
		}
	}
	return b
}

// geoUnderBox reports whether a peg at p would touch a BONUS box.
func geoUnderBox(g *Geometry, p Point) bool {
	for _, box := range g.BonusBoxes {
		if p.X+geoPegR > box.Min.X && p.X-geoPegR < box.Max.X &&
			p.Y+geoPegR > box.Min.Y && p.Y-geoPegR < box.Max.Y {
			return true
		}
	}
	return false
}
