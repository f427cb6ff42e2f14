package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Sales sells units and records their reveal step by step: the player's
// side of the terminal. Each stake has one open block; the next one is
// drawn in the background before the open one runs out, so no player waits
// for a block to be drawn.
type Sales struct {
	w   *writer
	cfg Config

	fleet   *Fleet                // a kiosk of a fleet: units come from its packs
	stakes  map[Cents]*stakeState // guarded by w.mu
	closing bool                  // Close was called: no more background work
	bg      sync.WaitGroup        // background block generation
}

type stakeState struct {
	open    *BlockInfo    // the block being sold, nil when unknown
	spare   bool          // a later block is stored and ready
	pending chan struct{} // closed when the background generation ends
}

// SellRequest asks for Count units (at least 1) of Stake for Player.
type SellRequest struct {
	Player string
	Stake  Cents
	Count  int
	// Picks, when set, chooses the pucks of each unit at once and records its
	// reveal as complete in the same transaction (command line, simulations).
	// When nil the reveal is left to the player, step by step.
	Picks func(i int) [2]int
	Actor string // who sells, as the caller names itself ("kiosk", "cli"...)
}

// MaxBatch is the most units one transaction may sell, well inside the
// store's transaction size limit.
const MaxBatch = 2048

func newSales(w *writer, cfg Config) *Sales {
	s := &Sales{w: w, cfg: cfg, stakes: map[Cents]*stakeState{}}
	for _, stake := range Stakes {
		s.stakes[stake] = &stakeState{}
	}
	return s
}

// openAll gives every stake its open block (drawn now if the store has
// none). A stake whose block cannot be drawn now (a full disk) does not stop
// the terminal: its sales retry, and history stays readable.
func (s *Sales) openAll(ctx context.Context) {
	if s.fleet != nil {
		return
	}
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	for _, stake := range Stakes {
		if _, err := s.openBlock(ctx, stake); err != nil && !errors.Is(err, ErrStakeClosed) {
			s.w.log.Error().Int64("stake", int64(stake)).AnErr("err", err).Msg("no block open")
		}
	}
}

// close waits for background work and starts no more.
func (s *Sales) close() {
	if s.fleet != nil {
		s.fleet.close()
	}
	s.w.mu.Lock()
	s.closing = true
	s.w.mu.Unlock()
	s.bg.Wait()
}

// OpenBlocks is the block each stake sells now, by stake, as far as this
// terminal knows (a stake closed or not yet drawn is absent). The seeds are
// left out: they stay secret while a block sells.
func (s *Sales) OpenBlocks() map[Cents]BlockRef {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	out := map[Cents]BlockRef{}
	if s.fleet != nil { // the block of the pack sold next
		for i := len(s.fleet.packs) - 1; i >= 0; i-- {
			if h := s.fleet.packs[i]; h.left() > 0 {
				out[h.Block.Stake] = h.Block
			}
		}
		return out
	}
	for stake, st := range s.stakes {
		if st.open != nil && !st.open.Exhausted() {
			out[stake] = st.open.Ref
		}
	}
	return out
}

// openBlock returns the block of stake being sold, moving to the next block
// when it is exhausted and keeping a spare one drawn ahead. Called with mu.
func (s *Sales) openBlock(ctx context.Context, stake Cents) (*BlockInfo, error) {
	st := s.stakes[stake]
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
	err := s.w.view(ctx, func(tx ReadTx) (err error) {
		blocks, err = tx.Blocks()
		return err
	})
	if err != nil {
		return nil, err
	}
	st.open, st.spare = nil, false
	var last uint32
	for i := range blocks {
		b := &blocks[i]
		if b.Ref.Stake != stake || b.Ref.Emission != s.cfg.Emission {
			continue
		}
		last = max(last, b.Ref.Number)
		if st.open == nil && !b.Exhausted() {
			st.open = b
		} else if st.open != nil {
			st.spare = true
		}
	}
	if st.open == nil {
		if last >= s.cfg.BlocksPerStake {
			return nil, fmt.Errorf("%w (%s, emission %d)", ErrStakeClosed, stake, s.cfg.Emission)
		}
		b, err := s.drawBlock(ctx, BlockRef{Emission: s.cfg.Emission, Stake: stake, Number: last + 1})
		if err != nil {
			return nil, err
		}
		st.open = &BlockInfo{Ref: b.Ref, Size: uint32(b.Len()), Commitment: b.Commitment, Seed: b.Seed}
		last = b.Ref.Number
	}
	if !st.spare && last < s.cfg.BlocksPerStake {
		s.drawSpare(st, BlockRef{Emission: s.cfg.Emission, Stake: stake, Number: last + 1})
	}
	return st.open, nil
}

