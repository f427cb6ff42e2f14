package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/engine/memstore"
)

// hangingCentral is a central that answers at once until hang is set, then
// never: every call waits for its context to end, as over a network whose
// far end stopped answering. It counts the movements it applied.
type hangingCentral struct {
	hang      atomic.Bool
	hung      chan struct{} // a call is waiting (buffered, 1)
	cancelled atomic.Int32  // calls that ended by their context

	mu     sync.Mutex
	pushed map[uint64]bool // movements applied, by number
}

func newHangingCentral() *hangingCentral {
	return &hangingCentral{hung: make(chan struct{}, 1), pushed: map[uint64]bool{}}
}

func (c *hangingCentral) wait(ctx context.Context) error {
	if !c.hang.Load() {
		return nil
	}
	select {
	case c.hung <- struct{}{}:
	default:
	}
	<-ctx.Done()
	c.cancelled.Add(1)
	return fmt.Errorf("%w: %w", engine.ErrCentralUnavailable, ctx.Err())
}

func (c *hangingCentral) ClaimPack(ctx context.Context, _ engine.Cents) (engine.Pack, error) {
	if err := c.wait(ctx); err != nil {
		return engine.Pack{}, err
	}
	return engine.Pack{}, engine.ErrNoPack
}

func (c *hangingCentral) FetchPack(ctx context.Context, _ string) (engine.Pack, error) {
	if err := c.wait(ctx); err != nil {
		return engine.Pack{}, err
	}
	return engine.Pack{}, engine.ErrPackState
}

func (c *hangingCentral) PushSales(ctx context.Context, s []engine.FleetSale) (engine.PushResult, error) {
	return engine.PushResult{Applied: len(s)}, c.wait(ctx)
}

func (c *hangingCentral) PushMovements(ctx context.Context, ms []engine.FleetMovement) (engine.PushResult, error) {
	if err := c.wait(ctx); err != nil {
		return engine.PushResult{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range ms {
		c.pushed[m.Seq] = true
	}
	return engine.PushResult{Applied: len(ms), LastSeq: ms[len(ms)-1].Seq}, nil
}

func (c *hangingCentral) ReleasePack(ctx context.Context, _ string, _ uint32) (string, error) {
	return "", c.wait(ctx)
}

func (c *hangingCentral) Heartbeat(ctx context.Context, _ int, _ engine.JournalHead) (time.Time, error) {
	return time.Now(), c.wait(ctx)
}

func (c *hangingCentral) JournalAnchor(ctx context.Context) (engine.JournalHead, error) {
	return engine.JournalHead{}, c.wait(ctx)
}

func (c *hangingCentral) FleetView(ctx context.Context) (engine.FleetView, error) {
	return engine.FleetView{}, c.wait(ctx)
}

func (c *hangingCentral) LookupTicket(ctx context.Context, _ engine.Ticket) (engine.FleetSale, error) {
	return engine.FleetSale{}, c.wait(ctx)
}

func (c *hangingCentral) KioskState(ctx context.Context) (engine.KioskState, error) {
	if err := c.wait(ctx); err != nil {
		return engine.KioskState{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return engine.KioskState{Kiosk: "k1", LastMovementSeq: uint64(len(c.pushed))}, nil
}

func (c *hangingCentral) Close() {}

func (c *hangingCentral) applied() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pushed)
}

// openKiosk opens a fleet kiosk on store against c; ctx is the program's.
func openKiosk(t *testing.T, ctx context.Context, store *memstore.Store, c engine.Central) *engine.Service {
	t.Helper()
	svc, err := engine.NewService(ctx, store, engine.Config{Emission: 1, BlocksPerStake: 1,
		Fleet: &engine.FleetConfig{Central: c, Kiosk: "k1", OfflineGrace: time.Hour, SyncEvery: 10 * time.Millisecond, HeartbeatEvery: 10 * time.Millisecond}}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// A kiosk told to stop while its central hangs cancels the sync round in
// flight at once, and Close returns without waiting for the central (the
// round's own bound is a minute); what the central lacked is in the store,
// and the next start with the central back pushes it all.
func TestFleetStopCancelsTheRoundInFlight(t *testing.T) {
	for _, how := range []string{"signal", "close"} {
		t.Run(how, func(t *testing.T) {
			store, c := memstore.New(), newHangingCentral()
			program, stop := context.WithCancel(context.Background())
			defer stop()
			svc := openKiosk(t, program, store, c)
			for i := range 3 {
				if _, err := svc.Credit(ctx, engine.DemoPlayer, engine.Cents(100*(i+1)), "test"); err != nil {
					svc.Close()
					t.Fatal(err)
				}
			}
			if how == "close" { // no backlog: the push Close makes has nothing to wait for
				if err := svc.Fleet.Sync(ctx); err != nil {
					t.Fatal(err)
				}
			}
			c.hang.Store(true)
			if how == "signal" {
				if _, err := svc.Credit(ctx, engine.DemoPlayer, 400, "test"); err != nil { // a backlog the stop leaves behind
					t.Fatal(err)
				}
			}
			select {
			case <-c.hung: // a round waits for the central
			case <-time.After(5 * time.Second):
				t.Fatal("no round reached the central")
			}
			start := time.Now()
			if how == "signal" {
				stop()
				for c.cancelled.Load() == 0 {
					if time.Since(start) > 2*time.Second {
						t.Fatal("the round in flight was not cancelled when the program was told to stop")
					}
					time.Sleep(time.Millisecond)
				}
			}
			svc.Close()
			took := time.Since(start)
			t.Logf("stopped %s after the central hung in %v", how, took)
			if took > time.Second || c.cancelled.Load() == 0 {
				t.Fatalf("stop by %s took %v (%d calls cancelled), want the round in flight cancelled at once", how, took, c.cancelled.Load())
			}

			c.hang.Store(false)
			again := openKiosk(t, context.Background(), store, c)
			defer again.Close()
			if err := again.Fleet.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			st, err := again.Fleet.Status(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := 3
			if how == "signal" {
				want = 4
			}
			if c.applied() != want || st.Backlog != 0 {
				t.Fatalf("after the restart the central has %d movements, want %d; backlog %d", c.applied(), want, st.Backlog)
			}
		})
	}
}

// rolledBackCentral refuses every heartbeat's journal head, as the central
// does for a head behind the one it anchored (migrations/0006).
type rolledBackCentral struct{ *hangingCentral }

func (rolledBackCentral) Heartbeat(context.Context, int, engine.JournalHead) (time.Time, error) {
	return time.Time{}, fmt.Errorf("heartbeat: %w", engine.ErrJournalBehind)
}

// A kiosk whose central refuses its journal head stops selling and says
// why: its history was rolled back behind what it reported before.
func TestFleetKioskBehindItsAnchorStopsSelling(t *testing.T) {
	svc := openKiosk(t, context.Background(), memstore.New(), rolledBackCentral{newHangingCentral()})
	defer svc.Close()
	for start := time.Now(); svc.Health() == nil; time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 5*time.Second {
			t.Fatal("still in service after the central refused its journal head")
		}
	}
	if err := svc.Health(); !errors.Is(err, engine.ErrOutOfService) || !strings.Contains(err.Error(), "central refused this kiosk's journal head") {
		t.Fatalf("health: %v", err)
	}
	if _, err := svc.Credit(ctx, engine.DemoPlayer, 100, "test"); !errors.Is(err, engine.ErrOutOfService) {
		t.Fatalf("a credit behind the anchor: %v", err)
	}
}
