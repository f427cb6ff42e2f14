package journal_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"starfortune/engine"
	"starfortune/internal/powercut"
	"starfortune/journal"
)

// A new journal's first entry survives a power cut: Open makes its
// directories and its name durable (before, a cut on a new kiosk lost the
// journal with its first sales).
func TestNewJournalSurvivesPowerCut(t *testing.T) {
	eachMode(t, func(t *testing.T, keys journal.Keys) {
		p, backing, mnt := powercut.MountTemp(t)
		j, err := journal.Open(filepath.Join(mnt, "data", "journal", "journal.sfj"), keys)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries(t, 2) {
			if err := j.Append(e); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := p.Cut(); err != nil {
			t.Fatal(err)
		}
		j.Close()
		j, err = journal.Open(filepath.Join(backing, "data", "journal", "journal.sfj"), keys)
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		if j.Head().Seq != 2 {
			t.Fatalf("after the cut the journal is at entry %d, want 2", j.Head().Seq)
		}
	})
}

// A Reseal cut anywhere leaves the journal whole, old or new: opened with
// both generations' keys (as during a rotation) it holds every entry, and
// the temporary file is gone. The cuts land on the new file's first write,
// then at moments spread over the Reseal (the window between the rename
// and the directory's sync is too short to aim at).
func TestResealSurvivesPowerCut(t *testing.T) {
	es := entries(t, 300)
	firstWrite := func(rel string) bool { return strings.HasSuffix(rel, journal.ResealSuffix) }
	var cases []resealCut
	for _, from := range []journal.Keys{journal.Plain, sealed1} {
		cases = append(cases, resealCut{from: from, match: firstWrite})
		for _, d := range []time.Duration{0, 2, 4, 6, 8, 10, 13, 16, 20} {
			cases = append(cases, resealCut{from: from, after: d * time.Millisecond})
		}
	}
	states := map[string]int{}
	for _, c := range cases {
		name := "rotation"
		if c.from.Current == (journal.Key{}) {
			name = "sealing"
		}
		if c.match != nil {
			name += "/first write"
		} else {
			name += "/after " + c.after.String()
		}
		t.Run(name, func(t *testing.T) { states[c.run(t, es)]++ })
	}
	t.Logf("journals found after the cuts: %v", states)
}

type resealCut struct {
	from  journal.Keys
	match func(rel string) bool // the change the cut lands on, or
	after time.Duration         // the time after the start it lands at
}

// run cuts a Reseal of a journal of es from c.from to sealed2 and checks
// the journal after; it says which it found, the old or the new.
func (c resealCut) run(t *testing.T, es []engine.JournalEntry) string {
	p, backing, mnt := powercut.MountTemp(t)
	j := mustOpen(t, filepath.Join(backing, "journal.sfj"), c.from)
	appendAll(t, j, es)
	j.Close()

	var fired <-chan struct{}
	var timer <-chan time.Time
	if c.match != nil {
		fired = p.Watch(c.match)
	} else {
		timer = time.After(c.after)
	}
	done := make(chan error, 1)
	go func() { done <- journal.Reseal(filepath.Join(mnt, "journal.sfj"), c.from, sealed2) }()
	select {
	case <-fired:
	case <-timer:
	case err := <-done:
		if c.match != nil {
			t.Fatalf("reseal ended (%v) before the change to cut on", err)
		}
		done <- err
	}
	st, err := p.Cut()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("reseal: %v; lost %v", <-done, st.Lost)

	path := filepath.Join(backing, "journal.sfj")
	keys, state := rotating, "new"
	if c.from.Current == (journal.Key{}) {
		keys = sealed2
	}
	j, err = journal.Open(path, keys)
	if errors.Is(err, journal.ErrNotSealed) {
		j, err = journal.Open(path, journal.Plain) // cut before the rename: still in clear
	}
	if err != nil {
		t.Fatalf("after the cut: %v", err)
	}
	defer j.Close()
	raw, _ := os.ReadFile(path)
	if !bytes.HasPrefix(raw, []byte("SFJ2 1 2 ")) {
		state = "old"
	}
	sameEntries(t, read(t, j), es)
	if _, err := os.Stat(path + journal.ResealSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("open left the temporary file: %v", err)
	}
	return state
}
