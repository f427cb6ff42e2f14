// Package powercut is a file system for tests that loses, when it is cut,
// what a disk would not yet hold after a power failure.
//
// It is a FUSE pass-through over a backing directory: every operation
// reaches the backing directory at once, so reads see it. Beside it, the
// file system keeps what it would take to undo what was never made
// durable: for each file written, truncated or allocated since its last
// fsync (or fdatasync, or msync, which reach FUSE as FSYNC), the file's
// size and the old contents of the pages changed; for each directory entry
// created, renamed or removed since the directory's last fsync, the way
// back (a removed entry is moved aside, not deleted, until then). Cut
// aborts the FUSE connection, so the kernel drops its dirty pages and sends
// nothing more, and undoes all of that: the backing directory then holds
// exactly what a disk would after a power cut at that instant.
//
// The model is the strict one of POSIX, as used by ALICE and LazyFS: a new
// file's name survives only once its directory is synced, even if the file
// itself was; a rename is durable once either directory involved is synced.
//
// Writes through a shared memory mapping reach the file system only when
// the kernel writes the pages back (msync, or its own writeback): FUSE
// passthrough, which go-fuse negotiates as root, would send them straight
// to the backing file, so the file handles here refuse it.
package powercut

import (
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"starfortune/internal/testenv"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// page is the unit in which old file contents are kept.
const page = 4096

// FS is a mounted power-cut file system.
type FS struct {
	backing, mnt, stash string
	server              *fuse.Server
	conn                string // the connection's directory in fusectl

	// gate is held shared by every operation that changes the backing
	// directory, and exclusively by Cut, so that no change lands after
	// the cut instant.
	gate sync.RWMutex
	dead bool // cut or unmounted: every change fails with EIO

	mu      sync.Mutex
	files   map[uint64]*fileUndo   // by backing inode number
	inodes  map[uint64]*sync.Mutex // serialises a file's writes and syncs
	names   []*nameUndo            // in the order they happened
	stashed int
	stats   Stats
	watch   func(rel string) bool // see Watch
	fired   chan struct{}
}

// Stats counts what the file system saw and, after Cut, what it undid.
type Stats struct {
	Writes, Fsyncs, DirSyncs int   // operations seen
	FilesReverted            int   // files whose unsynced data Cut discarded
	BytesReverted            int64 // bytes of old contents Cut wrote back
	NamesUndone              int   // directory changes Cut undid
	// Lost names, relative to the backing directory, the files whose
	// unsynced data and the entries whose unsynced changes Cut undid.
	Lost []string
}

// fileUndo is what it takes to bring a file back to its last synced state.
type fileUndo struct {
	f     *os.File         // the backing file, open for writing
	size  int64            // its size at the last sync
	pages map[int64][]byte // page offset → contents at the last sync (short at the end)
}

// nameUndo is a directory change not yet made durable.
type nameUndo struct {
	path string       // the entry changed, for Stats.Lost
	dirs []uint64     // the directories whose sync makes it durable
	undo func() error // puts the entry back as it was
	done func()       // once durable: forget what undo needed
}

// Mount mounts a power-cut file system over backing (an existing directory)
// at mnt (an existing empty directory). Removed entries wait, until their
// directory is synced, in a directory beside backing.
func Mount(backing, mnt string) (*FS, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	backing, err := filepath.Abs(backing)
	if err != nil {
		return nil, err
	}
	p := &FS{backing: backing, mnt: mnt, stash: filepath.Join(filepath.Dir(backing), "."+filepath.Base(backing)+".powercut"),
		files: map[uint64]*fileUndo{}, inodes: map[uint64]*sync.Mutex{}}
	if err := os.MkdirAll(p.stash, 0o700); err != nil {
		return nil, err
	}
	var st syscall.Stat_t
	if err := syscall.Stat(backing, &st); err != nil {
		return nil, err
	}
	root := &node{pc: p}
	root.RootData = &fs.LoopbackRoot{Path: backing, Dev: st.Dev, RootNode: root}
	sec := time.Second
	p.server, err = fs.Mount(mnt, root, &fs.Options{
		MountOptions: fuse.MountOptions{DirectMount: true, FsName: backing, Name: "powercut", MaxWrite: 1 << 20,
			Logger: log.New(io.Discard, "", 0)}, // replies to aborted requests fail: expected
		EntryTimeout: &sec, AttrTimeout: &sec,
	})
	if err != nil {
		return nil, fmt.Errorf("powercut: mount %s: %w", mnt, err)
	}
	if err := syscall.Stat(mnt, &st); err != nil {
		p.server.Unmount()
		return nil, err
	}
	// fusectl names a connection by the kernel's device number.
	p.conn = fmt.Sprint("/sys/fs/fuse/connections/", unix.Major(st.Dev)<<20|unix.Minor(st.Dev))
	if _, err := os.Stat(filepath.Join(p.conn, "abort")); err != nil {
		p.server.Unmount()
		return nil, fmt.Errorf("powercut: no fusectl connection for %s: %w", mnt, err)
	}
	return p, nil
}

// Available says why this machine cannot mount the file system, or nil: it
// needs /dev/fuse, root (to mount without fusermount and to abort
// connections) and the fusectl file system, which it mounts if needed.
func Available() error {
	if _, err := os.Stat("/dev/fuse"); err != nil {
		return fmt.Errorf("powercut: no FUSE device: %w", err)
	}
	if os.Geteuid() != 0 {
		return errors.New("powercut: needs root (to mount FUSE directly and abort its connections)")
	}
	const ctl = "/sys/fs/fuse/connections"
	if mounted, err := fusectlMounted(); err != nil {
		return err
	} else if !mounted {
		if err := syscall.Mount("fusectl", ctl, "fusectl", 0, ""); err != nil && !errors.Is(err, syscall.EBUSY) {
			return fmt.Errorf("powercut: mount fusectl on %s: %w", ctl, err)
		}
	}
	return nil
}

func fusectlMounted() (bool, error) {
	b, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		return false, err
	}
	for _, f := range strings.Fields(string(b)) {
		if f == "fusectl" {
			return true, nil
		}
	}
	return false, nil
}

