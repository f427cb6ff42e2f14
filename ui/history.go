package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"starfortune/engine"
)

// HistoryPage is the number of units a history page lists.
const HistoryPage = 10

// HistoryPanel is the player's history (article 4.2): the last unit shown
// prominently, then the last units, page by page, each of which can be
// replayed on the board in RAPPEL mode.
type HistoryPanel struct {
	widget.BaseWidget

	OnRecall func(engine.Sale)
	OnOlder  func()
	OnNewer  func()
	OnBack   func()

	lastBox *fyne.Container
	list    *fyne.Container
	page    *canvas.Text
	older   *widget.Button
	newer   *widget.Button
	recall  *canvas.Text
	back    *widget.Button
	bottom  *fyne.Container // the pager and the way back, sized for the shape
	content fyne.CanvasObject
}

// NewHistoryPanel returns an empty panel.
func NewHistoryPanel() *HistoryPanel {
	h := &HistoryPanel{}
	h.ExtendBaseWidget(h)
	title := &canvas.Text{Text: lang.L("HISTORY"), Color: colGold, TextSize: 24, TextStyle: fyne.TextStyle{Bold: true}}
	h.recall = &canvas.Text{Text: lang.L("RECALL"), Color: colRecall, TextSize: 24, TextStyle: fyne.TextStyle{Bold: true}}
	h.recall.Hide()
	h.back = widget.NewButtonWithIcon(lang.L("Back to the game"), theme.NavigateBackIcon(), func() {
		if h.OnBack != nil {
			h.OnBack()
		}
	})
	h.back.Importance = widget.HighImportance
	h.lastBox = container.NewVBox()
	h.list = container.NewVBox()
	h.page = &canvas.Text{Color: colDim, TextSize: 15, Alignment: fyne.TextAlignCenter}
	h.newer = widget.NewButtonWithIcon(lang.L("Newer"), theme.NavigateBackIcon(), func() {
		if h.OnNewer != nil {
			h.OnNewer()
		}
	})
	h.older = widget.NewButtonWithIcon(lang.L("Older"), theme.NavigateNextIcon(), func() {
		if h.OnOlder != nil {
			h.OnOlder()
		}
	})
	previous := &canvas.Text{Text: lang.L("Previous games"), Color: colDim, TextSize: 16, TextStyle: fyne.TextStyle{Bold: true}}
	header := container.NewHBox(title, layout.NewSpacer(), h.recall)
	h.bottom = container.NewStack()
	h.SetPortrait(false)
	h.content = container.NewBorder(
		container.NewVBox(header, h.lastBox, previous),
		h.bottom,
		nil, nil,
		container.NewVScroll(h.list))
	return h
}

// SetPortrait sizes the pager and the way back for a portrait touch
// screen (larger targets) or a landscape window.
func (h *HistoryPanel) SetPortrait(portrait bool) {
	pager := container.NewBorder(nil, nil, h.newer, h.older, h.page)
	back := tall(h.back, stakeButtonHeight)
	if portrait {
		pager = container.NewBorder(nil, nil, tall(h.newer, portraitStakeHeight), tall(h.older, portraitStakeHeight), h.page)
		back = tall(h.back, portraitStakeHeight)
	}
	h.bottom.Objects = []fyne.CanvasObject{container.NewVBox(pager, back)}
	h.bottom.Refresh()
}

// CreateRenderer is part of fyne.Widget.
func (h *HistoryPanel) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(h.content)
}

// SetRecall marks the panel as in RAPPEL mode.
func (h *HistoryPanel) SetRecall(on bool) {
	if on {
		h.recall.Show()
	} else {
		h.recall.Hide()
	}
}

// Show fills the panel: last is the player's last unit (nil when none),
// sales the page number page (from 1) of units, newest first.
func (h *HistoryPanel) SetPage(last *engine.Sale, sales []engine.Sale, page int, hasOlder bool) {
	h.lastBox.Objects = nil
	if last == nil {
		h.lastBox.Add(widget.NewLabel(lang.L("No game played yet")))
	} else {
		h.lastBox.Add(h.lastCard(*last))
	}
	h.list.Objects = nil
	for _, s := range sales {
		h.list.Add(h.row(s))
	}
	h.page.Text = lang.L("Page {{.N}}", nth(page))
	if page > 1 {
		h.newer.Enable()
	} else {
		h.newer.Disable()
	}
	if hasOlder {
		h.older.Enable()
	} else {
		h.older.Disable()
	}
	h.lastBox.Refresh()
	h.list.Refresh()
	h.page.Refresh()
}

