package engine

import (
	"fmt"
	"slices"
	"time"
)

// Protection is how the kiosk protects players (SPEC §10): the settings
// operators may tune, each within bounds.
type Protection struct {
	// RealityCheck is how often play pauses on the session's figures.
	RealityCheck time.Duration
	// PayoutThreshold: a unit's prize at or above it is set aside for
	// payout: payable, never staked again.
	PayoutThreshold Cents
	// HandpayThreshold: a unit's prize at or above it is held until an
	// attendant checks the holder's identity and pays it; play is locked
	// meanwhile.
	HandpayThreshold Cents
	// IdleLogout is how long the window waits without a touch before it
	// ends the session.
	IdleLogout time.Duration
	// CoolingOff is how long an increase or a removal of a limit waits.
	CoolingOff time.Duration
	// PINTries is how many wrong card PINs in a row lock the card.
	PINTries int
}

// MinCoolingOff is the shortest cooling-off operators may set.
const MinCoolingOff = 24 * time.Hour

// DefaultProtection is SPEC §10's: a reality check every hour, prizes of
// 1 000 € and more set aside, of 2 000 € and more paid by hand, idle logout
// after 3 minutes, 48 hours of cooling-off, 5 PIN tries.
func DefaultProtection() Protection {
	return Protection{RealityCheck: time.Hour, PayoutThreshold: 100_000, HandpayThreshold: 200_000,
		IdleLogout: 3 * time.Minute, CoolingOff: 48 * time.Hour, PINTries: 5}
}

// Check refuses settings that would not protect anyone.
func (p Protection) Check() error {
	switch {
	case p.RealityCheck < time.Minute || p.RealityCheck > 4*time.Hour:
		return fmt.Errorf("%w: reality_check %s (1 minute to 4 hours)", ErrProtection, p.RealityCheck)
	case p.HandpayThreshold <= 0 || p.HandpayThreshold > 200_000:
		return fmt.Errorf("%w: handpay_threshold %s (at most 2000.00: identity is required from 2 000 €)", ErrProtection, p.HandpayThreshold)
	case p.PayoutThreshold <= 0 || p.PayoutThreshold > p.HandpayThreshold:
		return fmt.Errorf("%w: payout_threshold %s (more than 0, at most the hand-pay threshold %s)", ErrProtection, p.PayoutThreshold, p.HandpayThreshold)
	case p.IdleLogout < 30*time.Second || p.IdleLogout > 30*time.Minute:
		return fmt.Errorf("%w: idle_logout %s (30 seconds to 30 minutes)", ErrProtection, p.IdleLogout)
	case p.CoolingOff < MinCoolingOff || p.CoolingOff > 30*24*time.Hour:
		return fmt.Errorf("%w: cooling_off %s (24 hours to 30 days)", ErrProtection, p.CoolingOff)
	case p.PINTries < 3 || p.PINTries > 10:
		return fmt.Errorf("%w: %d PIN tries (3 to 10)", ErrProtection, p.PINTries)
	}
	return nil
}

// guard is a sale's or a movement's protection step on one account,
// inside its transaction: it refuses what would break a protection, counts
// what passes, and writes the account (and the records of what it decided)
// with the rest. A nil guard protects nothing: the demo wallet, and the
// kiosks of a fleet, whose accounts are the central's (not yet built).
type guard struct {
	acct Account
	p    Protection
	t    time.Time // the account's time
	log  accountLog
	// fleet: the account is a fleet's, whose limits the central keeps:
	// the session's lease (nil: none in service) bounds what it moves,
	// one of the kiosk's leases (fleet_leases.go).
	fleet bool
	lease *heldLease
}

// guardFor reads the account the wallet w belongs to, for a change at now
// in tx. The demo wallet gets none; any other needs an account (on a
// fleet's kiosk, a fleet account whose holder logged in there).
func guardFor(tx *journalTx, w Wallet, fleet bool, p Protection, now time.Time) (*guard, error) {
	if w.Player == DemoPlayer {
		return nil, nil
	}
	g, ok, err := openGuard(tx, w.Player, p, now)
	switch {
	case err != nil:
		return nil, err
	case fleet && ok:
		return g, leaseGuard(tx, g)
	case !ok && w.Seq > 0:
		return nil, fmt.Errorf("%w: wallet %s", ErrAccountIncomplete, w.Player)
	case !ok:
		return nil, fmt.Errorf("%w: %s", ErrNoAccount, w.Player)
	}
	return g, nil
}

// openGuard reads player's account in tx for a change at now: the account
// at its own time, the pending limits due made the limits in force; ok is
// false when the player has no account.
func openGuard(tx *journalTx, player string, p Protection, now time.Time) (g *guard, ok bool, err error) {
	a, ok, err := readAccount(tx, player)
	if err != nil || !ok {
		return nil, ok, err
	}
	g = &guard{acct: a, p: p, log: accountLog{tx: tx}}
	g.t = g.acct.at(now)
	g.acct.settle(g.t)
	return g, true, nil
}

