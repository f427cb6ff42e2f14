package engine

import (
	"context"
	"encoding/binary"
	"fmt"
)

// Counter is a monotonic counter kept outside the data directory, where
// no copy of the directory can take it back: a TPM's NV counter (package
// tpm). A lone kiosk counts on it each change that records an attendant's
// or a player's action (counts): the change stores the value it takes the
// counter to, and the counter is incremented once the change is durable,
// before the action is reported done. A data directory whose stored value
// is behind the counter is an older copy, or a journal cut and rebuilt,
// with actions erased (a payout, an exclusion): it does not sell.
type Counter interface {
	// Value is the counter now; fresh says it was only just started, so
	// that no data directory has counted on it yet.
	Value(ctx context.Context) (v uint64, fresh bool, err error)
	// Increment adds one and returns the new value.
	Increment(ctx context.Context) (uint64, error)
}

// counterKey is the setting that holds the value the store's last counted
// change took the counter to (8 bytes, big-endian).
const counterKey = "anchor/counter"

// ActionCounterAdopted is the operator log's record of a data directory
// starting to count on a counter: on its first use, or when an
// attendant's override (recover --override) accepts the loss the counter
// showed.
const ActionCounterAdopted = "counter-adopted"

// counts says whether a change is counted: it moves funds in or out
// (a credit, a payout), or records an attendant's action (the operator
// log: PINs, lockouts) or an account's (the account log: limits,
// exclusions, held prizes).
func counts(e JournalEntry) bool {
	if len(e.Events) > 0 {
		return true
	}
	for _, l := range e.Ledger {
		if l.Kind == LedgerCredit || l.Kind == LedgerPayout {
			return true
		}
	}
	for _, s := range e.Settings {
		if s.Name == accountLogHead {
			return true
		}
	}
	return false
}

