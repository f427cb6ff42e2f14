package journal_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"starfortune/engine"
	"starfortune/journal"
)

// writeJournal makes a journal of es under keys and returns its path.
func writeJournal(t *testing.T, keys journal.Keys, es []engine.JournalEntry) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "journal.sfj")
	j := mustOpen(t, path, keys)
	appendAll(t, j, es)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// formats counts the lines of the file at path by format and, for sealed
// lines, key generation: "SFJ1", "SFJ2 gen 1"…
func formats(t *testing.T, path string) map[string]int {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, l := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
		f := strings.Fields(l)
		if len(f) > 2 && f[0] == "SFJ2" {
			n["SFJ2 gen "+f[2]]++
		} else if len(f) > 0 {
			n[f[0]]++
		}
	}
	return n
}

func TestReseal(t *testing.T) {
	es := entries(t, 20)
	for _, tc := range []struct {
		name     string
		from, to journal.Keys
		format   string // of every line after
		oldKeys  error  // what from gives after
	}{
		{"sealing", journal.Plain, sealed1, "SFJ2 gen 1", journal.ErrWrongKey},
		{"rotation", sealed1, sealed2, "SFJ2 gen 2", journal.ErrWrongKey},
		{"back to clear", sealed1, journal.Plain, "SFJ1", journal.ErrNotSealed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeJournal(t, tc.from, es)
			if err := journal.Reseal(path, tc.from, tc.to); err != nil {
				t.Fatal(err)
			}
			if got := formats(t, path); len(got) != 1 || got[tc.format] != len(es) {
				t.Fatalf("lines %v, want %d of %s", got, len(es), tc.format)
			}
			if _, err := os.Stat(path + journal.ResealSuffix); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the temporary file stays: %v", err)
			}
			if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
				t.Errorf("journal mode %v, want 0640", st.Mode().Perm())
			}
			if _, err := journal.Open(path, tc.from); !errors.Is(err, tc.oldKeys) {
				t.Fatalf("open with the old keys gives %v, want %v", err, tc.oldKeys)
			}
			j := mustOpen(t, path, tc.to)
			if j.Head() != es[len(es)-1].Head() {
				t.Fatalf("head %d, want %d", j.Head().Seq, len(es))
			}
			sameEntries(t, read(t, j), es)
			more := entries(t, 22)[20:] // the chain goes on
			appendAll(t, j, more)
			sameEntries(t, read(t, j), append(es[:20:20], more...))
		})
	}
}

// TestRotation: with the new key current and the old one kept, a journal
// opens before its Reseal and after; appended to in between, it mixes the
// two generations until Reseal makes it all new.
func TestRotation(t *testing.T) {
	es := entries(t, 6)
	path := writeJournal(t, sealed1, es[:3])
	j := mustOpen(t, path, rotating)
	appendAll(t, j, es[3:])
	sameEntries(t, read(t, j), es)
	j.Close()
	if got := formats(t, path); got["SFJ2 gen 1"] != 3 || got["SFJ2 gen 2"] != 3 {
		t.Fatalf("lines %v before the reseal, want 3 of each generation", got)
	}
	if err := journal.Reseal(path, rotating, sealed2); err != nil {
		t.Fatal(err)
	}
	if got := formats(t, path); len(got) != 1 || got["SFJ2 gen 2"] != len(es) {
		t.Fatalf("lines %v, want %d of generation 2", got, len(es))
	}
	for _, keys := range []journal.Keys{sealed2, rotating} {
		j := mustOpen(t, path, keys)
		sameEntries(t, read(t, j), es)
		j.Close()
	}
}

