package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The packs a kiosk takes from its central and gives back: claimed ahead of
// the sales, reconciled with what the central knows of the kiosk, their
// unsold remainders released.

// claim claims a pack at each stake sold from that holds less than a pack.
// It says whether the central refused one for now (ErrClaimRefused: the
// kiosk holds enough unsold units as the central counts them, or claims too
// often), which is no failure of the round: the kiosk sells what it holds,
// and pushing its sales is what lets the next claim through.
func (f *Fleet) claim(ctx context.Context) (refused bool, err error) {
	for _, stake := range Stakes {
		f.w.mu.Lock()
		t, none := f.hand.noPack[stake]
		need := f.hand.wanted[stake] && f.hand.low(stake) && (!none || f.w.now().Sub(t) > noPackRetry)
		f.w.mu.Unlock()
		if !need {
			continue
		}
		start := time.Now()
		p, err := f.cfg.Central.ClaimPack(ctx, stake)
		took := time.Since(start)
		if errors.Is(err, ErrNoPack) {
			f.w.mu.Lock()
			f.hand.noPack[stake] = f.w.now()
			f.w.mu.Unlock()
			f.w.log.Info().Int64("stake", int64(stake)).Float64("ms", millis(took)).Msg("no pack left at the central")
			continue
		}
		f.w.mu.Lock()
		f.refused = errors.Is(err, ErrClaimRefused)
		f.w.mu.Unlock()
		if errors.Is(err, ErrClaimRefused) {
			f.w.log.Info().Int64("stake", int64(stake)).AnErr("err", err).Float64("ms", millis(took)).Msg("claim refused for now: selling what is held")
			refused = true
			continue
		}
		if err != nil {
			return refused, err
		}
		if err := f.accept(ctx, p, p.First, took); err != nil {
			return refused, err
		}
	}
	return refused, nil
}

// accept verifies a pack and stores it durably, to sell from next, from
// position next on. Nothing of a pack that fails its proof is kept. took
// is how long the central took to send it (the log's ms).
func (f *Fleet) accept(ctx context.Context, p Pack, next uint32, took time.Duration) error {
	if p.Count() > MaxPackSize {
		f.w.log.Error().Str("pack", p.Serial).Uint32("count", p.Count()).Msg("pack refused: more units than a kiosk holds")
		return fmt.Errorf("pack %s refused: %d units, a kiosk holds packs of at most %d (the emission's --pack-size): %w",
			p.Serial, p.Count(), MaxPackSize, ErrPackTooBig)
	}
	if err := p.Verify(); err != nil {
		f.w.log.Error().Str("pack", p.Serial).AnErr("err", err).Msg("pack refused: its proof does not lead to the block's root")
		return fmt.Errorf("pack %s refused: %w", p.Serial, err)
	}
	f.w.mu.Lock()
	defer f.w.mu.Unlock()
	delete(f.hand.noPack, p.Block.Stake)
	if f.hand.has(p.Serial) {
		return nil
	}
	h := &packInHand{Serial: p.Serial, Block: p.Block, First: p.First, Count: p.Count(), body: &p,
		cur: packCursor{Next: max(next, p.First), End: p.First + p.Count()}}
	serials := append(f.hand.serials(), p.Serial)
	f.link.last = f.w.now().UTC()
	err := f.w.update(ctx, func(tx *journalTx) error {
		if err := putPack(tx, p); err != nil {
			return err
		}
		if err := tx.PutSetting(packCursorKey(p.Serial), h.cur.encode()); err != nil {
			return err
		}
		if err := tx.PutSetting(fleetPacksKey, []byte(strings.Join(serials, "\n"))); err != nil {
			return err
		}
		st, err := readFleetState(tx)
		if err != nil {
			return err
		}
		st.Contact = f.link.last
		return tx.PutSetting(fleetStateKey, st.encode())
	})
	if err != nil {
		return err
	}
	f.link.saved = f.link.last
	f.hand.packs = append(f.hand.packs, h)
	f.w.log.Info().Str("pack", p.Serial).Uint32("first", p.First).Uint32("count", p.Count()).Str("root", p.Root.String()).
		Float64("ms", millis(took)).Msg("pack claimed")
	return nil
}

