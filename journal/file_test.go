package journal_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"starfortune/internal/testenv"

	"starfortune/engine"
	"starfortune/journal"
)

var start = time.Date(2026, 12, 2, 14, 30, 0, 123456789, time.UTC)

var (
	blockOnce sync.Once
	block     *engine.Block
)

// testBlock is a real drawn block (drawn once: it takes a moment).
func testBlock(tb testing.TB) *engine.Block {
	tb.Helper()
	blockOnce.Do(func() {
		ref := engine.BlockRef{Emission: 1, Stake: 100, Number: 3}
		block = engine.GenerateBlock(ref, engine.Seed{1, 2, 3})
	})
	return block
}

// entries makes n chained entries as the engine writes them: the first
// sells from a new block, then sales, reveal steps and a credit alternate.
func entries(tb testing.TB, n int) []engine.JournalEntry {
	tb.Helper()
	b := testBlock(tb)
	out := make([]engine.JournalEntry, 0, n)
	var prev engine.Hash
	var rec engine.Hash
	var ledger engine.Hash
	balance := engine.Cents(10_000)
	now := start
	for i := 0; i < n; i++ {
		now = now.Add(time.Second)
		e := engine.JournalEntry{Seq: uint64(i + 1), Prev: prev, Time: now}
		switch i % 3 {
		case 0, 1:
			if i == 0 {
				e.Blocks = []engine.BlockInfo{{Ref: b.Ref, Size: uint32(b.Len()), Commitment: b.Commitment, Seed: b.Seed}}
			}
			for k := 0; k < 1+i%2*4; k++ { // 1 or 5 units
				idx := len(out)*5 + k
				u, err := b.Unit(idx)
				if err != nil {
					tb.Fatal(err)
				}
				tk := engine.Ticket{Block: b.Ref, Index: uint32(idx)}
				after := balance - 100 + u.Prize(100)
				l := engine.LedgerEntry{Player: engine.DemoPlayer, Seq: uint64(idx + 1), Time: now, Kind: engine.LedgerSale,
					Debit: 100, Credit: u.Prize(100), Balance: after, Ticket: tk, Actor: "kiosk", Prev: ledger}
				r := engine.Record{Ticket: tk, Player: engine.DemoPlayer, Time: now, Unit: u,
					BalanceBefore: balance, BalanceAfter: after, LedgerSeq: l.Seq, Prev: rec}
				e.Records = append(e.Records, r)
				e.Ledger = append(e.Ledger, l)
				rec, ledger, balance = r.Hash(), l.Hash(), after
			}
		case 2:
			rv := engine.NewReveal()
			rv.Slots[0] = i % engine.NumSlots
			e.Reveals = []engine.JournalReveal{{Ticket: engine.Ticket{Block: b.Ref, Index: uint32(i)}, Reveal: rv}}
			e.Ledger = []engine.LedgerEntry{{Player: "cust-42", Seq: uint64(i), Time: now, Kind: engine.LedgerCredit,
				Credit: 2_000, Balance: 2_000 * engine.Cents(i), Actor: "operator:ana"}}
		}
		prev = e.Hash()
		out = append(out, e)
	}
	return out
}

func mustOpen(tb testing.TB, path string) *journal.File {
	tb.Helper()
	j, err := journal.Open(path)
	if err != nil {
		tb.Fatalf("open %s: %v", path, err)
	}
	tb.Cleanup(func() { j.Close() })
	return j
}

func appendAll(tb testing.TB, j *journal.File, es []engine.JournalEntry) {
	tb.Helper()
	for _, e := range es {
		if err := j.Append(e); err != nil {
			tb.Fatalf("append %d: %v", e.Seq, err)
		}
	}
}

// read returns the journal's entries, failing the test on an error.
func read(tb testing.TB, j *journal.File) []engine.JournalEntry {
	tb.Helper()
	var got []engine.JournalEntry
	if err := j.Entries(func(e engine.JournalEntry) error { got = append(got, e); return nil }); err != nil {
		tb.Fatalf("entries: %v", err)
	}
	return got
}

func sameEntries(tb testing.TB, got, want []engine.JournalEntry) {
	tb.Helper()
	if len(got) != len(want) {
		tb.Fatalf("%d entries, want %d", len(got), len(want))
	}
	for i := range got {
		g, _ := got[i].MarshalBinary()
		w, _ := want[i].MarshalBinary()
		if !bytes.Equal(g, w) || !got[i].Time.Equal(want[i].Time) {
			tb.Fatalf("entry %d differs:\n got %+v\nwant %+v", i+1, got[i], want[i])
		}
	}
}

func TestRoundTripAndReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "journal.sfj")
	want := entries(t, 7)
	j := mustOpen(t, path)
	if j.Head() != (engine.JournalHead{}) {
		t.Fatalf("new journal head %+v", j.Head())
	}
	appendAll(t, j, want)
	sameEntries(t, read(t, j), want)
	if j.Head() != want[6].Head() {
		t.Fatalf("head %+v, want %+v", j.Head(), want[6].Head())
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o640 {
		t.Errorf("journal mode %v, want 0640", st.Mode().Perm())
	}
	raw, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if len(lines) != 7 || !strings.HasPrefix(lines[2], "SFJ1 3 ") || !strings.HasSuffix(lines[2], " "+want[2].Hash().String()) {
		t.Fatalf("line 3 is %.60q…", lines[2])
	}

	j = mustOpen(t, path)
	if j.Head() != want[6].Head() || j.Truncated() != 0 {
		t.Fatalf("reopened: head %+v truncated %d, want %+v and 0", j.Head(), j.Truncated(), want[6].Head())
	}
	more := entries(t, 9)[7:]
	appendAll(t, j, more)
	sameEntries(t, read(t, j), append(want, more...))
}

func TestAppendRefusesOutOfOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.sfj")
	es := entries(t, 3)
	j := mustOpen(t, path)
	appendAll(t, j, es[:1])
	before, _ := os.ReadFile(path)

	wrongPrev := es[1]
	wrongPrev.Prev[0] ^= 1
	for name, e := range map[string]engine.JournalEntry{
		"gap":        es[2],
		"repeat":     es[0],
		"wrong prev": wrongPrev,
	} {
		if err := j.Append(e); !errors.Is(err, engine.ErrCorrupt) {
			t.Errorf("%s: append gives %v, want ErrCorrupt", name, err)
		}
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) || j.Head() != es[0].Head() {
		t.Fatal("a refused append changed the journal")
	}
	appendAll(t, j, es[1:])
}

func TestTornTailIsCut(t *testing.T) {
	es := entries(t, 4)
	line4, _ := journal.AppendLine(nil, es[3])
	flipped := bytes.Clone(line4)
	flipped[len(flipped)/2] ^= 0x04
	for _, tc := range []struct {
		name string
		tail []byte
	}{
		{"half a line", line4[:len(line4)/2]},
		{"line without its newline", line4[:len(line4)-1]},
		{"zeros", make([]byte, 4096)},
		{"complete line that fails its hash", flipped},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "journal.sfj")
			j := mustOpen(t, path)
			appendAll(t, j, es[:3])
			j.Close()
			good, _ := os.ReadFile(path)
			os.WriteFile(path, append(bytes.Clone(good), tc.tail...), 0o640)

			j = mustOpen(t, path)
			if j.Truncated() != int64(len(tc.tail)) || j.Head() != es[2].Head() {
				t.Fatalf("truncated %d head %d, want %d and 3", j.Truncated(), j.Head().Seq, len(tc.tail))
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, good) {
				t.Fatalf("file not cut back to its good lines")
			}
			appendAll(t, j, es[3:])
			sameEntries(t, read(t, j), es)
		})
	}
}

// TestDamagedTailRefused: a torn write leaves one bad tail; two bad lines
// are damage, and cutting them would destroy acknowledged entries.
func TestDamagedTailRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.sfj")
	es := entries(t, 3)
	j := mustOpen(t, path)
	appendAll(t, j, es)
	j.Close()
	raw, _ := os.ReadFile(path)
	last := bytes.LastIndexByte(raw[:len(raw)-1], '\n')
	raw[last-10] ^= 0x01 // line 2
	raw[last+10] ^= 0x01 // line 3
	os.WriteFile(path, raw, 0o640)
	if _, err := journal.Open(path); !errors.Is(err, engine.ErrCorrupt) {
		t.Fatalf("open gives %v, want ErrCorrupt", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, raw) {
		t.Fatal("a refused open changed the file")
	}
}

