package glfw

import (
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/internal/driver/common"
	"fyne.io/fyne/v2/internal/scale"
)

// area is a rectangle of the canvas, in canvas coordinates.
type area struct{ x0, y0, x1, y1 float32 }

func (a area) empty() bool { return a.x1 <= a.x0 || a.y1 <= a.y0 }

func (a area) size() float32 {
	if a.empty() {
		return 0
	}
	return (a.x1 - a.x0) * (a.y1 - a.y0)
}

func (a area) union(b area) area {
	return area{min32f(a.x0, b.x0), min32f(a.y0, b.y0), max32f(a.x1, b.x1), max32f(a.y1, b.y1)}
}

func (a area) overlaps(b area) bool {
	return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
}

// pixels is a rectangle of a frame in its pixels, as OpenGL counts them:
// x, y from the bottom-left corner, w wide and h high.
type pixels struct{ x, y, w, h int32 }

// pixels is the rectangle of pixels a touches (rounded outwards) in a frame
// of the canvas at size; it may reach beyond the frame.
func (c *glCanvas) pixels(a area, size fyne.Size) pixels {
	s := float64(c.Scale() * c.texScale)
	frameHeight := int32(float32(scale.ToScreenCoordinate(c, size.Height)) * c.texScale)
	x0, x1 := int32(math.Floor(float64(a.x0)*s)), int32(math.Ceil(float64(a.x1)*s))
	top, bottom := int32(math.Floor(float64(a.y0)*s)), int32(math.Ceil(float64(a.y1)*s))
	return pixels{x0, frameHeight - bottom, x1 - x0, bottom - top}
}

// damage finds, frame after frame, the parts of a canvas that changed: where
// an object was painted in the last frame and is not now, or is now and was
// not (shown, hidden, moved, resized, added, removed), and where an object
// was refreshed (with everything under a refreshed widget or container).
// Every change of a canvas object's look goes through one of those: a
// property changed is shown by its Refresh. Repainting those parts only,
// over the last frame, paints what a whole repaint would.
//
// A window's back buffer, which a frame is painted into, holds the frame
// shown one or more frames ago (its age), or nothing known: a frame repaints
// what changed since the frame its buffer holds, or all of it.
type damage struct {
	last, now map[fyne.CanvasObject]area // where each object painted
	size      fyne.Size                  // of the canvas at the last frame
	scale     float32
	found     []area
	// changed is what each of the last frames changed, the newest first;
	// nil for a frame painted whole (or none).
	changed [maxAge][]area
}

// maxAreas is how many separate parts a frame repaints at most: each is a
// walk of the canvas's trees. maxAge is the oldest back buffer repainted in
// part (three buffers at most in the swap chains of the drivers seen).
const (
	maxAreas = 4
	maxAge   = 3
)

// trees are a canvas's trees of objects, as damage walks them.
type trees interface {
	WalkTrees(beforeChildren, afterChildren func(*common.RenderCacheNode, fyne.Position))
}

// frame returns the parts of the canvas to repaint over a back buffer of
// that age, or all=true when the whole canvas must be painted (an unknown
// buffer, the first frame, a new size or scale, or changes over most of
// it), given the objects refreshed since the last frame. It must see every
// frame painted.
func (d *damage) frame(c trees, refreshed map[fyne.CanvasObject]struct{}, size fyne.Size, scale float32, age int) (parts []area, all bool) {
	all = d.last == nil || size != d.size || scale != d.scale
	d.size, d.scale = size, scale
	if d.now == nil {
		d.now = make(map[fyne.CanvasObject]area)
	}
	d.found = d.found[:0]
	within := 0 // refreshed widgets or containers the walk is in
	c.WalkTrees(func(node *common.RenderCacheNode, pos fyne.Position) {
		obj := node.Obj()
		at := painted(obj, pos)
		d.now[obj] = at
		before, was := d.last[obj]
		_, isRefreshed := refreshed[obj]
		if isRefreshed {
			within++
		}
		if !was || before != at {
			d.add(before)
			d.add(at)
		} else if within > 0 {
			d.add(at)
		}
	}, func(node *common.RenderCacheNode, _ fyne.Position) {
		if _, isRefreshed := refreshed[node.Obj()]; isRefreshed {
			within--
		}
	})
	for obj, before := range d.last {
		if _, is := d.now[obj]; !is {
			d.add(before)
		}
		delete(d.last, obj)
	}
	if d.last == nil {
		d.last = make(map[fyne.CanvasObject]area)
	}
	d.last, d.now = d.now, d.last

	changed := merge(d.found)
	if !all && covers(changed, size) {
		all = true
	}
	// What changed since the frame the buffer holds: this frame's changes
	// and those of the age-1 frames before it.
	if age < 1 || age > maxAge {
		all = true
	}
	for i := 0; !all && i < age-1; i++ {
		all = d.changed[i] == nil
		parts = append(parts, d.changed[i]...)
	}
	copy(d.changed[1:], d.changed[:maxAge-1])
	d.changed[0] = nil
	if all {
		return nil, true
	}
	d.changed[0] = append(make([]area, 0, len(changed)), changed...)
	parts = merge(append(parts, changed...))
	return parts, covers(parts, size)
}

