package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"starfortune/central"
	"starfortune/internal/pgtest"
)

// The fleet soak (make fleet-soak, STARFORTUNE_FLEET_SOAK=K kiosks): K
// kiosk processes sell one whole 0,50 € block together through packs
// while kiosks are killed with SIGKILL and restarted, the network of some
// is cut and restored, and the PostgreSQL server itself is killed and
// restarted. At the end the block is closed and its seed revealed, the
// central's audit is clean, every unit printed to a player is at the
// central once, no position is sold twice, the root recomputes from the
// seed, and a tally made here from the units alone equals the règlement's
// table. It prints its figures on a FLEETSOAK line.
//
// With STARFORTUNE_FLEET_FAULTS=0 it is make bench's fleet_block_s: the
// same sale without faults, in a lone kiosk's batches, timed until every
// kiosk has synced (a FLEETBLOCK line).
func TestFleetSoak(t *testing.T) {
	k, _ := strconv.Atoi(os.Getenv("STARFORTUNE_FLEET_SOAK"))
	if k <= 0 {
		t.Skip("K kiosks selling a whole block under faults take minutes: make fleet-soak runs it (STARFORTUNE_FLEET_SOAK=K)")
	}
	faults := os.Getenv("STARFORTUNE_FLEET_FAULTS") != "0"
	batch := "2048"
	if faults {
		batch = "256" // more sales in flight when a kiosk is killed
	}
	cluster := pgtest.Need(t)
	db, pooler := fleetCentralMaybePooled(t, 5000)
	serverDir, serverPort := cluster.Dir, pgtest.Port // where the kiosks connect
	if pooler != nil {
		serverDir, serverPort = pooler.Dir, pgtest.PoolerPort
	}
	kiosks := make([]*kioskProc, k)
	proxies := make([]*netProxy, k)
	for i := range kiosks {
		kiosks[i] = newKioskProc(t, db, fmt.Sprintf("k%02d", i+1))
		mustKiosk(t, kiosks[i].dir, kiosks[i].url, kiosks[i].id, "wallet", "credit", "--amount", "200000")
		proxies[i] = newNetProxy(t, serverDir, serverPort)
	}

	start := time.Now()
	var running atomic.Int32
	running.Store(int32(k))
	var wg sync.WaitGroup
	restarts := make([]int, k)
	for i, kp := range kiosks {
		wg.Add(1)
		url := kp.url // without faults, the central's socket, as in a fleet
		if faults {   // else through a proxy that can cut the network
			url = proxies[i].url(kp.url, kp.id, serverDir)
		}
		go func() {
			defer wg.Done()
			defer running.Add(-1)
			for {
				errOut, err := kp.play(url, "--stake", "0,50", "--n", "10000000", "--batch", batch)
				// The kiosk stops when the central has no pack left and it
				// has sold the ones it held.
				if err != nil && strings.Contains(errOut, "no unit left") {
					return
				}
				if err == nil || time.Since(start) > 30*time.Minute {
					t.Errorf("kiosk %s: %v: %s", kp.id, err, errOut)
					return
				}
				restarts[i]++ // killed, or no pack to sell while the central is away
				time.Sleep(200 * time.Millisecond)
			}
		}()
	}

	// The faults, until every kiosk has stopped: every 0,5 to 1,5 s a kiosk
	// killed or its network cut for 2 to 8 s; every 15 s the server killed
	// and restarted 1 to 3 s later.
	var kills, cuts, serverKills, peak, fleetPeak int
	owner := ownerPool(t, db)
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 1))
	t.Logf("faults drawn from seed %d", seed)
	nextServerKill := time.Now().Add(15 * time.Second)
	for faults && running.Load() > 0 {
		time.Sleep(time.Duration(500+rng.IntN(1000)) * time.Millisecond)
		if running.Load() == 0 {
			break
		}
		if time.Now().After(nextServerKill) {
			crashServer(t, cluster, rng)
			serverKills++
			nextServerKill = time.Now().Add(15 * time.Second)
			continue
		}
		i := rng.IntN(k)
		if rng.IntN(2) == 0 {
			if kiosks[i].kill() {
				kills++
			}
		} else {
			proxies[i].cut(time.Duration(2000+rng.IntN(6000)) * time.Millisecond)
			cuts++
		}
		var one, all int
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		if owner.QueryRow(ctx, "SELECT coalesce(max(backlog), 0), coalesce(sum(backlog), 0) FROM kiosks").Scan(&one, &all) == nil {
			peak, fleetPeak = max(peak, one), max(fleetPeak, all)
		}
		cancel()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	for _, kp := range kiosks { // what the last commands left to push
		mustKiosk(t, kp.dir, kp.url, kp.id, "sync")
	}
	elapsed := time.Since(start) // sold and synced

	// The end: every kiosk synced and audited, the block closed.
	units := filepath.Join(t.TempDir(), "units.jsonl")
	f, err := os.Create(units)
	if err != nil {
		t.Fatal(err)
	}
	histories := make([][]saleJSON, k)
	for i, kp := range kiosks {
		histories[i] = kp.settle(t)
	}
	held := centralSales(t, db)
	tally := map[int64]int{}
	positions := map[string]string{} // block/position → kiosk
	total := 0
	for i, kp := range kiosks {
		history := histories[i]
		sameSales(t, kp.id, history, held[kp.id])
		for _, s := range history {
			key := fmt.Sprintf("%s/%d", s.Block, s.Index)
			if other, dup := positions[key]; dup {
				t.Fatalf("position %s sold by %s and %s", key, other, kp.id)
			}
			positions[key] = kp.id
			tally[s.PrizeCents]++
			line, _ := json.Marshal(s)
			f.Write(append(line, '\n'))
		}
		total += len(history)
	}
	f.Close()
	out, errOut, code := centralCLI(t, db, "blocks", "--json")
	var b central.Block
	if err := json.Unmarshal([]byte(out), &b); code != 0 || err != nil || !b.Closed || b.Seed == "" || b.Sold != 850_000 || total != 850_000 {
		t.Fatalf("block after the soak (%d units in the kiosks' histories): %q %s %v", total, out, errOut, err)
	}
	centralAuditOK(t, db)
	if root, n, err := merkleRoot(units, b.Seed); err != nil || n != 850_000 || root != b.Commitment {
		t.Fatalf("recomputed root %s from %d units (%v), published %s", root, n, err, b.Commitment)
	}
	// The règlement's article 3.1, in cents: lots of 12 500 €, 5 000 €, …
	// 0,50 €, and the losing units (850 000 less the 215 273 lots).
	table := map[int64]int{1_250_000: 1, 500_000: 1, 50_000: 1, 5_000: 50, 1_000: 500, 750: 800, 500: 14_000,
		250: 23_020, 100: 100_000, 50: 76_900, 0: 634_727}
	for prize, n := range table {
		if tally[prize] != n {
			t.Errorf("%d units won %d cents, the règlement says %d", tally[prize], prize, n)
		}
	}
	if len(tally) != len(table) {
		t.Errorf("prizes won: %v, the règlement's: %v", tally, table)
	}
	restarted := 0
	for _, r := range restarts {
		restarted += r
	}
	if !faults {
		fmt.Printf("FLEETBLOCK kiosks=%d units=%d time=%.1fs\n", k, total, elapsed.Seconds())
		return
	}
	figures := fmt.Sprintf("FLEETSOAK kiosks=%d units=%d time=%.0fs units_per_s=%.0f kiosk_kills=%d network_cuts=%d server_kills=%d restarts=%d backlog_peak=%d fleet_backlog_peak=%d",
		k, total, elapsed.Seconds(), float64(total)/elapsed.Seconds(), kills, cuts, serverKills, restarted, peak, fleetPeak)
	t.Log(figures)
	fmt.Println(figures)
}

// ownerPool connects to the central as its owner through a pool, which
// makes a new connection after the server was killed and restarted.
func ownerPool(t *testing.T, db string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}
