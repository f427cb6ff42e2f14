package central_test

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"starfortune/central"
	"starfortune/engine"
	"starfortune/internal/pgtest"
)

// The scale harness of a national fleet (make fleet-scale KIOSKS=N, not
// part of make test): N simulated kiosks, goroutines speaking the real
// kiosk protocol through a real PgBouncer in transaction mode to the
// tests' PostgreSQL, each call proven with the kiosk's own key. Each
// kiosk claims packs and verifies them, sells in memory a unit every
// SELL_EVERY seconds (30), pushes its sales and their movements every
// PUSH_EVERY seconds (30) when it has some, heartbeats every 30 s and looks
// up a ticket every ~60 s, every period with ±20 % jitter and the kiosks'
// starts spread over the first period.
// It prints BENCH lines (make bench's form), each against a baseline
// measured by one kiosk alone on the same central before the fleet
// starts, and ends with the central's audit.

// scaleEnv reads an integer setting of the harness, def if unset.
func scaleEnv(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// jitter is d spread over ±20 %.
func jitter(d time.Duration) time.Duration {
	return d + time.Duration((rand.Float64()*0.4-0.2)*float64(d))
}

// latencies collects the durations of one kind of call.
type latencies struct {
	mu sync.Mutex
	ds []time.Duration
}

func (l *latencies) add(d time.Duration) {
	l.mu.Lock()
	l.ds = append(l.ds, d)
	l.mu.Unlock()
}

// of is quantile (p50, p99) of the durations, in ms (0 when none).
func (l *latencies) of(quantile func([]time.Duration) float64) float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.ds) == 0 {
		return 0
	}
	return quantile(l.ds)
}

// simKiosk is one simulated kiosk.
type simKiosk struct {
	c      *central.Client
	pack   engine.Pack
	next   uint32 // the next unsold position of pack (relative)
	sold   []engine.FleetSale
	saleNo uint64
	movNo  uint64
}

// scaleRun is what the kiosks measure together.
type scaleRun struct {
	heartbeat, claim, push, lookup latencies
	pushed                         atomic.Int64
	errs                           sync.Map // error text → *atomic.Int64
	tooMany                        atomic.Int64
}

func (r *scaleRun) fail(err error) {
	if strings.Contains(err.Error(), "53300") || strings.Contains(err.Error(), "too many") {
		r.tooMany.Add(1)
	}
	msg := err.Error()
	if len(msg) > 120 {
		msg = msg[:120]
	}
	n, _ := r.errs.LoadOrStore(msg, new(atomic.Int64))
	n.(*atomic.Int64).Add(1)
}

// claim gets the kiosk a verified pack.
func (k *simKiosk) claim(ctx context.Context, r *scaleRun) error {
	t := time.Now()
	p, err := k.c.ClaimPack(ctx, 50)
	if err != nil {
		return err
	}
	r.claim.add(time.Since(t))
	if err := p.Verify(); err != nil {
		return err
	}
	k.pack, k.next = p, 0
	return nil
}

// sell sells the pack's next unit in memory.
func (k *simKiosk) sell(ctx context.Context, r *scaleRun) error {
	if k.pack.Serial == "" || k.next == k.pack.Count() {
		if err := k.claim(ctx, r); err != nil {
			return err
		}
	}
	u, err := k.pack.Unit(k.next)
	if err != nil {
		return err
	}
	k.saleNo++
	k.sold = append(k.sold, engine.FleetSale{Seq: k.saleNo, Pack: k.pack.Serial, Ticket: k.pack.Ticket(k.next), Time: time.Now().UTC(),
		Player: "demo", Unit: u, Revealed: true})
	k.next++
	return nil
}

