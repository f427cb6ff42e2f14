package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"starfortune/engine"
	"starfortune/present"
)

// What an attendant does to an account from the Accounts tab, each asked
// in a dialog and done by the engine under the attendant's name: a limit
// changed, a break recorded, a card unlocked, a held prize's identity
// checked then paid; and, for every account, the exclusion list imported
// and the register exported.

// wordy is a label that wraps.
func wordy(s string) *widget.Label {
	l := widget.NewLabel(s)
	l.Wrapping = fyne.TextWrapWord
	return l
}

// ask shows a dialog asking to confirm content with confirm.
func (v *accountsView) ask(title, confirm string, content fyne.CanvasObject, size fyne.Size, then func()) dialog.Dialog {
	d := dialog.NewCustomConfirm(title, confirm, lang.L("Cancel"), content, func(ok bool) {
		if ok {
			then()
		}
	}, v.p.k.win)
	d.Resize(size)
	d.Show()
	return d
}

// askLimit changes one limit: an amount typed (lower: at once; higher:
// after the cooling-off), or an optional limit removed.
func (v *accountsView) askLimit(s *shownAccount, k engine.LimitKey) {
	a := s.acct
	cur, has := a.Limit(k, a.Clock)
	inForce := lang.L("In force: none")
	if has {
		inForce = lang.L("In force: {{.Amount}}", amount(cur))
	}
	rows := []fyne.CanvasObject{valueLabel(inForce)}
	if pl, ok := a.PendingFor(k, a.Clock); ok {
		rows = append(rows, &canvas.Text{Text: pendingLine(pl), Color: colGold, TextSize: 15})
	}
	entry := widget.NewEntry()
	entry.SetPlaceHolder(lang.L("Amount in euros, e.g. 20 or 12,50"))
	status := statusText()
	entry.OnChanged = func(text string) {
		switch amt, err := engine.ParseAmount(text); {
		case strings.TrimSpace(text) == "":
			setStatus(status, "", colDim)
		case err != nil:
			setStatus(status, amountError(err), colRed)
		case has && amt < cur:
			setStatus(status, lang.L("✓ Lower: applies at once"), colGreen)
		default:
			setStatus(status, lang.L("✓ Higher: applies after the cooling-off"), colGold)
		}
	}
	var d dialog.Dialog
	remove := widget.NewButtonWithIcon(lang.L("Remove this limit"), theme.DeleteIcon(), func() {
		d.Hide()
		v.setLimit(k, 0)
	})
	if k.Mandatory() || !has {
		remove.Hide()
	}
	rows = append(rows, entry, status, wordy(lang.L("A lower limit applies at once; a higher one, or a limit removed, only after the cooling-off.")), remove)
	d = v.ask(limitName(k), lang.L("Record"), container.NewVBox(rows...), fyne.NewSize(560, 400), func() {
		amt, err := engine.ParseAmount(entry.Text)
		if err != nil {
			v.p.say(limitName(k)+" : "+amountError(err), true)
			return
		}
		v.setLimit(k, amt)
	})
	v.p.k.win.Canvas().Focus(entry)
}

// setLimit changes a limit of the account shown (0 removes it).
func (v *accountsView) setLimit(k engine.LimitKey, amt engine.Cents) {
	actor, player := v.p.actor, v.shown.acct.Player
	v.p.call(func(ctx context.Context) func() {
		ch, err := v.d.SetLimit(ctx, actor, player, k, amt)
		return func() {
			if err != nil {
				v.p.say(deskError(err), true)
				return
			}
			v.reshow(limitChangeText(ch), false)
		}
	})
}

// askBreak records a break the player asks for: its length, then the
// confirmation that it cannot be shortened.
func (v *accountsView) askBreak(s *shownAccount) {
	var d dialog.Dialog
	grid := container.NewGridWithColumns(2)
	for _, b := range engine.Breaks {
		grid.Add(keyCap(widget.NewButton(breakName(b), func() {
			d.Hide()
			v.confirmBreak(s, b)
		}), stakeButtonHeight))
	}
	intro := wordy(lang.L("The player asks for a break: no login, no play and no deposit until it ends. The funds stay payable by an attendant."))
	d = dialog.NewCustom(lang.L("Record a break"), lang.L("Cancel"), container.NewVBox(intro, grid), v.p.k.win)
	d.Resize(fyne.NewSize(560, 420))
	d.Show()
}

func (v *accountsView) confirmBreak(s *shownAccount, b engine.Break) {
	data := map[string]any{"Holder": s.acct.Identity.Holder, "Length": breakName(b)}
	text := lang.L("From now, {{.Holder}} will not be able to log in or play for {{.Length}}. A break cannot be shortened, not even by an attendant.", data)
	if b == engine.BreakIndefinite {
		text = lang.L("From now, {{.Holder}} will not be able to log in or play, with no end date. A break cannot be shortened, not even by an attendant.", data)
	}
	actor, player := v.p.actor, s.acct.Player
	v.ask(lang.L("Record a break?"), lang.L("Record the break"), wordy(text), fyne.NewSize(560, 300), func() {
		v.p.call(func(ctx context.Context) func() {
			e, err := v.d.TakeBreak(ctx, actor, player, b)
			return func() {
				if err != nil {
					v.p.say(deskError(err), true)
					return
				}
				v.reshow(lang.L("Break recorded: {{.Until}}. A session in progress is closed.", map[string]any{"Until": breakLine(e)}), false)
			}
		})
	})
}

