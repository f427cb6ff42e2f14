package storage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"starfortune/engine"
)

// What the tests draw or fill once per test binary, for each test to copy:
// under the race detector a block's Merkle tree takes a second or two of
// CPU to draw, and a store's writes more than without it. The copies are
// real directories, each test its own, opened as real stores under the
// tests' key.

// SharedDir holds the stores drawn once: TestMain makes it before the
// tests run and removes it after.
var SharedDir string

// SharedPath is the path of a store to draw once, in a new directory
// under SharedDir named after name.
func SharedPath(name string) (string, error) {
	if SharedDir == "" {
		return "", fmt.Errorf("no shared directory: TestMain makes it")
	}
	dir, err := os.MkdirTemp(SharedDir, name+"-")
	return filepath.Join(dir, "db"), err
}

// CopyDir copies the store at from into a new directory of tb's and
// returns it.
func CopyDir(tb testing.TB, from string) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "db")
	if err := os.CopyFS(dir, os.DirFS(from)); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// onceByKey runs f once per key for the whole test binary, whichever
// test asks first, and gives every caller its result.
type onceByKey[K comparable, V any] struct {
	mu   sync.Mutex
	runs map[K]func() (V, error)
}

func (o *onceByKey[K, V]) get(key K, f func() (V, error)) (V, error) {
	o.mu.Lock()
	run, ok := o.runs[key]
	if !ok {
		run = sync.OnceValues(f)
		if o.runs == nil {
			o.runs = map[K]func() (V, error){}
		}
		o.runs[key] = run
	}
	o.mu.Unlock()
	return run()
}

// FirstStart draws a kiosk's first start once per test binary: a service
// on an empty store encrypted under TestKey draws the open block of each
// stake, then a spare each in the background, the three stored at once
// (the race detector watches those concurrent PutBlocks here).
var FirstStart = sync.OnceValues(func() ([]*engine.Block, error) {
	ctx := context.Background()
	dir, err := SharedPath("first-start")
	if err != nil {
		return nil, err
	}
	s, err := Open(dir, TestKey, zerolog.Nop())
	if err != nil {
		return nil, err
	}
	defer s.Close()
	now := time.Date(2026, 12, 2, 14, 0, 0, 0, time.UTC)
	cfg := engine.Config{Emission: 1, BlocksPerStake: 2, DemoFunds: 10_000,
		Now: func() time.Time { now = now.Add(time.Second); return now }}
	svc, err := engine.NewService(ctx, s, cfg, zerolog.Nop())
	if err != nil {
		return nil, err
	}
	svc.Close() // waits for the spares
	var infos []engine.BlockInfo
	if err := s.View(ctx, func(tx engine.ReadTx) (err error) { infos, err = tx.Blocks(); return err }); err != nil {
		return nil, err
	}
	if len(infos) != 2*len(engine.Stakes) {
		return nil, fmt.Errorf("the first start drew %d blocks", len(infos))
	}
	var blocks []*engine.Block
	for _, info := range infos {
		b, err := s.LoadBlock(ctx, info.Ref)
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, b)
	}
	return blocks, s.Close()
})

// FirstStartBlocks are the blocks a kiosk's first start draws (FirstStart),
// drawn once per test binary, in the store's order: by stake, the open
// block then the spare. Callers must not change them.
func FirstStartBlocks(tb testing.TB) []*engine.Block {
	tb.Helper()
	blocks, err := FirstStart()
	if err != nil {
		tb.Fatalf("drawing the first start: %v", err)
	}
	return blocks
}

// moreBlocks are the blocks fillStore writes beyond the first start's, by
// number, drawn once (TestCheckCost's ten blocks).
var moreBlocks onceByKey[int, *engine.Block]

// fillBlock is block n (from 1) of fillStore's stores: the first start's
// blocks, then blocks drawn for the check tests. Callers must not change it.
func fillBlock(tb testing.TB, n int) *engine.Block {
	tb.Helper()
	if first := FirstStartBlocks(tb); n <= len(first) {
		return first[n-1]
	}
	b, _ := moreBlocks.get(n, func() (*engine.Block, error) {
		return engine.GenerateBlock(engine.BlockRef{Emission: 1, Stake: engine.Stakes[n%3], Number: uint32(n)}, engine.Seed{byte(n)}), nil
	})
	return b
}

// filled are fillStore's stores, by their blocks and records, filled once.
var filled onceByKey[[2]int, string]

// filledStore is a copy, in a new directory, of a closed store holding
// fillStore's blocks complete blocks and records history records.
func filledStore(tb testing.TB, blocks, records int) string {
	tb.Helper()
	var bs []*engine.Block
	for n := 1; n <= blocks; n++ {
		bs = append(bs, fillBlock(tb, n))
	}
	from, err := filled.get([2]int{blocks, records}, func() (string, error) {
		dir, err := SharedPath(fmt.Sprintf("filled-%d-%d", blocks, records))
		if err == nil {
			err = fillStore(dir, bs, records)
		}
		return dir, err
	})
	if err != nil {
		tb.Fatal(err)
	}
	dir := CopyDir(tb, from)
	if len(tables(tb, dir)) == 0 {
		tb.Fatal("no table files after close")
	}
	return dir
}
