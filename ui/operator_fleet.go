package ui

import (
	"context"
	"image/color"
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
)

// fleetView is the Fleet tab of a kiosk of a fleet: each stake's emission
// sold across the fleet as a chart, every kiosk with its last call to the
// central (online or not), what it has not synced yet and the packs it
// holds, and a ticket look-up that finds a unit whichever kiosk sold it.
// Counts only, as the central gives them: nothing tells what a block in
// play has left to win.
type fleetView struct {
	p       *OperatorPanel
	read    *canvas.Text
	stakes  *fyne.Container
	kiosks  *fyne.Container
	body    *fyne.Container
	ticket  *widget.Entry
	view    engine.FleetView
	timer   *time.Timer // the next refresh while the tab is shown (Options.FleetRefresh)
	content fyne.CanvasObject
}

func newFleetView(p *OperatorPanel) *fleetView {
	v := &fleetView{p: p, read: statusText(), stakes: container.NewVBox(), kiosks: container.NewVBox()}
	refresh := widget.NewButtonWithIcon(lang.L("Refresh"), theme.ViewRefreshIcon(), v.load)
	top := container.NewBorder(nil, nil, heading(lang.L("Fleet")), refresh)
	v.ticket = widget.NewEntry()
	v.ticket.SetPlaceHolder("EE-SSS-BBBB-IIIIII-C")
	v.ticket.OnSubmitted = func(string) { v.lookUp() }
	find := widget.NewButtonWithIcon(lang.L("Look up"), theme.SearchIcon(), v.lookUp)
	lookup := container.NewBorder(dimLabel(lang.L("A ticket sold by any kiosk of the fleet")), nil, nil, find, v.ticket)
	v.body = container.NewVBox(v.read, heading(lang.L("Emission per stake, whole fleet")), v.stakes,
		heading(lang.L("Kiosks")), v.kiosks, lookup)
	v.content = container.NewBorder(top, nil, nil, nil, container.NewVScroll(v.body))
	return v
}

// shown loads the tab and keeps it fresh until hidden.
func (v *fleetView) shown() {
	v.load()
	v.schedule()
}

func (v *fleetView) schedule() {
	v.hidden()
	every := v.p.k.opts.FleetRefresh
	if every < 0 {
		return
	}
	v.timer = time.AfterFunc(every, func() {
		fyne.Do(func() {
			// One UI change at a time, as Kiosk.call applies its results.
			v.p.k.applying.Lock()
			defer v.p.k.applying.Unlock()
			if v.timer != nil && v.p.k.oper.panel == v.p && v.p.tabs.Selected() == v.p.tab(TabFleet) {
				v.shown()
			}
		})
	})
}

// hidden stops the refreshes (another tab, or the panel closed).
func (v *fleetView) hidden() {
	if v.timer != nil {
		v.timer.Stop()
		v.timer = nil
	}
}

func (v *fleetView) load() {
	v.p.call(func(ctx context.Context) func() {
		fv, err := v.p.op.FleetView(ctx)
		return func() {
			if err != nil {
				setStatus(v.read, lang.L("The central could not be read: {{.Err}}", map[string]any{"Err": err.Error()}), colRed)
				return
			}
			v.show(fv)
		}
	})
}

func (v *fleetView) show(fv engine.FleetView) {
	v.view = fv
	online := 0
	for _, k := range fv.Kiosks {
		if k.Online(fv.At) {
			online++
		}
	}
	setStatus(v.read, lang.L("Read from the central on {{.Time}}: {{.Kiosks}} kiosks, {{.Online}} online",
		map[string]any{"Time": when(fv.At), "Kiosks": len(fv.Kiosks), "Online": online}), colDim)
	v.stakes.Objects = nil
	for _, stake := range engine.Stakes {
		var sp *engine.StakeProgress
		for i := range fv.Stakes {
			if fv.Stakes[i].Stake == stake {
				sp = &fv.Stakes[i]
			}
		}
		v.stakes.Add(stakeProgressCard(stake, sp))
	}
	v.kiosks.Objects = nil
	for _, k := range fv.Kiosks {
		v.kiosks.Add(kioskLine(k, fv.At))
	}
	if len(fv.Kiosks) == 0 {
		v.kiosks.Add(dimLabel(lang.L("No kiosk is registered at the central")))
	}
	v.body.Refresh()
}

