package storage

// Internal tests: they time checkDir and the disk guard on their own.

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"starfortune/engine"
)

// fillStore writes blocks and records history records (of the first
// block's units) into a store in dir and closes it. Badger's Close flushes
// its memtable into a level-0 table, so the directory then holds .sst files
// whatever the amount written (checked by tables). The tests take copies
// of the stores it fills (filledStore).
func fillStore(dir string, blocks []*engine.Block, records int) (err error) {
	ctx := context.Background()
	s, err := Open(dir, TestKey, zerolog.Nop())
	if err != nil {
		return err
	}
	defer func() {
		if cerr := s.Close(); err == nil {
			err = cerr
		}
	}()
	for _, b := range blocks {
		if err := s.PutBlock(ctx, b); err != nil {
			return err
		}
	}
	first := blocks[0]
	now := time.Date(2026, 12, 2, 14, 30, 0, 0, time.UTC)
	for i := 0; i < records; {
		err := s.Update(ctx, func(t engine.Tx) error {
			for end := min(i+10_000, records); i < end; i++ {
				u, _ := first.Unit(i)
				r := engine.Record{Ticket: engine.Ticket{Block: first.Ref, Index: uint32(i)}, Player: engine.DemoPlayer,
					Time: now.Add(time.Duration(i) * time.Second), Unit: u, BalanceBefore: 10_000, BalanceAfter: 9_900, LedgerSeq: uint64(i + 1)}
				if err := t.PutRecord(r); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// tables lists the table files in dir, largest first.
func tables(tb testing.TB, dir string) []string {
	tb.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	size := func(p string) int64 { st, _ := os.Stat(p); return st.Size() }
	slices.SortFunc(paths, func(a, b string) int { return int(size(b) - size(a)) })
	return paths
}

// openRefused opens dir, expecting an error wrapping engine.ErrCorrupt that
// says want.
func openRefused(t *testing.T, dir, want string) {
	t.Helper()
	s, err := Open(dir, TestKey, zerolog.Nop())
	if err == nil {
		s.Close()
		t.Fatal("damaged store opened")
	}
	if !errors.Is(err, engine.ErrCorrupt) || !errors.Is(err, engine.ErrStorage) || !strings.Contains(err.Error(), want) {
		t.Fatalf("open gives %v, want ErrStorage and ErrCorrupt saying %q", err, want)
	}
	t.Log(err)
}

func TestCheckManifestMissing(t *testing.T) {
	dir := filledStore(t, 1, 10)
	before := tables(t, dir)
	if err := os.Remove(filepath.Join(dir, "MANIFEST")); err != nil {
		t.Fatal(err)
	}
	openRefused(t, dir, "MANIFEST missing in "+dir)
	if after := tables(t, dir); !slices.Equal(before, after) {
		t.Fatalf("tables %v after a refused open, were %v", after, before)
	}
}

func TestCheckDamagedTable(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, path string)
		want   string
	}{
		{"truncated to half", func(t *testing.T, path string) { truncate(t, path, 0.5) }, "is damaged"},
		{"truncated to 3 bytes", func(t *testing.T, path string) { os.Truncate(path, 3) }, "is damaged"},
		{"emptied", func(t *testing.T, path string) { os.Truncate(path, 0) }, "is damaged"},
		{"end cut off", func(t *testing.T, path string) { truncate(t, path, 0.999) }, "is damaged"},
		{"bytes flipped in a block", func(t *testing.T, path string) { flip(t, path, 0.3) }, "is damaged"},
		{"bytes flipped in the index", func(t *testing.T, path string) { flip(t, path, 0.995) }, "is damaged"},
		{"deleted", func(t *testing.T, path string) { os.Remove(path) }, "listed in the MANIFEST but missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filledStore(t, 1, 1000)
			tc.damage(t, tables(t, dir)[0])
			openRefused(t, dir, tc.want)
		})
	}
}

func truncate(t *testing.T, path string, at float64) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, int64(float64(st.Size())*at)); err != nil {
		t.Fatal(err)
	}
}

