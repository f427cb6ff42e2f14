package journal

import (
	"bytes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"strconv"

	"starfortune/engine"
)

// A journal holds one line per entry, in one of two formats; a file never
// mixes them.
//
// A clear line (SFJ1, the format before sealing, kept to read journals
// not yet resealed) is
//
//	SFJ1 <seq> <entry> <hash>\n
//
// with <seq> the entry's number in decimal, <entry> the entry's canonical
// encoding (engine.JournalEntry.MarshalBinary) in unpadded base64url, and
// <hash> the SHA-256 of that encoding (engine.JournalEntry.Hash) in lowercase
// hex. The number and the hash are there for a person reading the file with
// grep or tail; the parser checks both against the entry.
//
// A sealed line (SFJ2) is
//
//	SFJ2 <seq> <gen> <sealed> <crc>\n
//
// in ASCII, with one space between fields, where
//
//   - <seq> is the entry's number, <gen> the generation of the key that
//     sealed it (0 to 4294967295), both in decimal without leading zeros;
//   - <sealed> is, in unpadded base64url (RFC 4648 §5, no '='), a 24-byte
//     random nonce (drawn for each line) followed by the XChaCha20-Poly1305
//     ciphertext and its 16-byte tag: the entry's canonical encoding sealed
//     under the key of generation <gen>, with as associated data the line's
//     bytes before the space ahead of <sealed>, "SFJ2 <seq> <gen>";
//   - <crc> is the CRC-32C (Castagnoli) of the line's bytes before the
//     space ahead of it, in 8 lowercase hex digits.
//
// No hash of the entry is in clear: the entries are small and partly
// guessable, and a hash would let anyone with the file test guesses (of a
// block's seed, say); the chain's hash is inside the sealed entry, and the
// tag authenticates it. The associated data binds the line to its number
// and key generation. The CRC is no protection (anyone can recompute it,
// the tag is what protects): it is over bytes that are public anyway and
// tells, without the key, a line as written from a torn or damaged one. So
// Open cuts a torn last line, as with clear lines, but never a whole line
// that does not open, which is a wrong key or a forged line.
const (
	magic       = "SFJ1"
	magicSealed = "SFJ2"
)

// nonceSize and tagSize are XChaCha20-Poly1305's (chacha20poly1305.NonceSizeX
// and Overhead).
const (
	nonceSize = 24
	tagSize   = 16
)

var b64 = base64.RawURLEncoding

// b64Strict also refuses non-zero trailing bits, so that one entry has one
// spelling. Like every Go decoder it skips '\r' and '\n': the parsers
// refuse those first.
var b64Strict = b64.Strict()

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// AppendLine appends e's clear (SFJ1) journal line, newline included, to
// dst.
func AppendLine(dst []byte, e engine.JournalEntry) ([]byte, error) {
	raw, err := e.MarshalBinary()
	if err != nil {
		return dst, fmt.Errorf("encode journal entry %d: %w", e.Seq, err)
	}
	return appendClear(dst, e.Seq, raw, sha256.Sum256(raw)), nil
}

// ParseLine decodes one clear (SFJ1) journal line (with or without its
// newline) and checks it: the format, the number against the entry's, and
// the hash against the entry's encoding. Every failure wraps
// engine.ErrCorrupt and says what is wrong.
func ParseLine(line []byte) (engine.JournalEntry, error) {
	var plain codec
	e, _, _, err := plain.parse(line, nil)
	if err != nil {
		return e, err
	}
	return e, nil
}

func appendClear(dst []byte, seq uint64, raw []byte, h engine.Hash) []byte {
	dst = append(dst, magic...)
	dst = append(dst, ' ')
	dst = strconv.AppendUint(dst, seq, 10)
	dst = append(dst, ' ')
	dst = b64.AppendEncode(dst, raw)
	dst = append(dst, ' ')
	dst = hex.AppendEncode(dst, h[:])
	return append(dst, '\n')
}

// codec formats and parses the lines of one journal: clear lines when it
// has no keys, else sealed lines, under keys[0] for new lines. It holds no
// buffers, so that Append and Entries can use it at once.
type codec struct {
	keys []genKey
}

