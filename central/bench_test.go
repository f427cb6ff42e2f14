package central_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"starfortune/central"
	"starfortune/engine"
	"starfortune/internal/pgtest"
)

// Benchmarks of `make bench` (scripts/bench.sh), on the private cluster of
// internal/pgtest: a Unix socket, fsync off for the central as for its
// baselines.

// benchFleet is a fresh central with one emission and n kiosks.
func benchFleet(b *testing.B, blocks, packSize, n int) (*central.Admin, []*central.Client, string) {
	b.Helper()
	url := pgtest.DB(b)
	a, err := central.OpenAdmin(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(a.Close)
	a.NewSeed, a.Draw = pinnedSeed, memoDraw
	if _, err := a.Init(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := a.CreateEmission(ctx, 50, blocks, packSize); err != nil {
		b.Fatal(err)
	}
	// The benchmarks measure a claim's and a push's cost, not the limits
	// on how many a kiosk may make (migrations/0005).
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "UPDATE fleet_settings SET claim_packs_ahead = 1000000, claims_per_minute = 1000000"); err != nil {
		b.Fatal(err)
	}
	soldAt = time.Now().UTC().Truncate(time.Millisecond)
	var cs []*central.Client
	for i := range n {
		k, err := a.AddKiosk(ctx, fmt.Sprintf("k%d", i))
		if err != nil {
			b.Fatal(err)
		}
		c, err := central.Open(ctx, k.URL)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(c.Close)
		cs = append(cs, c)
	}
	return a, cs, url
}

func p50(ds []time.Duration) float64 {
	slices.Sort(ds)
	return float64(ds[len(ds)/2].Microseconds()) / 1000
}

// BenchmarkPackClaim claims and verifies a 1 000-unit pack (p50-ms); its
// baseline is BenchmarkSelect1.
func BenchmarkPackClaim(b *testing.B) {
	_, cs, _ := benchFleet(b, 2, 1000, 1)
	var ds []time.Duration
	for b.Loop() {
		t := time.Now()
		p, err := cs[0].ClaimPack(ctx, 50)
		if err != nil {
			b.Fatal(err)
		}
		if err := p.Verify(); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t))
	}
	b.ReportMetric(p50(ds), "p50-ms")
}

// BenchmarkSelect1 is one `SELECT 1` round trip on a kiosk's connection.
func BenchmarkSelect1(b *testing.B) {
	_, cs, _ := benchFleet(b, 1, 1000, 1)
	var ds []time.Duration
	for b.Loop() {
		t := time.Now()
		if _, err := cs[0].Heartbeat(ctx, 0, engine.JournalHead{}); err != nil { // warms the pool
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t))
	}
	b.ReportMetric(p50(ds), "heartbeat-p50-ms")
	conn, err := pgx.Connect(ctx, pgtest.Need(b).URL("postgres", "postgres", ""))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	ds = ds[:0]
	for range 1000 {
		t := time.Now()
		var one int
		if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t))
	}
	b.ReportMetric(p50(ds), "p50-ms")
}

const ingestKiosks, ingestPerKiosk, ingestBatch = 20, 10_000, 1000

// ingestSales is what each kiosk sells: its pack, whole.
func ingestSales(b *testing.B, cs []*central.Client) [][]engine.FleetSale {
	out := make([][]engine.FleetSale, len(cs))
	for i, c := range cs {
		p, err := c.ClaimPack(ctx, 50)
		if err != nil {
			b.Fatal(err)
		}
		for j := range p.Count() {
			u, _ := p.Unit(j)
			out[i] = append(out[i], engine.FleetSale{Seq: uint64(j) + 1, Pack: p.Serial, Ticket: p.Ticket(j), Time: soldAt, Player: "p", Unit: u, Revealed: true})
		}
	}
	return out
}

