package central

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"starfortune/engine"
	"starfortune/internal/pgtest"
)

// A kiosk added under schema 2 (a central deployed before the fleet view)
// can, once `central init` applied 0003, send the new heartbeat and read
// the fleet view like a kiosk added after it; the old heartbeat() is gone.
func TestKioskFromBeforeMigration3(t *testing.T) {
	ctx := context.Background()
	a, conn := centralAt(t, 2)
	old := addKioskV2(t, a, "old")
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	var later []string // every migration after 2
	for _, m := range ms[2:] {
		later = append(later, m.name)
	}
	if applied, err := a.Init(ctx); err != nil || !slices.Equal(applied, later) || later[0] != "0003_fleet_view.sql" {
		t.Fatalf("migration from 2 to the latest: %v %v", applied, err)
	}
	// 0005 gave the existing kiosk's role its limits, as AddKiosk does.
	var limit int
	var config []string
	if err := conn.QueryRow(ctx, "SELECT rolconnlimit, rolconfig FROM pg_roles WHERE rolname = $1", old.Role).Scan(&limit, &config); err != nil ||
		limit != 8 || !slices.Contains(config, "idle_in_transaction_session_timeout=5000") {
		t.Fatalf("the old kiosk's role after 0005: connection limit %d, settings %q, %v", limit, config, err)
	}
	young, err := a.AddKiosk(ctx, "young")
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range []Kiosk{old, young} {
		c, err := Open(ctx, k.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.Heartbeat(ctx, 3+i, engine.JournalHead{}); err != nil {
			t.Fatalf("%s: heartbeat: %v", k.ID, err)
		}
		v, err := c.FleetView(ctx)
		if err != nil || len(v.Kiosks) != 2 || v.Kiosks[i].ID != k.ID || v.Kiosks[i].Backlog != 3+i || !v.Kiosks[i].Online(v.At) {
			t.Fatalf("%s: fleet view %+v %v", k.ID, v, err)
		}
		var pg *pgconn.PgError
		for _, old := range []string{"SELECT heartbeat()", "SELECT heartbeat(0)"} { // 0003's, 0006's
			if err := c.pool.QueryRow(ctx, old).Scan(new(any)); !errors.As(err, &pg) || pg.Code != "42883" {
				t.Fatalf("%s: the old %s: %v, want undefined function", k.ID, old, err)
			}
		}
	}
	if _, err := a.FleetView(ctx); err != nil {
		t.Fatal(err)
	}
}

// addKioskV2 adds kiosk id as `central kiosk add` did before migration
// 0005 (no role limits: the function that sets them did not exist).
func addKioskV2(t *testing.T, a *Admin, id string) Kiosk {
	t.Helper()
	ctx := context.Background()
	k := Kiosk{ID: id}
	verifier, err := scramVerifier("pw")
	if err != nil {
		t.Fatal(err)
	}
	err = pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		var db string
		if err := tx.QueryRow(ctx, "SELECT current_database()").Scan(&db); err != nil {
			return err
		}
		k.Role = db + "_k_" + id
		var stmt string
		if err := tx.QueryRow(ctx, query("kiosk_role"), k.Role, verifier, db+"_kiosk").Scan(&stmt); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return err
		}
		return tx.QueryRow(ctx, "INSERT INTO kiosks (id, role) VALUES ($1, $2) RETURNING created_at", id, k.Role).Scan(&k.CreatedAt)
	})
	if err != nil {
		t.Fatal(err)
	}
	k.URL = a.kioskURL(k.Role, "pw")
	return k
}