// askUnlock unlocks a card locked by wrong PINs: with its PIN, or with a
// new one the player types.
func (v *accountsView) askUnlock(s *shownAccount) {
	var d dialog.Dialog
	same := widget.NewButtonWithIcon(lang.L("Unlock, same PIN"), theme.ConfirmIcon(), func() {
		d.Hide()
		v.unlock(s, "", func(err error) { v.p.say(deskError(err), true) })
	})
	fresh := widget.NewButtonWithIcon(lang.L("Unlock with a new PIN"), theme.DocumentCreateIcon(), func() {
		d.Hide()
		v.newPINForm(s)
	})
	msg := wordy(lang.L("The card was locked after too many wrong PINs. Unlock it with its PIN, or with a new PIN the player types twice, the holder present."))
	d = dialog.NewCustom(lang.L("Unlock the card"), lang.L("Cancel"), container.NewVBox(msg,
		container.NewGridWithColumns(2, keyCap(same, stakeButtonHeight), keyCap(fresh, stakeButtonHeight))), v.p.k.win)
	d.Resize(fyne.NewSize(600, 260))
	d.Show()
}

// unlock unlocks the card of s, with pin unless empty; refused says why not.
func (v *accountsView) unlock(s *shownAccount, pin string, refused func(error)) {
	actor, player, c := v.p.actor, s.acct.Player, s.acct.Card.Spaced()
	v.p.call(func(ctx context.Context) func() {
		_, err := v.d.UnlockCard(ctx, actor, player, pin)
		return func() {
			if err != nil {
				refused(err)
				return
			}
			msg := lang.L("Card {{.Card}} unlocked.", map[string]any{"Card": c})
			if pin != "" {
				msg = lang.L("Card {{.Card}} unlocked with a new PIN.", map[string]any{"Card": c})
			}
			v.reshow(msg, false)
		}
	})
}

// askIdentity records the identity check of a held prize: the document
// presented, which must be the holder's.
func (v *accountsView) askIdentity(s *shownAccount, h engine.HeldPrize) {
	a := s.acct
	doc := widget.NewEntry()
	doc.SetPlaceHolder(lang.L("Document presented (type and number)"))
	doc.SetText(a.Identity.DocType + " " + a.Identity.DocNumber)
	content := container.NewVBox(
		wordy(lang.L("Prize of {{.Amount}}, ticket {{.Ticket}}. Check the document presented: it must be the holder's.",
			map[string]any{"Amount": money(h.Prize), "Ticket": h.Ticket.String()})),
		container.New(formLayout{gap: 4},
			dimLabel(lang.L("Holder")), valueLabel(a.Identity.Holder),
			dimLabel(lang.L("Born on")), valueLabel(a.Identity.Born.Format("02/01/2006")),
			dimLabel(lang.L("Document presented")), doc),
	)
	actor, player := v.p.actor, a.Player
	v.ask(lang.L("Identity check"), lang.L("Identity checked"), content, fyne.NewSize(620, 340), func() {
		document := doc.Text
		v.p.call(func(ctx context.Context) func() {
			_, err := v.d.CheckIdentity(ctx, actor, player, h.Ticket, document)
			return func() {
				if err != nil {
					v.p.say(deskError(err), true)
					return
				}
				v.reshow(lang.L("Identity checked for ticket {{.Ticket}}: the prize can be paid.", map[string]any{"Ticket": h.Ticket.String()}), false)
			}
		})
	})
	v.p.k.win.Canvas().Focus(doc)
}

// payMethods are how a held prize is paid, as the register records them.
var payMethods = []string{"virement", "cheque", "especes"}

// methodName words a payment method.
func methodName(m string) string {
	switch m {
	case "virement":
		return lang.L("bank transfer")
	case "cheque":
		return lang.L("cheque")
	case "especes":
		return lang.L("cash")
	}
	return m
}

