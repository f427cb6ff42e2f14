package journal_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
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

// The keys of the tests: generation 1 and 2, and a wrong key for
// generation 1.
var (
	key1     = journal.Key{Gen: 1, Secret: [32]byte{1: 0x11, 31: 0x1f}}
	key2     = journal.Key{Gen: 2, Secret: [32]byte{2: 0x22, 31: 0x2f}}
	wrong1   = journal.Key{Gen: 1, Secret: [32]byte{1: 0x11, 31: 0x1e}}
	sealed1  = journal.Keys{Current: key1}
	sealed2  = journal.Keys{Current: key2}
	rotating = journal.Keys{Current: key2, Older: []journal.Key{key1}} // a rotation from 1 to 2 under way
)

// modes are the two formats most tests run under.
var modes = []struct {
	name string
	keys journal.Keys
}{
	{"plain", journal.Plain},
	{"sealed", sealed1},
}

// eachMode runs test under each format.
func eachMode(t *testing.T, test func(t *testing.T, keys journal.Keys)) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) { test(t, m.keys) })
	}
}

// lineOf is e's line as a journal under keys writes it.
func lineOf(tb testing.TB, keys journal.Keys, e engine.JournalEntry) []byte {
	tb.Helper()
	w, err := journal.NewLineCodec(keys)
	if err != nil {
		tb.Fatal(err)
	}
	l, err := w.Line(e)
	if err != nil {
		tb.Fatal(err)
	}
	return bytes.Clone(l)
}

func mustOpen(tb testing.TB, path string, keys journal.Keys) *journal.File {
	tb.Helper()
	j, err := journal.Open(path, keys)
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
	eachMode(t, func(t *testing.T, keys journal.Keys) {
		path := filepath.Join(t.TempDir(), "data", "journal.sfj")
		want := entries(t, 7)
		j := mustOpen(t, path, keys)
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
		ok := len(lines) == 7 && strings.HasPrefix(lines[2], "SFJ2 3 1 ") && !strings.Contains(lines[2], want[2].Hash().String())
		if keys.Current == (journal.Key{}) {
			ok = len(lines) == 7 && strings.HasPrefix(lines[2], "SFJ1 3 ") && strings.HasSuffix(lines[2], " "+want[2].Hash().String())
		}
		if !ok {
			t.Fatalf("line 3 is %.60q…", lines[2])
		}

		j = mustOpen(t, path, keys)
		if j.Head() != want[6].Head() || j.Truncated() != 0 {
			t.Fatalf("reopened: head %+v truncated %d, want %+v and 0", j.Head(), j.Truncated(), want[6].Head())
		}
		more := entries(t, 9)[7:]
		appendAll(t, j, more)
		sameEntries(t, read(t, j), append(want, more...))
	})
}

func TestAppendRefusesOutOfOrder(t *testing.T) {
	eachMode(t, func(t *testing.T, keys journal.Keys) {
		path := filepath.Join(t.TempDir(), "journal.sfj")
		es := entries(t, 3)
		j := mustOpen(t, path, keys)
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
	})
}