type genKey struct {
	gen  uint32
	aead cipher.AEAD // stateless: safe for concurrent use
}

func (c *codec) sealed() bool { return len(c.keys) > 0 }

func (c *codec) key(gen uint32) cipher.AEAD {
	for _, k := range c.keys {
		if k.gen == gen {
			return k.aead
		}
	}
	return nil
}

// appendLine appends the line of the entry numbered seq, of canonical
// encoding raw and hash h, to dst. A sealed line's nonce and ciphertext
// go through *scratch, grown as needed and kept for the next line.
func (c *codec) appendLine(dst []byte, seq uint64, raw []byte, h engine.Hash, scratch *[]byte) []byte {
	if !c.sealed() {
		return appendClear(dst, seq, raw, h)
	}
	k := c.keys[0]
	start := len(dst)
	dst = append(dst, magicSealed...)
	dst = append(dst, ' ')
	dst = strconv.AppendUint(dst, seq, 10)
	dst = append(dst, ' ')
	dst = strconv.AppendUint(dst, uint64(k.gen), 10)
	sealed := grow((*scratch)[:0], nonceSize+len(raw)+tagSize)[:nonceSize]
	rand.Read(sealed) // never fails (it crashes the program instead)
	sealed = k.aead.Seal(sealed, sealed, raw, dst[start:])
	*scratch = sealed
	dst = append(dst, ' ')
	dst = b64.AppendEncode(dst, sealed)
	return appendCRC(dst, dst[start:])
}

// appendCRC appends " <crc of over>\n".
func appendCRC(dst, over []byte) []byte {
	var sum [4]byte
	binary.BigEndian.PutUint32(sum[:], crc32.Checksum(over, castagnoli))
	dst = append(dst, ' ')
	dst = hex.AppendEncode(dst, sum[:])
	return append(dst, '\n')
}

func grow(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		b = append(make([]byte, 0, len(b)+n), b...)
	}
	return b
}

// failKind sorts the lines a codec refuses by what the file makes of them.
type failKind int

const (
	// broken: not the bytes of a line as written (a clear line that fails
	// its hash, a sealed one that fails its CRC, or no line at all): a
	// torn write, cut if it is the last line, or damage.
	broken failKind = iota
	// invalid: a whole line, sealed under a key given, that should not have
	// been written so (bad fields, an entry that does not decode or is not
	// numbered as its line): damage, never cut.
	invalid
	// otherFormat: a whole line of the format the codec does not write (a
	// clear line in a sealed journal, a sealed one in a clear journal).
	otherFormat
	// noKey: a whole sealed line of a generation no key is given for.
	noKey
	// unauthentic: a whole sealed line whose key is given, that does not
	// open under it: a wrong key, or a line forged or altered.
	unauthentic
)

// lineError is a refused line; it wraps engine.ErrCorrupt, and the file
// turns the kinds that can mean a wrong key into ErrWrongKey.
type lineError struct {
	kind failKind
	gen  uint32 // of a sealed line, for noKey and unauthentic
	msg  string
}

func (e *lineError) Error() string { return engine.ErrCorrupt.Error() + ": " + e.msg }
func (e *lineError) Unwrap() error { return engine.ErrCorrupt }

func fail(kind failKind, format string, a ...any) *lineError {
	return &lineError{kind: kind, msg: fmt.Sprintf(format, a...)}
}

