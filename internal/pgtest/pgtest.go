// Package pgtest starts a private PostgreSQL cluster for a test binary: one
// cluster per binary (initdb + pg_ctl in a temporary directory, a Unix
// socket only, never a server already running on the machine), and a fresh
// database per test. PostgreSQL refuses to run as root, so under root its
// binaries run as the `postgres` system user Debian's package creates, with
// `runuser -u postgres --`.
//
// A package using it calls Main from its TestMain, so the cluster is stopped
// when the tests end:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
package pgtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// BinDir holds Debian's PostgreSQL 15 binaries.
const BinDir = "/usr/lib/postgresql/15/bin"

// Port names the socket file; the socket directory is private to the
// cluster, so the default port never collides with another server.
const Port = 5432

// Cluster is a running private cluster.
type Cluster struct {
	Dir     string // socket directory, owned by the server's user
	DataDir string
	asUser  []string // the command prefix that runs PostgreSQL's binaries

	mu    sync.Mutex
	admin *pgx.Conn
	n     int
}

var (
	once    sync.Once
	shared  *Cluster
	missing string // why PostgreSQL cannot run here
	failed  error
)

// Main runs the tests and stops the cluster if one was started.
func Main(m *testing.M) int {
	code := m.Run()
	if shared != nil {
		if err := shared.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
		}
	}
	return code
}

// Available says why PostgreSQL cannot run here, or "" when it can.
func Available() string {
	if _, err := os.Stat(filepath.Join(BinDir, "initdb")); err != nil {
		return "PostgreSQL 15 is not installed (" + BinDir + "/initdb; Debian package postgresql, scripts/deps.sh --window)"
	}
	if os.Geteuid() == 0 {
		if _, err := user.Lookup("postgres"); err != nil {
			return "running as root and there is no postgres user to run PostgreSQL as"
		}
		if _, err := exec.LookPath("runuser"); err != nil {
			return "running as root without runuser"
		}
	}
	return ""
}

// Need fails the test (under CI) or skips it (otherwise) when PostgreSQL
// cannot run here, and returns the binary's cluster, started on first use.
func Need(t testing.TB) *Cluster {
	t.Helper()
	once.Do(func() {
		if missing = Available(); missing != "" {
			return
		}
		shared, failed = Start()
	})
	if missing != "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("pgtest: %s (CI is set: a missing capability is a failure)", missing)
		}
		t.Skipf("pgtest: %s", missing)
	}
	if failed != nil {
		t.Fatalf("pgtest: %v", failed)
	}
	return shared
}

// DB creates a fresh database for the test and returns its connection
// string, as the cluster's superuser.
func DB(t testing.TB) string {
	t.Helper()
	c := Need(t)
	name, err := c.CreateDB(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c.URL(name, "postgres", "")
}

// Start creates and starts a cluster in a new temporary directory.
func Start() (*Cluster, error) {
	reapOrphans(baseDir())
	c, err := newClusterDir()
	if err != nil {
		return nil, err
	}
	if out, err := c.run("initdb", "-D", c.DataDir, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		os.RemoveAll(c.Dir)
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	// The superuser is trusted on the socket; every other role (the
	// kiosks') must give its scram-sha-256 password, as in production.
	hba := "local all postgres trust\nlocal all all scram-sha-256\n"
	if err := os.WriteFile(filepath.Join(c.DataDir, "pg_hba.conf"), []byte(hba), 0o600); err != nil {
		os.RemoveAll(c.Dir)
		return nil, err
	}
	if c.asUser != nil {
		if out, err := exec.Command("chown", "postgres:", filepath.Join(c.DataDir, "pg_hba.conf")).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("chown pg_hba.conf: %v %s", err, out)
		}
	}
	if err := c.Start(); err != nil {
		os.RemoveAll(c.Dir)
		return nil, err
	}
	return c, nil
}

// baseDir holds the clusters' directories: /tmp rather than $TMPDIR, as
// the postgres user must reach them (make bench points TMPDIR into root's
// home) and a socket path must stay under 108 bytes.
func baseDir() string {
	if base := os.Getenv("STARFORTUNE_PGTEST_DIR"); base != "" {
		return base
	}
	return "/tmp"
}

// reapOrphans stops and removes the clusters under base whose test binary
// is gone.
func reapOrphans(base string) {
	dirs, _ := filepath.Glob(filepath.Join(base, "sf-pg-*"))
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, "owner.pid"))
		pid, perr := strconv.Atoi(string(b))
		if err != nil || perr != nil || syscall.Kill(pid, 0) == nil {
			continue // not ours, or its owner still runs
		}
		c := &Cluster{Dir: dir, DataDir: filepath.Join(dir, "data")}
		c.asUser, _ = asPostgres() // no postgres user: Stop fails, as it would
		c.Stop()
	}
}

// Start starts the cluster's server (again, after Stop or Kill).
func (c *Cluster) Start() error {
	// fsync off keeps the tests quick and loses nothing short of a power
	// cut, which these tests do not make. synchronous_commit stays on: with
	// it off, a server killed (Crash) loses commits it had acknowledged, as
	// TestServerKilledDuringClaimsAndPushes showed.
	opts := fmt.Sprintf("-k %s -p %d -c listen_addresses='' -c fsync=off -c full_page_writes=off -c max_connections=200 -c log_lock_waits=on -c log_line_prefix='%%m [%%p] %%d %%u '", c.Dir, Port)
	if out, err := c.run("pg_ctl", "-D", c.DataDir, "-l", filepath.Join(c.Dir, "server.log"), "-w", "-t", "60", "-o", opts, "start"); err != nil {
		return fmt.Errorf("pg_ctl start: %v\n%s", err, out)
	}
	return nil
}

