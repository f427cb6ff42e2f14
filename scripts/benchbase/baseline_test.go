package benchbase

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"starfortune/engine"
)

// blockBytes are a real block's units: 850 000 × 3 bytes = 2.55 MB.
func blockBytes(b *testing.B) (engine.BlockRef, engine.Seed, []byte) {
	b.Helper()
	ref := engine.BlockRef{Emission: 1, Stake: 100, Number: 1}
	var seed engine.Seed
	seed[0] = 9
	return ref, seed, engine.GenerateBlock(ref, seed).Units
}

// BenchmarkRawWriteBlock is the baseline of block_generate_persist: a
// block's bytes written to a new file and fsynced, nothing else.
func BenchmarkRawWriteBlock(b *testing.B) {
	_, _, units := blockBytes(b)
	dir := b.TempDir()
	b.SetBytes(int64(len(units)))
	i := 0
	for b.Loop() {
		path := filepath.Join(dir, "block")
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.Write(units); err != nil {
			b.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
		f.Close()
		os.Remove(path)
		i++
	}
}

// BenchmarkAuditFloor is the baseline of block_audit: what any auditor
// holding a copy of a sold-out block must do at the least, without our
// store: read its bytes from a plain file, regenerate the block from its
// seed (which computes its Merkle root) and compare both. A raw read alone
// (~1 ms) would say nothing about the audit's own work, which is the
// regeneration and the Merkle tree.
func BenchmarkAuditFloor(b *testing.B) {
	ref, seed, units := blockBytes(b)
	path := filepath.Join(b.TempDir(), "block")
	if err := os.WriteFile(path, units, 0o600); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, len(units))
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		buf = buf[:0]
		w := bytes.NewBuffer(buf)
		if _, err := io.Copy(w, f); err != nil {
			b.Fatal(err)
		}
		f.Close()
		got := w.Bytes()
		if g := engine.GenerateBlock(ref, seed); !bytes.Equal(g.Units, got) || g.Commitment == (engine.Hash{}) {
			b.Fatal("regeneration differs")
		}
	}
}

// BenchmarkBadgerGet1Key is the baseline of last_unit_lookup_1M: the
// cheapest Badger read there is, one ~200-byte value (a history record's
// size) from a database holding just that key.
func BenchmarkBadgerGet1Key(b *testing.B) {
	db, err := badger.Open(badger.DefaultOptions(b.TempDir()).WithLogger(nil))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	key, val := []byte("h/bench/last"), bytes.Repeat([]byte{7}, 200)
	if err := db.Update(func(txn *badger.Txn) error { return txn.Set(key, val) }); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		err := db.View(func(txn *badger.Txn) error {
			item, err := txn.Get(key)
			if err != nil {
				return err
			}
			_, err = item.ValueCopy(nil)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
