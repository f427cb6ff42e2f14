package ui

import (
	"context"
	"errors"
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

// ticketView is the Ticket tab: a ticket number checked as it is typed,
// then the full record of its unit, which can be replayed on the board.
type ticketView struct {
	p       *OperatorPanel
	ticket  *widget.Entry
	status  *canvas.Text
	lookup  *widget.Button
	record  *fyne.Container
	found   *engine.Sale
	content fyne.CanvasObject
}

func newTicketView(p *OperatorPanel) *ticketView {
	v := &ticketView{p: p}
	v.content = v.build()
	return v
}

func (v *ticketView) build() fyne.CanvasObject {
	v.ticket = widget.NewEntry()
	v.ticket.SetPlaceHolder("EE-SSS-BBBB-IIIIII-C")
	v.status = statusText()
	v.lookup = widget.NewButtonWithIcon(lang.L("Look up"), theme.SearchIcon(), v.lookUp)
	v.lookup.Importance = widget.HighImportance
	v.lookup.Disable()
	v.ticket.OnChanged = v.checkTicket
	v.ticket.OnSubmitted = func(string) { v.lookUp() }
	v.record = container.NewVBox()
	v.checkTicket("")
	form := container.NewBorder(nil, nil, nil, v.lookup, v.ticket)
	return container.NewBorder(container.NewVBox(heading(lang.L("Ticket look-up")), form, v.status), nil, nil, nil,
		container.NewVScroll(v.record))
}

// checkTicket validates the number as it is typed.
func (v *ticketView) checkTicket(s string) {
	v.lookup.Disable()
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
		setStatus(v.status, lang.L("Only digits and dashes"), colRed)
	case digits < 16:
		setStatus(v.status, lang.L("{{.N}} of 16 digits (EE-SSS-BBBB-IIIIII-C)", nth(digits)), colDim)
	case digits > 16:
		setStatus(v.status, lang.L("Too many digits: a ticket has 16"), colRed)
	default:
		if _, err := engine.ParseTicket(s); err != nil {
			var te *engine.TicketError
			if errors.As(err, &te) && te.Problem == engine.TicketCheckDigit {
				setStatus(v.status, lang.L("Wrong check digit: typing error?"), colRed)
			} else {
				setStatus(v.status, lang.L("Not a ticket of this game (emission, stake or block)"), colRed)
			}
			return
		}
		setStatus(v.status, lang.L("✓ Valid number"), colGreen)
		v.lookup.Enable()
	}
}

// LookUp finds the unit of the ticket typed and shows its full record.
func (v *ticketView) lookUp() {
	t, err := engine.ParseTicket(v.ticket.Text)
	if err != nil {
		return
	}
	v.p.call(func(ctx context.Context) func() {
		sale, err := v.p.op.Lookup(ctx, t)
		if err == nil || errors.Is(err, engine.ErrUnknownTicket) {
			v.p.op.RecordOperator(ctx, v.p.actor, "ticket-lookup", t.String())
		}
		return func() {
			v.record.Objects = nil
			v.found = nil
			switch {
			case errors.Is(err, engine.ErrUnknownTicket):
				setStatus(v.status, lang.L("This ticket was never sold"), colRed)
			case errors.Is(err, engine.ErrLookupLimit):
				setStatus(v.status, lang.L("Today's look-ups of tickets sold by other kiosks from blocks in play are used up: ask the central's operator"), colRed)
			case err != nil:
				v.p.fail(err)
			default:
				v.found = &sale
				v.record.Add(v.recordCard(sale))
			}
			v.record.Refresh()
		}
	})
}

func (v *ticketView) recordCard(s engine.Sale) fyne.CanvasObject {
	state := lang.L("Shown to its end")
	if !s.Done() {
		state = lang.L("Not shown to its end (the recorded result prevails)")
	}
	if s.SoldBy != "" { // found by the central: its funds and ledger are that kiosk's
		state = lang.L("Sold by another kiosk of the fleet") + ": " + s.SoldBy
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
	replay := widget.NewButtonWithIcon(lang.L("Replay its fall on the board"), theme.MediaPlayIcon(), func() { v.p.replay(s) })
	replay.Importance = widget.HighImportance
	return card(container.NewVBox(form, container.NewHBox(layout.NewSpacer(), replay)))
}