// reconcile applies what the central knows of the kiosk: its last sale and
// movement numbers (a kiosk restored from an older backup numbers on from
// the central's, and pushes from there), and per pack the positions sold
// (never sold again), released or voided. A pack the central lists as held
// but the store lacks (a claim whose answer was lost) is fetched again.
func (f *Fleet) reconcile(ctx context.Context) error {
	ks, err := f.cfg.Central.KioskState(ctx)
	if err != nil {
		return err
	}
	if f.cfg.Kiosk != "" && ks.Kiosk != f.cfg.Kiosk {
		return fmt.Errorf("%w: the connection is kiosk %q, the settings say %q", ErrUnknownKiosk, ks.Kiosk, f.cfg.Kiosk)
	}
	var fetch []PackState
	f.w.mu.Lock()
	f.link.last = f.w.now().UTC()
	known := map[string]PackState{}
	for _, ps := range ks.Packs {
		known[ps.Serial] = ps
	}
	moved := map[*packInHand]packCursor{}
	for _, h := range f.hand.packs {
		c := h.cur
		ps, ok := known[h.Serial]
		switch {
		case !ok: // released whole, or never this kiosk's: nothing more to sell
			c.End, c.Release = min(c.End, c.Next), false
		case ps.Status == "claimed":
			if ps.Next > c.Next {
				f.w.log.Warn().Str("pack", h.Serial).Uint32("from", c.Next).Uint32("to", ps.Next).Msg("positions sold before a restore skipped")
				c.Next = ps.Next
			}
		case ps.Status == "returned":
			c.End, c.Release = min(c.End, ps.First+ps.Count), false
		default: // voided
			c.End, c.Release = min(c.End, c.Next), false
		}
		c.End = max(c.End, min(c.Next, h.First+h.Count)) // never below what was sold
		if c != h.cur {
			moved[h] = c
		}
		delete(known, h.Serial)
	}
	for _, ps := range known {
		if ps.Status == "claimed" && ps.Next < ps.First+ps.Count {
			fetch = append(fetch, ps)
		}
	}
	var restored bool
	err = f.w.update(ctx, func(tx *journalTx) error {
		for h, c := range moved {
			if err := tx.PutSetting(packCursorKey(h.Serial), c.encode()); err != nil {
				return err
			}
		}
		st, err := readFleetState(tx)
		if err != nil {
			return err
		}
		if st.Kiosk != "" && st.Kiosk != ks.Kiosk {
			return fmt.Errorf("%w: this data directory belongs to kiosk %q, the central's connection is %q", ErrUnknownKiosk, st.Kiosk, ks.Kiosk)
		}
		st.Kiosk = ks.Kiosk
		if ks.LastMovementSeq > st.MovSeq || ks.LastSaleSeq > st.SaleSeq {
			restored = true
			st.MovSeq, st.SaleSeq = max(st.MovSeq, ks.LastMovementSeq), max(st.SaleSeq, ks.LastSaleSeq)
		}
		st.Pushed, st.Contact = ks.LastMovementSeq, f.link.last
		return tx.PutSetting(fleetStateKey, st.encode())
	})
	if err == nil {
		f.link.saved = f.link.last
		for h, c := range moved {
			h.cur = c
		}
	}
	f.w.mu.Unlock()
	if err != nil {
		return err
	}
	if restored {
		f.w.log.Warn().Uint64("sale_seq", ks.LastSaleSeq).Uint64("movement_seq", ks.LastMovementSeq).
			Msg("the central knows more of this kiosk than its store (restored from an older backup): numbering on from the central's")
	}
	for _, ps := range fetch {
		start := time.Now()
		p, err := f.cfg.Central.FetchPack(ctx, ps.Serial)
		if err != nil {
			return err
		}
		if err := f.accept(ctx, p, ps.Next, time.Since(start)); err != nil {
			return err
		}
	}
	return nil
}

// Release stops selling the unsold remainder of every pack held, pushes
// the backlog and returns the remainders to the central, which voids them
// (their outcomes went to this kiosk: no other sells them). It returns the
// packs whose remainder was returned.
// A remainder the central could not take yet is returned by the
// background loop later; the kiosk sells none of it meanwhile.
func (f *Fleet) Release(ctx context.Context) ([]string, error) {
	if f.cfg.Central == nil {
		return nil, ErrNeedsCentral
	}
	f.w.mu.Lock()
	var released []string
	moved := map[*packInHand]packCursor{}
	for _, h := range f.hand.packs {
		if h.left() > 0 {
			c := h.cur
			c.End, c.Release = c.Next, true
			moved[h] = c
			released = append(released, h.Serial)
		}
	}
	err := f.w.update(ctx, func(tx *journalTx) error {
		for h, c := range moved {
			if err := tx.PutSetting(packCursorKey(h.Serial), c.encode()); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		for h, c := range moved {
			h.cur, h.body = c, nil
		}
		clear(f.hand.wanted) // no new claim either
	}
	f.w.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return released, f.Sync(ctx)
}

// releasePending returns to the central the remainders marked released.
func (f *Fleet) releasePending(ctx context.Context) error {
	f.w.mu.Lock()
	var todo []*packInHand
	for _, h := range f.hand.packs {
		if h.cur.Release {
			todo = append(todo, h)
		}
	}
	f.w.mu.Unlock()
	for _, h := range todo {
		f.w.mu.Lock()
		from := h.cur.End
		f.w.mu.Unlock()
		serial, err := f.cfg.Central.ReleasePack(ctx, h.Serial, from)
		if errors.Is(err, ErrPackState) { // already returned (a release whose answer was lost) or voided
			f.w.log.Warn().Str("pack", h.Serial).AnErr("err", err).Msg("pack remainder not returned: the central no longer counts it as held")
		} else if err != nil {
			return err
		}
		f.w.mu.Lock()
		c := h.cur
		c.Release = false
		err = f.w.update(ctx, func(tx *journalTx) error { return tx.PutSetting(packCursorKey(h.Serial), c.encode()) })
		if err == nil {
			h.cur = c
		}
		f.w.mu.Unlock()
		if err != nil {
			return err
		}
		f.w.log.Info().Str("pack", h.Serial).Uint32("from", from).Str("new_pack", serial).Msg("pack remainder returned")
	}
	return nil
}
