package journal_test

import (
	"path/filepath"
	"testing"

	"starfortune/internal/powercut"
	"starfortune/journal"
)

// A new journal's first entry survives a power cut: Open makes its
// directories and its name durable (before, a cut on a new kiosk lost the
// journal with its first sales).
func TestNewJournalSurvivesPowerCut(t *testing.T) {
	p, backing, mnt := powercut.MountTemp(t)
	j, err := journal.Open(filepath.Join(mnt, "data", "journal", "journal.sfj"))
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
	j, err = journal.Open(filepath.Join(backing, "data", "journal", "journal.sfj"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if j.Head().Seq != 2 {
		t.Fatalf("after the cut the journal is at entry %d, want 2", j.Head().Seq)
	}
}