func TestTornTailIsCut(t *testing.T) {
	eachMode(t, func(t *testing.T, keys journal.Keys) {
		es := entries(t, 4)
		line4 := lineOf(t, keys, es[3])
		flipped := bytes.Clone(line4)
		flipped[len(flipped)/2] ^= 0x04
		for _, tc := range []struct {
			name string
			tail []byte
		}{
			{"half a line", line4[:len(line4)/2]},
			{"line without its newline", line4[:len(line4)-1]},
			{"zeros", make([]byte, 4096)},
			{"complete line that fails its hash or CRC", flipped},
		} {
			t.Run(tc.name, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "journal.sfj")
				j := mustOpen(t, path, keys)
				appendAll(t, j, es[:3])
				j.Close()
				good, _ := os.ReadFile(path)
				os.WriteFile(path, append(bytes.Clone(good), tc.tail...), 0o640)

				j = mustOpen(t, path, keys)
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
	})
}

// TestDamagedTailRefused: a torn write leaves one bad tail; two bad lines
// are damage, and cutting them would destroy acknowledged entries.
func TestDamagedTailRefused(t *testing.T) {
	eachMode(t, func(t *testing.T, keys journal.Keys) {
		path := filepath.Join(t.TempDir(), "journal.sfj")
		es := entries(t, 3)
		j := mustOpen(t, path, keys)
		appendAll(t, j, es)
		j.Close()
		raw, _ := os.ReadFile(path)
		last := bytes.LastIndexByte(raw[:len(raw)-1], '\n')
		raw[last-10] ^= 0x01 // line 2
		raw[last+10] ^= 0x01 // line 3
		os.WriteFile(path, raw, 0o640)
		if _, err := journal.Open(path, keys); !errors.Is(err, engine.ErrCorrupt) || errors.Is(err, journal.ErrWrongKey) {
			t.Fatalf("open gives %v, want ErrCorrupt", err)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, raw) {
			t.Fatal("a refused open changed the file")
		}
	})
}

// entriesErr writes the lines as a journal under keys and returns the
// error Entries gives.
func entriesErr(t *testing.T, keys journal.Keys, lines ...[]byte) error {
	t.Helper()
	path := filepath.Join(t.TempDir(), "journal.sfj")
	os.WriteFile(path, bytes.Join(lines, nil), 0o640)
	j := mustOpen(t, path, keys)
	seen := 0
	err := j.Entries(func(engine.JournalEntry) error { seen++; return nil })
	t.Logf("%d entries before: %v", seen, err)
	return err
}

func TestEntriesFindsDamage(t *testing.T) {
	es := entries(t, 5)
	var lines [][]byte
	for _, e := range es {
		lines = append(lines, lineOf(t, journal.Plain, e))
	}
	other := es[2]
	other.Time = other.Time.Add(time.Hour) // a valid line, but not the one chained to
	otherLine := lineOf(t, journal.Plain, other)
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
		{"sealed line", [][]byte{lines[0], lines[1], lineOf(t, sealed1, es[2]), lines[3], lines[4]}, "line 3: corrupted data: journal entry 3: a sealed (SFJ2) line in a clear journal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := entriesErr(t, journal.Plain, tc.file...)
			if !errors.Is(err, engine.ErrCorrupt) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("entries gives %v, want ErrCorrupt with %q", err, tc.want)
			}
		})
	}
}

// reCRC sets a sealed line's CRC to match its other bytes, as someone
// forging the line would.
func reCRC(line []byte) []byte {
	body := line[:bytes.LastIndexByte(line, ' ')]
	return fmt.Appendf(bytes.Clone(body), " %08x\n", crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
}

// forge changes the character at i, in a sealed line's base64, into
// another, keeping the CRC right.
func forge(line []byte, i int) []byte {
	l := bytes.Clone(line)
	if l[i] == 'A' {
		l[i] = 'B'
	} else {
		l[i] = 'A'
	}
	return reCRC(l)
}

// renumber gives a sealed line another number, keeping the CRC right.
func renumber(line []byte, from, to uint64) []byte {
	return reCRC(bytes.Replace(line, fmt.Appendf(nil, "SFJ2 %d ", from), fmt.Appendf(nil, "SFJ2 %d ", to), 1))
}

func TestEntriesFindsDamageSealed(t *testing.T) {
	es := entries(t, 5)
	var lines [][]byte
	for _, e := range es {
		lines = append(lines, lineOf(t, sealed1, e))
	}
	other := es[2]
	other.Time = other.Time.Add(time.Hour)
	otherLine := lineOf(t, sealed1, other)

	for _, tc := range []struct {
		name string
		file [][]byte
		want string
	}{
		{"flipped byte", [][]byte{lines[0], flip(lines[1], 60), lines[2], lines[3], lines[4]}, `line 2: corrupted data: journal line "SFJ2 2 1 `},
		{"forged ciphertext", [][]byte{lines[0], forge(lines[1], 30), lines[2], lines[3], lines[4]}, "line 2: corrupted data: journal entry 2: does not authenticate under the key of generation 1, though other lines of that generation do"},
		{"line deleted", [][]byte{lines[0], lines[1], lines[3], lines[4]}, "line 3: entry 4 follows entry 2"},
		{"lines swapped", [][]byte{lines[0], lines[2], lines[1], lines[3], lines[4]}, "line 2: entry 3 follows entry 1"},
		{"line moved and renumbered", [][]byte{lines[0], renumber(lines[2], 3, 2), lines[2], lines[3], lines[4]}, "line 2: corrupted data: journal entry 2: does not authenticate"},
		{"line replaced", [][]byte{lines[0], lines[1], otherLine, lines[3], lines[4]}, "line 4: entry 4 chains to"},
		{"clear line", [][]byte{lines[0], lines[1], lineOf(t, journal.Plain, es[2]), lines[3], lines[4]}, "line 3: corrupted data: journal entry 3: a clear (SFJ1) line in a sealed journal"},
		{"blank line", [][]byte{lines[0], []byte("\n"), lines[1], lines[2], lines[3], lines[4]}, "line 2: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := entriesErr(t, sealed1, tc.file...)
			if !errors.Is(err, engine.ErrCorrupt) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("entries gives %v, want ErrCorrupt with %q", err, tc.want)
			}
		})
	}
}

