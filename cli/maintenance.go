package cli

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/internal/fsync"
	"starfortune/journal"
	"starfortune/keyring"
	"starfortune/storage"
)

// A backup is sealed: the line backupMagic, the data directory's keyring
// (its length in 4 bytes, big-endian, then the file as it is: sealed
// itself), then a sealed stream (keyring.NewSealWriter, under the backup
// key of the data key's current generation) of a gzipped tar: the store's
// backup stream (Store.Backup) in members store.badger.000000,
// store.badger.000001, … of at most storePartSize bytes, then the journal
// file (its lines sealed too), taken together while nothing else writes.
// tar writes a member's size before its bytes, and the stream's size is
// known only at its end: rather than staging the stream in a temporary
// file, which would leave the store's content in clear on the disk, each
// part is held in memory until it is full. So the backup opens with what
// opens the data directory (its passphrase, or the central's key), and
// nothing else.
//
// Backups made before encryption at rest are the gzipped tar alone, with
// the stream in one member, store.badger, and the journal in clear:
// restore reads them too, into a data directory under a new passphrase.
const (
	backupMagic   = "STARFORTUNE-BACKUP 2\n"
	backupStore   = "store.badger"
	backupJournal = "journal.sfj"
)

// maxBackupKeyring bounds the keyring a backup may announce.
const maxBackupKeyring = 64 << 10

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
	if c.key.demo {
		return fmt.Errorf("%w: the demo's data directory is not backed up (its key is in clear beside it; nothing in it is money)", engine.ErrDemoOnly)
	}
	ring, err := os.ReadFile(c.data.Keyring())
	if err != nil {
		return fmt.Errorf("back up the keyring: %w", err)
	}
	hdr := binary.BigEndian.AppendUint32([]byte(backupMagic), uint32(len(ring)))
	if _, err := f.Write(append(hdr, ring...)); err != nil {
		return err
	}
	cur := c.key.keys.Current()
	sealed := keyring.NewSealWriter(f, cur.Backup(), cur.Gen())
	gz := gzip.NewWriter(sealed)
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
	if err := errors.Join(tw.Close(), gz.Close(), sealed.Close(), f.Sync(), f.Close()); err != nil {
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
	dir   string // where the store is restored: each part must fit
	parts bool   // the stream is in parts
	n     int    // the part being read
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
			if err := roomFor(r.dir, h.Name, h.Size); err != nil {
				return 0, err
			}
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
	d, args, out := c.data, c.args, c.out
	for _, p := range []string{d.Store(), d.Journal()} {
		if _, err := os.Stat(p); err == nil {
			return fmt.Errorf("%s exists: restore only into an empty data directory (use --data NEWDIR)", p)
		}
	}
	// The backup is restored into a data directory of its own inside d,
	// audited there, and moved in once whole and clean, so that a restore
	// cut short (a power cut) leaves no store that opens with part of the
	// backup, and a backup that does not audit clean restores nothing.
	// What one cut short left is started over.
	staged := DataDir(filepath.Join(string(d), ".restoring"))
	if err := os.RemoveAll(string(staged)); err != nil {
		return err
	}
	f, err := os.Open(args[0])
	if err != nil {
		return err
	}
	defer f.Close()
	err = c.restoreFrom(f, staged)
	if err == nil {
		err = auditAfter(c, staged, nil) // where it lies
	}
	if err != nil {
		os.RemoveAll(string(staged))
		return fmt.Errorf("restore %s: nothing was restored: %w", args[0], err)
	}
	// The keyring first, then the journal: cut between the journal and
	// the store, the start finds the store behind its journal, says so,
	// and recover rebuilds it.
	if err := fsync.MkdirAll(filepath.Dir(d.Journal()), 0o750); err != nil {
		return err
	}
	for _, m := range [][2]string{{staged.Keyring(), d.Keyring()}, {staged.Journal(), d.Journal()}, {staged.Store(), d.Store()}} {
		if err := fsync.Rename(m[0], m[1]); err != nil {
			return err
		}
	}
	if err := os.RemoveAll(string(staged)); err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "restored %s into %s\n", args[0], d)
	return err
}

// roomFor refuses a backup member of size bytes that would not fit on the
// filesystem of dir with the store's reserve left free: a backup's
// declared sizes are checked before anything is written, so that a
// compressed bomb (a small file that unpacks to terabytes) fills no disk.
func roomFor(dir, name string, size int64) error {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return err
	}
	if free := int64(st.Bavail) * st.Bsize; size < 0 || size > free-storage.DefaultReserve {
		return fmt.Errorf("%w: member %s holds %d bytes, the disk has %d free (less the %d kept in reserve)",
			engine.ErrDiskFull, name, size, free, storage.DefaultReserve)
	}
	return nil
}

