package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// localBlocks are the blocks a lone kiosk draws itself: each stake has one
// open block, and the next one is drawn in the background before the open
// one runs out, so no player waits for a block to be drawn. Its fields are
// guarded by the writer's lock.
type localBlocks struct {
	w       *writer
	cfg     Config
	stakes  map[Cents]*stakeState
	closing bool           // close was called: no more background work
	bg      sync.WaitGroup // background block generation
}

type stakeState struct {
	open    *BlockInfo    // the block being sold, nil when unknown
	spare   bool          // a later block is stored and ready
	pending chan struct{} // closed when the background generation ends
}

func newLocalBlocks(w *writer, cfg Config) *localBlocks {
	b := &localBlocks{w: w, cfg: cfg, stakes: map[Cents]*stakeState{}}
	for _, stake := range Stakes {
		b.stakes[stake] = &stakeState{}
	}
	return b
}

// openAll gives every stake its open block (drawn now if the store has
// none). A stake whose block cannot be drawn now (a full disk) does not stop
// the terminal: its sales retry, and history stays readable. With first (a
// stake), it returns at once and opens them in the background, first's
// first: a sale at a stake not open yet takes the writer's lock from it
// between two stakes and draws its block itself (open).
func (b *localBlocks) openAll(ctx context.Context, first Cents) {
	if first == 0 {
		b.openEach(ctx, Stakes)
		return
	}
	order := append([]Cents{first}, slices.DeleteFunc(slices.Clone(Stakes), func(s Cents) bool { return s == first })...)
	b.bg.Add(1)
	go func() {
		defer b.bg.Done()
		b.openEach(ctx, order)
	}()
}

// openEach opens the stakes in turn, each under the writer's lock.
func (b *localBlocks) openEach(ctx context.Context, stakes []Cents) {
	for _, stake := range stakes {
		b.w.mu.Lock()
		if b.closing {
			b.w.mu.Unlock()
			return
		}
		if _, err := b.open(ctx, stake); err != nil && !errors.Is(err, ErrStakeClosed) {
			b.w.log.Error().Int64("stake", int64(stake)).AnErr("err", err).Msg("no block open")
		}
		b.w.mu.Unlock()
	}
}

// close waits for background work and starts no more.
func (b *localBlocks) close() {
	b.w.mu.Lock()
	b.closing = true
	b.w.mu.Unlock()
	b.bg.Wait()
}

// openRefs is the block each stake sells now (a stake closed or not yet
// drawn is absent). Called with mu.
func (b *localBlocks) openRefs() map[Cents]BlockRef {
	out := map[Cents]BlockRef{}
	for stake, st := range b.stakes {
		if st.open != nil && !st.open.Exhausted() {
			out[stake] = st.open.Ref
		}
	}
	return out
}

// source is the unit source of one sale at stake: the block open at it.
// It returns with the writer's lock held, which the caller releases; on
// an error the lock is released.
func (b *localBlocks) source(ctx context.Context, stake Cents) (unitSource, error) {
	b.w.mu.Lock()
	if err := b.w.err(); err != nil {
		b.w.mu.Unlock()
		return nil, err
	}
	open, err := b.open(ctx, stake)
	if err != nil {
		b.w.mu.Unlock()
		return nil, err
	}
	return &blockSource{blocks: b, open: open}, nil
}