func flip(l []byte, i int) []byte { l = bytes.Clone(l); l[i] ^= 0x01; return l }

// TestFlippedByte: a byte changed anywhere in a sealed line is damage,
// named by its line; in the last line, Open takes it for a torn write and
// cuts it, as it does a clear line.
func TestFlippedByte(t *testing.T) {
	es := entries(t, 3)
	var lines [][]byte
	for _, e := range es {
		lines = append(lines, lineOf(t, sealed1, e))
	}
	dir := t.TempDir()
	for i := range lines[1] {
		path := filepath.Join(dir, fmt.Sprint("middle", i))
		os.WriteFile(path, bytes.Join([][]byte{lines[0], flip(lines[1], i), lines[2]}, nil), 0o640)
		j, err := journal.Open(path, sealed1)
		if i == len(lines[1])-1 { // its newline: the last line is lines 2 and 3 joined
			if !errors.Is(err, engine.ErrCorrupt) || errors.Is(err, journal.ErrWrongKey) || !strings.Contains(err.Error(), "holds the start of another line") {
				t.Fatalf("newline of line 2 flipped: open gives %v, want ErrCorrupt", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("byte %d of line 2 flipped: open: %v", i, err)
		}
		err = j.Entries(func(engine.JournalEntry) error { return nil })
		j.Close()
		if !errors.Is(err, engine.ErrCorrupt) || errors.Is(err, journal.ErrWrongKey) || !strings.Contains(err.Error(), "line 2: corrupted data: journal line \"") {
			t.Fatalf("byte %d of line 2 flipped: entries gives %v, want ErrCorrupt naming line 2 and quoting its start", i, err)
		}
	}
	for i := range lines[2] {
		path := filepath.Join(dir, fmt.Sprint("last", i))
		good := bytes.Join(lines[:2], nil)
		os.WriteFile(path, append(bytes.Clone(good), flip(lines[2], i)...), 0o640)
		j, err := journal.Open(path, sealed1)
		if err != nil {
			t.Fatalf("byte %d of the last line flipped: open: %v", i, err)
		}
		if j.Head() != es[1].Head() || j.Truncated() != int64(len(lines[2])) {
			t.Fatalf("byte %d of the last line flipped: head %d truncated %d, want 2 and %d", i, j.Head().Seq, j.Truncated(), len(lines[2]))
		}
		sameEntries(t, read(t, j), es[:2])
		j.Close()
	}
}

// TestWholeLastLineRefused: a last line that is whole (its CRC checks) but
// that the keys refuse is no torn write: Open refuses it and cuts nothing.
func TestWholeLastLineRefused(t *testing.T) {
	es := entries(t, 3)
	var lines [][]byte
	for _, e := range es {
		lines = append(lines, lineOf(t, sealed1, e))
	}
	for _, tc := range []struct {
		name    string
		last    []byte
		wantErr error
		want    string
	}{
		{"clear line", lineOf(t, journal.Plain, es[2]), engine.ErrCorrupt, "a clear (SFJ1) line in a sealed journal"},
		{"forged", forge(lines[2], len(lines[2])-20), engine.ErrCorrupt, "does not authenticate under the key of generation 1, though other lines of that generation do"},
		{"renumbered", renumber(lines[1], 2, 3), engine.ErrCorrupt, "does not authenticate"},
		{"line of another key", lineOf(t, journal.Keys{Current: wrong1}, es[2]), engine.ErrCorrupt, "does not authenticate"},
		{"line of an unknown generation", lineOf(t, sealed2, es[2]), journal.ErrWrongKey, "sealed under key generation 2, for which no key is given"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "journal.sfj")
			file := append(bytes.Join(lines[:2], nil), tc.last...)
			os.WriteFile(path, file, 0o640)
			_, err := journal.Open(path, sealed1)
			if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("open gives %v, want %v with %q", err, tc.wantErr, tc.want)
			}
			if tc.wantErr == engine.ErrCorrupt && errors.Is(err, journal.ErrWrongKey) {
				t.Fatalf("open gives %v, also ErrWrongKey", err)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, file) {
				t.Fatal("a refused open changed the file")
			}
		})
	}
}