// Dir is the mount point.
func (p *FS) Dir() string { return p.mnt }

// Stats returns the counts so far.
func (p *FS) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

// Pending says how many files have unsynced data and how many directory
// changes are unsynced.
func (p *FS) Pending() (files, names int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.files), len(p.names)
}

// Cut is the power failure: from this instant nothing more reaches the
// backing directory; the FUSE connection is aborted (the kernel's dirty
// pages are dropped, its waiting requests fail), the mount point detached,
// and everything not made durable is undone. Processes using the mount see
// errors; kill them.
func (p *FS) Cut() (Stats, error) {
	if !p.kill() {
		return p.Stats(), errors.New("powercut: already cut or unmounted")
	}
	err := os.WriteFile(filepath.Join(p.conn, "abort"), []byte("1"), 0)
	if err != nil {
		err = fmt.Errorf("powercut: abort %s: %w", p.conn, err)
	}
	err = errors.Join(err, p.detach())
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, u := range p.files {
		p.stats.Lost = append(p.stats.Lost, p.rel(fmt.Sprint("/proc/self/fd/", u.f.Fd())))
	}
	for _, u := range p.names {
		p.stats.Lost = append(p.stats.Lost, p.rel(u.path))
	}
	for _, u := range p.files {
		for off, old := range u.pages {
			if _, werr := u.f.WriteAt(old, off); werr != nil {
				err = errors.Join(err, werr)
			}
			p.stats.BytesReverted += int64(len(old))
		}
		err = errors.Join(err, u.f.Truncate(u.size), u.f.Sync(), u.f.Close())
		p.stats.FilesReverted++
	}
	p.files = map[uint64]*fileUndo{}
	for i := len(p.names) - 1; i >= 0; i-- {
		if uerr := p.names[i].undo(); uerr != nil {
			err = errors.Join(err, fmt.Errorf("powercut: undo a directory change: %w", uerr))
		}
		p.stats.NamesUndone++
	}
	p.names = nil
	err = errors.Join(err, os.RemoveAll(p.stash), syncTree(p.backing))
	return p.stats, err
}

