package ui

import (
	"image"
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"

	"starfortune/engine"
)

// trailLen is the number of fading images behind a falling puck, trailStep
// the time between two of them in seconds.
const (
	trailLen  = 6
	trailStep = 0.022
)

// pegRadius is the drawn radius of a peg, in board units: a little larger
// than the one the paths bounce on, so that a bounce looks like a touch.
var pegRadius = engine.Board().PegRadius * 1.25

// spotCorner is the corner radius of the spots, in pixels at scale 1.
const spotCorner = 4

// spotRect is the area drawn for spot i, in board units: a little inside the
// spot, so that neighbours stand apart.
func spotRect(i int) engine.Rect {
	rc := engine.Board().Spots[i]
	return engine.Rect{Min: engine.Point{X: rc.Min.X + 0.004, Y: rc.Min.Y + 0.008}, Max: engine.Point{X: rc.Max.X - 0.004, Y: rc.Max.Y - 0.008}}
}

// spotColors are the fill of a spot showing multiple m of the stake, and
// the colour of its figures: dim for 0, gold for 10 and more.
func spotColors(m int64) (fill, text color.NRGBA) {
	switch {
	case m == 0:
		return colSpotZero, colDim
	case m >= 10:
		return colSpotBig, colGold
	}
	return colSpotWin, colText
}

// offerRadius is the radius of the pucks on offer, in board units: larger
// than a falling puck, they are touch targets.
const offerRadius = 0.034

// boardRenderer holds the board's canvas objects. Layout places them for the
// widget's size; Refresh copies the board's state into them; the place*
// methods update the few objects an animation frame moves.
type boardRenderer struct {
	b  *Board
	pr projection

	back     *backdrop
	bg       *canvas.Raster
	slots    [engine.NumSlots]*canvas.Rectangle
	litPeg   *canvas.Circle    // the peg just touched; the others are in the backdrop
	lit      int               // its index, -1 if none
	litSpot  *canvas.Rectangle // the spot reached; the others are in the backdrop
	boxGlow  [engine.NumBonusBoxes]*canvas.Rectangle
	boxHalo  [engine.NumBonusBoxes]*canvas.Rectangle
	box      [engine.NumBonusBoxes]*canvas.Rectangle
	boxLabel [engine.NumBonusBoxes]*canvas.Text
	boxValue [engine.NumBonusBoxes]*canvas.Text
	spotText [engine.NumSpots]*canvas.Text
	offGlow  [engine.NumSlots]*canvas.Circle
	offPuck  [engine.NumSlots]*canvas.Circle
	offText  [engine.NumSlots]*canvas.Text
	trail    [trailLen]*canvas.Circle
	puck     [2]*canvas.Circle
	shine    [2]*canvas.Circle
	burst    *canvas.Circle
	bannerBg *canvas.Rectangle
	banner   *canvas.Text
	bubbleBg *canvas.Rectangle // the sum won, above the destination reached
	bubble   *canvas.Text

	objects []fyne.CanvasObject
}

