package cli

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/internal/fsync"
	"starfortune/journal"
	"starfortune/storage"
)

// A backup is a gzipped tar of two members: the store (Badger's backup
// stream) and the journal file, taken together while nothing else writes.
const (
	backupStore   = "store.badger"
	backupJournal = "journal.sfj"
)

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
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	// The store's stream is staged in a temporary file: tar needs sizes.
	staged, err := os.CreateTemp("", "starfortune-backup-*")
	if err != nil {
		return err
	}
	defer os.Remove(staged.Name())
	defer staged.Close()
	if err := store.Backup(staged); err != nil {
		return fmt.Errorf("back up the store: %w", err)
	}
	journalFile, err := os.Open(c.data.Journal())
	if err != nil {
		return fmt.Errorf("back up the journal: %w", err)
	}
	defer journalFile.Close()
	for _, m := range []struct {
		name string
		f    *os.File
	}{{backupStore, staged}, {backupJournal, journalFile}} {
		st, err := m.f.Stat()
		if err != nil {
			return err
		}
		if _, err := m.f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: m.name, Mode: 0o640, Size: st.Size(), ModTime: time.Now()}); err != nil {
			return err
		}
		if _, err := io.CopyN(tw, m.f, st.Size()); err != nil {
			return fmt.Errorf("back up %s: %w", m.name, err)
		}
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
	gz, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s is not a Star Fortune backup: %w", args[0], err)
	}
	tr := tar.NewReader(gz)
	seen := map[string]bool{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s is damaged: %w", args[0], err)
		}
		switch h.Name {
		case backupStore:
			err = storage.Restore(store, tr, logger)
		case backupJournal:
			err = restoreJournal(jpath, tr)
		default:
			err = fmt.Errorf("unexpected member %q", h.Name)
		}
		if err != nil {
			os.RemoveAll(store)
			os.Remove(jpath)
			return fmt.Errorf("restore %s from %s: %w", h.Name, args[0], err)
		}
		seen[h.Name] = true
	}
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
	store, err := storage.Open(building, logger)
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
	store, err := storage.Open(d.Store(), logger)
	if errors.Is(err, engine.ErrInUse) {
		return "", err
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
