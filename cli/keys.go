package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/term"

	"starfortune/engine"
	"starfortune/internal/fsync"
	"starfortune/journal"
	"starfortune/keyring"
	"starfortune/storage"
)

// The data directory is encrypted at rest (docs/security.md): the store
// under Badger's encryption, the journal line by line, backups as a sealed
// stream, all under a data key kept in DATA/keyring, sealed in slots that
// each need something the disk does not hold in clear: an attendant's
// passphrase, the key-encryption key the central keeps for a fleet kiosk,
// or, for the demo alone, a key file beside the data.

// passphraseEnv names a file holding the passphrase, for scripts and
// service managers (systemd's LoadCredential), like restic's
// RESTIC_PASSWORD_FILE; --passphrase-file beats it.
const passphraseEnv = "STARFORTUNE_PASSPHRASE_FILE"

// Keyring is the data directory's keyring file.
func (d DataDir) Keyring() string { return filepath.Join(string(d), "keyring") }

// DemoKey is the demo's key file, in clear beside the data.
func (d DataDir) DemoKey() string { return filepath.Join(string(d), keyring.DemoKeyFile) }

// errLocked is a data directory whose passphrase nobody gave.
var errLocked = errors.New("the data directory is locked: give its passphrase with --passphrase-file FILE or " +
	passphraseEnv + "=FILE, or type it at the prompt (on a terminal)")

// errPlaintext is a data directory written before encryption at rest.
var errPlaintext = errors.New("this data directory is not encrypted (written by an earlier version, or its " +
	"encryption was interrupted): `starfortune key init` encrypts it, asking for a passphrase")

// dataKey is how the data directory was unlocked.
type dataKey struct {
	keys keyring.Keys
	demo bool // the demo's key file: Config.DemoOnly
}

// keyCentral is the central's side of a fleet kiosk's key: the KEK it
// keeps for the kiosk (central.Client).
type keyCentral interface {
	DataKey(ctx context.Context) ([]byte, error)
}

// findKey unlocks the data directory with what needs nobody: the demo's
// key file, the central's KEK, a passphrase file. When only a passphrase
// typed by someone would open it, it returns the ring and errLocked. A new
// data directory gets its keyring here: in one central slot for a fleet
// kiosk (and the passphrase given, for starts without the central), in a
// passphrase slot when a passphrase is given, else, for the window only,
// as the demo's.
func (c *call) findKey(cen keyCentral) (dataKey, *keyring.Ring, error) {
	ring, err := keyring.Load(c.data.Keyring())
	if errors.Is(err, keyring.ErrNoRing) {
		return c.newKey(cen)
	}
	if err != nil {
		return dataKey{}, nil, err
	}
	k, err := c.keyOf(ring, cen)
	return k, ring, err
}

// keyOf unlocks ring with what needs nobody (see findKey), or says
// errLocked.
func (c *call) keyOf(ring *keyring.Ring, cen keyCentral) (dataKey, error) {
	if ring.Demo() {
		keys, err := ring.UnlockDemo(c.data.DemoKey())
		return dataKey{keys: keys, demo: true}, err
	}
	var centralErr error
	if cen != nil && hasSlot(ring, keyring.SlotCentral) {
		var kek []byte
		if kek, centralErr = c.centralKey(cen); centralErr == nil {
			keys, err := ring.UnlockCentral(kek)
			return dataKey{keys: keys}, err
		}
		c.logger.Warn().AnErr("err", centralErr).Msg("data key: the central did not give this kiosk's key; a passphrase may unlock it")
	}
	pass, ok, err := c.passphraseFile()
	if err != nil {
		return dataKey{}, err
	}
	if !ok {
		if centralErr != nil {
			return dataKey{}, fmt.Errorf("%w (the central did not give this kiosk's key: %w)", errLocked, centralErr)
		}
		return dataKey{}, errLocked
	}
	return c.unlockWith(ring, pass, cen)
}

