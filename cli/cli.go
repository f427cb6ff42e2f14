// Package cli is Star Fortune's command line: the table of commands
// (commands.go), the flags they share, and what each opens before it runs
// (nothing, the central's database, the data directory, the game, or the
// window). Main runs one command line and returns its exit status.
package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/rs/zerolog"

	"starfortune/central"
	"starfortune/config"
	"starfortune/engine"
	"starfortune/present"
	"starfortune/storage"
)

// Version is the release; the commit comes from the build's VCS stamp.
const Version = "0.1.0"

// fr words what the command line prints for staff: French, as the
// règlement ("12 500,00 €").
var fr = present.French

// Program is what the command line runs with besides its arguments.
type Program struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// OpenLog opens the log of a data directory: main's JSON lines to a
	// rotated file. Commands that open no data directory log nothing.
	OpenLog func(dataDir string) (zerolog.Logger, func(), error)
}

// needs is what a command opens before it runs.
type needs int

const (
	needsNothing needs = iota // version, help, verify
	needsCentral              // central …: the central's database as its owner
	needsData                 // restore, recover: the data directory, not the game on it
	needsGame                 // the store, the journal and the game (and its central)
	needsWindow               // the window, on the game
)

// A command is one line of the table: the words that name it, its
// positional arguments, its one-line help, what it opens, and its flags.
type command struct {
	name  string // the words typed: "play", "wallet credit", "central kiosk add"
	args  string // its positional arguments as the synopsis shows them: "TICKET", "[BLOCK]"
	min   int    // fewest positional arguments
	max   int    // most positional arguments
	help  string // one line
	needs needs
	json  bool // takes the shared --json
	// flags declares the command's own flags on fs and returns its run
	// function, which reads them once they are parsed. A flag's usage
	// names its value in backquotes (flag.UnquoteUsage), and starts with
	// "required" when the command needs it: the synopsis shows it without
	// brackets.
	flags func(fs *flag.FlagSet) func(*call) error
}

// A call is one command running: what it was given and what was opened
// for it.
type call struct {
	ctx    context.Context
	args   []string // positional arguments, checked against min and max
	json   bool
	stdin  io.Reader
	out    io.Writer
	stderr io.Writer
	shared *shared
	lang   string // the window's --lang: the settings' language
	conf   config.Config
	data   DataDir
	logger zerolog.Logger
	key    dataKey // needsGame, and restore and recover: how the data directory was unlocked
	demoOK bool    // the window, not --terminal: a new data directory without a passphrase is the demo's
	// adoptCounter: recover --override's reason, which accepts data
	// behind its anchor's counter (engine.Config.AdoptCounter)
	adoptCounter string
	// drawFirst: the window's selected stake, whose block a lone kiosk's
	// window draws first, behind the game it serves at once
	// (engine.Config.DrawFirst)
	drawFirst engine.Cents
	svc       *engine.Service                     // needsGame
	store     *storage.Store                      // needsGame
	admin     *central.Admin                      // needsCentral
	pins      func(prompt string) (string, error) // readPIN's reader, made once
}

// readPIN reads one PIN (see readPINs): every PIN a command asks for comes
// from the one reader, so that lines of standard input are not lost
// between them.
func (c *call) readPIN(prompt string) (string, error) {
	if c.pins == nil {
		c.pins = readPINs(c.stdin, c.stderr)
	}
	return c.pins(prompt)
}

// shared are the flags every command takes, before or after its name.
type shared struct {
	data, config, central, kioskID, db string
	centralFile, callKeyFile           string
	passphraseFile                     string
	set                                map[string]bool // the shared flags given
}

