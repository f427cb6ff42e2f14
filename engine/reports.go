package engine

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Reports reads what was sold and moved, for players, attendants and
// auditors: a ticket's unit, a player's history and ledger, the players,
// the blocks and where their sales stand. It never changes anything.
type Reports struct {
	w        *writer
	emission uint16  // the emission being sold
	central  Central // a kiosk of a fleet: look-ups of other kiosks' units
}

func readSale(tx ReadTx, t Ticket) (Sale, error) {
	r, err := tx.Record(t)
	if err != nil {
		return Sale{}, err
	}
	rv, ok, err := tx.Reveal(t)
	if !ok {
		rv = NewReveal()
	}
	return Sale{Record: r, Reveal: rv}, err
}

// Lookup reads the unit sold under ticket t. A kiosk of a fleet asks the
// central for a unit another kiosk sold (Sale.SoldBy names it).
func (r *Reports) Lookup(ctx context.Context, t Ticket) (sale Sale, err error) {
	err = r.w.view(ctx, func(tx ReadTx) error {
		sale, err = readSale(tx, t)
		return err
	})
	if r.central == nil || !errors.Is(err, ErrUnknownTicket) {
		return sale, err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	fs, cerr := r.central.LookupTicket(ctx, t)
	switch {
	case errors.Is(cerr, ErrUnknownTicket):
		return sale, cerr
	case cerr != nil:
		return sale, fmt.Errorf("%w (not sold here; the central could not be asked: %w)", err, cerr)
	}
	rv := NewReveal()
	if fs.Revealed { // shown to its end where it was sold; the pucks chosen are not kept centrally
		rv = Reveal{Slots: [2]int{0, 0}, Go: [2]bool{fs.Unit.Drops[0].Dest.Bonus, fs.Unit.Drops[1].Dest.Bonus}}
	}
	return Sale{Record: Record{Ticket: t, Player: fs.Player, Time: fs.Time, Unit: fs.Unit}, Reveal: rv, SoldBy: fs.Kiosk}, nil
}

// Last is the player's last unit, whatever the size of the history: the one
// article 4.2 sends a player to when the game was not seen to its end.
func (r *Reports) Last(ctx context.Context, player string) (sale Sale, ok bool, err error) {
	err = r.w.view(ctx, func(tx ReadTx) error {
		w, found, err := tx.Wallet(player)
		if err != nil || !found || !w.HasLast {
			return err
		}
		sale, err = readSale(tx, w.Last)
		ok = err == nil
		return err
	})
	return sale, ok, err
}

// Unfinished is the player's last unit if its reveal did not reach the end
// (window closed, crash, power cut): the kiosk offers to resume it.
func (r *Reports) Unfinished(ctx context.Context, player string) (Sale, bool, error) {
	sale, ok, err := r.Last(ctx, player)
	if err != nil || !ok || sale.Done() {
		return Sale{}, false, err
	}
	return sale, true, nil
}

// errStop ends an iteration early; it never leaves the engine.
var errStop = errors.New("stop")

// History returns up to limit of the player's units, newest first, sold
// before ledger entry `before` (0: from the newest). next is the value of
// `before` for the following page, 0 when there is none.
func (r *Reports) History(ctx context.Context, player string, before uint64, limit int) (sales []Sale, next uint64, err error) {
	err = r.w.view(ctx, func(tx ReadTx) error {
		w, ok, err := tx.Wallet(player)
		if err != nil || !ok {
			return err
		}
		from := w.Seq
		if before != 0 && before-1 < from {
			from = before - 1
		}
		if from == 0 {
			return nil
		}
		err = tx.Ledger(player, from, 1, func(l LedgerEntry) error {
			if len(sales) == limit {
				next = l.Seq + 1
				return errStop
			}
			if l.Kind != LedgerSale {
				return nil
			}
			sale, err := readSale(tx, l.Ticket)
			if err != nil {
				return fmt.Errorf("history of %s, entry %d: %w", player, l.Seq, err)
			}
			sales = append(sales, sale)
			return nil
		})
		if errors.Is(err, errStop) {
			return nil
		}
		return err
	})
	return sales, next, err
}

// LedgerPage returns up to limit of the player's ledger entries, newest first.
func (r *Reports) LedgerPage(ctx context.Context, player string, limit int) (entries []LedgerEntry, err error) {
	err = r.w.view(ctx, func(tx ReadTx) error {
		w, ok, err := tx.Wallet(player)
		if err != nil || !ok {
			return err
		}
		entries, err = firstOf(limit, func(fn func(LedgerEntry) error) error { return tx.Ledger(player, w.Seq, 1, fn) })
		return err
	})
	return entries, err
}

// firstOf collects up to limit of the items a scan passes to its function,
// stopping the scan there.
func firstOf[T any](limit int, scan func(fn func(T) error) error) ([]T, error) {
	var items []T
	if limit <= 0 {
		return nil, nil
	}
	err := scan(func(item T) error {
		items = append(items, item)
		if len(items) == limit {
			return errStop
		}
		return nil
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	return items, err
}

// Blocks lists the emission's stored blocks with their progress. The seed of
// a block is only given once the block is exhausted (commit, then reveal).
func (r *Reports) Blocks(ctx context.Context) (blocks []BlockInfo, err error) {
	err = r.w.view(ctx, func(tx ReadTx) error {
		blocks, err = tx.Blocks()
		return err
	})
	for i := range blocks {
		if !blocks[i].Exhausted() {
			blocks[i].Seed = Seed{}
		}
	}
	return blocks, err
}

// Players lists the players that have a wallet, in order.
func (r *Reports) Players(ctx context.Context) (players []string, err error) {
	err = r.w.view(ctx, func(tx ReadTx) error {
		return tx.Wallets(func(w Wallet) error { players = append(players, w.Player); return nil })
	})
	return players, err
}

// BlockStatus is where a block's sales stand: what an attendant checks and
// an auditor reconciles. While the block sells it says how many units are
// sold and left, never what they paid or what is left in them: the prize
// table is public, so the prizes paid so far would tell the value left in
// the block, and whoever knew that a top prize is left could buy the rest.
// The closing figures (Paid, Tally, Seed) are filled once every unit is sold.
type BlockStatus struct {
	Ref        BlockRef
	Size       uint32
	Served     uint32
	Left       uint32
	Sales      Cents // stakes of the units sold so far
	Commitment Hash
	// Open: the block its stake sells now (the first not exhausted of the
	// emission being sold).
	Open bool

	Paid  Cents // prizes of the whole block, once exhausted
	Tally Tally // its units per line of PrizeTable, once exhausted
	Seed  Seed  // its seed, once exhausted (commit, then reveal)
}

// Exhausted reports whether every unit was sold: the closing figures and
// the seed are then public.
func (b BlockStatus) Exhausted() bool { return b.Served >= b.Size }

// Ratio is the block's payout, prizes over stakes, once exhausted (0 before).
func (b BlockStatus) Ratio() float64 {
	if !b.Exhausted() || b.Sales == 0 {
		return 0
	}
	return float64(b.Paid) / float64(b.Sales)
}

// TablePayoutRatio is the share of a whole block's sales that its prizes
// pay: 70 % for the règlement's table.
func TablePayoutRatio() float64 {
	var won int64
	for _, t := range PrizeTable {
		won += t.Multiple * int64(t.Count)
	}
	return float64(won) / BlockSize
}

// BlockReport lists every stored block of the emission: units served and
// left, stakes taken, commitment, whether it is open; for an exhausted
// block, its closing figures too, read back whole (a few milliseconds each).
func (r *Reports) BlockReport(ctx context.Context) ([]BlockStatus, error) {
	blocks, err := r.Blocks(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]BlockStatus, 0, len(blocks))
	open := map[Cents]bool{}
	for _, info := range blocks {
		stake := info.Ref.Stake
		st := BlockStatus{Ref: info.Ref, Size: info.Size, Served: min(info.Cursor.Served, info.Size), Commitment: info.Commitment}
		st.Left = st.Size - st.Served
		st.Sales = Cents(st.Served) * stake
		if !st.Exhausted() && info.Ref.Emission == r.emission && !open[stake] {
			st.Open, open[stake] = true, true
		}
		if st.Exhausted() {
			if err := r.close(ctx, &st, info); err != nil {
				return nil, err
			}
		}
		out = append(out, st)
	}
	return out, nil
}

// close fills the closing figures of an exhausted block.
func (r *Reports) close(ctx context.Context, st *BlockStatus, info BlockInfo) error {
	b, err := r.w.store.LoadBlock(ctx, info.Ref)
	if err != nil {
		return fmt.Errorf("block report %s: %w", info.Ref, err)
	}
	if st.Tally, err = TallyUnits(b.Units); err != nil {
		return fmt.Errorf("block report %s: %w", info.Ref, err)
	}
	for t, n := range st.Tally {
		st.Paid += PrizeTable[t].Prize(info.Ref.Stake) * Cents(n)
	}
	st.Seed = info.Seed
	return nil
}
