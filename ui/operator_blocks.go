package ui

import (
	"context"
	"fmt"
	"image/color"
	"os"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"starfortune/engine"
	"starfortune/present"
)

// blocksView is the Blocks tab: per stake, the open block's units sold and
// left (nothing of what they paid or what is left in them: that would tell
// the value left in a block on sale), then every block with its commitment,
// and for each sold-out one its payout, its units per prize against the
// table, and its seed.
type blocksView struct {
	p       *OperatorPanel
	stakes  *fyne.Container
	list    *fyne.Container
	body    *fyne.Container
	report  []engine.BlockStatus
	content fyne.CanvasObject
}

func newBlocksView(p *OperatorPanel) *blocksView {
	v := &blocksView{p: p, stakes: container.NewGridWithColumns(len(engine.Stakes)), list: container.NewVBox()}
	refresh := widget.NewButtonWithIcon(lang.L("Refresh"), theme.ViewRefreshIcon(), v.load)
	export := widget.NewButtonWithIcon(lang.L("Export CSV"), theme.DocumentSaveIcon(), v.export)
	top := container.NewBorder(nil, nil, heading(lang.L("Blocks and emission per stake")), container.NewHBox(refresh, export))
	v.body = container.NewVBox(v.stakes, heading(lang.L("All blocks")), v.list)
	v.content = container.NewBorder(top, nil, nil, nil, container.NewVScroll(v.body))
	return v
}

func (v *blocksView) load() {
	v.p.call(func(ctx context.Context) func() {
		rep, err := v.p.op.BlockReport(ctx)
		return func() {
			if err != nil {
				v.p.fail(err)
				return
			}
			v.show(rep)
		}
	})
}

func (v *blocksView) show(rep []engine.BlockStatus) {
	v.report = rep
	v.stakes.Objects = nil
	for _, stake := range engine.Stakes {
		var open *engine.BlockStatus
		sold, total := 0, 0
		for i := range rep {
			b := &rep[i]
			if b.Ref.Stake != stake {
				continue
			}
			total++
			if b.Exhausted() {
				sold++
			}
			if b.Open {
				open = b
			}
		}
		v.stakes.Add(stakeCard(stake, open, sold, total))
	}
	v.stakes.Refresh()
	v.list.Objects = nil
	for _, b := range rep {
		v.list.Add(blockLine(b))
	}
	v.body.Refresh() // lays the grown children out again
}

func (v *blocksView) export() {
	rep := v.report
	dir := v.p.k.exportDir()
	v.p.call(func(ctx context.Context) func() {
		path, err := writeExport(dir, "blocs", func(f *os.File) error { return present.BlockReportCSV(f, rep) })
		if err == nil {
			v.p.op.RecordOperator(ctx, v.p.actor, "export", "block report to "+path)
		}
		return func() {
			if err != nil {
				v.p.fail(err)
				return
			}
			v.p.say(lang.L("Block report exported to {{.Path}}", map[string]any{"Path": path}), false)
		}
	})
}

// stakeCard charts the open block of a stake.
func stakeCard(stake engine.Cents, b *engine.BlockStatus, sold, total int) fyne.CanvasObject {
	title := &canvas.Text{Text: lang.L("Stake {{.Amount}}", amount(stake)), Color: colGold, TextSize: 22, TextStyle: fyne.TextStyle{Bold: true}}
	emission := dimLabel(lang.L("{{.Sold}} of {{.Total}} blocks sold out", map[string]any{"Sold": sold, "Total": total}))
	if b == nil {
		return card(container.NewVBox(title, emission, valueLabel(lang.L("Stake closed: every block is sold"))))
	}
	served := newGauge(float64(b.Served)/float64(b.Size), -1, colGold,
		lang.L("{{.Served}} sold · {{.Left}} left", map[string]any{"Served": group(int(b.Served)), "Left": group(int(b.Left))}))
	secret := widget.NewLabel(lang.L("What this block paid and what is left in it show once it is sold out: told earlier, they would say what is left to win."))
	secret.Wrapping = fyne.TextWrapWord
	secret.Importance = widget.LowImportance
	commit := &canvas.Text{Text: b.Commitment.String()[:32], Color: colDim, TextSize: 12, TextStyle: fyne.TextStyle{Monospace: true}}
	commit2 := &canvas.Text{Text: b.Commitment.String()[32:], Color: colDim, TextSize: 12, TextStyle: fyne.TextStyle{Monospace: true}}
	return card(container.NewVBox(
		container.NewBorder(nil, nil, title, emission),
		valueLabel(lang.L("Open block {{.Block}}", map[string]any{"Block": b.Ref.String()})),
		dimLabel(lang.L("Units sold and left")), served, secret,
		dimLabel(lang.L("Commitment")), commit, commit2,
	))
}