// declare declares the shared flags on fs, each defaulting to what an
// earlier parse set: they may stand before the command, between its words
// and among its own flags.
func (s *shared) declare(fs *flag.FlagSet) {
	fs.StringVar(&s.data, "data", s.data, "data directory")
	fs.StringVar(&s.config, "config", s.config, "settings file (TOML); default $XDG_CONFIG_HOME/starfortune/starfortune.toml when it exists")
	fs.StringVar(&s.central, "central", s.central, "a kiosk of a fleet: the central's connection string, without a password (beats the settings file's [central] url)")
	fs.StringVar(&s.centralFile, "central-file", s.centralFile, "a kiosk of a fleet: the central's connection string, read from `FILE` (mode 600; beats "+centralFileEnv+" and the settings file)")
	fs.StringVar(&s.callKeyFile, "call-key-file", s.callKeyFile, "a kiosk behind a pooler: its call key, read from `FILE` (mode 600; beats "+callKeyFileEnv+" and the settings file)")
	fs.StringVar(&s.kioskID, "kiosk-id", s.kioskID, "a kiosk of a fleet: its id at the central (beats the settings file's kiosk_id)")
	fs.StringVar(&s.db, "db", s.db, "central commands: the central's connection string, as its owner")
	fs.StringVar(&s.passphraseFile, "passphrase-file", s.passphraseFile, "the data directory's passphrase, read from `FILE` (beats "+passphraseEnv+"; without either, asked on the terminal)")
}

// windowFlags are the window's own, given before any command.
type windowFlags struct {
	fullscreen bool
	terminal   bool
	player     string
	lang       string
}

func (w *windowFlags) declare(fs *flag.FlagSet) {
	fs.BoolVar(&w.fullscreen, "fullscreen", false, "full screen, closing needs the operator PIN")
	fs.BoolVar(&w.fullscreen, "kiosk", false, "the old name of --fullscreen (kept for one release)")
	fs.BoolVar(&w.terminal, "terminal", false, "a public terminal: a data directory not set up yet is out of service until key init, never made the demo's")
	fs.StringVar(&w.player, "player", engine.DemoPlayer, "`demo` plays the demo wallet; without it a lone kiosk's own data directory opens on the players' login (a fleet kiosk: the wallet ID)")
	fs.StringVar(&w.lang, "lang", "", "language of the window, `fr|en` (beats the settings file and the system locale)")
}

// usageError is a mistake in the command line (exit status 2).
type usageError struct{ error }

// Main runs the command line args (without the program's name) and
// returns the exit status: 0, 1 for an error, 2 for a mistake in the
// command line.
func Main(args []string, p Program) int {
	// Every file and directory the program makes is its user's alone: the
	// keyring, the store, the journal, the logs, backups and exports.
	syscall.Umask(0o077)
	if p.Stdin == nil {
		p.Stdin = os.Stdin
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c := &call{ctx: ctx, stdin: p.Stdin, out: p.Stdout, stderr: p.Stderr, logger: zerolog.Nop()}
	cmd, run, err := parseLine(args, c)
	if err != nil {
		return exitStatus(cmd, err, p.Stderr)
	}
	return exitStatus(cmd, open(cmd, c, p, run), p.Stderr)
}

// parseLine parses a whole command line into c: the shared flags, the
// command's words and its own flags and arguments. It returns the command
// and its run function; flag.ErrHelp once it printed the help asked for.
func parseLine(args []string, c *call) (*command, func(*call) error, error) {
	c.shared = &shared{data: storage.DefaultDir(), set: map[string]bool{}}
	win := &windowFlags{}
	top := flag.NewFlagSet("starfortune", flag.ContinueOnError)
	top.SetOutput(io.Discard)
	c.shared.declare(top)
	win.declare(top)
	if err := top.Parse(legacyKioskID(args)); err != nil || top.Arg(0) == "help" {
		if err == nil || errors.Is(err, flag.ErrHelp) {
			printUsage(c.out)
			return &windowCommand, nil, flag.ErrHelp
		}
		return &windowCommand, nil, usageError{err}
	}
	top.Visit(func(f *flag.Flag) { c.shared.set[f.Name] = true })
	c.lang = win.lang
	cmd, rest, err := lookup(top.Args(), c.shared)
	if err != nil {
		return &windowCommand, nil, err
	}
	if cmd.name == "" {
		return cmd, func(c *call) error { return runWindow(c, win) }, nil
	}
	run, err := parseCommand(cmd, rest, c)
	return cmd, run, err
}

// lookup finds the command that args name: its words, possibly with shared
// flags between them ("central --db URL kiosk add k1"), and returns what
// follows them. No words: the window.
func lookup(args []string, sh *shared) (*command, []string, error) {
	var words []string
	found := &windowCommand
	for len(args) > 0 {
		if strings.HasPrefix(args[0], "-") && len(words) > 0 {
			fs := flag.NewFlagSet("", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			sh.declare(fs)
			if err := fs.Parse(args); err != nil {
				break // the command's own flag: its parser says
			}
			fs.Visit(func(f *flag.Flag) { sh.set[f.Name] = true })
			args = fs.Args()
			continue
		}
		next := strings.Join(append(slices.Clone(words), args[0]), " ")
		if c := find(next); c != nil {
			found = c
		} else if !isGroup(next) {
			break
		}
		words, args = append(words, args[0]), args[1:]
		if found.name != strings.Join(words, " ") && !isGroup(strings.Join(words, " ")) {
			break
		}
	}
	name := strings.Join(words, " ")
	switch {
	case len(words) == 0 && len(args) > 0:
		return nil, nil, usageError{fmt.Errorf("unknown command %q", args[0])}
	case found.name != name:
		return nil, nil, usageError{fmt.Errorf("%s: say %s", name, subcommands(name))}
	}
	return found, args, nil
}

// parseCommand parses the command's flags, the shared ones with them,
// wherever they stand among its positional arguments ("show TICKET
// --json" as well as "show --json TICKET"), and returns its run function.
func parseCommand(cmd *command, args []string, c *call) (func(*call) error, error) {
	fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.shared.declare(fs)
	if cmd.json {
		fs.BoolVar(&c.json, "json", false, "JSON output")
	}
	run := cmd.flags(fs)
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				printCommandHelp(c.out, cmd)
				return nil, err
			}
			return nil, usageError{err}
		}
		if args = fs.Args(); len(args) == 0 {
			break
		}
		positional, args = append(positional, args[0]), args[1:]
	}
	fs.Visit(func(f *flag.Flag) { c.shared.set[f.Name] = true })
	switch n := len(positional); {
	case n < cmd.min && cmd.args != "":
		return nil, usageError{fmt.Errorf("give %s", cmd.args)}
	case n > cmd.max && cmd.max == 0:
		return nil, usageError{fmt.Errorf("unexpected argument %q: %s takes none", positional[0], cmd.name)}
	case n > cmd.max:
		return nil, usageError{fmt.Errorf("unexpected argument %q: give only %s", positional[cmd.max], cmd.args)}
	}
	c.args = positional
	return run, nil
}