// kill waits for the changes under way to end and makes every later one
// fail; it says false if that was done already. The gate is not held
// afterwards: requests still arriving must fail at once, not wait, or the
// server's loops would never stop.
func (p *FS) kill() bool {
	p.gate.Lock()
	defer p.gate.Unlock()
	was := p.dead
	p.dead = true
	return !was
}

// rel is the path of a backing file (or of a descriptor of one under
// /proc/self/fd) relative to the backing directory.
func (p *FS) rel(path string) string {
	if l, err := os.Readlink(path); err == nil && strings.HasPrefix(path, "/proc/") {
		path = l
	}
	if r, err := filepath.Rel(p.backing, path); err == nil {
		return r
	}
	return path
}

// Watch returns a channel that receives when a write, or a directory
// change, touches a path (relative to the backing directory) that match
// accepts: a test cuts on it, to land a cut in the middle of some work.
// The file system keeps running; the receiver cuts when it wants.
func (p *FS) Watch(match func(rel string) bool) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.watch, p.fired = match, make(chan struct{}, 1)
	return p.fired
}

// touched signals the watcher if path is one it waits for.
func (p *FS) touched(path string) {
	p.mu.Lock()
	match, fired := p.watch, p.fired
	p.mu.Unlock()
	if match != nil && match(p.rel(path)) {
		select {
		case fired <- struct{}{}:
		default:
		}
	}
}

// detach unmounts without waiting for anyone: after an abort the server's
// loops have ended or end now.
func (p *FS) detach() error {
	if err := syscall.Unmount(p.mnt, syscall.MNT_DETACH); err != nil {
		return fmt.Errorf("powercut: unmount %s: %w", p.mnt, err)
	}
	done := make(chan struct{})
	go func() { p.server.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		return errors.New("powercut: the FUSE server did not stop")
	}
	return nil
}

// Unmount ends the file system without a power cut: what was written stays,
// as a disk would hold it once the kernel has written everything back.
func (p *FS) Unmount() error {
	if !p.kill() {
		return nil
	}
	err := p.server.Unmount()
	if err != nil {
		err = errors.Join(err, p.detach())
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, u := range p.files {
		err = errors.Join(err, u.f.Close())
	}
	p.files, p.names = nil, nil
	return errors.Join(err, os.RemoveAll(p.stash), syncTree(p.backing))
}

// syncTree makes the backing directory's state durable on the real disk,
// so that a test's later real crash cannot mix with the simulated one.
func syncTree(dir string) error {
	return filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return nil // removed meanwhile
		}
		if info.Mode()&(os.ModeSymlink|os.ModeNamedPipe|os.ModeSocket|os.ModeDevice) != 0 {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return nil
		}
		defer f.Close()
		return f.Sync()
	})
}

// change runs fn, which changes the backing directory, unless the file
// system was cut.
func (p *FS) change(fn func() syscall.Errno) syscall.Errno {
	p.gate.RLock()
	defer p.gate.RUnlock()
	if p.dead {
		return syscall.EIO
	}
	return fn()
}

func (p *FS) inodeLock(ino uint64) *sync.Mutex {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.inodes[ino]
	if l == nil {
		l = &sync.Mutex{}
		p.inodes[ino] = l
	}
	return l
}