func newBoardRenderer(b *Board) *boardRenderer {
	r := &boardRenderer{b: b, back: newBackdrop(), lit: -1}
	r.bg = canvas.NewRaster(func(w, h int) image.Image {
		if b.painted != nil {
			defer b.painted()
		}
		return r.back.generate(w, h, float32(w)/max(r.bg.Size().Width, 1))
	})
	r.bg.ScaleMode = canvas.ImageScalePixels // drawn at the pixel size: sampling the nearest texel is exact, and cheaper
	r.litSpot = &canvas.Rectangle{StrokeColor: colGold, StrokeWidth: 4, CornerRadius: spotCorner}
	r.litSpot.Hide()
	r.objects = append(r.objects, r.bg, r.litSpot)
	for i := range r.spotText {
		r.spotText[i] = &canvas.Text{Alignment: fyne.TextAlignCenter, TextStyle: fyne.TextStyle{Bold: true}}
		r.objects = append(r.objects, r.spotText[i])
	}
	for i := range r.slots {
		r.slots[i] = &canvas.Rectangle{FillColor: colNight, StrokeColor: colGold, StrokeWidth: 2, CornerRadius: 3}
		r.objects = append(r.objects, r.slots[i])
	}
	r.litPeg = &canvas.Circle{FillColor: colPegLit, Hidden: true}
	r.objects = append(r.objects, r.litPeg)
	for i := range r.box {
		r.boxHalo[i] = &canvas.Rectangle{FillColor: colGoldGlow, CornerRadius: 26}
		r.boxGlow[i] = &canvas.Rectangle{FillColor: colGoldGlow, CornerRadius: 16}
		r.box[i] = &canvas.Rectangle{FillColor: colBox, StrokeColor: colGold, StrokeWidth: 3, CornerRadius: 10}
		r.boxLabel[i] = &canvas.Text{Text: "BONUS", Color: colGold, Alignment: fyne.TextAlignCenter, TextStyle: fyne.TextStyle{Bold: true}}
		r.boxValue[i] = &canvas.Text{Color: colText, Alignment: fyne.TextAlignCenter, TextStyle: fyne.TextStyle{Bold: true}}
		r.objects = append(r.objects, r.boxHalo[i], r.boxGlow[i], r.box[i], r.boxLabel[i], r.boxValue[i])
	}
	for i := range r.offPuck {
		r.offGlow[i] = &canvas.Circle{FillColor: colGoldGlow}
		r.offPuck[i] = &canvas.Circle{FillColor: colPuck, StrokeColor: colPuckEdge, StrokeWidth: 3}
		r.offText[i] = &canvas.Text{Text: string(rune('1' + i)), Color: colNight, Alignment: fyne.TextAlignCenter, TextStyle: fyne.TextStyle{Bold: true}}
		r.objects = append(r.objects, r.offGlow[i], r.offPuck[i], r.offText[i])
	}
	for i := range r.trail {
		a := uint8(110 - 15*i)
		r.trail[i] = &canvas.Circle{FillColor: color.NRGBA{R: 0xff, G: 0xd8, B: 0x5a, A: a}}
		r.objects = append(r.objects, r.trail[i])
	}
	for i := range r.puck {
		r.puck[i] = &canvas.Circle{FillColor: colPuck, StrokeColor: colPuckEdge, StrokeWidth: 2}
		r.shine[i] = &canvas.Circle{FillColor: color.NRGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xb0}}
		r.objects = append(r.objects, r.puck[i], r.shine[i])
	}
	r.burst = &canvas.Circle{StrokeColor: colGold, StrokeWidth: 3}
	r.bannerBg = &canvas.Rectangle{CornerRadius: 8}
	r.banner = &canvas.Text{Alignment: fyne.TextAlignCenter, TextStyle: fyne.TextStyle{Bold: true}}
	r.bubbleBg = &canvas.Rectangle{FillColor: colGold, StrokeColor: colText, StrokeWidth: 2, CornerRadius: 10}
	r.bubble = &canvas.Text{Color: colNight, Alignment: fyne.TextAlignCenter, TextStyle: fyne.TextStyle{Bold: true}}
	r.objects = append(r.objects, r.burst, r.bubbleBg, r.bubble, r.bannerBg, r.banner)
	r.Refresh()
	return r
}

func (r *boardRenderer) Destroy()                     {}
func (r *boardRenderer) Objects() []fyne.CanvasObject { return r.objects }

// MinSize keeps the spots' sums readable.
func (r *boardRenderer) MinSize() fyne.Size { return fyne.NewSize(440, 400) }

