package central_test

import (
	"fmt"
	"testing"
	"time"

	"starfortune/central"
	"starfortune/engine"
)

// The fleet's register of hand pays (#31, migrations/0008): a held
// prize's payout brings how it was paid; the central keeps it only for
// the payout of a prize the same kiosk sold to the same player, as the
// central's own sale says.

// till sells chosen units of one pack of its kiosk, numbering the sales.
type till struct {
	f   *fleet
	k   string
	p   engine.Pack
	seq uint64
}

func (f *fleet) till(t *testing.T, k string) *till { return &till{f: f, k: k, p: f.claim(t, k)} }

// units are the first n positions of the till's pack whose prize is in
// [least, below).
func (tl *till) units(t *testing.T, least, below engine.Cents, n int) []uint32 {
	t.Helper()
	var out []uint32
	for i := uint32(0); i < tl.p.Count() && len(out) < n; i++ {
		if u, _ := tl.p.Unit(i); u.Prize(50) >= least && u.Prize(50) < below {
			out = append(out, i)
		}
	}
	if len(out) < n {
		t.Fatalf("pack %s has %d units with a prize in [%s, %s), want %d", tl.p.Serial, len(out), least, below, n)
	}
	return out
}

// sale sells unit i to player and pushes the sale (its movement is the
// test's to push).
func (tl *till) sale(t *testing.T, i uint32, player string) engine.FleetSale {
	t.Helper()
	tl.seq++
	s := sell(t, tl.p, i, 1, tl.seq, player)
	if r := push(t, tl.f.kiosks[tl.k], s); r.Applied != 1 {
		t.Fatalf("sale of unit %d at %s: %+v", i, tl.k, r)
	}
	return s[0]
}

// saleMove is the sale movement of s.
func saleMove(s engine.FleetSale) engine.FleetMovement { return ledger([]engine.FleetSale{s}, 0)[0] }

func prizeOf(s engine.FleetSale) engine.Cents { return s.Unit.Prize(s.Ticket.Block.Stake) }

// handPay is the payout by hand of s's ticket: amount paid, h the facts.
func handPay(s engine.FleetSale, amount engine.Cents, h engine.HandPay) engine.FleetMovement {
	tk := s.Ticket
	return engine.FleetMovement{Player: s.Player, Kind: engine.LedgerPayout, Debit: amount, Ticket: &tk, Time: s.Time.Add(time.Second), Hand: &h}
}

var paid = engine.HandPay{Document: "CNI X4RTBPFW4", CheckedBy: "agent-1", PaidBy: "agent-2", Method: "virement", Reference: "VIR-2026-118"}

