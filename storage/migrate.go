package storage

// The one-time encryption of a plaintext store (written before #34).
//
// The store DIR is copied, encrypted, beside itself, then swapped in by two
// renames. Every name below is a whole directory; D is DIR, P is
// DIR.encrypting.partial, E is DIR.encrypting, A is DIR.plain:
//
//	step                            on disk after it      a cut there leaves, and the next Open
//	-                               D (plain)             plaintext store: opens with no key
//	1 build P from D (Backup→Load)  D, P (partial)        plaintext store; P is rebuilt by EncryptBeside
//	2 rename P → E (synced)         D, E                  plaintext store; E is rebuilt by EncryptBeside
//	  (the caller audits E)
//	3 rename D → A (synced)         A, E                  Open finishes: E → D, removes A: encrypted
//	4 rename E → D (synced)         A, D (encrypted)      Open removes A: encrypted
//	5 remove A, sync DIR's parent   D (encrypted)         encrypted store: opens with its key
//
// Only P and E are written while D is plaintext, and both are encrypted;
// A, the plaintext, exists only between steps 3 and 5, and any Open (settle)
// completes the swap before it opens anything. A directory named E is
// always a whole copy (P is renamed to E only once built and synced), so
// finishing the swap from A+E is safe. A+D with D plaintext, A+D+E, and
// other states no run makes are refused: nothing is deleted then.
//
// Removing A unlinks the plaintext files; their blocks stay on the device
// until the file system reuses them, as with any deletion: a copy of the
// data directory no longer holds them, an image of the raw disk may.
//
// Sales made in D after its copy would be lost by the swap: the copy
// records D's Badger version (copiedFrom), and SwapEncrypted refuses when
// D has moved on since. Settling and swapping hold a lock on DIR's parent
// directory, so that two processes never move the same names at once.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/internal/fsync"
)

// Suffixes of the names a migration uses beside the store directory.
const (
	suffixPartial = ".encrypting.partial"
	suffixCopy    = ".encrypting"
	suffixAside   = ".plain"
)

// copiedFrom is the file, in a finished copy, holding the Badger version
// (MaxVersion) of the plaintext store it was copied from.
const copiedFrom = "COPIED-FROM-VERSION"

var nopLog = zerolog.Nop()

// ErrStoreMoved is a swap refused because the plaintext store was written
// to after its encrypted copy was made: encrypt it again.
var ErrStoreMoved = errors.New("the store changed after its encrypted copy was made: encrypt it again")

// Encrypt migrates the plaintext store in dir to one encrypted under key:
// EncryptBeside, then check (if not nil) on the new store's directory,
// then SwapEncrypted. The caller runs its audit in check (opening the new
// store with key); an error from check leaves the plaintext store in place
// and the copy beside it. On success dir holds the encrypted store and no
// plaintext of it is left (see the table at the top of this file for what
// a cut at any moment leaves).
func Encrypt(dir string, key []byte, log zerolog.Logger, check func(newDir string) error) error {
	newDir, err := EncryptBeside(dir, key, log)
	if err != nil {
		return err
	}
	if check != nil {
		if err := check(newDir); err != nil {
			return fmt.Errorf("encrypt %s: the encrypted copy %s failed its check; the plaintext store is unchanged: %w", dir, newDir, err)
		}
	}
	return SwapEncrypted(dir, newDir, log)
}

