package ui

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"starfortune/engine"
)

// OperatorPanel is the attendant's page, open after the PIN: ticket
// look-up, players' histories, funds, blocks, audit and system. Every
// action goes to the operator log.
type OperatorPanel struct {
	widget.BaseWidget

	k    *Kiosk
	op   Operator
	tabs *container.AppTabs

	// Ticket
	ticket       *widget.Entry
	ticketStatus *canvas.Text
	lookup       *widget.Button
	record       *fyne.Container
	found        *engine.Sale

	// Players
	histPlayer *widget.SelectEntry
	histBox    *fyne.Container
	histPage   *canvas.Text
	histNewer  *widget.Button
	histOlder  *widget.Button
	histPages  []uint64 // `before` cursor of each page seen; [0] = 0
	histAt     int      // page shown
	histShown  string

	// Funds
	fundsPlayer  *widget.SelectEntry
	fundsBalance *canvas.Text
	amount       *widget.Entry
	amountStatus *canvas.Text
	credit       *widget.Button
	payout       *widget.Button
	fundsResult  *widget.Label
	ledger       *fyne.Container
	balance      engine.Cents
	balanceOf    string

	blocks *blocksView

	// Audit
	auditRun      *widget.Button
	auditProgress *widget.ProgressBar
	auditResult   *fyne.Container

	// System
	health  *widget.Label
	opLog   *fyne.Container
	message *widget.Label // last export or error, under the tabs

	content fyne.CanvasObject
}

func newOperatorPanel(k *Kiosk) *OperatorPanel {
	p := &OperatorPanel{k: k, op: k.oper.op, histPages: []uint64{0}}
	p.ExtendBaseWidget(p)
	title := &canvas.Text{Text: lang.L("OPERATOR PANEL"), Color: colGold, TextSize: 26, TextStyle: fyne.TextStyle{Bold: true}}
	closeBtn := widget.NewButtonWithIcon(lang.L("Close the panel"), theme.LogoutIcon(), k.closePanel)
	closeBtn.Importance = widget.HighImportance
	p.message = widget.NewLabel("")
	p.message.Wrapping = fyne.TextWrapWord
	p.blocks = newBlocksView(p)
	p.tabs = container.NewAppTabs(
		container.NewTabItemWithIcon(lang.L("Ticket"), theme.SearchIcon(), p.ticketTab()),
		container.NewTabItemWithIcon(lang.L("Players"), theme.AccountIcon(), p.playersTab()),
		container.NewTabItemWithIcon(lang.L("Cash"), theme.ContentAddIcon(), p.fundsTab()),
		container.NewTabItemWithIcon(lang.L("Blocks"), theme.GridIcon(), p.blocks.content),
		container.NewTabItemWithIcon(lang.L("Audit"), theme.ConfirmIcon(), p.auditTab()),
		container.NewTabItemWithIcon(lang.L("System"), theme.SettingsIcon(), p.systemTab()),
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
		p.loadSystem()
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

// --- Ticket ---

func (p *OperatorPanel) ticketTab() fyne.CanvasObject {
	p.ticket = widget.NewEntry()
	p.ticket.SetPlaceHolder("EE-SSS-BBBB-IIIIII-C")
	p.ticketStatus = statusText()
	p.lookup = widget.NewButtonWithIcon(lang.L("Look up"), theme.SearchIcon(), p.LookUp)
	p.lookup.Importance = widget.HighImportance
	p.lookup.Disable()
	p.ticket.OnChanged = p.checkTicket
	p.ticket.OnSubmitted = func(string) { p.LookUp() }
	p.record = container.NewVBox()
	p.checkTicket("")
	form := container.NewBorder(nil, nil, nil, p.lookup, p.ticket)
	return container.NewBorder(container.NewVBox(heading(lang.L("Ticket look-up")), form, p.ticketStatus), nil, nil, nil,
		container.NewVScroll(p.record))
}

// checkTicket validates the number as it is typed.
func (p *OperatorPanel) checkTicket(s string) {
	p.lookup.Disable()
	digits, other := 0, false
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r != '-' && r != ' ':
			other = true
		}
	}
	switch {
	case other:
		setStatus(p.ticketStatus, lang.L("Only digits and dashes"), colRed)
	case digits < 16:
		setStatus(p.ticketStatus, lang.L("{{.N}} of 16 digits (EE-SSS-BBBB-IIIIII-C)", nth(digits)), colDim)
	case digits > 16:
		setStatus(p.ticketStatus, lang.L("Too many digits: a ticket has 16"), colRed)
	default:
		if _, err := engine.ParseTicket(s); err != nil {
			if strings.Contains(err.Error(), "check digit") {
				setStatus(p.ticketStatus, lang.L("Wrong check digit: typing error?"), colRed)
			} else {
				setStatus(p.ticketStatus, lang.L("Not a ticket of this game (emission, stake or block)"), colRed)
			}
			return
		}
		setStatus(p.ticketStatus, lang.L("✓ Valid number"), colGreen)
		p.lookup.Enable()
	}
}

