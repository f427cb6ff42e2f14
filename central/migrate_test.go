package central

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

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
	old, err := a.AddKiosk(ctx, "old")
	if err != nil {
		t.Fatal(err)
	}
	if applied, err := a.Init(ctx); err != nil || !slices.Equal(applied, []string{"0003_fleet_view.sql", "0004_kiosk_data_keys.sql"}) {
		t.Fatalf("migration to 3: %v %v", applied, err)
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
		if _, err := c.Heartbeat(ctx, 3+i); err != nil {
			t.Fatalf("%s: heartbeat: %v", k.ID, err)
		}
		v, err := c.FleetView(ctx)
		if err != nil || len(v.Kiosks) != 2 || v.Kiosks[i].ID != k.ID || v.Kiosks[i].Backlog != 3+i || !v.Kiosks[i].Online(v.At) {
			t.Fatalf("%s: fleet view %+v %v", k.ID, v, err)
		}
		var pg *pgconn.PgError
		if err := c.pool.QueryRow(ctx, "SELECT heartbeat()").Scan(new(any)); !errors.As(err, &pg) || pg.Code != "42883" {
			t.Fatalf("%s: the old heartbeat(): %v, want undefined function", k.ID, err)
		}
	}
	if _, err := a.FleetView(ctx); err != nil {
		t.Fatal(err)
	}
}
