package pgtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// PgBouncer in front of the test cluster, as a national fleet's kiosks
// reach their central (docs/fleet.md): Debian's pgbouncer, in transaction
// mode, on a Unix socket of its own, started per test.

// PoolerBin is Debian's PgBouncer.
const PoolerBin = "/usr/sbin/pgbouncer"

// PoolerPort names the pooler's socket file.
const PoolerPort = 6432

// Pooler is a running PgBouncer.
type Pooler struct {
	Dir string // its socket directory
	cmd *exec.Cmd
}

// NeedPooler starts a PgBouncer in front of the test cluster for the
// test, which keeps at most poolSize server connections per database and
// knows the roles userlist gives for its address (its auth_file: "role"
// "SCRAM verifier" lines); it stops with the test. Without pgbouncer it
// fails under CI and skips otherwise, as Need does.
func NeedPooler(t testing.TB, poolSize int, userlist func(addr string) string) *Pooler {
	t.Helper()
	c := Need(t)
	if _, err := os.Stat(PoolerBin); err != nil {
		msg := "pgbouncer is not installed (" + PoolerBin + "; Debian package pgbouncer, scripts/deps.sh --window)"
		if os.Getenv("CI") != "" {
			t.Fatalf("pgtest: %s (CI is set: a missing capability is a failure)", msg)
		}
		t.Skipf("pgtest: %s", msg)
	}
	p, err := c.StartPooler(poolSize, userlist)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	return p
}

// StartPooler starts a PgBouncer in front of c in a new directory.
func (c *Cluster) StartPooler(poolSize int, userlist func(addr string) string) (*Pooler, error) {
	dir, err := os.MkdirTemp(baseDir(), "sf-pgb-")
	if err != nil {
		return nil, err
	}
	p := &Pooler{Dir: dir}
	ini := fmt.Sprintf(`[databases]
%s

[pgbouncer]
listen_addr =
unix_socket_dir = %s
listen_port = %d
auth_type = scram-sha-256
auth_file = %s
pool_mode = transaction
default_pool_size = %d
max_client_conn = 20000
max_db_connections = %d
server_reset_query =
server_login_retry = 1
ignore_startup_parameters = extra_float_digits
logfile = %s
pidfile = %s
`, databasesLine(c), dir, PoolerPort, filepath.Join(dir, "userlist.txt"), poolSize, poolSize,
		filepath.Join(dir, "pgbouncer.log"), filepath.Join(dir, "pgbouncer.pid"))
	for name, body := range map[string]string{"pgbouncer.ini": ini, "userlist.txt": userlist(p.Addr()) + "\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			return nil, err
		}
	}
	prefix, err := asPostgres(dir, filepath.Join(dir, "pgbouncer.ini"), filepath.Join(dir, "userlist.txt"))
	if err != nil {
		return nil, err
	}
	// A client is a file descriptor: as many as the hard limit allows.
	argv := append(prefix, "sh", "-c", `ulimit -n "$(ulimit -Hn)"; exec "$0" "$@"`, PoolerBin, filepath.Join(dir, "pgbouncer.ini"))
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.Dir = "/"
	if err := p.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pgbouncer: %w", err)
	}
	sock := filepath.Join(dir, ".s.PGSQL."+strconv.Itoa(PoolerPort))
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if conn, err := net.Dial("unix", sock); err == nil {
			conn.Close()
			return p, nil
		}
		if time.Now().After(deadline) {
			p.Stop()
			return nil, fmt.Errorf("pgbouncer did not listen on %s within 10 s:\n%s", sock, p.Log())
		}
	}
}

// URL is the connection string of database db as role through the pooler.
func (p *Pooler) URL(db, role, password string) string {
	return fmt.Sprintf("host=%s port=%d dbname=%s user=%s password=%s", p.Dir, PoolerPort, db, role, password)
}

// Addr is the pooler's address, as `central pooler --pooler` takes it.
func (p *Pooler) Addr() string { return fmt.Sprintf("host=%s port=%d", p.Dir, PoolerPort) }

// Log is the pooler's log.
func (p *Pooler) Log() string {
	b, _ := os.ReadFile(filepath.Join(p.Dir, "pgbouncer.log"))
	return string(b)
}

// Retarget points the pooler at cluster c (a standby promoted after its
// primary died, as an operator's failover does): its configuration
// rewritten, then reloaded with SIGHUP; clients stay connected to it.
func (p *Pooler) Retarget(c *Cluster) error {
	path := filepath.Join(p.Dir, "pgbouncer.ini")
	ini, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.Split(string(ini), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "* = ") {
			lines[i] = databasesLine(c)
		}
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		return err
	}
	pid, err := os.ReadFile(filepath.Join(p.Dir, "pgbouncer.pid"))
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(pid)))
	if err != nil {
		return fmt.Errorf("pgbouncer.pid: %w", err)
	}
	return syscall.Kill(n, syscall.SIGHUP)
}

// databasesLine is the pooler's [databases] line: every database, on c.
func databasesLine(c *Cluster) string { return fmt.Sprintf("* = host=%s port=%d", c.Dir, Port) }

// Stop stops the pooler and removes its directory.
func (p *Pooler) Stop() {
	if p.cmd != nil && p.cmd.Process != nil {
		// runuser passes SIGTERM on; pgbouncer exits at once on it.
		p.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { p.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			p.cmd.Process.Kill()
			<-done
		}
	}
	os.RemoveAll(p.Dir)
}
