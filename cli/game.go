// Command starfortune sells and plays Star Fortune, the instant lottery game
// of the règlement of 28 March 2012: without a subcommand it opens the kiosk
// window; its subcommands serve support staff, scripts and auditors and never
// need a display.
package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/keyring"
	"starfortune/sound"
	"starfortune/storage"
	"starfortune/tpm"
	"starfortune/ui"
)

// DataDir is the layout of a data directory.
type DataDir string

// Store is the directory of the Badger store.
func (d DataDir) Store() string { return filepath.Join(string(d), "db") }

// Journal is the journal's file.
func (d DataDir) Journal() string { return filepath.Join(string(d), "journal", "journal.sfj") }

// WithGame opens the store, the journal and the game on the data directory
// under its keys, runs fn, and closes them in order. A terminal found out
// of service still runs fn (reads work) after a warning on stderr.
func WithGame(ctx context.Context, d DataDir, keys keyring.Keys, cfg engine.Config, logger zerolog.Logger, stderr io.Writer, fn func(*engine.Service, *storage.Store) error) error {
	store, err := openStore(d.Store(), keys, logger)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := removeClearJournal(d, logger); err != nil {
		return err
	}
	j, err := openJournal(d.Journal(), keys)
	if err != nil {
		return err
	}
	defer j.Close()
	if n := j.Truncated(); n > 0 {
		logger.Warn().Int64("bytes", n).Msg("journal: torn last line cut off (crash during an append)")
	}
	cfg.Journal = j
	svc, err := engine.NewService(ctx, store, cfg, logger)
	if err != nil {
		return err
	}
	defer svc.Close()
	if err := svc.Health(); err != nil {
		fmt.Fprintf(stderr, "starfortune: WARNING: %v\n%s", err, staffHint(err))
	}
	return fn(svc, store)
}

// runGame opens the game (and its central, for a kiosk of a fleet) and
// runs the command on it.
func runGame(c *call, run func(*call) error) error {
	fleet, closeFleet, err := openFleet(c.ctx, c.conf)
	if err != nil {
		return usageError{err}
	}
	defer closeFleet()
	k, err := c.unlock(centralOf(fleet))
	if err != nil {
		return err
	}
	return c.withGame(fleet, k, run)
}

// withGame opens the game on the data directory unlocked by k and runs
// the command on it.
func (c *call) withGame(fleet *engine.FleetConfig, k dataKey, run func(*call) error) error {
	c.key = k
	cfg, err := c.engineConfig()
	if err != nil {
		return err
	}
	cfg.Fleet = fleet
	return WithGame(c.ctx, c.data, k.keys, cfg, c.logger, c.stderr, func(svc *engine.Service, store *storage.Store) error {
		c.svc, c.store = svc, store
		return run(c)
	})
}

// runWindow shows the window at once and opens the game behind it
// (serveWindow), so that the toolkit's start, the key's derivation and the
// store's opening overlap; it closes the game once the window is closed.
func runWindow(c *call, win *windowFlags) error {
	c.demoOK = !win.terminal // the window makes a new data directory the demo's, a public terminal never
	c.drawFirst = ui.DefaultStake
	fleet, closeFleet, err := openFleet(c.ctx, c.conf)
	if err != nil {
		return usageError{err}
	}
	defer closeFleet()
	o := ui.Options{Player: win.player, Fullscreen: win.fullscreen, KioskID: c.conf.FleetKiosk(), IdleTimeout: c.conf.IdleTimeout,
		Language: c.conf.Language, Version: Version, Commit: commit(), BinarySHA256: binarySHA256, ExportDir: filepath.Join(string(c.data), "exports"),
		Sounds: sound.Open(c.conf.Sound, c.logger)}
	// A kiosk plays real money from the accounts its players log in to
	// (SPEC §10; a fleet's are its central's), unless --player names the
	// demo wallet; the demo's data directory plays the demo wallet
	// (serveWindow).
	wallet := c.shared.set["player"] && win.player == engine.DemoPlayer
	closed := make(chan struct{}) // the window is closed: the game may close too
	served := make(chan error, 1)
	err = ui.Run(c.ctx, o, func(t ui.Terminal) { served <- c.serveWindow(t, fleet, wallet, closed) })
	close(closed)
	return errors.Join(err, <-served)
}

// serveWindow unlocks the data directory, opens the game and serves it to
// the window t until closed. A terminal is out of service, never gone:
// whatever stands in the way (a store another process holds, a full disk,
// a damaged store, a key the central did not give) is shown on the window
// and tried again with a backoff, and play comes back by itself once the
// cause is gone. A data directory only a passphrase opens waits on the
// unlock screen. The window plays the wallet of its options when wallet is
// set or the directory is the demo's, else the accounts players log in to.
func (c *call) serveWindow(t terminal, fleet *engine.FleetConfig, wallet bool, closed <-chan struct{}) error {
	retry := retrier{log: c.logger}
	k, ok := c.windowKey(t, centralOf(fleet), closed, &retry)
	if !ok {
		return nil
	}
	for {
		var served bool
		err := c.withGame(fleet, k, func(c *call) error {
			served = true
			retry.recovered()
			if wallet || c.key.demo {
				t.Serve(c.svc)
			} else {
				t.ServeAccounts(c.svc)
			}
			<-closed
			return nil
		})
		if served {
			return err
		}
		t.OutOfService(err)
		if !retry.wait(err, closed) {
			return nil
		}
	}
}