// Layout places every object for size.
func (r *boardRenderer) Layout(size fyne.Size) {
	pr := newProjection(size)
	r.pr = pr
	g := engine.Board()
	r.bg.Resize(size)
	for i := range g.Spots {
		pos, sz := pr.rect(spotRect(i))
		if r.b.reached(engine.Destination{Index: i}) {
			r.litSpot.Move(pos)
			r.litSpot.Resize(sz)
		}
		t := r.spotText[i]
		t.TextSize = pr.length(0.024, 0.95)
		ts := fyne.MeasureText(t.Text, t.TextSize, t.TextStyle)
		t.Move(fyne.NewPos(pos.X, pos.Y+(sz.Height-ts.Height)/2))
		t.Resize(fyne.NewSize(sz.Width, ts.Height))
	}
	for i, s := range g.Slots {
		w := pr.length(2.6*g.PuckRadius, 0)
		top := pr.at(engine.Point{X: s.X, Y: 0})
		r.slots[i].Move(fyne.NewPos(top.X-w/2, top.Y-2))
		r.slots[i].Resize(fyne.NewSize(w, pr.at(s).Y-top.Y+pr.length(g.PuckRadius, 0)))
	}
	r.placeLitPeg()
	for i, bx := range g.BonusBoxes {
		pos, sz := pr.rect(bx)
		pad := pr.length(0.012, bx.Min.Y)
		r.box[i].Move(pos)
		r.box[i].Resize(sz)
		r.boxGlow[i].Move(pos.SubtractXY(pad, pad))
		r.boxGlow[i].Resize(sz.AddWidthHeight(2*pad, 2*pad))
		r.boxHalo[i].Move(pos.SubtractXY(2.5*pad, 2.5*pad))
		r.boxHalo[i].Resize(sz.AddWidthHeight(5*pad, 5*pad))
		l, v := r.boxLabel[i], r.boxValue[i]
		l.TextSize = sz.Height * 0.30
		v.TextSize = sz.Height * 0.26
		lh := fyne.MeasureText("BONUS", l.TextSize, l.TextStyle).Height
		vh := fyne.MeasureText("0", v.TextSize, v.TextStyle).Height
		y := pos.Y + (sz.Height-lh-vh)/2
		if v.Text == "" {
			y = pos.Y + (sz.Height-lh)/2
		}
		l.Move(fyne.NewPos(pos.X, y))
		l.Resize(fyne.NewSize(sz.Width, lh))
		v.Move(fyne.NewPos(pos.X, y+lh))
		v.Resize(fyne.NewSize(sz.Width, vh))
	}
	for i, s := range g.Slots {
		p := offerPoint(i, s)
		pr.circle(r.offPuck[i], p, offerRadius)
		t := r.offText[i]
		t.TextSize = pr.length(offerRadius*1.3, p.Y)
		c := pr.at(p)
		h := fyne.MeasureText(t.Text, t.TextSize, t.TextStyle).Height
		t.Move(fyne.NewPos(c.X-50, c.Y-h/2))
		t.Resize(fyne.NewSize(100, h))
	}
	r.banner.TextSize = pr.w * 0.028
	if tw := fyne.MeasureText(r.banner.Text, r.banner.TextSize, r.banner.TextStyle).Width; tw > pr.w*0.82 {
		r.banner.TextSize *= pr.w * 0.82 / tw // long banners shrink to fit the board
	}
	bh := fyne.MeasureText("Ag", r.banner.TextSize, r.banner.TextStyle).Height
	bw := fyne.MeasureText(r.banner.Text, r.banner.TextSize, r.banner.TextStyle).Width + 2*bh
	by := pr.at(engine.Point{X: 0.5, Y: 0.3}).Y
	r.bannerBg.Move(fyne.NewPos(pr.cx-bw/2, by-bh*0.3))
	r.bannerBg.Resize(fyne.NewSize(bw, bh*1.6))
	r.banner.Move(fyne.NewPos(pr.cx-bw/2, by))
	r.banner.Resize(fyne.NewSize(bw, bh))
	r.placeBubble()
	r.placeGlow()
	r.placePucks()
	r.placeFall()
	r.placeBurst()
}

