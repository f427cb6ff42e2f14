package storage_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/storage"
)

// The tests' data directory, drawn once per test binary: a store
// encrypted under storage.TestKey holding the open blocks of a kiosk's
// first start (storage.FirstStart, which draws them and their spares once),
// with testConfig, nothing sold. The tests that need drawn blocks take a
// copy of its directory (drawnDir) or put its blocks into a store of their
// own (putDrawn); those that test the draw itself still draw.

// drawnData is the data directory drawn once, closed, and its blocks.
type drawnData struct {
	dir    string
	blocks []*engine.Block
}

var drawnOnce = sync.OnceValues(func() (drawnData, error) {
	first, err := storage.FirstStart()
	if err != nil {
		return drawnData{}, err
	}
	var d drawnData
	for _, b := range first {
		if b.Ref.Number == 1 { // not a spare
			d.blocks = append(d.blocks, b)
		}
	}
	dir, err := storage.SharedPath("drawn")
	if err != nil {
		return drawnData{}, err
	}
	s, err := storage.Open(dir, storage.TestKey, zerolog.Nop())
	if err != nil {
		return drawnData{}, err
	}
	defer s.Close()
	d.dir = dir
	ctx := context.Background()
	for _, b := range d.blocks {
		if err := s.PutBlock(ctx, b); err != nil {
			return drawnData{}, err
		}
	}
	now := start
	cfg := testConfig
	cfg.Now = func() time.Time { now = now.Add(time.Second); return now }
	svc, err := engine.NewService(ctx, s, cfg, zerolog.Nop())
	if err != nil {
		return drawnData{}, err
	}
	svc.Close()
	return d, s.Close()
})

func drawn(tb testing.TB) drawnData {
	tb.Helper()
	d, err := drawnOnce()
	if err != nil {
		tb.Fatalf("drawing the shared data directory: %v", err)
	}
	return d
}

// drawnDir is a copy, in a new directory, of the data directory drawn
// once: a closed store encrypted under storage.TestKey whose blocks are
// drawn (testConfig's), nothing sold.
func drawnDir(tb testing.TB) string {
	tb.Helper()
	return storage.CopyDir(tb, drawn(tb).dir)
}

// putDrawn stores the blocks of the data directory drawn once into s, as
// newService would draw them into an empty store: for the tests that need
// a store of their own written while they watch (a secrecy scan of the
// files of an open store, a small file system).
func putDrawn(tb testing.TB, s engine.Store) {
	tb.Helper()
	for _, b := range drawn(tb).blocks {
		putBlock(tb, s, b)
	}
}

// firstBlock is block ref of the first start (storage.FirstStartBlocks):
// a Block of the caller's own, whose Units, shared, it must not change.
func firstBlock(tb testing.TB, ref engine.BlockRef) *engine.Block {
	tb.Helper()
	for _, b := range storage.FirstStartBlocks(tb) {
		if b.Ref == ref {
			c := *b
			return &c
		}
	}
	tb.Fatalf("the first start drew no block %s", ref)
	return nil
}
