package engine_test

import (
	"reflect"
	"slices"
	"testing"

	"starfortune/engine"
)

// TestFleetPushSendsWhatTheStoreHolds: a push takes the movements committed
// since the start from the writer's queue and reads the others back from
// the store; either way the central receives exactly what the outbox
// holds. Units sold by batch and shown at once are queued; a unit played on
// the board is not (its reveal ends later): the push reads it back, and
// says whether its reveal has ended by then.
func TestFleetPushSendsWhatTheStoreHolds(t *testing.T) {
	mem := newMemCentral()
	s := fleetKiosk(t, mem)
	if _, err := s.Credit(ctx, engine.DemoPlayer, 10_000, "test"); err != nil {
		t.Fatal(err)
	}
	sell := func(req engine.SellRequest) engine.Sale {
		t.Helper()
		req.Player, req.Stake, req.Actor = engine.DemoPlayer, 50, "test"
		sales, err := s.Sell(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return sales[len(sales)-1]
	}
	sell(engine.SellRequest{Count: 1, Picks: picks}) // a pack claimed
	if err := s.Fleet.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	mem.set(func() { mem.down = true })
	queuedFrom := uint64(len(mem.moves)) + 1
	sell(engine.SellRequest{Count: 5, Picks: picks})
	if _, err := s.Credit(ctx, engine.DemoPlayer, 200, "test"); err != nil {
		t.Fatal(err)
	}
	shown := sell(engine.SellRequest{Count: 1}) // on the board, shown before the push
	for drop := range 2 {
		if _, err := s.Pick(ctx, shown.Ticket, drop, 1); err != nil {
			t.Fatal(err)
		}
		if shown.Unit.Drops[drop].Dest.Bonus {
			if _, err := s.Go(ctx, shown.Ticket, drop); err != nil {
				t.Fatal(err)
			}
		}
	}
	sell(engine.SellRequest{Count: 1}) // on the board, not shown yet

	// The batch's 5 sales and the credit: the next 6 movements.
	want := make([]uint64, 6)
	for i := range want {
		want[i] = queuedFrom + uint64(i)
	}
	if got := engine.Queued(s); !slices.Equal(got, want) {
		t.Fatalf("queued movements %v, want %v", got, want)
	}
	mem.set(func() { mem.down = false })
	if err := s.Fleet.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := engine.Queued(s); len(got) != 0 {
		t.Fatalf("after the push the queue holds %v", got)
	}
	moves, sales, err := engine.Outbox(s)
	if err != nil {
		t.Fatal(err)
	}
	mem.mu.Lock()
	defer mem.mu.Unlock()
	if len(sales) != 8 {
		t.Fatalf("the outbox holds %d sales, want 8", len(sales))
	}
	same := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s pushed:\n%+v\nthe outbox holds:\n%+v", what, got, want)
		}
	}
	same("movements", utc(mem.moves), utc(moves))
	same("sales", utc(mem.sales), utc(sales))
	if !sales[6].Revealed || sales[7].Revealed {
		t.Errorf("board units pushed as revealed %v and %v, want true (shown before the push) and false", sales[6].Revealed, sales[7].Revealed)
	}
}

// utc is the times of ms or ss in UTC without a monotonic reading, as the
// store gives them back.
func utc[T engine.FleetMovement | engine.FleetSale](ms []T) []T {
	out := slices.Clone(ms)
	for i := range out {
		switch v := any(&out[i]).(type) {
		case *engine.FleetMovement:
			v.Time = v.Time.UTC().Round(0)
		case *engine.FleetSale:
			v.Time = v.Time.UTC().Round(0)
		}
	}
	return out
}
