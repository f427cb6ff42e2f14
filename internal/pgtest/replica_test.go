package pgtest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"starfortune/internal/pgtest"
)

func standby(t *testing.T, p *pgtest.Cluster, name string) *pgtest.Cluster {
	t.Helper()
	s, err := p.StartStandby(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Remove(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// insert commits one row on c within d, or says why it did not.
func insert(c *pgtest.Cluster, v int, d time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return c.Exec(ctx, "INSERT INTO t VALUES ($1)", v)
}

// A synchronous standby made with pg_basebackup follows its primary; a
// multi-host connection string with target_session_attrs=read-write finds
// whichever is the primary; after the primary is killed and the standby
// promoted, every commit the primary acknowledged is there.
func TestStandbyPromotedAfterPrimaryKilled(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p := pgtest.NeedPrimary(t)
	s := standby(t, p, "s1")
	if err := p.SetSynchronous(ctx, "ANY 1 (s1)"); err != nil {
		t.Fatal(err)
	}
	if rs, err := p.Replicas(ctx); err != nil || len(rs) != 1 || rs[0] != (pgtest.Replica{Name: "s1", State: "streaming", SyncState: "quorum"}) {
		t.Fatalf("replicas %+v %v, want s1 streaming as a quorum standby", rs, err)
	}
	if err := p.Exec(ctx, "CREATE TABLE t (v int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	url := pgtest.FailoverURL("postgres", "postgres", "", s, p) // the standby first: it must be passed over
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO t SELECT generate_series(1, 100)"); err != nil {
		t.Fatalf("write through the multi-host string: %v", err)
	}
	conn.Close(ctx)
	if rec, err := s.InRecovery(ctx); err != nil || !rec {
		t.Fatalf("standby in recovery: %v %v", rec, err)
	}

	if err := p.Crash(); err != nil {
		t.Fatal(err)
	}
	if _, err := pgx.Connect(ctx, url); err == nil {
		t.Fatal("connected for writes with the primary dead and the standby not promoted")
	}
	if err := s.Promote(); err != nil {
		t.Fatal(err)
	}
	conn, err = pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("after promotion: %v", err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 100 {
		t.Fatalf("the promoted standby has %d of the 100 rows the primary acknowledged (%v)", n, err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO t VALUES (101)"); err != nil {
		t.Fatalf("write on the promoted standby: %v", err)
	}
}

// With one synchronous standby, the primary's commits wait while it is
// down; with two listed as ANY 1, one of them down stops nothing.
func TestSynchronousCommitsWaitForAStandby(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p := pgtest.NeedPrimary(t)
	s1 := standby(t, p, "s1")
	if err := p.SetSynchronous(ctx, "ANY 1 (s1)"); err != nil {
		t.Fatal(err)
	}
	if err := p.Exec(ctx, "CREATE TABLE t (v int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	if err := s1.Crash(); err != nil {
		t.Fatal(err)
	}
	// A commit that waits never returns: the deadline ends it, whatever
	// the machine's speed.
	if err := insert(p, 1, 500*time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("commit with the only synchronous standby down: %v, want it still waiting at the deadline", err)
	}
	if err := s1.Start(); err != nil {
		t.Fatal(err)
	}
	standby(t, p, "s2")
	if err := p.SetSynchronous(ctx, "ANY 1 (s1, s2)"); err != nil {
		t.Fatal(err)
	}
	if err := s1.Crash(); err != nil {
		t.Fatal(err)
	}
	if err := insert(p, 2, 30*time.Second); err != nil {
		t.Fatalf("commit with one of two synchronous standbys down: %v", err)
	}
}