// open opens what cmd needs, runs it, and closes in order.
func open(cmd *command, c *call, p Program, run func(*call) error) error {
	switch cmd.needs {
	case needsNothing:
		return run(c)
	case needsCentral:
		return withCentral(c, cmd, run)
	}
	if cmd.needs == needsWindow && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return errors.New("no display to open the window on (DISPLAY is not set); the subcommands work without one")
	}
	if err := c.settings(); err != nil {
		return usageError{err}
	}
	logger, closeLog, err := p.OpenLog(string(c.data))
	if err != nil {
		return err
	}
	defer closeLog()
	c.logger = logger.With().Str("kiosk", c.conf.Kiosk).Logger()
	logStart := func() {
		c.logger.Info().Str("version", Version).Str("commit", commit()).Str("sha256", binarySHA256()).
			Str("command", cmd.name).Str("data", string(c.data)).Str("config", c.shared.config).Msg("start")
	}
	if cmd.needs == needsWindow {
		holdWindowMemory()
		atIdlePriority(logStart) // hashing the binary takes 25 ms of CPU: not the window's
	} else {
		logStart()
	}
	c.logger = c.logger.Level(c.conf.ZerologLevel()) // after "start": every run records its version
	if cmd.needs == needsGame {
		err = runGame(c, run)
	} else {
		err = run(c)
	}
	if err != nil && !errors.As(err, new(usageError)) && !errors.Is(err, flag.ErrHelp) {
		c.logger.Error().Err(err).Str("command", cmd.name).Msg("command failed")
	}
	return err
}

// centralFileEnv names a file holding a kiosk's connection string to its
// central, as systemd's LoadCredential= provides one.
const centralFileEnv = "STARFORTUNE_CENTRAL_FILE"

// callKeyFileEnv names a file holding a kiosk's call key, as
// centralFileEnv its connection string.
const callKeyFileEnv = "STARFORTUNE_CALL_KEY_FILE"

// errPasswordInArgs is --central with a password, which every local user
// would read in ps.
var errPasswordInArgs = errors.New("--central: this connection string holds a password, which every user of the machine reads " +
	"in the process list: put it in a file of mode 600 given with --central-file FILE or " + centralFileEnv +
	"=FILE (systemd: LoadCredential=), or in the settings file's [central] url (mode 600)")