// unlockWith unlocks ring with a passphrase; a fleet kiosk's ring that
// lacks the central's slot gets it (the kiosk was set up before it met its
// central).
func (c *call) unlockWith(ring *keyring.Ring, pass []byte, cen keyCentral) (dataKey, error) {
	defer clear(pass)
	keys, err := ring.UnlockPassphrase(pass)
	if errors.Is(err, keyring.ErrWrongPassphrase) {
		c.logger.Warn().Str("keyring", ring.Path()).Msg("data key: a wrong passphrase was given")
		return dataKey{}, fmt.Errorf("%w: %w", engine.ErrWrongPassphrase, err)
	}
	if err != nil {
		return dataKey{}, err
	}
	if cen != nil && !hasSlot(ring, keyring.SlotCentral) {
		if kek, err := c.centralKey(cen); err == nil {
			if err := ring.SetCentral(keys, kek); err != nil {
				return dataKey{}, fmt.Errorf("seal the keyring under the central's key: %w", err)
			}
			c.logger.Info().Msg("data key: sealed under the central's key too")
		}
	}
	return dataKey{keys: keys}, nil
}

// newKey makes the keyring of a new data directory, or refuses one that
// holds data written in clear.
func (c *call) newKey(cen keyCentral) (dataKey, *keyring.Ring, error) {
	d := c.data
	if plain, err := d.holdsData(); err != nil || plain {
		if err == nil {
			err = errPlaintext
		}
		return dataKey{}, nil, err
	}
	pass, given, err := c.passphraseFile()
	if err != nil {
		return dataKey{}, nil, err
	}
	defer clear(pass)
	if err := fsync.MkdirAll(string(d), 0o750); err != nil { // its entry synced: a power cut keeps it
		return dataKey{}, nil, err
	}
	var ring *keyring.Ring
	var keys keyring.Keys
	switch {
	case cen != nil:
		kek, err := c.centralKey(cen)
		if err != nil {
			return dataKey{}, nil, fmt.Errorf("a new kiosk of a fleet takes its data key from its central, which did not give it: %w", err)
		}
		if ring, keys, err = keyring.CreateCentral(d.Keyring(), kek); err == nil && given {
			err = ring.SetPassphrase(keys, pass)
		}
		if err != nil {
			return dataKey{}, nil, err
		}
	case given:
		if ring, keys, err = keyring.CreatePassphrase(d.Keyring(), pass); err != nil {
			return dataKey{}, nil, err
		}
	case !c.demoOK:
		return dataKey{}, nil, fmt.Errorf("%s holds no data directory yet: `starfortune key init` makes a kiosk's, sealed under a "+
			"passphrase (or give one with --passphrase-file); the window alone makes the demo's, and not with --terminal", d)
	default:
		if ring, keys, err = keyring.CreateDemo(d.Keyring(), d.DemoKey()); err != nil {
			return dataKey{}, nil, err
		}
		c.logger.Warn().Str("key_file", d.DemoKey()).Msg("new demo data directory: its key is in clear beside the data, real money is refused")
		return dataKey{keys: keys, demo: true}, ring, nil
	}
	c.logger.Info().Str("dir", string(d)).Msg("new data directory encrypted under a new data key")
	return dataKey{keys: keys}, ring, nil
}

// holdsData says whether the data directory already holds a store or a
// journal (written in clear, since it has no keyring).
func (d DataDir) holdsData() (bool, error) {
	for _, p := range []string{d.Store(), d.Journal()} {
		st, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return false, err
		case st.IsDir():
			if entries, err := os.ReadDir(p); err != nil || len(entries) > 0 {
				return true, err
			}
		case st.Size() > 0:
			return true, nil
		}
	}
	return false, nil
}

// unlock is findKey for a command: a locked data directory asks for its
// passphrase at the terminal, when there is one.
func (c *call) unlock(cen keyCentral) (dataKey, error) {
	k, ring, err := c.findKey(cen)
	if errors.Is(err, errLocked) {
		return c.askPassphrase(ring, cen, err)
	}
	return k, err
}

// unlockRing is unlock for a keyring that is not (yet) the data
// directory's: a backup's.
func (c *call) unlockRing(ring *keyring.Ring, cen keyCentral) (dataKey, error) {
	k, err := c.keyOf(ring, cen)
	if errors.Is(err, errLocked) {
		return c.askPassphrase(ring, cen, err)
	}
	return k, err
}

// askPassphrase asks for ring's passphrase on the terminal, or returns
// locked when there is none.
func (c *call) askPassphrase(ring *keyring.Ring, cen keyCentral, locked error) (dataKey, error) {
	pass, ok, err := c.prompt("passphrase of " + string(c.data) + ": ")
	if err != nil || !ok {
		return dataKey{}, errors.Join(locked, err)
	}
	return c.unlockWith(ring, pass, cen)
}

