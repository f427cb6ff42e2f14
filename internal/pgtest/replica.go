package pgtest

import (
	"context"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Streaming replication, as docs/fleet.md's "A replicated central" sets it
// up, for tests that fail a central over: a primary (NeedPrimary), standbys
// made from it with pg_basebackup (StartStandby), synchronous commits
// (SetSynchronous), promotion (Promote) and the old primary killed (Crash).
// Each server is a Cluster of its own, in its own directory with its own
// socket; a test stops them (Stop) when it ends.

// NeedPrimary starts a cluster that standbys can replicate from, fails the
// test (under CI) or skips it when PostgreSQL cannot run here, and stops
// the cluster when the test ends.
func NeedPrimary(t testing.TB) *Cluster {
	t.Helper()
	if why := Available(); why != "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("pgtest: %s (CI is set: a missing capability is a failure)", why)
		}
		t.Skipf("pgtest: %s", why)
	}
	c, err := StartPrimary()
	if err != nil {
		t.Fatalf("pgtest: primary: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Remove(); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return c
}

// Remove stops c and removes it, also after Crash: pg_ctl stop refuses
// the postmaster.pid a killed server leaves.
func (c *Cluster) Remove() error {
	err := c.Stop()
	if err != nil && strings.Contains(err.Error(), "No such process") {
		return os.RemoveAll(c.Dir)
	}
	return err
}

// StartPrimary creates and starts a cluster that allows replication: WAL
// for a standby (wal_level replica), WAL senders, and the superuser let in
// for replication on the socket. wal_level and max_wal_senders are
// PostgreSQL 15's defaults; they are set all the same, so that the cluster
// says what it relies on.
func StartPrimary() (*Cluster, error) {
	c, err := Start()
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Cluster, error) {
		c.Stop()
		return nil, fmt.Errorf("primary: %w", err)
	}
	if err := appendFile(filepath.Join(c.DataDir, "pg_hba.conf"), "local replication postgres trust\n"); err != nil {
		return fail(err)
	}
	ctx := context.Background()
	for _, set := range []string{"wal_level = 'replica'", "max_wal_senders = 10", "max_replication_slots = 10"} {
		if err := c.Exec(ctx, "ALTER SYSTEM SET "+set); err != nil {
			return fail(err)
		}
	}
	// A restart rather than a reload: wal_level and the other two take
	// one, and a reload would leave pg_hba.conf read some time later.
	if out, err := c.run("pg_ctl", "-D", c.DataDir, "-m", "fast", "-w", "stop"); err != nil {
		return fail(fmt.Errorf("pg_ctl stop: %v\n%s", err, out))
	}
	if err := c.Start(); err != nil {
		return fail(err)
	}
	return c, nil
}

// StartStandby makes a standby of c named name and starts it: a base
// backup taken with pg_basebackup as the server's user, into a directory
// of its own (its socket's too), with a replication slot of that name on c
// (so c keeps the WAL the standby has not received), and the standby's
// connection back to c written by -R (standby.signal, primary_conninfo).
// The standby reports itself to c as name (its cluster_name), the name
// synchronous_standby_names lists. The caller removes it (Remove).
func (c *Cluster) StartStandby(name string) (*Cluster, error) {
	s, err := newClusterDir()
	if err != nil {
		return nil, err
	}
	if out, err := s.run("pg_basebackup", "-D", s.DataDir, "-h", c.Dir, "-p", strconv.Itoa(Port), "-U", "postgres",
		"-X", "stream", "-c", "fast", "-R", "-C", "-S", name, "--no-sync"); err != nil {
		os.RemoveAll(s.Dir)
		return nil, fmt.Errorf("pg_basebackup of standby %s: %v\n%s", name, err, out)
	}
	// After -R's lines. Root appending keeps the file the server's.
	if err := appendFile(filepath.Join(s.DataDir, "postgresql.auto.conf"), "cluster_name = "+quote(name)+"\n"); err != nil {
		os.RemoveAll(s.Dir)
		return nil, fmt.Errorf("standby %s: %w", name, err)
	}
	if err := s.Start(); err != nil {
		os.RemoveAll(s.Dir)
		return nil, err
	}
	return s, nil
}

// newClusterDir makes the directory of a cluster that is not initialised
// yet: owned by the server's user, with the owner's pid for reapOrphans.
// asPostgres is, under root, the command prefix that runs a binary as the
// postgres user (PostgreSQL and PgBouncer refuse to run as root), the
// paths given to that user; nil otherwise.
func asPostgres(paths ...string) ([]string, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, err
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	for _, p := range paths {
		if err := os.Chown(p, uid, gid); err != nil {
			return nil, err
		}
	}
	return []string{"runuser", "-u", "postgres", "--"}, nil
}

