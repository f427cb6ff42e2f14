package engine

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Sales sells units and records their reveal step by step: the player's
// side of the terminal. Its units come from the blocks it draws itself
// (localblocks.go), or on a kiosk of a fleet from the packs it holds
// (fleet_sell.go).
type Sales struct {
	w   *writer
	cfg Config

	blocks *localBlocks // a lone kiosk: the blocks it draws
	fleet  *Fleet       // a kiosk of a fleet: units come from its packs
}

// unitSource is where one sale takes its units from, inside the sale's
// transaction: the block a lone kiosk drew and sells at the stake
// (blockSource, localblocks.go), or the packs a fleet's kiosk holds at it
// (packSource, fleet_sell.go). Sales.Sell gets one per sale, with the
// writer's lock held, and drops it if the transaction fails: what it moved
// is then forgotten with the transaction.
type unitSource interface {
	// next is the next unit left to sell, without taking it. ok is false
	// once the source has none left; a source that has none at all is an
	// error (its cursor as known before the sale was stale).
	next(tx *journalTx) (u stockUnit, ok bool, err error)
	// take takes the unit next gave: the cursor moves past it, and the head
	// of its chain to head, the hash of the history record that sold it.
	take(head Hash)
	// keep writes in tx the cursors the sale moved that are not written
	// yet; the sale's last write of its units.
	keep(tx *journalTx) error
	// commit, once the transaction is durable, makes the cursors kept the
	// source's own and restocks: the next block opened when one is
	// exhausted, the background loop woken when the packs run low.
	commit(ctx context.Context)
}

