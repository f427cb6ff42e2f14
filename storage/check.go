package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unsafe"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/fb"
	bopt "github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/ristretto/v2"
	"github.com/dgraph-io/ristretto/v2/z"
	"github.com/rs/zerolog"

	"starfortune/engine"
)

// Damage Badger does not report (each seen on Badger v4.9.6), checked
// before Badger touches the directory:
//
//   - MANIFEST missing while tables exist: Badger would open an empty
//     database and delete every table.
//   - A truncated or damaged table file: Badger panics in one of its own
//     goroutines (which no caller can recover), or with its default checksum
//     mode serves flipped bytes silently.
//
// A truncated or flipped write-ahead log (.mem) cannot be seen from here:
// Badger replays it up to the damage and drops the rest without a word, and
// nothing in the directory says how much there was. The journal, which
// holds every committed transaction, reveals such a gap (its head is ahead
// of the store's).

// checkDir checks the data directory before Badger opens it, and that key
// unlocks it (seal.go). fresh is a directory holding no store yet: missing,
// or without a key registry and without data (Badger writes KEYREGISTRY
// before any log or table): nothing to check.
func checkDir(dir string, key []byte, log zerolog.Logger) (fresh bool, err error) {
	d, err := os.Open(dir)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("%w: open %s: %w", engine.ErrStorage, dir, err)
	}
	defer d.Close() // releases the lock, just before Badger takes it
	// Badger's own lock (flock on the directory): a running kiosk compacts
	// and deletes tables while we would read them.
	if err := syscall.Flock(int(d.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return false, fmt.Errorf("%w: %s", engine.ErrInUse, dir)
		}
		return false, fmt.Errorf("%w: lock %s: %w", engine.ErrStorage, dir, err)
	}
	names, err := d.Readdirnames(-1)
	if err != nil {
		return false, fmt.Errorf("%w: list %s: %w", engine.ErrStorage, dir, err)
	}
	var tables, vlogs, mems int
	manifest, registry := false, false
	for _, n := range names {
		switch {
		case strings.HasSuffix(n, ".mem") || strings.HasSuffix(n, ".vlog"):
			removed, err := removeEmptyLog(filepath.Join(dir, n), log)
			if err != nil {
				return false, err
			}
			if !removed && strings.HasSuffix(n, ".mem") {
				mems++
			}
		case n == badger.ManifestFilename:
			manifest = true
		case n == badger.KeyRegistryFileName:
			registry = true
		case strings.HasSuffix(n, ".sst"):
			tables++
		}
		if strings.HasSuffix(n, ".vlog") {
			vlogs++
		}
	}
	if !manifest && tables+vlogs > 0 {
		return false, fmt.Errorf("%w: %w: MANIFEST missing in %s while %d table files (and %d value-log files) exist: "+
			"refusing to open (Badger would start empty and delete them); restore a backup or run `starfortune recover`",
			engine.ErrStorage, engine.ErrCorrupt, dir, tables, vlogs)
	}
	if !registry {
		if tables+vlogs+mems == 0 {
			return true, nil
		}
		// Badger would write a new registry, under whatever key it is
		// given, and then not read the data its lost data keys encrypted.
		return false, fmt.Errorf("%w: %w: KEYREGISTRY missing in %s while %d table files, %d value-log files "+
			"and %d write-ahead logs exist: refusing to open; restore a backup or run `starfortune recover`",
			engine.ErrStorage, engine.ErrCorrupt, dir, tables, vlogs, mems)
	}
	kr, err := openRegistry(dir, key)
	if err != nil {
		return false, fmt.Errorf("%w: open %s: %w", engine.ErrStorage, dir, err)
	}
	if !manifest {
		return false, nil
	}
	return false, checkTables(dir, options(dir, key, log), kr)
}