// restoreFrom restores the backup f into the staging data directory r: its keyring unlocked
// as the data directory's would be (a wrong passphrase restores nothing),
// its sealed stream opened with it. A backup from before encryption at
// rest is restored under a new keyring, sealed under the passphrase given.
func (c *call) restoreFrom(f io.Reader, r DataDir) error {
	br := bufio.NewReader(f)
	if head, err := br.Peek(2); err == nil && head[0] == 0x1f && head[1] == 0x8b { // gzip: before encryption at rest
		if _, err := os.Stat(c.data.Keyring()); err == nil {
			return fmt.Errorf("%s exists: restore only into an empty data directory (use --data NEWDIR)", c.data.Keyring())
		}
		pass, err := c.newPassphrase("")
		if err != nil {
			return fmt.Errorf("a backup from before encryption at rest is restored under a new passphrase: %w", err)
		}
		defer clear(pass)
		if err := fsync.MkdirAll(filepath.Dir(r.Keyring()), 0o750); err != nil {
			return err
		}
		_, keys, err := keyring.CreatePassphrase(r.Keyring(), pass)
		if err != nil {
			return err
		}
		c.key = dataKey{keys: keys}
		return c.restoreTar(br, keys, r, true)
	}
	hdr := make([]byte, len(backupMagic)+4)
	if _, err := io.ReadFull(br, hdr); err != nil || string(hdr[:len(backupMagic)]) != backupMagic {
		return errors.New("not a Star Fortune backup")
	}
	n := binary.BigEndian.Uint32(hdr[len(backupMagic):])
	if n > maxBackupKeyring {
		return fmt.Errorf("damaged: a keyring of %d bytes", n)
	}
	ringBytes := make([]byte, n)
	if _, err := io.ReadFull(br, ringBytes); err != nil {
		return fmt.Errorf("damaged: %w", err)
	}
	// The keyring is moved in first: one alone is a restore of this
	// backup cut short, which starts over; any other is not ours to replace.
	if held, err := os.ReadFile(c.data.Keyring()); err == nil && !bytes.Equal(held, ringBytes) {
		return fmt.Errorf("%s exists: restore only into an empty data directory (use --data NEWDIR)", c.data.Keyring())
	}
	if err := fsync.MkdirAll(filepath.Dir(r.Keyring()), 0o750); err != nil {
		return err
	}
	if err := fsync.WriteFile(r.Keyring(), ringBytes, 0o600); err != nil { // renamed in later: whole after a power cut
		return err
	}
	ring, err := keyring.Load(r.Keyring())
	if err != nil {
		return err
	}
	cen, closeCentral := c.keyCentral()
	defer closeCentral()
	k, err := c.unlockRing(ring, cen)
	if err != nil {
		return err
	}
	c.key = k
	sealed, err := keyring.NewSealReader(br, k.keys)
	if err != nil {
		return err
	}
	return c.restoreTar(sealed, k.keys, r, false)
}

// restoreTar restores the gzipped tar of a backup under keys; a journal in
// clear (a backup from before encryption at rest) is sealed.
func (c *call) restoreTar(src io.Reader, keys keyring.Keys, r DataDir, clearJournal bool) error {
	gz, err := gzip.NewReader(src)
	if err != nil {
		return fmt.Errorf("not a Star Fortune backup: %w", err)
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
				return fmt.Errorf("damaged: %w", err)
			}
		}
		name := h.Name
		if err := roomFor(string(r), name, h.Size); err != nil {
			return err
		}
		switch {
		case seen[name]:
			err = fmt.Errorf("a second member %q", name)
		case name == backupStore && seen[storePart(0)], name == storePart(0) && seen[backupStore]:
			err = errors.New("a second copy of the store")
		case name == backupStore, name == storePart(0):
			parts := &partReader{tr: tr, dir: string(r), parts: name == storePart(0)}
			err = storage.Restore(r.Store(), parts, keys.Current().Badger(), c.logger)
			next = parts.next
		case name == backupJournal:
			err = restoreJournal(r.Journal(), tr, keys, clearJournal)
		default:
			err = fmt.Errorf("unexpected member %q", name)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		seen[name] = true
	}
	// The sealed stream's last chunk is checked when the reader reaches
	// it: read to the end, so a backup cut short is refused.
	if _, err := io.Copy(io.Discard, src); err != nil {
		return fmt.Errorf("damaged: %w", err)
	}
	if !seen[backupStore] && !seen[storePart(0)] || !seen[backupJournal] {
		return errors.New("incomplete: it lacks the store or the journal")
	}
	return nil
}

