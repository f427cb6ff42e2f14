package keyring

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"fmt"

	"golang.org/x/crypto/chacha20poly1305"
)

// The keyring file's layout; doc.go describes it for a reader.
const (
	magic = "STARFORTUNE-KEYRING 1\n"

	idSize       = 16
	fixedSize    = len(magic) + idSize + 4 // magic, ring id, epoch: H
	keySize      = 32
	nonceSize    = chacha20poly1305.NonceSizeX // 24
	tagSize      = chacha20poly1305.Overhead   // 16
	saltSize     = 16
	slotHeadSize = 1 + 8 + 4 + 4 + 1 + saltSize // kind … salt: bound into the slot's seal
	slotSize     = slotHeadSize + nonceSize + keySize + tagSize
	sumSize      = sha256.Size

	maxGens  = 2 // two only while a rotation is in progress
	maxSlots = 3 // one of each kind

	// maxFile bounds what Load reads: the largest valid file is smaller.
	maxFile = 4 << 10
)

// SlotKind is what opens a slot.
type SlotKind uint8

// The slot kinds, as stored in the file.
const (
	// SlotPassphrase: a KEK derived from a passphrase with Argon2id.
	SlotPassphrase SlotKind = 1
	// SlotCentral: a 32-byte KEK that a fleet kiosk gets from its central.
	SlotCentral SlotKind = 2
	// SlotDemo: a KEK kept in clear in the demo key file. No secrecy.
	SlotDemo SlotKind = 3
)

func (k SlotKind) String() string {
	switch k {
	case SlotPassphrase:
		return "passphrase"
	case SlotCentral:
		return "central"
	case SlotDemo:
		return "demo"
	}
	return fmt.Sprintf("SlotKind(%d)", uint8(k))
}

// Argon2Params is the cost of deriving a passphrase slot's KEK with
// Argon2id. A slot stores the params it was sealed with, so changing
// PassphraseCost affects only passphrases set afterwards.
type Argon2Params struct {
	Time      uint32 // passes over the memory
	MemoryKiB uint32 // memory, in KiB
	Threads   uint8  // lanes
}

// Bounds on Argon2 params. A slot's params are read from the file before
// they can be authenticated, so Load refuses what would exhaust the kiosk
// (a tampered memory cost of 4 TiB) or make x/crypto panic (zero passes or
// lanes).
const (
	maxArgonTime   = 64
	maxArgonMemory = 1 << 20 // KiB: 1 GiB
)

func (p Argon2Params) valid() error {
	switch {
	case p.Time < 1 || p.Time > maxArgonTime:
		return fmt.Errorf("argon2 time %d out of range 1…%d", p.Time, maxArgonTime)
	case p.Threads < 1:
		return fmt.Errorf("argon2 threads 0")
	case p.MemoryKiB < 8*uint32(p.Threads) || p.MemoryKiB > maxArgonMemory:
		return fmt.Errorf("argon2 memory %d KiB out of range %d…%d", p.MemoryKiB, 8*uint32(p.Threads), maxArgonMemory)
	}
	return nil
}

// state is a keyring file, decoded. Nothing in it is secret: the keys are
// sealed.
type state struct {
	id           [idSize]byte
	epoch        uint32
	gens         []uint32 // ascending and consecutive, the last is current
	payloadNonce [nonceSize]byte
	payload      []byte // the generations' keys, sealed under the wrapping key
	slots        []slot
}

type slot struct {
	kind    SlotKind
	created int64 // Unix seconds
	argon   Argon2Params
	salt    [saltSize]byte
	nonce   [nonceSize]byte
	sealed  [keySize + tagSize]byte // the wrapping key, sealed under the slot's KEK
}

// fixed is H, the bytes every seal of this ring binds: the format version
// (in the magic line), the ring and its wrapping-key epoch.
func (s *state) fixed() []byte {
	b := make([]byte, 0, fixedSize)
	b = append(b, magic...)
	b = append(b, s.id[:]...)
	return binary.BigEndian.AppendUint32(b, s.epoch)
}

// payloadAD binds the payload to H and to the list of generations.
func (s *state) payloadAD() []byte {
	b := append(s.fixed(), byte(len(s.gens)))
	for _, g := range s.gens {
		b = binary.BigEndian.AppendUint32(b, g)
	}
	return b
}

// head is the slot's bytes before its nonce.
func (sl *slot) head() []byte {
	b := make([]byte, 0, slotHeadSize)
	b = append(b, byte(sl.kind))
	b = binary.BigEndian.AppendUint64(b, uint64(sl.created))
	b = binary.BigEndian.AppendUint32(b, sl.argon.Time)
	b = binary.BigEndian.AppendUint32(b, sl.argon.MemoryKiB)
	b = append(b, sl.argon.Threads)
	return append(b, sl.salt[:]...)
}

// slotAD binds a slot to H and to its own kind, date, params and salt: it
// cannot be relabelled, moved to another keyring, or kept across a
// rotation.
func (s *state) slotAD(sl *slot) []byte {
	return append(s.fixed(), sl.head()...)
}

