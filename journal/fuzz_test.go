package journal_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"testing"

	"starfortune/engine"
	"starfortune/journal"
)

// FuzzParseLine: any bytes give an entry or an error wrapping
// engine.ErrCorrupt, never a panic, in a clear journal and in a sealed
// one; an accepted line is exactly the line the entry formats to (for a
// sealed line, sealed again under the same nonce, by the format's
// description rather than the package's code).
func FuzzParseLine(f *testing.F) {
	for _, e := range entries(f, 3) {
		for _, keys := range []journal.Keys{journal.Plain, sealed1, sealed2} {
			l := lineOf(f, keys, e)
			f.Add(l)
			f.Add(l[:len(l)/2])
		}
	}
	f.Add([]byte("SFJ1 1 AQ 00\n"))
	f.Add([]byte("SFJ1 -1 x y"))
	f.Add([]byte("SFJ2 1 1 AAAA 00000000\n"))
	f.Add([]byte("SFJ2 01 1 x 0"))
	f.Add([]byte(""))
	var codecs []*journal.LineCodec
	for _, keys := range []journal.Keys{journal.Plain, rotating} {
		lc, err := journal.NewLineCodec(keys)
		if err != nil {
			f.Fatal(err)
		}
		codecs = append(codecs, lc)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		for i, lc := range codecs {
			e, err := lc.Parse(line)
			if err != nil {
				if !errors.Is(err, engine.ErrCorrupt) {
					t.Fatalf("error %v does not wrap ErrCorrupt", err)
				}
				continue
			}
			var again []byte
			if i == 0 {
				again, err = journal.AppendLine(nil, e)
				if err != nil {
					t.Fatalf("accepted entry does not encode: %v", err)
				}
			} else {
				fields := bytes.Fields(line)
				sealed, _ := base64.RawURLEncoding.DecodeString(string(fields[3]))
				key := key1
				if string(fields[2]) == "2" {
					key = key2
				}
				again = sealLine(t, key, e, [24]byte(sealed[:24]))
			}
			if !bytes.Equal(bytes.TrimSuffix(line, []byte("\n")), bytes.TrimSuffix(again, []byte("\n"))) {
				t.Fatalf("accepted %q, formats as %q", line, again)
			}
		}
	})
}
