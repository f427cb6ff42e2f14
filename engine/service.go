package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"
	"unicode"
)

// DemoPlayer is the wallet of the offline demo; it receives DemoFunds the
// first time it is used.
const DemoPlayer = "demo"

// Config is the emission the terminal sells, and its journal.
type Config struct {
	Emission       uint16 // emission number, from 1
	BlocksPerStake uint32 // blocks of the emission per stake
	DemoFunds      Cents  // given to DemoPlayer on first use
	// Journal is the independent record of every change (nil: none, for
	// tests of other things).
	Journal Journal
}

// DefaultConfig is emission 1 with 10 blocks per stake and 100,00 € of demo funds.
func DefaultConfig() Config {
	return Config{Emission: 1, BlocksPerStake: 10, DemoFunds: 10_000}
}

// Sale is a sold unit with how far its reveal has gone.
type Sale struct {
	Record
	Reveal Reveal
}

// Next is the reveal step the player is at.
func (s Sale) Next() Step { return s.Reveal.Next(s.Unit) }

// Done reports whether the unit has been fully shown.
func (s Sale) Done() bool { return s.Next().Kind == StepDone }

// Service plays the game on a Store: it sells units, records reveal steps,
// moves money, reads history and audits. Every change goes through one
// writer, so concurrent callers are serialised rather than conflicting.
type Service struct {
	store Store
	cfg   Config
	log   *slog.Logger
	// Now gives the time recorded in history and ledger (tests pin it).
	Now func() time.Time

	mu      sync.Mutex // the single writer
	stakes  map[Cents]*stakeState
	journal Journal
	jhead   JournalHead // the journal's position after the last change
	broken  error       // why the terminal is out of service, or nil
	closing bool        // Close was called: no more background work

	bg sync.WaitGroup // background block generation
}

type stakeState struct {
	open    *BlockInfo    // the block being sold, nil when unknown
	spare   bool          // a later block is stored and ready
	pending chan struct{} // closed when the background generation ends
}