func TestEntriesFindsDamage(t *testing.T) {
	es := entries(t, 5)
	var lines [][]byte
	for _, e := range es {
		l, _ := journal.AppendLine(nil, e)
		lines = append(lines, l)
	}
	other := es[2]
	other.Time = other.Time.Add(time.Hour) // a valid line, but not the one chained to
	otherLine, _ := journal.AppendLine(nil, other)
	flip := func(l []byte, i int) []byte { l = bytes.Clone(l); l[i] ^= 0x01; return l }

	for _, tc := range []struct {
		name string
		file [][]byte
		want string
	}{
		{"flipped entry byte", [][]byte{lines[0], flip(lines[1], 100), lines[2], lines[3], lines[4]}, "line 2: corrupted data: journal entry 2"},
		{"flipped hash", [][]byte{lines[0], lines[1], flip(lines[2], len(lines[2])-5), lines[3], lines[4]}, "line 3: "},
		{"flipped number", [][]byte{lines[0], lines[1], lines[2], bytes.Replace(lines[3], []byte("SFJ1 4"), []byte("SFJ1 5"), 1), lines[4]}, "line 4: corrupted data: journal line numbered 5 holds entry 4"},
		{"line deleted", [][]byte{lines[0], lines[1], lines[3], lines[4]}, "line 3: entry 4 follows entry 2"},
		{"line replaced", [][]byte{lines[0], lines[1], otherLine, lines[3], lines[4]}, "line 4: entry 4 chains to"},
		{"bad magic", [][]byte{lines[0], bytes.Replace(lines[1], []byte("SFJ1"), []byte("SFJ2"), 1), lines[2], lines[3], lines[4]}, "line 2: "},
		{"blank line", [][]byte{lines[0], []byte("\n"), lines[1], lines[2], lines[3], lines[4]}, "line 2: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "journal.sfj")
			os.WriteFile(path, bytes.Join(tc.file, nil), 0o640)
			j := mustOpen(t, path)
			seen := 0
			err := j.Entries(func(engine.JournalEntry) error { seen++; return nil })
			if !errors.Is(err, engine.ErrCorrupt) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("entries gives %v, want ErrCorrupt with %q", err, tc.want)
			}
			t.Logf("%d entries before: %v", seen, err)
		})
	}
}

func TestEntriesPassesFnErrors(t *testing.T) {
	j := mustOpen(t, filepath.Join(t.TempDir(), "journal.sfj"))
	appendAll(t, j, entries(t, 3))
	stop := errors.New("stop")
	n := 0
	err := j.Entries(func(engine.JournalEntry) error {
		if n++; n == 2 {
			return stop
		}
		return nil
	})
	if err != stop || n != 2 {
		t.Fatalf("entries gives %v after %d calls, want stop after 2", err, n)
	}
}

func TestSecondOpenInUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.sfj")
	mustOpen(t, path)
	if _, err := journal.Open(path); !errors.Is(err, engine.ErrInUse) {
		t.Fatalf("second open gives %v, want ErrInUse", err)
	}
}

// TestAppendDiskFull writes to /dev/full, which fails every write with
// ENOSPC.
func TestAppendDiskFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		testenv.Missing(t, "no /dev/full: %v", err)
	}
	j, err := journal.Open("/dev/full")
	if err != nil {
		testenv.Missing(t, "cannot open /dev/full as a journal: %v", err)
	}
	defer j.Close()
	err = j.Append(entries(t, 1)[0])
	if !errors.Is(err, engine.ErrDiskFull) || !errors.Is(err, engine.ErrStorage) {
		t.Fatalf("append gives %v, want ErrStorage and ErrDiskFull", err)
	}
	if j.Head() != (engine.JournalHead{}) {
		t.Fatal("a failed append moved the head")
	}
	t.Log(err)
}

func BenchmarkAppend(b *testing.B) {
	es := entries(b, 3) // a sale of one unit, a sale of five, a reveal step
	j := mustOpen(b, filepath.Join(b.TempDir(), "journal.sfj"))
	head := engine.JournalHead{}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		e := es[i%3]
		e.Seq, e.Prev = head.Seq+1, head.Hash
		if err := j.Append(e); err != nil {
			b.Fatal(err)
		}
		head = j.Head()
	}
}

// TestBigEntry: an entry of 10 000 records (a line of about 1.8 MB) spans
// many of Open's 64 KiB tail reads and Entries' 1 MiB buffer.
func TestBigEntry(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.sfj")
	es := entries(t, 2)
	big := es[1]
	for len(big.Records) < 10_000 {
		big.Records = append(big.Records, big.Records...)
	}
	big.Records = big.Records[:10_000]
	es[1] = big
	j := mustOpen(t, path)
	appendAll(t, j, es)
	if st, _ := os.Stat(path); st.Size() < 1<<20 {
		t.Fatalf("journal of %d bytes: the entry is not big", st.Size())
	}
	j.Close()
	j = mustOpen(t, path)
	if j.Head() != big.Head() {
		t.Fatalf("head %d after reopen, want 2", j.Head().Seq)
	}
	sameEntries(t, read(t, j), es)
}

// TestFirstAppendTorn: a crash during the very first append leaves only a
// fragment; Open cuts it and the journal starts empty.
func TestFirstAppendTorn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.sfj")
	es := entries(t, 1)
	line, _ := journal.AppendLine(nil, es[0])
	os.WriteFile(path, line[:100], 0o640)
	j := mustOpen(t, path)
	if j.Head() != (engine.JournalHead{}) || j.Truncated() != 100 {
		t.Fatalf("head %+v truncated %d", j.Head(), j.Truncated())
	}
	appendAll(t, j, es)
	sameEntries(t, read(t, j), es)
}