// BenchmarkIngest: 20 kiosks push 10 000 sales each at once, in batches of
// 1 000 (sales/s applied by the central).
func BenchmarkIngest(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		_, cs, _ := benchFleet(b, 1, ingestPerKiosk, ingestKiosks)
		sales := ingestSales(b, cs)
		b.StartTimer()
		t := time.Now()
		var wg sync.WaitGroup
		for i, c := range cs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for off := 0; off < len(sales[i]); off += ingestBatch {
					r, err := c.PushSales(ctx, sales[i][off:off+ingestBatch])
					if err != nil || r.Applied != ingestBatch {
						b.Errorf("push: %+v %v", r, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		b.ReportMetric(float64(ingestKiosks*ingestPerKiosk)/time.Since(t).Seconds(), "sales/s")
	}
}

// BenchmarkCopyBaseline is the baseline of BenchmarkIngest: the same rows
// written by one plain COPY into a table shaped like sales (same columns,
// keys and indexes), as the central's owner.
func BenchmarkCopyBaseline(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		_, cs, url := benchFleet(b, 1, ingestPerKiosk, ingestKiosks)
		sales := ingestSales(b, cs)
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := conn.Exec(ctx, "CREATE TABLE sales_copy (LIKE sales INCLUDING ALL)"); err != nil {
			b.Fatal(err)
		}
		var rows [][]any
		for i, ss := range sales {
			for _, s := range ss {
				u := s.Unit.Encode()
				rows = append(rows, []any{s.Ticket.String(), int64(1), int(s.Ticket.Index), s.Pack, fmt.Sprintf("k%d", i), int64(s.Seq),
					s.Time, s.Player, int64(50), int64(s.Unit.Prize(50)), u[:], true, s.Time})
			}
		}
		b.StartTimer()
		t := time.Now()
		n, err := conn.CopyFrom(context.Background(), pgx.Identifier{"sales_copy"}, []string{"ticket", "block_id", "position", "pack_serial", "kiosk",
			"seq", "sold_at", "player", "stake_cents", "prize_cents", "unit", "revealed", "received_at"}, pgx.CopyFromRows(rows))
		if err != nil || n != int64(len(rows)) {
			b.Fatalf("copy: %d rows, %v", n, err)
		}
		b.ReportMetric(float64(n)/time.Since(t).Seconds(), "sales/s")
		conn.Close(ctx)
	}
}

// fleetViewReads is how many times BenchmarkFleetView reads the view on
// each central.
const fleetViewReads = 200

// readViews reads the fleet view n times as a kiosk's panel refreshes it,
// and returns how long each read took.
func readViews(b *testing.B, c *central.Client, n int) []time.Duration {
	b.Helper()
	ds := make([]time.Duration, n)
	for i := range ds {
		t := time.Now()
		if _, err := c.FleetView(ctx); err != nil {
			b.Fatal(err)
		}
		ds[i] = time.Since(t)
	}
	return ds
}

// p99 is the 99th percentile of ds, in ms.
func p99(ds []time.Duration) float64 {
	slices.Sort(ds)
	return float64(ds[len(ds)*99/100].Microseconds()) / 1000
}

// fleetHistorySQL gives the central of BenchmarkFleetView its history, as
// the owner, straight into the tables: every pack of its blocks claimed by
// one of its kiosks and sold out, one sale row per position, the counters
// set as the pushes and closures would have left them (the triggers and
// foreign keys set aside while it loads, to load in a minute rather than
// ten), the blocks closed.
const fleetHistorySQL = `
SET session_replication_role = replica;
UPDATE packs p SET status = 'claimed', kiosk = 'k' || (p.first / p.count % 20), claimed_at = now(), sold = p.count;
INSERT INTO sales (ticket, block_id, position, pack_serial, kiosk, seq, sold_at, player, stake_cents, prize_cents, unit, revealed)
SELECT p.block_id || '-' || g, p.block_id, g, p.serial, p.kiosk, p.block_id * 1000000 + g, now(), 'p', 50, 0, '\x000000'::bytea, true
  FROM packs p CROSS JOIN LATERAL generate_series(p.first, p.first + p.count - 1) AS g;
UPDATE kiosks k SET sales_count = (SELECT count(*) FROM sales s WHERE s.kiosk = k.id);
SET session_replication_role = DEFAULT;
SELECT sf_close_done();
ANALYZE;
`

// BenchmarkFleetView reads the fleet view as a kiosk's panel refreshes it
// (fleet_view), on a central holding no sale (empty-p50-ms, empty-p99-ms:
// the baseline) and once it holds 5.1 million synced sales (p50-ms,
// p99-ms): six 0,50 € blocks sold out by 20 kiosks.
func BenchmarkFleetView(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		_, cs, url := benchFleet(b, 6, 10_000, 20)
		empty := readViews(b, cs[0], fleetViewReads)
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := conn.Exec(ctx, fleetHistorySQL); err != nil {
			b.Fatal(err)
		}
		var sales int64
		if err := conn.QueryRow(ctx, "SELECT sum(sales_count) FROM kiosks").Scan(&sales); err != nil || sales != 6*engine.BlockSize {
			b.Fatalf("the history holds %d sales (%v)", sales, err)
		}
		conn.Close(ctx)
		b.StartTimer()
		full := readViews(b, cs[0], fleetViewReads)
		b.ReportMetric(p50(full), "p50-ms")
		b.ReportMetric(p99(full), "p99-ms")
		b.ReportMetric(p50(empty), "empty-p50-ms")
		b.ReportMetric(p99(empty), "empty-p99-ms")
	}
}