func encodeCount(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

// CountedIn is the counter value an entry stored, if it stored one:
// recover reads the last one of a journal to check it against the counter.
func CountedIn(e JournalEntry) (uint64, bool) {
	for _, s := range e.Settings {
		if s.Name == counterKey && len(s.Value) == 8 {
			return binary.BigEndian.Uint64(s.Value), true
		}
	}
	return 0, false
}

// count increments the counter after a counted change became durable; a
// counter that does not move to the value the change stored stops the
// terminal. Called with mu held.
func (w *writer) count(ctx context.Context) error {
	v, err := w.counter.Increment(ctx)
	switch {
	case err != nil:
		return w.outOfService(false, fmt.Sprintf("the change is recorded but the anchor could not count it: %v", err))
	case v != w.counted+1:
		return w.outOfService(false, fmt.Sprintf("the anchor counted %d instead of %d: another program moves it", v, w.counted+1))
	}
	w.counted = v
	return nil
}

// checkCounter compares the store with the counter at start: the value
// the store's last counted change took the counter to (s) against the
// counter (t). Equal, the store is whole; one ahead, the change was made
// and not yet counted (a crash between the two), and is counted now.
// Behind, counted actions were erased. A store that never counted adopts
// the counter when the counter is new or the store empty. override, an
// attendant's reason (recover --override), adopts the counter whatever
// the store holds. adopt is the operator log's detail of an adoption to
// record, if any. Called with mu held.
func (w *writer) checkCounter(ctx context.Context, healthy bool, override string) (adopt string, problems []string) {
	t, fresh, err := w.counter.Value(ctx)
	if err != nil {
		return "", []string{fmt.Sprintf("the anchor cannot be read: %v", err)}
	}
	var s uint64
	var has bool
	err = w.view(ctx, func(tx ReadTx) error {
		v, ok, err := tx.Setting(counterKey)
		if ok && len(v) == 8 {
			s, has = binary.BigEndian.Uint64(v), true
		}
		return err
	})
	if err != nil {
		return "", []string{fmt.Sprintf("the store's anchor count cannot be read: %v", err)}
	}
	w.counted = t
	const fix = "restore the latest backup, or accept the loss with `starfortune recover --override REASON` (recorded, listed by every audit)"
	var problem, short string
	switch standOf(s, has, t, fresh, w.jhead.Seq == 0) {
	case countWhole:
		return "", nil
	case countUncounted:
		if healthy { // else out of service already: counted once whole again
			_ = w.count(ctx) // the change before the crash: out of service if it cannot be counted
		}
		return "", nil
	case countBehind:
		short = fmt.Sprintf("%d counted action(s) behind it", t-s)
		problem = fmt.Sprintf("the data is behind the anchor (%v): its last counted action took the anchor to %d, which stands at %d: "+
			"%d attendant or player action(s) were erased (an older copy of the data, or a journal cut and rebuilt); %s", w.counter, s, t, t-s, fix)
	case countAhead:
		short = fmt.Sprintf("%d ahead of it", s-t)
		problem = fmt.Sprintf("the anchor (%v) stands at %d, behind this data's %d: it is not the counter this data counted on "+
			"(another TPM, or another index); %s", w.counter, t, s, fix)
	case countNew:
		return fmt.Sprintf("%v adopted at %d (journal entry %d)", w.counter, t, w.jhead.Seq), nil
	case countNever:
		short = "never counted on it"
		problem = fmt.Sprintf("this data never counted on the anchor (%v), which already counted %d actions of other data: "+
			"an older copy from before the anchor, or another kiosk's data; %s", w.counter, t, fix)
	}
	if override != "" && healthy {
		return fmt.Sprintf("counter adopted at %d on an attendant's override, the data %s: %s", t, short, override), nil
	}
	return "", []string{problem}
}

// countStand is where data stands against its counter.
type countStand uint8

const (
	countWhole     countStand = iota // the data took the counter where it stands
	countUncounted                   // one ahead: its last counted change made, the count not (a crash between them)
	countBehind                      // counted actions erased
	countAhead                       // further ahead: not the counter the data counted on
	countNever                       // the data never counted, on a counter that did
	countNew                         // the data never counted, and is empty or the counter new: it may adopt it
)

// standOf is where data whose last counted change took the counter to s
// (has: it counted any; empty: it holds nothing) stands against the
// counter at t (fresh: just started).
func standOf(s uint64, has bool, t uint64, fresh, empty bool) countStand {
	switch {
	case has && s == t:
		return countWhole
	case has && s == t+1:
		return countUncounted
	case has && s < t:
		return countBehind
	case has:
		return countAhead
	case fresh || empty:
		return countNew
	}
	return countNever
}

// JournalAgainst is how a journal stands against counter c, for recover:
// its last counted entry took c to counted (counts: it counted any). The
// counter anchors the journal when it stands there (or one behind: a crash
// before the count); behind says how the journal misses counted actions.
// A journal that never counted, on a counter just started, is neither.
func JournalAgainst(ctx context.Context, c Counter, counted uint64, counts bool) (anchored bool, behind string, err error) {
	t, fresh, err := c.Value(ctx)
	if err != nil {
		return false, "", err
	}
	switch standOf(counted, counts, t, fresh, false) {
	case countWhole, countUncounted:
		return true, "", nil
	case countBehind:
		return false, fmt.Sprintf("the journal's last counted action took the anchor (%v) to %d, which stands at %d: "+
			"its last %d attendant or player action(s) are missing (lines cut, or an older copy)", c, counted, t, t-counted), nil
	case countAhead:
		return false, fmt.Sprintf("the anchor (%v) stands at %d, behind the journal's %d: not the counter this journal counted on", c, t, counted), nil
	case countNever:
		return false, fmt.Sprintf("the journal never counted on the anchor (%v), which already counted %d actions: "+
			"an older copy from before the anchor, or another kiosk's", c, t), nil
	}
	return false, "", nil
}

// anchor makes the desk count on c from now on, after checking the store
// against it (checkCounter) and recording an adoption. healthy: the store
// passed its other checks. Called with mu held.
func (d *Desk) anchor(ctx context.Context, c Counter, healthy bool, override string) error {
	d.w.counter = c
	adopt, problems := d.w.checkCounter(ctx, healthy, override)
	if adopt != "" {
		return d.w.update(ctx, func(tx *journalTx) error { return d.putEvent(tx, "system", ActionCounterAdopted, adopt) })
	}
	return d.w.outOfService(false, problems...)
}