// placeBubble shows the sum of the destination just reached above it: the
// puck lying on a spot hides the spot's figures.
func (r *boardRenderer) placeBubble() {
	b := r.b
	text := ""
	var top engine.Point
	if b.hasLit {
		g := engine.Board()
		if b.lit.Bonus {
			text = b.boxes[b.lit.Index]
			top = engine.Point{X: g.BonusBoxes[b.lit.Index].Center().X, Y: g.BonusBoxes[b.lit.Index].Min.Y}
		} else {
			text = shortAmount(engine.SpotValue(b.lit.Index, b.Stake))
			top = engine.Point{X: g.Spots[b.lit.Index].Center().X, Y: g.Spots[b.lit.Index].Min.Y}
		}
	}
	if text == "" || b.fall.active {
		r.bubble.Hide()
		r.bubbleBg.Hide()
		return
	}
	r.bubble.Text = text
	r.bubble.TextSize = r.pr.w * 0.034
	ts := fyne.MeasureText(text, r.bubble.TextSize, r.bubble.TextStyle)
	w, h := ts.Width+ts.Height, ts.Height*1.3
	p := r.pr.at(top)
	x := min(max(p.X-w/2, r.pr.cx-r.pr.w/2), r.pr.cx+r.pr.w/2-w)
	y := p.Y - h - 6
	r.bubbleBg.Move(fyne.NewPos(x, y))
	r.bubbleBg.Resize(fyne.NewSize(w, h))
	r.bubble.Move(fyne.NewPos(x, y+(h-ts.Height)/2))
	r.bubble.Resize(fyne.NewSize(w, ts.Height))
	r.bubble.Show()
	r.bubbleBg.Show()
	r.bubble.Refresh()
}

// Refresh copies the board's state into the objects and lays them out.
func (r *boardRenderer) Refresh() {
	b := r.b
	r.litSpot.Hide()
	for i, m := range engine.SpotMultiples {
		r.spotText[i].Text = shortAmount(engine.SpotValue(i, b.Stake))
		fill, text := spotColors(m)
		if b.reached(engine.Destination{Index: i}) {
			if m > 0 {
				fill, text = colGoldDeep, colText
			}
			r.litSpot.FillColor = fill
			r.litSpot.Show()
		}
		r.spotText[i].Color = text
	}
	for i := range r.box {
		lit := b.reached(engine.Destination{Bonus: true, Index: i})
		r.box[i].StrokeWidth = 3
		r.box[i].FillColor = colBox
		if lit {
			r.box[i].StrokeWidth = 5
			r.box[i].FillColor = color.NRGBA{R: 0x7a, G: 0x22, B: 0x9c, A: 0xf8}
		}
		r.boxValue[i].Text = b.boxes[i]
	}
	for i := range r.offPuck {
		if b.offer {
			r.offPuck[i].Show()
			r.offText[i].Show()
			r.offGlow[i].Show()
		} else {
			r.offPuck[i].Hide()
			r.offText[i].Hide()
			r.offGlow[i].Hide()
		}
	}
	r.banner.Text = b.banner
	r.banner.Color = colGold
	r.bannerBg.FillColor = color.NRGBA{R: 0x07, G: 0x09, B: 0x22, A: 0xd8}
	r.bannerBg.StrokeColor, r.bannerBg.StrokeWidth = colGold, 2
	if b.recall {
		r.banner.Color = colNight
		r.bannerBg.FillColor = colRecall
		r.bannerBg.StrokeColor = colText
	}
	if b.banner == "" {
		r.banner.Hide()
		r.bannerBg.Hide()
	} else {
		r.banner.Show()
		r.bannerBg.Show()
	}
	if !b.fall.active {
		r.lit = -1 // placed by Layout below
	}
	for _, o := range r.objects {
		if o != r.bg { // the backdrop never changes: painting it again costs 8 ms
			o.Refresh()
		}
	}
	r.Layout(b.Size())
}