// askHandPay pays a held prize whose identity is checked: how, and the
// transfer's or cheque's reference.
func (v *accountsView) askHandPay(s *shownAccount, h engine.HeldPrize) {
	a := s.acct
	var names []string
	for _, m := range payMethods {
		names = append(names, methodName(m))
	}
	how := widget.NewRadioGroup(names, nil)
	how.Horizontal, how.Required = true, true
	how.SetSelected(names[0])
	ref := widget.NewEntry()
	ref.SetPlaceHolder(lang.L("Transfer or cheque number"))
	content := container.NewVBox(
		wordy(lang.L("Pay {{.Amount}} to {{.Holder}} (ticket {{.Ticket}}). The prize leaves the account's funds and goes into the register.",
			map[string]any{"Amount": money(h.Prize), "Holder": a.Identity.Holder, "Ticket": h.Ticket.String()})),
		container.New(formLayout{gap: 6}, dimLabel(lang.L("Paid by")), how, dimLabel(lang.L("Reference")), ref),
	)
	actor, player := v.p.actor, a.Player
	v.ask(lang.L("Pay a prize held"), lang.L("Pay {{.Amount}}", amount(h.Prize)), content, fyne.NewSize(640, 320), func() {
		method, reference := payMethods[max(0, slices.Index(names, how.Selected))], ref.Text
		v.p.call(func(ctx context.Context) func() {
			l, err := v.d.PayHeld(ctx, actor, player, h.Ticket, method, reference)
			return func() {
				if err != nil {
					v.p.say(deskError(err), true)
					return
				}
				v.p.k.fundsChanged(player, l.Balance)
				v.reshow(lang.L("Prize of ticket {{.Ticket}} paid: {{.Amount}} by {{.Method}}. Funds now {{.Balance}}.",
					map[string]any{"Ticket": h.Ticket.String(), "Amount": money(l.Debit), "Method": methodName(method), "Balance": money(l.Balance)}), false)
			}
		})
	})
}

// askImport imports the exclusion list from a CSV file: its name (in the
// exports' folder unless a path is given), then how many identities it
// holds, confirmed.
func (v *accountsView) askImport() {
	dir := v.p.k.exportDir()
	name := widget.NewEntry()
	name.SetPlaceHolder("exclusions.csv")
	hint := wordy(lang.L("A CSV file, one identity per line: TYPE,NUMBER (a header line and lines starting with # are skipped). A name without a full path is read in {{.Dir}}.",
		map[string]any{"Dir": dir}))
	v.ask(lang.L("Import the exclusion list"), lang.L("Read the file"), container.NewVBox(hint, name), fyne.NewSize(640, 300), func() {
		path := strings.TrimSpace(name.Text)
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		v.readExclusions(path)
	})
	v.p.k.win.Canvas().Focus(name)
}

// readExclusions reads the list in path and asks to import it.
func (v *accountsView) readExclusions(path string) {
	v.p.call(func(context.Context) func() {
		var keys []string
		b, err := os.ReadFile(path)
		if err == nil {
			keys, err = engine.ParseExclusionList(string(b))
		}
		return func() {
			if err != nil {
				v.p.say(lang.L("The exclusion list could not be read: {{.Err}}", map[string]any{"Err": err.Error()}), true)
				return
			}
			text := lang.L("{{.N}} identities read in {{.File}}. Put them on the exclusion list? Their holders can no longer open an account, log in, play or deposit; their sessions in progress end.",
				map[string]any{"N": len(keys), "File": path})
			v.ask(lang.L("Import the exclusion list"), lang.L("Import"), wordy(text), fyne.NewSize(600, 280), func() { v.importExclusions(path, keys) })
		}
	})
}

func (v *accountsView) importExclusions(path string, keys []string) {
	actor := v.p.actor
	v.p.call(func(ctx context.Context) func() {
		added, closed, err := v.d.ImportExclusions(ctx, actor, keys)
		detail := fmt.Sprintf("%s: %d read, %d new, %d accounts closed", path, len(keys), added, len(closed))
		if err != nil {
			detail += ": " + err.Error()
		}
		v.p.op.RecordOperator(ctx, actor, "exclusions-import", detail)
		return func() {
			if err != nil {
				v.p.say(lang.L("Exclusion list: {{.New}} added before an error; import the file again to go on. {{.Err}}",
					map[string]any{"New": added, "Err": err.Error()}), true)
				return
			}
			v.reshow(lang.L("Exclusion list: {{.Read}} identities read, {{.New}} new; accounts closed: {{.Closed}}.",
				map[string]any{"Read": len(keys), "New": added, "Closed": len(closed)}), false)
		}
	})
}

// exportRegister writes the register of large wins as CSV into the
// exports' folder, as `starfortune register --csv` prints it.
func (v *accountsView) exportRegister() {
	dir, actor := v.p.k.exportDir(), v.p.actor
	v.p.call(func(ctx context.Context) func() {
		reg, err := v.d.Register(ctx)
		var path string
		if err == nil {
			path, err = writeExport(dir, "registre", func(f *os.File) error { return present.RegisterCSV(f, reg) })
		}
		if err == nil {
			v.p.op.RecordOperator(ctx, actor, "export", "register to "+path)
		}
		return func() {
			if err != nil {
				v.p.fail(err)
				return
			}
			v.p.say(lang.L("Register exported: {{.N}} lines to {{.Path}}", map[string]any{"N": len(reg), "Path": path}), false)
		}
	})
}
