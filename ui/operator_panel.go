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

// OperatorPanel is the attendant's page, open after their PIN: a tab per
// job (ticket look-up, players' histories, accounts, cash, blocks, audit,
// system), each its own view. Every action goes to the operator log, the
// ledger or the account log under the attendant's name.
type OperatorPanel struct {
	widget.BaseWidget

	k     *Kiosk
	op    Operator
	actor string // the attendant logged in
	tabs  *container.AppTabs

	ticket   *ticketView
	players  *playersView
	accounts *accountsView // nil unless the kiosk plays real money from accounts
	cash     *cashView
	blocks   *blocksView
	audit    *auditView
	system   *systemView
	fleet    *fleetView    // nil on a lone kiosk
	ids      []int         // the Tab… of each of tabs' items, in order
	message  *widget.Label // last export or error, under the tabs

	content fyne.CanvasObject
}

func newOperatorPanel(k *Kiosk) *OperatorPanel {
	p := &OperatorPanel{k: k, op: k.oper.op, actor: k.oper.actor}
	p.ExtendBaseWidget(p)
	title := &canvas.Text{Text: lang.L("OPERATOR PANEL"), Color: colGold, TextSize: 26, TextStyle: fyne.TextStyle{Bold: true}}
	who := &canvas.Text{Text: lang.L("Attendant: {{.Name}}", map[string]any{"Name": p.actor}), Color: colDim, TextSize: 17}
	closeBtn := widget.NewButtonWithIcon(lang.L("Close the panel"), theme.LogoutIcon(), k.closePanel)
	closeBtn.Importance = widget.HighImportance
	p.message = widget.NewLabel("")
	p.message.Wrapping = fyne.TextWrapWord
	p.ticket, p.players, p.cash = newTicketView(p), newPlayersView(p), newCashView(p)
	p.blocks, p.audit, p.system = newBlocksView(p), newAuditView(p), newSystemView(p)
	var items []*container.TabItem
	add := func(id int, name string, icon fyne.Resource, content fyne.CanvasObject) {
		p.ids = append(p.ids, id)
		items = append(items, container.NewTabItemWithIcon(name, icon, content))
	}
	add(TabTicket, lang.L("Ticket"), theme.SearchIcon(), p.ticket.content)
	add(TabPlayers, lang.L("Players"), theme.AccountIcon(), p.players.content)
	if d, ok := k.acc.(AccountDesk); ok {
		p.accounts = newAccountsView(p, d)
		add(TabAccounts, lang.L("Accounts"), theme.DocumentIcon(), p.accounts.content)
	}
	add(TabFunds, lang.L("Cash"), theme.ContentAddIcon(), p.cash.content)
	if p.op.InFleet() { // its blocks are the central's: the Fleet tab shows them
		p.fleet = newFleetView(p)
		add(TabFleet, lang.L("Fleet"), theme.ComputerIcon(), p.fleet.content)
	} else {
		add(TabBlocks, lang.L("Blocks"), theme.GridIcon(), p.blocks.content)
	}
	add(TabAudit, lang.L("Audit"), theme.ConfirmIcon(), p.audit.content)
	add(TabSystem, lang.L("System"), theme.SettingsIcon(), p.system.content)
	p.tabs = container.NewAppTabs(items...)
	p.tabs.OnSelected = func(t *container.TabItem) { p.tabShown(p.selected()) }
	header := container.NewBorder(nil, nil, container.NewHBox(title, container.NewCenter(who)), closeBtn)
	bg := &canvas.Rectangle{FillColor: colNight}
	p.content = container.NewStack(bg, container.NewBorder(container.NewPadded(header), container.NewPadded(p.message), nil, nil, p.tabs))
	return p
}

// CreateRenderer is part of fyne.Widget.
func (p *OperatorPanel) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(p.content)
}

// The tabs. A kiosk of a fleet has TabFleet in the place of TabBlocks; a
// kiosk playing real money from accounts has TabAccounts after TabPlayers.
const (
	TabTicket = iota
	TabPlayers
	TabFunds
	TabBlocks
	TabAudit
	TabSystem
	TabFleet
	TabAccounts
)

// tab is the item of tab id (nil when this panel has none).
func (p *OperatorPanel) tab(id int) *container.TabItem {
	for i, x := range p.ids {
		if x == id {
			return p.tabs.Items[i]
		}
	}
	return nil
}

// selected is the Tab… shown.
func (p *OperatorPanel) selected() int { return p.ids[p.tabs.SelectedIndex()] }

// Select shows tab i (TabTicket...) as a tap on it does, loading what it
// shows. The loads' results wait until the tab is laid out: Fyne's test
// driver applies them in the loading goroutine, not on the UI thread.
func (p *OperatorPanel) Select(i int) {
	p.k.applying.Lock()
	defer p.k.applying.Unlock()
	if i == p.selected() {
		p.tabShown(i)
		return
	}
	if t := p.tab(i); t != nil {
		p.tabs.Select(t) // OnSelected loads it
	}
}

func (p *OperatorPanel) start() {
	p.loadPlayers()
	p.tabShown(p.selected())
}

// closed stops what the panel runs in the background.
func (p *OperatorPanel) closed() {
	if p.fleet != nil {
		p.fleet.hidden()
	}
}

func (p *OperatorPanel) tabShown(i int) {
	if p.fleet != nil && i != TabFleet {
		p.fleet.hidden()
	}
	switch i {
	case TabFleet:
		p.fleet.shown()
	case TabPlayers, TabFunds:
		p.loadPlayers()
	case TabAccounts:
		p.accounts.load()
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
