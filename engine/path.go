package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
)

// PathPoint is a point where the puck touches something: a peg, or its start
// and end.
type PathPoint struct {
	Point
	T   float64 // seconds from release
	Peg int     // index into Geometry.Pegs of the peg touched here, -1 if none
}

// Path is the fall of one puck, from its slot to its destination. Between two
// points the puck flies a ballistic arc under the board's gravity, which makes
// it hop off each peg.
type Path struct {
	Points []PathPoint
	Dest   Destination
}

// Duration is the length of the fall in seconds.
func (p Path) Duration() float64 {
	if len(p.Points) == 0 {
		return 0
	}
	return p.Points[len(p.Points)-1].T
}

// At is where the puck is t seconds after release; before the start and after
// the end it stays at the start and end.
func (p Path) At(t float64) Point {
	n := len(p.Points)
	if n == 0 {
		return Point{}
	}
	if t <= p.Points[0].T {
		return p.Points[0].Point
	}
	if t >= p.Points[n-1].T {
		return p.Points[n-1].Point
	}
	lo, hi := 0, n-1 // Points[lo].T <= t < Points[hi].T
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if p.Points[m].T <= t {
			lo = m
		} else {
			hi = m
		}
	}
	return pathArc(p.Points[lo], p.Points[hi], t)
}

// pathArc is the position at time t on the ballistic arc from a to b: x moves
// at constant speed, y under gravity, leaving a at whatever vertical speed
// reaches b on time (upwards, a hop, when the flight is slow).
func pathArc(a, b PathPoint, t float64) Point {
	d, tau := b.T-a.T, t-a.T
	s := tau / d
	return Point{
		X: a.X + (b.X-a.X)*s,
		Y: a.Y + (b.Y-a.Y)*s - pathGravity/2*tau*(d-tau),
	}
}

// PathSeed derives the seed of one fall from what identifies it, so that a
// replay shows the same fall: the first 8 bytes, big-endian, of
// SHA-256("starfortune/path/v1" ‖ block ‖ index ‖ drop ‖ slot), with block as
// 8 big-endian bytes and index, drop and slot as 4 each.
func PathSeed(block uint64, index uint32, drop int, slot int) uint64 {
	const tag = "starfortune/path/v1"
	var buf [len(tag) + 20]byte
	n := copy(buf[:], tag)
	binary.BigEndian.PutUint64(buf[n:], block)
	binary.BigEndian.PutUint32(buf[n+8:], index)
	binary.BigEndian.PutUint32(buf[n+12:], uint32(drop))
	binary.BigEndian.PutUint32(buf[n+16:], uint32(slot))
	sum := sha256.Sum256(buf[:])
	return binary.BigEndian.Uint64(sum[:8])
}

// Timing and shape of a fall. Gravity is the component along the tilted
// board, in board heights per second squared. A deflection to the next row
// lasts f times a free fall from rest over the same height: f above 1 means
// the puck hops up off the peg, below 1 that it leaves it already falling.
// f shrinks row after row, so the fall accelerates.
const (
	pathGravity = 4.7

	pathFTop    = 1.22 // base f on row 0
	pathFBottom = 0.86 // base f on the last row
	pathFJitter = 0.16 // f varies by ± half this
	pathFMax    = pathFTop + pathFJitter/2

	// A rebound is a hop sideways to the next peg of the same row, a little
	// slower than a deflection. At most pathMaxRebounds follow each other, all
	// in one direction, and each is this many times less likely than a plain
	// deflection.
	pathReboundMin    = 0.17
	pathReboundSpread = 0.06
	pathReboundMax    = pathReboundMin + pathReboundSpread
	pathMaxRebounds   = 2
	pathReboundWeight = 0.05

	// The puck's centre keeps this far from the BONUS boxes it passes
	// beside, so it visibly goes round them.
	pathMargin = geoPuckR / 2
)

// pathMoves says which lattice moves a puck may make on the way to any
// destination: every one keeps clear of both BONUS boxes.
type pathMoves struct {
	node  [geoRows][geoCols + 1]bool    // the puck may rest on this peg
	hop   [geoRows][geoCols + 1][2]bool // rebound to column c-2 ([0]) or c+2 ([1])
	down  [geoRows][geoCols + 1][2]bool // deflect to c-1 / c+1 on the next row, or into that spot from the last
	entry [NumBonusBoxes][geoCols + 1]bool
}