// flush pushes the kiosk's sales, then their movements.
func (k *simKiosk) flush(ctx context.Context, r *scaleRun) error {
	if len(k.sold) == 0 {
		return nil
	}
	t := time.Now()
	if _, err := k.c.PushSales(ctx, k.sold); err != nil {
		return err
	}
	ms := make([]engine.FleetMovement, len(k.sold))
	for i, s := range k.sold {
		tk := s.Ticket
		ms[i] = engine.FleetMovement{Seq: k.movNo + uint64(i) + 1, ID: fmt.Sprintf("%d:demo", k.movNo+uint64(i)+1), Player: "demo",
			Kind: engine.LedgerSale, Debit: 50, Credit: s.Unit.Prize(50), Ticket: &tk, Time: s.Time}
	}
	if _, err := k.c.PushMovements(ctx, ms); err != nil {
		return err
	}
	r.push.add(time.Since(t))
	r.pushed.Add(int64(len(k.sold)))
	k.movNo += uint64(len(ms))
	k.sold = k.sold[:0]
	return nil
}

// run is the kiosk's life until ctx ends: its calls, each on its period.
func (k *simKiosk) run(ctx context.Context, r *scaleRun, lookups []engine.Ticket, sellEvery, pushEvery time.Duration) {
	every := map[string]time.Duration{"sell": sellEvery, "push": pushEvery, "heartbeat": 30 * time.Second, "lookup": 60 * time.Second}
	due := map[string]time.Time{}
	for what, d := range every {
		due[what] = time.Now().Add(time.Duration(rand.Int64N(int64(d))))
	}
	for {
		what, when := "", time.Time{}
		for w, d := range due {
			if what == "" || d.Before(when) {
				what, when = w, d
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(when)):
		}
		var err error
		switch what {
		case "sell":
			err = k.sell(ctx, r)
		case "push":
			err = k.flush(ctx, r)
		case "heartbeat":
			t := time.Now()
			if _, err = k.c.Heartbeat(ctx, len(k.sold), engine.JournalHead{}); err == nil {
				r.heartbeat.add(time.Since(t))
			}
		case "lookup":
			t := time.Now()
			if _, err = k.c.LookupTicket(ctx, lookups[rand.IntN(len(lookups))]); err == nil || errors.Is(err, engine.ErrUnknownTicket) {
				r.lookup.add(time.Since(t))
				err = nil
			}
		}
		if err != nil && ctx.Err() == nil {
			r.fail(err)
		}
		due[what] = time.Now().Add(jitter(every[what]))
	}
}