// LookUp finds the unit of the ticket typed and shows its full record.
func (p *OperatorPanel) LookUp() {
	t, err := engine.ParseTicket(p.ticket.Text)
	if err != nil {
		return
	}
	p.call(func(ctx context.Context) func() {
		sale, err := p.op.Lookup(ctx, t)
		if err == nil || errors.Is(err, engine.ErrUnknownTicket) {
			p.op.RecordOperator(ctx, engine.ActorOperator, "ticket-lookup", t.String())
		}
		return func() {
			p.record.Objects = nil
			p.found = nil
			switch {
			case errors.Is(err, engine.ErrUnknownTicket):
				setStatus(p.ticketStatus, lang.L("This ticket was never sold"), colRed)
			case err != nil:
				p.fail(err)
			default:
				p.found = &sale
				p.record.Add(p.recordCard(sale))
			}
			p.record.Refresh()
		}
	})
}

// Found is the unit the ticket look-up shows, or nil.
func (p *OperatorPanel) Found() *engine.Sale { return p.found }

func (p *OperatorPanel) recordCard(s engine.Sale) fyne.CanvasObject {
	state := lang.L("Shown to its end")
	if !s.Done() {
		state = lang.L("Not shown to its end (the recorded result prevails)")
	}
	form := container.New(formLayout{},
		dimLabel(lang.L("Ticket")), valueLabel(s.Ticket.String()),
		dimLabel(lang.L("Player")), valueLabel(s.Player),
		dimLabel(lang.L("Date")), valueLabel(when(s.Time)),
		dimLabel(lang.L("Stake")), valueLabel(money(s.Stake())),
		dimLabel(lang.L("Prize")), valueLabel(money(s.Prize())),
		dimLabel(lang.L("Puck {{.N}}", nth(1))), valueLabel(dropText(s, 0)),
		dimLabel(lang.L("Puck {{.N}}", nth(2))), valueLabel(dropText(s, 1)),
		dimLabel(lang.L("Funds before")), valueLabel(money(s.BalanceBefore)),
		dimLabel(lang.L("Funds after")), valueLabel(money(s.BalanceAfter)),
		dimLabel(lang.L("Block")), valueLabel(fmt.Sprintf("%s, %s %d", s.Ticket.Block, lang.L("unit"), s.Ticket.Index)),
		dimLabel(lang.L("Ledger entry")), valueLabel(lang.L("No. {{.N}}", nth(int(s.LedgerSeq)))),
		dimLabel(lang.L("Reveal")), valueLabel(state),
		dimLabel(lang.L("Record hash")), valueLabel(s.Hash().String()[:32]+"…"),
	)
	replay := widget.NewButtonWithIcon(lang.L("Replay its fall on the board"), theme.MediaPlayIcon(), func() { p.replay(s) })
	replay.Importance = widget.HighImportance
	return card(container.NewVBox(form, container.NewHBox(layout.NewSpacer(), replay)))
}

