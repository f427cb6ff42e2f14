package powercut

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func mount(t *testing.T) (*FS, string) {
	t.Helper()
	p, backing, _ := MountTemp(t)
	return p, backing
}

func syncDir(t *testing.T, dir string) {
	t.Helper()
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		t.Fatal(err)
	}
}

// durable writes a file through the mount and syncs it and its directory.
func durable(t *testing.T, path string, data []byte) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	syncDir(t, filepath.Dir(path))
}

func cut(t *testing.T, p *FS) Stats {
	t.Helper()
	st, err := p.Cut()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func want(t *testing.T, path, content string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	if string(b) != content {
		t.Fatalf("%s holds %q, want %q", filepath.Base(path), b, content)
	}
}

func absent(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Fatalf("%s survived the cut (%v)", filepath.Base(path), err)
	}
}

// Each case acts on the mount, cuts, and checks the backing directory.
func TestCut(t *testing.T) {
	for _, c := range []struct {
		name  string
		act   func(t *testing.T, mnt string)
		check func(t *testing.T, backing string)
	}{
		{"unsynced data lost", func(t *testing.T, mnt string) {
			durable(t, filepath.Join(mnt, "f"), []byte("old contents"))
			f, _ := os.OpenFile(filepath.Join(mnt, "f"), os.O_WRONLY, 0)
			f.WriteAt([]byte("NEW"), 4)
			f.Write([]byte("and more past the end of the file"))
			f.Close()
		}, func(t *testing.T, b string) { want(t, filepath.Join(b, "f"), "old contents") }},

		{"synced data kept", func(t *testing.T, mnt string) {
			durable(t, filepath.Join(mnt, "f"), []byte("old contents"))
			f, _ := os.OpenFile(filepath.Join(mnt, "f"), os.O_WRONLY|os.O_APPEND, 0)
			f.Write([]byte(", appended"))
			syscall.Fdatasync(int(f.Fd()))
			f.Close()
		}, func(t *testing.T, b string) { want(t, filepath.Join(b, "f"), "old contents, appended") }},

		{"partially synced file", func(t *testing.T, mnt string) {
			durable(t, filepath.Join(mnt, "f"), bytes.Repeat([]byte("a"), 10000))
			f, _ := os.OpenFile(filepath.Join(mnt, "f"), os.O_WRONLY, 0)
			f.WriteAt([]byte("synced"), 5000)
			f.Sync()
			f.WriteAt([]byte("lost"), 100)
			f.WriteAt([]byte("lost"), 9000)
			f.Truncate(20)
			f.Close()
		}, func(t *testing.T, b string) {
			w := bytes.Repeat([]byte("a"), 10000)
			copy(w[5000:], "synced")
			want(t, filepath.Join(b, "f"), string(w))
		}},

		{"truncation lost", func(t *testing.T, mnt string) {
			durable(t, filepath.Join(mnt, "f"), []byte("0123456789"))
			os.Truncate(filepath.Join(mnt, "f"), 3)
			os.WriteFile(filepath.Join(mnt, "f"), []byte("x"), 0o644) // O_TRUNC
		}, func(t *testing.T, b string) { want(t, filepath.Join(b, "f"), "0123456789") }},

		{"create without directory sync lost", func(t *testing.T, mnt string) {
			os.Mkdir(filepath.Join(mnt, "d"), 0o755)
			f, _ := os.Create(filepath.Join(mnt, "d", "new"))
			f.Write([]byte("synced data, unsynced name"))
			f.Sync()
			f.Close()
			syncDir(t, filepath.Join(mnt, "d")) // d's entry in the root is not synced
			os.WriteFile(filepath.Join(mnt, "top"), []byte("x"), 0o644)
		}, func(t *testing.T, b string) {
			absent(t, filepath.Join(b, "d"))
			absent(t, filepath.Join(b, "top"))
		}},

		{"create with directory sync kept", func(t *testing.T, mnt string) {
			os.Mkdir(filepath.Join(mnt, "d"), 0o755)
			syncDir(t, mnt)
			durable(t, filepath.Join(mnt, "d", "new"), []byte("kept"))
		}, func(t *testing.T, b string) { want(t, filepath.Join(b, "d", "new"), "kept") }},

		{"rename without directory sync lost", func(t *testing.T, mnt string) {
			durable(t, filepath.Join(mnt, "a"), []byte("A"))
			durable(t, filepath.Join(mnt, "b"), []byte("B"))
			os.Rename(filepath.Join(mnt, "a"), filepath.Join(mnt, "b")) // replaces b
			os.Remove(filepath.Join(mnt, "b"))
			os.WriteFile(filepath.Join(mnt, "a"), []byte("new a"), 0o644)
		}, func(t *testing.T, b string) {
			want(t, filepath.Join(b, "a"), "A")
			want(t, filepath.Join(b, "b"), "B")
		}},

		{"rename with directory sync kept", func(t *testing.T, mnt string) {
			durable(t, filepath.Join(mnt, "a.tmp"), []byte("A"))
			durable(t, filepath.Join(mnt, "a"), []byte("old"))
			os.Rename(filepath.Join(mnt, "a.tmp"), filepath.Join(mnt, "a"))
			syncDir(t, mnt)
		}, func(t *testing.T, b string) {
			want(t, filepath.Join(b, "a"), "A")
			absent(t, filepath.Join(b, "a.tmp"))
		}},

		{"unlink and rmdir without directory sync lost", func(t *testing.T, mnt string) {
			os.Mkdir(filepath.Join(mnt, "d"), 0o755)
			syncDir(t, mnt)
			durable(t, filepath.Join(mnt, "f"), []byte("F"))
			os.Remove(filepath.Join(mnt, "f"))
			os.Remove(filepath.Join(mnt, "d"))
		}, func(t *testing.T, b string) {
			want(t, filepath.Join(b, "f"), "F")
			if st, err := os.Stat(filepath.Join(b, "d")); err != nil || !st.IsDir() {
				t.Fatalf("directory d: %v", err)
			}
		}},

		{"mmap without msync lost", func(t *testing.T, mnt string) {
			// The cut comes while the pages are dirty in the kernel: the
			// abort must keep the kernel from writing them back.
			mapWriter(t, mnt, false)
		}, func(t *testing.T, b string) {
			time.Sleep(100 * time.Millisecond)
			want(t, filepath.Join(b, "m"), strings.Repeat("\x00", 3*page))
		}},

		{"mmap with msync kept", func(t *testing.T, mnt string) {
			mapWriter(t, mnt, true)
		}, func(t *testing.T, b string) {
			w := make([]byte, 3*page)
			copy(w[page:], "synced")
			want(t, filepath.Join(b, "m"), string(w))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, backing := mount(t)
			c.act(t, p.Dir())
			cut(t, p)
			c.check(t, backing)
		})
	}
}