// drawBlock draws and stores a block, and logs its commitment.
func (s *Sales) drawBlock(ctx context.Context, ref BlockRef) (*Block, error) {
	start := time.Now()
	b, err := NewBlock(ref)
	if err != nil {
		return nil, err
	}
	if err := s.w.store.PutBlock(ctx, b); err != nil {
		return nil, fmt.Errorf("store block %s: %w", ref, err)
	}
	s.w.log.Info().Str("block", ref.String()).Int64("stake", int64(ref.Stake)).
		Str("commitment", b.Commitment.String()).Int("units", b.Len()).Int64("ms", time.Since(start).Milliseconds()).Msg("block generated")
	return b, nil
}

// drawSpare draws the block after the open one in the background, so that
// no player waits for a block to be drawn. Called with mu.
func (s *Sales) drawSpare(st *stakeState, ref BlockRef) {
	if s.closing {
		return
	}
	done := make(chan struct{})
	st.pending = done
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		_, err := s.drawBlock(context.Background(), ref)
		if err != nil {
			s.w.log.Error().Str("block", ref.String()).AnErr("err", err).Msg("background block generation failed")
		}
		close(done) // before taking mu: openBlock may be waiting with it held
		s.w.mu.Lock()
		if st.pending == done {
			st.pending, st.spare = nil, err == nil
		}
		s.w.mu.Unlock()
	}()
}

// check refuses a request the engine cannot serve, before any lock.
func (req SellRequest) check() error {
	if err := checkPlayer(req.Player); err != nil {
		return err
	}
	if !ValidStake(req.Stake) {
		return fmt.Errorf("%w: %d cents", ErrBadStake, req.Stake)
	}
	if req.Count < 1 || req.Count > MaxBatch {
		return fmt.Errorf("%w: %d units (1 to %d)", ErrBadBatch, req.Count, MaxBatch)
	}
	return nil
}

// Sell sells units in one atomic, durable transaction: for each unit the
// funds are checked, the next unit of the open block is taken, the cursor
// advanced, the stake debited and the prize credited, the history record and
// the ledger entry written. It returns once all of it is on disk. A batch
// stops early at the end of a block or when funds run out after at least one
// unit; if not even one unit can be sold, nothing changes and the error says
// why (ErrInsufficientFunds, ErrStakeClosed, ErrStorage...).
func (s *Sales) Sell(ctx context.Context, req SellRequest) ([]Sale, error) {
	if err := req.check(); err != nil {
		return nil, err
	}
	if s.fleet != nil {
		return s.fleet.sell(ctx, req)
	}
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	if err := s.w.err(); err != nil {
		return nil, err
	}
	open, err := s.openBlock(ctx, req.Stake)
	if err != nil {
		return nil, err
	}
	now := s.w.now().UTC()
	var sales []Sale
	var cur Cursor
	err = s.w.update(ctx, func(tx *journalTx) (err error) {
		sales, cur, err = s.sellIn(tx, open, req, now)
		return err
	})
	if err != nil {
		s.w.log.Warn().Str("player", req.Player).Int64("stake", int64(req.Stake)).AnErr("err", err).Msg("sale refused")
		return nil, err
	}
	open.Cursor = cur
	s.sold(ctx, open, sales)
	return sales, nil
}

// sellIn writes the sale of req's units from block open in tx and returns
// them with the block's new cursor.
func (s *Sales) sellIn(tx *journalTx, open *BlockInfo, req SellRequest, now time.Time) ([]Sale, Cursor, error) {
	sales := make([]Sale, 0, req.Count)
	tx.grow(req.Count)
	w, err := openWallet(tx, req.Player, now, s.cfg.DemoFunds, s.w.log)
	if err != nil {
		return nil, Cursor{}, err
	}
	cur, err := tx.Cursor(open.Ref)
	if err != nil {
		return nil, cur, err
	}
	if cur.Served == 0 {
		tx.noteBlock(*open)
	}
	for i := 0; i < req.Count && cur.Served < open.Size; i++ {
		if w.Balance < req.Stake {
			if i == 0 {
				return nil, cur, fmt.Errorf("%w: balance %s, stake %s", ErrInsufficientFunds, w.Balance, req.Stake)
			}
			break
		}
		t := Ticket{Block: open.Ref, Index: cur.Served}
		u, err := tx.Unit(t)
		if err != nil {
			return nil, cur, err
		}
		sale, head, err := sellUnit(tx, &w, t, u, cur.Head, req, i, now)
		if err != nil {
			return nil, cur, err
		}
		cur.Served, cur.Head = cur.Served+1, head
		sales = append(sales, sale)
	}
	if len(sales) == 0 { // only if the cached cursor was stale
		return nil, cur, fmt.Errorf("%w: block %s has no unit left", ErrStorage, open.Ref)
	}
	if req.Picks != nil { // every unit shown at once: the reveals go together
		rvs := make([]Reveal, len(sales))
		for i, s := range sales {
			rvs[i] = s.Reveal
		}
		if err := tx.PutReveals(sales[0].Ticket, rvs); err != nil {
			return nil, cur, err
		}
	}
	if err := tx.PutCursor(open.Ref, cur); err != nil {
		return nil, cur, err
	}
	return sales, cur, tx.PutWallet(w)
}

