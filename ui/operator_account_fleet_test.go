package ui_test

import (
	"context"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"starfortune/engine"
	"starfortune/ui"
)

// fleetDesk is the rig's kiosk as a kiosk of a fleet whose central holds
// account acct, read with the card's PIN. What the central counts is
// tested against a real PostgreSQL in central/ and e2e/; here, what the
// Accounts tab shows of it.
type fleetDesk struct {
	*engine.Service
	acct  engine.FleetAccount
	looks []string // who looked, for each look-up answered
}

func (g *fleetDesk) InFleet() bool { return true }

func (g *fleetDesk) FleetAccount(_ context.Context, actor string, c engine.Card, pin string) (engine.FleetAccount, error) {
	switch {
	case c != g.acct.Account.Card:
		return engine.FleetAccount{}, engine.ErrUnknownCard
	case pin != cardPIN:
		return engine.FleetAccount{}, &engine.PlayerPINError{Left: 4}
	}
	g.looks = append(g.looks, actor)
	return g.acct, nil
}

// An attendant at a fleet's kiosk reads an account from the central, the
// player typing the card's PIN on the keypad: a wrong PIN is said, the
// right one shows the limits used at every kiosk, the sessions and the
// funds at each kiosk, beside this kiosk's funds. Opening accounts and
// changing limits are the central's: the tab offers neither.
func TestFleetAccountLookedUpWithThePIN(t *testing.T) {
	r := newGame(t, engine.Protection{})
	here := openAccount(t, r.svc, "F1", engine.Limits{
		{Kind: engine.LimitDeposit, Window: engine.WindowWeek}: 10_000, {Kind: engine.LimitStake, Window: engine.WindowWeek}: 500}, 1_500)
	at := r.clock.Now()
	central := here
	central.Limits = engine.Limits{{Kind: engine.LimitDeposit, Window: engine.WindowWeek}: 10_000, {Kind: engine.LimitStake, Window: engine.WindowWeek}: 500}
	g := &fleetDesk{Service: r.svc, acct: engine.FleetAccount{Account: central,
		Usage: []engine.LimitUsage{
			{Limit: engine.LimitKey{Kind: engine.LimitDeposit, Window: engine.WindowWeek}, Max: 10_000, Used: 4_000},
			{Limit: engine.LimitKey{Kind: engine.LimitStake, Window: engine.WindowWeek}, Max: 500, Used: 500},
		},
		Leases: []engine.PlayerLease{{Kiosk: "k1", Expires: at.Add(12 * time.Minute)}},
		Funds:  []engine.KioskFunds{{Kiosk: "k1", Balance: 1_700}, {Kiosk: "k2", Balance: 1_500}},
	}}
	r.k = ui.NewOpening(test.NewTempApp(t), ui.Options{FleetRefresh: -1})
	t.Cleanup(r.k.Stop)
	r.k.Window().Resize(fyne.NewSize(1280, 800))
	r.k.Terminal().ServeAccounts(g)
	r.k.Wait()
	if err := r.svc.SetPIN(context.Background(), "cli", pin); err != nil {
		t.Fatal(err)
	}
	p := r.login(t)
	p.Select(ui.TabAccounts)
	r.k.Wait()
	if shows(r, "Ouvrir un compte") {
		t.Error("a fleet's kiosk offers to open an account")
	}
	p.LookUpCard(string(here.Card))
	r.k.Wait()
	if prompt, _ := p.CardPINPrompt(); prompt != "Le joueur tape le code de la carte" {
		t.Fatalf("the look-up asks %q", prompt)
	}
	p.TypeCardPIN("1357=")
	r.k.Wait()
	if _, msg := p.CardPINPrompt(); msg != "Code secret erroné. Essais restants : 4" {
		t.Fatalf("a wrong PIN: %q", msg)
	}
	p.TypeCardPIN(cardPIN + "=")
	r.k.Wait()
	for _, want := range []string{"Carte " + here.Card.Spaced(), "Sur tout le réseau", "sur 5,00 €", "40,00 €", "sur 100,00 €",
		"Disponibilités ici", "17,00 € au terminal k1", "15,00 € au terminal k2", "terminal k1, jusqu'à"} {
		if !shows(r, want) {
			t.Errorf("the fleet account does not show %q", want)
		}
	}
	if len(g.looks) != 1 || g.looks[0] != "operator" {
		t.Fatalf("look-ups answered: %q", g.looks)
	}
	test.AssertImageMatches(t, "operator-account-fleet.png", r.k.Window().Canvas().Capture())
}