// mayUse refuses an account that may not play or deposit now: not
// completed, on a break, its holder listed.
func (g *guard) mayUse(tx ReadTx) error {
	if err := g.mayOpen(); err != nil {
		return err
	}
	a := g.acct
	if l, err := listed(tx, a.Identity.Key()); err != nil || l {
		if err == nil {
			err = fmt.Errorf("%w: account %s", ErrListed, a.Card.Spaced())
		}
		return err
	}
	return nil
}

// mayOpen refuses an account not completed or on a break.
func (g *guard) mayOpen() error {
	a := g.acct
	if !a.Complete {
		return fmt.Errorf("%w: wallet %s", ErrAccountIncomplete, a.Player)
	}
	if a.Break.Active(g.t) {
		return &ExcludedError{Break: a.Break}
	}
	return nil
}

// mayPlay adds to mayOpen what a sale needs: an open session, its reality
// check acknowledged, no prize held. The exclusion list is not read again:
// a session opens only for a holder not listed, and listing a holder ends
// their session in the same transaction (Accounts.ImportExclusions).
func (g *guard) mayPlay() error {
	if err := g.mayOpen(); err != nil {
		return err
	}
	a := g.acct
	switch {
	case len(a.Held) > 0:
		return &HeldError{Held: a.Held}
	case !a.Session.Open:
		return ErrNoSession
	case g.realityDue():
		return &RealityCheckError{Session: a.Session}
	}
	return nil
}

func (g *guard) realityDue() bool {
	return g.acct.Session.Open && !g.t.Before(g.acct.Session.Due)
}

// within refuses amount if it would take any limit of kinds beyond its
// amount in force.
func (g *guard) within(amount Cents, kinds ...LimitKind) error {
	if g.fleet {
		return g.inLease(amount, kinds...)
	}
	for _, k := range LimitKeys {
		if !slices.Contains(kinds, k.Kind) {
			continue
		}
		max, ok := g.acct.Limit(k, g.t)
		if !ok {
			continue
		}
		if used := g.acct.usage.used(k, g.t); used+amount > max {
			return &LimitError{Limit: k, Max: max, Used: used, Amount: amount, Frees: g.acct.usage.frees(k, g.t, max, amount)}
		}
	}
	return nil
}

// stakeable is what of balance may be staked: not what is set aside or held.
func (g *guard) stakeable(balance Cents) Cents {
	if g == nil {
		return balance
	}
	return balance - g.acct.SetAside - g.acct.HeldTotal()
}

// allow refuses the next unit at stake from balance: funds, then limits.
func (g *guard) allow(balance, stake Cents) error {
	if have := g.stakeable(balance); have < stake {
		return fmt.Errorf("%w: stakeable %s, stake %s", ErrInsufficientFunds, have, stake)
	}
	if g == nil {
		return nil
	}
	if len(g.acct.Held) > 0 { // a batch stops at a held prize
		return &HeldError{Held: g.acct.Held}
	}
	return g.within(stake, LimitStake, LimitLoss)
}

// sold counts a unit sold and sets its prize aside or holds it.
func (g *guard) sold(t Ticket, stake, prize Cents) error {
	if g == nil {
		return nil
	}
	a := &g.acct
	a.usage.add(g.t, 0, stake, prize)
	if g.lease != nil {
		a.use.Used[LimitStake] += stake
		a.use.Used[LimitLoss] += stake
	}
	a.Session.Staked += stake
	a.Session.Won += prize
	switch {
	case prize >= g.p.HandpayThreshold:
		a.Held = append(a.Held, HeldPrize{Ticket: t, Prize: prize})
		_, err := g.log.append(AccountRecord{Time: g.t, Kind: AccHeld, Player: a.Player, Actor: "kiosk", Ticket: t, Amount: prize})
		return err
	case prize >= g.p.PayoutThreshold:
		a.SetAside += prize
		_, err := g.log.append(AccountRecord{Time: g.t, Kind: AccSetAside, Player: a.Player, Actor: "kiosk", Ticket: t, Amount: prize})
		return err
	}
	return nil
}

// deposited counts a credit.
func (g *guard) deposited(amount Cents) {
	if g != nil {
		g.acct.usage.add(g.t, amount, 0, 0)
		if g.lease != nil {
			g.acct.use.Used[LimitDeposit] += amount
		}
	}
}

// paid keeps what is set aside within what is left after a payout.
func (g *guard) paid(balance Cents) {
	if g != nil {
		g.acct.SetAside = max(0, min(g.acct.SetAside, balance-g.acct.HeldTotal()))
	}
}

// keep writes back what a sale or a movement changed of the account (the
// limits a cooling-off made due are applied anew at each read).
func (g *guard) keep(tx Tx) error {
	if g == nil {
		return nil
	}
	return putPlay(tx, g.acct)
}

// time is when the change happens: the account's time, or now without one.
func (g *guard) time(now time.Time) time.Time {
	if g == nil {
		return now
	}
	return g.t
}

// held is what the account holds for an attendant.
func (g *guard) held() Cents {
	if g == nil {
		return 0
	}
	return g.acct.HeldTotal()
}