var pathMovesGet = sync.OnceValue(func() *pathMoves {
	b := geoGet()
	m := &pathMoves{}
	nodeAt := func(r, c int) (Point, bool) {
		if r < 0 || r >= geoRows || c < 0 || c > geoCols || b.pegAt[r][c] < 0 {
			return Point{}, false
		}
		p := b.contact[b.pegAt[r][c]]
		return p, pathSweepClear(&b.Geometry, p, p, 0, -1)
	}
	for r := 0; r < geoRows; r++ {
		for c := 0; c <= geoCols; c++ {
			_, m.node[r][c] = nodeAt(r, c)
		}
	}
	rebLift := pathGravity / 2 * pathReboundMax * pathReboundMax
	for r := 0; r < geoRows; r++ {
		for c := 0; c <= geoCols; c++ {
			if !m.node[r][c] {
				continue
			}
			from := b.contact[b.pegAt[r][c]]
			for i, dir := range [2]int{-1, 1} {
				if to, ok := nodeAt(r, c+2*dir); ok {
					m.hop[r][c][i] = pathSweepClear(&b.Geometry, from, to, rebLift, -1)
				}
				var to Point
				switch {
				case r == geoRows-1:
					s := (c + dir - 1) / 2
					if (c+dir)%2 == 0 || s < 0 || s >= NumSpots {
						continue
					}
					to = b.Spots[s].Center()
				case m.node[r+1][c+dir]:
					to = b.contact[b.pegAt[r+1][c+dir]]
				default:
					continue
				}
				m.down[r][c][i] = pathSweepClear(&b.Geometry, from, to, pathFMax*pathFMax*(to.Y-from.Y), -1)
			}
		}
	}
	for k, box := range b.BonusBoxes {
		for c := 0; c <= geoCols; c++ {
			if !m.node[geoEntryRow][c] {
				continue
			}
			from, to := b.contact[b.pegAt[geoEntryRow][c]], box.Center()
			m.entry[k][c] = from.X > box.Min.X && from.X < box.Max.X &&
				pathSweepClear(&b.Geometry, from, to, pathFMax*pathFMax*(to.Y-from.Y), k)
		}
	}
	return m
})

// pathSweepClear reports whether every arc from a to b lifted by at most
// lift·s(1-s) above the chord keeps pathMargin away from the BONUS boxes,
// except box skip.
func pathSweepClear(g *Geometry, a, b Point, lift float64, skip int) bool {
	const n = 64
	for i := 0; i <= n; i++ {
		s := float64(i) / n
		x := a.X + (b.X-a.X)*s
		y := a.Y + (b.Y-a.Y)*s
		top := y - lift*s*(1-s)
		for k, box := range g.BonusBoxes {
			if k != skip && x > box.Min.X-pathMargin && x < box.Max.X+pathMargin &&
				top < box.Max.Y+pathMargin && y > box.Min.Y-pathMargin {
				return false
			}
		}
	}
	return true
}

// pathTable is the backwards reachability table of one destination: w[r][c]
// is the total weight of the ways to reach it from column c of row r, having
// just arrived there (0: unreachable). Drawing each move in proportion to
// the weight it leads to gives a random walk conditioned on its end.
type pathTable struct {
	w [geoRows][geoCols + 1]float64
}

var pathTables [NumSpots + NumBonusBoxes]struct {
	once sync.Once
	t    pathTable
}

func pathTableFor(d Destination) *pathTable {
	k := d.Index
	if d.Bonus {
		k += NumSpots
	}
	e := &pathTables[k]
	e.once.Do(func() {
		m := pathMovesGet()
		for r := geoRows - 1; r >= 0; r-- {
			for c := 0; c <= geoCols; c++ {
				if !m.node[r][c] {
					continue
				}
				var opts [pathMaxOptions]pathOption
				for _, o := range opts[:pathOptions(m, &e.t, d, r, c, &opts)] {
					e.t.w[r][c] += o.w
				}
			}
		}
	})
	return &e.t
}

// pathOption is one way to leave a row: shift rebounds (negative: to the
// left), then exit: -1 or +1 to deflect down, 0 to fall into the BONUS box.
type pathOption struct {
	shift, exit int
	w           float64
}

const pathMaxOptions = (2*pathMaxRebounds + 1) * 3