// removeEmptyLog deletes a write-ahead log (.mem) or value log (.vlog) file
// of zero bytes. Badger creates such a file (a memtable's, or at every open
// the value log's next), then sizes it: a kill between the two leaves an
// empty file, which Badger then refuses to open ("Create a new file") on
// every start. Such a file holds nothing, not even its header, so nothing
// points into it; Badger itself deletes the memtables it finds empty.
func removeEmptyLog(path string, log zerolog.Logger) (removed bool, err error) {
	st, err := os.Stat(path)
	if err != nil || st.Size() != 0 {
		return false, nil // Badger opens it, or says what is wrong
	}
	if err := os.Remove(path); err != nil {
		return false, fmt.Errorf("%w: remove the empty log file %s: %w", engine.ErrStorage, path, err)
	}
	log.Warn().Str("file", path).Msg("storage: empty log file removed (the program was stopped while creating it)")
	return true, nil
}

// checkTables opens every table the MANIFEST lists with Badger's own table
// reader, verifying the index and every block's checksum, as Badger's
// ChecksumVerificationMode OnTableRead would, except that a damaged table
// is an error here where Badger would skip it or panic. kr holds the data
// keys of an encrypted store's tables (opt.EncryptionKey set); a table in
// clear there, or an encrypted one in a plaintext store, is refused.
func checkTables(dir string, opt badger.Options, kr *badger.KeyRegistry) error {
	mf, err := os.Open(filepath.Join(dir, badger.ManifestFilename))
	if err != nil {
		return fmt.Errorf("%w: %w", engine.ErrStorage, err)
	}
	m, _, err := badger.ReplayManifestFile(mf, opt.ExternalMagicVersion, opt)
	mf.Close()
	if err != nil {
		return fmt.Errorf("%w: %w: MANIFEST in %s: %w", engine.ErrStorage, engine.ErrCorrupt, dir, err)
	}
	encrypted := len(opt.EncryptionKey) > 0
	var index *ristretto.Cache[uint64, *fb.TableIndex]
	if encrypted && len(m.Tables) > 0 {
		// An encrypted table's index is decrypted into a cache, as in
		// Badger's Open; this one lives for the check only.
		index, err = ristretto.NewCache(&ristretto.Config[uint64, *fb.TableIndex]{
			NumCounters: 1 << 12, MaxCost: opt.IndexCacheSize, BufferItems: 64})
		if err != nil {
			return fmt.Errorf("%w: %w", engine.ErrStorage, err)
		}
		defer index.Close()
	}
	for id, tm := range m.Tables {
		path := table.NewFilename(id, dir)
		switch {
		case encrypted && tm.KeyID == 0:
			return fmt.Errorf("%w: %w: table %s is in clear in an encrypted store: not written by this program", engine.ErrStorage, engine.ErrCorrupt, path)
		case !encrypted && tm.KeyID != 0:
			return fmt.Errorf("%w: %w: table %s is encrypted in a plaintext store: not written by this program", engine.ErrStorage, engine.ErrCorrupt, path)
		}
		dk, err := kr.DataKey(tm.KeyID)
		if err != nil {
			return fmt.Errorf("%w: %w: table %s: its data key is not in KEYREGISTRY: %w", engine.ErrStorage, engine.ErrCorrupt, path, err)
		}
		// As Badger's buildTableOptions, but checking every block now.
		topt := table.Options{
			ReadOnly:             true,
			TableSize:            uint64(opt.BaseTableSize),
			BlockSize:            opt.BlockSize,
			BloomFalsePositive:   opt.BloomFalsePositive,
			ChkMode:              bopt.OnTableRead,
			Compression:          tm.Compression, // as written, like Badger's own open
			ZSTDCompressionLevel: opt.ZSTDCompressionLevel,
			DataKey:              dk,
			IndexCache:           index,
		}
		if err := checkTable(path, topt); err != nil {
			return err
		}
	}
	return nil
}

