package cli

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/internal/fsync"
	"starfortune/journal"
	"starfortune/storage"
)

// A backup is a gzipped tar: the store's backup stream (Store.Backup) in
// members store.badger.000000, store.badger.000001, … of at most
// storePartSize bytes, then the journal file, taken together while nothing
// else writes. tar writes a member's size before its bytes, and the
// stream's size is known only at its end: rather than staging the stream
// in a temporary file, which would leave the store's content (the open
// blocks' seeds and units) in clear on the disk, each part is held in
// memory until it is full. Backups made before #34 hold the stream in one
// member, store.badger; restore reads both.
const (
	backupStore   = "store.badger"
	backupJournal = "journal.sfj"
)

// storePartSize bounds a part of the store's stream, the memory a backup
// holds it in (a variable for the tests).
var storePartSize = 4 << 20

// storePart is the name of part n of the store's stream.
func storePart(n int) string { return fmt.Sprintf("%s.%06d", backupStore, n) }

func backupRun(c *call) error {
	store, out, path := c.store, c.out, c.args[0]
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("%s already exists: choose a new file", path)
	}
	tmp := path + ".partial" // one left by a backup cut short is overwritten
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	defer f.Close()
	// TODO(#34 wiring): seal the file: gzip writes into the key package's
	// AEAD stream over f, so that no byte of the backup is in clear.
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	now := time.Now()
	parts := &partWriter{tw: tw, at: now}
	if err := store.Backup(parts); err != nil {
		return fmt.Errorf("back up the store: %w", err)
	}
	if err := parts.flush(); err != nil {
		return fmt.Errorf("back up the store: %w", err)
	}
	journalFile, err := os.Open(c.data.Journal())
	if err != nil {
		return fmt.Errorf("back up the journal: %w", err)
	}
	defer journalFile.Close()
	st, err := journalFile.Stat()
	if err != nil {
		return err
	}
	if err := tw.WriteHeader(&tar.Header{Name: backupJournal, Mode: 0o640, Size: st.Size(), ModTime: now}); err != nil {
		return err
	}
	if _, err := io.CopyN(tw, journalFile, st.Size()); err != nil {
		return fmt.Errorf("back up %s: %w", backupJournal, err)
	}
	if err := errors.Join(tw.Close(), gz.Close(), f.Sync(), f.Close()); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := fsync.Rename(tmp, path); err != nil {
		return err
	}
	fmt.Fprintf(out, "backup written to %s\n", path)
	return nil
}

// partWriter writes the store's stream as tar members of storePartSize
// bytes (the last one shorter), each held in memory until it is written.
type partWriter struct {
	tw  *tar.Writer
	at  time.Time
	buf []byte
	n   int // parts written
}

func (p *partWriter) Write(b []byte) (int, error) {
	written := 0
	for len(b) > 0 {
		if p.buf == nil {
			p.buf = make([]byte, 0, storePartSize)
		}
		k := min(len(b), storePartSize-len(p.buf))
		p.buf = append(p.buf, b[:k]...)
		b, written = b[k:], written+k
		if len(p.buf) == storePartSize {
			if err := p.flush(); err != nil {
				return written, err
			}
		}
	}
	return written, nil
}

// flush writes what is held as the next part.
func (p *partWriter) flush() error {
	if len(p.buf) == 0 {
		return nil
	}
	if err := p.tw.WriteHeader(&tar.Header{Name: storePart(p.n), Mode: 0o640, Size: int64(len(p.buf)), ModTime: p.at}); err != nil {
		return err
	}
	if _, err := p.tw.Write(p.buf); err != nil {
		return err
	}
	p.n++
	p.buf = p.buf[:0]
	return nil
}

// partReader reads the store's stream back from its members, starting in
// the one just read (part 0, or a pre-#34 backup's whole store.badger): at
// the end of a part it moves on to the next member, which must be the next
// part; any other member ends the stream and is kept in next.
type partReader struct {
	tr    *tar.Reader
	parts bool // the stream is in parts
	n     int  // the part being read
	next  *tar.Header
	done  bool
}

