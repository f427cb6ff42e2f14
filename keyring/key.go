package keyring

import (
	"crypto/hkdf"
	"crypto/sha256"
	"fmt"
	"slices"
)

// The HKDF-SHA256 info strings of the purpose keys, byte for byte (ASCII,
// no terminator). The salt is empty. Changing one changes every key derived
// with it: the data written under the old one no longer opens.
const (
	infoBadger  = "starfortune/keyring/v1/badger"
	infoJournal = "starfortune/keyring/v1/journal"
	infoBackup  = "starfortune/keyring/v1/backup"
)

const redacted = "keyring.Key(redacted)"

// Key is one generation of the data key. Its bytes never leave the
// package: callers get purpose keys derived from it, so the store, the
// journal and the backups never share a key.
//
// Printing a Key with any fmt verb gives "keyring.Key(redacted)". Its
// bytes are hidden too from a print that does not call Format (a Key in
// an unexported field of a caller's struct): see hidden.
type Key struct {
	gen uint32
	b   hidden[[32]byte]
}

// hidden holds a secret where fmt does not print it. fmt prints an
// unexported field by reflection, without its Format method, and follows
// a pointer to an array or a struct at the top of a bad verb's output
// ("%!s(*[32]uint8=&[…])", a test found it); it never follows a pointer to
// a pointer, which it prints as an address.
type hidden[T any] struct{ p **T }

func hide[T any](v *T) hidden[T] { return hidden[T]{&v} }

// get is the secret, nil for the zero hidden.
func (h hidden[T]) get() *T {
	if h.p == nil {
		return nil
	}
	return *h.p
}

// Gen is the key's generation number (1 for the first data key, one more
// at each rotation).
func (k Key) Gen() uint32 { return k.gen }

// Badger is the 32-byte master key for Badger's WithEncryptionKey
// (AES-256).
func (k Key) Badger() []byte { return k.derive(infoBadger) }

// Journal is the key of the journal's sealed lines.
func (k Key) Journal() [32]byte { return [32]byte(k.derive(infoJournal)) }

// Backup is the key of sealed backup streams (NewSealWriter).
func (k Key) Backup() [32]byte { return [32]byte(k.derive(infoBackup)) }

func (k Key) derive(info string) []byte {
	b := k.b.get()
	if b == nil {
		// A zero Key is a caller's bug (an unchecked Gen or Previous);
		// deriving from zeros would encrypt under a public key.
		panic("keyring: purpose key derived from a zero Key")
	}
	out, err := hkdf.Key(sha256.New, b[:], nil, info, 32)
	if err != nil {
		panic("keyring: hkdf: " + err.Error()) // only for lengths out of range
	}
	return out
}

// String, GoString and Format print "keyring.Key(redacted)", so that a key
// passed to a logger by mistake leaks nothing.
func (k Key) String() string { return redacted }

// GoString is String, for %#v.
func (k Key) GoString() string { return redacted }

// Format answers every verb (%v, %x, %d, %q…) with the redacted text.
func (k Key) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(redacted)) }

// Keys is what an unlock gives: the current generation of the data key,
// and the previous one while a rotation is in progress. It also holds the
// keyring's wrapping key, which the Ring's methods need to re-seal a slot;
// that is why they take a Keys. Printing Keys shows only the generation
// numbers.
type Keys struct {
	ringID [16]byte
	epoch  uint32
	wrap   hidden[[32]byte]
	gens   []Key // ascending, the last is current
}

// Current is the generation to encrypt new data with.
func (k Keys) Current() Key {
	if len(k.gens) == 0 {
		return Key{}
	}
	return k.gens[len(k.gens)-1]
}

// Previous is the older generation while a rotation is in progress:
// data not yet re-encrypted is under it.
func (k Keys) Previous() (Key, bool) {
	if len(k.gens) < 2 {
		return Key{}, false
	}
	return k.gens[len(k.gens)-2], true
}

// Gen is generation n, if the keys hold it (a sealed stream or a journal
// line names the generation it was written with).
func (k Keys) Gen(n uint32) (Key, bool) {
	for _, g := range k.gens {
		if g.gen == n {
			return g, true
		}
	}
	return Key{}, false
}

// Generations lists the generation numbers held, oldest first.
func (k Keys) Generations() []uint32 {
	out := make([]uint32, len(k.gens))
	for i, g := range k.gens {
		out[i] = g.gen
	}
	return out
}

func (k Keys) String() string {
	switch len(k.gens) {
	case 0:
		return "keyring.Keys(none)"
	case 1:
		return fmt.Sprintf("keyring.Keys(gen %d, redacted)", k.gens[0].gen)
	default:
		return fmt.Sprintf("keyring.Keys(gen %d, previous %d, redacted)", k.gens[1].gen, k.gens[0].gen)
	}
}

// GoString is String, for %#v.
func (k Keys) GoString() string { return k.String() }

// Format answers every verb with String, never the bytes.
func (k Keys) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(k.String())) }

// matches reports whether k was unlocked from state s: same ring, same
// wrapping key, same generations.
func (k Keys) matches(s *state) bool {
	return k.wrap.get() != nil && k.ringID == s.id && k.epoch == s.epoch &&
		slices.Equal(k.Generations(), s.gens)
}
