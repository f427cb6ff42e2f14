package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"starfortune/engine"
	"starfortune/internal/fsync"
	"starfortune/journal"
	"starfortune/keyring"
	"starfortune/storage"

	"github.com/rs/zerolog"
)

// The key commands: set up a data directory's key (and encrypt one written
// before encryption at rest), change its passphrase, rotate its data key,
// and say how it is kept. They open the data directory, not the game, so
// they run while no kiosk does.

func keyInitFlags(fs *flag.FlagSet) func(*call) error {
	newPass := fs.String("new-passphrase-file", "", "read the new passphrase from `FILE` (beats --passphrase-file; without either, asked twice on the terminal)")
	return func(c *call) error { return keyInit(c, *newPass) }
}

// keyInit gives a data directory its key under a passphrase: a new one, or
// one written in clear by an earlier version, which it then encrypts (and
// an encryption cut short, which it finishes).
func keyInit(c *call, newPassFile string) error {
	d := c.data
	cen, closeCentral := c.keyCentral()
	defer closeCentral()
	ring, err := keyring.Load(d.Keyring())
	switch {
	case err == nil && ring.Demo():
		return fmt.Errorf("%s is the demo's data directory: its key has been in clear beside the data, so it never holds "+
			"real money; start a real one with: starfortune --data NEWDIR key init", d)
	case err == nil: // set up already: finish an encryption cut short
		k, err := c.unlock(cen)
		if err != nil {
			return err
		}
		return c.encrypt(k.keys)
	case !errors.Is(err, keyring.ErrNoRing):
		return err
	}
	pass, err := c.newPassphrase(newPassFile)
	if err != nil {
		return err
	}
	defer clear(pass)
	if err := fsync.MkdirAll(string(d), 0o750); err != nil { // its entry synced: a power cut keeps it
		return err
	}
	ring, keys, err := keyring.CreatePassphrase(d.Keyring(), pass)
	if err != nil {
		return err
	}
	if cen != nil {
		if kek, err := c.centralKey(cen); err != nil {
			c.logger.Warn().AnErr("err", err).Msg("key init: the central did not give this kiosk's key; it is added at the first start with the central")
		} else if err := ring.SetCentral(keys, kek); err != nil {
			return err
		}
	}
	c.logger.Info().Str("dir", string(d)).Msg("key init: a new data key, sealed under the passphrase")
	fmt.Fprintf(c.out, "%s: a new data key, sealed under the passphrase in %s\n"+
		"keep the passphrase safe: without it (or the central's key, for a kiosk of a fleet) nothing here can be read\n", d, d.Keyring())
	return c.encrypt(keys)
}

// encrypt encrypts what the data directory holds in clear under keys: the
// journal resealed line by line (its clear copy kept aside), the store
// copied encrypted beside itself, audited with the journal, swapped in;
// then the clear copies are removed. Cut anywhere, the next key init
// finishes it.
func (c *call) encrypt(keys keyring.Keys) error {
	d := c.data
	plainJournal := d.Journal() + ".plaintext" // removed by removeClearJournal
	j, err := openJournal(d.Journal(), keys)
	switch {
	case err == nil:
		j.Close()
	case errors.Is(err, errPlaintext):
		// Kept until the store is encrypted and the audit passed.
		if err := os.Link(d.Journal(), plainJournal); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
		if err := journal.Reseal(d.Journal(), journal.Plain, journalKeys(keys)); err != nil {
			return fmt.Errorf("seal the journal: %w", err)
		}
		fmt.Fprintf(c.out, "journal %s sealed\n", d.Journal())
	default:
		return err
	}
	cur := keys.Current()
	s, err := openStore(d.Store(), keys, c.logger)
	switch {
	case err == nil:
		s.Close()
	case errors.Is(err, storage.ErrPlaintext):
		check := func(newDir string) error { return c.auditStore(newDir, keys) }
		if err := storage.Encrypt(d.Store(), cur.Badger(), c.logger, check); err != nil {
			return fmt.Errorf("encrypt the store: %w", err)
		}
		fmt.Fprintf(c.out, "store %s encrypted, audited against its journal\n", d.Store())
	default:
		return err
	}
	if err := removeClearJournal(d, c.logger); err != nil {
		return err
	}
	fmt.Fprintf(c.out, "%s is encrypted at rest\n", d)
	return nil
}