func blockLine(b engine.BlockStatus) fyne.CanvasObject {
	state := lang.L("seed secret until sold out")
	c := colDim
	figures := fmt.Sprintf("%s   %s   %s %s · %s %s", b.Ref, money(b.Ref.Stake), lang.L("sold"), group(int(b.Served)), lang.L("left"), group(int(b.Left)))
	if b.Exhausted() {
		state = lang.L("sold out · seed {{.Seed}}", map[string]any{"Seed": fmt.Sprintf("%x", b.Seed)})
		c = colGreen
		tally := lang.L("units per prize = the table")
		if b.Tally != engine.TableTally() {
			tally, c = lang.L("units per prize DIFFER from the table"), colRed
		}
		figures += fmt.Sprintf(" · %s %s (%s) · %s", lang.L("payout"), percent(b.Ratio()), money(b.Paid), tally)
	}
	line1 := &canvas.Text{Text: figures, Color: colText, TextSize: 15, TextStyle: fyne.TextStyle{Bold: true}}
	line2 := &canvas.Text{Text: lang.L("commitment") + " " + b.Commitment.String(), Color: colDim, TextSize: 12, TextStyle: fyne.TextStyle{Monospace: true}}
	line3 := &canvas.Text{Text: state, Color: c, TextSize: 12, TextStyle: fyne.TextStyle{Monospace: b.Exhausted()}}
	bg := &canvas.Rectangle{FillColor: colPanel, CornerRadius: 8}
	return container.NewStack(bg, container.New(layout.NewCustomPaddedLayout(3, 3, 8, 8), container.NewVBox(line1, line2, line3)))
}

// gauge is one horizontal bar of a chart: a track, the filled fraction, an
// optional target mark (the table's payout rate), and a caption over the bar.
type gauge struct {
	widget.BaseWidget
	fill    float64 // 0..1 of the track
	mark    float64 // 0..1, <0: none
	col     color.Color
	caption string
}

func newGauge(fill, mark float64, col color.Color, caption string) *gauge {
	g := &gauge{fill: min(max(fill, 0), 1), mark: mark, col: col, caption: caption}
	g.ExtendBaseWidget(g)
	return g
}

func (g *gauge) CreateRenderer() fyne.WidgetRenderer {
	r := &gaugeRenderer{g: g,
		track:   &canvas.Rectangle{FillColor: colNight, StrokeColor: colPanelLine, StrokeWidth: 1, CornerRadius: 4},
		bar:     &canvas.Rectangle{CornerRadius: 4},
		mark:    &canvas.Line{StrokeColor: colGold, StrokeWidth: 3},
		caption: &canvas.Text{Color: colText, TextSize: 13, TextStyle: fyne.TextStyle{Bold: true}},
	}
	r.Refresh()
	return r
}

type gaugeRenderer struct {
	g       *gauge
	track   *canvas.Rectangle
	bar     *canvas.Rectangle
	mark    *canvas.Line
	caption *canvas.Text
}

const gaugeHeight = 22

func (r *gaugeRenderer) Layout(size fyne.Size) {
	r.track.Move(fyne.NewPos(0, 0))
	r.track.Resize(size)
	w := float32(r.g.fill) * size.Width
	if r.g.fill > 0 {
		w = max(w, 4) // a started block shows, however little is sold
	}
	r.bar.Move(fyne.NewPos(0, 0))
	r.bar.Resize(fyne.NewSize(w, size.Height))
	if r.g.mark >= 0 {
		x := float32(r.g.mark) * size.Width
		r.mark.Position1 = fyne.NewPos(x, -3)
		r.mark.Position2 = fyne.NewPos(x, size.Height+3)
	}
	ts := r.caption.MinSize()
	r.caption.Move(fyne.NewPos(6, (size.Height-ts.Height)/2))
	r.caption.Resize(ts)
}

func (r *gaugeRenderer) MinSize() fyne.Size {
	return fyne.NewSize(r.caption.MinSize().Width+12, gaugeHeight)
}

func (r *gaugeRenderer) Refresh() {
	c := color.NRGBAModel.Convert(r.g.col).(color.NRGBA)
	c.A = 0xb0
	r.bar.FillColor = c
	r.caption.Text = r.g.caption
	r.mark.Hidden = r.g.mark < 0
	r.Layout(r.g.Size())
	canvas.Refresh(r.g)
}

func (r *gaugeRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.track, r.bar, r.mark, r.caption}
}

func (r *gaugeRenderer) Destroy() {}
