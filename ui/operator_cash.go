package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"

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

// cashView is the Cash tab: a player's funds and ledger, credit (cash-in)
// and payout (cash-out) after a confirmation, the amount checked as typed.
type cashView struct {
	p       *OperatorPanel
	player  *widget.SelectEntry
	funds   *canvas.Text
	amount  *widget.Entry
	status  *canvas.Text
	credit  *widget.Button
	payout  *widget.Button
	result  *widget.Label
	ledger  *fyne.Container
	balance engine.Cents
	// balanceOf is the player whose balance is shown ("" while none is).
	balanceOf string
	content   fyne.CanvasObject
}

func newCashView(p *OperatorPanel) *cashView {
	v := &cashView{p: p}
	v.content = v.build()
	return v
}

func (v *cashView) build() fyne.CanvasObject {
	v.player = widget.NewSelectEntry(nil)
	v.player.SetPlaceHolder(lang.L("Player id"))
	v.player.OnChanged = func(string) { v.balanceOf = ""; v.funds.Text = ""; v.funds.Refresh(); v.checkAmount() }
	v.player.OnSubmitted = func(string) { v.loadFunds() }
	show := widget.NewButtonWithIcon(lang.L("Show"), theme.SearchIcon(), v.loadFunds)
	v.funds = &canvas.Text{Color: colText, TextSize: 22, TextStyle: fyne.TextStyle{Bold: true}}
	v.amount = widget.NewEntry()
	v.amount.SetPlaceHolder(lang.L("Amount in euros, e.g. 20 or 12,50"))
	v.amount.OnChanged = func(string) { v.checkAmount() }
	v.status = statusText()
	v.credit = widget.NewButtonWithIcon(lang.L("Credit (cash-in)"), theme.ContentAddIcon(), func() { v.confirmFunds(true) })
	v.payout = widget.NewButtonWithIcon(lang.L("Pay out (cash-out)"), theme.ContentRemoveIcon(), func() { v.confirmFunds(false) })
	v.credit.Importance = widget.HighImportance
	v.payout.Importance = widget.HighImportance
	v.result = widget.NewLabel("")
	v.result.Wrapping = fyne.TextWrapWord
	v.ledger = container.NewVBox()
	v.checkAmount()
	form := container.New(formLayout{gap: 6},
		dimLabel(lang.L("Player")), container.NewBorder(nil, nil, nil, show, v.player),
		dimLabel(lang.L("Funds")), v.funds,
		dimLabel(lang.L("Amount")), v.amount,
		layout.NewSpacer(), v.status,
	)
	buttons := container.NewGridWithColumns(2, tall(v.credit, stakeButtonHeight), tall(v.payout, stakeButtonHeight))
	top := container.NewVBox(heading(lang.L("Cash")), form, buttons, v.result, heading(lang.L("Ledger (newest first)")))
	return container.NewBorder(top, nil, nil, nil, container.NewVScroll(v.ledger))
}

// checkAmount validates the amount as it is typed: positive, at most two
// decimals, a payout no more than the balance shown.
func (v *cashView) checkAmount() {
	v.credit.Disable()
	v.payout.Disable()
	player := strings.TrimSpace(v.player.Text)
	if strings.TrimSpace(v.amount.Text) == "" {
		setStatus(v.status, lang.L("Type an amount"), colDim)
		return
	}
	a, err := engine.ParseAmount(v.amount.Text)
	switch {
	case err != nil:
		setStatus(v.status, amountError(err), colRed)
	case player == "":
		setStatus(v.status, lang.L("Choose a player"), colDim)
	case v.balanceOf != player:
		setStatus(v.status, lang.L("Press Show to read the player's funds"), colDim)
	default:
		v.credit.Enable()
		if a <= v.balance {
			v.payout.Enable()
			setStatus(v.status, lang.L("✓ {{.Amount}}", amount(a)), colGreen)
		} else {
			setStatus(v.status, lang.L("✓ {{.Amount}} — a payout cannot exceed the funds", amount(a)), colGold)
		}
	}
}