// pathOptions lists into opts the ways to leave column c of row r towards d
// that can still reach it, and returns how many there are.
func pathOptions(m *pathMoves, t *pathTable, d Destination, r, c int, opts *[pathMaxOptions]pathOption) int {
	n := 0
	for shift := -pathMaxRebounds; shift <= pathMaxRebounds; shift++ {
		cc, w := c, 1.0
		dir, di := 1, 1
		if shift < 0 {
			dir, di = -1, 0
		}
		for k := 0; k < shift*dir && w > 0; k++ {
			if !m.hop[r][cc][di] {
				w = 0
			}
			cc += 2 * dir
			w *= pathReboundWeight
		}
		if w == 0 {
			continue
		}
		for i, exit := range [2]int{-1, 1} {
			if !m.down[r][cc][i] {
				continue
			}
			var next float64
			switch {
			case r < geoRows-1:
				next = t.w[r+1][cc+exit]
			case !d.Bonus && cc+exit == 2*d.Index+1:
				next = 1
			}
			if next > 0 {
				opts[n] = pathOption{shift: shift, exit: exit, w: w * next}
				n++
			}
		}
		if d.Bonus && r == geoEntryRow && m.entry[d.Index][cc] {
			opts[n] = pathOption{shift: shift, exit: 0, w: w}
			n++
		}
	}
	return n
}

func pathCheckSlot(slot int) error {
	if slot < 0 || slot >= NumSlots {
		return fmt.Errorf("engine: slot %d out of range 0..%d", slot, NumSlots-1)
	}
	return nil
}

// pathEnd is where a puck bound for d comes to rest.
func pathEnd(g *Geometry, d Destination) (Point, error) {
	if d.Bonus {
		if d.Index < 0 || d.Index >= NumBonusBoxes {
			return Point{}, fmt.Errorf("engine: BONUS box %d out of range 0..%d", d.Index, NumBonusBoxes-1)
		}
		return g.BonusBoxes[d.Index].Center(), nil
	}
	if d.Index < 0 || d.Index >= NumSpots {
		return Point{}, fmt.Errorf("engine: spot %d out of range 0..%d", d.Index, NumSpots-1)
	}
	return g.Spots[d.Index].Center(), nil
}

// pathRand draws the walk's choices; PCG is plenty for a presentation that
// must only be reproducible.
type pathRand struct{ src rand.PCG }

func (r *pathRand) float() float64 { return float64(r.src.Uint64()>>11) * 0x1p-53 }

// PlanPath plans the fall of a puck released from slot that lands on dest.
// It is a pure function of its arguments. The puck drops onto the peg below
// its slot, then, row by row, may rebound sideways along the row and deflects
// left or right to the row below, at random but never into a BONUS box nor
// where dest is out of reach; it ends exactly at dest's centre. seed
// normally comes from PathSeed.
func PlanPath(dest Destination, slot int, seed uint64) (Path, error) {
	if err := pathCheckSlot(slot); err != nil {
		return Path{}, err
	}
	b := geoGet()
	end, err := pathEnd(&b.Geometry, dest)
	if err != nil {
		return Path{}, err
	}
	m, tab := pathMovesGet(), pathTableFor(dest)
	c := geoSlotCols[slot]
	if tab.w[0][c] == 0 {
		return Path{}, fmt.Errorf("engine: no path from slot %d to %+v", slot, dest)
	}
	var rng pathRand
	rng.src.Seed(seed, seed^0x9e3779b97f4a7c15)

	pts := make([]PathPoint, 0, 2*geoRows+4)
	now := 0.0
	add := func(p Point, peg int, dt float64) {
		now += dt
		pts = append(pts, PathPoint{Point: p, T: now, Peg: peg})
	}
	// fall is how long a drop of height dy takes at factor f.
	fall := func(dy, f float64) float64 { return f * math.Sqrt(2*dy/pathGravity) }
	deflect := func(r int, dy float64) float64 {
		base := pathFTop + (pathFBottom-pathFTop)*float64(r)/(geoRows-1)
		return fall(dy, base+pathFJitter*(rng.float()-0.5))
	}

	pts = append(pts, PathPoint{Point: b.Slots[slot], Peg: -1})
	peg := b.pegAt[0][c]
	add(b.contact[peg], peg, fall(b.contact[peg].Y-geoSlotY, 1))
	for r := 0; ; r++ {
		var opts [pathMaxOptions]pathOption
		n := pathOptions(m, tab, dest, r, c, &opts)
		x := rng.float() * tab.w[r][c]
		o := opts[n-1]
		for _, cand := range opts[:n] {
			if x < cand.w {
				o = cand
				break
			}
			x -= cand.w
		}
		dir := 1
		if o.shift < 0 {
			dir = -1
		}
		for k := 0; k < o.shift*dir; k++ {
			c += 2 * dir
			peg = b.pegAt[r][c]
			add(b.contact[peg], peg, pathReboundMin+pathReboundSpread*rng.float())
		}
		from := pts[len(pts)-1].Y
		if o.exit == 0 || r == geoRows-1 {
			add(end, -1, deflect(r, end.Y-from))
			break
		}
		c += o.exit
		peg = b.pegAt[r+1][c]
		add(b.contact[peg], peg, deflect(r, b.contact[peg].Y-from))
	}
	return Path{Points: pts, Dest: dest}, nil
}