// EncryptBeside copies the plaintext store in dir into a new store
// encrypted under key beside it, and returns the copy's directory
// (dir+".encrypting"). dir is untouched; a copy left by an earlier run is
// replaced. A store already encrypted gives an error wrapping ErrWrongKey.
func EncryptBeside(dir string, key []byte, log zerolog.Logger) (newDir string, err error) {
	dir = filepath.Clean(dir)
	if err := needKey(key); err != nil {
		return "", fmt.Errorf("%w: encrypt %s: %w", engine.ErrStorage, dir, err)
	}
	src, err := Open(dir, nil, log) // holds dir's lock until the copy is whole
	if err != nil {
		return "", fmt.Errorf("encrypt %s: %w", dir, err)
	}
	unlock, err := lockParent(dir) // no swap or other migration moves the names meanwhile
	if err != nil {
		src.Close()
		return "", err
	}
	defer unlock()
	defer src.Close()
	part, done := dir+suffixPartial, dir+suffixCopy
	// Left by a run cut short, or never swapped: encrypted, and stale.
	if err := errors.Join(os.RemoveAll(part), os.RemoveAll(done)); err != nil {
		return "", fmt.Errorf("%w: encrypt %s: %w", engine.ErrStorage, dir, err)
	}
	version := src.db.MaxVersion()
	pr, pw := io.Pipe()
	backup := make(chan error, 1)
	go func() {
		err := src.Backup(pw)
		pw.CloseWithError(err)
		backup <- err
	}()
	err = Restore(part, pr, key, log)
	pr.CloseWithError(errors.New("restore ended")) // unblocks Backup if Restore stopped early
	if berr := <-backup; err == nil && berr != nil {
		err = berr
		os.RemoveAll(part)
	}
	if err != nil {
		return "", fmt.Errorf("encrypt %s: %w", dir, err)
	}
	if err := writeSynced(filepath.Join(part, copiedFrom), strconv.FormatUint(version, 10)+"\n"); err != nil {
		os.RemoveAll(part)
		return "", fmt.Errorf("%w: encrypt %s: %w", engine.ErrStorage, dir, err)
	}
	if err := fsync.Rename(part, done); err != nil {
		os.RemoveAll(part)
		return "", fmt.Errorf("%w: encrypt %s: %w", engine.ErrStorage, dir, err)
	}
	log.Info().Str("dir", dir).Str("copy", done).Uint64("version", version).Msg("storage: encrypted copy made")
	return done, nil
}

// SwapEncrypted puts the encrypted copy newDir (from EncryptBeside) in the
// place of the plaintext store dir, and removes the plaintext store. It
// refuses, changing nothing, when dir was written to since the copy
// (ErrStoreMoved) or is open (engine.ErrInUse). Every step is synced; a
// cut anywhere leaves a directory that Open settles (migrate.go's table).
func SwapEncrypted(dir, newDir string, log zerolog.Logger) error {
	dir = filepath.Clean(dir)
	if filepath.Clean(newDir) != dir+suffixCopy {
		return fmt.Errorf("%w: swap %s: the encrypted copy must be %s, not %s", engine.ErrStorage, dir, dir+suffixCopy, newDir)
	}
	newDir = dir + suffixCopy
	unlock, err := lockParent(dir)
	if err != nil {
		return err
	}
	defer unlock()
	fail := func(err error) error { return fmt.Errorf("%w: swap %s: %w", engine.ErrStorage, dir, err) }
	b, err := os.ReadFile(filepath.Join(newDir, copiedFrom))
	if err != nil {
		return fail(fmt.Errorf("%s is not a finished encrypted copy: %w", newDir, err))
	}
	copied, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return fail(fmt.Errorf("%s is not a finished encrypted copy: %w", newDir, err))
	}
	if plain, err := probeRegistry(newDir); err != nil {
		return fail(fmt.Errorf("%s: %w", newDir, err))
	} else if plain {
		return fail(fmt.Errorf("%s is in clear", newDir))
	}
	// Opened for its version: this takes dir's lock (a running kiosk
	// refuses the swap), and settle is not needed: we hold the parent.
	src, err := openStore(dir, nil, false, log)
	if err != nil {
		return fail(err)
	}
	now := src.db.MaxVersion()
	if err := src.Close(); err != nil {
		return fail(err)
	}
	if now != copied {
		return fail(fmt.Errorf("%w (version %d, copied at %d)", ErrStoreMoved, now, copied))
	}
	// Between here and the rename nothing writes dir: only a migration
	// opens a plaintext store (a key is refused with ErrPlaintext), and a
	// migration of dir copies, settles and swaps under the parent's lock,
	// which we hold.
	if err := os.Remove(filepath.Join(newDir, copiedFrom)); err != nil {
		return fail(err)
	}
	if err := fsync.Dir(newDir); err != nil {
		return fail(err)
	}
	aside := dir + suffixAside
	if err := fsync.Rename(dir, aside); err != nil { // step 3
		return fail(err)
	}
	if err := fsync.Rename(newDir, dir); err != nil { // step 4
		return fail(err)
	}
	if err := removeDurably(aside); err != nil { // step 5
		return fail(err)
	}
	log.Info().Str("dir", dir).Msg("storage: the store is encrypted; its plaintext is removed")
	return nil
}

