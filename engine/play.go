package engine

import (
	"context"
	"errors"
	"fmt"
)

// Pick records the slot the player chose for the next drop of ticket t
// (drop 0 or 1) and returns the sale as it now stands. The outcome does not
// depend on the slot; only the animation starts from it.
func (s *Service) Pick(ctx context.Context, t Ticket, drop, slot int) (Sale, error) {
	if slot < 0 || slot >= NumSlots {
		return Sale{}, fmt.Errorf("%w: slot %d (0 to %d)", ErrReveal, slot, NumSlots-1)
	}
	return s.step(ctx, t, Step{StepPick, drop}, func(rv *Reveal) { rv.Slots[drop] = slot })
}

// Go records the GO of the BONUS step of drop (0 or 1) of ticket t.
func (s *Service) Go(ctx context.Context, t Ticket, drop int) (Sale, error) {
	return s.step(ctx, t, Step{StepGo, drop}, func(rv *Reveal) { rv.Go[drop] = true })
}

// step persists one reveal step if it is the one the unit is at.
func (s *Service) step(ctx context.Context, t Ticket, want Step, apply func(*Reveal)) (Sale, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var sale Sale
	err := s.update(ctx, func(tx *journalTx) error {
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
	s.log.Info("reveal step", "ticket", t.String(), "drop", want.Drop, "step", stepName[want.Kind],
		"slot", sale.Reveal.Slots[want.Drop], "done", sale.Done())
	return sale, nil
}

var stepName = map[StepKind]string{StepPick: "pick", StepGo: "go", StepDone: "done"}

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

// Lookup reads the unit sold under ticket t.
func (s *Service) Lookup(ctx context.Context, t Ticket) (sale Sale, err error) {
	err = s.store.View(ctx, func(tx ReadTx) error {
		sale, err = readSale(tx, t)
		return err
	})
	return sale, err
}

// Last is the player's last unit, whatever the size of the history: the one
// article 4.2 sends a player to when the game was not seen to its end.
func (s *Service) Last(ctx context.Context, player string) (sale Sale, ok bool, err error) {
	err = s.store.View(ctx, func(tx ReadTx) error {
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
func (s *Service) Unfinished(ctx context.Context, player string) (Sale, bool, error) {
	sale, ok, err := s.Last(ctx, player)
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
func (s *Service) History(ctx context.Context, player string, before uint64, limit int) (sales []Sale, next uint64, err error) {
	err = s.store.View(ctx, func(tx ReadTx) error {
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
func (s *Service) LedgerPage(ctx context.Context, player string, limit int) (entries []LedgerEntry, err error) {
	err = s.store.View(ctx, func(tx ReadTx) error {
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
func (s *Service) Blocks(ctx context.Context) (blocks []BlockInfo, err error) {
	err = s.store.View(ctx, func(tx ReadTx) error {
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