// parse decodes and checks one line, with or without its newline; it
// returns the entry, its hash and its canonical encoding, or a *lineError.
// scratch, if not nil, holds the decoded bytes and is kept for the next
// line: the encoding returned is valid until then (the entry keeps nothing
// of it).
func (c *codec) parse(line []byte, scratch *[]byte) (engine.JournalEntry, engine.Hash, []byte, *lineError) {
	line = bytes.TrimSuffix(line, []byte{'\n'})
	var (
		seq uint64
		raw []byte
		h   engine.Hash
		err *lineError
	)
	switch {
	case bytes.HasPrefix(line, []byte(magicSealed+" ")):
		seq, raw, h, err = c.openSealed(line, scratch)
	case bytes.HasPrefix(line, []byte(magic+" ")) || !c.sealed():
		seq, raw, h, err = c.openClear(line, scratch)
	default:
		err = fail(broken, "journal line %q…: does not start with %q", clip(line), magicSealed+" ")
	}
	if err != nil {
		return engine.JournalEntry{}, engine.Hash{}, nil, err
	}
	// Past this point the line is as written (its hash or its tag verify):
	// a failure is damage, not a torn write, except in a clear journal,
	// where any bad line is cut if it is the last (as it was before
	// sealing).
	kind := invalid
	if !c.sealed() {
		kind = broken
	}
	var e engine.JournalEntry
	if err := e.UnmarshalBinary(raw); err != nil {
		return engine.JournalEntry{}, engine.Hash{}, nil, fail(kind, "journal entry %d: %v", seq, err)
	}
	if e.Seq != seq {
		return engine.JournalEntry{}, engine.Hash{}, nil, fail(kind, "journal line numbered %d holds entry %d", seq, e.Seq)
	}
	// The hash chain is computed over the canonical encoding: an entry that
	// decodes but encodes differently would chain to a hash nobody wrote.
	if again, _ := e.MarshalBinary(); !bytes.Equal(again, raw) {
		return engine.JournalEntry{}, engine.Hash{}, nil, fail(kind, "journal entry %d: not in canonical encoding", seq)
	}
	return e, h, raw, nil
}

// openClear checks a clear line's format and hash and returns its number,
// the entry's encoding and its hash. In a sealed journal a clear line that
// checks is otherFormat.
func (c *codec) openClear(line []byte, scratch *[]byte) (uint64, []byte, engine.Hash, *lineError) {
	var f [4][]byte
	if !split(line, f[:]) {
		return 0, nil, engine.Hash{}, fail(broken, "journal line has %d fields, want 4 (%s seq entry hash)", bytes.Count(line, []byte{' '})+1, magic)
	}
	if string(f[0]) != magic {
		return 0, nil, engine.Hash{}, fail(broken, "journal line starts with %q, want %q", clip(f[0]), magic)
	}
	seq, ok := parseDec(f[1], 64)
	if !ok {
		return 0, nil, engine.Hash{}, fail(broken, "journal line number %q is not a decimal number", clip(f[1]))
	}
	if bytes.ContainsAny(f[2], "\r\n") {
		return 0, nil, engine.Hash{}, fail(broken, "journal entry %d: line break inside the entry", seq)
	}
	raw, err := decode64(f[2], scratch)
	if err != nil {
		return 0, nil, engine.Hash{}, fail(broken, "journal entry %d: bad base64url: %v", seq, err)
	}
	var want engine.Hash
	if len(f[3]) != 2*len(want) || !lowerHex(f[3]) {
		return 0, nil, engine.Hash{}, fail(broken, "journal entry %d: hash %q is not %d lowercase hex digits", seq, clip(f[3]), 2*len(want))
	}
	hex.Decode(want[:], f[3])
	h := engine.Hash(sha256.Sum256(raw))
	if h != want {
		return 0, nil, engine.Hash{}, fail(broken, "journal entry %d: hash mismatch: line says %s, entry hashes to %s", seq, want, h)
	}
	if c.sealed() {
		return 0, nil, engine.Hash{}, fail(otherFormat, "journal entry %d: a clear (%s) line in a sealed journal", seq, magic)
	}
	return seq, raw, h, nil
}

// openSealed checks a sealed line's format, CRC and tag and returns its
// number, the entry's encoding and its hash.
func (c *codec) openSealed(line []byte, scratch *[]byte) (uint64, []byte, engine.Hash, *lineError) {
	f, seq, gen, lerr := sealedFields(line)
	if lerr != nil {
		return 0, nil, engine.Hash{}, lerr
	}
	refuse := func(kind failKind, format string, a ...any) (uint64, []byte, engine.Hash, *lineError) {
		e := fail(kind, "journal entry %d: "+format, append([]any{seq}, a...)...)
		e.gen = gen
		return 0, nil, engine.Hash{}, e
	}
	if !c.sealed() {
		return refuse(otherFormat, "a sealed (%s) line in a clear journal", magicSealed)
	}
	aead := c.key(gen)
	if aead == nil {
		return refuse(noKey, "sealed under key generation %d, for which no key is given", gen)
	}
	if bytes.ContainsAny(f[3], "\r\n") {
		return refuse(invalid, "line break inside the entry")
	}
	sealed, err := decode64(f[3], scratch)
	if err != nil {
		return refuse(invalid, "bad base64url: %v", err)
	}
	if len(sealed) < nonceSize+tagSize {
		return refuse(invalid, "%d sealed bytes, fewer than a nonce and a tag", len(sealed))
	}
	aad := line[:len(f[0])+len(f[1])+len(f[2])+2]
	raw, err := aead.Open(sealed[nonceSize:nonceSize], sealed[:nonceSize], sealed[nonceSize:], aad)
	if err != nil {
		return refuse(unauthentic, "does not authenticate under the key of generation %d", gen)
	}
	return seq, raw, sha256.Sum256(raw), nil
}