// removeClearJournal removes the clear copy of the journal key init keeps
// until the store is encrypted and audited: once the store opens with its
// key, a copy left by a key init cut short is removed at the next open.
func removeClearJournal(d DataDir, logger zerolog.Logger) error {
	plain := d.Journal() + ".plaintext"
	err := os.Remove(plain)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err == nil {
		err = fsync.Dir(filepath.Dir(plain))
		logger.Info().Str("file", plain).Msg("key init: the journal's clear copy removed")
	}
	return err
}

// auditStore audits the store in dir with the data directory's journal,
// under keys: the encrypted copy before it replaces the clear store.
func (c *call) auditStore(dir string, keys keyring.Keys) error {
	s, err := storage.Open(dir, keys.Current().Badger(), c.logger)
	if err != nil {
		return err
	}
	defer s.Close()
	j, err := openJournal(c.data.Journal(), keys)
	if err != nil {
		return err
	}
	defer j.Close()
	cfg := c.conf.Engine()
	cfg.Journal = j
	svc, err := engine.NewService(c.ctx, s, cfg, c.logger)
	if err != nil {
		return err
	}
	defer svc.Close()
	rep, err := svc.Audit(c.ctx, nil)
	if err != nil {
		return err
	}
	if !rep.OK() {
		return fmt.Errorf("the audit of the encrypted copy found: %s", strings.Join(rep.Findings, "; "))
	}
	return nil
}

func keyPassphraseFlags(fs *flag.FlagSet) func(*call) error {
	newPass := fs.String("new-passphrase-file", "", "read the new passphrase from `FILE` (without it, asked twice on the terminal)")
	return func(c *call) error { return keyPassphrase(c, *newPass) }
}

// keyPassphrase seals the data key under a new passphrase. A copy of the
// keyring taken before still opens with the old one: rotate when the old
// passphrase may be known.
func keyPassphrase(c *call, newPassFile string) error {
	cen, closeCentral := c.keyCentral()
	defer closeCentral()
	k, err := c.unlock(cen)
	if err != nil {
		return err
	}
	if k.demo {
		return fmt.Errorf("%w: the demo's data directory has no passphrase", engine.ErrDemoOnly)
	}
	pass, err := c.newPassphrase(newPassFile)
	if err != nil {
		return err
	}
	defer clear(pass)
	ring, err := keyring.Load(c.data.Keyring())
	if err != nil {
		return err
	}
	if err := ring.SetPassphrase(k.keys, pass); err != nil {
		return err
	}
	c.logger.Info().Msg("key passphrase: changed")
	fmt.Fprintln(c.out, "passphrase changed (a copy of the keyring taken before still opens with the old one: starfortune key rotate seals what comes next under a new key)")
	return nil
}

func keyRotateFlags(fs *flag.FlagSet) func(*call) error {
	newPass := fs.String("new-passphrase-file", "", "also change the passphrase, to the one in `FILE`")
	return func(c *call) error { return keyRotate(c, *newPass) }
}

// keyRotate replaces the data key without re-drawing anything: a new
// generation, the store's key registry re-sealed under it, every journal
// line resealed, then the old generation dropped. Cut anywhere, the
// keyring holds both generations and key rotate finishes. Badger's own
// table keys, in the registry, are not replaced: it makes new ones every
// ten days, and tables are re-encrypted as compaction rewrites them.
func keyRotate(c *call, newPassFile string) error {
	d := c.data
	cen, closeCentral := c.keyCentral()
	defer closeCentral()
	ring, err := keyring.Load(d.Keyring())
	if err != nil {
		return err
	}
	if ring.Demo() {
		return fmt.Errorf("%w: the demo's key is in clear beside the data; rotating it hides nothing", engine.ErrDemoOnly)
	}
	var creds []keyring.Credential
	k, err := c.unlock(cen)
	if err != nil {
		return err
	}
	keys := k.keys
	// Refused while a kiosk runs on the directory, before the keyring
	// changes: rotation re-seals the store's registry, closed.
	s, err := openStore(d.Store(), keys, c.logger)
	if err != nil {
		return err
	}
	if err := s.Close(); err != nil {
		return err
	}
	if !ring.Rotating() {
		if hasSlot(ring, keyring.SlotPassphrase) || newPassFile != "" {
			pass, err := c.rotationPassphrase(newPassFile)
			if err != nil {
				return err
			}
			defer clear(pass)
			creds = append(creds, keyring.Passphrase(pass))
		}
		if hasSlot(ring, keyring.SlotCentral) {
			if cen == nil {
				return errors.New("this keyring has the central's slot: rotate with the kiosk's central at hand (--central URL or the settings)")
			}
			kek, err := c.centralKey(cen)
			if err != nil {
				return fmt.Errorf("the central did not give this kiosk's key: %w", err)
			}
			creds = append(creds, keyring.Central(kek))
		}
		if keys, err = ring.BeginRotation(keys, creds...); err != nil {
			return err
		}
	}
	prev, _ := keys.Previous()
	cur := keys.Current()
	if err := storage.Rekey(d.Store(), prev.Badger(), cur.Badger()); err != nil && !errors.Is(err, storage.ErrWrongKey) {
		return fmt.Errorf("re-seal the store: %w", err)
	}
	if err := journal.Reseal(d.Journal(), journalKeys(keys), journal.Keys{Current: journalKey(cur)}); err != nil {
		return fmt.Errorf("reseal the journal: %w", err)
	}
	if _, err := ring.FinishRotation(keys); err != nil {
		return err
	}
	c.logger.Info().Uint32("generation", cur.Gen()).Msg("key rotate: a new data key")
	fmt.Fprintf(c.out, "data key rotated: generation %d seals the store's key registry and every journal line\n", cur.Gen())
	return nil
}

