package storage

// Secrecy at rest (issue #34): the store holds every open block's seed and
// units, and players' data, so a copy of the data directory must reveal
// none of it. Badger encrypts it itself: every table block, write-ahead log
// entry and value-log entry is encrypted with AES-CTR under a data key;
// the data keys live in the KEYREGISTRY file, encrypted under the master
// key the caller gives (32 bytes, AES-256), and a new data key is made
// every dataKeyRotation. The MANIFEST (table numbers, levels, data key
// ids), the LOCK file (a process id) and the DISCARD file (value-log
// statistics) hold no data.
//
// Badger answers "Encryption key mismatch" alike for a wrong key, for no
// key on an encrypted store and for a key on a plaintext store: it only
// compares a sanity text at the head of KEYREGISTRY. The store reads that
// head itself, before Badger touches the directory, to tell the three
// apart (probeRegistry).

import (
	"bytes"
	"crypto/aes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/dgraph-io/badger/v4"

	"starfortune/engine"
)

// KeySize is the length of a store's master key: AES-256.
const KeySize = 32

// dataKeyRotation is how long Badger encrypts new data with one data key
// before it makes the next (Badger's default). Each rotation appends about
// 60 bytes to KEYREGISTRY.
const dataKeyRotation = 10 * 24 * time.Hour

// ErrWrongKey is an open refused because the key given does not unlock the
// store: another key, no key for an encrypted store, or a key of the wrong
// length. Nothing in the directory was changed.
var ErrWrongKey = errors.New("wrong key")

// ErrPlaintext is an open with a key refused because the store is not
// encrypted yet (a store written before #34): Encrypt migrates it.
var ErrPlaintext = errors.New("this data directory is not encrypted yet: migrate it")

// sanityText is what Badger writes, encrypted under the master key (or in
// clear without one), after KEYREGISTRY's IV (key_registry.go).
var sanityText = []byte("Hello Badger")

// registryHead is the length of KEYREGISTRY's IV and sanity text.
const registryHead = aes.BlockSize + 12

// checkKey refuses a key that cannot be a store's: nil is the legacy
// plaintext store, anything else must be KeySize bytes (Badger would also
// take AES-128 and AES-192 keys; a store's key is always AES-256).
func checkKey(key []byte) error {
	if key != nil && len(key) != KeySize {
		return fmt.Errorf("%w: a key of %d bytes, a store's key is %d", ErrWrongKey, len(key), KeySize)
	}
	return nil
}

// needKey is checkKey for the operations that only make encrypted stores.
func needKey(key []byte) error {
	if key == nil {
		return fmt.Errorf("%w: no key given: a store is only written encrypted", ErrWrongKey)
	}
	return checkKey(key)
}

// errNoRegistry is a store directory without KEYREGISTRY.
var errNoRegistry = errors.New("no KEYREGISTRY")

// probeRegistry says whether the KEYREGISTRY in dir is a plaintext store's:
// its sanity text in clear. Badger writes the file whole (a temporary file
// renamed), so a short one is damage.
func probeRegistry(dir string) (plain bool, err error) {
	f, err := os.Open(filepath.Join(dir, badger.KeyRegistryFileName))
	if errors.Is(err, os.ErrNotExist) {
		return false, errNoRegistry
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, registryHead)
	if _, err := io.ReadFull(f, head); err != nil {
		return false, fmt.Errorf("%w: %s is damaged: %w", engine.ErrCorrupt, f.Name(), err)
	}
	return bytes.Equal(head[aes.BlockSize:], sanityText), nil
}

// openRegistry reads the key registry of the store in dir under key,
// telling a wrong key, a missing key and a plaintext store apart. It
// changes nothing on disk.
func openRegistry(dir string, key []byte) (*badger.KeyRegistry, error) {
	plain, err := probeRegistry(dir)
	if err != nil {
		return nil, err
	}
	switch {
	case plain && key != nil:
		return nil, ErrPlaintext
	case !plain && key == nil:
		return nil, fmt.Errorf("%w: the store is encrypted: unlock it with its key", ErrWrongKey)
	}
	kr, err := badger.OpenKeyRegistry(badger.KeyRegistryOptions{Dir: dir, ReadOnly: true, EncryptionKey: key})
	switch {
	case errors.Is(err, badger.ErrEncryptionKeyMismatch):
		return nil, fmt.Errorf("%w: the store is encrypted under another key", ErrWrongKey)
	case err != nil:
		return nil, fmt.Errorf("%w: %s is damaged: %w", engine.ErrCorrupt, filepath.Join(dir, badger.KeyRegistryFileName), err)
	}
	return kr, nil
}

// Rekey re-encrypts the key registry of the closed store in dir from
// oldKey to newKey: the data keys stay the same, so nothing else is
// rewritten and no block is drawn again. The store must not be open (an
// error wrapping engine.ErrInUse otherwise).
//
// The new registry is written under a temporary name (REWRITE-KEYREGISTRY)
// with O_DSYNC, renamed over KEYREGISTRY and the directory synced
// (badger.WriteKeyRegistry): the rename is the one moment the key changes.
// Cut before it, the store opens with oldKey only (and a stale
// REWRITE-KEYREGISTRY, encrypted under newKey, lies beside it until the
// next Rekey overwrites it); cut after, with newKey only. A caller that
// may have been cut during a rotation opens with the new key, then, on
// ErrWrongKey, the old one, and runs Rekey again if the old one opened it.
// Rekey of a store already under newKey does nothing, so running it again
// is always safe.
func Rekey(dir string, oldKey, newKey []byte) error {
	if err := errors.Join(needKey(oldKey), needKey(newKey)); err != nil {
		return fmt.Errorf("%w: rekey %s: %w", engine.ErrStorage, dir, err)
	}
	if err := settle(dir, nopLog); err != nil {
		return err
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := openRegistry(dir, newKey); err == nil {
		return nil // done already (a rotation cut after its rename, run again)
	}
	kr, err := openRegistry(dir, oldKey)
	if errors.Is(err, errNoRegistry) {
		return fmt.Errorf("%w: rekey %s: no store there", engine.ErrStorage, dir)
	}
	if err != nil {
		return fmt.Errorf("%w: rekey %s: %w", engine.ErrStorage, dir, err)
	}
	opt := badger.KeyRegistryOptions{Dir: dir, EncryptionKey: newKey, EncryptionKeyRotationDuration: dataKeyRotation}
	if err := badger.WriteKeyRegistry(kr, opt); err != nil {
		return fmt.Errorf("%w: rekey %s: %w", engine.ErrStorage, dir, err)
	}
	// Read it back: a registry that newKey cannot open must not be the
	// only one left.
	if _, err := openRegistry(dir, newKey); err != nil {
		return fmt.Errorf("%w: rekey %s: the rewritten key registry does not open: %w", engine.ErrStorage, dir, err)
	}
	return nil
}

// lockDir takes the store directory's lock (Badger's: flock on the
// directory) for work done on a closed store, so that no kiosk opens it
// meanwhile.
func lockDir(dir string) (unlock func(), err error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: open %s: %w", engine.ErrStorage, dir, err)
	}
	if err := syscall.Flock(int(d.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		d.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s", engine.ErrInUse, dir)
		}
		return nil, fmt.Errorf("%w: lock %s: %w", engine.ErrStorage, dir, err)
	}
	return func() { d.Close() }, nil
}
