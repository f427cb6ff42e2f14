package engine

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// writer is the one way every change reaches the store: a single lock, so
// that concurrent callers are serialised rather than conflicting, one
// durable store transaction per change with its journal entry, and the
// out-of-service state that stops changes once an integrity check failed.
// The roles of the Service (Sales, Cash, Desk, Auditor) share it.
type writer struct {
	store   Store
	journal Journal // nil: none (tests of other things)
	log     zerolog.Logger
	now     func() time.Time

	fleet bool     // a kiosk of a fleet: every ledger entry goes to the outbox too
	queue outQueue // a fleet's kiosk: the outbox's movements committed and not pushed yet (guarded by mu)
	// counter anchors the data outside it (nil: none); counted is the
	// value the last counted change took it to (counter.go).
	counter Counter
	counted uint64
	mu      sync.Mutex         // the single writer
	jhead   JournalHead        // the journal's position after the last change
	broken  *OutOfServiceError // why the terminal is out of service, or nil
}

func newWriter(store Store, journal Journal, log zerolog.Logger, now func() time.Time) *writer {
	w := &writer{store: store, journal: journal, log: log, now: now}
	if journal != nil {
		w.jhead = journal.Head()
	}
	return w
}

// view reads a consistent snapshot of the store.
func (w *writer) view(ctx context.Context, fn func(ReadTx) error) error { return w.store.View(ctx, fn) }

// journalTx passes a transaction's writes to the store and notes them for
// the journal entry of the transaction.
type journalTx struct {
	Tx
	entry  JournalEntry
	outbox *outbox // a fleet's kiosk: the movements for the central
	lease  int64   // a fleet's kiosk: the player's lease the movements are made under
	// hand is the register's facts of a held prize paid by hand, for
	// the transaction's payout movement (Accounts.PayHeld).
	hand *HandPay
}

func (t *journalTx) PutRecord(r Record) error {
	t.entry.Records = append(t.entry.Records, r)
	return t.Tx.PutRecord(r)
}

func (t *journalTx) PutLedger(l LedgerEntry) error {
	t.entry.Ledger = append(t.entry.Ledger, l)
	if t.outbox != nil {
		if err := t.outbox.add(t, l); err != nil {
			return err
		}
	}
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
	if len(name) > math.MaxUint8 || len(v) > math.MaxUint16 { // the journal's lengths
		return fmt.Errorf("setting %q: %d bytes, at most %d: %w", name, len(v), math.MaxUint16, ErrBadConfig)
	}
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
func (w *writer) update(ctx context.Context, fn func(*journalTx) error) error {
	if w.broken != nil {
		return w.err()
	}
	var entry JournalEntry
	var appended chan error
	var counted bool    // the change is counted on the counter once durable
	var added []outItem // the outbox's movements numbered (a fleet's kiosk)
	err := w.store.Update(ctx, func(tx Tx) error {
		jt := &journalTx{Tx: tx}
		if w.fleet {
			jt.outbox = &outbox{}
		}
		if err := fn(jt); err != nil {
			return err
		}
		if jt.outbox != nil && jt.outbox.dirty {
			if err := jt.PutSetting(fleetStateKey, jt.outbox.st.encode()); err != nil {
				return err
			}
		}
		if counted = w.counter != nil && counts(jt.entry); counted {
			if err := jt.PutSetting(counterKey, encodeCount(w.counted+1)); err != nil {
				return err
			}
		}
		entry = jt.entry
		if jt.outbox != nil {
			added = jt.outbox.added
		}
		if w.journal == nil || jt.empty() {
			return nil
		}
		entry.Seq, entry.Prev, entry.Time = w.jhead.Seq+1, w.jhead.Hash, w.now().UTC()
		if err := tx.PutJournal(MarkOf(entry)); err != nil {
			return err
		}
		appended = make(chan error, 1)
		go func(e JournalEntry) { appended <- w.journal.Append(e) }(entry)
		return nil
	})
	var verr error
	if err == nil {
		w.queue.add(added, entry)
		verr = w.verifyTouched(ctx, entry) // while the journal syncs
	}
	var jerr error
	if appended != nil {
		jerr = <-appended
	}
	switch {
	case err != nil && appended != nil && jerr == nil:
		if rerr := w.journal.Retract(entry.Head()); rerr != nil {
			return w.outOfService(false, fmt.Sprintf("the store refused a commit (%v) whose journal entry %d cannot be taken back (%v)", err, entry.Seq, rerr))
		}
		return err
	case err != nil:
		return err
	case jerr != nil:
		return w.outOfService(false, fmt.Sprintf("the journal cannot be written (%v); entry %d is in the store only", jerr, entry.Seq))
	}
	if appended != nil {
		w.jhead = w.journal.Head() // the entry's, hashed by Append: not encoded a third time
	}
	if counted && verr == nil {
		verr = w.count(ctx)
	}
	return verr
}

// record writes what must be kept even when the terminal is out of service
// (the operator log, the PIN and its lockout): journaled like any change
// while the terminal is healthy, in the store alone when it is not (the
// journal may be what is broken). Called with mu held.
func (w *writer) record(ctx context.Context, fn func(Tx) error) error {
	if w.broken != nil {
		return w.store.Update(ctx, fn)
	}
	return w.update(ctx, func(tx *journalTx) error { return fn(tx) })
}

// outOfService stops all changes: every sale, reveal step and movement of
// funds returns the error until the program restarts healthy. Reads go on,
// so the operator can see what is wrong and players their last unit.
// storeBehind says the journal holds what the store lost. Called with mu.
func (w *writer) outOfService(storeBehind bool, problems ...string) error {
	if len(problems) == 0 {
		return nil
	}
	if w.broken == nil {
		w.broken = &OutOfServiceError{}
	}
	w.broken.Problems = append(w.broken.Problems, problems...)
	w.broken.StoreBehind = w.broken.StoreBehind || storeBehind
	w.log.Error().Strs("problems", problems).Msg("terminal out of service")
	return w.err()
}

// err is the out-of-service error as it stands (a copy: it may grow), or nil.
func (w *writer) err() error {
	if w.broken == nil {
		return nil
	}
	e := *w.broken
	e.Problems = slices.Clone(e.Problems)
	return &e
}

// Health is nil while the terminal may sell, or why it may not (an
// *OutOfServiceError).
func (w *writer) Health() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err()
}
