package memstore

import (
	"fmt"
	"sync"

	"starfortune/engine"
)

// Journal is an in-memory engine.Journal.
type Journal struct {
	mu      sync.Mutex
	entries []engine.JournalEntry
	// Fail, when set, makes Append fail (a full disk, say).
	Fail error
}

// Append adds an entry that continues the chain.
func (j *Journal) Append(e engine.JournalEntry) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.Fail != nil {
		return fmt.Errorf("%w: %w", engine.ErrStorage, j.Fail)
	}
	if h := j.head(); e.Seq != h.Seq+1 || e.Prev != h.Hash {
		return fmt.Errorf("%w: journal entry %d does not follow entry %d", engine.ErrCorrupt, e.Seq, h.Seq)
	}
	j.entries = append(j.entries, e)
	return nil
}

// Head is the last entry's position.
func (j *Journal) Head() engine.JournalHead {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.head()
}

func (j *Journal) head() engine.JournalHead {
	if len(j.entries) == 0 {
		return engine.JournalHead{}
	}
	return j.entries[len(j.entries)-1].Head()
}

// Entries calls fn for every entry in order.
func (j *Journal) Entries(fn func(engine.JournalEntry) error) error {
	j.mu.Lock()
	entries := j.entries
	j.mu.Unlock()
	for _, e := range entries {
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

// Last is the last entry.
func (j *Journal) Last() (engine.JournalEntry, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.entries) == 0 {
		return engine.JournalEntry{}, false
	}
	return j.entries[len(j.entries)-1], true
}

// Retract removes the last entry if it is at h.
func (j *Journal) Retract(h engine.JournalHead) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.head() != h || len(j.entries) == 0 {
		return fmt.Errorf("%w: cannot retract journal entry %d", engine.ErrCorrupt, h.Seq)
	}
	j.entries = j.entries[:len(j.entries)-1]
	return nil
}

// Drop forgets the last n entries, as a journal file cut short would.
func (j *Journal) Drop(n int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.entries = j.entries[:len(j.entries)-n]
}