// TestWrongKey: a journal opened with a key that does not open it is
// refused with ErrWrongKey, never taken for damage (which would cut its
// last line, or leave an empty journal to append to under the wrong key).
func TestWrongKey(t *testing.T) {
	es := entries(t, 4)
	for _, n := range []int{1, 3} {
		for _, tc := range []struct {
			name string
			keys journal.Keys
		}{
			{"another key of the generation", journal.Keys{Current: wrong1}},
			{"another generation", sealed2},
			{"a wrong key among older ones", journal.Keys{Current: key2, Older: []journal.Key{wrong1}}},
			{"plain", journal.Plain},
		} {
			for _, torn := range []bool{false, true} {
				t.Run(fmt.Sprintf("%d entries/%s/torn %v", n, tc.name, torn), func(t *testing.T) {
					path := filepath.Join(t.TempDir(), "journal.sfj")
					j := mustOpen(t, path, sealed1)
					appendAll(t, j, es[:n])
					j.Close()
					before, _ := os.ReadFile(path)
					if torn { // killed during the next append, with its reserve
						line := lineOf(t, sealed1, es[n])
						before = append(append(before, line[:len(line)/2]...), bytes.Repeat([]byte{'\n'}, 4096)...)
						os.WriteFile(path, before, 0o640)
					}
					_, err := journal.Open(path, tc.keys)
					if !errors.Is(err, journal.ErrWrongKey) || errors.Is(err, engine.ErrCorrupt) {
						t.Fatalf("open gives %v, want ErrWrongKey only", err)
					}
					t.Log(err)
					if got, _ := os.ReadFile(path); !bytes.Equal(got, before) {
						t.Fatal("a refused open changed the file")
					}
					j = mustOpen(t, path, sealed1)
					if j.Head() != es[n-1].Head() {
						t.Fatalf("with the right key: head %d, want %d", j.Head().Seq, n)
					}
					sameEntries(t, read(t, j), es[:n])
				})
			}
		}
	}
}

// TestWrongKeyInEntries: a journal in the middle of a rotation, opened
// with the new key right and the old one wrong, opens (its last line is
// of the new generation); Entries finds the old lines do not open.
func TestWrongKeyInEntries(t *testing.T) {
	es := entries(t, 4)
	path := filepath.Join(t.TempDir(), "journal.sfj")
	j := mustOpen(t, path, sealed1)
	appendAll(t, j, es[:2])
	j.Close()
	j = mustOpen(t, path, rotating)
	appendAll(t, j, es[2:])
	sameEntries(t, read(t, j), es)
	j.Close()

	for name, keys := range map[string]journal.Keys{
		"old key wrong":   {Current: key2, Older: []journal.Key{wrong1}},
		"old key dropped": sealed2,
	} {
		j := mustOpen(t, path, keys)
		err := j.Entries(func(engine.JournalEntry) error { return nil })
		if !errors.Is(err, journal.ErrWrongKey) || errors.Is(err, engine.ErrCorrupt) || !strings.Contains(err.Error(), "line 1") {
			t.Fatalf("%s: entries gives %v, want ErrWrongKey at line 1", name, err)
		}
		t.Logf("%s: %v", name, err)
		j.Close()
	}
}

// TestNotSealed: a journal from before sealing, opened with keys, is
// refused with ErrNotSealed, for the caller to reseal it.
func TestNotSealed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.sfj")
	es := entries(t, 3)
	j := mustOpen(t, path, journal.Plain)
	appendAll(t, j, es)
	j.Close()
	before, _ := os.ReadFile(path)
	_, err := journal.Open(path, sealed1)
	if !errors.Is(err, journal.ErrNotSealed) || errors.Is(err, engine.ErrCorrupt) || errors.Is(err, journal.ErrWrongKey) {
		t.Fatalf("open gives %v, want ErrNotSealed only", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, before) {
		t.Fatal("a refused open changed the file")
	}
}

func TestKeysChecked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.sfj")
	for name, keys := range map[string]journal.Keys{
		"zero":                     {},
		"zero secret":              {Current: journal.Key{Gen: 3}},
		"two keys of a generation": {Current: key1, Older: []journal.Key{wrong1}},
	} {
		if j, err := journal.Open(path, keys); err == nil {
			j.Close()
			t.Errorf("%s: open accepts the keys", name)
		}
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Error("open with bad keys made the journal")
	}
	j := mustOpen(t, path, journal.Keys{Current: key1, Older: []journal.Key{key1}})
	j.Close()
}

