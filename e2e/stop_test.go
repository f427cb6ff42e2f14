package e2e

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"starfortune/internal/pgtest"
)

// Stopping in time (issue #37): a kiosk of a fleet whose central hangs
// exits within seconds of SIGTERM, as systemd's stop of the unit
// (TimeoutStopSec=15) expects, and loses nothing by it.

// signal sends sig to the play command running, if any, and says whether
// there was one.
func (k *kioskProc) signal(sig os.Signal) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.child != nil && k.child.Signal(sig) == nil
}

// stopBound is how soon a kiosk must end after SIGTERM: well within the
// unit's TimeoutStopSec=15 (deploy/starfortune-kiosk.service).
const stopBound = 5 * time.Second

// A kiosk selling (`play`, whose background loop syncs as the window's
// does) while its central hangs gets SIGTERM: it exits within stopBound,
// the sync round in flight cancelled; every unit it printed is in its
// history, and once the central answers again a sync pushes them all.
func TestFleetKioskStopsInTimeWhileTheCentralHangs(t *testing.T) {
	cluster := pgtest.Need(t)
	db := fleetCentral(t, 100)
	k := newKioskProc(t, db, "k1")
	proxy := newNetProxy(t, cluster.Dir, pgtest.Port)
	url := proxy.url(k.url, k.id, cluster.Dir)
	mustKiosk(t, k.dir, url, k.id, "wallet", "credit", "--amount", "1000")

	type ended struct {
		stderr string
		err    error
		at     time.Time
	}
	exited := make(chan ended, 1)
	go func() {
		errOut, err := k.play(url, "--stake", "0,50", "--n", "1000000")
		exited <- ended{errOut, err, time.Now()}
	}()
	for deadline := time.Now().Add(30 * time.Second); k.sold() < 10; time.Sleep(10 * time.Millisecond) {
		select {
		case e := <-exited:
			t.Fatalf("play ended before the test stalled its central: %v\n%s", e.err, e.stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the kiosk sold nothing within 30 s")
		}
	}
	proxy.stall()
	proxy.hungRound(t)
	time.Sleep(200 * time.Millisecond) // the kiosk sells on meanwhile
	sent := time.Now()
	if !k.signal(syscall.SIGTERM) {
		t.Fatal("play is not running")
	}
	var e ended
	select {
	case e = <-exited:
	case <-time.After(3 * stopBound):
		k.kill()
		e = <-exited
		t.Fatalf("the kiosk was still running %v after SIGTERM; then killed: %v\n%s", 3*stopBound, e.err, e.stderr)
	}
	took := e.at.Sub(sent)
	t.Logf("SIGTERM to exit: %v (%d units printed; %d bytes held by the stalled central); play said: %s",
		took.Round(time.Millisecond), k.sold(), proxy.held.Load(), strings.TrimSpace(e.stderr))
	if took > stopBound {
		t.Fatalf("the kiosk took %v to exit after SIGTERM while its central hung, want at most %v", took, stopBound)
	}
	var exit *exec.ExitError
	if !errors.As(e.err, &exit) || exit.ExitCode() < 0 {
		t.Fatalf("play ended with %v, want an exit status (interrupted): %s", e.err, e.stderr)
	}

	if at := len(centralSales(t, db)[k.id]); at >= k.sold() { // asked past the proxy
		t.Fatalf("the central had all %d sales at the stop: the test proves nothing", at)
	} else {
		t.Logf("the central had %d of the %d sales at the stop", at, k.sold())
	}
	proxy.resume()
	history := k.settle(t) // a sync pushes the rest; every printed unit is in the history
	sameSales(t, k.id, history, centralSales(t, db)[k.id])
	centralAuditOK(t, db)
}

// The window of a kiosk of a fleet, as systemd runs it, gets SIGTERM while
// its central hangs in the middle of a sync round: it exits within
// stopBound.
func TestFleetWindowStopsInTimeWhileTheCentralHangs(t *testing.T) {
	needTools(t, "Xvfb")
	cluster := pgtest.Need(t)
	db := fleetCentral(t, 100)
	k := newKioskProc(t, db, "k1")
	proxy := newNetProxy(t, cluster.Dir, pgtest.Port)
	url := proxy.url(k.url, k.id, cluster.Dir)
	mustKiosk(t, k.dir, url, k.id, "play", "--stake", "0,50", "--n", "3") // the kiosk's key, a pack, a unit sold

	display := startXvfb(t)
	home := t.TempDir()
	out := &safeBuffer{}
	// A heartbeat every second (30 s by default): the idle window's loop
	// calls the central each round, as a kiosk whose sales flow would. Its
	// settings file holds the kiosk's password: mode 600.
	conf := filepath.Join(t.TempDir(), "starfortune.toml")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf("kiosk_id = %q\n[central]\nurl = %q\nheartbeat_every = \"1s\"\n", k.id, url)), 0o600); err != nil {
		t.Fatal(err)
	}
	win := exec.Command(k.bin, "--data", k.dir, "--config", conf)
	win.Env = append(os.Environ(), "HOME="+home, "DISPLAY="+display, "LANG=C.UTF-8")
	win.Stdout, win.Stderr = out, out
	if err := win.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- win.Wait() }()
	t.Cleanup(func() {
		win.Process.Kill()
		<-exited
	})
	// The window's game is open once its loop has called the central a
	// few times (a round a second).
	before := proxy.conns.Load()
	for deadline := time.Now().Add(60 * time.Second); proxy.conns.Load() == before || !logHas(k.dir, `"command":""`); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the window did not reach its central within 60 s:\n%s", out)
		}
	}
	time.Sleep(1500 * time.Millisecond)
	proxy.stall()
	proxy.hungRound(t)
	sent := time.Now()
	if err := win.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		exited <- err // for the cleanup
		took := time.Since(sent)
		t.Logf("SIGTERM to exit: %v (%v)", took.Round(time.Millisecond), err)
		if took > stopBound {
			t.Fatalf("the window took %v to exit after SIGTERM while its central hung, want at most %v:\n%s", took, stopBound, out)
		}
		if err != nil {
			t.Fatalf("the window ended with %v after SIGTERM, want a clean exit:\n%s", err, out)
		}
	case <-time.After(3 * stopBound):
		t.Fatalf("the window was still running %v after SIGTERM while its central hung:\n%s", 3*stopBound, out)
	}
	proxy.resume()
	if out, errOut, code := kioskCLI(t, k.dir, url, k.id, "audit"); code != 0 {
		t.Fatalf("audit after the stop: %d\n%s%s", code, out, errOut)
	}
}

// logHas reports whether the data directory's log holds s.
func logHas(dir, s string) bool {
	b, _ := os.ReadFile(filepath.Join(dir, "logs", "starfortune.log"))
	return strings.Contains(string(b), s)
}
