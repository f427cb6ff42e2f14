package glfw

import (
	"image/color"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/internal/driver/common"
	"fyne.io/fyne/v2/test"
)

// scene is a canvas of three shapes far from each other, and the damage
// found on it frame after frame.
type scene struct {
	t                   *testing.T
	canvas              common.Canvas
	content             *fyne.Container
	left, mid, right    *canvas.Rectangle
	dot                 *canvas.Circle
	damage              damage
	size                fyne.Size
	refreshed           map[fyne.CanvasObject]struct{}
	left0, mid0, right0 area // where each was painted at the start
}

func newScene(t *testing.T) *scene {
	test.NewTempApp(t)
	s := &scene{t: t, size: fyne.NewSize(600, 400), refreshed: map[fyne.CanvasObject]struct{}{}}
	s.left = canvas.NewRectangle(color.White)
	s.mid = canvas.NewRectangle(color.White)
	s.mid.StrokeWidth = 4
	s.right = canvas.NewRectangle(color.White)
	s.dot = canvas.NewCircle(color.White)
	s.content = container.NewWithoutLayout(s.left, s.mid, s.right, s.dot)
	s.content.Resize(s.size)
	for i, r := range []*canvas.Rectangle{s.left, s.mid, s.right} {
		r.Move(fyne.NewPos(float32(20+200*i), 20))
		r.Resize(fyne.NewSize(100, 50))
	}
	s.dot.Move(fyne.NewPos(300, 300))
	s.dot.Resize(fyne.NewSquareSize(20))
	s.canvas.SetContentTreeAndFocusMgr(s.content)
	if _, all := s.frame(1); !all {
		t.Fatal("the first frame is not painted whole")
	}
	s.left0, s.mid0, s.right0 = s.damage.last[s.left], s.damage.last[s.mid], s.damage.last[s.right]
	return s
}

func (s *scene) frame(age int) ([]area, bool) {
	parts, all := s.damage.frame(&s.canvas, s.refreshed, s.size, 1, age)
	s.refreshed = map[fyne.CanvasObject]struct{}{}
	return parts, all
}

// want checks that a frame over a buffer of that age repaints exactly
// (within merging) the areas given: each is inside a part, and the parts
// cover nothing else far from them.
func (s *scene) want(age int, areas ...area) {
	s.t.Helper()
	parts, all := s.frame(age)
	if all {
		s.t.Fatalf("frame painted whole, want parts %v", areas)
	}
	for _, a := range areas {
		in := false
		for _, p := range parts {
			in = in || (p.x0 <= a.x0 && p.y0 <= a.y0 && p.x1 >= a.x1 && p.y1 >= a.y1)
		}
		if !in {
			s.t.Errorf("area %v not repainted by parts %v", a, parts)
		}
	}
	var want, got float32
	for _, a := range merge(areas) {
		want += a.size()
	}
	for _, p := range parts {
		got += p.size()
	}
	if got > want {
		s.t.Errorf("parts %v repaint %.0f, more than the %.0f of %v", parts, got, want, areas)
	}
}

func TestDamageFindsWhatChanged(t *testing.T) {
	s := newScene(t)
	s.want(1) // nothing changed

	s.left.Move(fyne.NewPos(30, 25))
	s.want(1, s.left0, area{28, 23, 132, 77})

	s.refreshed[s.right] = struct{}{} // a property changed, then Refresh
	s.want(1, s.right0)

	s.mid.Hide()
	s.want(1, s.mid0)
	s.mid.Show()
	s.want(1, s.mid0)

	s.dot.Resize(fyne.NewSquareSize(30))
	s.want(1, area{298, 298, 332, 332})

	s.content.Remove(s.right)
	s.want(1, s.right0)
}

func TestDamageOfARefreshedContainerIsAllItHolds(t *testing.T) {
	s := newScene(t)
	s.refreshed[s.content] = struct{}{}
	if _, all := s.frame(1); !all {
		t.Error("a refreshed container covering the canvas is not painted whole")
	}
	inner := container.NewWithoutLayout(s.left, s.mid)
	s.content.Objects = []fyne.CanvasObject{inner, s.right, s.dot}
	inner.Resize(fyne.NewSize(10, 10)) // smaller than what it holds
	s.frame(1)
	s.refreshed[inner] = struct{}{}
	s.want(1, area{-2, -2, 12, 12}, s.left0, s.mid0)
}

func TestDamageOverOlderBuffers(t *testing.T) {
	s := newScene(t)
	s.left.Move(fyne.NewPos(20, 30))
	s.want(1, s.left0, area{18, 28, 122, 82})
	s.right.Move(fyne.NewPos(420, 30))
	// A buffer two frames old missed the left's move too.
	s.want(2, s.left0, area{18, 28, 122, 82}, s.right0, area{418, 28, 522, 82})
	// Three frames old: both moves. Then, the frame just before having
	// changed nothing, three frames old is the right's move only.
	s.want(3, s.left0, area{18, 28, 122, 82}, s.right0, area{418, 28, 522, 82})
	s.want(3, s.right0, area{418, 28, 522, 82})
	s.want(2)

	for _, age := range []int{0, maxAge + 1} {
		if _, all := s.frame(age); !all {
			t.Errorf("a buffer of age %d is not painted whole", age)
		}
	}
	// The frame before was painted whole: what a buffer older than it
	// holds is not known.
	if _, all := s.frame(3); !all {
		t.Error("a buffer older than a whole frame is not painted whole")
	}
}

func TestDamageOfANewSizeIsAll(t *testing.T) {
	s := newScene(t)
	s.size = fyne.NewSize(601, 400)
	if _, all := s.frame(1); !all {
		t.Error("a canvas of a new size is not painted whole")
	}
	if _, all := s.damage.frame(&s.canvas, nil, s.size, 2, 1); !all {
		t.Error("a canvas of a new scale is not painted whole")
	}
}

func TestPaintedGrowsByTheStroke(t *testing.T) {
	r := canvas.NewRectangle(color.White)
	r.Resize(fyne.NewSize(10, 10))
	r.StrokeWidth = 3
	if got, want := painted(r, fyne.NewPos(5, 5)), (area{0, 0, 20, 20}); got != want {
		t.Errorf("painted = %v, want %v", got, want)
	}
}

func TestMerge(t *testing.T) {
	a, b := area{0, 0, 10, 10}, area{5, 5, 20, 20}
	if got := merge([]area{a, b}); len(got) != 1 || got[0] != (area{0, 0, 20, 20}) {
		t.Errorf("overlapping areas merged to %v", got)
	}
	var far []area
	for i := 0; i < 10; i++ {
		far = append(far, area{float32(100 * i), 0, float32(100*i + 10), 10})
	}
	if got := merge(far); len(got) != maxAreas {
		t.Errorf("%d areas apart merged to %d, want %d", len(far), len(got), maxAreas)
	}
	for i := 0; i < 70; i++ {
		far = append(far, area{float32(100 * i), 50, float32(100*i + 10), 60})
	}
	if got := merge(far); len(got) != 1 || got[0] != (area{0, 0, 6910, 60}) {
		t.Errorf("%d areas merged to %v, want their bounds", len(far), got)
	}
}