// centralURL sets the central's connection string from the command line
// or a file of its own, over the settings file's.
func centralURL(sh *shared, conf *config.Config) error {
	file := sh.centralFile
	if file == "" {
		file = os.Getenv(centralFileEnv)
	}
	switch {
	case sh.set["central"] && sh.set["central-file"]:
		return usageError{errors.New("give --central or --central-file, not both")}
	case sh.set["central"] && config.HoldsPassword(sh.central):
		return usageError{errPasswordInArgs}
	case sh.set["central"]:
		conf.CentralURL = sh.central
	case file != "":
		url, err := config.ReadCentralFile(file)
		if err != nil {
			return err
		}
		conf.CentralURL = url
	}
	return nil
}

// settings reads the settings file and lets the shared flags beat it.
func (c *call) settings() error {
	sh := c.shared
	if sh.config == "" {
		sh.config = config.DefaultPath()
	}
	conf, err := config.Load(sh.config, c.lang, os.Getenv)
	if err != nil {
		return err
	}
	if sh.set["data"] {
		conf.DataDir = sh.data
	}
	if err := centralURL(sh, &conf); err != nil {
		return err
	}
	if sh.set["kiosk-id"] {
		if err := config.CheckKiosk(sh.kioskID); err != nil {
			return fmt.Errorf("--kiosk-id: %w", err)
		}
		conf.Kiosk = sh.kioskID
		if conf.CentralURL == "" {
			return fmt.Errorf("--kiosk-id %s names a kiosk of a fleet: give --central URL too (or [central] url in the settings file)", sh.kioskID)
		}
	}
	if file := cmp.Or(sh.callKeyFile, os.Getenv(callKeyFileEnv)); file != "" {
		key, err := config.ReadCallKeyFile(file)
		if err != nil {
			return err
		}
		if conf.FleetKiosk() == "" || conf.CentralURL == "" {
			return usageError{errors.New("a call key proves the calls of a kiosk of a fleet: give its --kiosk-id and its central (--central-file) too")}
		}
		conf.CentralCallKey = key
	}
	c.conf, c.data = conf, DataDir(conf.DataDir)
	return nil
}

// exitStatus says err on stderr and turns it into the exit status: 2 for a
// mistake in the command line, 0 for --help, 1 for any other error.
func exitStatus(cmd *command, err error, stderr io.Writer) int {
	var usageErr usageError
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &usageErr) && cmd.name == "":
		fmt.Fprintf(stderr, "starfortune: %v\nstarfortune help lists the commands\n", err)
		return 2
	case errors.As(err, &usageErr):
		fmt.Fprintf(stderr, "starfortune %s: %v\nusage: %s\n", cmd.name, err, synopsis(cmd))
		return 2
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
	case errors.Is(err, engine.ErrDemoOnly):
		return "starfortune: this is the demo's data directory; a real one is made with: starfortune --data NEWDIR key init\n"
	case errors.Is(err, engine.ErrOffline):
		return "starfortune: the kiosk is OFFLINE: it has not reached its central for longer than its offline grace, so it sells nothing;\n" +
			"starfortune: it resumes by itself once the central answers (check the network and the central; see starfortune sync --status)\n"
	}
	return ""
}

// legacyKioskID turns the fleet kiosk's old "--kiosk ID" into "--kiosk-id
// ID" (kept for one release): "--kiosk" alone is the old name of
// --fullscreen, so a value is taken only when it is a kiosk id, neither a
// flag nor a command.
func legacyKioskID(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if (a == "--kiosk" || a == "-kiosk") && i+1 < len(args) && legacyID(args[i+1]) {
			out = append(out, "--kiosk-id", args[i+1])
			i++
			continue
		}
		if v, ok := strings.CutPrefix(strings.TrimPrefix(a, "-"), "-kiosk="); ok && legacyID(v) {
			out = append(out, "--kiosk-id", v)
			continue
		}
		out = append(out, a)
	}
	return out
}

func legacyID(s string) bool {
	if strings.HasPrefix(s, "-") || s == "true" || s == "false" || find(s) != nil || isGroup(s) {
		return false
	}
	return config.CheckKiosk(s) == nil
}
