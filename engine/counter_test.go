package engine_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/engine/memstore"
)

// fakeCounter is a TPM's NV counter in memory.
type fakeCounter struct {
	mu    sync.Mutex
	v     uint64
	fresh bool
	fail  error // Increment fails (the TPM unplugged) and does not count
}

func (c *fakeCounter) Value(context.Context) (uint64, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.v, c.fresh, nil
}

func (c *fakeCounter) Increment(context.Context) (uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fail != nil {
		return 0, c.fail
	}
	c.v++
	c.fresh = false
	return c.v, nil
}

func (c *fakeCounter) String() string { return "the test's counter" }

func (c *fakeCounter) now() uint64 { v, _, _ := c.Value(ctx); return v }

// counted opens the game on st and j counting on c.
func counted(t *testing.T, st *memstore.Store, j *memstore.Journal, c *fakeCounter, override string) *engine.Service {
	t.Helper()
	cfg := oneBlock
	cfg.Journal, cfg.Counter, cfg.AdoptCounter = j, c, override
	s, err := engine.NewService(ctx, st, cfg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func lastAction(t *testing.T, s *engine.Service) engine.OperatorEvent {
	t.Helper()
	events, err := s.OperatorLog(ctx, 1)
	if err != nil || len(events) != 1 {
		t.Fatalf("operator log: %v %v", events, err)
	}
	return events[0]
}

// TestCounterAnchorsAttendantActions: a new data directory adopts the
// counter; each attendant's action counts once, a sale does not; data
// behind the counter (an erased payout) does not sell until an override
// adopts the counter again, recorded; a crash between the commit and the
// count is counted at the next start.
func TestCounterAnchorsAttendantActions(t *testing.T) {
	st, j := pinnedStore(t), &memstore.Journal{}
	c := &fakeCounter{v: 41, fresh: true}
	s := counted(t, st, j, c, "")
	if err := s.Health(); err != nil || c.now() != 42 || lastAction(t, s).Action != engine.ActionCounterAdopted {
		t.Fatalf("adoption: counter %d, %v", c.now(), err)
	}
	customers(t, s, "p1")
	if _, err := s.OperatorCredit(ctx, "operator", "p1", 2200); err != nil {
		t.Fatal(err)
	}
	before := c.now()
	sell(t, s, "p1", 100, 3)
	if c.now() != before {
		t.Fatalf("a sale moved the counter from %d to %d", before, c.now())
	}
	if _, err := s.OperatorPayout(ctx, "operator", "p1", 1800); err != nil || c.now() != before+1 {
		t.Fatalf("payout: counter %d, want %d: %v", c.now(), before+1, err)
	}
	s.Close()

	// Counted elsewhere: this data is an older copy, an action erased.
	c.Increment(ctx)
	s = counted(t, st, j, c, "")
	if err := s.Health(); !errors.Is(err, engine.ErrOutOfService) || !strings.Contains(err.Error(), "1 attendant or player action(s) were erased") {
		t.Fatalf("data behind the counter: %v", err)
	}
	if _, err := s.Sell(ctx, engine.SellRequest{Player: "p1", Stake: 100, Count: 1, Picks: picks}); !errors.Is(err, engine.ErrOutOfService) {
		t.Fatalf("sold on data behind its counter: %v", err)
	}
	s.Close()
	s = counted(t, st, j, c, "the last backup is older than the last payout, counted by hand")
	if err := s.Health(); err != nil {
		t.Fatalf("after the override: %v", err)
	}
	if e := lastAction(t, s); e.Action != engine.ActionCounterAdopted || !strings.Contains(e.Detail, "counted by hand") || !strings.Contains(e.Detail, "1 counted action(s) behind") {
		t.Fatalf("override not recorded: %+v", e)
	}

	// A crash between the payout's commit and its count.
	c.fail = errors.New("TPM unplugged")
	w, _ := s.Wallet(ctx, "p1")
	if _, err := s.OperatorPayout(ctx, "operator", "p1", 100); !errors.Is(err, engine.ErrOutOfService) {
		t.Fatalf("a payout the counter did not count: %v", err)
	}
	s.Close()
	c.fail = nil
	at := c.now()
	s = counted(t, st, j, c, "")
	if err := s.Health(); err != nil || c.now() != at+1 {
		t.Fatalf("the crashed count: counter %d, want %d: %v", c.now(), at+1, err)
	}
	if after, _ := s.Wallet(ctx, "p1"); after.Balance != w.Balance-100 {
		t.Fatalf("balance %v after the crashed payout of 1,00 from %v", after.Balance, w.Balance)
	}
	mustAudit(t, s)
	s.Close()
}

// TestCounterAdoptsOnlyNewData: data with history that never counted
// adopts a new counter (the machine's first use of it) but not one that
// already counted for other data (an older copy from before the anchor).
func TestCounterAdoptsOnlyNewData(t *testing.T) {
	st, j := pinnedStore(t), &memstore.Journal{}
	cfg := oneBlock
	cfg.Journal = j
	s, err := engine.NewService(ctx, st, cfg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	customers(t, s, "p1")
	s.Close()
	used := &fakeCounter{v: 7}
	s = counted(t, st, j, used, "")
	if err := s.Health(); !errors.Is(err, engine.ErrOutOfService) || !strings.Contains(err.Error(), "never counted") {
		t.Fatalf("history on a counter that counted other data: %v", err)
	}
	s.Close()
	s = counted(t, st, j, &fakeCounter{v: 1, fresh: true}, "")
	if err := s.Health(); err != nil || lastAction(t, s).Action != engine.ActionCounterAdopted {
		t.Fatalf("history on a new counter: %v", err)
	}
	s.Close()
}