// pooledRoundSales is how many sales a kiosk pushes in each round of
// BenchmarkPooledCall.
const pooledRoundSales = 10

// BenchmarkPooledCall times a kiosk's frequent calls through PgBouncer in
// transaction mode, each proven (OpenPooled): a round is a push of 10
// sales, the push of their movements and a heartbeat, three calls of
// the scale harness's kiosk (simKiosk), each one round trip once its
// statements are described. One kiosk's client runs its statements in
// pgx's exec mode (exec-p50-ms, exec-p99-ms), another's, alternating with
// it, in cache_describe mode, OpenPooled's (describe-p50-ms,
// describe-p99-ms). A round's first calls on a new connection are in it:
// cache_describe describes their statements then, in a round trip of its
// own.
func BenchmarkPooledCall(b *testing.B) {
	f, url, _ := pooled(b, 4, "k0", "k1")
	f.set(b, "claims_per_minute = 1000000") // a claim is no call measured
	modes := []struct {
		mode pgx.QueryExecMode
		k    simKiosk
		ds   []time.Duration
	}{{mode: pgx.QueryExecModeExec}, {mode: pgx.QueryExecModeCacheDescribe}}
	for i := range modes {
		id := fmt.Sprintf("k%d", i)
		c, err := central.OpenPooledMode(ctx, url, id, f.keys[id], modes[i].mode)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(c.Close)
		modes[i].k.c = c
	}
	var r scaleRun // the sales' claims
	for i := 0; b.Loop(); i++ {
		for j := range modes {
			m := &modes[j^(i&1)] // alternate which mode goes first
			for range pooledRoundSales {
				if err := m.k.sell(ctx, &r); err != nil {
					b.Fatal(err)
				}
			}
			t := time.Now()
			if err := m.k.flush(ctx, &r); err != nil {
				b.Fatalf("%s: %v", m.mode, err)
			}
			if _, err := m.k.c.Heartbeat(ctx, 0, engine.JournalHead{}); err != nil {
				b.Fatalf("%s: %v", m.mode, err)
			}
			m.ds = append(m.ds, time.Since(t))
		}
	}
	b.ReportMetric(p50(modes[0].ds), "exec-p50-ms")
	b.ReportMetric(p99(modes[0].ds), "exec-p99-ms")
	b.ReportMetric(p50(modes[1].ds), "describe-p50-ms")
	b.ReportMetric(p99(modes[1].ds), "describe-p99-ms")
}
