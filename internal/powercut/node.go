package powercut

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// node is a loopback node whose changes are recorded for Cut.
type node struct {
	fs.LoopbackNode
	pc *FS
}

var (
	_ fs.NodeWrapChilder    = (*node)(nil)
	_ fs.NodeCreater        = (*node)(nil)
	_ fs.NodeOpener         = (*node)(nil)
	_ fs.NodeOpendirHandler = (*node)(nil)
	_ fs.NodeSetattrer      = (*node)(nil)
	_ fs.NodeMkdirer        = (*node)(nil)
	_ fs.NodeMknoder        = (*node)(nil)
	_ fs.NodeSymlinker      = (*node)(nil)
	_ fs.NodeLinker         = (*node)(nil)
	_ fs.NodeUnlinker       = (*node)(nil)
	_ fs.NodeRmdirer        = (*node)(nil)
	_ fs.NodeRenamer        = (*node)(nil)
	_ fs.NodeCopyFileRanger = (*node)(nil)
	_ fs.NodeTmpfiler       = (*node)(nil)
)

// WrapChild makes every node of the tree a power-cut node.
func (n *node) WrapChild(ctx context.Context, ops fs.InodeEmbedder) fs.InodeEmbedder {
	return &node{LoopbackNode: fs.LoopbackNode{RootData: n.RootData}, pc: n.pc}
}

// backing is the node's path in the backing directory.
func (n *node) backing() string {
	return filepath.Join(n.RootData.Path, n.Path(n.Root()))
}

func (n *node) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (ch *fs.Inode, fh fs.FileHandle, fuseFlags uint32, e syscall.Errno) {
	e = n.pc.change(func() syscall.Errno {
		p := filepath.Join(n.backing(), name)
		_, statErr := os.Lstat(p)
		existed := statErr == nil
		if existed && flags&syscall.O_TRUNC != 0 {
			if e := n.pc.truncating(-1, p, 0); e != 0 {
				return e
			}
		}
		ch, fh, fuseFlags, e = n.LoopbackNode.Create(ctx, name, flags, mode, out)
		if e == 0 && !existed {
			n.pc.created(p)
		}
		return e
	})
	if e != 0 {
		return nil, nil, 0, e
	}
	return ch, n.pc.handle(fh), fuseFlags, 0
}

func (n *node) Open(ctx context.Context, flags uint32) (fh fs.FileHandle, fuseFlags uint32, e syscall.Errno) {
	if flags&syscall.O_TRUNC != 0 && flags&syscall.O_ACCMODE != syscall.O_RDONLY {
		e = n.pc.change(func() syscall.Errno {
			if e := n.pc.truncating(-1, n.backing(), 0); e != 0 {
				return e
			}
			fh, fuseFlags, e = n.LoopbackNode.Open(ctx, flags)
			return e
		})
	} else {
		fh, fuseFlags, e = n.LoopbackNode.Open(ctx, flags)
	}
	if e != 0 {
		return nil, 0, e
	}
	return n.pc.handle(fh), fuseFlags, 0
}

func (n *node) OpendirHandle(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	fh, fuseFlags, e := n.LoopbackNode.OpendirHandle(ctx, flags)
	if e != 0 {
		return nil, 0, e
	}
	return &dirHandle{FileHandle: fh, n: n}, fuseFlags, 0
}

func (n *node) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	size, ok := in.GetSize()
	if !ok {
		return n.LoopbackNode.Setattr(ctx, f, in, out)
	}
	return n.pc.change(func() syscall.Errno {
		fd := -1
		if h, ok := f.(*file); ok {
			fd = h.fd()
		}
		if e := n.pc.truncating(fd, n.backing(), int64(size)); e != 0 {
			return e
		}
		return n.LoopbackNode.Setattr(ctx, f, in, out)
	})
}

// truncating records the contents a truncation to size would change, on
// the file open as fd (or at path when fd is -1).
func (p *FS) truncating(fd int, path string, size int64) syscall.Errno {
	var ino uint64
	var err error
	if fd >= 0 {
		ino, err = fdIno(fd)
	} else {
		ino, err = inoOf(path)
	}
	if err != nil {
		return errno(err)
	}
	l := p.inodeLock(ino)
	l.Lock()
	defer l.Unlock()
	var st syscall.Stat_t
	if fd >= 0 {
		err = syscall.Fstat(fd, &st)
	} else {
		err = syscall.Stat(path, &st)
	}
	p.mu.Lock()
	_, changed := p.files[ino]
	p.mu.Unlock()
	if err == nil && st.Size == size && !changed {
		return 0 // nothing changes (Badger sets its MANIFEST's size at each start)
	}
	return errno(p.keep(fd, path, ino, size, 1<<62))
}

