package journal_test

import (
	"bytes"
	"errors"
	"testing"

	"starfortune/engine"
	"starfortune/journal"
)

// FuzzParseLine: any bytes give an entry or an error wrapping
// engine.ErrCorrupt, never a panic; an accepted line is exactly the line
// the entry formats to.
func FuzzParseLine(f *testing.F) {
	for _, e := range entries(f, 3) {
		l, _ := journal.AppendLine(nil, e)
		f.Add(l)
		f.Add(l[:len(l)/2])
	}
	f.Add([]byte("SFJ1 1 AQ 00\n"))
	f.Add([]byte("SFJ1 -1 x y"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := journal.ParseLine(line)
		if err != nil {
			if !errors.Is(err, engine.ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		again, err := journal.AppendLine(nil, e)
		if err != nil {
			t.Fatalf("accepted entry does not encode: %v", err)
		}
		if !bytes.Equal(bytes.TrimSuffix(line, []byte("\n")), bytes.TrimSuffix(again, []byte("\n"))) {
			t.Fatalf("accepted %q, formats as %q", line, again)
		}
	})
}
