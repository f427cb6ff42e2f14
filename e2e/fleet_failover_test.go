package e2e

import (
	"context"
	"sync"
	"testing"
	"time"

	"starfortune/internal/pgtest"
)

// A replicated central fails over under kiosks that keep selling: a
// primary with a synchronous standby (ANY 1), kiosk processes that reach
// it through a multi-host connection string (target_session_attrs =
// read-write) and sell and sync all the while. The primary is killed with
// SIGKILL in the middle of their pushes, the kiosks sell on from their
// packs, the standby is promoted, and the kiosks find it by themselves.
// At the end the central holds every sale of every kiosk exactly once:
// what the old primary acknowledged is there (synchronous replication),
// and a push whose answer the kill swallowed was sent again and counted
// once (idempotent sale ids).
//
// The old primary is killed before the standby is promoted, as an operator
// fences a failed primary: promoted with the old one still serving, a
// kiosk could read from it a claim that only it had.
//
// Through PgBouncer, as a national fleet: the kiosks reach the pooler
// alone, and the operator's failover points it at the promoted standby
// (its configuration rewritten and reloaded) once promoted.
func TestFleetFailover(t *testing.T) {
	t.Run("own roles", func(t *testing.T) { failover(t, false) })
	t.Run("through PgBouncer", func(t *testing.T) { failover(t, true) })
}

func failover(t *testing.T, pooled bool) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	p := pgtest.NeedPrimary(t)
	s, err := p.StartStandby("s1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Remove(); err != nil {
			t.Error(err)
		}
	})
	if err := p.SetSynchronous(ctx, "ANY 1 (s1)"); err != nil {
		t.Fatal(err)
	}
	name, err := p.CreateDB(ctx)
	if err != nil {
		t.Fatal(err)
	}
	db := pgtest.FailoverURL(name, "postgres", "", p, s) // the operator's, and through it the kiosks'
	fleetCentralIn(t, db, 1000)
	var pooler *pgtest.Pooler
	if pooled {
		if pooler, err = p.StartPooler(4, func(addr string) string { return poolerRole(t, db, addr) }); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pooler.Stop)
	}
	kiosks := []*kioskProc{newKioskProc(t, db, "k1"), newKioskProc(t, db, "k2")}
	stop := make(chan struct{})
	var lastErr sync.Map // kiosk → the stderr of its last failed command
	var wg sync.WaitGroup
	for _, k := range kiosks {
		mustKiosk(t, k.dir, k.url, k.id, "wallet", "credit", "--amount", "1000")
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				// Each command starts with a sync round and ends with a push.
				if errOut, err := k.play(k.url, "--stake", "0,50", "--n", "10", "--batch", "2"); err != nil {
					lastErr.Store(k.id, errOut)
					time.Sleep(100 * time.Millisecond) // no pack held while the central is away
				}
			}
		}()
	}
	finish := func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		wg.Wait()
	}
	defer finish()

	counts := func(c *pgtest.Cluster) map[string]int {
		got := map[string]int{}
		for id, sales := range centralSales(t, c.URL(name, "postgres", "")) {
			got[id] = len(sales)
		}
		return got
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for !ok() {
			if ctx.Err() != nil {
				finish()
				lastErr.Range(func(id, errOut any) bool { t.Logf("kiosk %s, last failure: %s", id, errOut); return true })
				for _, k := range kiosks {
					out, _, _ := kioskCLI(t, k.dir, k.url, k.id, "sync", "--status", "--json")
					t.Logf("kiosk %s: %d printed; %s", k.id, k.sold(), out)
				}
				t.Fatalf("%s: not within the test's time", what)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitFor("sales synced to the primary", func() bool {
		c := counts(p)
		return c["k1"] >= 30 && c["k2"] >= 30
	})
	acked := counts(p) // at least these, the primary acknowledged
	if err := p.Crash(); err != nil {
		t.Fatal(err)
	}
	soldNow := func() map[string]int {
		n := map[string]int{}
		for _, k := range kiosks {
			n[k.id] = k.sold()
		}
		return n
	}
	before := soldNow()
	waitFor("kiosks selling with the primary dead", func() bool {
		return kiosks[0].sold() > before["k1"] && kiosks[1].sold() > before["k2"]
	})
	if err := s.Promote(); err != nil {
		t.Fatal(err)
	}
	if pooler != nil {
		if err := pooler.Retarget(s); err != nil {
			t.Fatal(err)
		}
	}
	promoted := soldNow()
	waitFor("kiosks syncing with the promoted standby", func() bool {
		c := counts(s)
		return c["k1"] > promoted["k1"] && c["k2"] > promoted["k2"]
	})
	finish()

	// Before the last pushes: what the kill left is all there already.
	held := centralSales(t, db)
	for _, k := range kiosks {
		if len(held[k.id]) < acked[k.id] {
			t.Fatalf("kiosk %s: the old primary had acknowledged %d of its sales, the new one holds %d", k.id, acked[k.id], len(held[k.id]))
		}
	}
	histories := map[string][]saleJSON{}
	for _, k := range kiosks {
		histories[k.id] = k.settle(t)
	}
	held = centralSales(t, db)
	for _, k := range kiosks {
		sameSales(t, k.id, histories[k.id], held[k.id])
		t.Logf("kiosk %s: %d units sold, %d acknowledged before the kill, %d sold before the promotion", k.id, len(histories[k.id]), acked[k.id], promoted[k.id])
	}
	centralAuditOK(t, db)
}