// The engine appends while the store commits; a refused commit takes its
// entry back. Last gives the entry at the head after Open and Append.
func TestLastAndRetract(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.sfj")
	es := entries(t, 3)
	j := mustOpen(t, path)
	if _, ok := j.Last(); ok {
		t.Fatal("an empty journal has a last entry")
	}
	appendAll(t, j, es[:2])
	before, _ := os.ReadFile(path)
	appendAll(t, j, es[2:])
	if last, ok := j.Last(); !ok || last.Head() != es[2].Head() {
		t.Fatalf("last %+v", last.Head())
	}
	if err := j.Retract(es[1].Head()); !errors.Is(err, engine.ErrCorrupt) {
		t.Fatalf("retract of an entry that is not the last: %v", err)
	}
	if err := j.Retract(es[2].Head()); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) || j.Head() != es[1].Head() {
		t.Fatal("retract did not restore the journal as it was")
	}
	if err := j.Retract(es[1].Head()); !errors.Is(err, engine.ErrCorrupt) {
		t.Fatalf("a second retract: %v", err)
	}
	appendAll(t, j, es[2:])
	j.Close()
	j = mustOpen(t, path)
	if last, ok := j.Last(); !ok || last.Head() != es[2].Head() {
		t.Fatalf("last after reopen %+v %v", last.Head(), ok)
	}
	sameEntries(t, read(t, j), es)
}

// TestReservedSpace: while open, the file ends with empty lines written
// ahead of the entries; Close gives them back. A process killed while the
// journal is open leaves them, possibly with a torn line written over them,
// anywhere in the first pages: Open cuts both and counts only the torn bytes.
func TestReservedSpace(t *testing.T) {
	es := entries(t, 4)
	var lines []byte
	for _, e := range es[:3] {
		l, _ := journal.AppendLine(nil, e)
		lines = append(lines, l...)
	}
	line4, _ := journal.AppendLine(nil, es[3])
	big := es[3] // a batch: its line spans pages
	for len(big.Records) < 100 {
		big.Records = append(big.Records, big.Records...)
	}
	bigLine, _ := journal.AppendLine(nil, big)

	path := filepath.Join(t.TempDir(), "journal.sfj")
	j := mustOpen(t, path)
	appendAll(t, j, es[:3])
	open, _ := os.ReadFile(path)
	if !bytes.HasPrefix(open, lines) || len(open) < 1<<20 ||
		len(bytes.Trim(open[len(lines):], "\n")) != 0 {
		t.Fatalf("open journal of %d bytes for %d bytes of lines: want the lines then newlines to 1 MiB at least", len(open), len(lines))
	}
	j.Close()
	if closed, _ := os.ReadFile(path); !bytes.Equal(closed, lines) {
		t.Fatalf("closed journal of %d bytes, want its %d bytes of lines", len(closed), len(lines))
	}

	for _, tc := range []struct {
		name  string
		at    int // where the torn bytes landed, after the last line
		bytes []byte
		hole  [2]int // a part of them that did not reach the disk
		cut   int    // the torn bytes and the newlines that end them
	}{
		{"killed with its reserve", 0, nil, [2]int{}, 0},
		{"half a line over the reserve", 0, line4[:len(line4)/2], [2]int{}, len(line4)/2 + 1},
		{"a whole line that fails its hash", 0, append(bytes.Clone(line4[:20]), line4[21:]...), [2]int{}, len(line4) - 1},
		{"the end of a line, its start not written", 100, line4[100:], [2]int{}, len(line4) - 100},
		{"a long line with a page not written", 0, bigLine, [2]int{5000, 5000 + 4096}, len(bigLine) - 4096 + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crashed := bytes.Clone(open)
			copy(crashed[len(lines)+tc.at:], tc.bytes)
			copy(crashed[len(lines)+tc.at+tc.hole[0]:], bytes.Repeat([]byte{'\n'}, tc.hole[1]-tc.hole[0]))
			path := filepath.Join(t.TempDir(), "journal.sfj")
			os.WriteFile(path, crashed, 0o640)
			j := mustOpen(t, path)
			if j.Head() != es[2].Head() || j.Truncated() != int64(tc.cut) {
				t.Fatalf("head %d truncated %d, want 3 and %d", j.Head().Seq, j.Truncated(), tc.cut)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, lines) {
				t.Fatalf("reopened journal of %d bytes, want its %d bytes of lines", len(got), len(lines))
			}
			appendAll(t, j, es[3:])
			sameEntries(t, read(t, j), es)
		})
	}
}
