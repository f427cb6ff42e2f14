package ui

import (
	"image"
	"image/color"
	"math"
	"runtime"
	"sync"

	"fyne.io/fyne/v2"

	"starfortune/engine"
)

// The board is a flat square in the engine's normalised coordinates, seen
// tilted away from the player: its far (top) edge is further, so narrower
// and foreshortened. tiltDepth is how much further the top edge is than the
// bottom one, as a fraction of the bottom's distance.
const tiltDepth = 0.38

// Space kept above the board for the pucks on offer, in board heights.
const offerY = -0.085

// projection maps board points to widget positions for one widget size.
type projection struct {
	cx, top float32 // centre line, and where the board's top edge would be flat
	w, h    float32 // width of the bottom edge and height of the board
}

// newProjection fits the tilted board, with the pucks above it, in size.
func newProjection(size fyne.Size) projection {
	const aspect = 0.80 // projected height / bottom width
	above := -offerY * depth(offerY)
	w := min(size.Width*0.97, size.Height/(aspect*float32(1+above)+0.06))
	h := w * aspect
	top := (size.Height-h*float32(1+above))/2 + h*float32(above)
	return projection{cx: size.Width / 2, top: top, w: w, h: h}
}

// depth is the scale of the board at height y: 1 at the bottom edge.
func depth(y float64) float64 { return 1 / (1 + tiltDepth*(1-y)) }

// at is where board point p is drawn.
func (pr projection) at(p engine.Point) fyne.Position {
	s := depth(p.Y)
	return fyne.NewPos(pr.cx+float32((p.X-0.5)*s)*pr.w, pr.top+float32(p.Y*s)*pr.h)
}

// length is how long a board length l looks at height y.
func (pr projection) length(l, y float64) float32 { return float32(l*depth(y)) * pr.w }

// rect is the screen box holding board rectangle r (its projection is a
// trapezoid; the box spans its mid-height width).
func (pr projection) rect(r engine.Rect) (fyne.Position, fyne.Size) {
	tl, br := pr.at(r.Min), pr.at(r.Max)
	mid := (r.Min.Y + r.Max.Y) / 2
	w := pr.length(r.Max.X-r.Min.X, mid)
	cx := pr.at(engine.Point{X: (r.Min.X + r.Max.X) / 2, Y: mid}).X
	return fyne.NewPos(cx-w/2, tl.Y), fyne.NewSize(w, br.Y-tl.Y)
}

// circle places a circle of radius r (board units) centred on p: its
// bounds stay square, which both renderers draw as a circle.
func (pr projection) circle(o fyne.CanvasObject, p engine.Point, r float64) {
	c, rr := pr.at(p), pr.length(r, p.Y)
	o.Move(fyne.NewPos(c.X-rr, c.Y-rr))
	o.Resize(fyne.NewSquareSize(2 * rr))
}

// unproject is the board point drawn at pixel (x, y), for painting the
// background pixel by pixel.
func (pr projection) unproject(x, y float32) engine.Point {
	v := float64((y - pr.top) / pr.h)
	by := v * (1 + tiltDepth) / (1 + tiltDepth*v)
	return engine.Point{X: float64(x-pr.cx)/(float64(pr.w)*depth(by)) + 0.5, Y: by}
}

// backdrop paints the still part of the board: the night sky with its stars
// and nebulae, the tilted board surface with its rails, the pegs and the
// spots (not their figures, which change with the stake). It is
// painted when the board's size changes (Fyne keeps it as a texture; the
// board's Refresh leaves it alone) and not kept: 2 to 4 MB less to hold.
type backdrop struct {
	stars []star
}

type star struct{ x, y, r, a float64 }

func newBackdrop() *backdrop {
	b := &backdrop{}
	s := uint64(0x5eed57a12f0a7c3b) // fixed: the sky is part of the design
	next := func() float64 {
		s ^= s << 13
		s ^= s >> 7
		s ^= s << 17
		return float64(s>>11) * 0x1p-53
	}
	for range 260 {
		b.stars = append(b.stars, star{x: next(), y: next(), r: 0.5 + 1.4*next()*next(), a: 0.25 + 0.75*next()})
	}
	return b
}