// ValidatePath checks that p is a fall PlanPath could have made from slot:
// it starts at the slot mouth and ends exactly at the centre of p.Dest, each
// step is a lattice move (onto the peg below the slot, a deflection to a
// neighbouring peg of the next row, a rebound to the next peg of the same
// row, or the final fall into the destination), times strictly increase,
// and the puck's centre never enters a BONUS box, except its destination's
// on the final step.
func ValidatePath(p Path, slot int) error {
	if err := pathCheckSlot(slot); err != nil {
		return err
	}
	b := geoGet()
	g := &b.Geometry
	end, err := pathEnd(g, p.Dest)
	if err != nil {
		return err
	}
	pts := p.Points
	n := len(pts)
	if n < 3 {
		return fmt.Errorf("engine: path has %d points, need at least 3", n)
	}
	if pts[0].Point != g.Slots[slot] || pts[0].T != 0 || pts[0].Peg != -1 {
		return fmt.Errorf("engine: path starts at %+v, not at slot %d %+v", pts[0], slot, g.Slots[slot])
	}
	if pts[n-1].Point != end || pts[n-1].Peg != -1 {
		return fmt.Errorf("engine: path ends at %+v, not at %+v's centre %+v", pts[n-1], p.Dest, end)
	}
	for i := 1; i < n-1; i++ {
		k := pts[i].Peg
		if k < 0 || k >= len(g.Pegs) || pts[i].Point != b.contact[k] {
			return fmt.Errorf("engine: path point %d %+v does not rest on a peg", i, pts[i])
		}
	}
	lastRebound := 0
	for i := 1; i < n; i++ {
		a, z := pts[i-1], pts[i]
		if !(z.T > a.T) {
			return fmt.Errorf("engine: path time goes from %g to %g at point %d", a.T, z.T, i)
		}
		if err := pathCheckStep(b, p.Dest, slot, a, z, i == n-1, &lastRebound); err != nil {
			return fmt.Errorf("engine: path step %d: %w", i, err)
		}
		const samples = 32
		for j := 1; j <= samples; j++ {
			q := pathArc(a, z, a.T+(z.T-a.T)*float64(j)/samples)
			for k, box := range g.BonusBoxes {
				if box.Contains(q) && !(i == n-1 && p.Dest.Bonus && p.Dest.Index == k) {
					return fmt.Errorf("engine: path step %d enters BONUS box %d at %+v", i, k, q)
				}
			}
		}
	}
	return nil
}

// pathCheckStep checks that a→z is a lattice move. rebounds counts the
// rebounds just made along the current row, negative to the left.
func pathCheckStep(b *geoBoard, d Destination, slot int, a, z PathPoint, last bool, rebounds *int) error {
	switch {
	case a.Peg < 0: // the drop from the slot
		if z.Peg < 0 || b.pegRow[z.Peg] != 0 || b.pegCol[z.Peg] != geoSlotCols[slot] {
			return fmt.Errorf("slot %d does not drop onto the peg below it", slot)
		}
		return nil
	case last:
		r, c := b.pegRow[a.Peg], b.pegCol[a.Peg]
		if d.Bonus {
			box := b.BonusBoxes[d.Index]
			if r != geoEntryRow || a.X <= box.Min.X || a.X >= box.Max.X {
				return fmt.Errorf("peg (row %d, column %d) is not above BONUS box %d", r, c, d.Index)
			}
		} else if r != geoRows-1 || (c-1 != 2*d.Index+1 && c+1 != 2*d.Index+1) {
			return fmt.Errorf("peg (row %d, column %d) is not next to spot %d", r, c, d.Index)
		}
		return nil
	}
	ra, ca, rz, cz := b.pegRow[a.Peg], b.pegCol[a.Peg], b.pegRow[z.Peg], b.pegCol[z.Peg]
	switch {
	case rz == ra+1 && (cz == ca-1 || cz == ca+1):
		*rebounds = 0
	case rz == ra && (cz == ca-2 || cz == ca+2):
		dir := (cz - ca) / 2
		if *rebounds*dir < 0 {
			return fmt.Errorf("rebound back to the peg it came from")
		}
		*rebounds += dir
		if *rebounds*dir > pathMaxRebounds {
			return fmt.Errorf("more than %d rebounds in a row", pathMaxRebounds)
		}
	default:
		return fmt.Errorf("jump from (row %d, column %d) to (row %d, column %d)", ra, ca, rz, cz)
	}
	return nil
}