// TestNothingInClear: the file of a sealed journal holds none of its
// entries' bytes: neither a block's seed nor an entry's encoding, in any
// of the spellings the clear format or a careless one would use.
func TestNothingInClear(t *testing.T) {
	seed := sha256.Sum256([]byte("a seed nobody must read on the disk"))
	es := entries(t, 4)
	es[0].Blocks[0].Seed = seed
	for i := range es[1:] {
		es[i+1].Prev = es[i].Hash()
	}
	// spellings are the ways a secret could show in a file: raw, hex, and
	// base64 at each of the three alignments in a longer encoding (without
	// the characters that mix in the bytes around it).
	spellings := func(s []byte) [][]byte {
		sp := [][]byte{s, hex.AppendEncode(nil, s), bytes.ToUpper(hex.AppendEncode(nil, s))}
		for k := range 3 {
			for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.RawStdEncoding} {
				b := enc.AppendEncode(nil, append(make([]byte, k), s...))
				sp = append(sp, b[4:len(b)-4])
			}
		}
		return sp
	}
	found := func(file, secret []byte) bool {
		for _, sp := range spellings(secret) {
			if bytes.Contains(file, sp) {
				return true
			}
		}
		return false
	}
	secrets := [][]byte{seed[:]}
	for _, e := range es {
		raw, _ := e.MarshalBinary()
		secrets = append(secrets, raw, raw[len(raw)/2:])
	}

	for _, m := range modes {
		path := filepath.Join(t.TempDir(), "journal.sfj")
		j := mustOpen(t, path, m.keys)
		appendAll(t, j, es)
		open, _ := os.ReadFile(path)
		j.Close()
		closed, _ := os.ReadFile(path)
		if m.keys.Current == (journal.Key{}) {
			if !found(closed, seed[:]) {
				t.Fatal("the test does not find the seed in a clear journal")
			}
			continue
		}
		for i, s := range secrets {
			if found(open, s) || found(closed, s) {
				t.Fatalf("secret %d is in the sealed journal's file", i)
			}
		}
	}
}

func TestEntriesPassesFnErrors(t *testing.T) {
	eachMode(t, func(t *testing.T, keys journal.Keys) {
		j := mustOpen(t, filepath.Join(t.TempDir(), "journal.sfj"), keys)
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
	})
}

func TestSecondOpenInUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.sfj")
	mustOpen(t, path, sealed1)
	if _, err := journal.Open(path, sealed1); !errors.Is(err, engine.ErrInUse) {
		t.Fatalf("second open gives %v, want ErrInUse", err)
	}
}

// TestAppendDiskFull writes to /dev/full, which fails every write with
// ENOSPC.
func TestAppendDiskFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		testenv.Missing(t, "no /dev/full: %v", err)
	}
	j, err := journal.Open("/dev/full", sealed1)
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

// BenchmarkAppend appends a sale of one unit, a sale of five and a reveal
// step in turn, each synced: on the disk of TMPDIR, and on tmpfs, where a
// sync costs next to nothing and the line's making shows.
func BenchmarkAppend(b *testing.B) {
	es := entries(b, 3)
	dirs := []struct{ name, dir string }{{"disk", ""}}
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		dirs = append(dirs, struct{ name, dir string }{"tmpfs", "/dev/shm"})
	}
	for _, d := range dirs {
		for _, m := range modes {
			b.Run(d.name+"/"+m.name, func(b *testing.B) {
				dir := d.dir
				if dir == "" {
					dir = b.TempDir()
				}
				dir, err := os.MkdirTemp(dir, "journal-bench")
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { os.RemoveAll(dir) })
				j := mustOpen(b, filepath.Join(dir, "journal.sfj"), m.keys)
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
			})
		}
	}
}