// open returns the block of stake being sold, moving to the next block
// when it is exhausted and keeping a spare one drawn ahead. Called with mu.
func (b *localBlocks) open(ctx context.Context, stake Cents) (*BlockInfo, error) {
	st := b.stakes[stake]
	if st.open != nil && !st.open.Exhausted() {
		return st.open, nil
	}
	if st.pending != nil {
		select { // the spare is being drawn: it is only milliseconds away
		case <-st.pending:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		st.pending = nil
	}
	var blocks []BlockInfo
	err := b.w.view(ctx, func(tx ReadTx) (err error) {
		blocks, err = tx.Blocks()
		return err
	})
	if err != nil {
		return nil, err
	}
	st.open, st.spare = nil, false
	var last uint32
	for i := range blocks {
		bi := &blocks[i]
		if bi.Ref.Stake != stake || bi.Ref.Emission != b.cfg.Emission {
			continue
		}
		last = max(last, bi.Ref.Number)
		if st.open == nil && !bi.Exhausted() {
			st.open = bi
		} else if st.open != nil {
			st.spare = true
		}
	}
	if st.open == nil {
		if last >= b.cfg.BlocksPerStake {
			return nil, fmt.Errorf("%w (%s, emission %d)", ErrStakeClosed, stake, b.cfg.Emission)
		}
		blk, err := b.draw(ctx, BlockRef{Emission: b.cfg.Emission, Stake: stake, Number: last + 1})
		if err != nil {
			return nil, err
		}
		st.open = &BlockInfo{Ref: blk.Ref, Size: uint32(blk.Len()), Commitment: blk.Commitment, Seed: blk.Seed}
		last = blk.Ref.Number
	}
	if !st.spare && last < b.cfg.BlocksPerStake {
		b.drawSpare(st, BlockRef{Emission: b.cfg.Emission, Stake: stake, Number: last + 1})
	}
	return st.open, nil
}

// draw draws and stores a block, and logs its commitment.
func (b *localBlocks) draw(ctx context.Context, ref BlockRef) (*Block, error) {
	start := time.Now()
	blk, err := NewBlock(ref)
	if err != nil {
		return nil, err
	}
	if err := b.w.store.PutBlock(ctx, blk); err != nil {
		return nil, fmt.Errorf("store block %s: %w", ref, err)
	}
	b.w.log.Info().Str("block", ref.String()).Int64("stake", int64(ref.Stake)).
		Str("commitment", blk.Commitment.String()).Int("units", blk.Len()).Int64("ms", time.Since(start).Milliseconds()).Msg("block generated")
	return blk, nil
}

// drawSpare draws the block after the open one in the background, so that
// no player waits for a block to be drawn. Called with mu.
func (b *localBlocks) drawSpare(st *stakeState, ref BlockRef) {
	if b.closing {
		return
	}
	done := make(chan struct{})
	st.pending = done
	b.bg.Add(1)
	go func() {
		defer b.bg.Done()
		_, err := b.draw(context.Background(), ref)
		if err != nil {
			b.w.log.Error().Str("block", ref.String()).AnErr("err", err).Msg("background block generation failed")
		}
		close(done) // before taking mu: open may be waiting with it held
		b.w.mu.Lock()
		if st.pending == done {
			st.pending, st.spare = nil, err == nil
		}
		b.w.mu.Unlock()
	}()
}

// blockSource sells the units of the block open at a stake in block
// order: the next one is at its cursor, as the sale's transaction reads
// it, and its records chain to the cursor's head.
type blockSource struct {
	blocks *localBlocks
	open   *BlockInfo
	cur    Cursor
	read   bool // cur is the store's, read in the sale's transaction
}

func (b *blockSource) next(tx *journalTx) (stockUnit, bool, error) {
	if !b.read {
		cur, err := tx.Cursor(b.open.Ref)
		if err != nil {
			return stockUnit{}, false, err
		}
		if cur.Served >= b.open.Size { // only if the cached cursor was stale
			return stockUnit{}, false, fmt.Errorf("%w: block %s has no unit left", ErrStorage, b.open.Ref)
		}
		if cur.Served == 0 {
			tx.noteBlock(*b.open)
		}
		b.cur, b.read = cur, true
	}
	if b.cur.Served >= b.open.Size {
		return stockUnit{}, false, nil
	}
	t := Ticket{Block: b.open.Ref, Index: b.cur.Served}
	u, err := tx.Unit(t)
	return stockUnit{Ticket: t, Unit: u, Prev: b.cur.Head}, err == nil, err
}

func (b *blockSource) take(head Hash) { b.cur.Served, b.cur.Head = b.cur.Served+1, head }

func (b *blockSource) keep(tx *journalTx) error { return tx.PutCursor(b.open.Ref, b.cur) }

// commit moves the open block's cursor; an exhausted block reveals its
// seed in the log and the stake moves to its next block.
func (b *blockSource) commit(ctx context.Context) {
	b.open.Cursor = b.cur
	if !b.open.Exhausted() {
		return
	}
	log := b.blocks.w.log
	log.Info().Str("block", b.open.Ref.String()).Str("seed", fmt.Sprintf("%x", b.open.Seed)).Msg("block exhausted")
	if _, err := b.blocks.open(ctx, b.open.Ref.Stake); err != nil {
		log.Warn().Int64("stake", int64(b.open.Ref.Stake)).AnErr("err", err).Msg("no next block")
	}
}