// TestResealRefuses: Reseal changes nothing on a journal that is open, that
// its keys do not open, or that is damaged.
func TestResealRefuses(t *testing.T) {
	es := entries(t, 5)
	t.Run("open", func(t *testing.T) {
		path := writeJournal(t, sealed1, es)
		mustOpen(t, path, sealed1)
		if err := journal.Reseal(path, sealed1, sealed2); !errors.Is(err, engine.ErrInUse) {
			t.Fatalf("reseal of an open journal gives %v, want ErrInUse", err)
		}
	})
	for name, tc := range map[string]struct {
		damage  func([]byte) []byte
		from    journal.Keys
		wantErr error
	}{
		"wrong key":   {func(b []byte) []byte { return b }, journal.Keys{Current: wrong1}, journal.ErrWrongKey},
		"not sealed":  {func(b []byte) []byte { return b }, sealed2, journal.ErrWrongKey},
		"damaged":     {func(b []byte) []byte { b[len(b)/2] ^= 1; return b }, sealed1, engine.ErrCorrupt},
		"line lost":   {func(b []byte) []byte { i := bytes.IndexByte(b, '\n'); return b[i+1:] }, sealed1, engine.ErrCorrupt},
		"bad keys to": {func(b []byte) []byte { return b }, sealed1, nil},
	} {
		t.Run(name, func(t *testing.T) {
			path := writeJournal(t, sealed1, es)
			raw, _ := os.ReadFile(path)
			raw = tc.damage(raw)
			os.WriteFile(path, raw, 0o640)
			to := sealed2
			if tc.wantErr == nil {
				to = journal.Keys{}
			}
			err := journal.Reseal(path, tc.from, to)
			if err == nil || (tc.wantErr != nil && !errors.Is(err, tc.wantErr)) {
				t.Fatalf("reseal gives %v, want %v", err, tc.wantErr)
			}
			t.Log(err)
			if got, _ := os.ReadFile(path); !bytes.Equal(got, raw) {
				t.Fatal("a refused reseal changed the journal")
			}
			if _, err := os.Stat(path + journal.ResealSuffix); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the temporary file stays: %v", err)
			}
		})
	}
}

// TestResealInterrupted: a Reseal stopped before its rename leaves the old
// journal and a temporary file, which the next Open or Reseal removes; one
// stopped after it leaves the new journal, which the keys of a rotation
// open as well as the old.
func TestResealInterrupted(t *testing.T) {
	es := entries(t, 10)
	done := writeJournal(t, sealed1, es)
	if err := journal.Reseal(done, sealed1, sealed2); err != nil {
		t.Fatal(err)
	}
	resealed, _ := os.ReadFile(done)
	for _, leftover := range map[string][]byte{
		"empty":           nil,
		"half written":    resealed[:len(resealed)/2],
		"whole, unsynced": resealed,
	} {
		for _, next := range []string{"open", "reseal"} {
			path := writeJournal(t, sealed1, es)
			before, _ := os.ReadFile(path)
			os.WriteFile(path+journal.ResealSuffix, leftover, 0o640)
			switch next {
			case "open":
				j := mustOpen(t, path, rotating)
				sameEntries(t, read(t, j), es)
				j.Close()
				if got, _ := os.ReadFile(path); !bytes.Equal(got, before) {
					t.Fatal("open changed the journal")
				}
			case "reseal":
				if err := journal.Reseal(path, rotating, sealed2); err != nil {
					t.Fatal(err)
				}
				j := mustOpen(t, path, sealed2)
				sameEntries(t, read(t, j), es)
				j.Close()
			}
			if _, err := os.Stat(path + journal.ResealSuffix); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("%s left the temporary file: %v", next, err)
			}
		}
	}

	// Stopped after the rename, before whoever keeps the keys dropped the
	// old one: the rotation's keys open it, and a second Reseal is harmless.
	j := mustOpen(t, done, rotating)
	sameEntries(t, read(t, j), es)
	j.Close()
	if err := journal.Reseal(done, rotating, sealed2); err != nil {
		t.Fatal(err)
	}
	j = mustOpen(t, done, sealed2)
	sameEntries(t, read(t, j), es)
	j.Close()
}

// TestResealStreams: Reseal holds a line or two in memory, not the
// journal, whatever its size.
func TestResealStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 22 MB journal")
	}
	big := entries(t, 1)[0]
	for len(big.Records) < 1000 {
		big.Records = append(big.Records, big.Records...)
	}
	big.Records = big.Records[:1000] // a line of about 110 kB
	// 200 lines of 110 kB: the heap Reseal needs is a few MB, whatever the
	// size, where reading the journal whole would take 22 MB more.
	path := filepath.Join(t.TempDir(), "journal.sfj")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := journal.NewLineCodec(journal.Plain)
	var prev engine.Hash
	for i := range 200 {
		e := big
		e.Seq, e.Prev = uint64(i+1), prev
		line, _ := w.Line(e)
		if _, err := f.Write(line); err != nil {
			t.Fatal(err)
		}
		prev = e.Hash()
	}
	f.Close()
	st, _ := os.Stat(path)

	// A tight GC so that the heap follows what is live.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	heap := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	base, peak := heap(), uint64(0)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			peak = max(peak, heap())
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Microsecond):
			}
		}
	}()
	err = journal.Reseal(path, journal.Plain, sealed1)
	close(stop)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("heap %d MB at most, from %d MB, resealing a %d MB journal", peak>>20, base>>20, st.Size()>>20)
	if peak > base+uint64(st.Size())*2/3 {
		t.Fatalf("the heap grew by %d MB resealing a %d MB journal", (peak-base)>>20, st.Size()>>20)
	}
}
