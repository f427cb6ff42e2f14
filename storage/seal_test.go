package storage_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/storage"
)

// secretPlayer is personal data: a player account's holder, whose name
// the store keeps in the account and the account log.
const secretPlayer = "Jeanne-Marie.Dupont-Lefebvre"

// secretCard is the wallet of secretPlayer's account: the first card a
// store issues.
var secretCard = string(engine.NewCard(1))

// needle is a byte string that must not appear in a store's files.
type needle struct {
	b    []byte
	what string
}

// scanStride is how far apart find reads the files' 8-byte words: a
// needle at any offset spans, among its first scanStride+7 bytes, one of
// them, at an offset below scanStride. Under the race detector a read per
// byte of a store's files took seconds.
const scanStride = 16

// needleAt is a needle under one of its 8-byte words, off bytes into it.
type needleAt struct {
	n   *needle
	off int
}

// secrets are the needles of a store, each under one of its 8-byte words
// of each offset class modulo scanStride: the word at offset r (r below
// scanStride) or, if it is zero (as every run of zeros of preallocated
// files is), the first nonzero one at r plus a multiple of scanStride.
// Every occurrence of a needle thus has a word find reads (see find).
type secrets map[uint64][]needleAt

func (s secrets) add(b []byte, what string) {
	if binary.LittleEndian.Uint64(b) == 0 {
		return // would match every run of zeros of preallocated files
	}
	if len(b) < scanStride+7 {
		panic(fmt.Sprintf("needle %q of %d bytes: find sees only those of scanStride+7 = %d or more", what, len(b), scanStride+7))
	}
	n := &needle{bytes.Clone(b), what}
	for r := range scanStride {
		off := r
		for o := r; o+8 <= len(b); o += scanStride {
			if binary.LittleEndian.Uint64(b[o:]) != 0 {
				off = o
				break
			}
		}
		w := binary.LittleEndian.Uint64(b[off:])
		s[w] = append(s[w], needleAt{n, off})
	}
}

// storeSecrets are what a copy of a kiosk's store must not reveal: each
// open block's seed, 64 consecutive units (192 bytes, as stored in a chunk)
// from the middle of each of its chunks, and secretPlayer.
func storeSecrets(tb testing.TB, s *storage.Store) secrets {
	tb.Helper()
	ctx := context.Background()
	sec := secrets{}
	var infos []engine.BlockInfo
	err := s.View(ctx, func(tx engine.ReadTx) (err error) { infos, err = tx.Blocks(); return err })
	if err != nil || len(infos) == 0 {
		tb.Fatalf("blocks: %d, %v", len(infos), err)
	}
	for _, info := range infos {
		if info.Cursor.Served == info.Size {
			continue // sold out: its seed is published
		}
		b, err := s.LoadBlock(ctx, info.Ref)
		if err != nil {
			tb.Fatal(err)
		}
		sec.add(b.Seed[:], "seed of "+b.Ref.String())
		for c := 0; c*storage.ChunkUnits+600 <= b.Len(); c++ {
			at := (c*storage.ChunkUnits + 500) * engine.UnitSize
			sec.add(b.Units[at:at+64*engine.UnitSize], fmt.Sprintf("units of %s chunk %d", b.Ref, c))
		}
	}
	sec.add([]byte(secretPlayer), "a player's id")
	return sec
}