func TestFleetScale(t *testing.T) {
	n := scaleEnv(t, "STARFORTUNE_FLEET_SCALE", 0)
	if os.Getenv("STARFORTUNE_FLEET_SCALE") == "" {
		t.Skip("the scale harness: make fleet-scale KIOSKS=N")
	}
	seconds := scaleEnv(t, "STARFORTUNE_FLEET_SCALE_SECONDS", 90)
	poolSize := scaleEnv(t, "STARFORTUNE_FLEET_SCALE_POOL", 40)
	sellEvery := time.Duration(scaleEnv(t, "STARFORTUNE_FLEET_SCALE_SELL_EVERY", 30)) * time.Second
	pushEvery := time.Duration(scaleEnv(t, "STARFORTUNE_FLEET_SCALE_PUSH_EVERY", 30)) * time.Second
	var ids []string
	for i := range n {
		ids = append(ids, fmt.Sprintf("s%d", i))
	}
	setup := time.Now()
	f, url, _ := pooled(t, poolSize) // one block, packs of 100
	// No claim limit in the way of the measures: a claim's cost is.
	f.exec(t, "UPDATE fleet_settings SET claims_per_minute = 1000000")
	keys := map[string][]byte{}
	for _, id := range ids {
		k, err := f.admin.AddKiosk(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if keys[id], err = hex.DecodeString(k.CallKey); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("central, pooler and %d kiosks set up in %v", n, time.Since(setup).Round(time.Second))

	// The baselines: one kiosk alone through the pooler.
	var alone scaleRun
	solo := &simKiosk{c: openPooled(t, url, ids[0], keys[ids[0]])}
	for range 50 {
		t0 := time.Now()
		if _, err := solo.c.Heartbeat(ctx, 0, engine.JournalHead{}); err != nil {
			t.Fatal(err)
		}
		alone.heartbeat.add(time.Since(t0))
	}
	for range 5 {
		for range 20 {
			if err := solo.sell(ctx, &alone); err != nil {
				t.Fatal(err)
			}
		}
		if err := solo.flush(ctx, &alone); err != nil {
			t.Fatal(err)
		}
	}

	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	kiosks := []*simKiosk{solo}
	for _, id := range ids[1:] {
		kiosks = append(kiosks, &simKiosk{c: openPooled(t, url, id, keys[id])})
	}

	owner, err := pgx.Connect(ctx, f.url)
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close(ctx)
	walAt := func() (lsn int64) {
		if err := owner.QueryRow(ctx, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint").Scan(&lsn); err != nil {
			t.Fatal(err)
		}
		return lsn
	}
	cluster := pgtest.Need(t)
	cpuAt := func() time.Duration {
		d, err := cluster.CPUTime()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	wal0, cpu0, t0 := walAt(), cpuAt(), time.Now()
	var r scaleRun
	run, stop := context.WithTimeout(ctx, time.Duration(seconds)*time.Second)
	defer stop()
	lookups := []engine.Ticket{solo.pack.Ticket(0), solo.pack.Ticket(1)}
	var wg sync.WaitGroup
	for _, k := range kiosks {
		wg.Add(1)
		go func() { defer wg.Done(); k.run(run, &r, lookups, sellEvery, pushEvery) }()
	}
	var maxConns int
	for run.Err() == nil {
		var c int
		if err := owner.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE usename = current_database() || '_pool'").Scan(&c); err == nil {
			maxConns = max(maxConns, c)
		}
		select {
		case <-run.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
	wg.Wait()
	elapsed := time.Since(t0).Seconds()
	var after runtime.MemStats // the kiosks with their connections and what they hold
	runtime.GC()
	runtime.ReadMemStats(&after)
	wal, cpu := float64(walAt()-wal0)/elapsed, (cpuAt()-cpu0).Seconds()/elapsed*100
	for _, k := range kiosks { // what each kiosk sold last goes too
		if err := k.flush(ctx, &r); err != nil {
			r.fail(err)
		}
	}
	var errs []string
	var nerr int64
	r.errs.Range(func(k, v any) bool {
		errs = append(errs, fmt.Sprintf("%d× %s", v.(*atomic.Int64).Load(), k))
		nerr += v.(*atomic.Int64).Load()
		return true
	})
	bench := func(name string, v, base float64, unit string) {
		ratio := 0.0
		if base != 0 {
			ratio = v / base
		}
		fmt.Printf("BENCH fleet_scale_%d_%s value=%.3f%s baseline=%.3f%s ratio=%.2f\n", n, name, v, unit, base, unit, ratio)
	}
	bench("heartbeat_p50", r.heartbeat.of(p50), alone.heartbeat.of(p50), "ms")
	bench("heartbeat_p99", r.heartbeat.of(p99), alone.heartbeat.of(p99), "ms")
	bench("claim_p99", r.claim.of(p99), alone.claim.of(p99), "ms")
	bench("push_p99", r.push.of(p99), alone.push.of(p99), "ms")
	bench("lookup_p99", r.lookup.of(p99), alone.heartbeat.of(p99), "ms")
	bench("sales_ingested_per_s", float64(r.pushed.Load())/elapsed, float64(n)/sellEvery.Seconds(), "/s") // baseline: what the kiosks sold
	bench("server_connections", float64(maxConns), float64(poolSize), "")
	bench("central_cpu_pct", cpu, float64(runtime.NumCPU()*100), "%")
	bench("wal_bytes_per_s", wal, 0, "B/s")
	bench("kiosk_memory_kb", float64(after.HeapAlloc-before.HeapAlloc)/float64(max(n-1, 1))/1024, 0, "kB")
	bench("errors", float64(nerr), 0, "")
	for _, e := range errs {
		t.Logf("errors: %s", e)
	}
	rep := f.audit(t)
	if !rep.OK {
		t.Errorf("the central's audit after the run: %q", rep.Findings)
	}
	if nerr != 0 || r.tooMany.Load() != 0 || maxConns > poolSize {
		t.Errorf("%d errors (%d too many connections), %d server connections (pool of %d)", nerr, r.tooMany.Load(), maxConns, poolSize)
	}
}
