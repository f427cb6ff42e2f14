// Package storage keeps the game in Badger: the engine.Store of the kiosk.
// Key layouts are in keys.go; every value is the engine's canonical encoding.
package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"
	bopt "github.com/dgraph-io/badger/v4/options"
	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/internal/fsync"
)

// gcInterval is how often the value log is garbage-collected. Our values are
// small and live in the LSM tree, so there is rarely anything to reclaim:
// the loop is a safety net, not a workload.
const gcInterval = 5 * time.Minute

// Store is the Badger adapter implementing engine.Store. It is safe for
// concurrent use; writers should still be serialised (the engine's Service
// is), since Badger has no group commit and concurrent writers conflict.
type Store struct {
	db     *badger.DB
	dir    string
	log    zerolog.Logger
	chunks chunkCache
	disk   diskGuard // free space checked before each Update (check.go)

	stop      chan struct{}
	gc        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

var _ engine.Store = (*Store)(nil)

// DefaultDir is the per-user data directory: $XDG_DATA_HOME/starfortune, or
// ~/.local/share/starfortune when XDG_DATA_HOME is unset (or not absolute,
// as the XDG specification says to ignore it then). Without a home
// directory it is "starfortune-data" in the working directory, which the
// usage text shows.
func DefaultDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "starfortune")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "starfortune-data"
	}
	return filepath.Join(home, ".local", "share", "starfortune")
}

// Open opens (creating if needed) the store in dir, encrypted under key
// (KeySize bytes; see seal.go). A key that does not unlock the store gives
// an error wrapping ErrWrongKey; a key for a store written before #34, not
// encrypted, ErrPlaintext (Encrypt migrates it). Either refusal happens
// before Badger touches the directory: nothing in it changes.
//
// A nil key opens a legacy plaintext store, for the one-time migration
// (Encrypt) only: it never creates one, and refuses an encrypted store with
// ErrWrongKey.
//
// A directory held by another process gives an error wrapping
// engine.ErrInUse; a directory written by another schema version, or that
// Badger cannot open, an error wrapping engine.ErrStorage (every error
// does). Open first finishes or rolls back an encryption cut short in its
// swap (settle, migrate.go).
func Open(dir string, key []byte, log zerolog.Logger) (*Store, error) {
	if err := settle(dir, log); err != nil {
		return nil, err
	}
	return openStore(dir, key, false, log)
}

// openStore is Open without settling a migration. newPlain lets a nil key
// create a new plaintext store, as every store was before #34 (tests of
// the migration make them).
func openStore(dir string, key []byte, newPlain bool, log zerolog.Logger) (*Store, error) {
	if err := checkKey(key); err != nil {
		return nil, fmt.Errorf("%w: open %s: %w", engine.ErrStorage, dir, err)
	}
	fresh, err := checkDir(dir, key, log)
	if err != nil {
		return nil, err
	}
	if fresh && key == nil && !newPlain {
		return nil, fmt.Errorf("%w: open %s: no store there, and without a key there is none to open: %w", engine.ErrStorage, dir, needKey(nil))
	}
	// Badger makes the directory without syncing the one holding it.
	if err := fsync.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("%w: %w", engine.ErrStorage, err)
	}
	db, err := openDB(dir, key, log)
	if err != nil {
		return nil, err
	}
	from, err := checkSchema(db, dir)
	if err != nil {
		db.Close()
		return nil, err
	}
	if from != schemaVersion {
		log.Warn().Str("dir", dir).Uint32("from", from).Uint32("to", schemaVersion).Msg("data schema migrated")
	}
	s := &Store{db: db, dir: dir, log: log, stop: make(chan struct{}), disk: newDiskGuard(dir)}
	s.gc.Add(1)
	go s.gcLoop(tuning.gcInterval())
	log.Info().Str("dir", dir).Uint32("schema", schemaVersion).Bool("encrypted", key != nil).Msg("storage opened")
	return s, nil
}

