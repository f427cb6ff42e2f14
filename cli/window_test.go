package cli

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/keyring"
	"starfortune/ui"
)

// screen records what the window is told while its game opens.
type screen struct {
	down   chan error
	locked chan ui.Unlock
}

func newScreen() *screen { return &screen{down: make(chan error, 10), locked: make(chan ui.Unlock, 1)} }

func (s *screen) Serve(ui.Game)             {}
func (s *screen) ServeAccounts(ui.Accounts) {}
func (s *screen) Locked(u ui.Unlock)        { s.locked <- u }
func (s *screen) OutOfService(err error)    { s.down <- err }

// fakeCentral gives a fleet kiosk's key while it is up.
type fakeCentral struct {
	kek []byte
	up  atomic.Bool
}

func (c *fakeCentral) DataKey(context.Context) ([]byte, error) {
	if !c.up.Load() {
		return nil, errors.New("central unreachable")
	}
	return c.kek, nil
}

func windowCall(t *testing.T, dir string) *call {
	t.Setenv(passphraseEnv, "")
	return &call{ctx: context.Background(), data: DataDir(dir), demoOK: true, logger: zerolog.Nop(), shared: &shared{}}
}

type found struct {
	k  dataKey
	ok bool
}

func windowKeyOf(c *call, s *screen, cen keyCentral, closed chan struct{}) chan found {
	got := make(chan found, 1)
	go func() {
		k, ok := c.windowKey(s, cen, closed, &retrier{log: zerolog.Nop()})
		got <- found{k, ok}
	}()
	return got
}

// A fleet kiosk whose keyring only its central opens is out of service
// while the central does not answer (no unlock screen no passphrase could
// open), and opens by itself once the central is back.
func TestFleetKioskWaitsForItsCentralOutOfService(t *testing.T) {
	dir := t.TempDir()
	cen := &fakeCentral{kek: make([]byte, 32)}
	if _, _, err := keyring.CreateCentral(DataDir(dir).Keyring(), cen.kek); err != nil {
		t.Fatal(err)
	}
	s := newScreen()
	got := windowKeyOf(windowCall(t, dir), s, cen, make(chan struct{}))
	if err := <-s.down; err == nil || !errors.Is(err, errLocked) {
		t.Fatalf("out of service for %v", err)
	}
	cen.up.Store(true)
	select {
	case f := <-got:
		if !f.ok || len(f.k.keys.Generations()) == 0 {
			t.Fatalf("the key once the central is back: %+v", f)
		}
	case u := <-s.locked:
		t.Fatalf("the unlock screen (%v) for a keyring no passphrase opens", u != nil)
	case <-time.After(20 * time.Second):
		t.Fatal("the key did not come once the central was back")
	}
}

// A lone kiosk waits on the unlock screen: a wrong passphrase is refused
// and the screen stays, the right one opens the data directory.
func TestLoneKioskWaitsForItsPassphrase(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := keyring.CreatePassphrase(DataDir(dir).Keyring(), []byte(testPassphrase)); err != nil {
		t.Fatal(err)
	}
	s := newScreen()
	got := windowKeyOf(windowCall(t, dir), s, nil, make(chan struct{}))
	unlock := <-s.locked
	if err := unlock([]byte("not the passphrase")); !errors.Is(err, engine.ErrWrongPassphrase) {
		t.Fatalf("a wrong passphrase: %v", err)
	}
	if err := unlock([]byte(testPassphrase)); err != nil {
		t.Fatal(err)
	}
	if f := <-got; !f.ok {
		t.Fatal("not unlocked")
	}
	if len(s.down) > 0 {
		t.Fatalf("out of service: %v", <-s.down)
	}
}

// A fleet kiosk with a passphrase too shows the unlock screen while its
// central is away, and opens without anyone once the central answers.
func TestFleetKioskUnlockScreenOrItsCentral(t *testing.T) {
	dir := t.TempDir()
	cen := &fakeCentral{kek: make([]byte, 32)}
	ring, keys, err := keyring.CreatePassphrase(DataDir(dir).Keyring(), []byte(testPassphrase))
	if err != nil {
		t.Fatal(err)
	}
	if err := ring.SetCentral(keys, cen.kek); err != nil {
		t.Fatal(err)
	}
	s := newScreen()
	closed := make(chan struct{})
	got := windowKeyOf(windowCall(t, dir), s, cen, closed)
	<-s.locked
	cen.up.Store(true)
	if f := <-got; !f.ok {
		t.Fatal("not unlocked by the central")
	}

	// Closed while locked: nothing is opened.
	cen.up.Store(false)
	got = windowKeyOf(windowCall(t, dir), s, cen, closed)
	<-s.locked
	close(closed)
	if f := <-got; f.ok {
		t.Fatal("a key found after the window closed")
	}
}

// A public terminal (--terminal) never makes a new data directory the
// demo's: it is out of service, saying to run key init, and goes on by
// itself once that is done.
func TestTerminalNotSetUpIsOutOfService(t *testing.T) {
	dir := t.TempDir()
	c := windowCall(t, dir)
	c.demoOK = false
	s := newScreen()
	got := windowKeyOf(c, s, nil, make(chan struct{}))
	if err := <-s.down; err == nil || !strings.Contains(err.Error(), "key init") {
		t.Fatalf("out of service for %v", err)
	}
	if _, _, err := keyring.CreatePassphrase(DataDir(dir).Keyring(), []byte(testPassphrase)); err != nil { // staff: key init
		t.Fatal(err)
	}
	var unlock ui.Unlock
	select {
	case unlock = <-s.locked:
	case <-time.After(20 * time.Second):
		t.Fatal("no unlock screen once the terminal was set up")
	}
	if err := unlock([]byte(testPassphrase)); err != nil {
		t.Fatal(err)
	}
	if f := <-got; !f.ok || f.k.demo {
		t.Fatalf("the key: %+v", f)
	}
	if _, err := os.Stat(DataDir(dir).DemoKey()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a demo key file: %v", err)
	}
}
