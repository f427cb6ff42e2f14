// Kiosk processes selling against a central for the fleet's fault tests
// (failover, soak): minutes of child processes, never under the race
// detector (make test runs these without it).

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sys/unix"

	"starfortune/internal/pgtest"
)

// kioskProc is one kiosk as its players see it: play commands run one
// after another as child processes of its own, and every unit they
// printed, that is sold, durable and shown to a player.
type kioskProc struct {
	id, dir, url string
	bin          string // the shipped binary
	conf         string // a settings file the play commands are given (--config), or ""
	// pace, when set, is the time between two units the test reads of
	// what play prints, through a pipe of a page: the pipe full, the
	// kiosk waits to print its next unit, so that it sells at that pace,
	// a few units ahead at most, as a player would.
	pace time.Duration

	mu      sync.Mutex
	printed map[string]int64 // ticket → prize (cents)
	seen    []time.Time      // when each unit printed was read, in order
	dups    []string         // tickets printed twice: never
	garbled []string         // lines printed that are not a unit: never
	child   *os.Process      // the play command running, for SIGKILL
}

func newKioskProc(t *testing.T, db, id string) *kioskProc {
	t.Helper()
	return &kioskProc{id: id, dir: t.TempDir(), url: fleetKiosk(t, db, id), bin: starfortune(t), printed: map[string]int64{}}
}

// play runs `play ARGS --json` of the kiosk as a child process (connected
// to url) and keeps what it prints. It returns the child's stderr and how
// it ended.
func (k *kioskProc) play(url string, args ...string) (string, error) {
	global := append([]string{"--data", k.dir}, centralFlag(url, k.id)...)
	if k.conf != "" {
		global = append(global, "--config", k.conf)
	}
	cmd := exec.Command(k.bin, append(global, append([]string{"play", "--json"}, args...)...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	if k.pace > 0 {
		if f, ok := out.(*os.File); !ok {
			return "", fmt.Errorf("play's standard output is a %T, not a pipe", out)
		} else if _, err := unix.FcntlInt(f.Fd(), unix.F_SETPIPE_SZ, os.Getpagesize()); err != nil {
			return "", fmt.Errorf("a pipe of a page: %w", err)
		}
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	k.mu.Lock()
	k.child = cmd.Process
	k.mu.Unlock()
	r := bufio.NewReader(out)
	for read := time.Now(); ; {
		if k.pace > 0 {
			time.Sleep(time.Until(read.Add(k.pace)))
			read = time.Now()
		}
		line, err := r.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull {
			break // and the last line of a killed child, cut short: never printed whole
		}
		ticket, prize, ok := printedUnit(line)
		k.mu.Lock()
		if !ok || err != nil {
			k.garbled = append(k.garbled, string(line))
			k.mu.Unlock()
			continue
		}
		if _, dup := k.printed[ticket]; dup {
			k.dups = append(k.dups, ticket)
		}
		k.printed[ticket] = prize
		k.seen = append(k.seen, time.Now())
		k.mu.Unlock()
	}
	err = cmd.Wait()
	k.mu.Lock()
	k.child = nil
	k.mu.Unlock()
	return stderr.String(), err
}

// printedUnit reads the ticket and prize of a unit play --json printed:
// {"ticket":"…","player":…,"prize_cents":N,…}. It reads them in place, not
// with encoding/json: in make bench's fleet_block_s 20 kiosks print 850 000
// units while the clock runs, on the same two cores.
func printedUnit(line []byte) (ticket string, prize int64, ok bool) {
	_, rest, ok := bytes.Cut(line, []byte(`{"ticket":"`))
	if !ok {
		return "", 0, false
	}
	t, rest, ok := bytes.Cut(rest, []byte(`"`))
	if !ok {
		return "", 0, false
	}
	_, rest, ok = bytes.Cut(rest, []byte(`,"prize_cents":`))
	if !ok {
		return "", 0, false
	}
	n := bytes.IndexAny(rest, ",}")
	if n < 0 {
		return "", 0, false
	}
	prize, err := strconv.ParseInt(string(rest[:n]), 10, 64)
	return string(t), prize, err == nil
}

// kill sends SIGKILL to the play command running, if any, and says
// whether there was one.
func (k *kioskProc) kill() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.child != nil && k.child.Kill() == nil
}

func (k *kioskProc) sold() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.printed)
}