// options are sized for a kiosk: small memtables and caches, every commit
// synced, one version per key. An 8 MB memtable commits a sale as fast as a
// 16 MB one (a 64 MB one takes twice as long), holds a batch of
// engine.MaxBatch sales in one transaction (Badger's limit is 15 % of it),
// and keeps the playing window's memory low: its arena is the largest thing
// in the heap. Values keep Badger's default threshold (1 MB), so ours all
// live in the LSM tree.
//
// With a key, Badger encrypts everything it writes under it (seal.go). An
// encrypted table cannot be read in place from its memory map: each block
// read is decrypted into a new buffer, which Badger requires a block cache
// to hold, and each table's index is decrypted into the index cache, on the
// heap (a store with a million history records has 4.7 MB of indexes and
// bloom filters; the cache keeps those that reads use). A sale costs the
// same either way: its time is the disk's sync (BenchmarkSaleEncryption).
func options(dir string, key []byte, log zerolog.Logger) badger.Options {
	o := badger.DefaultOptions(dir).
		WithSyncWrites(true).
		WithMemTableSize(8 << 20).
		WithNumMemtables(2).
		WithValueLogFileSize(16 << 20).
		WithCompression(bopt.None). // tables are read in place from their memory maps
		WithBlockCacheSize(0).      // (a cache of decompressed blocks would double them)
		WithIndexCacheSize(4 << 20).
		WithNumVersionsToKeep(1).
		WithNumCompactors(2).
		WithMetricsEnabled(false).
		WithLogger(badgerLogger{log}).
		WithLoggingLevel(badger.WARNING)
	if key != nil {
		// A copy: the caller may wipe its key once the store is open.
		o = o.WithEncryptionKey(bytes.Clone(key)).
			WithEncryptionKeyRotationDuration(dataKeyRotation).
			WithBlockCacheSize(blockCacheSize)
	}
	return tuning.apply(o)
}

// blockCacheSize is the cache of decrypted table blocks of an encrypted
// store: a sale reads a few blocks (wallet, cursor, the unit's chunk), the
// same ones sale after sale.
const blockCacheSize = 4 << 20

func openDB(dir string, key []byte, log zerolog.Logger) (db *badger.DB, err error) {
	defer func() {
		// Some damaged files make Badger panic while opening; refuse to
		// serve with an error rather than crash.
		if p := recover(); p != nil {
			db, err = nil, fmt.Errorf("%w: %w: open %s: badger: %v", engine.ErrStorage, engine.ErrCorrupt, dir, p)
		}
	}()
	db, err = badger.Open(options(dir, key, log))
	if err == nil {
		return db, nil
	}
	if strings.Contains(err.Error(), "Cannot acquire directory lock") {
		return nil, fmt.Errorf("%w: %s", engine.ErrInUse, dir)
	}
	if errors.Is(err, badger.ErrEncryptionKeyMismatch) { // checkDir tells which key is wrong first
		return nil, fmt.Errorf("%w: open %s: %w", engine.ErrStorage, dir, ErrWrongKey)
	}
	return nil, fmt.Errorf("%w: open %s: %w", engine.ErrStorage, dir, err)
}

// errNotOurs is an open refused because the directory holds something else.
var errNotOurs = errors.New("not a Star Fortune data directory")

// migrations[v] turns data of schema version v into version v+1, in the
// transaction that records the new version.
var migrations = map[uint32]func(*badger.Txn) error{
	1: markJournal,
	2: func(*badger.Txn) error { return nil }, // 'R' keys are new: nothing to change
	3: refuseSHA256Commitments,
}

// ErrOldCommitment is a store whose blocks carry the commitment of schema
// 3 and before (one SHA-256 over the units) instead of the Merkle root.
var ErrOldCommitment = errors.New("the blocks of this data directory were committed with the earlier " +
	"SHA-256 commitment, not the Merkle root this program publishes; a published commitment cannot be " +
	"replaced: keep running the program that wrote it until its blocks are sold, or start a new data directory")

// refuseSHA256Commitments: schema 4 commits blocks with a salted Merkle
// root. A block whose stored commitment is another value (schema 3's one
// SHA-256) is refused rather than rewritten, because its commitment was
// logged, journaled and possibly printed when the block was drawn, and the
// journal (append-only, hash-chained) keeps it: recomputing it would make
// the store disagree with its own journal and with what was published. The
// check reads the commitments themselves, not the version number: blocks
// already committed by their Merkle root (a store written by this program
// and restored with an older version key) migrate.
func refuseSHA256Commitments(txn *badger.Txn) error {
	t := &tx{txn: txn}
	blocks, err := t.Blocks()
	if err != nil {
		return err
	}
	for _, info := range blocks {
		b, err := t.block(info.Ref)
		if err != nil {
			return err
		}
		if root, err := engine.Commit(b.Ref, b.Seed, b.Units); err != nil || root != b.Commitment {
			return ErrOldCommitment
		}
	}
	return nil
}