func newClusterDir() (*Cluster, error) {
	dir, err := os.MkdirTemp(baseDir(), "sf-pg-")
	if err != nil {
		return nil, err
	}
	// The owner's pid: a test binary killed by its timeout never runs
	// Main's Stop, and the next Start reaps its cluster.
	if err := os.WriteFile(filepath.Join(dir, "owner.pid"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return nil, err
	}
	c := &Cluster{Dir: dir, DataDir: filepath.Join(dir, "data")}
	if c.asUser, err = asPostgres(dir); err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, err
	}
	return c, nil
}

// SetSynchronous makes commits on c wait for the standbys named by names,
// a synchronous_standby_names value such as "ANY 1 (s1, s2)", with
// synchronous_commit on: a commit is acknowledged once that many of them
// have flushed it. It returns once every standby listed streams from c
// and enough of them are synchronous.
func (c *Cluster) SetSynchronous(ctx context.Context, names string) error {
	for _, set := range []string{"synchronous_commit = on", "synchronous_standby_names = " + quote(names)} {
		if err := c.Exec(ctx, "ALTER SYSTEM SET "+set); err != nil {
			return err
		}
	}
	if err := c.Exec(ctx, "SELECT pg_reload_conf()"); err != nil {
		return err
	}
	for {
		var want string
		var sync int
		err := c.QueryRow(ctx, `SELECT current_setting('synchronous_standby_names'),
			(SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming' AND sync_state IN ('sync', 'quorum'))`, nil, &want, &sync)
		if err != nil {
			return err
		}
		if want == names && sync > 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("synchronous standbys %s: none streams synchronously: %w", names, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Replica is a standby as its primary's pg_stat_replication shows it.
type Replica struct {
	Name, State, SyncState string
}

// Replicas lists the standbys streaming from c.
func (c *Cluster) Replicas(ctx context.Context) ([]Replica, error) {
	conn, err := pgx.Connect(ctx, c.URL("postgres", "postgres", ""))
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT application_name, state, sync_state FROM pg_stat_replication ORDER BY application_name")
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Replica, error) {
		var x Replica
		return x, r.Scan(&x.Name, &x.State, &x.SyncState)
	})
}

// Promote turns the standby c into a primary (pg_ctl promote) and returns
// once it accepts writes.
func (c *Cluster) Promote() error {
	if out, err := c.run("pg_ctl", "-D", c.DataDir, "-w", "-t", "60", "promote"); err != nil {
		return fmt.Errorf("pg_ctl promote: %v\n%s", err, out)
	}
	return nil
}

// InRecovery says whether c is a standby (pg_is_in_recovery).
func (c *Cluster) InRecovery(ctx context.Context) (bool, error) {
	var r bool
	err := c.QueryRow(ctx, "SELECT pg_is_in_recovery()", nil, &r)
	return r, err
}

// Exec runs sql on c's postgres database as the superuser, on a connection
// of its own.
func (c *Cluster) Exec(ctx context.Context, sql string, args ...any) error {
	conn, err := pgx.Connect(ctx, c.URL("postgres", "postgres", ""))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql, args...)
	return err
}

// QueryRow runs sql with args on c's postgres database as the superuser
// and scans its one row into dest.
func (c *Cluster) QueryRow(ctx context.Context, sql string, args []any, dest ...any) error {
	conn, err := pgx.Connect(ctx, c.URL("postgres", "postgres", ""))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	return conn.QueryRow(ctx, sql, args...).Scan(dest...)
}

// FailoverURL is a libpq connection string to database db as role that
// lists every one of clusters, in order, and takes the first that accepts
// writes (target_session_attrs=read-write): the primary, whichever it is.
func FailoverURL(db, role, password string, clusters ...*Cluster) string {
	hosts, ports := make([]string, len(clusters)), make([]string, len(clusters))
	for i, c := range clusters {
		hosts[i], ports[i] = c.Dir, strconv.Itoa(Port)
	}
	s := fmt.Sprintf("host=%s port=%s dbname=%s user=%s target_session_attrs=read-write", strings.Join(hosts, ","), strings.Join(ports, ","), db, role)
	if password != "" {
		s += " password=" + password
	}
	return s
}

// quote is s as an SQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// appendFile appends text to the file at path.
func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