func (s *state) slot(kind SlotKind) *slot {
	for i := range s.slots {
		if s.slots[i].kind == kind {
			return &s.slots[i]
		}
	}
	return nil
}

func (s *state) demo() bool { return s.slot(SlotDemo) != nil }

func (s *state) encode() []byte {
	b := s.payloadAD()
	b = append(b, s.payloadNonce[:]...)
	b = append(b, s.payload...)
	b = append(b, byte(len(s.slots)))
	for i := range s.slots {
		sl := &s.slots[i]
		b = append(b, sl.head()...)
		b = append(b, sl.nonce[:]...)
		b = append(b, sl.sealed[:]...)
	}
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

// decode parses and checks a keyring file. Everything a reader can check
// without a key is checked here, so that an error names the part: the
// checksum first (accidental damage), then each field. Its errors are the
// detail that Load wraps with ErrDamaged and the path.
func decode(b []byte) (*state, error) {
	damaged := fmt.Errorf
	if len(b) < len(magic) || !bytes.Equal(b[:len(magic)], []byte(magic)) {
		if bytes.HasPrefix(b, []byte("STARFORTUNE-KEYRING ")) {
			return nil, damaged("unknown format version %q", firstLine(b))
		}
		return nil, damaged("not a Star Fortune keyring (no %q line)", magic[:len(magic)-1])
	}
	if len(b) < fixedSize+1+sumSize {
		return nil, damaged("file truncated (%d bytes)", len(b))
	}
	body, sum := b[:len(b)-sumSize], b[len(b)-sumSize:]
	if want := sha256.Sum256(body); subtle.ConstantTimeCompare(sum, want[:]) != 1 {
		return nil, damaged("checksum does not match (file truncated, altered or corrupted)")
	}

	r := reader{b: body[len(magic):]}
	s := &state{}
	copy(s.id[:], r.next(idSize))
	s.epoch = binary.BigEndian.Uint32(r.next(4))
	if s.epoch == 0 {
		return nil, damaged("epoch 0")
	}
	n := int(r.byte())
	if n < 1 || n > maxGens {
		return nil, damaged("%d key generations (want 1 or 2)", n)
	}
	for i := range n {
		g := binary.BigEndian.Uint32(r.next(4))
		if r.short {
			return nil, damaged("header truncated")
		}
		if g == 0 || (i > 0 && g != s.gens[i-1]+1) {
			return nil, damaged("generation list %v then %d (want consecutive, from 1)", s.gens, g)
		}
		s.gens = append(s.gens, g)
	}
	copy(s.payloadNonce[:], r.next(nonceSize))
	s.payload = bytes.Clone(r.next(n*(4+keySize) + tagSize))
	m := int(r.byte())
	if r.short {
		return nil, damaged("header truncated")
	}
	if m < 1 || m > maxSlots {
		return nil, damaged("%d slots (want 1 to %d)", m, maxSlots)
	}
	for i := range m {
		h := reader{b: r.next(slotSize)}
		if r.short {
			return nil, damaged("slot %d truncated", i+1)
		}
		sl := slot{kind: SlotKind(h.byte())}
		sl.created = int64(binary.BigEndian.Uint64(h.next(8)))
		sl.argon.Time = binary.BigEndian.Uint32(h.next(4))
		sl.argon.MemoryKiB = binary.BigEndian.Uint32(h.next(4))
		sl.argon.Threads = h.byte()
		copy(sl.salt[:], h.next(saltSize))
		copy(sl.nonce[:], h.next(nonceSize))
		copy(sl.sealed[:], h.next(keySize+tagSize))
		switch sl.kind {
		case SlotPassphrase:
			if err := sl.argon.valid(); err != nil {
				return nil, damaged("slot %d (passphrase): %v", i+1, err)
			}
		case SlotCentral, SlotDemo:
			if sl.argon != (Argon2Params{}) || sl.salt != [saltSize]byte{} {
				return nil, damaged("slot %d (%s): argon2 fields not zero", i+1, sl.kind)
			}
		default:
			return nil, damaged("slot %d: unknown kind %d", i+1, uint8(sl.kind))
		}
		if s.slot(sl.kind) != nil {
			return nil, damaged("two %s slots", sl.kind)
		}
		s.slots = append(s.slots, sl)
	}
	if len(r.b) != 0 {
		return nil, damaged("%d bytes after the last slot", len(r.b))
	}
	if s.demo() && len(s.slots) != 1 {
		return nil, damaged("a demo slot beside other slots")
	}
	return s, nil
}

func firstLine(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	if len(b) > 40 {
		b = b[:40]
	}
	return string(b)
}

// reader takes fields off a byte slice; past the end it returns zeros and
// sets short, so decode checks once instead of at every field.
type reader struct {
	b     []byte
	short bool
}

func (r *reader) next(n int) []byte {
	if len(r.b) < n {
		r.short = true
		r.b = nil
		return make([]byte, n)
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) byte() byte { return r.next(1)[0] }
