package ui

import (
	"image/color"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"starfortune/engine"
)

// BonusView is the BONUS step of article 4.3.2, shown over the board: the
// GO button, then the sum revealed in figures.
type BonusView struct {
	widget.BaseWidget

	// OnGo is called when the player presses GO.
	OnGo func()

	title  *canvas.Text
	hint   *canvas.Text
	value  *canvas.Text
	goBtn  *bigButton
	goBox  fyne.CanvasObject
	panel  fyne.CanvasObject
	reveal *fyne.Animation
}

// NewBonusView returns a hidden BONUS view.
func NewBonusView() *BonusView {
	v := &BonusView{}
	v.ExtendBaseWidget(v)
	v.title = &canvas.Text{Text: lang.L("BONUS"), Color: colGold, TextSize: 54, TextStyle: fyne.TextStyle{Bold: true}, Alignment: fyne.TextAlignCenter}
	v.hint = &canvas.Text{Color: colText, TextSize: 18, Alignment: fyne.TextAlignCenter}
	v.value = &canvas.Text{Color: colGold, TextSize: 48, TextStyle: fyne.TextStyle{Bold: true}, Alignment: fyne.TextAlignCenter}
	v.goBtn = newBigButton(lang.L("GO"), 40, func() {
		if v.OnGo != nil {
			v.OnGo()
		}
	})
	v.goBox = container.NewCenter(container.New(fixedSize(fyne.NewSize(220, 84)), v.goBtn))
	bg := &canvas.Rectangle{FillColor: color.NRGBA{R: 0x1a, G: 0x0b, B: 0x3a, A: 0xf0}, StrokeColor: colGold, StrokeWidth: 4, CornerRadius: 22}
	glow := &canvas.Rectangle{FillColor: colGoldGlow, CornerRadius: 30}
	inner := container.NewVBox(v.title, v.hint, v.goBox, v.value)
	v.panel = container.New(lowerCentre{}, container.NewStack(
		container.New(layout.NewCustomPaddedLayout(-10, -10, -10, -10), glow), bg,
		container.New(layout.NewCustomPaddedLayout(18, 22, 40, 40), inner)))
	v.Hide()
	return v
}

// CreateRenderer is part of fyne.Widget.
func (v *BonusView) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(v.panel) }

// Ask shows the BONUS step waiting for GO.
func (v *BonusView) Ask() {
	v.hint.Text = lang.L("BONUS! Press GO to reveal your win")
	v.value.Text = ""
	v.value.Hide()
	v.goBox.Show()
	v.goBtn.Enable()
	v.Show()
	v.Refresh()
}

// Waiting reports whether the view waits for GO.
func (v *BonusView) Waiting() bool { return v.Visible() && v.goBox.Visible() }

// SetBusy greys GO while the engine records it.
func (v *BonusView) SetBusy(busy bool) {
	if busy {
		v.goBtn.Disable()
	} else {
		v.goBtn.Enable()
	}
}

// Reveal shows sum, growing into place, then calls done.
func (v *BonusView) Reveal(sum engine.Cents, done func()) {
	v.goBox.Hide()
	v.hint.Text = lang.L("BONUS: you win {{.Amount}}", amount(sum))
	v.value.Text = money(sum)
	v.value.Show()
	v.Show()
	v.Refresh()
	v.reveal = fyne.NewAnimation(600*time.Millisecond, func(f float32) {
		v.value.TextSize = 16 + 32*f
		v.value.Refresh()
		if f >= 1 && done != nil {
			done()
		}
	})
	v.reveal.Curve = fyne.AnimationEaseOut
	v.reveal.Start()
}

// Value is the sum shown, "" before GO.
func (v *BonusView) Value() string { return v.value.Text }

// GoButton is the GO button.
func (v *BonusView) GoButton() *bigButton { return v.goBtn }

// fixedSize is a layout giving its objects one size.
type fixedSize fyne.Size

func (s fixedSize) MinSize([]fyne.CanvasObject) fyne.Size { return fyne.Size(s) }

func (s fixedSize) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

// lowerCentre places its object centred across, in the lower middle of the
// board: the BONUS boxes above it stay in sight.
type lowerCentre struct{}

func (lowerCentre) MinSize(objs []fyne.CanvasObject) fyne.Size { return objs[0].MinSize() }

func (lowerCentre) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	m := objs[0].MinSize()
	objs[0].Resize(m)
	y := min(size.Height*0.70-m.Height/2, size.Height-m.Height)
	objs[0].Move(fyne.NewPos((size.Width-m.Width)/2, max(y, 0)))
}