func (p *OperatorPanel) replay(s engine.Sale) {
	if err := p.k.replayForOperator(s); err != nil {
		p.say(err.Error(), true)
	}
}

// --- Players ---

func (p *OperatorPanel) playersTab() fyne.CanvasObject {
	p.histPlayer = widget.NewSelectEntry(nil)
	p.histPlayer.SetPlaceHolder(lang.L("Player id"))
	p.histPlayer.OnSubmitted = func(string) { p.ShowHistory(0) }
	show := widget.NewButtonWithIcon(lang.L("Show"), theme.SearchIcon(), func() { p.ShowHistory(0) })
	export := widget.NewButtonWithIcon(lang.L("Export CSV"), theme.DocumentSaveIcon(), p.exportHistory)
	p.histBox = container.NewVBox()
	p.histPage = &canvas.Text{Color: colDim, TextSize: 15, Alignment: fyne.TextAlignCenter}
	p.histNewer = widget.NewButtonWithIcon(lang.L("Newer"), theme.NavigateBackIcon(), func() {
		if p.histAt > 0 {
			p.ShowHistory(p.histAt - 1)
		}
	})
	p.histOlder = widget.NewButtonWithIcon(lang.L("Older"), theme.NavigateNextIcon(), func() {
		if p.histAt+1 < len(p.histPages) {
			p.ShowHistory(p.histAt + 1)
		}
	})
	p.histNewer.Disable()
	p.histOlder.Disable()
	top := container.NewVBox(heading(lang.L("Player history (newest first)")),
		container.NewBorder(nil, nil, nil, container.NewHBox(show, export), p.histPlayer))
	pager := container.NewBorder(nil, nil, p.histNewer, p.histOlder, p.histPage)
	return container.NewBorder(top, pager, nil, nil, container.NewVScroll(p.histBox))
}

// ShowHistory shows page i (0: newest) of the chosen player's units.
func (p *OperatorPanel) ShowHistory(i int) {
	player := strings.TrimSpace(p.histPlayer.Text)
	if player == "" {
		return
	}
	if i == 0 || player != p.histShown {
		p.histPages, i = p.histPages[:1], 0
	}
	before := p.histPages[i]
	p.call(func(ctx context.Context) func() {
		sales, next, err := p.k.game.History(ctx, player, before, HistoryPage)
		w, werr := p.op.Wallet(ctx, player)
		if err == nil {
			err = werr
		}
		if err == nil && i == 0 {
			p.op.RecordOperator(ctx, engine.ActorOperator, "history", "player "+player)
		}
		return func() {
			if err != nil {
				p.fail(err)
				return
			}
			p.histShown, p.histAt = player, i
			if i == len(p.histPages)-1 && next != 0 {
				p.histPages = append(p.histPages, next)
			}
			p.histBox.Objects = nil
			p.histBox.Add(valueLabel(lang.L("{{.Player}}: funds {{.Amount}}", map[string]any{"Player": player, "Amount": money(w.Balance)})))
			if len(sales) == 0 {
				p.histBox.Add(widget.NewLabel(lang.L("No game played yet")))
			}
			for _, s := range sales {
				p.histBox.Add(p.historyRow(s))
			}
			p.histBox.Refresh()
			p.histPage.Text = lang.L("Page {{.N}}", nth(i+1))
			p.histPage.Refresh()
			if i > 0 {
				p.histNewer.Enable()
			} else {
				p.histNewer.Disable()
			}
			if i+1 < len(p.histPages) {
				p.histOlder.Enable()
			} else {
				p.histOlder.Disable()
			}
		}
	})
}

// HistoryRows is the number of units the Players tab lists.
func (p *OperatorPanel) HistoryRows() int { return max(0, len(p.histBox.Objects)-1) }