// keyStatus says how the data directory's key is kept: nothing secret.
func keyStatus(c *call) error {
	ring, err := keyring.Load(c.data.Keyring())
	if err != nil {
		return err
	}
	if ring.Demo() {
		fmt.Fprintf(c.out, "%s: the DEMO's data directory: its key is the file %s, in clear; real money is refused\n", c.data, c.data.DemoKey())
		return nil
	}
	fmt.Fprintf(c.out, "%s: encrypted at rest, data key generation %v", c.data, ring.Generations())
	if ring.Rotating() {
		fmt.Fprint(c.out, " (a rotation was cut short: starfortune key rotate finishes it)")
	}
	fmt.Fprintln(c.out)
	for _, s := range ring.Slots() {
		switch s.Kind {
		case keyring.SlotPassphrase:
			fmt.Fprintf(c.out, "  passphrase slot, set %s (Argon2id: %d passes, %d MiB)\n", s.Created.Local().Format(time.DateTime), s.Argon2.Time, s.Argon2.MemoryKiB>>10)
		case keyring.SlotCentral:
			fmt.Fprintf(c.out, "  central slot, set %s: the central gives the key to this kiosk at start-up\n", s.Created.Local().Format(time.DateTime))
		}
	}
	return nil
}

// newPassphrase is a new passphrase: from a file (--new-passphrase-file,
// else the usual --passphrase-file or its environment variable), else
// typed twice on the terminal.
func (c *call) newPassphrase(file string) ([]byte, error) {
	if file != "" {
		return readSecret(file)
	}
	if pass, ok, err := c.passphraseFile(); err != nil || ok {
		return pass, err
	}
	pass, ok, err := c.prompt("new passphrase: ")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("no passphrase given: --new-passphrase-file FILE, or type it on a terminal")
	}
	again, _, err := c.prompt("the same again: ")
	defer clear(again)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(pass, again) {
		return nil, errors.New("the two passphrases differ: nothing was changed")
	}
	return pass, nil
}

// rotationPassphrase is the passphrase the rotated keyring is sealed
// under: a new one when given, else the current one (asked again on a
// terminal when it was not in a file).
func (c *call) rotationPassphrase(newFile string) ([]byte, error) {
	if newFile != "" {
		return readSecret(newFile)
	}
	if pass, ok, err := c.passphraseFile(); err != nil || ok {
		return pass, err
	}
	pass, ok, err := c.prompt("passphrase (again, to seal the new key): ")
	if err == nil && !ok {
		err = errors.New("the rotated key is sealed under the passphrase: give it (--passphrase-file FILE)")
	}
	return pass, err
}

// keyCentral is the central of a kiosk of a fleet (nil for a lone kiosk),
// for its data key, and how to close it; it connects lazily.
func (c *call) keyCentral() (keyCentral, func()) {
	if c.conf.CentralURL == "" {
		return nil, func() {}
	}
	fleet, closeFleet, err := openFleet(c.ctx, c.conf)
	if err != nil {
		c.logger.Warn().AnErr("err", err).Msg("data key: the central's connection string")
		return nil, func() {}
	}
	return centralOf(fleet), closeFleet
}