// NewService opens the game on store: every stake gets an open block (drawn
// now if the store has none) and a spare one drawn in the background.
func NewService(ctx context.Context, store Store, cfg Config, log *slog.Logger) (*Service, error) {
	if cfg.Emission == 0 || cfg.BlocksPerStake == 0 || cfg.BlocksPerStake > 9999 {
		return nil, fmt.Errorf("engine: bad emission config %+v", cfg)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Service{store: store, cfg: cfg, log: log, Now: time.Now, stakes: map[Cents]*stakeState{}, journal: cfg.Journal}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, stake := range Stakes {
		s.stakes[stake] = &stakeState{}
	}
	if s.journal != nil {
		s.jhead = s.journal.Head()
	}
	if err := s.checkAtStart(ctx); err != nil {
		return s, nil // reads still work; Health says why nothing else does
	}
	for _, stake := range Stakes {
		// A stake whose block cannot be drawn now (a full disk) does not stop
		// the terminal: its sales retry, and history stays readable.
		if _, err := s.openBlock(ctx, stake); err != nil && !errors.Is(err, ErrStakeClosed) {
			s.log.Error("no block open", "stake", int64(stake), "err", err)
		}
	}
	return s, nil
}

// Close waits for background work and starts no more; the caller closes the
// store after.
func (s *Service) Close() {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.bg.Wait()
}

// Config is the emission being sold.
func (s *Service) Config() Config { return s.cfg }

// openBlock returns the block of stake being sold, moving to the next block
// when it is exhausted and keeping a spare one drawn ahead. Called with mu.
func (s *Service) openBlock(ctx context.Context, stake Cents) (*BlockInfo, error) {
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
	err := s.store.View(ctx, func(tx ReadTx) (err error) {
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
func (s *Service) drawBlock(ctx context.Context, ref BlockRef) (*Block, error) {
	start := time.Now()
	b, err := NewBlock(ref)
	if err != nil {
		return nil, err
	}
	if err := s.store.PutBlock(ctx, b); err != nil {
		return nil, fmt.Errorf("store block %s: %w", ref, err)
	}
	s.log.Info("block generated", "block", ref.String(), "stake", int64(ref.Stake),
		"commitment", b.Commitment.String(), "units", b.Len(), "ms", time.Since(start).Milliseconds())
	return b, nil
}

// drawSpare draws the block after the open one in the background, so that
// no player waits for a block to be drawn.
func (s *Service) drawSpare(st *stakeState, ref BlockRef) {
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
			s.log.Error("background block generation failed", "block", ref.String(), "err", err)
		}
		close(done) // before taking mu: openBlock may be waiting with it held
		s.mu.Lock()
		if st.pending == done {
			st.pending, st.spare = nil, err == nil
		}
		s.mu.Unlock()
	}()
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
	Actor string // who sold: "kiosk", "cli"
}

// MaxBatch is the most units one transaction may sell, well inside the
// store's transaction size limit.
const MaxBatch = 2048

// Sell sells units in one atomic, durable transaction: for each unit the
// funds are checked, the next unit of the open block is taken, the cursor
// advanced, the stake debited and the prize credited, the history record and
// the ledger entry written. It returns once all of it is on disk. A batch
// stops early at the end of a block or when funds run out after at least one
// unit; if not even one unit can be sold, nothing changes and the error says
// why (ErrInsufficientFunds, ErrStakeClosed, ErrStorage...).
func (s *Service) Sell(ctx context.Context, req SellRequest) ([]Sale, error) {
	if err := checkPlayer(req.Player); err != nil {
		return nil, err
	}
	if !ValidStake(req.Stake) {
		return nil, fmt.Errorf("%w: %d cents", ErrBadStake, req.Stake)
	}
	if req.Count < 1 || req.Count > MaxBatch {
		return nil, fmt.Errorf("engine: batch of %d units: choose 1 to %d", req.Count, MaxBatch)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken != nil {
		return nil, s.broken
	}
	open, err := s.openBlock(ctx, req.Stake)
	if err != nil {
		return nil, err
	}
	now := s.Now().UTC()
	var sales []Sale
	var cur Cursor
	err = s.update(ctx, func(tx *journalTx) error {
		sales = slices.Grow(sales[:0], req.Count)
		tx.grow(req.Count)
		w, err := s.wallet(tx, req.Player, now)
		if err != nil {
			return err
		}
		if cur, err = tx.Cursor(open.Ref); err != nil {
			return err
		}
		if cur.Served == 0 {
			tx.noteBlock(*open)
		}
		for i := 0; i < req.Count && cur.Served < open.Size; i++ {
			if w.Balance < req.Stake {
				if i == 0 {
					return fmt.Errorf("%w: balance %s, stake %s", ErrInsufficientFunds, w.Balance, req.Stake)
				}
				break
			}
			t := Ticket{Block: open.Ref, Index: cur.Served}
			u, err := tx.Unit(t)
			if err != nil {
				return err
			}
			before := w.Balance
			l := w.move(LedgerEntry{Time: now, Kind: LedgerSale, Debit: req.Stake, Credit: u.Prize(req.Stake), Ticket: t, Actor: req.Actor})
			w.HasLast, w.Last = true, t
			r := Record{Ticket: t, Player: req.Player, Time: now, Unit: u, BalanceBefore: before,
				BalanceAfter: w.Balance, LedgerSeq: l.Seq, Prev: cur.Head}
			cur.Served, cur.Head = cur.Served+1, r.Hash()
			rv := NewReveal()
			if req.Picks != nil {
				p := req.Picks(i)
				if p[0] < 0 || p[0] >= NumSlots || p[1] < 0 || p[1] >= NumSlots {
					return fmt.Errorf("%w: pucks %v (slots 0 to %d)", ErrReveal, p, NumSlots-1)
				}
				rv = Reveal{Slots: p, Go: [2]bool{u.Drops[0].Dest.Bonus, u.Drops[1].Dest.Bonus}}
			}
			if err := tx.PutRecord(r); err != nil {
				return err
			}
			if err := tx.PutLedger(l); err != nil {
				return err
			}
			sales = append(sales, Sale{Record: r, Reveal: rv})
		}
		if len(sales) == 0 { // only if the cached cursor was stale
			return fmt.Errorf("%w: block %s has no unit left", ErrStorage, open.Ref)
		}
		if req.Picks != nil { // every unit shown at once: the reveals go together
			rvs := make([]Reveal, len(sales))
			for i, s := range sales {
				rvs[i] = s.Reveal
			}
			if err := tx.PutReveals(sales[0].Ticket, rvs); err != nil {
				return err
			}
		}
		if err := tx.PutCursor(open.Ref, cur); err != nil {
			return err
		}
		return tx.PutWallet(w)
	})
	if err != nil {
		s.log.Warn("sale refused", "player", req.Player, "stake", int64(req.Stake), "err", err)
		return nil, err
	}
	open.Cursor = cur
	if s.log.Enabled(ctx, slog.LevelInfo) { // a batch sells thousands: no ticket strings for a silent log
		for _, sale := range sales {
			s.log.Info("unit sold", "ticket", sale.Ticket.String(), "player", sale.Player,
				"stake", int64(sale.Stake()), "prize", int64(sale.Prize()), "balance", int64(sale.BalanceAfter))
		}
	}
	if open.Exhausted() {
		s.log.Info("block exhausted", "block", open.Ref.String(), "seed", fmt.Sprintf("%x", open.Seed))
		if _, err := s.openBlock(ctx, req.Stake); err != nil {
			s.log.Warn("no next block", "stake", int64(req.Stake), "err", err)
		}
	}
	return sales, nil
}

// move appends a ledger entry to the wallet: it fills the entry's player,
// sequence, balance and chain link, and updates the wallet to match.
func (w *Wallet) move(l LedgerEntry) LedgerEntry {
	w.Balance += l.Credit - l.Debit
	w.Seq++
	l.Player, l.Seq, l.Balance, l.Prev = w.Player, w.Seq, w.Balance, w.Head
	w.Head = l.Hash()
	return l
}

// wallet reads a player's wallet inside a write transaction, opening the
// demo wallet with its demo funds on first use.
func (s *Service) wallet(tx Tx, player string, now time.Time) (Wallet, error) {
	w, ok, err := tx.Wallet(player)
	if err != nil || ok {
		return w, err
	}
	w = Wallet{Player: player}
	if player == DemoPlayer && s.cfg.DemoFunds > 0 {
		l := w.move(LedgerEntry{Time: now, Kind: LedgerGrant, Credit: s.cfg.DemoFunds, Actor: "demo"})
		if err := tx.PutLedger(l); err != nil {
			return w, err
		}
		if err := tx.PutWallet(w); err != nil {
			return w, err
		}
		s.log.Info("demo wallet opened", "player", player, "amount", int64(s.cfg.DemoFunds))
	}
	return w, nil
}

func checkPlayer(p string) error {
	if p == "" || len(p) > 64 {
		return fmt.Errorf("%w: %q (1 to 64 characters)", ErrBadPlayer, p)
	}
	for _, r := range p {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return fmt.Errorf("%w: %q (no spaces or control characters)", ErrBadPlayer, p)
		}
	}
	return nil
}

// Balance is the player's available funds (opening the demo wallet if needed).
func (s *Service) Balance(ctx context.Context, player string) (Cents, error) {
	w, err := s.Wallet(ctx, player)
	return w.Balance, err
}

// Wallet reads the player's wallet; a player never seen has an empty one.
func (s *Service) Wallet(ctx context.Context, player string) (Wallet, error) {
	if err := checkPlayer(player); err != nil {
		return Wallet{}, err
	}
	var w Wallet
	var ok bool
	err := s.store.View(ctx, func(tx ReadTx) (err error) {
		w, ok, err = tx.Wallet(player)
		return err
	})
	if err != nil || ok || player != DemoPlayer {
		if !ok {
			w = Wallet{Player: player}
		}
		return w, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	err = s.update(ctx, func(tx *journalTx) (err error) {
		w, err = s.wallet(tx, player, s.Now().UTC())
		return err
	})
	return w, err
}

// Credit adds amount to the player's funds (cash-in) and returns the entry.
func (s *Service) Credit(ctx context.Context, player string, amount Cents, actor string) (LedgerEntry, error) {
	return s.moveFunds(ctx, player, LedgerEntry{Kind: LedgerCredit, Credit: amount, Actor: actor}, nil)
}

// Payout takes amount from the player's funds (cash-out); never below zero.
func (s *Service) Payout(ctx context.Context, player string, amount Cents, actor string) (LedgerEntry, error) {
	return s.moveFunds(ctx, player, LedgerEntry{Kind: LedgerPayout, Debit: amount, Actor: actor}, nil)
}

// moveFunds writes one ledger entry; also, if set, writes more in the same
// transaction (the operator log's record of the movement).
func (s *Service) moveFunds(ctx context.Context, player string, l LedgerEntry, also func(Tx, LedgerEntry) error) (LedgerEntry, error) {
	if err := checkPlayer(player); err != nil {
		return l, err
	}
	if amount := l.Credit + l.Debit; amount <= 0 || amount > maxAmount {
		return l, fmt.Errorf("%w: %s", ErrBadAmount, amount)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.update(ctx, func(tx *journalTx) error {
		w, err := s.wallet(tx, player, s.Now().UTC())
		if err != nil {
			return err
		}
		if w.Balance < l.Debit {
			return fmt.Errorf("%w: balance %s, payout %s", ErrInsufficientFunds, w.Balance, l.Debit)
		}
		l.Time = s.Now().UTC()
		l = w.move(l)
		if err := tx.PutLedger(l); err != nil {
			return err
		}
		if also != nil {
			if err := also(tx, l); err != nil {
				return err
			}
		}
		return tx.PutWallet(w)
	})
	if err != nil {
		s.log.Warn("funds movement refused", "player", player, "kind", l.Kind.String(), "err", err)
		return l, err
	}
	s.log.Info("funds moved", "player", player, "kind", l.Kind.String(), "debit", int64(l.Debit),
		"credit", int64(l.Credit), "balance", int64(l.Balance), "actor", l.Actor)
	return l, nil
}
