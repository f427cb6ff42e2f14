package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"starfortune/engine"
)

// Controls is the player's bar: the funds, the stake selector, JOUER, the
// message line and the last result. It reports taps through its callbacks.
type Controls struct {
	widget.BaseWidget

	OnPlay    func()
	OnStake   func(engine.Cents)
	OnHistory func()

	funds      *canvas.Text
	fundsTitle *canvas.Text
	stakeTitle *canvas.Text
	stakes     []*widget.Button
	play       *bigButton
	message    *widget.Label
	last       *canvas.Text
	lastBox    *fyne.Container
	history    *widget.Button
	// holder holds the arrangement for the window's shape (see arrange).
	holder   *fyne.Container
	portrait bool
}

// NewControls builds the bar with stake selected.
func NewControls(stake engine.Cents) *Controls {
	c := &Controls{}
	c.ExtendBaseWidget(c)
	c.funds = &canvas.Text{Color: colGold, TextSize: 28, TextStyle: fyne.TextStyle{Bold: true}, Alignment: fyne.TextAlignCenter}
	c.fundsTitle = &canvas.Text{Text: lang.L("Funds"), Color: colDim, TextSize: 16, Alignment: fyne.TextAlignCenter}
	c.stakeTitle = &canvas.Text{Text: lang.L("STAKE"), Color: colDim, TextSize: 16, TextStyle: fyne.TextStyle{Bold: true}}
	for _, s := range engine.Stakes {
		b := widget.NewButton(shortAmount(s), func() {
			if c.OnStake != nil {
				c.OnStake(s)
			}
		})
		c.stakes = append(c.stakes, b)
	}
	c.SetStake(stake)

	c.play = newBigButton(lang.L("PLAY"), 34, func() {
		if c.OnPlay != nil {
			c.OnPlay()
		}
	})

	c.message = widget.NewLabel("")
	c.Welcome()
	c.message.Wrapping = fyne.TextWrapWord
	c.message.Alignment = fyne.TextAlignCenter
	c.message.SizeName = theme.SizeNameSubHeadingText
	c.message.TextStyle = fyne.TextStyle{Bold: true}

	c.last = &canvas.Text{Color: colText, TextSize: 22, TextStyle: fyne.TextStyle{Bold: true}, Alignment: fyne.TextAlignCenter}
	lastTitle := &canvas.Text{Text: lang.L("Last result"), Color: colDim, TextSize: 15, Alignment: fyne.TextAlignCenter}
	c.lastBox = container.NewVBox(card(container.NewVBox(lastTitle, c.last)))
	c.lastBox.Hide()

	c.history = widget.NewButtonWithIcon(lang.L("HISTORY"), theme.HistoryIcon(), func() {
		if c.OnHistory != nil {
			c.OnHistory()
		}
	})

	c.holder = container.NewStack()
	c.arrange()
	return c
}

// Touch targets under a portrait board: a portrait kiosk is a tall touch
// screen read from arm's length, its buttons at least about 10 mm.
const (
	portraitStakeHeight = 76
	portraitPlayHeight  = 104
)

// SetPortrait arranges the controls for a portrait window (under the
// board, in two columns, with larger touch targets) or a landscape one (a
// column beside the board).
func (c *Controls) SetPortrait(portrait bool) {
	if portrait == c.portrait {
		return
	}
	c.portrait = portrait
	c.arrange()
}

// arrange builds the controls' layout for the window's shape.
func (c *Controls) arrange() {
	stakeH, playH, fundsSize, playSize := float32(stakeButtonHeight), float32(bigButtonHeight), float32(28), float32(34)
	if c.portrait {
		stakeH, playH, fundsSize, playSize = portraitStakeHeight, portraitPlayHeight, 40, 46
	}
	c.funds.TextSize, c.play.size = fundsSize, playSize
	row := container.NewGridWithColumns(len(c.stakes))
	for _, b := range c.stakes {
		row.Add(tall(b, stakeH))
	}
	funds := card(container.NewVBox(c.fundsTitle, c.funds))
	var content fyne.CanvasObject
	if c.portrait {
		left := container.NewVBox(funds, c.stakeTitle, row, c.lastBox)
		right := container.NewVBox(tall(c.play, playH), c.message, layout.NewSpacer(), tall(c.history, stakeH))
		content = container.NewGridWithColumns(2, left, right)
	} else {
		content = container.NewVBox(funds, c.stakeTitle, row, gap(10), tall(c.play, playH), c.message, c.lastBox,
			layout.NewSpacer(), tall(c.history, stakeH))
	}
	c.holder.Objects = []fyne.CanvasObject{content}
	c.holder.Refresh()
	c.play.Refresh()
}

// CreateRenderer is part of fyne.Widget.
func (c *Controls) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(c.holder) }

// SetFunds shows the player's available funds.
func (c *Controls) SetFunds(v engine.Cents) {
	c.funds.Text = money(v)
	c.funds.Refresh()
}

// Funds is the amount shown.
func (c *Controls) Funds() string { return c.funds.Text }

// SetStake highlights the selected stake.
func (c *Controls) SetStake(stake engine.Cents) {
	for i, s := range engine.Stakes {
		c.stakes[i].Importance = widget.MediumImportance
		if s == stake {
			c.stakes[i].Importance = widget.HighImportance
		}
		c.stakes[i].Refresh()
	}
}

