package ui

import (
	"context"
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"starfortune/engine"
)

// OperatorPanel is the attendant's page, open after the PIN: a tab per
// job (ticket look-up, players' histories, cash, blocks, audit, system),
// each its own view. Every action goes to the operator log.
type OperatorPanel struct {
	widget.BaseWidget

	k    *Kiosk
	op   Operator
	tabs *container.AppTabs

	ticket  *ticketView
	players *playersView
	cash    *cashView
	blocks  *blocksView
	audit   *auditView
	system  *systemView
	message *widget.Label // last export or error, under the tabs

	content fyne.CanvasObject
}

func newOperatorPanel(k *Kiosk) *OperatorPanel {
	p := &OperatorPanel{k: k, op: k.oper.op}
	p.ExtendBaseWidget(p)
	title := &canvas.Text{Text: lang.L("OPERATOR PANEL"), Color: colGold, TextSize: 26, TextStyle: fyne.TextStyle{Bold: true}}
	closeBtn := widget.NewButtonWithIcon(lang.L("Close the panel"), theme.LogoutIcon(), k.closePanel)
	closeBtn.Importance = widget.HighImportance
	p.message = widget.NewLabel("")
	p.message.Wrapping = fyne.TextWrapWord
	p.ticket, p.players, p.cash = newTicketView(p), newPlayersView(p), newCashView(p)
	p.blocks, p.audit, p.system = newBlocksView(p), newAuditView(p), newSystemView(p)
	p.tabs = container.NewAppTabs(
		container.NewTabItemWithIcon(lang.L("Ticket"), theme.SearchIcon(), p.ticket.content),
		container.NewTabItemWithIcon(lang.L("Players"), theme.AccountIcon(), p.players.content),
		container.NewTabItemWithIcon(lang.L("Cash"), theme.ContentAddIcon(), p.cash.content),
		container.NewTabItemWithIcon(lang.L("Blocks"), theme.GridIcon(), p.blocks.content),
		container.NewTabItemWithIcon(lang.L("Audit"), theme.ConfirmIcon(), p.audit.content),
		container.NewTabItemWithIcon(lang.L("System"), theme.SettingsIcon(), p.system.content),
	)
	p.tabs.OnSelected = func(t *container.TabItem) { p.tabShown(p.tabs.SelectedIndex()) }
	header := container.NewBorder(nil, nil, title, closeBtn)
	bg := &canvas.Rectangle{FillColor: colNight}
	p.content = container.NewStack(bg, container.NewBorder(container.NewPadded(header), container.NewPadded(p.message), nil, nil, p.tabs))
	return p
}

// CreateRenderer is part of fyne.Widget.
func (p *OperatorPanel) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(p.content)
}

// The tabs, in order.
const (
	TabTicket = iota
	TabPlayers
	TabFunds
	TabBlocks
	TabAudit
	TabSystem
)

// Select shows tab i (TabTicket...) as a tap on it does, loading what it
// shows. The loads' results wait until the tab is laid out: Fyne's test
// driver applies them in the loading goroutine, not on the UI thread.
func (p *OperatorPanel) Select(i int) {
	p.k.applying.Lock()
	defer p.k.applying.Unlock()
	if i == p.tabs.SelectedIndex() {
		p.tabShown(i)
		return
	}
	p.tabs.SelectIndex(i) // OnSelected loads it
}

func (p *OperatorPanel) start() {
	p.loadPlayers()
	p.tabShown(p.tabs.SelectedIndex())
}

func (p *OperatorPanel) tabShown(i int) {
	switch i {
	case TabPlayers, TabFunds:
		p.loadPlayers()
	case TabBlocks:
		p.blocks.load()
	case TabSystem:
		p.system.load()
	}
}

// call runs an engine call of the panel (see Kiosk.call).
func (p *OperatorPanel) call(work func(ctx context.Context) func()) { p.k.call(false, work) }

// say writes a line under the tabs; danger for errors.
func (p *OperatorPanel) say(msg string, danger bool) {
	p.message.Importance = widget.MediumImportance
	if danger {
		p.message.Importance = widget.DangerImportance
	}
	p.message.SetText(msg)
}

func (p *OperatorPanel) fail(err error) {
	fyne.LogError("operator panel", err)
	p.say(lang.L("Error: {{.Err}}", map[string]any{"Err": err.Error()}), true)
}

func heading(s string) *canvas.Text {
	return &canvas.Text{Text: s, Color: colGold, TextSize: 20, TextStyle: fyne.TextStyle{Bold: true}}
}

func statusText() *canvas.Text { return &canvas.Text{Color: colDim, TextSize: 15} }

func setStatus(t *canvas.Text, s string, c color.Color) {
	t.Text, t.Color = s, c
	t.Refresh()
}

// replay shows the board replaying s (from the Ticket or Players tab).
func (p *OperatorPanel) replay(s engine.Sale) {
	if err := p.k.replayForOperator(s); err != nil {
		p.say(err.Error(), true)
	}
}

// loadPlayers offers the players known in the Players and Cash tabs.
func (p *OperatorPanel) loadPlayers() {
	p.call(func(ctx context.Context) func() {
		players, err := p.op.Players(ctx)
		return func() {
			if err != nil {
				p.fail(err)
				return
			}
			p.players.player.SetOptions(players)
			p.cash.player.SetOptions(players)
		}
	})
}

// enable enables or disables b.
func enable(b *widget.Button, on bool) {
	if on {
		b.Enable()
	} else {
		b.Disable()
	}
}
