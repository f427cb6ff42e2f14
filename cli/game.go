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

	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/keyring"
	"starfortune/sound"
	"starfortune/storage"
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
	cfg := c.conf.Engine()
	cfg.Fleet, cfg.DemoOnly = fleet, k.demo
	return WithGame(c.ctx, c.data, k.keys, cfg, c.logger, c.stderr, func(svc *engine.Service, store *storage.Store) error {
		c.svc, c.store = svc, store
		return run(c)
	})
}

// runWindow opens the game on another goroutine while the window is built,
// so that the store's opening and the toolkit's start overlap, runs the
// window, and closes the game after it. A data directory only a
// passphrase opens is opened once an attendant has typed it on the
// window's unlock screen.
func runWindow(c *call, win *windowFlags) error {
	fleet, closeFleet, err := openFleet(c.ctx, c.conf)
	if err != nil {
		return usageError{err}
	}
	defer closeFleet()
	o := ui.Options{Player: win.player, Fullscreen: win.fullscreen, KioskID: c.conf.FleetKiosk(), IdleTimeout: c.conf.IdleTimeout,
		Language: c.conf.Language, Version: Version, Commit: commit(), BinarySHA256: binarySHA256, ExportDir: filepath.Join(string(c.data), "exports"),
		Sounds: sound.Open(c.conf.Sound, c.logger)}
	cen := centralOf(fleet)
	keyed := make(chan dataKey, 1)
	unlocked := make(chan error, 1) // why the key was not found without the window
	if ring, typed := c.needsTyping(cen); typed {
		o.Unlock = func(pass []byte) error {
			k, err := c.unlockWith(ring, bytes.Clone(pass), cen)
			if err == nil {
				keyed <- k
			}
			return err
		}
	} else {
		// The key derivation (a tenth of a second) or the central's answer
		// overlaps the toolkit's start.
		go func() {
			k, _, err := c.findKey(cen)
			if err != nil {
				unlocked <- err
				return
			}
			keyed <- k
		}()
	}
	ready := make(chan *engine.Service, 1)
	closed := make(chan struct{}) // the window is closed: the game may close too
	opened := make(chan error, 1) // the game's result
	go func() {
		select {
		case k := <-keyed:
			opened <- c.withGame(fleet, k, func(c *call) error {
				ready <- c.svc
				<-closed
				return nil
			})
		case err := <-unlocked: // the key could not be found
			opened <- err
		case <-closed: // closed while locked
			opened <- nil
		}
	}()
	var openErr error
	err = ui.Run(c.ctx, func() (ui.Game, error) {
		select {
		case svc := <-ready:
			return svc, nil
		case openErr = <-opened: // it could not open
			return nil, openErr
		}
	}, o)
	close(closed)
	if openErr != nil && o.Unlock == nil {
		return openErr // which Run returned
	}
	if openErr != nil {
		return errors.Join(err, openErr)
	}
	return errors.Join(err, <-opened)
}

func versionRun(c *call) error {
	_, err := fmt.Fprintf(c.out, "starfortune %s (commit %s)\nbinary sha256 %s\n", Version, commit(), binarySHA256())
	return err
}

// windowMemoryLimit is the Go memory the window aims to stay within. The
// collector counts about 21 MB live after a unit: the store's memtable arena
// (10.6 MB, allocated whole but resident only as far as written: a few
// sales), parsed fonts (6 MB), the board, the sounds. With the default
// pacing the heap would grow to twice that between collections, and a
// terminal runs for weeks beside other programs. Measured under Xvfb after
// playing a unit (PSS, against a hello window's 85-86 MB): 64 MB left
// 114-127 MB, 40 MB 113-118, 36 MB 111-112, 32 MB 107-108. At 32 MB the
// collector runs about 50 times in a 40 s session, mostly while the window
// starts (each a few ms on the other core); once started the window
// allocates little. The limit is soft: the heap may exceed it (a memtable
// flush allocates a second arena), the collector then works harder, at most
// half the CPU.
const windowMemoryLimit = 32 << 20

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