// Movements a kiosk pushed under schema 14, one of them received months
// ago, move with 0015 into their months' partitions; the kiosk pushes on
// into this month's, the next month's is there ahead, and the audit is
// clean. A movement id used again, stored or earlier in the same push, is
// refused as the unique key used to refuse it; two movements under one
// number are refused whole.
func TestMovementsFromBeforeMigration15(t *testing.T) {
	ctx := context.Background()
	a, conn := centralAt(t, 14)
	k, err := a.AddKiosk(ctx, "k1")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(ctx, k.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	now := time.Now().UTC().Truncate(time.Millisecond)
	grant := func(seq uint64, id string) engine.FleetMovement {
		return engine.FleetMovement{Seq: seq, ID: id, Player: "demo", Kind: engine.LedgerGrant, Credit: 1000, Time: now}
	}
	// Pushed as a kiosk of schema 14's time did: a JSON array (0017 made the arrays).
	jsonGrant := func(seq int, id string) string {
		return fmt.Sprintf(`{"seq":%d,"id":%q,"player":"demo","kind":"grant","debit_cents":0,"credit_cents":1000,"at":%q}`, seq, id, now.Format(time.RFC3339Nano))
	}
	var applied int64
	if err := c.pool.QueryRow(ctx, "SELECT applied FROM push_movements($1::jsonb)", "["+jsonGrant(1, "g1")+","+jsonGrant(2, "g2")+"]").Scan(&applied); err != nil || applied != 2 {
		t.Fatalf("push under schema 14: %d applied, %v", applied, err)
	}
	if _, err := conn.Exec(ctx, "UPDATE movements SET received_at = received_at - interval '3 months' WHERE seq = 1"); err != nil {
		t.Fatal(err)
	}
	if applied, err := a.Init(ctx); err != nil || len(applied) == 0 || applied[0] != "0015_movements_by_month.sql" {
		t.Fatalf("migration from 14: %v %v", applied, err)
	}

	month := func(d int) string { return "movements_m" + now.AddDate(0, d, 0).Format("200601") }
	now = now.AddDate(0, 0, -now.Day()+1) // the month's first day, so that AddDate adds whole months
	held := map[string][]int64{}
	rows, _ := conn.Query(ctx, "SELECT tableoid::regclass::text, seq FROM movements ORDER BY seq")
	var part string
	var seq int64
	if _, err := pgx.ForEachRow(rows, []any{&part, &seq}, func() error { held[part] = append(held[part], seq); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(held) != 2 || !slices.Equal(held[month(-3)], []int64{1}) || !slices.Equal(held[month(0)], []int64{2}) {
		t.Fatalf("after 0015 the movements are in %v, want seq 1 in %s and 2 in %s", held, month(-3), month(0))
	}
	var next bool
	if err := conn.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", month(1)).Scan(&next); err != nil || !next {
		t.Fatalf("next month's partition %s made ahead: %v %v", month(1), next, err)
	}

	now = time.Now().UTC().Truncate(time.Millisecond)
	if r, err := c.PushMovements(ctx, []engine.FleetMovement{grant(3, "g3")}); err != nil || r.Applied != 1 {
		t.Fatalf("push after 0015: %+v %v", r, err)
	}
	if rep, err := a.Audit(ctx); err != nil || !rep.OK {
		t.Fatalf("audit after 0015: %+v %v", rep, err)
	}
	r, err := c.PushMovements(ctx, []engine.FleetMovement{grant(4, "g1"), grant(5, "g5"), grant(6, "g5")})
	if err != nil || r.Applied != 1 || r.Conflicts != 2 {
		t.Fatalf("ids used again: %+v %v, want 1 applied and 2 refused", r, err)
	}
	var reasons []string
	rows, _ = conn.Query(ctx, "SELECT seq::text || ': ' || reason FROM movement_conflicts ORDER BY seq")
	if reasons, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil ||
		!slices.Equal(reasons, []string{"4: movement id already used", "6: movement id already used"}) {
		t.Fatalf("conflicts %q %v", reasons, err)
	}
	if _, err := c.PushMovements(ctx, []engine.FleetMovement{grant(7, "g7"), grant(7, "g8")}); !errors.Is(err, engine.ErrSyncGap) {
		t.Fatalf("two movements under one number: %v, want %v", err, engine.ErrSyncGap)
	}
}

// centralAt is a new central's owner at schema n (its first n
// migrations), and a connection to its database.
func centralAt(t *testing.T, n int) (*Admin, *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	url := pgtest.DB(t)
	a, err := OpenAdmin(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	if applied, err := migrateTo(ctx, conn, n); err != nil || len(applied) != n {
		t.Fatalf("schema %d: %v %v", n, applied, err)
	}
	return a, conn
}