func (p *OperatorPanel) historyRow(s engine.Sale) fyne.CanvasObject {
	line1 := &canvas.Text{Text: when(s.Time) + "   " + s.Ticket.String(), Color: colDim, TextSize: 14}
	prize := s.Prize()
	line2 := &canvas.Text{Text: fmt.Sprintf("%s %s   %s %s   %s → %s", lang.L("Stake"), money(s.Stake()), lang.L("Prize"), money(prize), money(s.BalanceBefore), money(s.BalanceAfter)),
		Color: colText, TextSize: 17, TextStyle: fyne.TextStyle{Bold: prize > 0}}
	if prize > 0 {
		line2.Color = colGold
	}
	replay := widget.NewButtonWithIcon(lang.L("REPLAY"), theme.MediaPlayIcon(), func() { p.replay(s) })
	bg := &canvas.Rectangle{FillColor: colPanel, CornerRadius: 8}
	return container.NewStack(bg, container.New(layout.NewCustomPaddedLayout(3, 3, 8, 4),
		container.NewBorder(nil, nil, nil, replay, container.NewVBox(line1, line2))))
}

func (p *OperatorPanel) exportHistory() {
	player := strings.TrimSpace(p.histPlayer.Text)
	if player == "" {
		p.say(lang.L("Choose a player first"), true)
		return
	}
	dir := p.k.exportDir()
	p.call(func(ctx context.Context) func() {
		var all []engine.Sale
		var before uint64
		var err error
		for {
			var sales []engine.Sale
			sales, before, err = p.k.game.History(ctx, player, before, 500)
			all = append(all, sales...)
			if err != nil || before == 0 {
				break
			}
		}
		var path string
		if err == nil {
			path, err = writeExport(dir, "historique-"+safeName(player), func(f *os.File) error { return engine.WriteHistoryCSV(f, all) })
		}
		if err == nil {
			p.op.RecordOperator(ctx, engine.ActorOperator, "export", "history of "+player+" to "+path)
		}
		return func() {
			if err != nil {
				p.fail(err)
				return
			}
			p.say(lang.L("{{.N}} units exported to {{.Path}}", map[string]any{"N": len(all), "Path": path}), false)
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

func (p *OperatorPanel) loadPlayers() {
	p.call(func(ctx context.Context) func() {
		players, err := p.op.Players(ctx)
		return func() {
			if err != nil {
				p.fail(err)
				return
			}
			p.histPlayer.SetOptions(players)
			p.fundsPlayer.SetOptions(players)
		}
	})
}

// --- Funds ---

func (p *OperatorPanel) fundsTab() fyne.CanvasObject {
	p.fundsPlayer = widget.NewSelectEntry(nil)
	p.fundsPlayer.SetPlaceHolder(lang.L("Player id"))
	p.fundsPlayer.OnChanged = func(string) { p.balanceOf = ""; p.fundsBalance.Text = ""; p.fundsBalance.Refresh(); p.checkAmount() }
	p.fundsPlayer.OnSubmitted = func(string) { p.loadFunds() }
	show := widget.NewButtonWithIcon(lang.L("Show"), theme.SearchIcon(), p.loadFunds)
	p.fundsBalance = &canvas.Text{Color: colText, TextSize: 22, TextStyle: fyne.TextStyle{Bold: true}}
	p.amount = widget.NewEntry()
	p.amount.SetPlaceHolder(lang.L("Amount in euros, e.g. 20 or 12,50"))
	p.amount.OnChanged = func(string) { p.checkAmount() }
	p.amountStatus = statusText()
	p.credit = widget.NewButtonWithIcon(lang.L("Credit (cash-in)"), theme.ContentAddIcon(), func() { p.confirmFunds(true) })
	p.payout = widget.NewButtonWithIcon(lang.L("Pay out (cash-out)"), theme.ContentRemoveIcon(), func() { p.confirmFunds(false) })
	p.credit.Importance = widget.HighImportance
	p.payout.Importance = widget.HighImportance
	p.fundsResult = widget.NewLabel("")
	p.fundsResult.Wrapping = fyne.TextWrapWord
	p.ledger = container.NewVBox()
	p.checkAmount()
	form := container.New(formLayout{gap: 6},
		dimLabel(lang.L("Player")), container.NewBorder(nil, nil, nil, show, p.fundsPlayer),
		dimLabel(lang.L("Funds")), p.fundsBalance,
		dimLabel(lang.L("Amount")), p.amount,
		layout.NewSpacer(), p.amountStatus,
	)
	buttons := container.NewGridWithColumns(2, tall(p.credit, stakeButtonHeight), tall(p.payout, stakeButtonHeight))
	top := container.NewVBox(heading(lang.L("Cash")), form, buttons, p.fundsResult, heading(lang.L("Ledger (newest first)")))
	return container.NewBorder(top, nil, nil, nil, container.NewVScroll(p.ledger))
}

// checkAmount validates the amount as it is typed: positive, at most two
// decimals, a payout no more than the balance shown.
func (p *OperatorPanel) checkAmount() {
	p.credit.Disable()
	p.payout.Disable()
	player := strings.TrimSpace(p.fundsPlayer.Text)
	if strings.TrimSpace(p.amount.Text) == "" {
		setStatus(p.amountStatus, lang.L("Type an amount"), colDim)
		return
	}
	a, err := engine.ParseAmount(p.amount.Text)
	switch {
	case err != nil && strings.Contains(err.Error(), "two decimals"):
		setStatus(p.amountStatus, lang.L("At most two decimals"), colRed)
	case err != nil && strings.Contains(err.Error(), "more than zero"):
		setStatus(p.amountStatus, lang.L("The amount must be more than zero"), colRed)
	case err != nil:
		setStatus(p.amountStatus, lang.L("Not an amount in euros (e.g. 20 or 12,50)"), colRed)
	case player == "":
		setStatus(p.amountStatus, lang.L("Choose a player"), colDim)
	case p.balanceOf != player:
		setStatus(p.amountStatus, lang.L("Press Show to read the player's funds"), colDim)
	default:
		p.credit.Enable()
		if a <= p.balance {
			p.payout.Enable()
			setStatus(p.amountStatus, lang.L("✓ {{.Amount}}", amount(a)), colGreen)
		} else {
			setStatus(p.amountStatus, lang.L("✓ {{.Amount}} — a payout cannot exceed the funds", amount(a)), colGold)
		}
	}
}

func (p *OperatorPanel) loadFunds() {
	player := strings.TrimSpace(p.fundsPlayer.Text)
	if player == "" {
		return
	}
	p.call(func(ctx context.Context) func() {
		w, err := p.op.Wallet(ctx, player)
		var entries []engine.LedgerEntry
		if err == nil {
			entries, err = p.op.LedgerPage(ctx, player, 12)
		}
		return func() {
			if strings.TrimSpace(p.fundsPlayer.Text) != player {
				return // typed on meanwhile
			}
			if err != nil {
				p.fail(err)
				return
			}
			p.showFunds(player, w.Balance, entries)
		}
	})
}

func (p *OperatorPanel) showFunds(player string, bal engine.Cents, entries []engine.LedgerEntry) {
	p.balance, p.balanceOf = bal, player
	p.fundsBalance.Text = money(bal)
	p.fundsBalance.Refresh()
	p.ledger.Objects = nil
	for _, l := range entries {
		p.ledger.Add(ledgerRow(l))
	}
	p.ledger.Refresh()
	p.checkAmount()
}

func ledgerRow(l engine.LedgerEntry) fyne.CanvasObject {
	var move string
	switch {
	case l.Credit > 0 && l.Debit > 0:
		move = "-" + money(l.Debit) + " +" + money(l.Credit)
	case l.Credit > 0:
		move = "+" + money(l.Credit)
	default:
		move = "-" + money(l.Debit)
	}
	kind := map[engine.LedgerKind]string{engine.LedgerGrant: lang.L("demo funds"), engine.LedgerCredit: lang.L("credit"),
		engine.LedgerPayout: lang.L("payout"), engine.LedgerSale: lang.L("sale")}[l.Kind]
	if l.Kind == engine.LedgerSale {
		kind += " " + l.Ticket.String()
	}
	txt := fmt.Sprintf("%s   %s   %s   %s   → %s   (%s)", lang.L("No. {{.N}}", nth(int(l.Seq))), when(l.Time), kind, move, money(l.Balance), l.Actor)
	return &canvas.Text{Text: txt, Color: colText, TextSize: 15}
}

// confirmFunds asks before a credit or a payout, then moves the money.
func (p *OperatorPanel) confirmFunds(isCredit bool) {
	player := strings.TrimSpace(p.fundsPlayer.Text)
	a, err := engine.ParseAmount(p.amount.Text)
	if err != nil || player == "" || p.balanceOf != player {
		return
	}
	after, what := p.balance+a, lang.L("Credit {{.Amount}} to {{.Player}}?", map[string]any{"Amount": money(a), "Player": player})
	if !isCredit {
		after, what = p.balance-a, lang.L("Pay out {{.Amount}} to {{.Player}}?", map[string]any{"Amount": money(a), "Player": player})
	}
	msg := widget.NewLabel(what + "\n" + lang.L("Funds: {{.Before}} → {{.After}}", map[string]any{"Before": money(p.balance), "After": money(after)}))
	msg.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomConfirm(lang.L("Confirm"), lang.L("Confirm"), lang.L("Cancel"), msg, func(ok bool) {
		if ok {
			p.moveFunds(isCredit, player, a)
		}
	}, p.k.win)
	d.Resize(fyne.NewSize(520, 260))
	d.Show()
}

func (p *OperatorPanel) moveFunds(isCredit bool, player string, a engine.Cents) {
	p.call(func(ctx context.Context) func() {
		move := p.op.OperatorPayout
		if isCredit {
			move = p.op.OperatorCredit
		}
		l, err := move(ctx, player, a)
		var entries []engine.LedgerEntry
		if err == nil {
			entries, err = p.op.LedgerPage(ctx, player, 12)
		}
		return func() {
			if err != nil {
				p.fundsResult.Importance = widget.DangerImportance
				if errors.Is(err, engine.ErrInsufficientFunds) {
					p.fundsResult.SetText(lang.L("Refused: a payout cannot exceed the funds"))
				} else {
					p.fundsResult.SetText(lang.L("Refused: {{.Err}}", map[string]any{"Err": err.Error()}))
				}
				return
			}
			p.fundsResult.Importance = widget.SuccessImportance
			p.fundsResult.SetText(lang.L("Done: ledger entry n° {{.Seq}}, funds now {{.Amount}}", map[string]any{"Seq": l.Seq, "Amount": money(l.Balance)}))
			p.amount.SetText("")
			p.showFunds(player, l.Balance, entries)
			p.k.fundsChanged(player, l.Balance)
		}
	})
}

// Funds tab accessors, for tests and scripts.

// FundsPlayer is the player entry of the Funds tab.
func (p *OperatorPanel) FundsPlayer() *widget.SelectEntry { return p.fundsPlayer }

// AmountEntry is the amount entry of the Funds tab.
func (p *OperatorPanel) AmountEntry() *widget.Entry { return p.amount }

// CreditButton starts a credit (after a confirmation).
func (p *OperatorPanel) CreditButton() *widget.Button { return p.credit }

// PayoutButton starts a payout (after a confirmation).
func (p *OperatorPanel) PayoutButton() *widget.Button { return p.payout }

// FundsBalance is the balance the Funds tab shows.
func (p *OperatorPanel) FundsBalance() string { return p.fundsBalance.Text }

// FundsResult says how the last credit or payout went.
func (p *OperatorPanel) FundsResult() string { return p.fundsResult.Text }

// LoadFunds reads the chosen player's funds (the Show button).
func (p *OperatorPanel) LoadFunds() { p.loadFunds() }

// TicketEntry is the ticket number entry.
func (p *OperatorPanel) TicketEntry() *widget.Entry { return p.ticket }

// TicketStatus says whether the number typed is valid.
func (p *OperatorPanel) TicketStatus() string { return p.ticketStatus.Text }

// LookupButton looks the ticket up; enabled only for a valid number.
func (p *OperatorPanel) LookupButton() *widget.Button { return p.lookup }

// HistoryPlayer is the player entry of the Players tab.
func (p *OperatorPanel) HistoryPlayer() *widget.SelectEntry { return p.histPlayer }

// --- Audit ---

func (p *OperatorPanel) auditTab() fyne.CanvasObject {
	p.auditProgress = widget.NewProgressBar()
	p.auditResult = container.NewVBox()
	p.auditRun = widget.NewButtonWithIcon(lang.L("Run the audit"), theme.ConfirmIcon(), p.RunAudit)
	p.auditRun.Importance = widget.HighImportance
	note := widget.NewLabel(lang.L("The same checks as « starfortune audit »: block tallies and commitments, seeds of sold-out blocks, history chains, every sale in the ledger, every balance equal to its ledger, the journal."))
	note.Wrapping = fyne.TextWrapWord
	top := container.NewVBox(heading(lang.L("Audit")), note, container.NewBorder(nil, nil, p.auditRun, nil, p.auditProgress))
	return container.NewBorder(top, nil, nil, nil, container.NewVScroll(p.auditResult))
}

// RunAudit runs the audit with its progress bar, then shows the findings.
func (p *OperatorPanel) RunAudit() {
	p.auditRun.Disable()
	p.auditProgress.SetValue(0)
	p.auditResult.Objects = nil
	p.auditResult.Refresh()
	p.call(func(context.Context) func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // longer than one engine call
		defer cancel()
		rep, err := p.op.Audit(ctx, func(done, total int) {
			fyne.Do(func() { p.auditProgress.SetValue(float64(done) / float64(max(total, 1))) })
		})
		detail := fmt.Sprintf("ok=%v blocks=%d records=%d wallets=%d findings=%d", rep.OK(), rep.Blocks, rep.Records, rep.Wallets, len(rep.Findings))
		if err != nil {
			detail = "could not run: " + err.Error()
		}
		p.op.RecordOperator(ctx, engine.ActorOperator, "audit", detail)
		return func() {
			p.auditRun.Enable()
			if err != nil {
				p.fail(err)
				return
			}
			p.auditProgress.SetValue(1)
			p.showAudit(rep)
		}
	})
}

func (p *OperatorPanel) showAudit(rep engine.Report) {
	p.auditResult.Objects = nil
	summary := lang.L("{{.Blocks}} blocks, {{.Records}} history records, {{.Wallets}} wallets checked",
		map[string]any{"Blocks": rep.Blocks, "Records": rep.Records, "Wallets": rep.Wallets})
	if rep.OK() {
		p.auditResult.Add(&canvas.Text{Text: lang.L("Audit OK: no finding"), Color: colGreen, TextSize: 24, TextStyle: fyne.TextStyle{Bold: true}})
	} else {
		p.auditResult.Add(&canvas.Text{Text: lang.L("{{.N}} findings", nth(len(rep.Findings))), Color: colRed, TextSize: 24, TextStyle: fyne.TextStyle{Bold: true}})
	}
	p.auditResult.Add(widget.NewLabel(summary))
	for _, f := range rep.Findings {
		l := widget.NewLabel("• " + f)
		l.Wrapping = fyne.TextWrapWord
		l.Importance = widget.DangerImportance
		p.auditResult.Add(l)
	}
	p.auditResult.Refresh()
}

// AuditProgress is the audit's progress bar (0 to 1).
func (p *OperatorPanel) AuditProgress() float64 { return p.auditProgress.Value }

// AuditSummary is the first line of the audit's result ("" before a run).
func (p *OperatorPanel) AuditSummary() string {
	if len(p.auditResult.Objects) == 0 {
		return ""
	}
	return p.auditResult.Objects[0].(*canvas.Text).Text
}

// --- System ---

func (p *OperatorPanel) systemTab() fyne.CanvasObject {
	o := p.k.opts
	orUnknown := func(s string) string {
		if s == "" {
			return lang.L("unknown")
		}
		return s
	}
	var hash string
	if o.BinarySHA256 != nil {
		hash = o.BinarySHA256()
	}
	sha := widget.NewLabel(orUnknown(hash))
	sha.Wrapping = fyne.TextWrapBreak
	sha.TextStyle = fyne.TextStyle{Monospace: true}
	p.health = widget.NewLabel("")
	p.health.Wrapping = fyne.TextWrapWord
	form := container.New(formLayout{gap: 4},
		dimLabel(lang.L("Version")), valueLabel(orUnknown(o.Version)),
		dimLabel(lang.L("Commit")), valueLabel(orUnknown(o.Commit)),
		dimLabel(lang.L("Program SHA-256")), sha,
		dimLabel(lang.L("Terminal")), p.health,
		dimLabel(lang.L("Exports")), valueLabel(p.k.exportDir()),
		dimLabel(lang.L("Sound")), p.k.soundControl(),
	)
	leave := widget.NewButtonWithIcon(lang.L("Leave kiosk mode"), theme.ViewRestoreIcon(), func() {
		p.k.leaveKiosk()
		p.say(lang.L("Kiosk mode left: the window can be closed freely."), false)
	})
	quit := widget.NewButtonWithIcon(lang.L("Close the terminal"), theme.LogoutIcon(), func() {
		dialog.NewConfirm(lang.L("Close the terminal"), lang.L("The terminal will close."), func(ok bool) {
			if ok {
				p.k.recordOperatorThen("close-terminal", "from the operator panel", p.k.win.Close)
			}
		}, p.k.win).Show()
	})
	quit.Importance = widget.DangerImportance
	p.opLog = container.NewVBox()
	top := container.NewVBox(heading(lang.L("System")), form, container.NewHBox(leave, quit), heading(lang.L("Operator log (newest first)")))
	return container.NewBorder(top, nil, nil, nil, container.NewVScroll(p.opLog))
}

func (p *OperatorPanel) loadSystem() {
	p.call(func(ctx context.Context) func() {
		health := p.k.game.Health()
		events, err := p.op.OperatorLog(ctx, 30)
		return func() {
			if health != nil {
				p.health.Importance = widget.DangerImportance
				p.health.SetText(lang.L("OUT OF SERVICE: {{.Err}}", map[string]any{"Err": health.Error()}))
			} else {
				p.health.Importance = widget.SuccessImportance
				p.health.SetText(lang.L("In service: integrity checks passed"))
			}
			if err != nil {
				p.fail(err)
				return
			}
			p.opLog.Objects = nil
			for _, e := range events {
				p.opLog.Add(&canvas.Text{Text: fmt.Sprintf("%d   %s   %s   %s   %s", e.Seq, when(e.Time), e.Actor, e.Action, e.Detail),
					Color: colText, TextSize: 14})
			}
			p.opLog.Refresh()
		}
	})
}

// fundsChanged updates the kiosk's funds when the operator moved the
// money of the kiosk's own player between units.
func (k *Kiosk) fundsChanged(player string, bal engine.Cents) {
	if player != k.opts.Player {
		return
	}
	k.balance = bal
	if k.sale == nil {
		k.controls.SetFunds(bal)
	}
}
