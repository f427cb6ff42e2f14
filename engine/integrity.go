package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
)

// The integrity checks of the single writer: what every change reads back
// at once, and what the start verifies before the terminal may sell.

// verifyTouched reads back the chain heads a transaction moved: the cursor
// of each block it sold from must hash its last record, each wallet it moved
// must hash its last ledger entry. A store returning other bytes than those
// it was given is found at once, not at the next audit. Each record is read
// once: a sale's last record is both its block's and its player's. The
// commit is done: the check is not skipped when the caller's context ends
// meanwhile (a kiosk told to stop), which would put the terminal out of
// service for nothing.
func (w *writer) verifyTouched(ctx context.Context, e JournalEntry) error {
	var problems []string
	err := w.store.View(context.WithoutCancel(ctx), func(tx ReadTx) error {
		read := map[Ticket]Record{}
		seen := map[BlockRef]bool{}
		for _, r := range e.Records {
			if !seen[r.Ticket.Block] {
				seen[r.Ticket.Block] = true
				problems = append(problems, checkCursor(tx, r.Ticket.Block, read)...)
			}
		}
		problems = append(problems, checkPackCursors(tx, e, read)...)
		players := map[string]bool{}
		for _, l := range e.Ledger {
			if !players[l.Player] {
				players[l.Player] = true
				problems = append(problems, checkWallet(tx, l.Player, read)...)
			}
		}
		return nil
	})
	if err != nil {
		problems = append(problems, fmt.Sprintf("reading back the sale: %v", err))
	}
	return w.outOfService(false, problems...)
}

// checkCursor: the block's cursor hashes its last record, which goes into
// read if given.
func checkCursor(tx ReadTx, ref BlockRef, read map[Ticket]Record) []string {
	cur, err := tx.Cursor(ref)
	if err != nil {
		return []string{fmt.Sprintf("block %s: cursor unreadable: %v", ref, err)}
	}
	if cur.Served == 0 {
		return nil
	}
	last := Ticket{Block: ref, Index: cur.Served - 1}
	r, err := tx.Record(last)
	switch {
	case err != nil:
		return []string{fmt.Sprintf("ticket %s: last record of block %s unreadable: %v", last, ref, err)}
	case r.Hash() != cur.Head:
		return []string{fmt.Sprintf("ticket %s: last record of block %s does not match the chain head", last, ref)}
	}
	if read != nil {
		read[last] = r
	}
	return nil
}

// checkNothingBeyond: no record lies beyond the block's cursor. (Checked at
// start: a sale writes below the cursor it moves.)
func checkNothingBeyond(tx ReadTx, b BlockInfo) []string {
	if _, err := tx.Record(Ticket{Block: b.Ref, Index: b.Cursor.Served}); !errors.Is(err, ErrUnknownTicket) {
		return []string{fmt.Sprintf("block %s: a record lies beyond the cursor (%d served)", b.Ref, b.Cursor.Served)}
	}
	return nil
}

// checkWallet: the wallet hashes its last ledger entry, and its last unit
// is the player's (read from the store unless in read).
func checkWallet(tx ReadTx, player string, read map[Ticket]Record) []string {
	w, ok, err := tx.Wallet(player)
	if err != nil || !ok {
		return []string{fmt.Sprintf("player %s: wallet unreadable (found %v): %v", player, ok, err)}
	}
	var problems []string
	var last *LedgerEntry
	err = tx.Ledger(player, w.Seq, w.Seq, func(l LedgerEntry) error { last = &l; return nil })
	switch {
	case err != nil:
		problems = append(problems, fmt.Sprintf("player %s: ledger unreadable: %v", player, err))
	case w.Seq > 0 && (last == nil || last.Hash() != w.Head || last.Balance != w.Balance):
		problems = append(problems, fmt.Sprintf("player %s: wallet does not match its last ledger entry %d", player, w.Seq))
	}
	if w.HasLast {
		r, ok := read[w.Last]
		var err error
		if !ok {
			r, err = tx.Record(w.Last)
		}
		if err != nil || r.Player != player {
			problems = append(problems, fmt.Sprintf("ticket %s: last unit of %s unreadable or not theirs: %v", w.Last, player, err))
		}
	}
	return problems
}

