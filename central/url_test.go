package central

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// A kiosk's connection string keeps the operator's hosts, port, database and
// TLS settings, with its own role and password.
func TestKioskURL(t *testing.T) {
	cases := []struct{ admin, want string }{
		{"host=/run/pg port=5433 dbname=fleet user=op", "host=/run/pg port=5433 dbname=fleet user=r password=pw"},
		{"postgres://op:secret@a.example:5432,b.example:5433/fleet?sslmode=require&target_session_attrs=read-write",
			"host=a.example,b.example port=5432,5433 dbname=fleet user=r password=pw sslmode=require target_session_attrs=read-write"},
	}
	for _, c := range cases {
		cfg, err := pgxpool.ParseConfig(c.admin)
		if err != nil {
			t.Fatal(err)
		}
		pool, err := pgxpool.NewWithConfig(context.Background(), cfg) // connects lazily
		if err != nil {
			t.Fatal(err)
		}
		a := &Admin{pool: pool, url: c.admin}
		if got := a.kioskURL("r", "pw"); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.admin, got, c.want)
		}
		pool.Close()
	}
}