// generate paints the backdrop w×h pixels large, at scale pixels per unit
// of the board's size.
func (b *backdrop) generate(w, h int, scale float32) image.Image {
	// Opaque, so its bytes are the same premultiplied or not: as RGBA, the
	// GL painter uploads them as they are instead of converting a copy.
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	pr := newProjection(fyne.NewSize(float32(w), float32(h)))
	// The nebulae are Gaussians, a product of a function of x and one of y;
	// the board's depth depends on the row only. Computing those per column
	// and per row keeps exp out of the pixel loop: the backdrop is painted
	// before the window's first frame.
	cx := float64(pr.cx)
	n1x, n2x := make([]float64, w), make([]float64, w)
	for x := range w {
		fx := float64(x) / float64(w)
		n1x[x] = math.Exp(-(fx - 0.18) * (fx - 0.18) / 0.02)
		n2x[x] = math.Exp(-(fx - 0.85) * (fx - 0.85) / 0.03)
	}
	paintRow := func(y int) {
		fy := float64(y) / float64(h)
		n1y := math.Exp(-(fy - 0.25) * (fy - 0.25) / 0.05)
		n2y := math.Exp(-(fy - 0.7) * (fy - 0.7) / 0.04)
		row := pr.unproject(0, float32(y)+0.5) // p.Y and depth are the row's
		scale := float64(pr.w) * depth(row.Y)
		half, edgeY := scale/2, math.Min(row.Y, 1-row.Y)*scale
		pix := img.Pix[y*img.Stride : y*img.Stride+4*w]
		for x := range w {
			// sky: deep blue to violet, two soft nebulae
			n1, n2 := n1x[x]*n1y, n2x[x]*n2y
			r := 7 + 18*fy + 70*n1 + 20*n2
			g := 9 + 6*fy + 10*n1 + 45*n2
			bl := 34 + 46*fy + 90*n1 + 80*n2
			// distance to the board's edge in pixels, negative outside
			edge := edgeY
			if ex := half - math.Abs(float64(x)+0.5-cx); ex < edge {
				edge = ex
			}
			if row.Y > -0.5 && edge > -1 {
				if edge > 0 {
					// board surface: translucent indigo glass, lighter near the player
					k := 0.55 + 0.2*row.Y
					r, g, bl = r*(1-k)+24*k, g*(1-k)+26*k, bl*(1-k)+(78+30*row.Y)*k
				}
				// gold rail with a soft inner glow, antialiased on both sides
				var f float64
				switch {
				case edge < 0:
					f = 1 + edge
				case edge < 3:
					f = 1
				case edge < 4:
					f = 4 - edge + (edge-3)*0.35
				case edge < 16:
					f = (16 - edge) / 12 * 0.35
				}
				r, g, bl = r+f*(255-r), g+f*(200-g), bl+f*(61-bl)
			}
			pix[x*4+0] = clamp8(r)
			pix[x*4+1] = clamp8(g)
			pix[x*4+2] = clamp8(bl)
			pix[x*4+3] = 255
		}
	}
	// The rows in bands, one per core: the window's first frame waits
	// for them.
	bands := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for band := range bands {
		wg.Go(func() {
			for y := band * h / bands; y < (band+1)*h/bands; y++ {
				paintRow(y)
			}
		})
	}
	wg.Wait()
	for _, s := range b.stars {
		cx, cy := s.x*float64(w), s.y*float64(h)
		p := pr.unproject(float32(cx), float32(cy))
		a := s.a
		if p.X >= 0 && p.X <= 1 && p.Y >= 0 && p.Y <= 1 {
			a *= 0.35 // seen through the board
		}
		dot(img, cx, cy, s.r, color.NRGBA{R: 255, G: 250, B: 235, A: 255}, a)
	}
	// The pegs do not move: painted here, they cost a frame nothing. The
	// renderer draws only the one a puck touches, lit, on top.
	for _, p := range engine.Board().Pegs {
		c := pr.at(p)
		dot(img, float64(c.X), float64(c.Y), float64(pr.length(pegRadius, p.Y)), colPeg, 1)
	}
	// So do the spots (the one a puck reaches is drawn lit on top): eleven
	// rounded rectangles drawn at every frame cost 1 to 2.5 ms of it.
	for i, m := range engine.SpotMultiples {
		pos, sz := pr.rect(spotRect(i))
		fill, _ := spotColors(m)
		roundRect(img, pos, sz, float64(spotCorner*scale), float64(scale), fill, colPanelLine)
	}
	return img
}