// checkAtStart verifies every chain head and reconciles the store with the
// journal: a store one entry ahead (crash between commit and append) has the
// journal completed from it; a store behind its journal lost acknowledged
// writes, and the terminal goes out of service until `recover`.
func (w *writer) checkAtStart(ctx context.Context) error {
	var problems []string
	var behind bool
	if w.journal != nil {
		problems, behind = w.reconcileJournal(ctx)
	}
	err := w.store.View(ctx, func(tx ReadTx) error {
		blocks, err := tx.Blocks()
		if err != nil {
			return err
		}
		for _, b := range blocks {
			problems = append(problems, checkCursor(tx, b.Ref, nil)...)
			problems = append(problems, checkNothingBeyond(tx, b)...)
		}
		return tx.Wallets(func(w Wallet) error {
			problems = append(problems, checkWallet(tx, w.Player, nil)...)
			return nil
		})
	})
	if err != nil {
		problems = append(problems, fmt.Sprintf("the store cannot be read: %v", err))
	}
	return w.outOfService(behind, problems...)
}

// reconcileJournal brings the store and the journal to the same entry. The
// two are written together, so a crash can leave either one entry ahead:
// a store ahead completes the journal with the entry read back from it; a journal
// ahead has its entry replayed into the store (the change was never shown,
// or the store lost it: either way it is kept). Further apart, the store
// lost acknowledged writes or data was modified: out of service.
func (w *writer) reconcileJournal(ctx context.Context) (problems []string, storeBehind bool) {
	var mark JournalMark
	var ok bool
	err := w.store.View(ctx, func(tx ReadTx) (err error) {
		mark, ok, err = tx.Journal()
		return err
	})
	if err != nil {
		return []string{fmt.Sprintf("the store's journal position cannot be read: %v", err)}, false
	}
	jh, sh := w.journal.Head(), mark.Head
	last, known := w.journal.Last()
	switch {
	case sh == jh:
	case ok && sh.Seq == jh.Seq+1 && mark.Entry.Prev == jh.Hash:
		var entry JournalEntry
		err := w.store.View(ctx, func(tx ReadTx) (err error) {
			entry, err = mark.Rebuild(tx)
			return err
		})
		if err == nil {
			err = w.journal.Append(entry)
		}
		if err != nil {
			return []string{fmt.Sprintf("the journal lacks entry %d and cannot be completed: %v", sh.Seq, err)}, false
		}
		w.log.Warn().Uint64("seq", sh.Seq).Msg("journal completed from the store")
	case known && last.Seq == sh.Seq+1 && last.Prev == sh.Hash:
		err := restoreBlocks(ctx, w.store, last, w.log)
		if err == nil {
			err = w.store.Update(ctx, func(tx Tx) error {
				if err := replay(tx, last); err != nil {
					return err
				}
				return tx.PutJournal(MarkOf(last))
			})
		}
		if err != nil {
			return []string{fmt.Sprintf("the store lacks journal entry %d and cannot take it: %v", last.Seq, err)}, false
		}
		w.log.Warn().Uint64("seq", last.Seq).Msg("store completed from the journal")
	case sh.Seq < jh.Seq:
		return []string{fmt.Sprintf("the store is behind its journal (store at entry %d, journal at %d): acknowledged sales were lost by the store", sh.Seq, jh.Seq)}, true
	default:
		return []string{fmt.Sprintf("the journal (entry %d) and the store (entry %d) disagree: data was modified or the journal lost entries", jh.Seq, sh.Seq)}, false
	}
	w.jhead = w.journal.Head()
	return nil, false
}

// checkPackCursors: each pack cursor the entry wrote reads back as written
// and hashes the entry's last record of the pack, which goes into read.
func checkPackCursors(tx ReadTx, e JournalEntry, read map[Ticket]Record) []string {
	var problems []string
	for _, st := range e.Settings {
		serial, ok := strings.CutPrefix(st.Name, packCursorPrefix)
		if !ok {
			continue
		}
		v, ok, err := tx.Setting(st.Name)
		if err != nil || !ok || !bytes.Equal(v, st.Value) {
			problems = append(problems, fmt.Sprintf("pack %s: cursor reads back otherwise (%v)", serial, err))
			continue
		}
		c, err := decodePackCursor(v)
		if err != nil || !c.HasLast {
			continue
		}
		for i := len(e.Records) - 1; i >= 0; i-- {
			if t := e.Records[i].Ticket; t.Index == c.Last && e.Records[i].Hash() == c.Head {
				r, err := tx.Record(t)
				if err != nil || r.Hash() != c.Head {
					problems = append(problems, fmt.Sprintf("ticket %s: last record of pack %s does not match the chain head (%v)", t, serial, err))
				} else {
					read[t] = r
				}
				break
			}
		}
	}
	return problems
}