// mapWriter makes a durable file of three zero pages, and has a child
// write into it through a shared mapping: "synced" in the second page,
// msynced if sync, then "not synced" in the third. The child waits to be
// killed (after the cut). A page fault on a FUSE file served by the same
// process can deadlock the Go runtime: the mapping is the child's.
func mapWriter(t *testing.T, mnt string, sync bool) {
	t.Helper()
	durable(t, filepath.Join(mnt, "m"), make([]byte, 3*page))
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "POWERCUT_MAP_WRITER="+filepath.Join(mnt, "m"), fmt.Sprint("POWERCUT_MAP_SYNC=", sync))
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		t.Fatalf("map writer: %q", line)
	}
}

func TestMain(m *testing.M) {
	if path := os.Getenv("POWERCUT_MAP_WRITER"); path != "" {
		os.Exit(mapWrite(path, os.Getenv("POWERCUT_MAP_SYNC") == "true"))
	}
	os.Exit(m.Run())
}

func mapWrite(path string, sync bool) int {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err == nil {
		var m []byte
		if m, err = unix.Mmap(int(f.Fd()), 0, 3*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED); err == nil {
			copy(m[page:], "synced")
			if sync {
				err = unix.Msync(m, unix.MS_SYNC)
			}
			copy(m[2*page:], "not synced")
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("ready")
	select {}
}

// A cut while a writer appends and syncs in a loop keeps exactly what the
// last returned sync covered, or more of what was in flight with it: never
// less than what was acknowledged, never anything past the writes issued.
func TestCutDuringWrites(t *testing.T) {
	for round := 0; round < 5; round++ {
		p, backing := mount(t)
		path := filepath.Join(p.Dir(), "log")
		durable(t, path, nil)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		var acked, issued atomic.Int64
		done := make(chan struct{})
		go func() {
			defer close(done)
			rec := bytes.Repeat([]byte{'r'}, 1000)
			for i := 0; ; i++ {
				issued.Add(int64(len(rec)))
				if _, err := f.Write(rec); err != nil {
					return
				}
				if i%3 == 2 {
					if f.Sync() != nil {
						return
					}
					acked.Store(issued.Load())
				}
			}
		}()
		// The cut comes after the writer's first acknowledged sync, however
		// slowly a loaded machine schedules it, and then a little later
		// each round, so that it falls at various points of the loop.
		for deadline := time.Now().Add(30 * time.Second); acked.Load() == 0; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: the writer synced nothing in 30 s", round)
			}
		}
		time.Sleep(time.Duration(round*15) * time.Millisecond)
		st := cut(t, p)
		<-done
		f.Close()
		b, err := os.ReadFile(filepath.Join(backing, "log"))
		if err != nil {
			t.Fatal(err)
		}
		if n := int64(len(b)); n < acked.Load() || n > issued.Load() || n%1000 != 0 || bytes.Count(b, []byte{'r'}) != len(b) {
			t.Fatalf("round %d: %d bytes survived; acknowledged %d, issued %d", round, n, acked.Load(), issued.Load())
		}
		if acked.Load() == 0 || st.Fsyncs == 0 {
			t.Fatalf("round %d: nothing was synced before the cut: %+v", round, st)
		}
	}
}

// Operations after the cut fail; the mount point is gone.
func TestCutStopsEverything(t *testing.T) {
	p, backing := mount(t)
	durable(t, filepath.Join(p.Dir(), "f"), []byte("x"))
	f, _ := os.OpenFile(filepath.Join(p.Dir(), "f"), os.O_WRONLY, 0)
	defer f.Close()
	cut(t, p)
	if _, err := f.Write([]byte("y")); err == nil {
		t.Fatal("a write after the cut succeeded")
	}
	want(t, filepath.Join(backing, "f"), "x")
	if _, err := p.Cut(); err == nil {
		t.Fatal("a second cut succeeded")
	}
}