// placeGlow sizes the halo of the BONUS boxes and of the pucks on offer.
func (r *boardRenderer) placeGlow() {
	g := r.b.glow
	for i := range r.boxGlow {
		r.boxGlow[i].FillColor = color.NRGBA{R: 0xff, G: 0xc8, B: 0x3d, A: uint8(70 + 90*g)}
		r.boxGlow[i].Refresh()
		r.boxHalo[i].FillColor = color.NRGBA{R: 0xe0, G: 0x3a, B: 0xc8, A: uint8(45 + 60*g)}
		r.boxHalo[i].Refresh()
	}
	for i, s := range engine.Board().Slots {
		p := offerPoint(i, s)
		r.pr.circle(r.offGlow[i], p, offerRadius*(1.35+0.35*float64(g)))
		r.offGlow[i].FillColor = color.NRGBA{R: 0xff, G: 0xc8, B: 0x3d, A: uint8(50 + 80*g)}
		r.offGlow[i].Refresh()
	}
}

// placePucks places the pucks not in flight.
func (r *boardRenderer) placePucks() {
	g := engine.Board()
	for i, p := range r.b.pucks {
		if !p.shown {
			r.puck[i].Hide()
			r.shine[i].Hide()
			continue
		}
		fill := colPuck
		if p.rested {
			fill = colPuckRested
		}
		if r.puck[i].FillColor != fill {
			r.puck[i].FillColor = fill
			r.puck[i].Refresh()
		}
		r.pr.circle(r.puck[i], p.at, g.PuckRadius)
		r.pr.circle(r.shine[i], engine.Point{X: p.at.X - g.PuckRadius*0.3, Y: p.at.Y - g.PuckRadius*0.3}, g.PuckRadius*0.3)
		r.puck[i].Show()
		r.shine[i].Show()
	}
}

// placeFall moves the puck in flight, its trail and the peg it touched:
// everything one animation frame changes.
func (r *boardRenderer) placeFall() {
	f := &r.b.fall
	if !f.active {
		for _, t := range r.trail {
			t.Hide()
		}
		return
	}
	g := engine.Board()
	for i, t := range r.trail {
		at := f.t - float64(i+1)*trailStep
		if at <= 0 {
			t.Hide()
			continue
		}
		r.pr.circle(t, f.path.At(at), g.PuckRadius*(0.9-0.08*float64(i)))
		t.Show()
	}
	r.placePucks()
	peg := touchedPeg(f.path, f.t)
	if peg != r.lit {
		r.lit = peg
		r.placeLitPeg()
	}
}

// placeLitPeg draws peg r.lit lit, over its picture in the backdrop, or
// nothing when no peg is lit.
func (r *boardRenderer) placeLitPeg() {
	if r.lit < 0 {
		r.litPeg.Hide()
		return
	}
	r.pr.circle(r.litPeg, engine.Board().Pegs[r.lit], pegRadius)
	r.litPeg.Show()
}

// touchedPeg is the peg the puck last bounced on at time t, if it was in
// the last tenth of a second, else -1.
func touchedPeg(p engine.Path, t float64) int {
	for i := len(p.Points) - 1; i >= 0; i-- {
		pt := p.Points[i]
		if pt.T <= t {
			if t-pt.T < 0.1 {
				return pt.Peg
			}
			return -1
		}
	}
	return -1
}

// placeBurst spreads the ring around the destination just reached.
func (r *boardRenderer) placeBurst() {
	b := r.b
	if b.burst <= 0 || !b.hasLit {
		r.burst.Hide()
		return
	}
	c := destCenter(b.lit)
	r.pr.circle(r.burst, c, engine.Board().PuckRadius*(1+4*float64(b.burst)))
	r.burst.StrokeColor = color.NRGBA{R: 0xff, G: 0xc8, B: 0x3d, A: uint8(255 * (1 - b.burst))}
	r.burst.Show()
	r.burst.Refresh()
}
