package ui

import (
	"math"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"starfortune/engine"
)

// Board is the tilted board of article 4.1: three slots at the top, two
// BONUS boxes in the centre, the winnings zone at the bottom with each
// spot's sum for the current stake, and the pucks. It only shows what it is
// told; the falls it animates come from the engine.
type Board struct {
	widget.BaseWidget

	// Stake prices the spots' sums. Call Refresh after changing it.
	Stake engine.Cents
	// OnPick is called with the slot (0 to 2) of the puck the player taps
	// while pucks are on offer.
	OnPick func(slot int)
	// OnPeg is called as the falling puck hits a peg, with its speed on
	// the screen in board lengths per second; OnLand as it lands.
	OnPeg  func(speed float64)
	OnLand func()

	offer  bool
	pucks  [2]puckState
	fall   fallState
	lit    engine.Destination // the destination just reached, when hasLit
	hasLit bool
	boxes  [engine.NumBonusBoxes]string // sums revealed in the BONUS boxes
	banner string
	recall bool
	glow   float32 // 0..1 pulse of the BONUS boxes and the pucks on offer
	burst  float32 // 0..1 ring spreading from where a puck landed; 0: none

	anim       *fyne.Animation // the running fall, if any
	attract    *fyne.Animation // the glow's pulse
	attracting bool

	r *boardRenderer // set by CreateRenderer: frames update it directly
	// painted, when set, is called on the UI thread each time the board's
	// background is painted anew (a new size): Run learns from it that the
	// window is on the screen.
	painted func()
}

type puckState struct {
	shown  bool
	at     engine.Point
	rested bool // landed, and a later puck is being played
}

// fallState is a puck in flight: where it is on its path, for the trail and
// the peg it last touched.
type fallState struct {
	active bool
	drop   int
	path   engine.Path
	t      float64
	speed  float64 // of the animation: path seconds per real second
	next   int     // the next point of path whose touch is still to be heard
}

// NewBoard returns a board priced at stake.
func NewBoard(stake engine.Cents) *Board {
	b := &Board{Stake: stake}
	b.ExtendBaseWidget(b)
	return b
}

// CreateRenderer is part of fyne.Widget.
func (b *Board) CreateRenderer() fyne.WidgetRenderer {
	b.r = newBoardRenderer(b)
	return b.r
}

// Offer shows (or hides) the three pucks above the slots.
func (b *Board) Offer(on bool) {
	b.offer = on
	b.Refresh()
}

// Offering reports whether the pucks are on offer.
func (b *Board) Offering() bool { return b.offer }

// reached reports whether d is the destination just reached, shown lit.
func (b *Board) reached(d engine.Destination) bool { return b.hasLit && b.lit == d }

// Clear removes the pucks, the lit destination and the revealed sums: the
// board at rest.
func (b *Board) Clear() {
	b.stopFall()
	b.offer, b.hasLit, b.burst = false, false, 0
	b.pucks = [2]puckState{}
	b.boxes = [engine.NumBonusBoxes]string{}
	b.Refresh()
}

// SetBanner writes a line across the top of the board; recall marks it as
// the RAPPEL banner.
func (b *Board) SetBanner(text string, recall bool) {
	b.banner, b.recall = text, recall
	b.Refresh()
}

// RevealBox writes the sum a BONUS step revealed in its box ("" clears it).
func (b *Board) RevealBox(box int, text string) {
	b.boxes[box] = text
	b.Refresh()
}

// Rest shows drop's puck lying on its destination, as after its fall.
func (b *Board) Rest(drop int, dest engine.Destination) {
	b.pucks[drop] = puckState{shown: true, at: destCenter(dest)}
	if drop == 1 {
		b.pucks[0].rested = b.pucks[0].shown
	}
	b.lit, b.hasLit = dest, true
	b.Refresh()
}

// Drop lets drop's puck fall along path at speed times real time, then
// calls landed (on the UI thread). A fall already running is cut short.
func (b *Board) Drop(drop int, path engine.Path, speed float64, landed func()) {
	b.stopFall()
	b.offer, b.hasLit, b.burst = false, false, 0
	if drop == 1 {
		b.pucks[0].rested = b.pucks[0].shown
	}
	b.pucks[drop] = puckState{shown: true, at: path.At(0)}
	b.fall = fallState{active: true, drop: drop, path: path, speed: speed, next: 1}
	b.Refresh()
	dur := path.Duration() / speed
	var a *fyne.Animation
	a = fyne.NewAnimation(time.Duration(dur*float64(time.Second)), func(f float32) {
		if b.anim != a {
			return // stopped: a late tick of an old fall
		}
		b.frame(float64(f) * path.Duration())
		if f >= 1 {
			b.anim = nil
			b.land(drop, path.Dest)
			if landed != nil {
				landed()
			}
		}
	})
	a.Curve = fyne.AnimationLinear
	b.anim = a
	a.Start()
}

// frame moves the falling puck to time t of its path. It only moves canvas
// objects: a frame allocates nothing.
func (b *Board) frame(t float64) {
	b.fall.t = t
	b.pucks[b.fall.drop].at = b.fall.path.At(t)
	if b.r != nil {
		b.r.placeFall()
	}
	b.touch(t)
}