// BenchmarkLine makes the same lines as BenchmarkAppend, and parses them
// back as Entries does, without the file: the CPU cost of each format.
func BenchmarkLine(b *testing.B) {
	es := entries(b, 3)
	for _, m := range modes {
		lc, err := journal.NewLineCodec(m.keys)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("append/"+m.name, func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for i := 0; b.Loop(); i++ {
				l, err := lc.Line(es[i%3])
				if err != nil {
					b.Fatal(err)
				}
				n += len(l)
			}
			b.ReportMetric(float64(n)/float64(b.N), "B/line")
		})
		lines := [][]byte{lineOf(b, m.keys, es[0]), lineOf(b, m.keys, es[1]), lineOf(b, m.keys, es[2])}
		b.Run("parse/"+m.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, err := lc.Parse(lines[i%3]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestBigEntry: an entry of 10 000 records (a line of about 1.8 MB) spans
// many of Open's 64 KiB tail reads and Entries' 1 MiB buffer.
func TestBigEntry(t *testing.T) {
	eachMode(t, func(t *testing.T, keys journal.Keys) {
		path := filepath.Join(t.TempDir(), "journal.sfj")
		es := entries(t, 2)
		big := es[1]
		for len(big.Records) < 10_000 {
			big.Records = append(big.Records, big.Records...)
		}
		big.Records = big.Records[:10_000]
		es[1] = big
		j := mustOpen(t, path, keys)
		appendAll(t, j, es)
		if st, _ := os.Stat(path); st.Size() < 1<<20 {
			t.Fatalf("journal of %d bytes: the entry is not big", st.Size())
		}
		j.Close()
		j = mustOpen(t, path, keys)
		if j.Head() != big.Head() {
			t.Fatalf("head %d after reopen, want 2", j.Head().Seq)
		}
		sameEntries(t, read(t, j), es)
	})
}

// TestFirstAppendTorn: a crash during the very first append leaves only a
// fragment; Open cuts it and the journal starts empty.
func TestFirstAppendTorn(t *testing.T) {
	eachMode(t, func(t *testing.T, keys journal.Keys) {
		es := entries(t, 1)
		line := lineOf(t, keys, es[0])
		for _, tc := range []struct {
			name string
			file []byte
			cut  int64 // the fragment and the newline after it
		}{
			{"without its newline", line[:100], 100},
			{"over its reserve", append(bytes.Clone(line[:100]), bytes.Repeat([]byte{'\n'}, 4096)...), 101},
		} {
			t.Run(tc.name, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "journal.sfj")
				os.WriteFile(path, tc.file, 0o640)
				j := mustOpen(t, path, keys)
				if j.Head() != (engine.JournalHead{}) || j.Truncated() != tc.cut {
					t.Fatalf("head %+v truncated %d", j.Head(), j.Truncated())
				}
				appendAll(t, j, es)
				sameEntries(t, read(t, j), es)
			})
		}
	})
}

// The engine appends while the store commits; a refused commit takes its
// entry back. Last gives the entry at the head after Open and Append.
func TestLastAndRetract(t *testing.T) {
	eachMode(t, func(t *testing.T, keys journal.Keys) {
		path := filepath.Join(t.TempDir(), "journal.sfj")
		es := entries(t, 3)
		j := mustOpen(t, path, keys)
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
		j = mustOpen(t, path, keys)
		if last, ok := j.Last(); !ok || last.Head() != es[2].Head() {
			t.Fatalf("last after reopen %+v %v", last.Head(), ok)
		}
		sameEntries(t, read(t, j), es)
	})
}

// TestReservedSpace: while open, the file ends with empty lines written
// ahead of the entries; Close gives them back. A process killed while the
// journal is open leaves them, possibly with a torn line written over them,
// anywhere in the first pages: Open cuts both and counts only the torn bytes.
func TestReservedSpace(t *testing.T) {
	eachMode(t, func(t *testing.T, keys journal.Keys) {
		es := entries(t, 4)
		line4 := lineOf(t, keys, es[3])
		big := es[3] // a batch: its line spans pages
		for len(big.Records) < 100 {
			big.Records = append(big.Records, big.Records...)
		}
		bigLine := lineOf(t, keys, big)

		path := filepath.Join(t.TempDir(), "journal.sfj")
		j := mustOpen(t, path, keys)
		appendAll(t, j, es[:3])
		open, _ := os.ReadFile(path)
		lines := bytes.TrimRight(open, "\n")
		lines = open[:len(lines)+1]
		if bytes.Count(lines, []byte{'\n'}) != 3 || len(open) < 1<<20 {
			t.Fatalf("open journal of %d bytes for %d bytes of lines: want the 3 lines then newlines to 1 MiB at least", len(open), len(lines))
		}
		if keys.Current == (journal.Key{}) {
			var want []byte
			for _, e := range es[:3] {
				want = append(want, lineOf(t, keys, e)...)
			}
			if !bytes.Equal(lines, want) {
				t.Fatal("the lines are not the entries' lines")
			}
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
				j := mustOpen(t, path, keys)
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
	})
}
