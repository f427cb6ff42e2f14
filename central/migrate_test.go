package central

import (
	"context"
	"errors"
	"slices"
	"testing"

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
	url := pgtest.DB(t)
	a, err := OpenAdmin(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if applied, err := migrateTo(ctx, conn, 2); err != nil || len(applied) != 2 {
		t.Fatalf("schema 2: %v %v", applied, err)
	}
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