// settle completes, at open, an encryption cut in its swap (steps 3 to 5
// of the table above). Without dir.plain there is nothing to settle, and
// nothing is locked.
func settle(dir string, log zerolog.Logger) error {
	dir = filepath.Clean(dir)
	aside, newDir := dir+suffixAside, dir+suffixCopy
	if _, err := os.Lstat(aside); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	unlock, err := lockParent(dir)
	if err != nil {
		return err
	}
	defer unlock()
	exists := func(p string) (bool, error) {
		_, err := os.Lstat(p)
		if errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		return err == nil, err
	}
	hasAside, err := exists(aside)
	if err != nil || !hasAside {
		return err // settled meanwhile by another process
	}
	hasDir, err := exists(dir)
	if err != nil {
		return fmt.Errorf("%w: %w", engine.ErrStorage, err)
	}
	hasNew, err := exists(newDir)
	if err != nil {
		return fmt.Errorf("%w: %w", engine.ErrStorage, err)
	}
	fail := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s: an encryption of the store was cut short and cannot be completed: %s; nothing was changed",
			engine.ErrStorage, dir, fmt.Sprintf(format, a...))
	}
	switch {
	case !hasDir && hasNew: // cut between steps 3 and 4
		log.Warn().Str("dir", dir).Msg("storage: completing an encryption cut short: the encrypted copy moves in")
		if err := fsync.Rename(newDir, dir); err != nil {
			return fmt.Errorf("%w: %w", engine.ErrStorage, err)
		}
	case !hasDir: // no run leaves this: the plaintext store moves back
		log.Warn().Str("dir", dir).Msg("storage: an encryption cut short left only the plaintext store aside: it moves back")
		if err := fsync.Rename(aside, dir); err != nil {
			return fmt.Errorf("%w: %w", engine.ErrStorage, err)
		}
		return nil
	case hasNew:
		return fail("%s, %s and %s all exist", dir, aside, newDir)
	}
	// Cut between steps 4 and 5 (or completed just now): dir must be the
	// encrypted store before its plaintext is removed.
	if plain, err := probeRegistry(dir); err != nil {
		return fail("%s beside %s: %v", dir, aside, err)
	} else if plain {
		return fail("%s beside %s is in clear too", dir, aside)
	}
	log.Warn().Str("dir", dir).Msg("storage: removing the plaintext store an encryption cut short left aside")
	if err := removeDurably(aside); err != nil {
		return fmt.Errorf("%w: %w", engine.ErrStorage, err)
	}
	return nil
}

// lockParent takes an exclusive lock on the directory holding dir, waiting
// for it: the migration's renames and their settling are serialised.
func lockParent(dir string) (unlock func(), err error) {
	parent := filepath.Dir(dir)
	d, err := os.Open(parent)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", engine.ErrStorage, err)
	}
	if err := syscall.Flock(int(d.Fd()), syscall.LOCK_EX); err != nil {
		d.Close()
		return nil, fmt.Errorf("%w: lock %s: %w", engine.ErrStorage, parent, err)
	}
	return func() { d.Close() }, nil
}

// removeDurably removes the store directory at path and syncs the
// directory that held it. Its entries are removed and their removal synced
// first: a file's removal is durable once its directory is synced, which
// cannot happen after the directory is gone (the strict model of POSIX the
// power-cut tests use, internal/powercut).
func removeDurably(path string) error {
	entries, err := os.ReadDir(path)
	if errors.Is(err, os.ErrNotExist) {
		return fsync.Dir(filepath.Dir(path))
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(path, e.Name())); err != nil {
			return err
		}
	}
	if err := fsync.Dir(path); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil {
		return err
	}
	return fsync.Dir(filepath.Dir(path))
}

// writeSynced writes a small file and syncs it and its directory.
func writeSynced(path, content string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return err
	}
	if err := errors.Join(f.Sync(), f.Close()); err != nil {
		return err
	}
	return fsync.Dir(filepath.Dir(path))
}
