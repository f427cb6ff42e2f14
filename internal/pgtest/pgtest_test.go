package pgtest_test

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"starfortune/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// Each test gets its own database of the one private cluster, on a socket.
func TestFreshDatabasePerTest(t *testing.T) {
	ctx := context.Background()
	a, b := pgtest.DB(t), pgtest.DB(t)
	if a == b {
		t.Fatal("two tests share a database")
	}
	conn, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var listen, version string
	if err := conn.QueryRow(ctx, "SELECT current_setting('listen_addresses'), current_setting('server_version_num')").Scan(&listen, &version); err != nil {
		t.Fatal(err)
	}
	if listen != "" || version[:2] != "15" {
		t.Fatalf("listen_addresses %q, version %s: want a socket-only PostgreSQL 15", listen, version)
	}
}