// keep records the old contents of [off, off+n) of the file open as fd
// (a file handle's, or -1 to open path), before they change. The caller
// holds the inode's lock.
func (p *FS) keep(fd int, path string, ino uint64, off, n int64) error {
	p.mu.Lock()
	u := p.files[ino]
	p.mu.Unlock()
	if u == nil {
		name := path
		if fd >= 0 {
			name = "/proc/self/fd/" + strconv.Itoa(fd)
		}
		f, err := os.OpenFile(name, os.O_RDWR, 0)
		if err != nil {
			return err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return err
		}
		u = &fileUndo{f: f, size: st.Size(), pages: map[int64][]byte{}}
		p.mu.Lock()
		p.files[ino] = u
		p.mu.Unlock()
	}
	// Pages from the synced size on are cut off by the truncation.
	for pg := off / page * page; pg < off+n && pg < u.size; pg += page {
		if _, ok := u.pages[pg]; ok {
			continue
		}
		old := make([]byte, min(page, u.size-pg))
		m, err := u.f.ReadAt(old, pg)
		if err != nil && m < len(old) {
			return err
		}
		u.pages[pg] = old[:m]
	}
	return nil
}

// synced forgets what undoing the file's changes needed: they are durable.
func (p *FS) synced(ino uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if u := p.files[ino]; u != nil {
		u.f.Close()
		delete(p.files, ino)
	}
	p.stats.Fsyncs++
}

// named records a directory change; dirs are the paths of the directories
// whose sync makes it durable.
func (p *FS) named(path string, dirs []string, undo func() error, done func()) {
	p.touched(path)
	u := &nameUndo{path: path, undo: undo, done: done}
	for _, d := range dirs {
		var st syscall.Stat_t
		if syscall.Stat(d, &st) == nil {
			u.dirs = append(u.dirs, st.Ino)
		}
	}
	p.mu.Lock()
	p.names = append(p.names, u)
	p.mu.Unlock()
}

// dirSynced makes the changes in the directory with inode ino durable.
func (p *FS) dirSynced(ino uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	kept := p.names[:0]
	for _, u := range p.names {
		durable := false
		for _, d := range u.dirs {
			durable = durable || d == ino
		}
		if !durable {
			kept = append(kept, u)
		} else if u.done != nil {
			u.done()
		}
	}
	clear(p.names[len(kept):])
	p.names = kept
	p.stats.DirSyncs++
}

// stashPath is a new name for a removed entry, outside the backing directory.
func (p *FS) stashPath() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stashed++
	return filepath.Join(p.stash, strconv.Itoa(p.stashed))
}

// remove moves path aside instead of removing it, until its directory is
// synced.
func (p *FS) remove(path string) error {
	aside := p.stashPath()
	if err := os.Rename(path, aside); err != nil {
		return err
	}
	p.named(path, []string{filepath.Dir(path)},
		func() error { return os.Rename(aside, path) },
		func() { os.RemoveAll(aside) })
	return nil
}

// created records that path is new.
func (p *FS) created(path string) {
	p.named(path, []string{filepath.Dir(path)}, func() error { return os.RemoveAll(path) }, nil)
}

func inoOf(path string) (uint64, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return 0, err
	}
	return st.Ino, nil
}

func fdIno(fd int) (uint64, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return 0, err
	}
	return st.Ino, nil
}

func errno(err error) syscall.Errno { return fs.ToErrno(err) }

// Require skips t when the file system cannot be mounted here, saying why;
// under CI (the CI environment variable set) it fails t instead: a power-cut
// test that cannot run must not pass.
func Require(t testing.TB) {
	t.Helper()
	if err := Available(); err != nil {
		testenv.Missing(t, "power-cut file system unavailable: %v", err)
	}
}

// MountTemp mounts the file system for test t (after Require) over a new
// backing directory, both in t's temporary directory, and unmounts it when
// t ends.
func MountTemp(t testing.TB) (p *FS, backing, mnt string) {
	t.Helper()
	Require(t)
	tmp := t.TempDir()
	backing, mnt = filepath.Join(tmp, "backing"), filepath.Join(tmp, "mnt")
	for _, d := range []string{backing, mnt} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Mount(backing, mnt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Unmount() })
	return p, backing, mnt
}