func (r *partReader) Read(b []byte) (int, error) {
	for !r.done {
		n, err := r.tr.Read(b)
		if err == io.EOF && n > 0 {
			return n, nil // the member's end: the next call moves on
		}
		if err != io.EOF {
			return n, err
		}
		h, err := r.tr.Next()
		if err == io.EOF {
			r.done = true
			break
		}
		if err != nil {
			return 0, err
		}
		if r.parts && h.Name == storePart(r.n+1) {
			r.n++
			continue
		}
		if strings.HasPrefix(h.Name, backupStore) {
			return 0, fmt.Errorf("member %s where %s was due: parts missing or out of order", h.Name, storePart(r.n+1))
		}
		r.next, r.done = h, true
	}
	return 0, io.EOF
}

func restoreRun(c *call) error {
	d, logger, args, out := c.data, c.logger, c.args, c.out
	for _, p := range []string{d.Store(), d.Journal()} {
		if _, err := os.Stat(p); err == nil {
			return fmt.Errorf("%s exists: restore only into an empty data directory (use --data NEWDIR)", p)
		}
	}
	// The backup is restored beside its places and moved in once whole,
	// so that a restore cut short (a power cut) leaves no store that
	// opens with part of the backup. Copies left by one are started over.
	store, jpath := d.Store()+".restoring", d.Journal()+".restoring"
	if err := errors.Join(os.RemoveAll(store), os.RemoveAll(jpath)); err != nil {
		return err
	}
	f, err := os.Open(args[0])
	if err != nil {
		return err
	}
	defer f.Close()
	// TODO(#34 wiring): open the key package's AEAD stream over f and
	// read gzip from it.
	gz, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s is not a Star Fortune backup: %w", args[0], err)
	}
	tr := tar.NewReader(gz)
	seen := map[string]bool{}
	var next *tar.Header // read by the store's stream, not restored yet
	for {
		h := next
		if next = nil; h == nil {
			if h, err = tr.Next(); err == io.EOF {
				break
			}
			if err != nil {
				return fmt.Errorf("%s is damaged: %w", args[0], err)
			}
		}
		name := h.Name
		switch {
		case seen[name]:
			err = fmt.Errorf("a second member %q", name)
		case name == backupStore && seen[storePart(0)], name == storePart(0) && seen[backupStore]:
			err = errors.New("a second copy of the store")
		case name == backupStore, name == storePart(0):
			// TODO(#34 wiring): the kiosk's store key, from the key package.
			parts := &partReader{tr: tr, parts: name == storePart(0)}
			err = storage.Restore(store, parts, UnwiredStoreKey, logger)
			next = parts.next
		case name == backupJournal:
			err = restoreJournal(jpath, tr)
		default:
			err = fmt.Errorf("unexpected member %q", name)
		}
		if err != nil {
			os.RemoveAll(store)
			os.Remove(jpath)
			return fmt.Errorf("restore %s from %s: %w", name, args[0], err)
		}
		seen[name] = true
	}
	seen[backupStore] = seen[backupStore] || seen[storePart(0)]
	if !seen[backupStore] || !seen[backupJournal] {
		os.RemoveAll(store)
		os.Remove(jpath)
		return fmt.Errorf("%s is incomplete: it lacks the store or the journal", args[0])
	}
	// The journal first: cut between the two, the start finds the store
	// behind its journal, says so, and recover rebuilds it.
	if err := fsync.Rename(jpath, d.Journal()); err != nil {
		return err
	}
	if err := fsync.Rename(store, d.Store()); err != nil {
		return err
	}
	fmt.Fprintf(out, "restored %s into %s\n", args[0], d)
	return auditAfter(c)
}

func restoreJournal(path string, r io.Reader) error {
	// Plain until the keyring gives the journal its keys (#34).
	j, err := journal.Open(path, journal.Plain) // creates the directory and an empty file
	if err != nil {
		return err
	}
	j.Close()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0o640)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}