// sealedFields splits a sealed line (without its newline) into its fields
// and checks what can be checked without a key: the CRC, then the number
// and the key generation.
func sealedFields(line []byte) (f [5][]byte, seq uint64, gen uint32, err *lineError) {
	// Until the CRC checks, the line's start, quoted, is what names it.
	if !split(line, f[:]) {
		return f, 0, 0, fail(broken, "journal line %q…: %d fields, want 5 (%s seq gen sealed crc)",
			clip(line), bytes.Count(line, []byte{' '})+1, magicSealed)
	}
	if len(f[4]) != 8 || !lowerHex(f[4]) {
		return f, 0, 0, fail(broken, "journal line %q…: CRC %q is not 8 lowercase hex digits", clip(line), clip(f[4]))
	}
	var sum [4]byte
	hex.Decode(sum[:], f[4])
	if crc32.Checksum(line[:len(line)-len(f[4])-1], castagnoli) != binary.BigEndian.Uint32(sum[:]) {
		return f, 0, 0, fail(broken, "journal line %q…: CRC mismatch: torn or damaged", clip(line))
	}
	// The line is as written: what follows is not a torn write.
	seq, ok := parseDec(f[1], 64)
	if !ok {
		return f, 0, 0, fail(invalid, "journal line number %q is not a decimal number", clip(f[1]))
	}
	g, ok := parseDec(f[2], 32)
	if !ok {
		return f, 0, 0, fail(invalid, "journal entry %d: key generation %q is not a decimal number", seq, clip(f[2]))
	}
	return f, seq, uint32(g), nil
}

// sealedGen is the key generation of a whole sealed line.
func sealedGen(line []byte) (uint32, bool) {
	line = bytes.TrimSuffix(line, []byte{'\n'})
	if !bytes.HasPrefix(line, []byte(magicSealed+" ")) {
		return 0, false
	}
	_, _, gen, err := sealedFields(line)
	return gen, err == nil
}

// split cuts line at spaces into exactly len(f) fields.
func split(line []byte, f [][]byte) bool {
	rest := line
	for i := range f {
		if i == len(f)-1 {
			f[i] = rest
			return bytes.IndexByte(rest, ' ') < 0
		}
		var ok bool
		if f[i], rest, ok = bytes.Cut(rest, []byte{' '}); !ok {
			return false
		}
	}
	return true
}

// parseDec parses a decimal number of at most bits bits, without sign or
// leading zeros, so that a number has one spelling.
func parseDec(b []byte, bits int) (uint64, bool) {
	if len(b) == 0 || len(b) > 20 || (b[0] == '0' && len(b) > 1) {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (1<<64-1-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, bits == 64 || n < 1<<bits
}

func lowerHex(b []byte) bool {
	for _, c := range b {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// decode64 decodes strict base64url into *scratch (or a new buffer if
// scratch is nil).
func decode64(s []byte, scratch *[]byte) ([]byte, error) {
	var buf []byte
	if scratch != nil {
		buf = *scratch
	}
	buf = grow(buf[:0], b64.DecodedLen(len(s)))[:b64.DecodedLen(len(s))]
	if scratch != nil {
		*scratch = buf
	}
	n, err := b64Strict.Decode(buf, s)
	return buf[:n], err
}

// clip shortens a field quoted in an error.
func clip(b []byte) []byte {
	if len(b) > 24 {
		return b[:24]
	}
	return b
}