// SetMessage writes the message line; alert shows it as a problem.
func (c *Controls) SetMessage(text string, alert bool) {
	c.message.Text = text
	c.message.Importance = widget.MediumImportance
	if alert {
		c.message.Importance = widget.DangerImportance
	}
	c.message.Refresh()
}

// Reset empties the bar for the next player: no funds, no last result.
func (c *Controls) Reset() {
	c.funds.Text = ""
	c.funds.Refresh()
	c.lastBox.Hide()
	c.Welcome()
}

// Welcome puts the message line back to its invitation to play.
func (c *Controls) Welcome() { c.SetMessage(lang.L("Choose your stake, then press PLAY"), false) }

// Message is the message line's text.
func (c *Controls) Message() string { return c.message.Text }

// SetLast shows the prize of the last unit played.
func (c *Controls) SetLast(prize engine.Cents) {
	c.last.Text = money(prize)
	c.last.Color = colText
	if prize > 0 {
		c.last.Color = colGold
	}
	c.last.Refresh()
	c.lastBox.Show()
	c.holder.Refresh() // room for it
}

// Enable allows JOUER and the stake selector (free), and the history
// button (history).
func (c *Controls) Enable(free, history bool) {
	set := func(b *widget.Button, on bool) {
		if on {
			b.Enable()
		} else {
			b.Disable()
		}
	}
	set(&c.play.Button, free)
	for _, b := range c.stakes {
		set(b, free)
	}
	set(c.history, history)
}

// PlayButton is the JOUER button (tests and key handling tap it).
func (c *Controls) PlayButton() *bigButton { return c.play }

// StakeButtons are the stake buttons, in the order of engine.Stakes.
func (c *Controls) StakeButtons() []*widget.Button { return c.stakes }

// HistoryButton opens the history panel.
func (c *Controls) HistoryButton() *widget.Button { return c.history }

// tall gives obj at least height h: touch targets.
func tall(obj fyne.CanvasObject, h float32) fyne.CanvasObject {
	return container.New(minHeight(h), obj)
}

// minHeight is a layout stretching its objects over at least its height.
type minHeight float32

func (h minHeight) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objs {
		s = s.Max(o.MinSize())
	}
	return s.Max(fyne.NewSize(0, float32(h)))
}

func (h minHeight) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

// bigButton is a button whose label is drawn large, to be read from afar
// (JOUER, GO). Fyne sizes a button's text from the theme, and a theme
// overridden for one button makes Fyne load a second copy of every font
// (about 5 MB each time): the label is drawn here instead.
type bigButton struct {
	widget.Button
	// Text is the label; the embedded button's own text stays empty.
	Text string
	size float32
}

func newBigButton(text string, size float32, tapped func()) *bigButton {
	b := &bigButton{Text: text, size: size}
	b.OnTapped = tapped
	b.Importance = widget.HighImportance
	b.ExtendBaseWidget(b)
	return b
}

// CreateRenderer is part of fyne.Widget.
func (b *bigButton) CreateRenderer() fyne.WidgetRenderer {
	r := &bigButtonRenderer{WidgetRenderer: b.Button.CreateRenderer(), b: b,
		label: &canvas.Text{TextSize: b.size, TextStyle: fyne.TextStyle{Bold: true}, Alignment: fyne.TextAlignCenter}}
	r.Refresh()
	return r
}

// bigButtonRenderer is the button's own renderer with the label on top.
type bigButtonRenderer struct {
	fyne.WidgetRenderer
	b     *bigButton
	label *canvas.Text
}

func (r *bigButtonRenderer) Objects() []fyne.CanvasObject {
	return append(r.WidgetRenderer.Objects(), r.label)
}

func (r *bigButtonRenderer) MinSize() fyne.Size {
	pad := 2 * r.b.Theme().Size(theme.SizeNameInnerPadding)
	return r.WidgetRenderer.MinSize().Max(r.label.MinSize().AddWidthHeight(pad, pad))
}

func (r *bigButtonRenderer) Layout(size fyne.Size) {
	r.WidgetRenderer.Layout(size)
	h := r.label.MinSize().Height
	r.label.Move(fyne.NewPos(0, (size.Height-h)/2))
	r.label.Resize(fyne.NewSize(size.Width, h))
}

func (r *bigButtonRenderer) Refresh() {
	r.WidgetRenderer.Refresh()
	name := theme.ColorNameForeground
	switch {
	case r.b.Disabled():
		name = theme.ColorNameDisabled
	case r.b.Importance == widget.HighImportance:
		name = theme.ColorNameForegroundOnPrimary
	}
	r.label.Text, r.label.TextSize = r.b.Text, r.b.size
	r.label.Color = r.b.Theme().Color(name, fyne.CurrentApp().Settings().ThemeVariant())
	r.label.Refresh()
}

// gap is vertical space.
func gap(h float32) fyne.CanvasObject {
	r := canvas.NewRectangle(colClear)
	r.SetMinSize(fyne.NewSize(0, h))
	return r
}

// card frames obj on a panel.
func card(obj fyne.CanvasObject) fyne.CanvasObject {
	bg := &canvas.Rectangle{FillColor: colPanel, StrokeColor: colPanelLine, StrokeWidth: 1, CornerRadius: 12}
	return container.NewStack(bg, container.NewPadded(obj))
}
