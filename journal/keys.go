package journal

import (
	"errors"
	"fmt"

	"golang.org/x/crypto/chacha20poly1305"
)

// Key is one generation of the journal's data key. A zero Secret is
// refused: it is a key missing, not a key.
type Key struct {
	Gen    uint32
	Secret [32]byte
}

// Keys are what a journal is opened with: Current seals the new lines, and
// opens lines of its generation; Older opens the lines of earlier
// generations, which a journal holds while a rotation is under way (a new
// key made current, Reseal not yet done or cut short); two keys given for
// one generation must be the same. The zero Keys is
// refused, so that a key forgotten on the way does not silently give a
// journal in clear: a clear journal is opened with Plain.
type Keys struct {
	Current Key
	Older   []Key
	plain   bool
}

// Plain opens a journal of clear (SFJ1) lines, the format from before
// sealing: to Reseal an existing journal from, and for tests and tools that
// want no key.
var Plain = Keys{plain: true}

// ErrWrongKey: the keys given do not open the journal: the lines of some
// key generation are sealed under another key than the one given for it,
// or no key is given for their generation (a sealed journal opened as
// Plain, an old key dropped before its Reseal, keys older than the
// journal). A sealed line that does not authenticate is told from damage
// so: if other lines of its generation do, it is damage or forgery
// (engine.ErrCorrupt); if none does, the key is wrong. ErrWrongKey wraps
// neither engine.ErrCorrupt nor engine.ErrStorage, so that a caller tells
// a wrong key from a damaged journal.
var ErrWrongKey = errors.New("journal: wrong key")

// ErrNotSealed: the journal opened with keys is in clear lines, from before
// sealing: Reseal it from Plain to the keys. It wraps neither
// engine.ErrCorrupt nor ErrWrongKey. (A clear line in a sealed journal,
// which anyone can write, is engine.ErrCorrupt.)
var ErrNotSealed = errors.New("journal: not sealed")

// codec checks the keys and makes their codec.
func (k Keys) codec() (*codec, error) {
	if k.plain {
		if k.Current != (Key{}) || len(k.Older) > 0 {
			return nil, errors.New("journal: keys given with Plain")
		}
		return &codec{}, nil
	}
	if k.Current == (Key{}) && len(k.Older) == 0 {
		return nil, errors.New("journal: no key given (journal.Plain opens a journal in clear)")
	}
	c := &codec{}
	secrets := map[uint32][32]byte{}
	for _, key := range append([]Key{k.Current}, k.Older...) {
		if key.Secret == ([32]byte{}) {
			return nil, fmt.Errorf("journal: the key of generation %d is zero: not a key", key.Gen)
		}
		if s, dup := secrets[key.Gen]; dup {
			if s != key.Secret {
				return nil, fmt.Errorf("journal: two different keys given for generation %d", key.Gen)
			}
			continue
		}
		secrets[key.Gen] = key.Secret
		aead, err := chacha20poly1305.NewX(key.Secret[:])
		if err != nil {
			return nil, fmt.Errorf("journal: key of generation %d: %w", key.Gen, err)
		}
		c.keys = append(c.keys, genKey{gen: key.Gen, aead: aead})
	}
	return c, nil
}