// registerOf is the central's register from 1 €, by ticket.
func (f *fleet) registerOf(t *testing.T) map[engine.Ticket]central.RegisterEntry {
	t.Helper()
	reg, err := f.admin.Register(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	out := map[engine.Ticket]central.RegisterEntry{}
	for _, e := range reg {
		tk, err := engine.ParseTicket(e.Ticket)
		if err != nil {
			t.Fatal(err)
		}
		out[tk] = e
	}
	return out
}

// A held prize's sale and its hand pay, pushed together or one push after
// the other, reach the register with how the prize was paid; a prize not
// paid yet is listed without; a hand pay pushed again is a duplicate.
func TestHandPaysReachTheRegister(t *testing.T) {
	f := newFleet(t, 1, 1000, "k1")
	f.set(t, "handpay_threshold_cents = 100")
	ann := string(f.openPlayer(t, "HP1", 100000, 100000, nil).Card)
	k1, mv := f.till(t, "k1"), f.movements()
	big := k1.units(t, 100, engine.MaxAmount, 3)

	together := k1.sale(t, big[0], ann)
	if r := mv.push(t, "k1", saleMove(together), handPay(together, prizeOf(together), paid)); r.Applied != 2 || r.Conflicts != 0 {
		t.Fatalf("a sale and its hand pay in one push: %+v", r)
	}
	apart := k1.sale(t, big[1], ann)
	mv.push(t, "k1", saleMove(apart))
	pay := []engine.FleetMovement{handPay(apart, prizeOf(apart), paid)} // numbered by the push
	if r := mv.push(t, "k1", pay...); r.Applied != 1 || r.Conflicts != 0 {
		t.Fatalf("a hand pay after its sale: %+v", r)
	}
	if r, err := f.kiosks["k1"].PushMovements(ctx, pay); err != nil || r.Duplicates != 1 {
		t.Fatalf("the hand pay pushed again: %+v %v", r, err)
	}
	unpaid := k1.sale(t, big[2], ann)
	mv.push(t, "k1", saleMove(unpaid))

	reg := f.registerOf(t)
	if len(reg) != 3 {
		t.Fatalf("register: %+v", reg)
	}
	for _, s := range []engine.FleetSale{together, apart} {
		e := reg[s.Ticket]
		if e.HandPay == nil || e.HandPay.HandPay != paid || !e.HandPay.Time.Equal(s.Time.Add(time.Second)) || e.Holder != "Ann HP1" ||
			e.PrizeCents != prizeOf(s) {
			t.Fatalf("register line of %s: %+v, hand pay %+v", s.Ticket, e, e.HandPay)
		}
	}
	if e := reg[unpaid.Ticket]; e.HandPay != nil {
		t.Fatalf("a prize not paid yet is listed paid: %+v", e.HandPay)
	}
}

// A kiosk's credentials are not enough to record a hand pay: one on a
// movement that is not a payout, without the document or the method, of
// a prize below the hand-pay threshold, of a ticket another kiosk sold or
// sold to another player, of another amount than the prize, of a prize
// the kiosk's sale movement inflated, or of a prize paid by hand already
// (before, or earlier in the same push) is refused as a conflict, and
// listed by the audit with its reason.
func TestForgedHandPaysAreRefused(t *testing.T) {
	f := newFleet(t, 1, 1000, "k1", "k2")
	f.set(t, "handpay_threshold_cents = 100")
	k1, k2, mv := f.till(t, "k1"), f.till(t, "k2"), f.movements()
	big := k1.units(t, 200, engine.MaxAmount, 4) // a prize less 1 cent is still at the threshold
	sold := func(tl *till, i uint32, player string) engine.FleetSale {
		s := tl.sale(t, i, player)
		mv.push(t, tl.k, saleMove(s))
		return s
	}
	mine := sold(k1, big[0], "ann")
	bobs := sold(k1, big[1], "bob")
	elsewhere := sold(k2, k2.units(t, 100, engine.MaxAmount, 1)[0], "ann")
	small := sold(k1, k1.units(t, 1, 100, 1)[0], "ann")
	// The kiosk's sale movement says the prize is larger than the unit's.
	inflated := k1.sale(t, big[2], "ann")
	forged := saleMove(inflated)
	forged.Credit += 5000
	mv.push(t, "k1", forged)

	credit := engine.FleetMovement{Player: "ann", Kind: engine.LedgerCredit, Credit: prizeOf(mine), Time: mine.Time, Hand: &paid}
	noDocument, noMethod := paid, paid
	noDocument.Document, noMethod.Method = " ", ""
	othersTicket := handPay(bobs, prizeOf(bobs), paid)
	othersTicket.Player = "ann"
	cases := []struct {
		name, reason string
		m            engine.FleetMovement
	}{
		{"a hand pay on a credit", "not a payout", credit},
		{"without the document seen", "without the document seen or the method", handPay(mine, prizeOf(mine), noDocument)},
		{"without the method", "without the document seen or the method", handPay(mine, prizeOf(mine), noMethod)},
		{"below the threshold", "below the hand-pay threshold", handPay(small, prizeOf(small), paid)},
		{"a ticket another kiosk sold", "not the payout of a prize this kiosk sold to this player", handPay(elsewhere, prizeOf(elsewhere), paid)},
		{"another player's ticket", "not the payout of a prize this kiosk sold to this player", othersTicket},
		{"more than the prize", "not the payout of a prize this kiosk sold to this player", handPay(mine, prizeOf(mine)+1, paid)},
		{"less than the prize", "not the payout of a prize this kiosk sold to this player", handPay(mine, prizeOf(mine)-1, paid)},
		{"a prize the kiosk inflated", "not the payout of a prize this kiosk sold to this player", handPay(inflated, forged.Credit, paid)},
	}
	seqs := make([]uint64, len(cases))
	for i, c := range cases {
		if r := mv.push(t, "k1", c.m); r.Applied != 0 || r.Conflicts != 1 {
			t.Fatalf("%s: %+v, want a conflict", c.name, r)
		}
		seqs[i] = mv.seq["k1"]
	}
	if r := mv.push(t, "k1", handPay(mine, prizeOf(mine), paid)); r.Applied != 1 {
		t.Fatalf("the genuine hand pay: %+v", r)
	}
	if r := mv.push(t, "k1", handPay(mine, prizeOf(mine), paid)); r.Applied != 0 || r.Conflicts != 1 {
		t.Fatalf("the prize paid by hand again: %+v, want a conflict", r)
	}
	twice := mv.seq["k1"]
	last := k1.sale(t, big[3], "ann")
	if r := mv.push(t, "k1", saleMove(last), handPay(last, prizeOf(last), paid), handPay(last, prizeOf(last), paid)); r.Applied != 2 || r.Conflicts != 1 {
		t.Fatalf("a prize paid by hand twice in one push: %+v, want the second refused", r)
	}

	rep := f.audit(t)
	for i, c := range cases {
		if !hasFinding(rep, fmt.Sprintf("kiosk k1: movement %d: ", seqs[i]), c.reason) {
			t.Errorf("%s: no finding with %q in %q", c.name, c.reason, rep.Findings)
		}
	}
	for _, seq := range []uint64{twice, mv.seq["k1"]} {
		if !hasFinding(rep, fmt.Sprintf("kiosk k1: movement %d: ", seq), "paid by hand twice") {
			t.Errorf("movement %d: no finding of a prize paid twice in %q", seq, rep.Findings)
		}
	}
	reg := f.registerOf(t)
	for _, s := range []engine.FleetSale{bobs, elsewhere, inflated} {
		if h := reg[s.Ticket].HandPay; h != nil {
			t.Errorf("%s is listed paid by hand after refusals: %+v", s.Ticket, h)
		}
	}
	for _, s := range []engine.FleetSale{mine, last} {
		if h := reg[s.Ticket].HandPay; h == nil || h.HandPay != paid {
			t.Errorf("%s: hand pay %+v", s.Ticket, h)
		}
	}
}