// find reads every file under dir raw and returns what it found of sec,
// once per needle ("file: what").
func (s secrets) find(tb testing.TB, dir string) []string {
	tb.Helper()
	found := map[string]bool{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		// A needle at p has its words of offset class -p modulo scanStride
		// at the multiples of scanStride in [p, p+len-8], every one inside
		// the file: the one it is filed under is read.
		for i := 0; i+8 <= len(data); i += scanStride {
			for _, w := range s[binary.LittleEndian.Uint64(data[i:])] {
				if p := i - w.off; p >= 0 && bytes.HasPrefix(data[p:], w.n.b) {
					found[w.n.what] = true
					found[filepath.Base(path)+": "+w.n.what] = true
				}
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return slices.Sorted(maps.Keys(found))
}

// drawnStore opens a store encrypted under storage.TestKey in a new
// directory, puts the drawn blocks into it and fills it (fillStore), and
// returns it open with its secrets.
func drawnStore(t *testing.T) (*storage.Store, secrets) {
	t.Helper()
	s := MustOpen(t)
	putDrawn(t, s)
	return s, fillStore(t, s)
}

// fillStore sells from the blocks of s (those it has, or drawn by
// newService), credits secretPlayer, and returns the secrets of s.
func fillStore(t *testing.T, s *storage.Store) secrets {
	t.Helper()
	svc := newService(t, s)
	sell(t, svc, engine.SellRequest{Player: engine.DemoPlayer, Stake: 50, Count: 300, Picks: picks, Actor: "test"})
	secret := customer(t, svc, secretPlayer)
	if _, err := svc.Credit(context.Background(), secret, 500, "operator:1"); err != nil {
		t.Fatal(err)
	}
	sell(t, svc, engine.SellRequest{Player: secret, Stake: 100, Count: 2, Actor: "test"})
	return storeSecrets(t, s)
}

// filled are stores filled once per process by fillStore on the drawn
// blocks and closed, by key, for copiedStore.
var filled struct {
	sync.Mutex
	stores map[string]filledCopy
}

type filledCopy struct {
	dir string
	sec secrets
}

// copiedStore is a closed copy of a store filled once by fillStore on the
// drawn blocks (encrypted under key, or in clear when key is nil), in a new
// directory, and its secrets.
func copiedStore(t *testing.T, key []byte) (dir string, sec secrets) {
	t.Helper()
	filled.Lock()
	defer filled.Unlock()
	d, ok := filled.stores[string(key)]
	if !ok {
		var err error
		if d.dir, err = storage.SharedPath("filled"); err != nil {
			t.Fatal(err)
		}
		var s *storage.Store
		if key == nil {
			s, err = storage.OpenPlaintext(d.dir, zerolog.Nop())
		} else {
			s, err = storage.Open(d.dir, key, zerolog.Nop())
		}
		if err != nil {
			t.Fatal(err)
		}
		putDrawn(t, s)
		d.sec = fillStore(t, s)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if filled.stores == nil {
			filled.stores = map[string]filledCopy{}
		}
		filled.stores[string(key)] = d
	}
	return storage.CopyDir(t, d.dir), d.sec
}

// TestSecrecyAtRest: the files of an encrypted store, read raw while it
// serves and after it is closed, hold no open block's seed, no run of its
// units and no player's id; those of a plaintext store hold them all (the
// scan finds what it looks for).
func TestSecrecyAtRest(t *testing.T) {
	s, sec := drawnStore(t)
	blocks := len(listed(t, s))
	if found := sec.find(t, s.Dir()); len(found) > 0 {
		t.Errorf("an open encrypted store reveals %q", found)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if found := sec.find(t, s.Dir()); len(found) > 0 {
		t.Errorf("a closed encrypted store reveals %q", found)
	}

	plain, psec := copiedStore(t, nil)
	found := psec.find(t, plain)
	seeds := 0
	for _, f := range found {
		if strings.HasPrefix(f, "seed of") {
			seeds++
		}
	}
	if seeds != blocks || !slices.Contains(found, "a player's id") || len(found) < 1000 {
		t.Fatalf("the scan of a plaintext store found %d seeds of %d blocks, %d needles in all: it does not see what it looks for", seeds, blocks, len(found))
	}
}

// The scan finds a needle at any offset in a file, up to its very end,
// whatever zeros it holds past its first word; and nothing in a file
// without one.
func TestSecretsScan(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32() | 1)
		}
		return b
	}
	units := random(192)
	clear(units[8:60]) // zero words of every offset class modulo scanStride
	needles := map[string][]byte{"seed": random(32), "units": units, "player": []byte(secretPlayer)}
	sec := secrets{}
	for what, b := range needles {
		sec.add(b, what)
	}
	for what, b := range needles {
		for p := range 2*scanStride + 1 {
			for _, tail := range []int{0, 3, scanStride} {
				dir := t.TempDir()
				if err := os.WriteFile(filepath.Join(dir, "f"), slices.Concat(random(p), b, random(tail)), 0o600); err != nil {
					t.Fatal(err)
				}
				if found := sec.find(t, dir); !slices.Equal(found, []string{"f: " + what, what}) { // sorted
					t.Fatalf("%s at %d, %d bytes after it: found %q", what, p, tail, found)
				}
			}
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), append(random(5000), make([]byte, 5000)...), 0o600); err != nil {
		t.Fatal(err)
	}
	if found := sec.find(t, dir); len(found) > 0 {
		t.Fatalf("found %q in a file without needles", found)
	}
}

// dirState is every file of a directory and its bytes.
func dirState(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		files[path] = string(b)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

// TestOpenRefusals: the wrong key, no key, and a key for a plaintext store
// are refused, each with its own error, before anything in the directory
// changes.
func TestOpenRefusals(t *testing.T) {
	encDir, _ := copiedStore(t, storage.TestKey)
	plain, _ := copiedStore(t, nil)

	for _, c := range []struct {
		name string
		dir  string
		key  []byte
		want error
		says string
	}{
		{"wrong key", encDir, storage.OtherKey, storage.ErrWrongKey, "encrypted under another key"},
		{"no key", encDir, nil, storage.ErrWrongKey, "the store is encrypted: unlock it with its key"},
		{"short key", encDir, storage.TestKey[:16], storage.ErrWrongKey, "16 bytes"},
		{"key for a plaintext store", plain, storage.TestKey, storage.ErrPlaintext, "not encrypted yet: migrate it"},
		{"short key for a plaintext store", plain, storage.TestKey[:31], storage.ErrWrongKey, "31 bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := dirState(t, c.dir)
			_, err := storage.Open(c.dir, c.key, zerolog.Nop())
			if !errors.Is(err, c.want) || !errors.Is(err, engine.ErrStorage) || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), c.dir) {
				t.Fatalf("open: %v, want %v saying %q and naming the directory", err, c.want, c.says)
			}
			t.Log(err)
			if c.want == storage.ErrWrongKey && errors.Is(err, storage.ErrPlaintext) || c.want == storage.ErrPlaintext && errors.Is(err, storage.ErrWrongKey) {
				t.Fatalf("open: %v is both", err)
			}
			if after := dirState(t, c.dir); !maps.Equal(before, after) {
				t.Fatalf("a refused open changed the directory: %v files before, %v after", slices.Sorted(maps.Keys(before)), slices.Sorted(maps.Keys(after)))
			}
		})
	}

	// Without a key no store is created: nil only opens a legacy one.
	missing := filepath.Join(t.TempDir(), "db")
	if _, err := storage.Open(missing, nil, zerolog.Nop()); !errors.Is(err, storage.ErrWrongKey) {
		t.Fatalf("open of a missing store without a key: %v", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused open made the directory: %v", err)
	}
	// Both open with the right key; a restore needs one.
	mustOpenDir(t, encDir).Close()
	if s, err := storage.Open(plain, nil, zerolog.Nop()); err != nil {
		t.Fatalf("legacy open: %v", err)
	} else {
		s.Close()
	}
	if err := storage.Restore(filepath.Join(t.TempDir(), "r"), strings.NewReader(""), nil, zerolog.Nop()); !errors.Is(err, storage.ErrWrongKey) {
		t.Fatalf("restore without a key: %v", err)
	}
}