// covers reports whether parts cover most of a canvas of that size: then
// painting it whole costs about as much, in one walk.
func covers(parts []area, size fyne.Size) bool {
	var total float32
	for _, p := range parts {
		total += p.size()
	}
	return total > 0.6*size.Width*size.Height
}

// reaches reports whether obj, as painted in the last frame found, reaches
// part.
func (d *damage) reaches(obj fyne.CanvasObject, part area) bool {
	return d.last[obj].overlaps(part)
}

func (d *damage) add(a area) {
	if !a.empty() {
		d.found = append(d.found, a)
	}
}

// reset forgets the frames painted: the next is painted whole.
func (d *damage) reset() {
	d.last = nil
}

// painted is the area obj paints at pos: its bounds, grown by the pixel or
// two a shape's edge is smoothed over and by its stroke, and for a text or
// an image at its original size, by what of its minimum size overflows.
func painted(obj fyne.CanvasObject, pos fyne.Position) area {
	size := obj.Size()
	grow := float32(2)
	switch o := obj.(type) {
	case *canvas.Rectangle:
		grow += o.StrokeWidth
	case *canvas.Circle:
		grow += o.StrokeWidth
	case *canvas.Line:
		grow += o.StrokeWidth
	case *canvas.Polygon:
		grow += o.StrokeWidth
	case *canvas.Arc:
		grow += o.StrokeWidth
	case *canvas.Text:
		grow += overflow(o.MinSize(), size)
	case *canvas.Image:
		if o.FillMode == canvas.ImageFillOriginal {
			grow += overflow(o.MinSize(), size)
		}
	}
	return area{pos.X - grow, pos.Y - grow, pos.X + size.Width + grow, pos.Y + size.Height + grow}
}

func overflow(min, size fyne.Size) float32 {
	return max32f(max32f(min.Width-size.Width, min.Height-size.Height), 0)
}

// merge joins the areas that overlap, then the closest ones until at most
// maxAreas are left.
func merge(found []area) []area {
	if len(found) > 64 { // a frame that changed in many places
		all := found[0]
		for _, a := range found[1:] {
			all = all.union(a)
		}
		return []area{all}
	}
	parts := append([]area(nil), found...)
	for joined := true; joined; {
		joined = false
		for i := 0; i < len(parts); i++ {
			for j := i + 1; j < len(parts); j++ {
				if parts[i].overlaps(parts[j]) {
					parts[i] = parts[i].union(parts[j])
					parts = append(parts[:j], parts[j+1:]...)
					joined = true
					j--
				}
			}
		}
	}
	for len(parts) > maxAreas {
		bi, bj, best := 0, 1, float32(-1)
		for i := range parts {
			for j := i + 1; j < len(parts); j++ {
				cost := parts[i].union(parts[j]).size() - parts[i].size() - parts[j].size()
				if best < 0 || cost < best {
					bi, bj, best = i, j, cost
				}
			}
		}
		parts[bi] = parts[bi].union(parts[bj])
		parts = append(parts[:bj], parts[bj+1:]...)
	}
	return parts
}

func min32f(a, b float32) float32 {
	if a < b {
		return a
	}
	return b
}

func max32f(a, b float32) float32 {
	if a > b {
		return a
	}
	return b
}