// sellUnit sells unit t (outcome u), the i-th of req, from wallet w: the
// ledger entry and the history record, chained after the record hashing to
// prev. It returns the sale and its record's hash, the chain's new head.
func sellUnit(tx *journalTx, w *Wallet, t Ticket, u Unit, prev Hash, req SellRequest, i int, now time.Time) (Sale, Hash, error) {
	before := w.Balance
	l := w.move(LedgerEntry{Time: now, Kind: LedgerSale, Debit: req.Stake, Credit: u.Prize(req.Stake), Ticket: t, Actor: req.Actor})
	w.HasLast, w.Last = true, t
	r := Record{Ticket: t, Player: req.Player, Time: now, Unit: u, BalanceBefore: before,
		BalanceAfter: w.Balance, LedgerSeq: l.Seq, Prev: prev}
	rv := NewReveal()
	if req.Picks != nil {
		p := req.Picks(i)
		if p[0] < 0 || p[0] >= NumSlots || p[1] < 0 || p[1] >= NumSlots {
			return Sale{}, Hash{}, fmt.Errorf("%w: pucks %v (slots 0 to %d)", ErrReveal, p, NumSlots-1)
		}
		rv = Reveal{Slots: p, Go: [2]bool{u.Drops[0].Dest.Bonus, u.Drops[1].Dest.Bonus}}
	}
	if err := tx.PutRecord(r); err != nil {
		return Sale{}, Hash{}, err
	}
	return Sale{Record: r, Reveal: rv}, r.Hash(), tx.PutLedger(l)
}

// sold logs the units sold and moves to the next block when open is
// exhausted. Called with mu.
func (s *Sales) sold(ctx context.Context, open *BlockInfo, sales []Sale) {
	if s.w.log.Info().Enabled() { // a batch sells thousands: no ticket strings for a silent log
		for _, sale := range sales {
			s.w.log.Info().Str("ticket", sale.Ticket.String()).Str("player", sale.Player).
				Int64("stake", int64(sale.Stake())).Int64("prize", int64(sale.Prize())).Int64("balance", int64(sale.BalanceAfter)).Msg("unit sold")
		}
	}
	if open.Exhausted() {
		s.w.log.Info().Str("block", open.Ref.String()).Str("seed", fmt.Sprintf("%x", open.Seed)).Msg("block exhausted")
		if _, err := s.openBlock(ctx, open.Ref.Stake); err != nil {
			s.w.log.Warn().Int64("stake", int64(open.Ref.Stake)).AnErr("err", err).Msg("no next block")
		}
	}
}

// Pick records the slot the player chose for the next drop of ticket t
// (drop 0 or 1) and returns the sale as it now stands. The outcome does not
// depend on the slot; only the animation starts from it.
func (s *Sales) Pick(ctx context.Context, t Ticket, drop, slot int) (Sale, error) {
	if slot < 0 || slot >= NumSlots {
		return Sale{}, fmt.Errorf("%w: slot %d (0 to %d)", ErrReveal, slot, NumSlots-1)
	}
	return s.step(ctx, t, Step{StepPick, drop}, func(rv *Reveal) { rv.Slots[drop] = slot })
}

// Go records the GO of the BONUS step of drop (0 or 1) of ticket t.
func (s *Sales) Go(ctx context.Context, t Ticket, drop int) (Sale, error) {
	return s.step(ctx, t, Step{StepGo, drop}, func(rv *Reveal) { rv.Go[drop] = true })
}

// step persists one reveal step if it is the one the unit is at.
func (s *Sales) step(ctx context.Context, t Ticket, want Step, apply func(*Reveal)) (Sale, error) {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	var sale Sale
	err := s.w.update(ctx, func(tx *journalTx) error {
		var err error
		if sale, err = readSale(tx, t); err != nil {
			return err
		}
		if got := sale.Next(); got != want {
			return fmt.Errorf("%w: ticket %s is at %+v, not %+v", ErrReveal, t, got, want)
		}
		apply(&sale.Reveal)
		return tx.PutReveal(t, sale.Reveal)
	})
	if err != nil {
		return Sale{}, err
	}
	s.w.log.Info().Str("ticket", t.String()).Int("drop", want.Drop).Str("step", stepName[want.Kind]).
		Int("slot", sale.Reveal.Slots[want.Drop]).Bool("done", sale.Done()).Msg("reveal step")
	return sale, nil
}

var stepName = map[StepKind]string{StepPick: "pick", StepGo: "go", StepDone: "done"}
