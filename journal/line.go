package journal

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"

	"starfortune/engine"
)

// A journal line is
//
//	SFJ1 <seq> <entry> <hash>\n
//
// with <seq> the entry's number in decimal, <entry> the entry's canonical
// encoding (engine.JournalEntry.MarshalBinary) in unpadded base64url, and
// <hash> the SHA-256 of that encoding (engine.JournalEntry.Hash) in lowercase
// hex. The number and the hash are there for a person reading the file with
// grep or tail; the parser checks both against the entry.
const magic = "SFJ1"

var b64 = base64.RawURLEncoding

// b64Strict also refuses non-zero trailing bits, so that one entry has one
// spelling. Like every Go decoder it skips '\r' and '\n': parseLine refuses
// those first.
var b64Strict = b64.Strict()

// AppendLine appends e's journal line, newline included, to dst.
func AppendLine(dst []byte, e engine.JournalEntry) ([]byte, error) {
	line, _, err := appendLine(dst, e)
	return line, err
}

func appendLine(dst []byte, e engine.JournalEntry) ([]byte, engine.Hash, error) {
	raw, err := e.MarshalBinary()
	if err != nil {
		return dst, engine.Hash{}, fmt.Errorf("encode journal entry %d: %w", e.Seq, err)
	}
	h := engine.Hash(sha256.Sum256(raw))
	dst = append(dst, magic...)
	dst = append(dst, ' ')
	dst = strconv.AppendUint(dst, e.Seq, 10)
	dst = append(dst, ' ')
	dst = b64.AppendEncode(dst, raw)
	dst = append(dst, ' ')
	dst = hex.AppendEncode(dst, h[:])
	return append(dst, '\n'), h, nil
}

// ParseLine decodes one journal line (with or without its newline) and
// checks it: the format, the number against the entry's, and the hash
// against the entry's encoding. Every failure wraps engine.ErrCorrupt and
// says what is wrong.
func ParseLine(line []byte) (engine.JournalEntry, error) {
	e, _, err := parseLine(line)
	return e, err
}

func parseLine(line []byte) (engine.JournalEntry, engine.Hash, error) {
	fail := func(format string, a ...any) (engine.JournalEntry, engine.Hash, error) {
		return engine.JournalEntry{}, engine.Hash{}, fmt.Errorf("%w: %s", engine.ErrCorrupt, fmt.Sprintf(format, a...))
	}
	line = bytes.TrimSuffix(line, []byte{'\n'})
	var f [4][]byte
	rest := line
	for i := range f {
		if i == len(f)-1 {
			f[i] = rest
			break
		}
		var ok bool
		if f[i], rest, ok = bytes.Cut(rest, []byte{' '}); !ok {
			return fail("journal line has %d fields, want 4 (%s seq entry hash)", i+1, magic)
		}
	}
	if string(f[0]) != magic {
		return fail("journal line starts with %q, want %q", clip(f[0]), magic)
	}
	seq, err := strconv.ParseUint(string(f[1]), 10, 64)
	if err != nil || strconv.FormatUint(seq, 10) != string(f[1]) {
		return fail("journal line number %q is not a decimal number", clip(f[1]))
	}
	if bytes.ContainsAny(f[2], "\r\n") {
		return fail("journal entry %d: line break inside the entry", seq)
	}
	raw := make([]byte, b64.DecodedLen(len(f[2])))
	n, err := b64Strict.Decode(raw, f[2])
	if err != nil {
		return fail("journal entry %d: bad base64url: %v", seq, err)
	}
	raw = raw[:n]
	var want engine.Hash
	if len(f[3]) != 2*len(want) {
		return fail("journal entry %d: hash of %d characters, want %d", seq, len(f[3]), 2*len(want))
	}
	if _, err := hex.Decode(want[:], f[3]); err != nil || !bytes.Equal(hex.AppendEncode(nil, want[:]), f[3]) {
		return fail("journal entry %d: hash %q is not lowercase hex", seq, clip(f[3]))
	}
	h := engine.Hash(sha256.Sum256(raw))
	if h != want {
		return fail("journal entry %d: hash mismatch: line says %s, entry hashes to %s", seq, want, h)
	}
	var e engine.JournalEntry
	if err := e.UnmarshalBinary(raw); err != nil {
		return fail("journal entry %d: %v", seq, err)
	}
	if e.Seq != seq {
		return fail("journal line numbered %d holds entry %d", seq, e.Seq)
	}
	// The hash chain is computed over the canonical encoding: an entry that
	// decodes but encodes differently would chain to a hash nobody wrote.
	if e.Hash() != h {
		return fail("journal entry %d: not in canonical encoding", seq)
	}
	return e, h, nil
}

// clip shortens a field quoted in an error.
func clip(b []byte) []byte {
	if len(b) > 24 {
		return b[:24]
	}
	return b
}
