package journal

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"starfortune/engine"
	"starfortune/internal/fsync"
)

// resealing is the suffix of the file Reseal writes beside the journal.
const resealing = ".resealing"

// Reseal rewrites the journal at path, open under from, into lines under
// to: from Plain to keys for sealing a journal from before sealing, from
// the old keys to the new for a rotation. Every entry is read and its chain
// checked; the new file is written beside the journal (path+".resealing"),
// synced, read back and checked to end at the same head, then renamed over
// the journal. The journal must not be open (Reseal holds its lock, and an
// open journal gives engine.ErrInUse).
//
// Cut at any point, it leaves the journal whole, either the old one or the
// new, and perhaps the temporary file, which the next Open or Reseal
// removes. Whoever keeps the keys learns which from Open: during a
// rotation, Keys with the new key current and the old one in Older opens
// both (and Reseal from those is how to finish); for sealing, Open with
// the keys gives ErrNotSealed until the rename is done.
//
// It reads and writes one line at a time, whatever the journal's size.
func Reseal(path string, from, to Keys) error {
	out, err := to.codec()
	if err != nil {
		return err
	}
	src, err := Open(path, from) // removes what a Reseal cut short left
	if err != nil {
		return err
	}
	// Closed after the rename: the lock keeps the kiosk from appending to
	// the old file once it is copied. Closing a file only read loses
	// nothing, whatever its error.
	defer src.Close()
	tmp := path + resealing
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o640)
	if err != nil {
		return fmt.Errorf("%w: reseal journal: %w", engine.ErrStorage, err)
	}
	renamed := false
	defer func() {
		if !renamed {
			os.Remove(tmp)
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	var line, scratch []byte
	var werr error
	err = src.each(func(e engine.JournalEntry, raw []byte) error {
		line = out.appendLine(line[:0], e.Seq, raw, sha256.Sum256(raw), &scratch)
		_, werr = w.Write(line)
		return werr
	})
	if err != nil && werr == nil {
		f.Close()
		return fmt.Errorf("reseal: %w", err)
	}
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if errors.Is(err, syscall.ENOSPC) {
			err = fmt.Errorf("%w: %w", engine.ErrDiskFull, err)
		}
		return fmt.Errorf("%w: reseal journal %s: write %s: %w", engine.ErrStorage, path, filepath.Base(tmp), err)
	}
	if err := verify(tmp, to, src.Head()); err != nil {
		return fmt.Errorf("reseal journal %s: the new file does not read back: %w", path, err)
	}
	// The new file is synced: from the rename on, a cut leaves it whole.
	if err := fsync.Rename(tmp, path); err != nil {
		return fmt.Errorf("%w: reseal journal %s: %w", engine.ErrStorage, path, err)
	}
	renamed = true
	return nil
}

// verify reads the journal at path back under keys: its chain checks from
// the first line to the head want. The chain hash covers every entry, so
// the same head means the same entries.
func verify(path string, keys Keys, want engine.JournalHead) error {
	j, err := Open(path, keys)
	if err != nil {
		return err
	}
	defer j.Close()
	if j.Truncated() != 0 || j.Head() != want {
		return fmt.Errorf("%w: journal %s ends at entry %d (%d bytes cut), want %d",
			engine.ErrCorrupt, filepath.Base(path), j.Head().Seq, j.Truncated(), want.Seq)
	}
	return j.Entries(func(engine.JournalEntry) error { return nil })
}