// roundRect blends a rounded rectangle with a stroke of width sw centred
// on its edge into the opaque img, as Fyne's OpenGL painter draws one.
func roundRect(img *image.RGBA, pos fyne.Position, size fyne.Size, radius, sw float64, fill, stroke color.NRGBA) {
	const soft = 1.0 // the painter's edge softness, in pixels
	hw, hh := float64(size.Width)/2, float64(size.Height)/2
	cx, cy := float64(pos.X)+hw, float64(pos.Y)+hh
	r := radius - sw/2
	x0, x1 := int(cx-hw-sw-soft), int(cx+hw+sw+soft)+1
	y0, y1 := int(cy-hh-sw-soft), int(cy+hh+sw+soft)+1
	for y := max(y0, 0); y < min(y1, img.Rect.Dy()); y++ {
		for x := max(x0, 0); x < min(x1, img.Rect.Dx()); x++ {
			dx := math.Abs(float64(x)+0.5-cx) - hw + r
			dy := math.Abs(float64(y)+0.5-cy) - hh + r
			d := math.Min(math.Max(dx, dy), 0) + math.Hypot(math.Max(dx, 0), math.Max(dy, 0)) - r
			cov := 1 - smoothstep(sw/2-soft, sw/2+soft, d)
			if cov <= 0 {
				continue
			}
			k := smoothstep(-sw/2-soft, -sw/2+soft, d) // 0: fill, 1: stroke
			i := y*img.Stride + x*4
			for c, v := range [3][2]uint8{{fill.R, stroke.R}, {fill.G, stroke.G}, {fill.B, stroke.B}} {
				a := cov * (float64(fill.A)*(1-k) + float64(stroke.A)*k) / 255
				col := float64(v[0])*(1-k) + float64(v[1])*k
				img.Pix[i+c] = clamp8(float64(img.Pix[i+c])*(1-a) + col*a)
			}
		}
	}
}

func smoothstep(e0, e1, x float64) float64 {
	t := math.Max(0, math.Min(1, (x-e0)/(e1-e0)))
	return t * t * (3 - 2*t)
}

// dot blends an antialiased disc of radius r at (cx, cy) into the opaque
// img.
func dot(img *image.RGBA, cx, cy, r float64, c color.NRGBA, alpha float64) {
	x0, x1 := int(cx-r-1), int(cx+r+2)
	y0, y1 := int(cy-r-1), int(cy+r+2)
	for y := max(y0, 0); y < min(y1, img.Rect.Dy()); y++ {
		for x := max(x0, 0); x < min(x1, img.Rect.Dx()); x++ {
			d := math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy)
			cov := math.Max(0, math.Min(1, r-d+0.5)) * alpha
			if cov <= 0 {
				continue
			}
			i := y*img.Stride + x*4
			for k, v := range [3]uint8{c.R, c.G, c.B} {
				img.Pix[i+k] = clamp8(float64(img.Pix[i+k])*(1-cov) + float64(v)*cov)
			}
		}
	}
}

func clamp8(v float64) uint8 {
	switch {
	case v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return uint8(v)
}