func restoreJournal(path string, r io.Reader, keys keyring.Keys, inClear bool) error {
	opened := journalKeys(keys)
	if inClear {
		opened = journal.Plain
	}
	j, err := journal.Open(path, opened) // creates the directory and an empty file
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
	if err := errors.Join(f.Sync(), f.Close()); err != nil || !inClear {
		return err
	}
	return journal.Reseal(path, journal.Plain, journalKeys(keys))
}

// recoverFlags: recover's anchor, for a store that is lost.
func recoverFlags(fs *flag.FlagSet) func(*call) error {
	expect := fs.String("expect-head", "", "the journal head `ENTRY:HASH` last printed by audit or report: needed when the store is lost")
	override := fs.String("override", "", "rebuild with no head to check the journal against, for `REASON` (recorded; every audit lists it)")
	return func(c *call) error {
		if *expect != "" && *override != "" {
			return usageError{errors.New("give --expect-head or --override, not both")}
		}
		var want *engine.JournalHead
		if *expect != "" {
			h, err := engine.ParseJournalHead(*expect)
			if err != nil {
				return usageError{err}
			}
			want = &h
		}
		return recoverRun(c, want, strings.TrimSpace(*override))
	}
}

// errNoAnchor is recover on a lost store with nothing to check the
// journal's end against.
var errNoAnchor = errors.New("nothing was changed: the store is lost and the journal alone cannot prove it is whole " +
	"(its last lines may have been cut, or it may be an older copy). Give the journal head last printed by " +
	"`starfortune audit` or `starfortune report` (recover --expect-head ENTRY:HASH), or restore a backup; " +
	"--override REASON rebuilds from the journal as it is, recorded in the operator log and listed by every audit")