func flip(t *testing.T, path string, at float64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := int(float64(len(b)) * at)
	for k := i; k < i+4; k++ {
		b[k] ^= 0x5a
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCheckKeepsGoodStore: the check neither refuses nor harms a sound
// store (closing a checked table must not delete it, as Table.DecrRef
// would).
func TestCheckKeepsGoodStore(t *testing.T) {
	dir := filledStore(t, 2, 1000)
	before := tables(t, dir)
	if _, err := checkDir(dir, TestKey, zerolog.Nop()); err != nil {
		t.Fatal(err)
	}
	if after := tables(t, dir); !slices.Equal(before, after) {
		t.Fatalf("tables %v after the check, were %v", after, before)
	}
	s, err := Open(dir, TestKey, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := fillBlock(t, 2)
	b, err := s.LoadBlock(context.Background(), want.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if b.Commitment != want.Commitment || !bytes.Equal(b.Units, want.Units) {
		t.Fatal("block read back differs")
	}
	if _, err := checkDir(dir, TestKey, zerolog.Nop()); !errors.Is(err, engine.ErrInUse) {
		t.Fatalf("check of an open store gives %v, want ErrInUse", err)
	}
}

// TestCheckCost checks a kiosk-sized store, ten blocks and 100 000
// history records, and logs how long it took (a wall-clock bound has no
// place in make test: a loaded machine broke the 2 s it had).
func TestCheckCost(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 30 MB")
	}
	dir := filledStore(t, 10, 100_000)
	var size int64
	for _, p := range tables(t, dir) {
		st, _ := os.Stat(p)
		size += st.Size()
	}
	begin := time.Now()
	if _, err := checkDir(dir, TestKey, zerolog.Nop()); err != nil {
		t.Fatal(err)
	}
	took := time.Since(begin)
	t.Logf("checked %d tables, %.1f MB, in %v", len(tables(t, dir)), float64(size)/1e6, took)
}

func TestDiskGuard(t *testing.T) {
	g := newDiskGuard(t.TempDir())
	free, err := g.free()
	if err != nil || free == 0 {
		t.Fatalf("free %d, %v", free, err)
	}
	if allocs := testing.AllocsPerRun(100, func() { g.check() }); allocs != 0 {
		t.Errorf("check allocates %.0f times", allocs)
	}
	g.reserve = int64(free) * 4
	err = g.check()
	if !errors.Is(err, engine.ErrDiskFull) || !errors.Is(err, engine.ErrStorage) || !strings.HasSuffix(err.Error(), "reserved: nothing written") {
		t.Fatalf("check with a reserve beyond the free space gives %v", err)
	}
	g.reserve = -1
	if err := g.check(); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "missing")
	if _, err := (&diskGuard{dir: missing, path: []byte(missing + "\x00")}).free(); err == nil {
		t.Fatal("statfs of a missing directory succeeds")
	}
}

func BenchmarkDiskGuard(b *testing.B) {
	g := newDiskGuard(b.TempDir())
	b.ReportAllocs()
	for b.Loop() {
		if err := g.check(); err != nil {
			b.Fatal(err)
		}
	}
}

// A kill between Badger's creating a memtable or value log file and sizing
// it leaves an empty file, which Badger alone would refuse on every start:
// the store opens, with everything written before.
func TestEmptyLogRemoved(t *testing.T) {
	for _, name := range []string{"00099.mem", "000099.vlog"} {
		t.Run(name, func(t *testing.T) {
			dir := filledStore(t, 1, 10)
			empty := filepath.Join(dir, name)
			if err := os.WriteFile(empty, nil, 0o640); err != nil {
				t.Fatal(err)
			}
			if _, err := openDB(dir, TestKey, zerolog.Nop()); err == nil || !strings.Contains(err.Error(), "Create a new file") {
				t.Fatalf("Badger alone opens a directory with an empty %s (%v): this test no longer shows why removeEmptyLog exists", name, err)
			}
			if err := os.WriteFile(empty, nil, 0o640); err != nil { // as the kill left it
				t.Fatal(err)
			}
			s, err := Open(dir, TestKey, zerolog.Nop())
			if err != nil {
				t.Fatalf("open with an empty %s: %v", name, err)
			}
			defer s.Close()
			if _, err := os.Stat(empty); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the empty %s is still there (%v)", name, err)
			}
			err = s.View(context.Background(), func(tx engine.ReadTx) error {
				_, err := tx.Record(engine.Ticket{Block: fillBlock(t, 1).Ref, Index: 9})
				return err
			})
			if err != nil {
				t.Fatalf("a record written before: %v", err)
			}
		})
	}
}
