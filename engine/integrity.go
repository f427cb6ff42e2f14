package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// journalTx passes a transaction's writes to the store and notes them for
// the journal entry of the transaction.
type journalTx struct {
	Tx
	entry JournalEntry
}

func (t *journalTx) PutRecord(r Record) error {
	t.entry.Records = append(t.entry.Records, r)
	return t.Tx.PutRecord(r)
}

func (t *journalTx) PutLedger(l LedgerEntry) error {
	t.entry.Ledger = append(t.entry.Ledger, l)
	return t.Tx.PutLedger(l)
}

func (t *journalTx) PutReveal(tk Ticket, rv Reveal) error {
	t.entry.Reveals = append(t.entry.Reveals, JournalReveal{Ticket: tk, Reveal: rv})
	return t.Tx.PutReveal(tk, rv)
}

func (t *journalTx) PutReveals(first Ticket, rvs []Reveal) error {
	for i, rv := range rvs {
		t.entry.Reveals = append(t.entry.Reveals, JournalReveal{Ticket: first.Plus(uint32(i)), Reveal: rv})
	}
	return t.Tx.PutReveals(first, rvs)
}

func (t *journalTx) PutOperatorEvent(e OperatorEvent) error {
	t.entry.Events = append(t.entry.Events, e)
	return t.Tx.PutOperatorEvent(e)
}

func (t *journalTx) PutSetting(name string, v []byte) error {
	t.entry.Settings = append(t.entry.Settings, JournalSetting{Name: name, Value: v})
	return t.Tx.PutSetting(name, v)
}

// noteBlock records that the transaction starts selling block b, whose seed
// the journal must keep to draw the block again if the store loses it.
func (t *journalTx) noteBlock(b BlockInfo) {
	b.Cursor = Cursor{}
	t.entry.Blocks = append(t.entry.Blocks, b)
}

// grow makes room for n sales in the entry: a batch sells thousands.
func (t *journalTx) grow(n int) {
	t.entry.Records = slices.Grow(t.entry.Records, n)
	t.entry.Ledger = slices.Grow(t.entry.Ledger, n)
	t.entry.Reveals = slices.Grow(t.entry.Reveals, n)
}

func (t *journalTx) empty() bool {
	e := t.entry
	return len(e.Records)+len(e.Ledger)+len(e.Reveals)+len(e.Events)+len(e.Settings) == 0
}

// update runs fn in one durable store transaction and appends what it wrote
// to the journal, and reads back what it touched to check it. The journal's
// write and sync run while the store commits and the check reads, so a
// change costs the time of one sync, not two; if the commit fails, the entry
// is taken back. Called with mu held. A terminal out of service changes
// nothing.
func (s *Service) update(ctx context.Context, fn func(*journalTx) error) error {
	if s.broken != nil {
		return s.broken
	}
	var entry JournalEntry
	var appended chan error
	err := s.store.Update(ctx, func(tx Tx) error {
		jt := &journalTx{Tx: tx}
		if err := fn(jt); err != nil {
			return err
		}
		entry = jt.entry
		if s.journal == nil || jt.empty() {
			return nil
		}
		entry.Seq, entry.Prev, entry.Time = s.jhead.Seq+1, s.jhead.Hash, s.Now().UTC()
		if err := tx.PutJournal(MarkOf(entry)); err != nil {
			return err
		}
		appended = make(chan error, 1)
		go func(e JournalEntry) { appended <- s.journal.Append(e) }(entry)
		return nil
	})
	var verr error
	if err == nil {
		verr = s.verifyTouched(ctx, entry) // while the journal syncs
	}
	var jerr error
	if appended != nil {
		jerr = <-appended
	}
	switch {
	case err != nil && appended != nil && jerr == nil:
		if rerr := s.journal.Retract(entry.Head()); rerr != nil {
			return s.outOfService(fmt.Sprintf("the store refused a commit (%v) whose journal entry %d cannot be taken back (%v)", err, entry.Seq, rerr))
		}
		return err
	case err != nil:
		return err
	case jerr != nil:
		return s.outOfService(fmt.Sprintf("the journal cannot be written (%v); entry %d is in the store only", jerr, entry.Seq))
	}
	if appended != nil {
		s.jhead = s.journal.Head() // the entry's, hashed by Append: not encoded a third time
	}
	return verr
}

// record writes what must be kept even when the terminal is out of service
// (the operator log, the PIN and its lockout): journaled like any change
// while the terminal is healthy, in the store alone when it is not (the
// journal may be what is broken). Called with mu held.
func (s *Service) record(ctx context.Context, fn func(Tx) error) error {
	if s.broken != nil {
		return s.store.Update(ctx, fn)
	}
	return s.update(ctx, func(tx *journalTx) error { return fn(tx) })
}