// Stop stops the server at once and removes the cluster.
func (c *Cluster) Stop() error {
	c.mu.Lock()
	if c.admin != nil {
		c.admin.Close(context.Background())
		c.admin = nil
	}
	c.mu.Unlock()
	out, err := c.run("pg_ctl", "-D", c.DataDir, "-m", "immediate", "-w", "stop")
	if err != nil && !strings.Contains(string(out), "not running") && !strings.Contains(string(out), "PID file") {
		return fmt.Errorf("pg_ctl stop: %v\n%s", err, out)
	}
	return os.RemoveAll(c.Dir)
}

// Crash kills the server and its backends with SIGKILL, as a power cut or
// the OOM killer would; Start recovers it. Open connections break.
func (c *Cluster) Crash() error {
	c.mu.Lock()
	if c.admin != nil {
		c.admin.Close(context.Background())
		c.admin = nil
	}
	c.mu.Unlock()
	b, err := os.ReadFile(filepath.Join(c.DataDir, "postmaster.pid"))
	if err != nil {
		return fmt.Errorf("crash: %w", err)
	}
	pid, err := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
	if err != nil {
		return fmt.Errorf("crash: postmaster.pid: %w", err)
	}
	victims := append(children(pid), pid)
	for _, p := range victims {
		syscall.Kill(p, syscall.SIGKILL)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		alive := false
		for _, p := range victims {
			alive = alive || syscall.Kill(p, 0) == nil
		}
		if !alive {
			return nil
		}
	}
	return fmt.Errorf("crash: the server's processes outlived SIGKILL")
}

// CPUTime is the CPU time (user and system) the server's processes have
// used: the postmaster and its children, as /proc counts them.
func (c *Cluster) CPUTime() (time.Duration, error) {
	b, err := os.ReadFile(filepath.Join(c.DataDir, "postmaster.pid"))
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
	if err != nil {
		return 0, fmt.Errorf("postmaster.pid: %w", err)
	}
	var ticks int64
	for _, p := range append(children(pid), pid) {
		if f := procStat(p); len(f) > 12 {
			u, _ := strconv.ParseInt(f[11], 10, 64)
			s, _ := strconv.ParseInt(f[12], 10, 64)
			ticks += u + s
		}
	}
	return time.Duration(ticks) * time.Second / 100, nil // USER_HZ
}

// procStat is the fields of /proc/pid/stat after the command's name
// (state, ppid, …), nil if it cannot be read.
func procStat(pid int) []string {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil
	}
	// pid (comm) state ppid …: comm may hold spaces, so read after the last ')'.
	return strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
}

// children lists the processes whose parent is pid.
func children(pid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := procStat(p); len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, p)
		}
	}
	return out
}

// CreateDB creates a new, empty database and returns its name.
func (c *Cluster) CreateDB(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.admin == nil {
		conn, err := pgx.Connect(ctx, c.URL("postgres", "postgres", ""))
		if err != nil {
			return "", fmt.Errorf("connect to the test cluster: %w", err)
		}
		c.admin = conn
	}
	c.n++
	name := fmt.Sprintf("t%d_%d", os.Getpid(), c.n)
	if _, err := c.admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return name, nil
}

// URL is a libpq keyword/value connection string to database db as role.
func (c *Cluster) URL(db, role, password string) string {
	s := fmt.Sprintf("host=%s port=%d dbname=%s user=%s", c.Dir, Port, db, role)
	if password != "" {
		s += " password=" + password
	}
	return s
}

// LockWaits is the server's log of the lock waits longer than
// deadlock_timeout (1 s; log_lock_waits is on), each with its statement
// and what holds the lock, at most n lines: what a test whose calls hit a
// lock timeout waited for: those in database db, but of the roles in
// except.
func (c *Cluster) LockWaits(n int, db string, except ...string) string {
	var out []string
	lines := strings.Split(c.Log(), "\n")
next:
	for i, l := range lines {
		if !strings.Contains(l, "] "+db+" ") || !strings.Contains(l, "still waiting for") && !strings.Contains(l, "acquired") {
			continue
		}
		for _, role := range except {
			if strings.Contains(l, "] "+db+" "+role+" ") {
				continue next
			}
		}
		out = append(out, lines[i:min(i+4, len(lines))]...)
	}
	return strings.Join(out[:min(n, len(out))], "\n")
}

// Log returns the server's log, for a failing test's message.
func (c *Cluster) Log() string {
	b, _ := os.ReadFile(filepath.Join(c.Dir, "server.log"))
	return string(b)
}

func (c *Cluster) run(bin string, args ...string) ([]byte, error) {
	argv := append(append(append([]string{}, c.asUser...), filepath.Join(BinDir, bin)), args...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = "/" // runuser's user may not enter the caller's directory
	return cmd.CombinedOutput()
}
