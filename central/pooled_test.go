package central_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"starfortune/central"
	"starfortune/engine"
	"starfortune/internal/pgtest"
)

// Kiosks behind PgBouncer in transaction mode (migrations/0011): one
// pooled role for every kiosk, each call proving its kiosk with the
// kiosk's call key; tested through the real pooler, as an attacker holding
// the pooled role's password and one kiosk's key would try.

// pooled is a central behind a pooler of poolSize server connections:
// the fleet, the pooled role's connection string through the pooler, and
// the pooler.
func pooled(t testing.TB, poolSize int, kiosks ...string) (*fleet, string, *pgtest.Pooler) {
	t.Helper()
	f := newFleet(t, 1, 100, kiosks...)
	var url string
	pool := pgtest.NeedPooler(t, poolSize, func(addr string) string {
		p, err := f.admin.AddPooler(ctx, addr)
		if err != nil {
			t.Fatal(err)
		}
		url = p.URL
		return p.UserList
	})
	return f, url, pool
}

// openPooled is kiosk's client through the pooler, proving its calls
// with key.
func openPooled(t *testing.T, url, kiosk string, key []byte) *central.Client {
	t.Helper()
	c, err := central.OpenPooled(ctx, url, kiosk, key)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// mac is kiosk's proof of call number n under key.
func mac(key []byte, kiosk string, n int64) []byte {
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "%s %d", kiosk, n)
	return m.Sum(nil)
}

func TestKioskCallsProvenThroughThePooler(t *testing.T) {
	f, url, pool := pooled(t, 4, "k1", "k2")
	k1 := openPooled(t, url, "k1", f.keys["k1"])
	p, err := k1.ClaimPack(ctx, 50)
	if err != nil {
		t.Fatalf("a claim through the pooler: %v\n%s", err, pool.Log())
	}
	if err := p.Verify(); err != nil {
		t.Fatal(err)
	}
	push(t, k1, sell(t, p, 0, 10, 1, "ann"))
	if _, err := k1.Heartbeat(ctx, 0, engine.JournalHead{}); err != nil {
		t.Fatal(err)
	}
	v, err := k1.FleetView(ctx)
	if err != nil || len(v.Kiosks) != 2 || v.Kiosks[0].ID != "k1" || v.Kiosks[0].Sales != 10 || v.Kiosks[1].Sales != 0 {
		t.Fatalf("the fleet view through the pooler: %+v %v", v, err)
	}
	if st, err := k1.KioskState(ctx); err != nil || st.LastSaleSeq != 10 {
		t.Fatalf("k1's state through the pooler: %+v %v", st, err)
	}

	// Another kiosk's key, or a kiosk that is not, proves nothing: every
	// call is refused as not a kiosk's.
	for _, c := range []*central.Client{openPooled(t, url, "k1", f.keys["k2"]), openPooled(t, url, "k3", f.keys["k2"])} {
		if _, err := c.ClaimPack(ctx, 50); !errors.Is(err, engine.ErrUnknownKiosk) {
			t.Errorf("a claim proven with k2's key for another kiosk: %v", err)
		}
		if _, err := c.KioskState(ctx); !errors.Is(err, engine.ErrUnknownKiosk) {
			t.Errorf("a state read with k2's key for another kiosk: %v", err)
		}
	}

	// The pooled role itself: no kiosk without a proof, no table, no
	// token it can forge, no proof played twice, no proof beyond its
	// transaction.
	raw, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close(ctx)
	if _, err := raw.Exec(ctx, "SELECT kiosk_state()", pgx.QueryExecModeExec); sqlState(err) != "SF004" {
		t.Errorf("a call without a proof: %v", err)
	}
	for _, sql := range []string{"SELECT * FROM sales", "SELECT * FROM kiosks", "SELECT * FROM call_secret", "SELECT sf_call_token('k1')"} {
		if _, err := raw.Exec(ctx, sql, pgx.QueryExecModeExec); sqlState(err) != "42501" {
			t.Errorf("%s as the pooled role: %v, want insufficient privilege", sql, err)
		}
	}
	// Its sessions end a transaction left open as a kiosk role's do
	// (migrations/0014).
	var idle string
	if err := raw.QueryRow(ctx, "SHOW idle_in_transaction_session_timeout", pgx.QueryExecModeExec).Scan(&idle); err != nil || idle != "5s" {
		t.Errorf("the pooled role's idle_in_transaction_session_timeout: %q %v, want the kiosks' 5s", idle, err)
	}
	forged := fmt.Sprintf("SELECT set_config('sf.call', 'k1 ' || pg_backend_pid() || ' ' || (extract(epoch FROM now()) * 1000000)::bigint || ' %x', true), kiosk_state()",
		make([]byte, 32))
	if _, err := raw.Exec(ctx, forged, pgx.QueryExecModeExec); sqlState(err) != "SF004" {
		t.Errorf("a forged token: %v", err)
	}
	n := time.Now().UnixMicro()
	b := &pgx.Batch{}
	b.Queue("SELECT sf_call($1, $2, $3)", "k1", n, mac(f.keys["k1"], "k1", n))
	b.Queue("SELECT kiosk_state()")
	if err := raw.SendBatch(ctx, b).Close(); err != nil {
		t.Fatalf("a proven call by hand: %v", err)
	}
	b = &pgx.Batch{}
	b.Queue("SELECT sf_call($1, $2, $3)", "k1", n, mac(f.keys["k1"], "k1", n))
	b.Queue("SELECT kiosk_state()")
	if err := raw.SendBatch(ctx, b).Close(); sqlState(err) != "SF013" {
		t.Errorf("the same call played again: %v", err)
	}
	if _, err := raw.Exec(ctx, "SELECT sf_call($1, $2, $3)", pgx.QueryExecModeExec, "k1", n+1, mac(f.keys["k1"], "k1", n+1)); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(ctx, "SELECT kiosk_state()", pgx.QueryExecModeExec); sqlState(err) != "SF004" {
		t.Errorf("a call after its proof's transaction ended: %v", err)
	}
	if c, err := k1.KioskState(ctx); err != nil || c.LastSaleSeq != 10 {
		t.Fatalf("k1 after the attempts: %+v %v", c, err)
	}
}

// Many kiosks through a pooler of a few server connections: each call
// waits for a connection of the pool, none is refused, and the server
// never holds more of the pooled role's connections than the pool.
func TestManyKiosksFewServerConnections(t *testing.T) {
	const kiosks, pool = 40, 4
	var ids []string
	for i := range kiosks {
		ids = append(ids, fmt.Sprintf("k%d", i))
	}
	f, url, _ := pooled(t, pool, ids...)
	var wg sync.WaitGroup
	errs := make(chan error, kiosks)
	for _, id := range ids {
		c := openPooled(t, url, id, f.keys[id])
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if _, err := c.Heartbeat(ctx, 0, engine.JournalHead{}); err != nil {
					errs <- fmt.Errorf("%s: %w", id, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	conn, err := pgx.Connect(ctx, f.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE usename = current_database() || '_pool'").Scan(&n); err != nil || n > pool {
		t.Fatalf("%d server connections of the pooled role (pool of %d): %v", n, pool, err)
	}
	v, err := f.admin.FleetView(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range v.Kiosks {
		if k.LastSeen.IsZero() || !strings.HasPrefix(k.ID, "k") {
			t.Errorf("kiosk %s never seen: %+v", k.ID, k)
		}
	}
}
