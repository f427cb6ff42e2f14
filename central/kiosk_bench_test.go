package central_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/journal"
	"starfortune/storage"
)

// benchKey encrypts the benchmarks' stores, as a kiosk's is.
var benchKey = []byte("starfortune-central-bench-key-32")

// kioskService is a kiosk's sale path on disk: the Badger store and the
// journal file in a fresh directory, a fleet's kiosk when fleet is set,
// and a rich player.
func kioskService(b *testing.B, fleet *engine.FleetConfig) *engine.Service {
	b.Helper()
	dir := b.TempDir()
	j, err := journal.Open(filepath.Join(dir, "journal.sfj"), journal.Plain)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { j.Close() })
	// A fixed key: the benchmark measures the sale, not where the key comes from.
	store, err := storage.Open(filepath.Join(dir, "db"), benchKey, zerolog.Nop())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	cfg := engine.DefaultConfig()
	cfg.Journal, cfg.Fleet = j, fleet
	svc, err := engine.NewService(ctx, store, cfg, zerolog.Nop())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(svc.Close)
	// The demo wallet on both: a fleet kiosk's wallets have no account
	// protection yet (issue #31), so the lone kiosk's sale is measured
	// without it too (make bench's sale_protected_p50 measures its cost).
	if _, err := svc.Credit(ctx, engine.DemoPlayer, 100_000_000, "bench"); err != nil {
		b.Fatal(err)
	}
	// The first sale of each: a lone kiosk's blocks drawn, a fleet's first
	// pack claimed; neither is a sale's cost.
	if _, err := svc.Sell(ctx, engine.SellRequest{Player: engine.DemoPlayer, Stake: 50, Count: 1, Actor: "bench"}); err != nil {
		b.Fatal(err)
	}
	return svc
}

// benchHolder is the benchmarks' players' holder; no limit stops them.
var (
	benchHolder = engine.Identity{Holder: "Camille Martin", Born: time.Date(1990, 5, 17, 0, 0, 0, 0, time.UTC), DocType: "CNI"}
	benchLimits = engine.Limits{{Kind: engine.LimitDeposit, Window: engine.WindowWeek}: engine.MaxAmount,
		{Kind: engine.LimitStake, Window: engine.WindowWeek}: engine.MaxAmount}
)

const benchPIN = "2580"

// benchSession logs a player in on svc with card and credits the account.
func benchSession(b *testing.B, svc *engine.Service, card engine.Card) string {
	b.Helper()
	a, err := svc.OpenSession(ctx, card, benchPIN)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := svc.Credit(ctx, a.Player, 1_000_000, "bench"); err != nil {
		b.Fatal(err)
	}
	return a.Player
}

// BenchmarkFleetSale is one durable sale of a fleet's kiosk (p50-µs: from
// a held pack, its background loop claiming and pushing meanwhile) and,
// alternating with it on the same disk, one of a lone kiosk
// (local-p50-µs): the network is never on the sale path. Then the same
// with players' accounts: a fleet account's sale within its lease
// (leased-p50-µs) and a lone kiosk's account's (account-p50-µs), each
// checking and counting its protection in the sale's transaction.
func BenchmarkFleetSale(b *testing.B) {
	a, cs, _ := benchFleet(b, 1, 1000, 1)
	fleet := kioskService(b, &engine.FleetConfig{Central: cs[0], OfflineGrace: time.Hour})
	local := kioskService(b, nil)
	id := benchHolder
	id.DocNumber = "BENCHF"
	fa, err := a.OpenPlayer(ctx, "bench", id, benchLimits, benchPIN)
	if err != nil {
		b.Fatal(err)
	}
	id.DocNumber = "BENCHL"
	la, err := local.Open(ctx, "bench", engine.OpenRequest{Identity: id, Limits: benchLimits, PIN: benchPIN})
	if err != nil {
		b.Fatal(err)
	}
	kinds := []struct {
		svc    *engine.Service
		player string
		ds     []time.Duration
	}{{fleet, engine.DemoPlayer, nil}, {local, engine.DemoPlayer, nil},
		{fleet, benchSession(b, fleet, fa.Card), nil}, {local, benchSession(b, local, la.Card), nil}}
	for i := 0; b.Loop(); i++ {
		for j := range kinds {
			k := &kinds[j^(i&1)] // alternate which of each pair goes first
			t := time.Now()
			if _, err := k.svc.Sell(ctx, engine.SellRequest{Player: k.player, Stake: 50, Count: 1, Actor: "bench"}); err != nil {
				b.Fatal(err)
			}
			k.ds = append(k.ds, time.Since(t))
		}
	}
	med := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)/2].Microseconds())
	}
	for i, unit := range []string{"p50-µs", "local-p50-µs", "leased-p50-µs", "account-p50-µs"} {
		b.ReportMetric(med(kinds[i].ds), unit)
	}
}

// BenchmarkPlayerLogin is a fleet account's login at a kiosk on disk
// (p50-ms): the central checks card and PIN and reserves the session's
// lease, the kiosk writes its mirror of the account, the session and the
// lease durably. Each login is a new player's (their accounts are opened
// outside the timing), as at a busy kiosk.
func BenchmarkPlayerLogin(b *testing.B) {
	a, cs, _ := benchFleet(b, 1, 1000, 1)
	fleet := kioskService(b, &engine.FleetConfig{Central: cs[0], OfflineGrace: time.Hour})
	var ds []time.Duration
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		id := benchHolder
		id.DocNumber = fmt.Sprintf("LOGIN%d", i)
		acct, err := a.OpenPlayer(ctx, "bench", id, benchLimits, benchPIN)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		t := time.Now()
		if _, err := fleet.OpenSession(ctx, acct.Card, benchPIN); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t))
	}
	b.ReportMetric(p50(ds), "p50-ms")
}