// lastCard is "Dernière partie": everything the règlement sends the player
// to check.
func (h *HistoryPanel) lastCard(s engine.Sale) fyne.CanvasObject {
	heading := &canvas.Text{Text: lang.L("Last game"), Color: colGold, TextSize: 21, TextStyle: fyne.TextStyle{Bold: true}}
	prize := &canvas.Text{Text: money(s.Prize()), Color: colText, TextSize: 26, TextStyle: fyne.TextStyle{Bold: true}, Alignment: fyne.TextAlignTrailing}
	if s.Prize() > 0 {
		prize.Color = colGold
	}
	form := container.New(formLayout{},
		dimLabel(lang.L("Date")), valueLabel(when(s.Time)),
		dimLabel(lang.L("Ticket")), valueLabel(s.Ticket.String()),
		dimLabel(lang.L("Stake")), valueLabel(money(s.Stake())),
		dimLabel(lang.L("Funds before")), valueLabel(money(s.BalanceBefore)),
		dimLabel(lang.L("Funds after")), valueLabel(money(s.BalanceAfter)),
		dimLabel(lang.L("Puck {{.N}}", nth(1))), valueLabel(dropText(s, 0)),
		dimLabel(lang.L("Puck {{.N}}", nth(2))), valueLabel(dropText(s, 1)),
	)
	replay := widget.NewButtonWithIcon(lang.L("REPLAY"), theme.MediaPlayIcon(), func() {
		if h.OnRecall != nil {
			h.OnRecall(s)
		}
	})
	top := container.NewBorder(nil, nil, heading, container.NewHBox(dimLabel(lang.L("Prize")), prize))
	return card(container.NewVBox(top, form, container.NewHBox(layout.NewSpacer(), replay)))
}

func (h *HistoryPanel) row(s engine.Sale) fyne.CanvasObject {
	line1 := &canvas.Text{Text: when(s.Time) + "   " + s.Ticket.String(), Color: colDim, TextSize: 13}
	prize := s.Prize()
	line2 := &canvas.Text{Text: fmt.Sprintf("%s %s   %s %s", lang.L("Stake"), money(s.Stake()), lang.L("Prize"), money(prize)),
		Color: colText, TextSize: 17, TextStyle: fyne.TextStyle{Bold: prize > 0}}
	if prize > 0 {
		line2.Color = colGold
	}
	replay := widget.NewButtonWithIcon("", theme.MediaPlayIcon(), func() {
		if h.OnRecall != nil {
			h.OnRecall(s)
		}
	})
	bg := &canvas.Rectangle{FillColor: colPanel, CornerRadius: 8}
	return container.NewStack(bg, container.New(layout.NewCustomPaddedLayout(3, 3, 8, 4),
		container.NewBorder(nil, nil, nil, replay, container.NewVBox(line1, line2))))
}

// dropText says how drop d went: the slot chosen and what it landed on.
func dropText(s engine.Sale, d int) string {
	drop := s.Unit.Drops[d]
	var result string
	if drop.Dest.Bonus {
		result = lang.L("BONUS {{.Amount}}", amount(drop.Value(s.Stake())))
	} else {
		result = shortAmount(drop.Value(s.Stake()))
	}
	slot := s.Reveal.Slots[d]
	if slot == engine.NoSlot {
		return lang.L("not played yet → {{.Result}}", map[string]any{"Result": result})
	}
	return lang.L("slot {{.Slot}} → {{.Result}}", map[string]any{"Slot": slot + 1, "Result": result})
}

func dimLabel(s string) fyne.CanvasObject {
	return &canvas.Text{Text: s, Color: colDim, TextSize: 15}
}

func valueLabel(s string) fyne.CanvasObject {
	return &canvas.Text{Text: s, Color: colText, TextSize: 16, TextStyle: fyne.TextStyle{Bold: true}}
}

// formLayout stacks rows of two columns (a label and its value) tightly;
// with an odd number of objects each object is a full row.
type formLayout struct{ gap float32 }

const formLabelWidth = 190

func (f formLayout) rows(objs []fyne.CanvasObject) [][]fyne.CanvasObject {
	var rows [][]fyne.CanvasObject
	step := 2
	if len(objs)%2 == 1 {
		step = 1
	}
	for i := 0; i+step <= len(objs); i += step {
		rows = append(rows, objs[i:i+step])
	}
	return rows
}

func (f formLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, row := range f.rows(objs) {
		var w, h float32
		for i, o := range row {
			m := o.MinSize()
			if i == 0 && len(row) == 2 {
				m.Width = formLabelWidth
			}
			w += m.Width
			h = max(h, m.Height)
		}
		s = fyne.NewSize(max(s.Width, w), s.Height+h+f.gap+2)
	}
	return s
}

func (f formLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	var y float32
	for _, row := range f.rows(objs) {
		var h float32
		for _, o := range row {
			h = max(h, o.MinSize().Height)
		}
		if len(row) == 2 {
			row[0].Move(fyne.NewPos(0, y))
			row[0].Resize(fyne.NewSize(formLabelWidth, h))
			row[1].Move(fyne.NewPos(formLabelWidth, y))
			row[1].Resize(fyne.NewSize(size.Width-formLabelWidth, h))
		} else {
			row[0].Move(fyne.NewPos(0, y))
			row[0].Resize(fyne.NewSize(size.Width, h))
		}
		y += h + f.gap + 2
	}
}