// recoverRun rebuilds the store from the journal. It changes nothing unless
// the journal's whole chain is intact and reaches its anchor: the old store
// when it still opens (the journal must not be behind it), else the head
// staff give (want) from an earlier audit or report, or an attendant's
// override (reason), which is recorded. The new store is built beside the
// old one, which is then kept aside for investigation, and the result is
// audited.
func recoverRun(c *call, want *engine.JournalHead, reason string) error {
	ctx, d, logger, out := c.ctx, c.data, c.logger, c.out
	cen, closeCentral := c.keyCentral()
	defer closeCentral()
	k, err := c.unlock(cen)
	if err != nil {
		return err
	}
	c.key = k
	j, err := openJournal(d.Journal(), k.keys) // locked: fails while a kiosk runs on d
	if err != nil {
		return err
	}
	defer j.Close()
	if j.Head().Seq == 0 {
		return fmt.Errorf("the journal %s is empty: nothing to recover from", d.Journal())
	}
	source := "printed earlier"
	if want == nil && reason == "" {
		if h, ok := c.centralAnchor(cen); ok { // a kiosk of a fleet: its central anchors its journal
			want, source = &h, "its central anchored at an earlier sync"
		}
	}
	var at *engine.JournalHead // the journal's entry at want's number
	var counted uint64         // the anchor's counter after the journal's last counted action
	var counts bool
	err = j.Entries(func(e engine.JournalEntry) error {
		if want != nil && e.Seq == want.Seq {
			h := e.Head()
			at = &h
		}
		if v, ok := engine.CountedIn(e); ok {
			counted, counts = v, true
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("the journal is damaged, nothing was changed (restore a backup instead): %w", err)
	}
	anchored, err := storeAnchors(ctx, d, k.keys, j.Head(), logger)
	if err != nil {
		return err
	}
	counterAnchors, behind, err := c.counterAnchors(counted, counts)
	if err != nil {
		return err
	}
	switch {
	case want != nil && at == nil:
		return fmt.Errorf("nothing was changed: the journal ends at entry %d, before the head %s %s: "+
			"its last %d entries are missing (cut off, or an older copy); restore a backup", j.Head().Seq, want, source, want.Seq-j.Head().Seq)
	case want != nil && *at != *want:
		return fmt.Errorf("nothing was changed: the journal's entry %d is not the one %s (%s here, %s there): "+
			"it was rewritten or comes from another kiosk; restore a backup", want.Seq, source, at, want)
	case behind != "" && reason == "":
		return fmt.Errorf("nothing was changed: %s; restore the latest backup, or rebuild from the journal as it is "+
			"with --override REASON (recorded in the operator log and listed by every audit)", behind)
	case (anchored || want != nil || counterAnchors) && behind == "":
	case reason == "":
		return errNoAnchor
	default:
		logger.Warn().Str("reason", reason).Str("journal_head", j.Head().String()).Str("behind", behind).Msg("recover: no anchor, on an attendant's override")
	}
	building := d.Store() + ".recovering"
	if err := os.RemoveAll(building); err != nil {
		return err
	}
	store, err := storage.Open(building, k.keys.Current().Badger(), logger)
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
	head := j.Head()
	j.Close()
	fmt.Fprintf(out, "recovered %d journal entries into a fresh store\n", n)
	if behind == "" && (want != nil || anchored || counterAnchors) {
		return auditAfter(c, c.data, nil)
	}
	detail := fmt.Sprintf("store rebuilt from the journal up to entry %s with no anchor to check it against: %s", head, reason)
	if behind != "" {
		c.adoptCounter = reason
		detail = fmt.Sprintf("store rebuilt from the journal up to entry %d, behind its TPM counter: %s", head.Seq, reason)
	}
	return auditAfter(c, c.data, func(svc *engine.Service) error {
		return svc.RecordOperator(ctx, "cli", engine.ActionRecoverOverride, detail)
	})
}

// counterAnchors checks a journal whose last counted action took the TPM
// counter to counted (counts: it counted any) against the counter the
// settings name (none: no opinion): engine.JournalAgainst.
func (c *call) counterAnchors(counted uint64, counts bool) (anchors bool, behind string, err error) {
	cfg, err := c.engineConfig()
	if err != nil || cfg.Counter == nil {
		return false, "", err
	}
	return engine.JournalAgainst(c.ctx, cfg.Counter, counted, counts)
}

// centralAnchor is the journal head a fleet kiosk's central anchored at
// its last heartbeat, if the central answers within 10 s and has one.
func (c *call) centralAnchor(cen keyCentral) (engine.JournalHead, bool) {
	a, ok := cen.(interface {
		JournalAnchor(context.Context) (engine.JournalHead, error)
	})
	if !ok {
		return engine.JournalHead{}, false
	}
	ctx, cancel := context.WithTimeout(c.ctx, 10*time.Second)
	defer cancel()
	h, err := a.JournalAnchor(ctx)
	if err != nil {
		c.logger.Warn().AnErr("err", err).Msg("recover: the central did not give this kiosk's journal anchor")
		return engine.JournalHead{}, false
	}
	return h, h.Seq > 0
}

// storeAnchors says whether the old store anchors the journal: it opens
// and the journal at head is not behind it. A journal behind its store is
// an error (recovering would lose the later sales); a store that cannot
// open anchors nothing (then only staff can: recoverRun).
func storeAnchors(ctx context.Context, d DataDir, keys keyring.Keys, head engine.JournalHead, logger zerolog.Logger) (bool, error) {
	if _, err := os.Stat(d.Store()); err != nil {
		return false, nil
	}
	store, err := openStore(d.Store(), keys, logger)
	if errors.Is(err, engine.ErrInUse) || errors.Is(err, storage.ErrWrongKey) || errors.Is(err, storage.ErrPlaintext) {
		return false, err // not damage: a store this key cannot read is not replaced
	}
	if err != nil {
		return false, nil // damaged beyond opening
	}
	defer store.Close()
	var stored engine.JournalMark
	var ok bool
	if err := store.View(ctx, func(tx engine.ReadTx) (err error) { stored, ok, err = tx.Journal(); return err }); err != nil || !ok {
		return false, nil
	}
	if stored.Head.Seq > head.Seq {
		return false, fmt.Errorf("nothing was changed: the store holds journal entry %d but the journal ends at entry %d: "+
			"recovering would lose the later sales (is this the right journal?)", stored.Head.Seq, head.Seq)
	}
	return true, nil
}

// auditAfter opens the game on the data directory d, restored or
// recovered, runs first (if set), and audits it, printing the audit.
func auditAfter(c *call, d DataDir, first func(*engine.Service) error) error {
	cfg, err := c.engineConfig()
	if err != nil {
		return err
	}
	cfg.AdoptCounter = c.adoptCounter
	return WithGame(c.ctx, d, c.key.keys, cfg, c.logger, io.Discard, func(svc *engine.Service, _ *storage.Store) error {
		if err := svc.Health(); err != nil {
			return err
		}
		if first != nil {
			if err := first(svc); err != nil {
				return err
			}
		}
		return audit(c.ctx, svc, false, c.out)
	})
}