// outOfService stops all changes: every sale, reveal step and movement of
// funds returns the error until the program restarts healthy. Reads go on,
// so the operator can see what is wrong and players their last unit.
func (s *Service) outOfService(reason string) error {
	err := fmt.Errorf("%w: %s", ErrOutOfService, reason)
	if s.broken == nil {
		s.broken = err
	} else {
		s.broken = fmt.Errorf("%w; %s", s.broken, reason)
	}
	s.log.Error("terminal out of service", "reason", reason)
	return s.broken
}

// outOfServiceIf puts the terminal out of service if problems were found.
func (s *Service) outOfServiceIf(problems []string) error {
	if len(problems) == 0 {
		return nil
	}
	return s.outOfService(strings.Join(problems, "; "))
}

// Health is nil while the terminal may sell, or why it may not.
func (s *Service) Health() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.broken
}

// verifyTouched reads back the chain heads a transaction moved: the cursor
// of each block it sold from must hash its last record, each wallet it moved
// must hash its last ledger entry. A store returning other bytes than those
// it was given is found at once, not at the next audit. Each record is read
// once: a sale's last record is both its block's and its player's.
func (s *Service) verifyTouched(ctx context.Context, e JournalEntry) error {
	var problems []string
	err := s.store.View(ctx, func(tx ReadTx) error {
		read := map[Ticket]Record{}
		seen := map[BlockRef]bool{}
		for _, r := range e.Records {
			if !seen[r.Ticket.Block] {
				seen[r.Ticket.Block] = true
				problems = append(problems, checkCursor(tx, r.Ticket.Block, read)...)
			}
		}
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
	return s.outOfServiceIf(problems)
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
func (s *Service) checkAtStart(ctx context.Context) error {
	var problems []string
	if s.journal != nil {
		problems = append(problems, s.reconcileJournal(ctx)...)
	}
	err := s.store.View(ctx, func(tx ReadTx) error {
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
	return s.outOfServiceIf(problems)
}

// reconcileJournal brings the store and the journal to the same entry. The
// two are written together, so a crash can leave either one entry ahead:
// a store ahead completes the journal with the entry read back from it; a journal
// ahead has its entry replayed into the store (the change was never shown,
// or the store lost it: either way it is kept). Further apart, the store
// lost acknowledged writes or data was modified: out of service.
func (s *Service) reconcileJournal(ctx context.Context) []string {
	var mark JournalMark
	var ok bool
	err := s.store.View(ctx, func(tx ReadTx) (err error) {
		mark, ok, err = tx.Journal()
		return err
	})
	if err != nil {
		return []string{fmt.Sprintf("the store's journal position cannot be read: %v", err)}
	}
	jh, sh := s.journal.Head(), mark.Head
	last, known := s.journal.Last()
	switch {
	case sh == jh:
	case ok && sh.Seq == jh.Seq+1 && mark.Entry.Prev == jh.Hash:
		var entry JournalEntry
		err := s.store.View(ctx, func(tx ReadTx) (err error) {
			entry, err = mark.Rebuild(tx)
			return err
		})
		if err == nil {
			err = s.journal.Append(entry)
		}
		if err != nil {
			return []string{fmt.Sprintf("the journal lacks entry %d and cannot be completed: %v", sh.Seq, err)}
		}
		s.log.Warn("journal completed from the store", "seq", sh.Seq)
	case known && last.Seq == sh.Seq+1 && last.Prev == sh.Hash:
		err := restoreBlocks(ctx, s.store, last, s.log)
		if err == nil {
			err = s.store.Update(ctx, func(tx Tx) error {
				if err := replay(tx, last); err != nil {
					return err
				}
				return tx.PutJournal(MarkOf(last))
			})
		}
		if err != nil {
			return []string{fmt.Sprintf("the store lacks journal entry %d and cannot take it: %v", last.Seq, err)}
		}
		s.log.Warn("store completed from the journal", "seq", last.Seq)
	case sh.Seq < jh.Seq:
		return []string{fmt.Sprintf("the store is behind its journal (store at entry %d, journal at %d): acknowledged sales were lost by the store; run `starfortune recover`", sh.Seq, jh.Seq)}
	default:
		return []string{fmt.Sprintf("the journal (entry %d) and the store (entry %d) disagree: data was modified or the journal lost entries", jh.Seq, sh.Seq)}
	}
	s.jhead = s.journal.Head()
	return nil
}