// stockUnit is a unit a source offers a sale: its ticket, its outcome, and
// the hash of the history record before it in its chain (its block's, or
// its pack's).
type stockUnit struct {
	Ticket Ticket
	Unit   Unit
	Prev   Hash
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

// newSales sells from fleet's packs, or without a fleet from blocks drawn
// here.
func newSales(w *writer, cfg Config, fleet *Fleet) *Sales {
	s := &Sales{w: w, cfg: cfg, fleet: fleet}
	if fleet == nil {
		s.blocks = newLocalBlocks(w, cfg)
	}
	return s
}

// close waits for background work and starts no more.
func (s *Sales) close() {
	if s.fleet != nil {
		s.fleet.close()
		return
	}
	s.blocks.close()
}

// OpenBlocks is the block each stake sells now, by stake, as far as this
// terminal knows (a stake closed or not yet drawn is absent). The seeds are
// left out: they stay secret while a block sells.
func (s *Sales) OpenBlocks() map[Cents]BlockRef {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	if s.fleet != nil {
		return s.fleet.hand.nextBlocks()
	}
	return s.blocks.openRefs()
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
// funds are checked, the next unit of the open block (or of the packs
// held) is taken, the cursor advanced, the stake debited and the prize
// credited, the history record and the ledger entry written. It returns
// once all of it is on disk. A batch stops early at the end of a block (or
// of the packs held) or when funds run out after at least one unit; if not
// even one unit can be sold, nothing changes and the error says why
// (ErrInsufficientFunds, ErrStakeClosed, ErrOffline, ErrStorage...).
//
// The sale, top down: the request is checked; its unit source is found
// (source); then the one write (sellIn): the player's wallet, the
// player-protection checks (protect), the units taken from the source while
// funds last, each with its record and ledger entry, and the cursors moved;
// last, once it is durable, the source restocks (unitSource.commit).
func (s *Sales) Sell(ctx context.Context, req SellRequest) ([]Sale, error) {
	if err := req.check(); err != nil {
		return nil, err
	}
	sales, err := s.sell(ctx, req)
	// A fleet account's lease spent: its renewal, at the loop's next round.
	for deadline := time.Now().Add(leaseWait); errors.Is(err, ErrLeaseSpent) && s.fleet != nil && s.fleet.awaitRound(ctx, deadline); {
		sales, err = s.sell(ctx, req)
	}
	return sales, err
}

// sell is Sell once.
func (s *Sales) sell(ctx context.Context, req SellRequest) ([]Sale, error) {
	src, err := s.source(ctx, req.Stake)
	if err != nil {
		return nil, err
	}
	defer s.w.mu.Unlock() // taken by source
	now := s.w.now().UTC()
	var sales []Sale
	err = s.w.update(ctx, func(tx *journalTx) (err error) {
		sales, err = s.sellIn(tx, src, req, now)
		return err
	})
	if err != nil {
		s.w.log.Warn().Str("player", req.Player).Int64("stake", int64(req.Stake)).AnErr("err", err).Msg("sale refused")
		return nil, err
	}
	s.logSold(sales)
	src.commit(ctx)
	return sales, nil
}

// source is where the sale's units come from: the block open at the stake
// on a lone kiosk, the packs held at it on a kiosk of a fleet (waiting for
// a first pack if need be). It returns with the writer's lock held, which
// the caller releases; on an error the lock is released.
func (s *Sales) source(ctx context.Context, stake Cents) (unitSource, error) {
	if s.fleet != nil {
		return s.fleet.source(ctx, stake)
	}
	return s.blocks.source(ctx, stake)
}

// sellIn is the sale's one transaction: the player's wallet (the demo
// wallet opened on first use), the player-protection step, then unit after
// unit from src while funds last and the request wants more, each with its
// history record and ledger entry, the cursors src moved, the reveals of a
// batch shown at once, and the wallet.
func (s *Sales) sellIn(tx *journalTx, src unitSource, req SellRequest, now time.Time) ([]Sale, error) {
	tx.grow(req.Count)
	w, err := openWallet(tx, req.Player, now, s.cfg.DemoFunds, s.w.log)
	if err != nil {
		return nil, err
	}
	g, err := s.protect(tx, w, req, now)
	if err != nil {
		return nil, err
	}
	now = g.time(now)
	sales := make([]Sale, 0, req.Count)
	for len(sales) < req.Count {
		if err := g.allow(w.Balance, req.Stake); err != nil {
			if len(sales) == 0 {
				return nil, err
			}
			break
		}
		u, ok, err := src.next(tx)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		sale, head, err := sellUnit(tx, &w, u, req, len(sales), now)
		if err != nil {
			return nil, err
		}
		if err := g.sold(sale.Ticket, req.Stake, sale.Prize()); err != nil {
			return nil, err
		}
		src.take(head)
		sales = append(sales, sale)
	}
	if err := g.keep(tx); err != nil {
		return nil, err
	}
	if err := src.keep(tx); err != nil {
		return nil, err
	}
	if req.Picks != nil { // every unit shown at once: the reveals go together
		if err := putRevealRuns(tx, sales); err != nil {
			return nil, err
		}
	}
	return sales, tx.PutWallet(w)
}

// protect is the sale's player-protection step (SPEC §10): inside the
// sale's transaction, on the player's wallet as it stands (the demo funds
// granted, no unit taken yet), so that a refusal writes nothing and no other
// change slips between the check and the sale. The account must be
// complete, not on a break nor listed, logged in, its reality check
// acknowledged and no prize held; the guard returned then checks each unit
// against the funds and the limits and counts it. A refusal is a typed
// error matched with errors.Is or errors.As. On the demo's data directory
// only the demo wallet plays.
func (s *Sales) protect(tx *journalTx, w Wallet, req SellRequest, now time.Time) (*guard, error) {
	if s.cfg.DemoOnly && req.Player != DemoPlayer {
		return nil, fmt.Errorf("%w: player %q", ErrDemoOnly, req.Player)
	}
	g, err := guardFor(tx, w, s.fleet != nil, s.cfg.Protection, now)
	if err != nil || g == nil {
		return g, err
	}
	return g, g.mayPlay()
}

// sellUnit sells unit u, the i-th of req, from wallet w: the ledger entry
// and the history record, chained after u.Prev. It returns the sale and its
// record's hash, the chain's new head.
func sellUnit(tx *journalTx, w *Wallet, u stockUnit, req SellRequest, i int, now time.Time) (Sale, Hash, error) {
	t := u.Ticket
	before := w.Balance
	l := w.move(LedgerEntry{Time: now, Kind: LedgerSale, Debit: req.Stake, Credit: u.Unit.Prize(req.Stake), Ticket: t, Actor: req.Actor})
	w.HasLast, w.Last = true, t
	r := Record{Ticket: t, Player: req.Player, Time: now, Unit: u.Unit, BalanceBefore: before,
		BalanceAfter: w.Balance, LedgerSeq: l.Seq, Prev: u.Prev}
	rv := NewReveal()
	if req.Picks != nil {
		p := req.Picks(i)
		if p[0] < 0 || p[0] >= NumSlots || p[1] < 0 || p[1] >= NumSlots {
			return Sale{}, Hash{}, fmt.Errorf("%w: pucks %v (slots 0 to %d)", ErrReveal, p, NumSlots-1)
		}
		rv = Reveal{Slots: p, Go: [2]bool{u.Unit.Drops[0].Dest.Bonus, u.Unit.Drops[1].Dest.Bonus}}
	}
	if err := tx.PutRecord(r); err != nil {
		return Sale{}, Hash{}, err
	}
	return Sale{Record: r, Reveal: rv}, r.Hash(), tx.PutLedger(l)
}

// putRevealRuns stores the reveals of sales shown at once, one call per run
// of consecutive tickets (a batch may span packs).
func putRevealRuns(tx *journalTx, sales []Sale) error {
	for start := 0; start < len(sales); {
		end := start + 1
		for end < len(sales) && sales[end].Ticket == sales[start].Ticket.Plus(uint32(end-start)) {
			end++
		}
		rvs := make([]Reveal, end-start)
		for i := range rvs {
			rvs[i] = sales[start+i].Reveal
		}
		if err := tx.PutReveals(sales[start].Ticket, rvs); err != nil {
			return err
		}
		start = end
	}
	return nil
}

// logSold logs the units sold; a batch sells thousands: no ticket strings
// for a silent log.
func (s *Sales) logSold(sales []Sale) {
	if !s.w.log.Info().Enabled() {
		return
	}
	for _, sale := range sales {
		s.w.log.Info().Str("ticket", sale.Ticket.String()).Str("player", sale.Player).
			Int64("stake", int64(sale.Stake())).Int64("prize", int64(sale.Prize())).Int64("balance", int64(sale.BalanceAfter)).Msg("unit sold")
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
