// Package memstore is an in-memory engine.Store for tests of the engine and
// the UI: the same transaction semantics as the real store (all or nothing),
// nothing on disk. It can be told to fail, to test how callers report errors.
package memstore

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"starfortune/engine"
)

// Store keeps everything in maps. The zero value is not usable: call New.
type Store struct {
	mu sync.RWMutex
	d  data
	// Fail, when set, is returned by every Update (a full disk, say) until
	// cleared.
	Fail error
	// FailCommit, when set, fails every Update after its function ran, as a
	// commit that fails at the last moment.
	FailCommit error
}

type data struct {
	blocks   map[engine.BlockRef]*engine.Block
	cursors  map[engine.BlockRef]engine.Cursor
	records  map[engine.Ticket]engine.Record
	wallets  map[string]engine.Wallet
	ledger   map[string][]engine.LedgerEntry
	reveals  map[engine.Ticket]engine.Reveal
	journal  *engine.JournalMark
	settings map[string][]byte
	events   []engine.OperatorEvent
}

// New returns an empty store.
func New() *Store {
	return &Store{d: data{
		blocks:   map[engine.BlockRef]*engine.Block{},
		cursors:  map[engine.BlockRef]engine.Cursor{},
		records:  map[engine.Ticket]engine.Record{},
		wallets:  map[string]engine.Wallet{},
		ledger:   map[string][]engine.LedgerEntry{},
		reveals:  map[engine.Ticket]engine.Reveal{},
		settings: map[string][]byte{},
	}}
}

func (d data) clone() data {
	ledger := make(map[string][]engine.LedgerEntry, len(d.ledger))
	for p, l := range d.ledger {
		ledger[p] = slices.Clip(l) // appends copy, the base stays intact
	}
	return data{blocks: d.blocks, cursors: maps.Clone(d.cursors), records: maps.Clone(d.records),
		wallets: maps.Clone(d.wallets), ledger: ledger, reveals: maps.Clone(d.reveals), journal: d.journal,
		settings: maps.Clone(d.settings), events: slices.Clip(d.events)}
}

// View runs fn on the current state.
func (s *Store) View(_ context.Context, fn func(engine.ReadTx) error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return fn(&tx{s.d})
}

// Update runs fn on a copy and keeps the copy only if fn succeeds.
func (s *Store) Update(_ context.Context, fn func(engine.Tx) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return fmt.Errorf("%w: %w", engine.ErrStorage, s.Fail)
	}
	t := &tx{s.d.clone()}
	if err := fn(t); err != nil {
		return err
	}
	if s.FailCommit != nil {
		return fmt.Errorf("%w: commit: %w", engine.ErrStorage, s.FailCommit)
	}
	s.d = t.d
	return nil
}

// PutBlock stores a block.
func (s *Store) PutBlock(_ context.Context, b *engine.Block) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return fmt.Errorf("%w: %w", engine.ErrStorage, s.Fail)
	}
	s.d.blocks[b.Ref] = b
	return nil
}

// LoadBlock returns a stored block.
func (s *Store) LoadBlock(_ context.Context, ref engine.BlockRef) (*engine.Block, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	b, ok := s.d.blocks[ref]
	if !ok {
		return nil, fmt.Errorf("%w: block %s", engine.ErrUnknownTicket, ref)
	}
	return b, nil
}

// Close does nothing.
func (s *Store) Close() error { return nil }

type tx struct{ d data }

func (t *tx) Blocks() ([]engine.BlockInfo, error) {
	var out []engine.BlockInfo
	for ref, b := range t.d.blocks {
		out = append(out, engine.BlockInfo{Ref: ref, Size: uint32(b.Len()), Commitment: b.Commitment,
			Seed: b.Seed, Cursor: t.d.cursors[ref]})
	}
	slices.SortFunc(out, func(a, b engine.BlockInfo) int {
		return cmp.Or(cmp.Compare(a.Ref.Emission, b.Ref.Emission), cmp.Compare(a.Ref.Stake, b.Ref.Stake),
			cmp.Compare(a.Ref.Number, b.Ref.Number))
	})
	return out, nil
}

func (t *tx) Unit(tk engine.Ticket) (engine.Unit, error) {
	b, ok := t.d.blocks[tk.Block]
	if !ok || int(tk.Index) >= b.Len() {
		return engine.Unit{}, fmt.Errorf("%w: %s", engine.ErrUnknownTicket, tk)
	}
	return b.Unit(int(tk.Index))
}