// cmdRecover rebuilds the store from the journal. It changes nothing unless
// the journal's whole chain is intact and the old store (if it still opens)
// is not ahead of the journal; the new store is built beside the old one,
// which is then kept aside for investigation, and the result is audited.
func recoverRun(c *call) error {
	ctx, d, logger, out := c.ctx, c.data, c.logger, c.out
	// Plain until the keyring gives the journal its keys (#34).
	j, err := journal.Open(d.Journal(), journal.Plain) // locked: fails while a kiosk runs on d
	if err != nil {
		return err
	}
	defer j.Close()
	if j.Head().Seq == 0 {
		return fmt.Errorf("the journal %s is empty: nothing to recover from", d.Journal())
	}
	if err := j.Entries(func(engine.JournalEntry) error { return nil }); err != nil {
		return fmt.Errorf("the journal is damaged, nothing was changed (restore a backup instead): %w", err)
	}
	if ahead, err := storeAhead(ctx, d, j.Head(), logger); err != nil {
		return err
	} else if ahead != "" {
		return fmt.Errorf("nothing was changed: %s", ahead)
	}
	building := d.Store() + ".recovering"
	if err := os.RemoveAll(building); err != nil {
		return err
	}
	// TODO(#34 wiring): the kiosk's store key, from the key package.
	store, err := storage.Open(building, UnwiredStoreKey, logger)
	if err != nil {
		return err
	}
	n, err := engine.Recover(ctx, j, store, zerolog.Nop())
	if cerr := store.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%w (the old store is untouched; the partial one is in %s)", err, building)
	}
	if _, err := os.Stat(d.Store()); err == nil {
		aside := d.Store() + ".damaged-" + time.Now().UTC().Format("20060102T150405Z")
		if err := fsync.Rename(d.Store(), aside); err != nil {
			return err
		}
		fmt.Fprintf(out, "the old store is kept in %s\n", aside)
		logger.Warn().Str("moved_to", aside).Msg("recover: damaged store moved aside")
	}
	// Cut between the two renames, the next start finds no store, makes
	// an empty one behind the journal and says so; recover runs again.
	if err := fsync.Rename(building, d.Store()); err != nil {
		return err
	}
	j.Close()
	fmt.Fprintf(out, "recovered %d journal entries into a fresh store\n", n)
	return auditAfter(c)
}

// storeAhead says why recovering from a journal at head would lose what the
// old store holds, or "" when it would not (or the old store cannot open:
// then the journal is all there is).
func storeAhead(ctx context.Context, d DataDir, head engine.JournalHead, logger zerolog.Logger) (string, error) {
	if _, err := os.Stat(d.Store()); err != nil {
		return "", nil
	}
	// TODO(#34 wiring): the kiosk's store key, from the key package.
	store, err := storage.Open(d.Store(), UnwiredStoreKey, logger)
	if errors.Is(err, engine.ErrInUse) || errors.Is(err, storage.ErrWrongKey) || errors.Is(err, storage.ErrPlaintext) {
		return "", err // not damage: a store this key cannot read is not replaced
	}
	if err != nil {
		return "", nil // damaged beyond opening
	}
	defer store.Close()
	var stored engine.JournalMark
	var ok bool
	if err := store.View(ctx, func(tx engine.ReadTx) (err error) { stored, ok, err = tx.Journal(); return err }); err != nil || !ok {
		return "", nil
	}
	if stored.Head.Seq > head.Seq {
		return fmt.Sprintf("the store holds journal entry %d but the journal ends at entry %d: recovering would lose the later sales (is this the right journal?)", stored.Head.Seq, head.Seq), nil
	}
	return "", nil
}

// auditAfter opens the game on the data directory it restored or
// recovered, and audits it.
func auditAfter(c *call) error {
	return WithGame(c.ctx, c.data, c.conf.Engine(), c.logger, io.Discard, func(svc *engine.Service, _ *storage.Store) error {
		if err := svc.Health(); err != nil {
			return err
		}
		return audit(c.ctx, svc, false, c.out)
	})
}