func (n *node) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (ch *fs.Inode, e syscall.Errno) {
	e = n.pc.change(func() syscall.Errno {
		if ch, e = n.LoopbackNode.Mkdir(ctx, name, mode, out); e == 0 {
			n.pc.created(filepath.Join(n.backing(), name))
		}
		return e
	})
	return ch, e
}

func (n *node) Mknod(ctx context.Context, name string, mode, rdev uint32, out *fuse.EntryOut) (ch *fs.Inode, e syscall.Errno) {
	e = n.pc.change(func() syscall.Errno {
		if ch, e = n.LoopbackNode.Mknod(ctx, name, mode, rdev, out); e == 0 {
			n.pc.created(filepath.Join(n.backing(), name))
		}
		return e
	})
	return ch, e
}

func (n *node) Symlink(ctx context.Context, target, name string, out *fuse.EntryOut) (ch *fs.Inode, e syscall.Errno) {
	e = n.pc.change(func() syscall.Errno {
		if ch, e = n.LoopbackNode.Symlink(ctx, target, name, out); e == 0 {
			n.pc.created(filepath.Join(n.backing(), name))
		}
		return e
	})
	return ch, e
}

func (n *node) Link(ctx context.Context, target fs.InodeEmbedder, name string, out *fuse.EntryOut) (ch *fs.Inode, e syscall.Errno) {
	e = n.pc.change(func() syscall.Errno {
		if ch, e = n.LoopbackNode.Link(ctx, target, name, out); e == 0 {
			n.pc.created(filepath.Join(n.backing(), name))
		}
		return e
	})
	return ch, e
}

func (n *node) Unlink(ctx context.Context, name string) syscall.Errno {
	return n.pc.change(func() syscall.Errno {
		p := filepath.Join(n.backing(), name)
		if st, err := os.Lstat(p); err != nil {
			return errno(err)
		} else if st.IsDir() {
			return syscall.EISDIR
		}
		return errno(n.pc.remove(p))
	})
}

func (n *node) Rmdir(ctx context.Context, name string) syscall.Errno {
	return n.pc.change(func() syscall.Errno {
		p := filepath.Join(n.backing(), name)
		if e := emptyDir(p); e != 0 {
			return e
		}
		return errno(n.pc.remove(p))
	})
}

func emptyDir(p string) syscall.Errno {
	f, err := os.Open(p)
	if err != nil {
		return errno(err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return errno(err)
	} else if !st.IsDir() {
		return syscall.ENOTDIR
	}
	if names, _ := f.Readdirnames(1); len(names) > 0 {
		return syscall.ENOTEMPTY
	}
	return 0
}

// Rename moves the entry in the backing directory; an entry it replaces is
// moved aside first, so that Cut can put both back. Exchanging two entries
// is not supported.
func (n *node) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	np, ok := newParent.(*node)
	if !ok || flags&^uint32(unixRenameNoreplace) != 0 {
		return syscall.ENOTSUP
	}
	return n.pc.change(func() syscall.Errno {
		from, to := filepath.Join(n.backing(), name), filepath.Join(np.backing(), newName)
		src, err := os.Lstat(from)
		if err != nil {
			return errno(err)
		}
		if dst, err := os.Lstat(to); err == nil {
			switch {
			case flags&unixRenameNoreplace != 0:
				return syscall.EEXIST
			case os.SameFile(src, dst):
				return 0
			case src.IsDir() && !dst.IsDir():
				return syscall.ENOTDIR
			case !src.IsDir() && dst.IsDir():
				return syscall.EISDIR
			case dst.IsDir():
				if e := emptyDir(to); e != 0 {
					return e
				}
			}
			if err := n.pc.remove(to); err != nil {
				return errno(err)
			}
		}
		if err := os.Rename(from, to); err != nil {
			return errno(err)
		}
		n.pc.named(to, []string{filepath.Dir(from), filepath.Dir(to)}, func() error { return os.Rename(to, from) }, nil)
		return 0
	})
}

