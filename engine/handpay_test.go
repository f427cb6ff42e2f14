package engine_test

import (
	"encoding/hex"
	"reflect"
	"testing"

	"starfortune/engine"
)

// A held prize keeps the document seen and who checked it; bytes written
// before they were kept still decode: a prize not checked and one checked
// (without its document), and a prize not checked is written as before.
func TestHeldPrizeEncoding(t *testing.T) {
	tk := engine.Ticket{Block: engine.BlockRef{Emission: 1, Stake: 200, Number: 3}, Index: 412}
	// An account's play with one prize of 2 500,00 € held, written before
	// the document was kept: its identity not checked, then checked.
	const before = "010118c18c794b70280018c19305ace1680000000000000004b0000000000003d220000000000000000001000100c8000000030000019c000000000003d090"
	const after = "18c18fbf7c28c80000000000"
	for checked, old := range []string{before + "00" + after, before + "01" + after} {
		b, _ := hex.DecodeString(old)
		a, err := engine.DecodePlay(b)
		want := []engine.HeldPrize{{Ticket: tk, Prize: 250_000, IdentityChecked: checked == 1}}
		if err != nil || !reflect.DeepEqual(a.Held, want) || a.Session.Staked != 1200 {
			t.Fatalf("play written before documents were kept (checked %v): %+v %v", checked == 1, a, err)
		}
		if checked == 0 && hex.EncodeToString(engine.EncodePlay(a)) != old {
			t.Fatalf("a prize not checked is written otherwise: %x", engine.EncodePlay(a))
		}
		a.Held[0] = engine.HeldPrize{Ticket: tk, Prize: 250_000, IdentityChecked: true, Document: "CNI X4RTBPFW4", CheckedBy: "agent-1"}
		got, err := engine.DecodePlay(engine.EncodePlay(a))
		if err != nil || !reflect.DeepEqual(got.Held, a.Held) || !got.Clock.Equal(a.Clock) {
			t.Fatalf("a prize checked, with its document: %+v %v", got.Held, err)
		}
	}
}

// An outbox entry carries a hand pay's facts after its lease; entries
// written before them, with a lease or without, still decode, and an entry
// without a hand pay is written as before.
func TestOutEntryEncoding(t *testing.T) {
	for _, c := range []struct {
		old   string
		lease int64
	}{
		{"010a3030303030303030313300000000000000070000000000000000", 0},
		{"010a3030303030303030313300000000000000070000000000000000000000000000002a", 42},
	} {
		b, _ := hex.DecodeString(c.old)
		o, err := engine.DecodeOutEntry(b)
		if err != nil || o != (engine.OutEntry{Player: "0000000013", Ledger: 7, Lease: c.lease}) {
			t.Fatalf("an entry written before hand pays: %+v %v", o, err)
		}
		if hex.EncodeToString(o.Encode()) != c.old {
			t.Fatalf("an entry without a hand pay is written otherwise: %x", o.Encode())
		}
		o.Hand = &engine.HandPay{Document: "CNI X4RTBPFW4", CheckedBy: "agent-1", Method: "virement", Reference: "VIR-1"}
		got, err := engine.DecodeOutEntry(o.Encode())
		if err != nil || got.Hand == nil || *got.Hand != *o.Hand || got.Lease != c.lease || got.Ledger != 7 {
			t.Fatalf("an entry with a hand pay, lease %d: %+v %v", c.lease, got, err)
		}
	}
}

// A held prize paid by hand at a fleet's kiosk is pushed as a payout of
// its ticket carrying the register's facts: the document seen, who
// checked it, who paid it, the method and the reference; no other
// movement carries any.
func TestFleetHandPayIsPushedWithItsFacts(t *testing.T) {
	mem := newMemCentral()
	card := engine.NewCard(3)
	mem.open(card, "2580", 10_000)
	p := engine.DefaultProtection()
	p.PayoutThreshold, p.HandpayThreshold = 100, 100 // 1 € paid by hand
	s := protectedFleetKiosk(t, mem, p)
	a, err := s.OpenSession(ctx, card, "2580")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.OperatorCredit(ctx, "operator", a.Player, 1000); err != nil {
		t.Fatal(err)
	}
	won := prizeAt(t, s, a.Player, 50, 100)
	if b, err := s.ByCard(ctx, card); err != nil || b.Player != a.Player { // the attendant finds the account by its card
		t.Fatalf("the account by its card: %+v %v", b, err)
	}
	acct, err := s.CheckIdentity(ctx, "agent-1", a.Player, won.Ticket, " CNI X4RTBPFW4 ")
	if err != nil || len(acct.Held) != 1 || acct.Held[0].Document != "CNI X4RTBPFW4" || acct.Held[0].CheckedBy != "agent-1" {
		t.Fatalf("identity checked: %+v %v", acct.Held, err)
	}
	if _, err := s.PayHeld(ctx, "agent-2", a.Player, won.Ticket, "virement", "VIR-1"); err != nil {
		t.Fatal(err)
	}
	var pay engine.FleetMovement
	eventually(t, "the hand pay pushed", func() bool {
		mem.mu.Lock()
		defer mem.mu.Unlock()
		for _, m := range mem.moves {
			if m.Kind == engine.LedgerPayout {
				pay = m
				return true
			}
		}
		return false
	})
	want := engine.HandPay{Document: "CNI X4RTBPFW4", CheckedBy: "agent-1", PaidBy: "agent-2", Method: "virement", Reference: "VIR-1"}
	if pay.Hand == nil || *pay.Hand != want || pay.Ticket == nil || *pay.Ticket != won.Ticket || pay.Debit != won.Prize() {
		t.Fatalf("the hand pay pushed: %+v, hand %+v", pay, pay.Hand)
	}
	mem.mu.Lock()
	for _, m := range mem.moves {
		if m.Hand != nil && m.Seq != pay.Seq {
			t.Errorf("movement %d (%s) carries a hand pay: %+v", m.Seq, m.Kind, m.Hand)
		}
	}
	mem.mu.Unlock()
	mustAudit(t, s)
}
