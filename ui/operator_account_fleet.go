package ui

import (
	"context"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"starfortune/engine"
)

// The Accounts tab at a fleet's kiosk (SPEC §10, Fleet): a player's
// account is the central's, so an attendant reads it from the central,
// the player present typing the card's PIN (a kiosk reads no account
// without its player), and sees what its limits count over every kiosk of
// the network, its sessions and its funds at each kiosk, beside what this
// kiosk holds of it (its funds here, prizes held here, its log). Accounts
// are opened, and limits, breaks and cards managed, at the central.

// askFleetPIN asks the player to type card c's PIN on the keypad; the
// account is then read from the central.
func (v *accountsView) askFleetPIN(c engine.Card) {
	var pin *pinTwice
	pin = newPinOnce(func(p string) {
		pin.pad.SetEnabled(false)
		v.lookUpFleet(c, p, func(err error) {
			pin.pad.SetEnabled(true)
			pin.say(deskError(err))
		})
	})
	cancel := widget.NewButtonWithIcon(lang.L("Cancel"), theme.CancelIcon(), v.back)
	note := wordy(lang.L("The account is read from the central: the player types the card's PIN (a wrong PIN counts towards locking the card at every kiosk)."))
	title := lang.L("Card {{.Card}}", map[string]any{"Card": c.Spaced()})
	v.setForm(container.NewBorder(container.NewVBox(heading(title), note), container.NewBorder(nil, nil, nil, cancel), nil, nil,
		container.NewCenter(container.New(minWidth(520), card(pin.content)))))
	v.pin = pin
}

// lookUpFleet reads card c's account from the central with its PIN, and
// this kiosk's part of it, and shows them; refused says why not.
func (v *accountsView) lookUpFleet(c engine.Card, pin string, refused func(error)) {
	actor := v.p.actor
	v.p.call(func(ctx context.Context) func() {
		f, err := v.d.FleetAccount(ctx, actor, c, pin)
		var s *shownAccount
		if err == nil {
			s, err = v.read(ctx, f.Account.Player, &f, true)
		}
		return func() {
			if err != nil {
				refused(err)
				return
			}
			v.present(s, true)
		}
	})
}

// fleetFacts are what the central says of the account beyond this kiosk:
// the exclusion list, its sessions at every kiosk, its funds at each (as
// the kiosks synced them).
func (v *accountsView) fleetFacts(s *shownAccount) fyne.CanvasObject {
	f := s.fleet
	var rows []fyne.CanvasObject
	// list adds a row per value, the label on the first ("none" if none).
	list := func(label string, values []string) {
		if len(values) == 0 {
			values = []string{lang.L("none")}
		}
		for i, val := range values {
			if i > 0 {
				label = ""
			}
			rows = append(rows, dimLabel(label), valueLabel(val))
		}
	}
	if f.Listed {
		rows = append(rows, dimLabel(lang.L("Exclusion list")),
			&canvas.Text{Text: lang.L("listed: no play"), Color: colRed, TextSize: 16, TextStyle: fyne.TextStyle{Bold: true}})
	}
	var sessions, funds []string
	for _, l := range f.Leases {
		// A lease lasts minutes: its end, today, in hours and minutes.
		line := lang.L("kiosk {{.Kiosk}}, until {{.Time}}", map[string]any{"Kiosk": l.Kiosk, "Time": l.Expires.Local().Format("15:04")})
		if l.Revoked != "" {
			line = lang.L("kiosk {{.Kiosk}}, ended by the central", map[string]any{"Kiosk": l.Kiosk})
		}
		sessions = append(sessions, line)
	}
	list(lang.L("Sessions"), sessions)
	for _, m := range f.Funds {
		funds = append(funds, lang.L("{{.Amount}} at kiosk {{.Kiosk}}", map[string]any{"Amount": money(m.Balance), "Kiosk": m.Kiosk}))
	}
	list(lang.L("Funds"), funds)
	return container.NewVBox(heading(lang.L("In the whole network (as synced)")), container.New(formLayout{gap: 4}, rows...))
}

// fleetLimitGrid is the account's limits over the whole network: each
// limit in force with what its window counts at every kiosk, over its
// amount (the central changes them).
func (v *accountsView) fleetLimitGrid(s *shownAccount) fyne.CanvasObject {
	return limitTable(func(k engine.LimitKey) fyne.CanvasObject {
		for _, u := range s.fleet.Usage {
			if u.Limit == k {
				c := colText
				if u.Used >= u.Max {
					c = colRed
				}
				used := &canvas.Text{Text: money(u.Used), Color: c, TextSize: 15, TextStyle: fyne.TextStyle{Bold: true}, Alignment: fyne.TextAlignCenter}
				of := &canvas.Text{Text: lang.L("of {{.Max}}", map[string]any{"Max": money(u.Max)}), Color: colDim, TextSize: 13, Alignment: fyne.TextAlignCenter}
				return container.NewVBox(used, of)
			}
		}
		return container.NewCenter(dimLabel(lang.L("none")))
	})
}
