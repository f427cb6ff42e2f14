package ui_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"starfortune/engine"
	"starfortune/ui"
)

// fleetGame is the rig's kiosk as a kiosk of a fleet whose central answers
// the fleet view with view (or err). What the central counts is tested
// against a real PostgreSQL in central/; here, what the tab shows of it.
type fleetGame struct {
	*engine.Service
	view engine.FleetView
	err  error
}

func (g *fleetGame) InFleet() bool { return true }

func (g *fleetGame) FleetView(context.Context) (engine.FleetView, error) { return g.view, g.err }

var fleetAt = time.Date(2026, 12, 2, 14, 5, 0, 0, time.UTC)

// aFleet: k1 selling, k2 with a backlog, k3 silent for ten minutes.
func aFleet() engine.FleetView {
	return engine.FleetView{At: fleetAt,
		Kiosks: []engine.KioskView{
			{ID: "k1", LastSeen: fleetAt.Add(-2 * time.Second), Sales: 41_200,
				Held: []engine.HeldStake{{Stake: 50, Packs: 2, Left: 13_480}, {Stake: 100, Packs: 1, Left: 310}}},
			{ID: "k2", LastSeen: fleetAt.Add(-4 * time.Second), Backlog: 37, Sales: 39_950,
				Held: []engine.HeldStake{{Stake: 50, Packs: 1, Left: 2_050}}},
			{ID: "k3", LastSeen: fleetAt.Add(-12 * time.Minute), Backlog: 112, Sales: 8_004,
				Held: []engine.HeldStake{{Stake: 50, Packs: 1, Left: 9_000}}},
		},
		Stakes: []engine.StakeProgress{
			{Stake: 50, Blocks: 3, Closed: 1, Size: 3 * engine.BlockSize, HandedOut: 1_030_000, Sold: 988_630},
			{Stake: 100, Blocks: 2, Size: 2 * engine.BlockSize, HandedOut: 10_000, Sold: 900, Voided: 8_790},
		},
	}
}

func fleetRig(t *testing.T, view engine.FleetView, err error) (rig, *fleetGame) {
	t.Helper()
	var g *fleetGame
	// No refresh: its timer would apply a result in the test driver's
	// goroutine, beside the test's (the GL driver applies it on its thread).
	r := newRigAs(t, ui.Options{FleetRefresh: -1}, func(s *engine.Service) ui.Game {
		g = &fleetGame{Service: s, view: view, err: err}
		return g
	})
	if err := r.svc.SetPIN(context.Background(), "cli", pin); err != nil {
		t.Fatal(err)
	}
	return r, g
}

func TestGoldenOperatorFleet(t *testing.T) {
	r, _ := fleetRig(t, aFleet(), nil)
	p := r.login(t)
	p.Select(ui.TabFleet)
	r.k.Wait()
	for _, want := range []string{"Lu sur le central", "3 kiosques, 2 en ligne", "PERDU", "37 mouvements pas encore synchronisés à son dernier appel",
		"0,50 € : 13 480 unités restantes (carnets : 2)", "988 630 vendues sur 2 550 000", "Blocs clos : 1 sur 3"} {
		if !shows(r, want) {
			t.Errorf("the Fleet tab does not show %q", want)
		}
	}
	test.AssertImageMatches(t, "operator-fleet.png", r.k.Window().Canvas().Capture())
}

// A lone kiosk has its Blocks tab and no Fleet tab; a kiosk of a fleet,
// whose blocks are the central's, the other way round.
func TestFleetTabInPlaceOfBlocks(t *testing.T) {
	r, _ := newOperatorRig(t, ui.Options{})
	p := r.login(t)
	p.Select(ui.TabFleet)
	r.k.Wait()
	if p.HasTab(ui.TabFleet) || !p.HasTab(ui.TabBlocks) || shows(r, "Lu sur le central") {
		t.Fatal("a lone kiosk shows a Fleet tab, or no Blocks tab")
	}
	r, _ = fleetRig(t, aFleet(), nil)
	if p = r.login(t); !p.HasTab(ui.TabFleet) || p.HasTab(ui.TabBlocks) {
		t.Fatal("a kiosk of a fleet shows a Blocks tab, or no Fleet tab")
	}
}

// A central out of reach is said on the tab; the panel goes on.
func TestFleetTabCentralUnreachable(t *testing.T) {
	r, _ := fleetRig(t, engine.FleetView{}, errors.Join(engine.ErrCentralUnavailable, errors.New("dial unix /run/pg: connect: no such file")))
	p := r.login(t)
	p.Select(ui.TabFleet)
	r.k.Wait()
	if !shows(r, "Le central n'a pas pu être lu") {
		t.Fatal("no word of the unreachable central")
	}
	sales, err := r.svc.Sell(context.Background(), engine.SellRequest{Player: engine.DemoPlayer, Stake: 100, Count: 1, Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	p.FleetTicket(sales[0].Ticket.String())
	r.k.Wait()
	if f := p.Found(); f == nil || f.Ticket != sales[0].Ticket {
		t.Fatalf("the Ticket tab no longer finds a unit sold here: %v", f)
	}
}

// The tab's ticket look-up hands the ticket to the Ticket tab, which finds
// the unit (here sold by this kiosk; one sold elsewhere is found through
// the central, see TestFleetKioskOfflineThenSync in the main package).
func TestFleetTabTicketLookup(t *testing.T) {
	r, _ := fleetRig(t, aFleet(), nil)
	sales, err := r.svc.Sell(context.Background(), engine.SellRequest{Player: engine.DemoPlayer, Stake: 100, Count: 1, Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	p := r.login(t)
	p.Select(ui.TabFleet)
	r.k.Wait()
	p.FleetTicket(sales[0].Ticket.String())
	r.k.Wait()
	if f := p.Found(); f == nil || f.Ticket != sales[0].Ticket {
		t.Fatalf("found %v, want %s", f, sales[0].Ticket)
	}
}