// checkTable opens one table read-only and closes it again, turning
// Badger's panics on damaged files into an error.
func checkTable(path string, topt table.Options) (err error) {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%w: %w: table %s is listed in the MANIFEST but missing", engine.ErrStorage, engine.ErrCorrupt, path)
	case err == nil && st.Size() == 0:
		return fmt.Errorf("%w: %w: table %s is damaged: empty", engine.ErrStorage, engine.ErrCorrupt, path)
	}
	mf, err := z.OpenMmapFile(path, os.O_RDONLY, 0)
	if err != nil {
		return fmt.Errorf("%w: table %s: %w", engine.ErrStorage, path, err)
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %w: table %s is damaged (truncated or overwritten; restore a backup or run `starfortune recover`): %s", engine.ErrStorage, engine.ErrCorrupt, path, panicText(p))
		}
		if err != nil {
			closeMmap(mf)
		}
	}()
	t, err := table.OpenTable(mf, topt)
	if err != nil {
		return fmt.Errorf("%w: %w: table %s is damaged: %w", engine.ErrStorage, engine.ErrCorrupt, path, err)
	}
	// Not t.DecrRef: at zero it deletes the file. Nothing else refers to
	// the mapping (no block cache), so unmapping it is all there is to do.
	if err := t.MmapFile.Close(-1); err != nil {
		return fmt.Errorf("%w: table %s: %w", engine.ErrStorage, path, err)
	}
	return nil
}

// closeMmap closes a mapping OpenTable may or may not have closed already
// (it does on some errors, not on others nor on a panic): unmapping twice
// could unmap memory mapped since at the same address.
func closeMmap(mf *z.MmapFile) {
	if _, err := mf.Fd.Stat(); errors.Is(err, os.ErrClosed) {
		return
	}
	mf.Close(-1)
}

// panicText is a panic's message in one line, without the banners of the
// debug dump Badger adds to some.
func panicText(p any) string {
	var lines []string
	for l := range strings.Lines(fmt.Sprint(p)) {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "==") {
			lines = append(lines, l)
		}
	}
	s := strings.Join(lines, "; ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// DefaultReserve is the free space a store keeps on its filesystem: enough
// for Badger to flush a memtable and start a value-log file. Below it,
// Update refuses before writing anything, since Badger writes through
// memory-mapped files, and a write into a full filesystem there is a crash
// (SIGBUS), not an error.
const DefaultReserve = 64 << 20

// Options are the store's settings besides its directory.
type Options struct {
	// Reserve is the free space to keep on the data directory's
	// filesystem; 0 means DefaultReserve, a negative value disables the
	// check.
	Reserve int64
}

// OpenWith is Open with options.
func OpenWith(dir string, key []byte, log zerolog.Logger, opt Options) (*Store, error) {
	s, err := Open(dir, key, log)
	if err != nil {
		return nil, err
	}
	if opt.Reserve != 0 {
		s.disk.reserve = opt.Reserve
	}
	return s, nil
}

// diskGuard refuses writes when the filesystem is nearly full.
type diskGuard struct {
	dir     string
	path    []byte // dir, NUL-terminated, for statfs(2) without an allocation
	reserve int64
}

func newDiskGuard(dir string) diskGuard {
	return diskGuard{dir: dir, path: append([]byte(dir), 0), reserve: DefaultReserve}
}

const mib = 1 << 20

// check returns an error wrapping engine.ErrStorage and engine.ErrDiskFull
// when less than the reserve is free. It runs before every commit: one
// statfs, about a microsecond, no allocation.
func (g *diskGuard) check() error {
	if g.reserve < 0 {
		return nil
	}
	free, err := g.free()
	if err != nil {
		return fmt.Errorf("%w: free space on %s: %w", engine.ErrStorage, g.dir, err)
	}
	if free < uint64(g.reserve) {
		return fmt.Errorf("%w: %w: %d MiB free on %s, %d MiB reserved: nothing written",
			engine.ErrStorage, engine.ErrDiskFull, free/mib, g.dir, g.reserve/mib)
	}
	return nil
}

// free is the space an unprivileged writer may still use.
func (g *diskGuard) free() (uint64, error) {
	var st syscall.Statfs_t
	// syscall.Statfs would copy the path into a new C string each time.
	_, _, errno := syscall.Syscall(syscall.SYS_STATFS, uintptr(unsafe.Pointer(&g.path[0])), uintptr(unsafe.Pointer(&st)), 0)
	if errno != 0 {
		return 0, errno
	}
	return st.Bavail * uint64(st.Bsize), nil
}