// settle syncs the kiosk until it has nothing left to push, then checks
// that its own audit is clean and that every unit it printed is in its
// history, and returns that history.
func (k *kioskProc) settle(t *testing.T) []saleJSON {
	t.Helper()
	var st syncJSON
	if out := mustKiosk(t, k.dir, k.url, k.id, "sync", "--json"); json.Unmarshal([]byte(out), &st) != nil || st.Backlog != 0 {
		t.Fatalf("kiosk %s: sync left a backlog: %s", k.id, out)
	}
	if out, errOut, code := kioskCLI(t, k.dir, k.url, k.id, "audit"); code != 0 {
		t.Fatalf("kiosk %s audit: %d\n%s%s", k.id, code, out, errOut)
	}
	history := decodeSales(t, mustKiosk(t, k.dir, k.url, k.id, "history", "--last", "1000000", "--json"))
	in := map[string]bool{}
	for _, s := range history {
		in[s.Ticket] = true
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.dups) > 0 {
		t.Fatalf("kiosk %s printed %d tickets twice, the first %s", k.id, len(k.dups), k.dups[0])
	}
	if len(k.garbled) > 0 {
		t.Fatalf("kiosk %s printed %d lines that are not a unit, the first %q", k.id, len(k.garbled), k.garbled[0])
	}
	for ticket := range k.printed {
		if !in[ticket] {
			t.Fatalf("kiosk %s: ticket %s was printed to a player but is not in its history", k.id, ticket)
		}
	}
	return history
}

// centralSales is what the central holds of each kiosk's sales: ticket →
// prize, from the owner's connection db.
func centralSales(t *testing.T, db string) map[string]map[string]int64 {
	t.Helper()
	conn := ownerConn(t, db)
	rows, err := conn.Query(t.Context(), "SELECT kiosk, ticket, prize_cents FROM sales")
	if err != nil {
		t.Fatal(err)
	}
	bySite := map[string]map[string]int64{}
	for rows.Next() {
		var kiosk, ticket string
		var prize int64
		if err := rows.Scan(&kiosk, &ticket, &prize); err != nil {
			t.Fatal(err)
		}
		if bySite[kiosk] == nil {
			bySite[kiosk] = map[string]int64{}
		}
		bySite[kiosk][ticket] = prize
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return bySite
}

// sameSales fails unless the central holds exactly the kiosk's history:
// every sale once, none more, with the same prize.
func sameSales(t *testing.T, id string, history []saleJSON, central map[string]int64) {
	t.Helper()
	if len(history) != len(central) {
		t.Fatalf("kiosk %s sold %d units, the central holds %d of it", id, len(history), len(central))
	}
	for _, s := range history {
		prize, ok := central[s.Ticket]
		if !ok || prize != s.PrizeCents {
			t.Fatalf("kiosk %s: ticket %s (prize %d) at the central: %v, prize %d", id, s.Ticket, s.PrizeCents, ok, prize)
		}
	}
}

// ownerConn connects to the central db as its owner, for the end of a
// test that checks what the central holds.
func ownerConn(t *testing.T, db string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// crashServer kills the central's server with SIGKILL and starts it again
// 1 to 3 s later (rng draws how long).
func crashServer(t *testing.T, cluster *pgtest.Cluster, rng *rand.Rand) {
	t.Helper()
	if err := cluster.Crash(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Duration(1000+rng.IntN(2000)) * time.Millisecond)
	if err := cluster.Start(); err != nil {
		t.Fatal(err)
	}
}