// markJournal: schema 1 kept the whole last journal entry under 'j',
// version 2 its mark.
func markJournal(txn *badger.Txn) error {
	t := &tx{txn: txn}
	var e engine.JournalEntry
	ok, err := t.get(journalKey(), &e)
	if err != nil || !ok {
		return err
	}
	return t.put(journalKey(), engine.MarkOf(e))
}

// checkSchema writes the schema version into a new store, checks it in an
// existing one, and migrates the data of an older version (from is the
// version found).
func checkSchema(db *badger.DB, dir string) (from uint32, err error) {
	from = schemaVersion
	err = db.Update(func(txn *badger.Txn) error {
		item, err := txn.Get(schemaKey())
		if errors.Is(err, badger.ErrKeyNotFound) {
			it := txn.NewIterator(badger.IteratorOptions{})
			it.Rewind()
			empty := !it.Valid()
			it.Close()
			if !empty {
				return fmt.Errorf("%w: no schema version key", errNotOurs)
			}
			return txn.Set(schemaKey(), encodeSchema(schemaVersion))
		}
		if err != nil {
			return err
		}
		v, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		if len(v) != 4 {
			return fmt.Errorf("%w: schema version of %d bytes", errNotOurs, len(v))
		}
		got := binary.BigEndian.Uint32(v)
		from = got
		if got == schemaVersion {
			return nil
		}
		for ; got < schemaVersion && migrations[got] != nil; got++ {
			if err := migrations[got](txn); err != nil {
				return fmt.Errorf("migrating the data from schema version %d to %d: %w", got, got+1, err)
			}
		}
		if got != schemaVersion {
			return fmt.Errorf("data schema version %d, this program reads version %d: "+
				"use the program that wrote it", from, schemaVersion)
		}
		return txn.Set(schemaKey(), encodeSchema(schemaVersion))
	})
	if err != nil {
		return from, fmt.Errorf("%w: %s: %w", engine.ErrStorage, dir, err)
	}
	return from, nil
}

// Dir is the data directory.
func (s *Store) Dir() string { return s.dir }

// Close stops the GC loop and closes Badger, flushing its memtables. It is
// safe to call more than once.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		close(s.stop)
		s.gc.Wait()
		if err := s.db.Close(); err != nil {
			s.closeErr = fmt.Errorf("%w: close %s: %w", engine.ErrStorage, s.dir, err)
		}
		s.log.Info().Str("dir", s.dir).Err(s.closeErr).Msg("storage closed")
	})
	return s.closeErr
}

func (s *Store) gcLoop(every time.Duration) {
	defer s.gc.Done()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-tick.C:
			s.collect()
		}
	}
}

// collect rewrites value-log files while one is at least half garbage
// (tests may ask for less).
func (s *Store) collect() {
	event := func(string) {}
	if tuning.OnGC != nil {
		event = tuning.OnGC
	}
	event("start")
	defer event("end")
	for n := 0; ; n++ {
		select {
		case <-s.stop:
			return
		default:
		}
		err := s.db.RunValueLogGC(tuning.gcDiscardRatio())
		switch {
		case err == nil:
			event("rewrote")
			continue
		case errors.Is(err, badger.ErrNoRewrite), errors.Is(err, badger.ErrRejected):
			if n > 0 {
				s.log.Info().Int("files", n).Msg("value log garbage collected")
			}
		default:
			s.log.Warn().Err(err).Msg("value log garbage collection failed")
		}
		return
	}
}

// backupMagic starts every backup, followed by the schema version (u32,
// big-endian), then Badger's own backup stream.
const backupMagic = "STARFORTUNE-BACKUP\n"

// maxBackupFrame bounds the size a frame of Badger's backup stream may
// announce: Load allocates it before reading, so a damaged size would
// otherwise ask for gigabytes. Badger's frames are at most about 100 MB.
const maxBackupFrame = 512 << 20

// Backup writes a full, consistent copy of the store to w, while the store
// keeps serving.
func (s *Store) Backup(w io.Writer) error {
	hdr := binary.BigEndian.AppendUint32([]byte(backupMagic), schemaVersion)
	if _, err := w.Write(hdr); err != nil {
		return fmt.Errorf("backup %s: %w", s.dir, err)
	}
	if _, err := s.db.Backup(w, 0); err != nil {
		return fmt.Errorf("%w: backup %s: %w", engine.ErrStorage, s.dir, err)
	}
	return nil
}