// touch reports the pegs the puck hit up to time t of its path to OnPeg.
// A hit more than a few frames old (the window stalled, or a test jumped
// to the end) is skipped: heard late, it would be heard out of time.
func (b *Board) touch(t float64) {
	f := &b.fall
	pts := f.path.Points
	for ; f.next < len(pts)-1 && pts[f.next].T <= t; f.next++ {
		pt := pts[f.next]
		if pt.Peg < 0 || b.OnPeg == nil || (t-pt.T)/f.speed > 0.07 {
			continue
		}
		// The speed it arrives at, from the last millisecond of its arc.
		const dt = 1e-3
		a, z := f.path.At(pt.T-dt), pt.Point
		b.OnPeg(math.Hypot(z.X-a.X, z.Y-a.Y) / dt * f.speed)
	}
}

func (b *Board) land(drop int, dest engine.Destination) {
	b.fall.active = false
	b.pucks[drop].at = destCenter(dest)
	b.lit, b.hasLit = dest, true
	b.Refresh()
	if b.OnLand != nil {
		b.OnLand()
	}
	a := fyne.NewAnimation(700*time.Millisecond, func(f float32) {
		if f >= 1 {
			f = 0
		}
		b.burst = f
		if b.r != nil {
			b.r.placeBurst()
		}
	})
	a.Curve = fyne.AnimationEaseOut
	a.Start()
}

func (b *Board) stopFall() {
	if b.anim != nil {
		a := b.anim
		b.anim = nil
		a.Stop()
	}
	b.fall.active = false
}

// Falling reports whether a puck is in flight.
func (b *Board) Falling() bool { return b.anim != nil }

// pulseSteps is how many levels of glow a pulse goes through. Each change
// repaints the glowing parts of the window: a slow glow needs no 60 of them
// a second, and 20 levels of a pulse of 1.6 s look as smooth.
const pulseSteps = 20

// Pulse sets the glow of the BONUS boxes and of the pucks on offer (0 to 1),
// rounded to a level of pulseSteps.
func (b *Board) Pulse(g float32) {
	g = float32(math.Round(float64(g)*pulseSteps)) / pulseSteps
	if g == b.glow {
		return
	}
	b.glow = g
	if b.r != nil {
		b.r.placeGlow()
	}
}

// Tapped picks the puck on offer nearest to the tap. Part of fyne.Tappable.
func (b *Board) Tapped(ev *fyne.PointEvent) {
	if !b.offer || b.OnPick == nil || b.r == nil {
		return
	}
	pr := b.r.pr
	best, bestD := -1, float32(math.MaxFloat32)
	for i, s := range engine.Board().Slots {
		c := pr.at(offerPoint(i, s))
		d := float32(math.Hypot(float64(c.X-ev.Position.X), float64(c.Y-ev.Position.Y)))
		if d < bestD {
			best, bestD = i, d
		}
	}
	// Generous targets: anywhere in the top band, nearest puck wins.
	if ev.Position.Y > pr.at(engine.Point{X: 0.5, Y: 0.3}).Y {
		return
	}
	b.OnPick(best)
}

// PuckPosition is where the puck on offer above slot is drawn, for taps.
func (b *Board) PuckPosition(slot int) fyne.Position {
	return newProjection(b.Size()).at(offerPoint(slot, engine.Board().Slots[slot]))
}

// offerPoint is where the puck for slot i waits: just above the slot.
func offerPoint(i int, slot engine.Point) engine.Point {
	return engine.Point{X: slot.X, Y: offerY / 1.6}
}

func destCenter(d engine.Destination) engine.Point {
	g := engine.Board()
	if d.Bonus {
		return g.BonusBoxes[d.Index].Center()
	}
	return g.Spots[d.Index].Center()
}

// Glow makes the BONUS boxes and the pucks on offer pulse, or stop.
func (b *Board) Glow(on bool) {
	if !on {
		if b.attract != nil {
			b.attract.Stop()
			b.attract = nil
		}
		b.Pulse(0)
		return
	}
	if b.attract != nil {
		return
	}
	b.attract = fyne.NewAnimation(1600*time.Millisecond, func(f float32) { b.Pulse(f) })
	b.attract.AutoReverse = true
	b.attract.RepeatCount = fyne.AnimationRepeatForever
	b.attract.Curve = fyne.AnimationEaseInOut
	b.attract.Start()
}

// StartAttract runs the idle animation: a slow glow on the BONUS boxes and
// a banner inviting to play. StopAttract ends it.
func (b *Board) StartAttract(text string) {
	if b.attracting {
		return
	}
	b.attracting = true
	b.SetBanner(text, false)
	b.Glow(true)
}

// StopAttract ends the idle animation.
func (b *Board) StopAttract() {
	if !b.attracting {
		return
	}
	b.attracting = false
	b.Glow(false)
	b.SetBanner("", false)
}

// Attracting reports whether the idle animation runs.
func (b *Board) Attracting() bool { return b.attracting }