// lookUp hands the ticket to the Ticket tab, which asks the central when
// the unit was not sold here and can replay it.
func (v *fleetView) lookUp() {
	v.p.ticket.ticket.SetText(strings.TrimSpace(v.ticket.Text))
	v.p.Select(TabTicket)
	v.p.ticket.lookUp()
}

// stakeProgressCard charts one stake's emission: the bar is the units sold,
// the mark how far the blocks are cut into packs. The cards stand one
// under the other, each across the panel: three side by side would not
// fit a portrait screen.
func stakeProgressCard(stake engine.Cents, sp *engine.StakeProgress) fyne.CanvasObject {
	title := &canvas.Text{Text: lang.L("Stake {{.Amount}}", amount(stake)), Color: colGold, TextSize: 22, TextStyle: fyne.TextStyle{Bold: true}}
	if sp == nil || sp.Size == 0 {
		return card(container.NewVBox(title, valueLabel(lang.L("No emission at this stake"))))
	}
	frac := func(n uint64) float64 { return float64(n) / float64(sp.Size) }
	sold := newGauge(frac(sp.Sold), frac(sp.HandedOut), colGold, lang.L("{{.Sold}} of {{.Size}} sold ({{.Percent}})",
		map[string]any{"Sold": group(int(sp.Sold)), "Size": group(int(sp.Size)), "Percent": percent(frac(sp.Sold))}))
	return card(container.NewVBox(title,
		dimLabel(lang.L("Blocks closed: {{.Closed}} of {{.Blocks}}", map[string]any{"Closed": sp.Closed, "Blocks": sp.Blocks})),
		sold,
		dimLabel(lang.L("{{.Out}} handed out in packs (mark) · {{.Voided}} voided",
			map[string]any{"Out": group(int(sp.HandedOut)), "Voided": group(int(sp.Voided))})),
	))
}

// kioskLine is one kiosk: online or not, its last call, its backlog, what
// it holds per stake.
func kioskLine(k engine.KioskView, at time.Time) fyne.CanvasObject {
	var state string
	var c color.Color
	switch k.Status(at) {
	case engine.KioskOnline:
		state, c = lang.L("online"), colGreen
	case engine.KioskLate:
		state, c = lang.L("late"), colGold
	case engine.KioskLost:
		state, c = lang.L("LOST"), colRed
	default:
		state, c = lang.L("OFFLINE"), colRed
	}
	seen := lang.L("never seen")
	if !k.LastSeen.IsZero() {
		seen = lang.L("last call on {{.Time}}", map[string]any{"Time": when(k.LastSeen)})
	}
	dot := &canvas.Circle{FillColor: c}
	name := &canvas.Text{Text: k.ID, Color: colText, TextSize: 18, TextStyle: fyne.TextStyle{Bold: true}}
	line1 := container.NewHBox(container.NewCenter(container.NewGridWrap(fyne.NewSize(14, 14), dot)), name,
		&canvas.Text{Text: state, Color: c, TextSize: 15, TextStyle: fyne.TextStyle{Bold: true}},
		dimLabel(seen))
	backlog := lang.L("in sync")
	bc := colDim
	if k.Backlog > 0 {
		backlog, bc = lang.L("{{.N}} movements not yet synced at its last call", map[string]any{"N": group(k.Backlog)}), colGold
	}
	lines := container.NewVBox(line1, &canvas.Text{Text: backlog, Color: bc, TextSize: 14})
	text := func(s string) { lines.Add(&canvas.Text{Text: s, Color: colText, TextSize: 14}) }
	text(lang.L("units sold: {{.N}}", map[string]any{"N": group(int(k.Sales))}))
	// A line per stake, not one for all: the panel fits a portrait screen
	// or half a landscape one.
	for _, h := range k.Held {
		text(lang.L("{{.Stake}}: {{.Left}} units left (packs: {{.Packs}})",
			map[string]any{"Stake": money(h.Stake), "Packs": h.Packs, "Left": group(int(h.Left))}))
	}
	if len(k.Held) == 0 {
		text(lang.L("no pack held"))
	}
	bg := &canvas.Rectangle{FillColor: colPanel, CornerRadius: 8}
	return container.NewStack(bg, container.New(layout.NewCustomPaddedLayout(4, 4, 8, 8), lines))
}
