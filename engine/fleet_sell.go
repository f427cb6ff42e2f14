package engine

import (
	"context"
	"fmt"
	"time"
)

// source is the unit source of one sale at stake: the packs held at it, in
// one durable transaction as a local block's. It refuses the sale of a
// kiosk out of service or offline; with no unit held at all (a new kiosk, a
// new stake) it waits for the loop's claim, at most claimWait; while the
// central refuses a pack only for want of the sales the loop is pushing,
// claimWait after the last push that went through: a kiosk that sold its
// packs faster than it pushed them waits for its pushes. It returns
// with the writer's lock held, which the caller releases; on an error the
// lock is released.
func (f *Fleet) source(ctx context.Context, stake Cents) (unitSource, error) {
	if f.cfg.Central == nil {
		return nil, ErrNeedsCentral
	}
	deadline := time.Now().Add(claimWait)
	asked := time.Now()
	for woke := false; ; woke = true {
		f.w.mu.Lock()
		if err := f.w.err(); err != nil {
			f.w.mu.Unlock()
			return nil, err
		}
		if err := f.link.offline(f.w.now()); err != nil {
			f.w.mu.Unlock()
			f.loop.poke()
			return nil, err
		}
		f.hand.wanted[stake] = true
		if f.hand.left(stake) > 0 {
			low := f.hand.low(stake)
			if low { // told now, whatever the sale's outcome; commit tells when the sale makes them low
				f.loop.poke()
			}
			return &packSource{f: f, stake: stake, wasLow: low}, nil
		}
		if t, ok := f.hand.noPack[stake]; ok && !t.Before(asked.Add(-noPackRetry)) {
			f.w.mu.Unlock()
			return nil, fmt.Errorf("%w: %w (%s)", ErrStakeClosed, ErrNoPack, stake)
		}
		wait, cause, stopped := f.loop.claimed, f.loop.lastErr, f.loop.stopped
		if f.refused && f.pushedAt.After(asked) {
			deadline = later(deadline, f.pushedAt.Add(claimWait))
		}
		f.w.mu.Unlock()
		if stopped { // no round will claim
			return nil, fmt.Errorf("no pack held at %s, and the kiosk is stopping: %w", stake, ErrCentralUnavailable)
		}
		if woke && cause != nil { // the round that was to claim failed: say why at once
			return nil, fmt.Errorf("no pack held at %s: %w", stake, cause)
		}
		f.loop.poke()
		left := time.Until(deadline)
		if left <= 0 {
			if cause == nil {
				cause = ErrCentralUnavailable
			}
			return nil, fmt.Errorf("no pack held at %s: %w", stake, cause)
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(left):
		}
	}
}

// packSource sells from the packs held at a stake, in claim order. Each
// pack has its own cursor (fleet/pcur/SERIAL) and history chain; the sale
// writes a pack's cursor as it leaves the pack, sold out or at its end.
type packSource struct {
	f      *Fleet
	stake  Cents
	wasLow bool // the stake's packs were low before the sale: the loop was told

	at    int          // index in f.hand.packs of the pack being sold from
	in    *packInHand  // that pack, nil before the first unit
	cur   packCursor   // its cursor as the sale moves it
	moved bool         // cur moved past a unit and is not written yet
	kept  []keptCursor // the cursors written, for commit
}

// keptCursor is a pack's cursor as a sale wrote it.
type keptCursor struct {
	pack *packInHand
	cur  packCursor
}

func (s *packSource) next(tx *journalTx) (stockUnit, bool, error) {
	for {
		if s.in != nil && s.cur.Next < s.cur.End {
			t := Ticket{Block: s.in.Block, Index: s.cur.Next}
			u, err := s.in.body.Unit(s.cur.Next - s.in.First)
			return stockUnit{Ticket: t, Unit: u, Prev: s.cur.Head}, err == nil, err
		}
		if err := s.leave(tx); err != nil { // the pack is sold out
			return stockUnit{}, false, err
		}
		if !s.nextPack() {
			if len(s.kept) == 0 { // the packs held were counted under the same lock
				return stockUnit{}, false, fmt.Errorf("%w: no unit held at %s", ErrStorage, s.stake)
			}
			return stockUnit{}, false, nil
		}
	}
}

// nextPack moves to the next pack held at the stake with units left.
func (s *packSource) nextPack() bool {
	packs := s.f.hand.packs
	if s.in != nil {
		s.at++
	}
	for ; s.at < len(packs); s.at++ {
		if p := packs[s.at]; p.Block.Stake == s.stake && p.left() > 0 {
			s.in, s.cur = p, p.cur
			return true
		}
	}
	s.in = nil
	return false
}

func (s *packSource) take(head Hash) {
	s.cur.Next, s.cur.HasLast, s.cur.Last, s.cur.Head = s.cur.Next+1, true, s.cur.Next, head
	s.moved = true
}

// leave writes the cursor of the pack being sold from, if the sale moved it.
func (s *packSource) leave(tx *journalTx) error {
	if !s.moved {
		return nil
	}
	if err := tx.PutSetting(packCursorKey(s.in.Serial), s.cur.encode()); err != nil {
		return err
	}
	s.kept, s.moved = append(s.kept, keptCursor{s.in, s.cur}), false
	return nil
}

func (s *packSource) keep(tx *journalTx) error { return s.leave(tx) }

// commit moves the packs' cursors; a sold-out pack's body leaves memory.
// The loop is woken when the sale leaves the stake's packs low.
func (s *packSource) commit(context.Context) {
	for _, k := range s.kept {
		p := k.pack
		p.cur = k.cur
		if p.left() == 0 {
			p.body = nil
			s.f.w.log.Info().Str("pack", p.Serial).Msg("pack sold out")
		}
	}
	if !s.wasLow && s.f.hand.low(s.stake) {
		s.f.loop.poke()
	}
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