// windowKey unlocks the data directory for the window: with what needs
// nobody (findKey), else with the passphrase an attendant types on the
// unlock screen; a fleet kiosk keeps asking its central behind that
// screen, and whichever answers first opens the game. False: the window
// was closed first.
func (c *call) windowKey(t terminal, cen keyCentral, closed <-chan struct{}, retry *retrier) (dataKey, bool) {
	typed := make(chan dataKey, 1)
	locked := false
	for {
		k, ring, err := c.findKey(cen)
		if err == nil {
			return k, true
		}
		if errors.Is(err, errLocked) && ring != nil && hasSlot(ring, keyring.SlotPassphrase) {
			if !locked {
				locked = true
				t.Locked(func(pass []byte) error {
					k, err := c.unlockWith(ring, bytes.Clone(pass), cen)
					if err == nil {
						select {
						case typed <- k:
						default: // unlocked already
						}
					}
					return err
				})
			}
			var again <-chan time.Time // a lone kiosk waits for its attendant alone
			if cen != nil {
				again = time.After(retry.next())
			}
			select {
			case k := <-typed:
				return k, true
			case <-closed:
				return dataKey{}, false
			case <-again:
				continue
			}
		}
		t.OutOfService(err)
		if !retry.wait(err, closed) {
			return dataKey{}, false
		}
	}
}

// terminal is the window's side of its opening (ui.Terminal).
type terminal interface {
	Serve(ui.Game)
	ServeAccounts(ui.Accounts)
	Locked(ui.Unlock)
	OutOfService(error)
}

// retrier paces the window's attempts to open its game: 1 s after the
// first failure, doubling up to 10 s, so that a cause fixed by staff (a
// second instance stopped, the disk freed, the store recovered) brings
// play back within seconds. A reason is logged when it changes, not at
// every attempt.
type retrier struct {
	log    zerolog.Logger
	delay  time.Duration
	reason string
}

const (
	retryFirst = time.Second
	retryMax   = 10 * time.Second
)

// next is the pause before the next attempt.
func (r *retrier) next() time.Duration {
	r.delay = min(max(2*r.delay, retryFirst), retryMax)
	return r.delay
}

// wait logs err if it is news and waits for the next attempt; false: the
// window was closed meanwhile.
func (r *retrier) wait(err error, closed <-chan struct{}) bool {
	if err.Error() != r.reason {
		r.reason = err.Error()
		r.log.Error().Err(err).Msg("terminal out of service: the game cannot be opened; trying again by itself")
	}
	select {
	case <-time.After(r.next()):
		return true
	case <-closed:
		return false
	}
}

// recovered logs the end of an outage.
func (r *retrier) recovered() {
	if r.reason != "" {
		r.log.Info().Msg("terminal back in service: the game is open")
	}
}

func versionRun(c *call) error {
	_, err := fmt.Fprintf(c.out, "starfortune %s (commit %s)\nbinary sha256 %s\n", Version, commit(), binarySHA256())
	return err
}

// windowMemoryLimit is the Go memory the window aims to stay within. The
// collector counts about 22 MB live once the window is up: the store's
// memtable arena (10.6 MB, allocated whole but resident only as far as
// written), parsed fonts (6 to 11 MB), the board, the sounds; the runtime
// holds about 10 MB more (its own structures, free spans). With the default
// pacing the heap would grow to twice that between collections, and a
// terminal runs for weeks beside other programs. The limit must leave room
// above what stays alive: at 32 MB, under the live heap and the runtime's
// own, the collector ran without a pause, 20 times a second while the
// window waited for a player (13 to 30 % of a core) and 100 times a second
// while a puck fell (58 %: make bench's cpu_while_falling), for about 1 MB
// of PSS less than at 36. Measured under Xvfb, a unit played (PSS; CPU
// while a puck falls; collections in 5 s idle): 32 MB 128.2 MB, 58 %, 100;
// 36 MB 128.4 MB, 2 %, 0; 40 MB 134.8 MB, 3 %, 0; 48 MB 142.2 MB, 2 %, 0.
// The limit is soft: the heap may exceed it (a memtable flush allocates a
// second arena), the collector then works harder, at most half the CPU
// (e2e TestWindowHeapLimitLeavesRoom counts the collections).
const windowMemoryLimit = 36 << 20

// holdWindowMemory applies windowMemoryLimit unless the environment sets
// GOMEMLIMIT, which wins.
func holdWindowMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(windowMemoryLimit)
	}
}

func commit() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return "unknown"
}

// atIdlePriority runs fn on a thread of its own at the lowest CPU priority
// (nice 19): the kernel gives it only the CPU that nothing else wants.
func atIdlePriority(fn func()) {
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with fn, its priority with it
		_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), 19)
		fn()
	}()
}

// binarySHA256 authenticates the running program: the hash of its own file,
// computed once.
var binarySHA256 = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown: " + err.Error()
	}
	f, err := os.Open(exe)
	if err != nil {
		return "unknown: " + err.Error()
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unknown: " + err.Error()
	}
	return hex.EncodeToString(h.Sum(nil))
})

// engineConfig is the game's configuration for the data directory c.key
// unlocked: the settings' emission and protection, and the TPM counter
// that anchors the data when the settings name one (not for the demo's
// data, which holds nothing to anchor).
func (c *call) engineConfig() (engine.Config, error) {
	cfg := c.conf.Engine()
	cfg.DemoOnly = c.key.demo
	cfg.DrawFirst = c.drawFirst
	if c.conf.TPM == "" || c.key.demo {
		return cfg, nil
	}
	counter, err := tpm.Open(c.conf.TPM, tpm.DefaultIndex)
	if err != nil {
		return cfg, fmt.Errorf("the anchor named by the settings (tpm = %q) cannot be reached: %w", c.conf.TPM, err)
	}
	cfg.Counter = counter
	return cfg, nil
}
