// Command starfortune sells and plays Star Fortune, the instant lottery game
// of the règlement of 28 March 2012: without a subcommand it opens the kiosk
// window; its subcommands serve support staff, scripts and auditors and never
// need a display.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"gopkg.in/natefinch/lumberjack.v2"

	"starfortune/engine"
	"starfortune/internal/fsync"
	"starfortune/journal"
	"starfortune/sound"
	"starfortune/storage"
	"starfortune/ui"
)

// version is the release; the commit comes from the build's VCS stamp.
const version = "0.1.0"

const usage = `Star Fortune — kiosk lottery game.

Usage:
  starfortune [--data DIR] [--config FILE] [--kiosk] [--player ID] [--lang fr|en]   open the game window
  starfortune [--data DIR] play --stake 0.5|1|2 [--player ID] [--n N] [--batch K] [--json]
  starfortune [--data DIR] history [--player ID] [--last N] [--json|--csv]
  starfortune [--data DIR] show TICKET [--json]
  starfortune [--data DIR] blocks [--json]
  starfortune [--data DIR] wallet show|credit|payout [--player ID] [--amount EUROS] [--json]
  starfortune [--data DIR] audit [--json]
  starfortune [--data DIR] operator set-pin | operator log [--last N] [--json]
  starfortune [--data DIR] report [--csv|--json]
  starfortune [--data DIR] backup FILE
  starfortune [--data DIR] restore FILE               into an empty data directory
  starfortune [--data DIR] recover                    rebuild the store from the journal
  starfortune [--data DIR] sync [--status] [--release] [--json]   a kiosk of a fleet and its central
  starfortune central --db URL …  |  starfortune verify …           the fleet's central (README "Fleet")

A kiosk of a fleet: starfortune [--data DIR] --central URL --kiosk ID play|history|show|…
(or the settings file's [central] url, kiosk, offline_grace): units come from the
central's packs.
  starfortune version

The data directory defaults to %s.
The window speaks French unless --lang, the settings file's language or an
English system locale (LC_ALL, LC_MESSAGES, LANG) says "en".
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("starfortune", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintf(stderr, usage, storage.DefaultDir()) }
	dataFlag := fs.String("data", storage.DefaultDir(), "data directory")
	kiosk := fs.Bool("kiosk", false, "kiosk mode: full screen, closing needs confirmation")
	player := fs.String("player", engine.DemoPlayer, "player whose wallet the window uses")
	configFlag := fs.String("config", "", "settings file (TOML); default $XDG_CONFIG_HOME/starfortune/starfortune.toml when it exists")
	langFlag := fs.String("lang", "", `language of the window, "fr" or "en" (overrides the settings file and the system locale)`)
	centralFlag := fs.String("central", "", "a kiosk of a fleet: the central's connection string (overrides the settings file's [central] url)")
	args, kioskID := fleetArgs(args)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cmd, rest := "", fs.Args()
	if len(rest) > 0 {
		cmd, rest = rest[0], rest[1:]
	}
	if cmd == "version" {
		fmt.Fprintf(stdout, "starfortune %s (commit %s)\nbinary sha256 %s\n", version, commit(), binarySHA256())
		return 0
	}
	if standalone, ok := standaloneCommands[cmd]; ok { // no data directory: central_cli.go
		return runStandalone(cmd, standalone, rest, stdout, stderr)
	}
	command, ok := commands[cmd]
	if _, offline := offlineCommands[cmd]; cmd != "" && !ok && !offline {
		fmt.Fprintf(stderr, "starfortune: unknown command %q\n", cmd)
		fs.Usage()
		return 2
	}
	if cmd == "" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		fmt.Fprintln(stderr, "starfortune: no display to open the window on (DISPLAY is not set); the subcommands work without one")
		return 1
	}
	configPath := *configFlag
	if configPath == "" {
		configPath = DefaultConfigPath()
	}
	conf, err := LoadSettings(configPath, *langFlag, os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "starfortune: %v\n", err)
		return 2
	}
	fs.Visit(func(f *flag.Flag) { // the command line beats the file
		switch f.Name {
		case "data":
			conf.DataDir = *dataFlag
		case "central":
			conf.CentralURL = *centralFlag
		}
	})
	if kioskID != "" {
		conf.CentralKiosk = kioskID
	}
	if kioskID != "" && conf.CentralURL == "" {
		fmt.Fprintf(stderr, "starfortune: --kiosk %s names a kiosk of a fleet: give --central URL too (or [central] url in the settings file)\n", kioskID)
		return 2
	}

	logger, closeLog, err := openLog(conf.DataDir)
	if err != nil {
		fmt.Fprintf(stderr, "starfortune: %v\n", err)
		return 1
	}
	defer closeLog()
	logger = logger.With().Str("kiosk", conf.KioskID).Logger()
	logStart := func(l zerolog.Logger) {
		l.Info().Str("version", version).Str("commit", commit()).Str("sha256", binarySHA256()).
			Str("command", cmd).Str("data", conf.DataDir).Str("config", configPath).Msg("start")
	}
	if cmd == "" {
		holdWindowMemory()
		atIdlePriority(func() { logStart(logger) }) // hashing the binary takes 25 ms of CPU: not the window's
	} else {
		logStart(logger)
	}
	logger = logger.Level(conf.ZerologLevel()) // after "start": every run records its version

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	d := dataDir(conf.DataDir)
	ecfg := conf.Engine()
	if _, offline := offlineCommands[cmd]; !offline {
		fleet, closeFleet, ferr := openFleet(ctx, conf)
		if ferr != nil {
			fmt.Fprintf(stderr, "starfortune: %v\n", ferr)
			return 2
		}
		defer closeFleet()
		ecfg.Fleet = fleet
	}
	if offline, ok := offlineCommands[cmd]; ok {
		err = offline(ctx, d, ecfg, logger, rest, stdout)
	} else if cmd == "" {
		err = runWindow(ctx, d, ecfg, logger, stderr, ui.Options{Player: *player, Kiosk: *kiosk, Name: conf.CentralKiosk, IdleTimeout: conf.IdleTimeout,
			Language: conf.Language, Version: version, Commit: commit(), BinarySHA256: binarySHA256, ExportDir: filepath.Join(string(d), "exports"),
			Sounds: sound.Open(conf.Sound, logger)})
	} else {
		err = withGame(ctx, d, ecfg, logger, stderr, func(svc *engine.Service, store *storage.Store) error {
			return command(ctx, svc, store, rest, stdout)
		})
	}
	if err != nil && !errors.As(err, new(usageError)) && !errors.Is(err, flag.ErrHelp) {
		logger.Error().Err(err).Str("command", cmd).Msg("command failed")
	}
	return exitStatus(cmd, err, stderr)
}

// exitStatus says err on stderr and turns it into the exit status: 2 for a
// mistake in the command line, 0 for --help, 1 for any other error.
func exitStatus(cmd string, err error, stderr io.Writer) int {
	var usageErr usageError
	switch {
	case errors.As(err, &usageErr):
		fmt.Fprintf(stderr, "starfortune %s: %v\n", cmd, err)
		return 2
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		fmt.Fprintf(stderr, "starfortune: %v\n%s", err, staffHint(err))
		return 1
	}
	return 0
}

// staffHint is what support staff can do about err, as a line to print
// after it, or "": the engine says what is wrong, the command line says
// which command repairs it.
func staffHint(err error) string {
	var oos *engine.OutOfServiceError
	switch {
	case errors.Is(err, engine.ErrNoPIN):
		return "starfortune: set the operator PIN with: starfortune operator set-pin\n"
	case errors.As(err, &oos) && oos.StoreBehind:
		return "starfortune: the journal holds what the store lost: run starfortune recover\n"
	case errors.Is(err, engine.ErrOffline):
		return "starfortune: the kiosk is OFFLINE: it has not reached its central for longer than its offline grace, so it sells nothing;\n" +
			"starfortune: it resumes by itself once the central answers (check the network and the central; see starfortune sync --status)\n"
	}
	return ""
}

// dataDir is the layout of a data directory.
type dataDir string

func (d dataDir) store() string   { return filepath.Join(string(d), "db") }
func (d dataDir) journal() string { return filepath.Join(string(d), "journal", "journal.sfj") }

// withGame opens the store, the journal and the game on the data directory,
// runs fn, and closes them in order. A terminal found out of service still
// runs fn (reads work) after a warning on stderr.
func withGame(ctx context.Context, d dataDir, cfg engine.Config, logger zerolog.Logger, stderr io.Writer, fn func(*engine.Service, *storage.Store) error) error {
	store, err := storage.Open(d.store(), logger)
	if err != nil {
		return err
	}
	defer store.Close()
	j, err := journal.Open(d.journal())
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

// runWindow opens the game on another goroutine while the window is built,
// so that the store's opening and the toolkit's start overlap, runs the
// window, and closes the game after it.
func runWindow(ctx context.Context, d dataDir, cfg engine.Config, logger zerolog.Logger, stderr io.Writer, o ui.Options) error {
	ready := make(chan *engine.Service, 1)
	closed := make(chan struct{}) // the window is closed: the game may close too
	opened := make(chan error, 1) // withGame's result
	go func() {
		opened <- withGame(ctx, d, cfg, logger, stderr, func(svc *engine.Service, _ *storage.Store) error {
			ready <- svc
			<-closed
			return nil
		})
	}()
	var openErr error
	err := ui.Run(ctx, func() (ui.Game, error) {
		select {
		case svc := <-ready:
			return svc, nil
		case openErr = <-opened: // it could not open
			return nil, openErr
		}
	}, o)
	close(closed)
	if openErr != nil {
		return openErr // which Run returned
	}
	return errors.Join(err, <-opened)
}

// openLog writes JSON lines to a rotated file in the data directory, and a
// human console copy to stderr when STARFORTUNE_DEV is set.
func openLog(dir string) (zerolog.Logger, func(), error) {
	if err := fsync.MkdirAll(filepath.Join(dir, "logs"), 0o750); err != nil { // the data directory's first use
		return zerolog.Nop(), nil, fmt.Errorf("data directory %s: %w", dir, err)
	}
	file := &lumberjack.Logger{Filename: filepath.Join(dir, "logs", "starfortune.log"), MaxSize: 20, MaxBackups: 10, Compress: true}
	var w io.Writer = file
	if os.Getenv("STARFORTUNE_DEV") != "" {
		w = zerolog.MultiLevelWriter(file, zerolog.ConsoleWriter{Out: os.Stderr, TimeFormat: time.TimeOnly})
	}
	return zerolog.New(w).With().Timestamp().Logger(), func() { file.Close() }, nil
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
