package engine_test

import (
	"errors"
	"testing"
	"time"

	"starfortune/engine"
)

// On the demo's data directory (its key in clear beside the data) the demo
// wallet plays its demo funds, and nothing else moves: no credit, no
// payout, no other player's sale, each refused before anything is written.
func TestDemoDataDirectoryMovesNoRealMoney(t *testing.T) {
	cfg := oneBlock
	cfg.DemoOnly = true
	s, _ := newService(t, cfg)
	if sales := sell(t, s, engine.DemoPlayer, 100, 2); len(sales) != 2 {
		t.Fatalf("demo play: %d units", len(sales))
	}
	before, _ := s.Wallet(ctx, engine.DemoPlayer)
	blocks, _ := s.Blocks(ctx)
	refused := map[string]error{}
	_, refused["credit"] = s.Credit(ctx, "alice", 1000, "test")
	_, refused["account"] = s.Open(ctx, "operator", engine.OpenRequest{Identity: engine.Identity{Holder: "A", Born: time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC), DocType: "CNI", DocNumber: "1"},
		Limits: engine.Limits{{Kind: engine.LimitDeposit, Window: engine.WindowWeek}: 100, {Kind: engine.LimitStake, Window: engine.WindowWeek}: 100}, PIN: "2580"})
	_, refused["demo credit"] = s.Credit(ctx, engine.DemoPlayer, 1000, "test")
	_, refused["payout"] = s.Payout(ctx, engine.DemoPlayer, 100, "test")
	_, refused["sale"] = s.Sell(ctx, engine.SellRequest{Player: "alice", Stake: 100, Count: 1, Actor: "test"})
	for what, err := range refused {
		if !errors.Is(err, engine.ErrDemoOnly) {
			t.Errorf("%s on the demo's data directory: %v, want ErrDemoOnly", what, err)
		}
	}
	after, _ := s.Wallet(ctx, engine.DemoPlayer)
	blocksAfter, _ := s.Blocks(ctx)
	if before != after || blocks[0].Cursor != blocksAfter[0].Cursor {
		t.Fatal("a refused movement changed something")
	}
	if w, _ := s.Wallet(ctx, "alice"); w.Seq != 0 {
		t.Fatalf("alice's wallet was written: %+v", w)
	}
	mustAudit(t, s)
}
