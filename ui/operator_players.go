package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

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

// playersView is the Players tab: any player's history, a page at a time,
// each unit replayable, and its CSV export.
type playersView struct {
	p       *OperatorPanel
	player  *widget.SelectEntry
	box     *fyne.Container
	page    *canvas.Text
	newer   *widget.Button
	older   *widget.Button
	pages   pager
	shownOf string // the player whose pages are shown
	content fyne.CanvasObject
}

func newPlayersView(p *OperatorPanel) *playersView {
	v := &playersView{p: p, pages: newPager()}
	v.content = v.build()
	return v
}

func (v *playersView) build() fyne.CanvasObject {
	v.player = widget.NewSelectEntry(nil)
	v.player.SetPlaceHolder(lang.L("Player id"))
	v.player.OnSubmitted = func(string) { v.show(0) }
	show := widget.NewButtonWithIcon(lang.L("Show"), theme.SearchIcon(), func() { v.show(0) })
	export := widget.NewButtonWithIcon(lang.L("Export CSV"), theme.DocumentSaveIcon(), v.exportHistory)
	v.box = container.NewVBox()
	v.page = &canvas.Text{Color: colDim, TextSize: 15, Alignment: fyne.TextAlignCenter}
	v.newer = widget.NewButtonWithIcon(lang.L("Newer"), theme.NavigateBackIcon(), func() {
		if i := v.pages.newer(); i >= 0 {
			v.show(i)
		}
	})
	v.older = widget.NewButtonWithIcon(lang.L("Older"), theme.NavigateNextIcon(), func() {
		if i := v.pages.older(); i >= 0 {
			v.show(i)
		}
	})
	v.newer.Disable()
	v.older.Disable()
	top := container.NewVBox(heading(lang.L("Player history (newest first)")),
		container.NewBorder(nil, nil, nil, container.NewHBox(show, export), v.player))
	pager := container.NewBorder(nil, nil, v.newer, v.older, v.page)
	return container.NewBorder(top, pager, nil, nil, container.NewVScroll(v.box))
}

// show shows page i (0: newest) of the chosen player's units.
func (v *playersView) show(i int) {
	player := strings.TrimSpace(v.player.Text)
	if player == "" {
		return
	}
	if player != v.shownOf {
		i = 0
	}
	before := v.pages.from(i)
	v.p.call(func(ctx context.Context) func() {
		sales, next, err := v.p.k.game.History(ctx, player, before, HistoryPage)
		w, werr := v.p.op.Wallet(ctx, player)
		if err == nil {
			err = werr
		}
		if err == nil && i == 0 {
			v.p.op.RecordOperator(ctx, v.p.actor, "history", "player "+player)
		}
		return func() {
			if err != nil {
				v.p.fail(err)
				return
			}
			v.shownOf = player
			v.pages.shown(i, next)
			v.box.Objects = nil
			v.box.Add(valueLabel(lang.L("{{.Player}}: funds {{.Amount}}", map[string]any{"Player": player, "Amount": money(w.Balance)})))
			if len(sales) == 0 {
				v.box.Add(widget.NewLabel(lang.L("No game played yet")))
			}
			for _, s := range sales {
				v.box.Add(v.historyRow(s))
			}
			v.box.Refresh()
			v.page.Text = lang.L("Page {{.N}}", nth(i+1))
			v.page.Refresh()
			enable(v.newer, v.pages.newer() >= 0)
			enable(v.older, v.pages.older() >= 0)
		}
	})
}

func (v *playersView) historyRow(s engine.Sale) fyne.CanvasObject {
	line1 := &canvas.Text{Text: when(s.Time) + "   " + s.Ticket.String(), Color: colDim, TextSize: 14}
	prize := s.Prize()
	line2 := &canvas.Text{Text: fmt.Sprintf("%s %s   %s %s   %s → %s", lang.L("Stake"), money(s.Stake()), lang.L("Prize"), money(prize), money(s.BalanceBefore), money(s.BalanceAfter)),
		Color: colText, TextSize: 17, TextStyle: fyne.TextStyle{Bold: prize > 0}}
	if prize > 0 {
		line2.Color = colGold
	}
	replay := widget.NewButtonWithIcon(lang.L("REPLAY"), theme.MediaPlayIcon(), func() { v.p.replay(s) })
	bg := &canvas.Rectangle{FillColor: colPanel, CornerRadius: 8}
	return container.NewStack(bg, container.New(layout.NewCustomPaddedLayout(3, 3, 8, 4),
		container.NewBorder(nil, nil, nil, replay, container.NewVBox(line1, line2))))
}

func (v *playersView) exportHistory() {
	player := strings.TrimSpace(v.player.Text)
	if player == "" {
		v.p.say(lang.L("Choose a player first"), true)
		return
	}
	dir := v.p.k.exportDir()
	v.p.call(func(ctx context.Context) func() {
		var all []engine.Sale
		var before uint64
		var err error
		for {
			var sales []engine.Sale
			sales, before, err = v.p.k.game.History(ctx, player, before, 500)
			all = append(all, sales...)
			if err != nil || before == 0 {
				break
			}
		}
		var path string
		if err == nil {
			path, err = writeExport(dir, "historique-"+safeName(player), func(f *os.File) error { return present.HistoryCSV(f, all) })
		}
		if err == nil {
			v.p.op.RecordOperator(ctx, v.p.actor, "export", "history of "+player+" to "+path)
		}
		return func() {
			if err != nil {
				v.p.fail(err)
				return
			}
			v.p.say(lang.L("{{.N}} units exported to {{.Path}}", map[string]any{"N": len(all), "Path": path}), false)
		}
	})
}

// exportDir is where CSV exports go.
func (k *Kiosk) exportDir() string {
	if k.opts.ExportDir != "" {
		return k.opts.ExportDir
	}
	return filepath.Join(os.TempDir(), "starfortune-exports")
}

// writeExport writes a new CSV file named after what and the time.
func writeExport(dir, what string, write func(*os.File) error) (string, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return "", err
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%s.csv", what, time.Now().Format("20060102-150405")))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
	if err != nil {
		return "", err
	}
	if err := write(f); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
}

// safeName keeps a player id usable in a file name.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}