// TestEncryptedStoreWorks: a fresh encrypted store opens, reopens, and its
// value log (values forced into it) is garbage-collected and read back.
func TestEncryptedStoreWorks(t *testing.T) {
	storage.Tune(storage.Tuning{MemTableSize: 1 << 20, BaseTableSize: 256 << 10, ValueThreshold: 64, ValueLogFileSize: 1 << 20})
	t.Cleanup(func() { storage.Tune(storage.Tuning{}) })
	s := MustOpen(t)
	for _, del := range []bool{false, true} {
		wb := storage.RawDB(s).NewWriteBatch()
		for i := range 20_000 {
			switch k := []byte(fmt.Sprint("k", i)); {
			case !del:
				wb.Set(k, value(i))
			case i%10 != 0:
				wb.Delete(k)
			}
		}
		if err := wb.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	s.Close() // flushes the memtable: two level-0 tables
	s = mustOpenDir(t, s.Dir())
	db := storage.RawDB(s)
	// A compaction counts the values it drops, for the GC to choose a file.
	for deadline := time.Now().Add(30 * time.Second); !slices.ContainsFunc(db.Tables(), func(ti badger.TableInfo) bool { return ti.Level > 0 }); {
		if time.Now().After(deadline) {
			t.Fatal("no compaction")
		}
		time.Sleep(50 * time.Millisecond)
	}
	rewrote := 0
	for ; ; rewrote++ {
		if err := db.RunValueLogGC(0.1); err != nil {
			if !errors.Is(err, badger.ErrNoRewrite) {
				t.Fatalf("value-log GC of an encrypted store: %v", err)
			}
			break
		}
	}
	if rewrote == 0 {
		t.Fatal("value-log GC rewrote nothing")
	}
	t.Logf("value-log GC rewrote %d files", rewrote)
	s.Close()
	s = mustOpenDir(t, s.Dir())
	err := storage.RawDB(s).View(func(txn *badger.Txn) error {
		for i := 0; i < 20_000; i += 10 {
			item, err := txn.Get([]byte(fmt.Sprint("k", i)))
			if err != nil {
				return fmt.Errorf("k%d: %w", i, err)
			}
			if v, err := item.ValueCopy(nil); err != nil || !bytes.Equal(v, value(i)) {
				return fmt.Errorf("k%d reads back wrong (%v)", i, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRekey rotates the master key of a closed store without rewriting its
// data; cut before the registry's rename the old key still opens it, after
// it the new one; a second run does nothing.
func TestRekey(t *testing.T) {
	dir, _ := copiedStore(t, storage.TestKey)
	s := mustOpenDir(t, dir)
	want := listed(t, s)
	if err := storage.Rekey(dir, storage.TestKey, storage.OtherKey); !errors.Is(err, engine.ErrInUse) {
		t.Fatalf("rekey of an open store: %v", err)
	}
	s.Close()
	if err := storage.Rekey(dir, storage.OtherKey, storage.TestKey); err != nil {
		t.Fatalf("rekey to the key it has: %v", err) // nothing to do
	}
	if err := storage.Rekey(dir, bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)); !errors.Is(err, storage.ErrWrongKey) {
		t.Fatalf("rekey with a wrong old key: %v", err)
	}
	tables := func() map[string]string {
		m := dirState(t, dir)
		for p := range m {
			if strings.HasSuffix(p, badger.KeyRegistryFileName) {
				delete(m, p)
			}
		}
		return m
	}

	// Cut before the rename: the new registry written beside the old.
	registry := filepath.Join(dir, badger.KeyRegistryFileName)
	old, err := os.ReadFile(registry)
	if err != nil {
		t.Fatal(err)
	}
	if err := storage.Rekey(dir, storage.TestKey, storage.OtherKey); err != nil {
		t.Fatal(err)
	}
	rewritten, _ := os.ReadFile(registry)
	if err := os.WriteFile(registry, old, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, badger.KeyRegistryRewriteFileName), rewritten, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := storage.Open(dir, storage.OtherKey, zerolog.Nop()); !errors.Is(err, storage.ErrWrongKey) {
		t.Fatalf("new key before the rename: %v", err)
	}
	mustOpenDir(t, dir).Close() // the old key
	before := tables()
	if err := storage.Rekey(dir, storage.TestKey, storage.OtherKey); err != nil {
		t.Fatalf("rekey again after a cut: %v", err)
	}

	// After the rename: the new key only, and the data untouched.
	if _, err := storage.Open(dir, storage.TestKey, zerolog.Nop()); !errors.Is(err, storage.ErrWrongKey) {
		t.Fatalf("old key after the rotation: %v", err)
	}
	if after := tables(); !maps.Equal(before, after) {
		t.Fatal("the rotation rewrote more than the key registry")
	}
	if err := storage.Rekey(dir, storage.TestKey, storage.OtherKey); err != nil {
		t.Fatalf("rekey once more: %v", err)
	}
	r, err := storage.Open(dir, storage.OtherKey, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := listed(t, r); !slices.Equal(got, want) {
		t.Fatalf("blocks after the rotation %v, want %v", got, want)
	}
	mustAudit(t, newService(t, r))

	plain := t.TempDir()
	p, err := storage.OpenPlaintext(plain, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	if err := storage.Rekey(plain, storage.TestKey, storage.OtherKey); !errors.Is(err, storage.ErrPlaintext) {
		t.Fatalf("rekey of a plaintext store: %v", err)
	}
	if err := storage.Rekey(t.TempDir(), storage.TestKey, storage.OtherKey); err == nil {
		t.Fatal("rekey of an empty directory succeeded")
	}
}
