package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/rs/zerolog"
)

// recoverBatch is how many journal items (records, ledger entries, reveals)
// go into one store transaction while recovering; a bigger entry (a batch
// sale) goes alone, as it was committed.
const recoverBatch = 1024

// Recover rebuilds history, wallets, cursors and reveal progress from the
// journal into an empty store: each block sold from is drawn again from its
// seed (and must match its commitment), then every entry is replayed in
// order, each checked against the chains it extends. It returns the number
// of entries replayed.
func Recover(ctx context.Context, j Journal, store Store, log zerolog.Logger) (int, error) {
	var pending []JournalEntry
	size, replayed := 0, 0
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		err := store.Update(ctx, func(tx Tx) error {
			for _, e := range pending {
				if err := replay(tx, e); err != nil {
					return fmt.Errorf("journal entry %d: %w", e.Seq, err)
				}
			}
			return tx.PutJournal(MarkOf(pending[len(pending)-1]))
		})
		replayed += len(pending)
		pending, size = pending[:0], 0
		return err
	}
	err := j.Entries(func(e JournalEntry) error {
		if len(e.Blocks) > 0 {
			if err := flush(); err != nil { // the blocks' sales follow them
				return err
			}
			if err := restoreBlocks(ctx, store, e, log); err != nil {
				return err
			}
		}
		items := len(e.Records) + len(e.Ledger) + len(e.Reveals) + len(e.Events) + len(e.Settings)
		if size+items > recoverBatch { // keep each transaction inside the store's size limit
			if err := flush(); err != nil {
				return err
			}
		}
		pending = append(pending, e)
		size += items
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return replayed, fmt.Errorf("recover: %w", err)
	}
	log.Info().Int("entries", replayed).Msg("store recovered from the journal")
	return replayed, nil
}

// restoreBlocks draws again, from their seeds, the blocks a journal entry
// starts selling that the store lacks, checking each against its commitment.
func restoreBlocks(ctx context.Context, store Store, e JournalEntry, log zerolog.Logger) error {
	var have []BlockInfo
	if err := store.View(ctx, func(tx ReadTx) (err error) { have, err = tx.Blocks(); return err }); err != nil {
		return err
	}
	for _, b := range e.Blocks {
		if slices.ContainsFunc(have, func(h BlockInfo) bool { return h.Ref == b.Ref }) {
			continue
		}
		blk := GenerateBlock(b.Ref, b.Seed)
		if blk.Commitment != b.Commitment || uint32(blk.Len()) != b.Size {
			return fmt.Errorf("%w: journal entry %d: block %s does not match its commitment", ErrCorrupt, e.Seq, b.Ref)
		}
		if err := store.PutBlock(ctx, blk); err != nil {
			return fmt.Errorf("store block %s: %w", b.Ref, err)
		}
		log.Info().Str("block", b.Ref.String()).Str("commitment", b.Commitment.String()).Msg("block restored from its seed")
	}
	return nil
}

// replay writes one journal entry's changes, extending the store's chains.
// Cursors and wallets are written once per entry, as the sale wrote them.
func replay(tx Tx, e JournalEntry) error {
	packs, err := entryPacks(tx, e)
	if err != nil {
		return err
	}
	cursors := map[BlockRef]Cursor{}
	for _, r := range e.Records {
		if h := packCovering(packs, r.Ticket); h != nil { // a fleet's pack: its own chain
			if u, err := h.body.Unit(r.Ticket.Index - h.First); err != nil || r.Prev != h.cur.Head || u != r.Unit {
				return fmt.Errorf("%w: ticket %s does not follow pack %s's history or its unit (%v)", ErrCorrupt, r.Ticket, h.Serial, err)
			}
			if err := tx.PutRecord(r); err != nil {
				return err
			}
			h.cur.Head = r.Hash()
			continue
		}
		ref := r.Ticket.Block
		cur, seen := cursors[ref]
		if !seen {
			var err error
			if cur, err = tx.Cursor(ref); err != nil {
				return err
			}
		}
		if r.Ticket.Index != cur.Served || r.Prev != cur.Head {
			return fmt.Errorf("%w: ticket %s does not follow the block's history (%d served)", ErrCorrupt, r.Ticket, cur.Served)
		}
		if u, err := tx.Unit(r.Ticket); err != nil || u != r.Unit {
			return fmt.Errorf("%w: ticket %s: outcome differs from the block's unit (%v)", ErrCorrupt, r.Ticket, err)
		}
		if err := tx.PutRecord(r); err != nil {
			return err
		}
		cursors[ref] = Cursor{Served: cur.Served + 1, Head: r.Hash()}
	}
	wallets := map[string]Wallet{}
	for _, l := range e.Ledger {
		w, seen := wallets[l.Player]
		if !seen {
			var ok bool
			var err error
			if w, ok, err = tx.Wallet(l.Player); err != nil {
				return err
			} else if !ok {
				w = Wallet{Player: l.Player}
			}
		}
		if l.Seq != w.Seq+1 || l.Prev != w.Head || l.Balance != w.Balance+l.Credit-l.Debit {
			return fmt.Errorf("%w: ledger entry %d of %s does not follow the wallet", ErrCorrupt, l.Seq, l.Player)
		}
		w.Balance, w.Seq, w.Head = l.Balance, l.Seq, l.Hash()
		if l.Kind == LedgerSale {
			w.HasLast, w.Last = true, l.Ticket
		}
		if err := tx.PutLedger(l); err != nil {
			return err
		}
		wallets[l.Player] = w
	}
	for ref, cur := range cursors {
		if err := tx.PutCursor(ref, cur); err != nil {
			return err
		}
	}
	for _, w := range wallets {
		if err := tx.PutWallet(w); err != nil {
			return err
		}
	}
	for _, rv := range e.Reveals {
		if err := tx.PutReveal(rv.Ticket, rv.Reveal); err != nil {
			return err
		}
	}
	for _, ev := range e.Events {
		if err := tx.PutOperatorEvent(ev); err != nil {
			return err
		}
	}
	for _, st := range e.Settings {
		if err := tx.PutSetting(st.Name, st.Value); err != nil {
			return err
		}
	}
	return nil
}

// entryPacks are the fleet's packs a journal entry sells from (those whose
// cursor it moves), as the store holds them before it.
func entryPacks(tx ReadTx, e JournalEntry) ([]*packInHand, error) {
	if len(e.Records) == 0 {
		return nil, nil
	}
	var packs []*packInHand
	for _, st := range e.Settings {
		if serial, ok := strings.CutPrefix(st.Name, packCursorPrefix); ok {
			h, err := readPackInHand(tx, serial)
			if err != nil {
				return nil, fmt.Errorf("pack %s: %w", serial, err)
			}
			packs = append(packs, h)
		}
	}
	return packs, nil
}