func (t *tx) Cursor(ref engine.BlockRef) (engine.Cursor, error) { return t.d.cursors[ref], nil }

func (t *tx) Record(tk engine.Ticket) (engine.Record, error) {
	r, ok := t.d.records[tk]
	if !ok {
		return r, fmt.Errorf("%w: %s", engine.ErrUnknownTicket, tk)
	}
	return r, nil
}

func (t *tx) Records(ref engine.BlockRef, fn func(engine.Record) error) error {
	var records []engine.Record
	for tk, r := range t.d.records {
		if tk.Block == ref {
			records = append(records, r)
		}
	}
	slices.SortFunc(records, func(a, b engine.Record) int { return cmp.Compare(a.Ticket.Index, b.Ticket.Index) })
	for _, r := range records {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) Wallet(player string) (engine.Wallet, bool, error) {
	w, ok := t.d.wallets[player]
	return w, ok, nil
}

func (t *tx) Wallets(fn func(engine.Wallet) error) error {
	for _, p := range slices.Sorted(maps.Keys(t.d.wallets)) {
		if err := fn(t.d.wallets[p]); err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) Ledger(player string, from, to uint64, fn func(engine.LedgerEntry) error) error {
	entries := t.d.ledger[player]
	step := 1
	if from > to {
		step = -1
	}
	for seq := int64(from); ; seq += int64(step) {
		if seq >= 1 && seq <= int64(len(entries)) {
			if err := fn(entries[seq-1]); err != nil {
				return err
			}
		}
		if seq == int64(to) {
			return nil
		}
	}
}

func (t *tx) Reveal(tk engine.Ticket) (engine.Reveal, bool, error) {
	rv, ok := t.d.reveals[tk]
	return rv, ok, nil
}

func (t *tx) Journal() (engine.JournalMark, bool, error) {
	if t.d.journal == nil {
		return engine.JournalMark{}, false, nil
	}
	return *t.d.journal, true, nil
}

func (t *tx) PutJournal(m engine.JournalMark) error {
	t.d.journal = &m
	return nil
}

func (t *tx) PutCursor(ref engine.BlockRef, c engine.Cursor) error {
	t.d.cursors[ref] = c
	return nil
}

func (t *tx) PutRecord(r engine.Record) error {
	t.d.records[r.Ticket] = r
	return nil
}

func (t *tx) PutWallet(w engine.Wallet) error {
	t.d.wallets[w.Player] = w
	return nil
}

func (t *tx) PutLedger(l engine.LedgerEntry) error {
	entries := t.d.ledger[l.Player]
	if l.Seq != uint64(len(entries))+1 {
		return fmt.Errorf("memstore: ledger entry %d of %s out of sequence", l.Seq, l.Player)
	}
	t.d.ledger[l.Player] = append(entries, l)
	return nil
}

func (t *tx) PutReveal(tk engine.Ticket, rv engine.Reveal) error {
	t.d.reveals[tk] = rv
	return nil
}

func (t *tx) PutReveals(first engine.Ticket, rvs []engine.Reveal) error {
	for i, rv := range rvs {
		t.d.reveals[first.Plus(uint32(i))] = rv
	}
	return nil
}

func (t *tx) Setting(name string) ([]byte, bool, error) {
	v, ok := t.d.settings[name]
	return v, ok, nil
}

func (t *tx) PutSetting(name string, v []byte) error {
	t.d.settings[name] = slices.Clone(v)
	return nil
}

func (t *tx) OperatorEvents(from, to uint64, fn func(engine.OperatorEvent) error) error {
	n := uint64(len(t.d.events))
	if from <= to { // ascending over the events that exist in [from, to]
		for seq := max(from, 1); seq <= min(to, n); seq++ {
			if err := fn(t.d.events[seq-1]); err != nil {
				return err
			}
		}
		return nil
	}
	for seq := min(from, n); seq >= max(to, 1); seq-- { // descending, like a seek
		if err := fn(t.d.events[seq-1]); err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) PutOperatorEvent(e engine.OperatorEvent) error {
	if e.Seq != uint64(len(t.d.events))+1 {
		return fmt.Errorf("memstore: operator event %d out of sequence", e.Seq)
	}
	t.d.events = append(t.d.events, e)
	return nil
}