// passphraseFile reads the passphrase from --passphrase-file or
// $STARFORTUNE_PASSPHRASE_FILE (ok false when neither is given): the
// file's content without its final line break.
func (c *call) passphraseFile() (pass []byte, ok bool, err error) {
	path := c.shared.passphraseFile
	if path == "" {
		path = os.Getenv(passphraseEnv)
	}
	if path == "" {
		return nil, false, nil
	}
	pass, err = readSecret(path)
	return pass, err == nil, err
}

// readSecret reads a passphrase file: one line, its line break dropped.
func readSecret(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("passphrase file: %w", err)
	}
	b = bytes.TrimSuffix(bytes.TrimSuffix(b, []byte("\n")), []byte("\r"))
	if len(b) == 0 {
		return nil, fmt.Errorf("passphrase file %s is empty", path)
	}
	return b, nil
}

// prompt asks for a secret on the terminal, without echo; ok is false
// when standard input is not a terminal.
func (c *call) prompt(what string) ([]byte, bool, error) {
	f, isFile := c.stdin.(*os.File)
	if !isFile || !term.IsTerminal(int(f.Fd())) {
		return nil, false, nil
	}
	fmt.Fprint(c.stderr, what)
	pass, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(c.stderr)
	if err != nil {
		return nil, false, err
	}
	return pass, len(pass) > 0, nil
}

// centralOf is the central of a kiosk of a fleet, for its data key (nil
// for a lone kiosk).
func centralOf(fleet *engine.FleetConfig) keyCentral {
	if fleet == nil {
		return nil
	}
	cen, _ := fleet.Central.(keyCentral)
	return cen
}

// Unlock unlocks the data directory d with its passphrase (or the demo's
// key file), for tools that open it in-process (tests, the torture
// workload).
func (d DataDir) Unlock(pass []byte) (keyring.Keys, error) {
	ring, err := keyring.Load(d.Keyring())
	if err != nil {
		return keyring.Keys{}, err
	}
	if ring.Demo() {
		return ring.UnlockDemo(d.DemoKey())
	}
	return ring.UnlockPassphrase(pass)
}

func hasSlot(r *keyring.Ring, kind keyring.SlotKind) bool {
	for _, s := range r.Slots() {
		if s.Kind == kind {
			return true
		}
	}
	return false
}

// journalKeys are the journal's keys of k: its current generation's, and
// the older one's during a rotation.
func journalKeys(k keyring.Keys) journal.Keys {
	jk := journal.Keys{Current: journalKey(k.Current())}
	if prev, ok := k.Previous(); ok {
		jk.Older = []journal.Key{journalKey(prev)}
	}
	return jk
}

// journalKey is the journal's key of one generation of the data key.
func journalKey(k keyring.Key) journal.Key { return journal.Key{Gen: k.Gen(), Secret: k.Journal()} }

// openStore opens the data directory's store under k: during a rotation
// cut short the store may still be under the older generation's key.
func openStore(dir string, k keyring.Keys, log zerolog.Logger) (*storage.Store, error) {
	s, err := storage.Open(dir, k.Current().Badger(), log)
	if prev, ok := k.Previous(); ok && errors.Is(err, storage.ErrWrongKey) {
		s, err = storage.Open(dir, prev.Badger(), log)
	}
	if errors.Is(err, storage.ErrPlaintext) {
		return nil, fmt.Errorf("%w: %w", errPlaintext, err)
	}
	return s, err
}

// openJournal opens the data directory's journal under k.
func openJournal(path string, k keyring.Keys) (*journal.File, error) {
	j, err := journal.Open(path, journalKeys(k))
	if errors.Is(err, journal.ErrNotSealed) {
		return nil, fmt.Errorf("%w: %w", errPlaintext, err)
	}
	return j, err
}

// centralKeyTimeout bounds the wait for the central's key: a central whose
// host drops packets would otherwise hold the start for the system's
// connection timeout (minutes).
const centralKeyTimeout = 10 * time.Second

// centralKey asks the central for this kiosk's key-encryption key.
func (c *call) centralKey(cen keyCentral) ([]byte, error) {
	ctx, cancel := context.WithTimeout(c.ctx, centralKeyTimeout)
	defer cancel()
	return cen.DataKey(ctx)
}
