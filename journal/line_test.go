package journal_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"regexp"
	"strconv"
	"testing"

	"golang.org/x/crypto/chacha20poly1305"

	"starfortune/engine"
	"starfortune/journal"
)

// sealLine makes e's sealed line under key with the given nonce, from the
// format's description in line.go, not from the package's code.
func sealLine(tb testing.TB, key journal.Key, e engine.JournalEntry, nonce [24]byte) []byte {
	tb.Helper()
	raw, err := e.MarshalBinary()
	if err != nil {
		tb.Fatal(err)
	}
	aead, err := chacha20poly1305.NewX(key.Secret[:])
	if err != nil {
		tb.Fatal(err)
	}
	prefix := fmt.Sprintf("SFJ2 %d %d", e.Seq, key.Gen)
	sealed := aead.Seal(nonce[:], nonce[:], raw, []byte(prefix))
	body := prefix + " " + base64.RawURLEncoding.EncodeToString(sealed)
	return fmt.Appendf(nil, "%s %08x\n", body, crc32.Checksum([]byte(body), crc32.MakeTable(crc32.Castagnoli)))
}

var sealedRE = regexp.MustCompile(`^SFJ2 ([1-9][0-9]*) (0|[1-9][0-9]*) ([A-Za-z0-9_-]+) ([0-9a-f]{8})\n$`)

// TestSealedLineFormat: the lines Append writes are as line.go describes
// them, byte for byte, and a line made from the description parses.
func TestSealedLineFormat(t *testing.T) {
	es := entries(t, 3)
	lc, err := journal.NewLineCodec(rotating)
	if err != nil {
		t.Fatal(err)
	}
	nonces := map[string]bool{}
	for _, e := range es {
		line, _ := lc.Line(e)
		line = bytes.Clone(line)
		m := sealedRE.FindSubmatch(line)
		if m == nil {
			t.Fatalf("line %q does not match %s", line, sealedRE)
		}
		if seq, _ := strconv.ParseUint(string(m[1]), 10, 64); seq != e.Seq || string(m[2]) != "2" {
			t.Fatalf("line %.20q… is numbered %s, generation %s: want %d, 2", line, m[1], m[2], e.Seq)
		}
		sealed, err := base64.RawURLEncoding.Strict().DecodeString(string(m[3]))
		if err != nil {
			t.Fatal(err)
		}
		nonces[string(sealed[:24])] = true
		if want := sealLine(t, key2, e, [24]byte(sealed[:24])); !bytes.Equal(line, want) {
			t.Fatalf("line\n%q\nwant, from the format's description,\n%q", line, want)
		}
		var crc [4]byte
		binary.BigEndian.PutUint32(crc[:], crc32.Checksum(line[:bytes.LastIndexByte(line, ' ')], crc32.MakeTable(crc32.Castagnoli)))
		if fmt.Sprintf("%x", crc) != string(m[4]) {
			t.Fatal("CRC")
		}

		var nonce [24]byte
		rand.Read(nonce[:])
		for _, key := range []journal.Key{key1, key2} {
			l := sealLine(t, key, e, nonce)
			got, err := lc.Parse(l)
			if err != nil {
				t.Fatalf("a line made from the description, generation %d: %v", key.Gen, err)
			}
			sameEntries(t, []engine.JournalEntry{got}, []engine.JournalEntry{e})
		}
	}
	if len(nonces) != len(es) {
		t.Fatal("a nonce was used twice")
	}
}