// amountError is the attendant's message for an amount refused.
func amountError(err error) string {
	var ae *engine.AmountError
	if !errors.As(err, &ae) {
		return lang.L("Not an amount in euros (e.g. 20 or 12,50)")
	}
	switch ae.Problem {
	case engine.AmountDecimals:
		return lang.L("At most two decimals")
	case engine.AmountNotPositive:
		return lang.L("The amount must be more than zero")
	case engine.AmountTooLarge:
		return lang.L("Too large an amount: at most {{.Amount}}", amount(engine.MaxAmount))
	}
	return lang.L("Not an amount in euros (e.g. 20 or 12,50)")
}

func (v *cashView) loadFunds() {
	player := strings.TrimSpace(v.player.Text)
	if player == "" {
		return
	}
	v.p.call(func(ctx context.Context) func() {
		w, err := v.p.op.Wallet(ctx, player)
		var entries []engine.LedgerEntry
		if err == nil {
			entries, err = v.p.op.LedgerPage(ctx, player, 12)
		}
		return func() {
			if strings.TrimSpace(v.player.Text) != player {
				return // typed on meanwhile
			}
			if err != nil {
				v.p.fail(err)
				return
			}
			v.showFunds(player, w.Balance, entries)
		}
	})
}

func (v *cashView) showFunds(player string, bal engine.Cents, entries []engine.LedgerEntry) {
	v.balance, v.balanceOf = bal, player
	v.funds.Text = money(bal)
	v.funds.Refresh()
	v.ledger.Objects = nil
	for _, l := range entries {
		v.ledger.Add(ledgerRow(l))
	}
	v.ledger.Refresh()
	v.checkAmount()
}

func ledgerRow(l engine.LedgerEntry) fyne.CanvasObject {
	return &canvas.Text{Text: ledgerText(l), Color: colText, TextSize: 15}
}

// ledgerText words a ledger entry: its number, when, what, the money
// moved, the balance after, and who moved it.
func ledgerText(l engine.LedgerEntry) string {
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
	return fmt.Sprintf("%s   %s   %s   %s   → %s   (%s)", lang.L("No. {{.N}}", nth(int(l.Seq))), when(l.Time), kind, move, money(l.Balance), l.Actor)
}

// confirmFunds asks before a credit or a payout, then moves the money.
func (v *cashView) confirmFunds(isCredit bool) {
	player := strings.TrimSpace(v.player.Text)
	a, err := engine.ParseAmount(v.amount.Text)
	if err != nil || player == "" || v.balanceOf != player {
		return
	}
	after, what := v.balance+a, lang.L("Credit {{.Amount}} to {{.Player}}?", map[string]any{"Amount": money(a), "Player": player})
	if !isCredit {
		after, what = v.balance-a, lang.L("Pay out {{.Amount}} to {{.Player}}?", map[string]any{"Amount": money(a), "Player": player})
	}
	msg := widget.NewLabel(what + "\n" + lang.L("Funds: {{.Before}} → {{.After}}", map[string]any{"Before": money(v.balance), "After": money(after)}))
	msg.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomConfirm(lang.L("Confirm"), lang.L("Confirm"), lang.L("Cancel"), msg, func(ok bool) {
		if ok {
			v.moveFunds(isCredit, player, a)
		}
	}, v.p.k.win)
	d.Resize(fyne.NewSize(520, 260))
	d.Show()
}

func (v *cashView) moveFunds(isCredit bool, player string, a engine.Cents) {
	v.p.call(func(ctx context.Context) func() {
		move := v.p.op.OperatorPayout
		if isCredit {
			move = v.p.op.OperatorCredit
		}
		l, err := move(ctx, v.p.actor, player, a)
		var entries []engine.LedgerEntry
		if err == nil {
			entries, err = v.p.op.LedgerPage(ctx, player, 12)
		}
		return func() {
			if err != nil {
				v.result.Importance = widget.DangerImportance
				if errors.Is(err, engine.ErrInsufficientFunds) {
					v.result.SetText(lang.L("Refused: a payout cannot exceed the funds"))
				} else {
					v.result.SetText(deskError(err))
				}
				return
			}
			v.result.Importance = widget.SuccessImportance
			v.result.SetText(lang.L("Done: ledger entry n° {{.Seq}}, funds now {{.Amount}}", map[string]any{"Seq": l.Seq, "Amount": money(l.Balance)}))
			v.amount.SetText("")
			v.showFunds(player, l.Balance, entries)
			v.p.k.fundsChanged(player, l.Balance)
		}
	})
}