const unixRenameNoreplace = 1 // RENAME_NOREPLACE

// CopyFileRange is refused: the kernel then copies with reads and writes,
// which are recorded.
func (n *node) CopyFileRange(ctx context.Context, fhIn fs.FileHandle, offIn uint64, out *fs.Inode, fhOut fs.FileHandle, offOut uint64, length uint64, flags uint64) (uint32, syscall.Errno) {
	return 0, syscall.ENOTSUP
}

// Tmpfile is refused: an unnamed file's later link would not be recorded.
func (n *node) Tmpfile(ctx context.Context, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	return nil, nil, 0, syscall.ENOTSUP
}

// file is a loopback file handle whose writes and syncs are recorded, and
// which refuses FUSE passthrough so that they reach the file system.
type file struct {
	*fs.LoopbackFile
	pc *FS
}

func (p *FS) handle(fh fs.FileHandle) fs.FileHandle {
	if lf, ok := fh.(*fs.LoopbackFile); ok {
		return &file{LoopbackFile: lf, pc: p}
	}
	return fh
}

// PassthroughFd refuses passthrough: with it, the kernel would write to the
// backing file without telling the file system.
func (f *file) PassthroughFd() (int, bool) { return 0, false }

// fd is the backing file's descriptor.
func (f *file) fd() int {
	fd, _ := f.LoopbackFile.PassthroughFd()
	return fd
}

// locked runs fn holding the file's inode lock.
func (f *file) locked(fn func(ino uint64) syscall.Errno) syscall.Errno {
	return f.pc.change(func() syscall.Errno {
		ino, err := fdIno(f.fd())
		if err != nil {
			return errno(err)
		}
		l := f.pc.inodeLock(ino)
		l.Lock()
		defer l.Unlock()
		return fn(ino)
	})
}

func (f *file) Write(ctx context.Context, data []byte, off int64) (n uint32, e syscall.Errno) {
	e = f.locked(func(ino uint64) syscall.Errno {
		if err := f.pc.keep(f.fd(), "", ino, off, int64(len(data))); err != nil {
			return errno(err)
		}
		f.pc.mu.Lock()
		f.pc.stats.Writes++
		watched := f.pc.watch != nil
		f.pc.mu.Unlock()
		if watched {
			f.pc.touched("/proc/self/fd/" + strconv.Itoa(f.fd()))
		}
		n, e = f.LoopbackFile.Write(ctx, data, off)
		return e
	})
	return n, e
}

func (f *file) Allocate(ctx context.Context, off, size uint64, mode uint32) syscall.Errno {
	return f.locked(func(ino uint64) syscall.Errno {
		if err := f.pc.keep(f.fd(), "", ino, int64(off), int64(size)); err != nil {
			return errno(err)
		}
		return f.LoopbackFile.Allocate(ctx, off, size, mode)
	})
}

func (f *file) Fsync(ctx context.Context, flags uint32) syscall.Errno {
	return f.locked(func(ino uint64) syscall.Errno {
		if e := f.LoopbackFile.Fsync(ctx, flags); e != 0 {
			return e
		}
		f.pc.synced(ino)
		return 0
	})
}

// dirHandle is a loopback directory handle whose fsync makes the
// directory's changes durable.
type dirHandle struct {
	fs.FileHandle
	n *node
}

func (d *dirHandle) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	return d.FileHandle.(fs.FileReaddirenter).Readdirent(ctx)
}

func (d *dirHandle) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	return d.FileHandle.(fs.FileSeekdirer).Seekdir(ctx, off)
}

func (d *dirHandle) Releasedir(ctx context.Context, flags uint32) {
	d.FileHandle.(fs.FileReleasedirer).Releasedir(ctx, flags)
}

func (d *dirHandle) Fsyncdir(ctx context.Context, flags uint32) syscall.Errno {
	return d.n.pc.change(func() syscall.Errno {
		if e := d.FileHandle.(fs.FileFsyncdirer).Fsyncdir(ctx, flags); e != 0 {
			return e
		}
		ino, _ := inoOf(d.n.backing())
		d.n.pc.dirSynced(ino)
		return 0
	})
}