// Restore loads a backup made by Backup into dir, which must not exist or be
// empty: a restore never merges into, or overwrites, a live store. The
// restored store is encrypted under key (KeySize bytes), whatever store the
// backup was taken from. On failure what was written is removed again.
func Restore(dir string, r io.Reader, key []byte, log zerolog.Logger) (err error) {
	if err := needKey(key); err != nil {
		return fmt.Errorf("restore into %s: %w", dir, err)
	}
	entries, err := os.ReadDir(dir)
	existed := err == nil
	switch {
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("restore into %s: %w", dir, err)
	case len(entries) > 0:
		return fmt.Errorf("restore into %s: the directory is not empty: restore only into a new or empty directory", dir)
	}
	hdr := make([]byte, len(backupMagic)+4)
	if _, err := io.ReadFull(r, hdr); err != nil || string(hdr[:len(backupMagic)]) != backupMagic {
		return fmt.Errorf("restore into %s: not a Star Fortune backup", dir)
	}
	if v := binary.BigEndian.Uint32(hdr[len(backupMagic):]); v > schemaVersion || v != schemaVersion && migrations[v] == nil {
		return fmt.Errorf("restore into %s: backup of data schema version %d, this program reads version %d", dir, v, schemaVersion)
	}
	if err := fsync.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("restore into %s: %w", dir, err)
	}
	defer func() {
		if err == nil {
			return
		}
		if !existed {
			os.RemoveAll(dir)
			return
		}
		written, _ := os.ReadDir(dir)
		for _, e := range written {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}()
	db, err := openDB(dir, key, log)
	if err != nil {
		return err
	}
	err = load(db, &frames{r: r})
	if err == nil {
		err = db.View(func(txn *badger.Txn) error {
			if _, err := txn.Get(schemaKey()); err != nil {
				return fmt.Errorf("%w: the backup has no schema version: %w", errNotOurs, err)
			}
			return nil
		})
	}
	if err == nil {
		_, err = checkSchema(db, dir)
	}
	if cerr := db.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("restore into %s: %w", dir, err)
	}
	log.Info().Str("dir", dir).Msg("storage restored")
	return nil
}

// load runs Badger's Load, which panics on some damaged input.
func load(db *badger.DB, r io.Reader) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("damaged backup: %v", p)
		}
	}()
	if err := db.Load(r, 256); err != nil {
		return fmt.Errorf("damaged or truncated backup: %w", err)
	}
	return nil
}

// frames passes Badger's backup stream (frames of a little-endian u64 size
// then that many bytes) through, refusing absurd frame sizes.
type frames struct {
	r       io.Reader
	hdr     [8]byte
	pending []byte // the part of the frame header not passed on yet
	left    uint64 // bytes of the current frame still to pass on
}

func (f *frames) Read(p []byte) (int, error) {
	if len(f.pending) == 0 && f.left == 0 {
		n, err := io.ReadFull(f.r, f.hdr[:])
		if n == 0 && err == io.EOF {
			return 0, io.EOF
		}
		if err != nil {
			return 0, fmt.Errorf("truncated frame header: %w", err)
		}
		if f.left = binary.LittleEndian.Uint64(f.hdr[:]); f.left > maxBackupFrame {
			return 0, fmt.Errorf("frame of %d bytes", f.left)
		}
		f.pending = f.hdr[:]
	}
	if len(f.pending) > 0 {
		n := copy(p, f.pending)
		f.pending = f.pending[n:]
		return n, nil
	}
	if uint64(len(p)) > f.left {
		p = p[:f.left]
	}
	n, err := f.r.Read(p)
	f.left -= uint64(n)
	if err == io.EOF && f.left > 0 {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// badgerLogger passes Badger's warnings and errors to zerolog; its info and
// debug chatter (compactions, flushes) is dropped.
type badgerLogger struct{ log zerolog.Logger }

func (l badgerLogger) Errorf(f string, a ...any) {
	l.log.Error().Str("component", "badger").Msg(strings.TrimSpace(fmt.Sprintf(f, a...)))
}

func (l badgerLogger) Warningf(f string, a ...any) {
	l.log.Warn().Str("component", "badger").Msg(strings.TrimSpace(fmt.Sprintf(f, a...)))
}

func (badgerLogger) Infof(string, ...any)  {}
func (badgerLogger) Debugf(string, ...any) {}
