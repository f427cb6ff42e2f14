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
	switch {
	case has && s == t:
		return "", nil
	case has && s == t+1 && !healthy:
		return "", nil // out of service already: counted once whole again
	case has && s == t+1:
		_ = w.count(ctx) // the change before the crash: out of service if it cannot be counted
		return "", nil
	case has && s < t:
		short = fmt.Sprintf("%d counted action(s) behind it", t-s)
		problem = fmt.Sprintf("the data is behind the anchor (%v): its last counted action took the anchor to %d, which stands at %d: "+
			"%d attendant or player action(s) were erased (an older copy of the data, or a journal cut and rebuilt); %s", w.counter, s, t, t-s, fix)
	case has:
		short = fmt.Sprintf("%d ahead of it", s-t)
		problem = fmt.Sprintf("the anchor (%v) stands at %d, behind this data's %d: it is not the counter this data counted on "+
			"(another TPM, or another index); %s", w.counter, t, s, fix)
	case fresh || w.jhead.Seq == 0:
		return fmt.Sprintf("%v adopted at %d (journal entry %d)", w.counter, t, w.jhead.Seq), nil
	default:
		short = "never counted on it"
		problem = fmt.Sprintf("this data never counted on the anchor (%v), which already counted %d actions of other data: "+
			"an older copy from before the anchor, or another kiosk's data; %s", w.counter, t, fix)
	}
	if override != "" && healthy {
		return fmt.Sprintf("counter adopted at %d on an attendant's override, the data %s: %s", t, short, override), nil
	}
	return "", []string{problem}
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
