package keyring

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/chacha20poly1305"
)

// MinPassphraseLength is the fewest characters (Unicode code points) a new
// passphrase may have. Argon2id makes each guess cost, but only length
// makes the guesses many.
const MinPassphraseLength = 8

// DefaultPassphraseCost is the Argon2id cost of a kiosk's passphrase slot:
// 3 passes over 64 MiB with 2 lanes, about 0.2 s of CPU (doc.go gives the
// measures). It is paid at each unlock and at each passphrase set, and by
// an attacker at each guess.
var DefaultPassphraseCost = Argon2Params{Time: 3, MemoryKiB: 64 << 10, Threads: 2}

// PassphraseCost is the cost given to passphrase slots sealed from now on.
// Tests lower it (for example to {Time: 1, MemoryKiB: 64, Threads: 1}) so
// that a passphrase costs microseconds; a slot keeps the cost it was
// sealed with, so unlocking follows the file, not this variable.
var PassphraseCost = DefaultPassphraseCost

// Ring is a keyring file, loaded. It holds nothing secret: unlocking gives
// Keys. Its methods are safe for concurrent use, and the ones that write
// replace the file atomically. A write first checks that the file is still
// the one this Ring read (ErrStale otherwise), but two processes changing
// one keyring at the same moment are not kept apart: the caller holds the
// data directory (as Badger's lock does) while it changes the keyring.
type Ring struct {
	mu   sync.Mutex
	path string
	raw  []byte // the file's bytes as last read or written
	st   *state
}

// SlotInfo describes a slot without anything secret, for `key status`.
type SlotInfo struct {
	Kind SlotKind
	// Created is when the slot was sealed: set, or re-sealed by a
	// rotation.
	Created time.Time
	// Argon2 is the passphrase slot's cost; zero for other kinds.
	Argon2 Argon2Params
}

// Credential is what seals a slot, given to BeginRotation (which must
// re-seal every slot under a new wrapping key). Printing one shows only its
// kind; its secret sits behind a pointer for the reason Key's does.
type Credential struct {
	c hidden[credential]
}

type credential struct {
	kind   SlotKind
	secret []byte // the passphrase or the central's KEK
	path   string // the demo key file
}

// Passphrase is the credential of the passphrase slot.
func Passphrase(pass []byte) Credential {
	return Credential{hide(&credential{kind: SlotPassphrase, secret: pass})}
}

// Central is the credential of the central slot: the central's 32-byte KEK.
func Central(kek []byte) Credential {
	return Credential{hide(&credential{kind: SlotCentral, secret: kek})}
}

// DemoKey is the credential of a demo keyring's slot: its demo key file.
func DemoKey(path string) Credential {
	return Credential{hide(&credential{kind: SlotDemo, path: path})}
}

func (c Credential) get() credential {
	if p := c.c.get(); p != nil {
		return *p
	}
	return credential{}
}

func (c Credential) String() string {
	return "keyring.Credential(" + c.get().kind.String() + ", redacted)"
}

// GoString is String, for %#v.
func (c Credential) GoString() string { return c.String() }

// Format answers every verb with String, never the secret.
func (c Credential) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(c.String())) }

// random fills b from the system's generator (crypto/rand never fails
// since Go 1.24: it ends the program instead).
func random(b []byte) { _, _ = rand.Read(b) }

func checkPassphrase(pass []byte) error {
	if n := utf8.RuneCount(pass); n < MinPassphraseLength {
		return fmt.Errorf("%w: %d characters, at least %d needed", ErrWeakPassphrase, n, MinPassphraseLength)
	}
	return nil
}

func checkKEK(kek []byte) error {
	if len(kek) != keySize {
		return fmt.Errorf("%w: the central's key has %d bytes, want %d", ErrWrongKey, len(kek), keySize)
	}
	return nil
}

// CreatePassphrase creates the keyring at path for a new data directory:
// a random data key, generation 1, in one passphrase slot. It refuses a
// weak passphrase and an existing file (an error wrapping fs.ErrExist):
// replacing a keyring would lose the data under it.
func CreatePassphrase(path string, pass []byte) (*Ring, Keys, error) {
	if err := checkPassphrase(pass); err != nil {
		return nil, Keys{}, err
	}
	return create(path, func(s *state, wrap *[32]byte) error {
		return s.setPassphrase(wrap, pass)
	})
}

// CreateCentral creates the keyring of a new fleet kiosk's data directory
// in one central slot, sealed under the 32-byte KEK its central keeps for
// it. Add a passphrase slot (SetPassphrase) for starts without the central.
func CreateCentral(path string, kek []byte) (*Ring, Keys, error) {
	if err := checkKEK(kek); err != nil {
		return nil, Keys{}, err
	}
	return create(path, func(s *state, wrap *[32]byte) error {
		s.setSlot(SlotCentral, Argon2Params{}, (*[32]byte)(kek), wrap)
		return nil
	})
}

// CreateDemo creates a demo keyring at path: its only slot's KEK is written
// in clear to demoKeyPath (normally DATA/DEMO-KEY-NOT-SECRET). A demo
// keyring keeps the layout of a real one, so the demo exercises the same
// code, but gives no secrecy; Ring.Demo reports it so the caller can
// refuse real money.
func CreateDemo(path, demoKeyPath string) (*Ring, Keys, error) {
	if _, err := os.Lstat(path); err == nil {
		return nil, Keys{}, fmt.Errorf("keyring: create %s: %w", path, fs.ErrExist)
	}
	kek, err := demoKey(demoKeyPath)
	if err != nil {
		return nil, Keys{}, err
	}
	return create(path, func(s *state, wrap *[32]byte) error {
		s.setSlot(SlotDemo, Argon2Params{}, kek, wrap)
		return nil
	})
}

func create(path string, seal func(*state, *[32]byte) error) (*Ring, Keys, error) {
	// Checked before sealing too: a passphrase slot costs an Argon2 run.
	if _, err := os.Lstat(path); err == nil {
		return nil, Keys{}, fmt.Errorf("keyring: create %s: %w", path, fs.ErrExist)
	}
	s := &state{epoch: 1, gens: []uint32{1}}
	random(s.id[:])
	wrap, key := new([32]byte), new([32]byte)
	random(wrap[:])
	random(key[:])
	keys := []Key{{gen: 1, b: hide(key)}}
	s.sealPayload(wrap, keys)
	if err := seal(s, wrap); err != nil {
		return nil, Keys{}, err
	}
	raw := s.encode()
	if err := writeFile(path, raw, true); err != nil {
		return nil, Keys{}, err
	}
	return &Ring{path: path, raw: raw, st: s}, s.keys(wrap, keys), nil
}

// Load reads the keyring at path and checks its layout and checksum. A
// missing file is an error wrapping ErrNoRing (and fs.ErrNotExist); a
// damaged one wraps ErrDamaged and says which part.
func Load(path string) (*Ring, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %w", ErrNoRing, err)
	}
	if err != nil {
		return nil, fmt.Errorf("keyring: %w", err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, fmt.Errorf("keyring: %w", err)
	}
	if len(raw) > maxFile {
		return nil, fmt.Errorf("%w: %s: larger than %d bytes", ErrDamaged, path, maxFile)
	}
	s, err := decode(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrDamaged, path, err)
	}
	return &Ring{path: path, raw: raw, st: s}, nil
}

// Path is the keyring file's path.
func (r *Ring) Path() string { return r.path }

// Demo reports a demo keyring: its key is in clear beside the data, so the
// caller must refuse real-money play.
func (r *Ring) Demo() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.st.demo()
}

// Slots describes the slots, in file order.
func (r *Ring) Slots() []SlotInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]SlotInfo, len(r.st.slots))
	for i, sl := range r.st.slots {
		out[i] = SlotInfo{Kind: sl.kind, Created: time.Unix(sl.created, 0).UTC(), Argon2: sl.argon}
	}
	return out
}

// Generations lists the generation numbers of the data key the ring holds,
// oldest first: one, or two while a rotation is in progress.
func (r *Ring) Generations() []uint32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.st.gens)
}

// Rotating reports a rotation begun and not finished (after a crash, say):
// the caller re-encrypts what is still under the previous generation and
// calls FinishRotation.
func (r *Ring) Rotating() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.st.gens) > 1
}

// UnlockPassphrase opens the passphrase slot. It costs one Argon2id run at
// the slot's params. A passphrase that does not open it is ErrWrongPassphrase.
func (r *Ring) UnlockPassphrase(pass []byte) (Keys, error) {
	return r.unlock(SlotPassphrase, func(sl *slot) (*[32]byte, error) {
		return sl.passphraseKEK(pass), nil
	})
}

// UnlockCentral opens the central slot with the 32-byte KEK the central
// gave. A key that does not open it is ErrWrongKey.
func (r *Ring) UnlockCentral(kek []byte) (Keys, error) {
	if err := checkKEK(kek); err != nil {
		return Keys{}, err
	}
	return r.unlock(SlotCentral, func(*slot) (*[32]byte, error) {
		return (*[32]byte)(kek), nil
	})
}

// UnlockDemo opens a demo keyring's slot with its demo key file.
func (r *Ring) UnlockDemo(demoKeyPath string) (Keys, error) {
	return r.unlock(SlotDemo, func(*slot) (*[32]byte, error) {
		return readDemoKey(demoKeyPath)
	})
}

func (r *Ring) unlock(kind SlotKind, kek func(*slot) (*[32]byte, error)) (Keys, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.st
	sl := s.slot(kind)
	if sl == nil {
		return Keys{}, fmt.Errorf("%w: %s has no %s slot", ErrNoSlot, r.path, kind)
	}
	k, err := kek(sl)
	if err != nil {
		return Keys{}, err
	}
	wrap, ok := s.openSlot(sl, k)
	if !ok {
		if kind == SlotPassphrase {
			return Keys{}, fmt.Errorf("%w for %s", ErrWrongPassphrase, r.path)
		}
		return Keys{}, fmt.Errorf("%w: it does not open the %s slot of %s", ErrWrongKey, kind, r.path)
	}
	keys, err := s.openPayload(wrap)
	if err != nil {
		return Keys{}, fmt.Errorf("%w: %s: %w", ErrDamaged, r.path, err)
	}
	return s.keys(wrap, keys), nil
}

// SetPassphrase seals the keyring under a new passphrase, replacing the
// passphrase slot or adding one. The old passphrase stops opening this
// file, but not a copy of the file taken before: if it may be known, also
// rotate (BeginRotation with the new passphrase), which makes the old
// copies useless for new data. A demo keyring refuses (ErrDemo).
func (r *Ring) SetPassphrase(k Keys, newPass []byte) error {
	if err := checkPassphrase(newPass); err != nil {
		return err
	}
	return r.change(k, func(s *state) error {
		if s.demo() {
			return r.errDemo()
		}
		return s.setPassphrase(k.wrap.get(), newPass)
	})
}

// SetCentral seals the keyring under the central's 32-byte KEK, replacing
// the central slot or adding one. A demo keyring refuses (ErrDemo).
func (r *Ring) SetCentral(k Keys, kek []byte) error {
	if err := checkKEK(kek); err != nil {
		return err
	}
	return r.change(k, func(s *state) error {
		if s.demo() {
			return r.errDemo()
		}
		s.setSlot(SlotCentral, Argon2Params{}, (*[32]byte)(kek), k.wrap.get())
		return nil
	})
}

// RemoveSlot removes the slot of that kind; never the last one
// (ErrLastSlot). Like SetPassphrase, it does not make an older copy of the
// file forget the slot: rotate for that.
func (r *Ring) RemoveSlot(k Keys, kind SlotKind) error {
	return r.change(k, func(s *state) error {
		i := slices.IndexFunc(s.slots, func(sl slot) bool { return sl.kind == kind })
		if i < 0 {
			return fmt.Errorf("%w: %s has no %s slot", ErrNoSlot, r.path, kind)
		}
		if len(s.slots) == 1 {
			return fmt.Errorf("%w (%s)", ErrLastSlot, kind)
		}
		s.slots = slices.Delete(s.slots, i, i+1)
		return nil
	})
}

// BeginRotation adds generation n+1 of the data key beside generation n.
// When it returns, the new file is durable and both generations unlock from
// every slot; the caller re-encrypts the store and the journal under the
// new generation (Keys.Current), reading what is not yet re-encrypted with
// Keys.Previous, then calls FinishRotation. A crash at any point leaves a
// file that opens: the old one (one generation, nothing yet written under
// the new one) or the new one (both).
//
// Every slot is re-sealed under a new wrapping key, so whoever kept an old
// copy of the file and one of its credentials (a leaked passphrase, a demo
// key) learns nothing of the new generation. That needs a credential for
// every slot the ring holds: the caller gives them all, and a missing one
// is ErrMissingCredential rather than a slot silently dropped. A slot is
// re-sealed with the credential given, so giving a new passphrase changes
// it at the same time, and giving a credential for a kind the ring lacks
// adds that slot. A demo keyring takes only its demo key (its key file is
// kept, as the ring's KEK), and a real one refuses a demo key (ErrDemo).
func (r *Ring) BeginRotation(k Keys, creds ...Credential) (Keys, error) {
	// The credentials are checked before anything is sealed, so that a
	// mistake costs no Argon2 run.
	given := map[SlotKind]credential{}
	var demoKEK *[32]byte
	for _, cred := range creds {
		c := cred.get()
		if _, dup := given[c.kind]; dup {
			return Keys{}, fmt.Errorf("%w: two %s credentials", ErrMissingCredential, c.kind)
		}
		given[c.kind] = c
		var err error
		switch c.kind {
		case SlotPassphrase:
			err = checkPassphrase(c.secret)
		case SlotCentral:
			err = checkKEK(c.secret)
		case SlotDemo:
			demoKEK, err = readDemoKey(c.path)
		default:
			err = fmt.Errorf("%w: a zero Credential", ErrMissingCredential)
		}
		if err != nil {
			return Keys{}, err
		}
	}
	var out Keys
	err := r.change(k, func(s *state) error {
		if len(s.gens) > 1 {
			return fmt.Errorf("%w: generations %v in %s", ErrRotating, s.gens, r.path)
		}
		for kind := range given {
			if s.demo() && kind != SlotDemo {
				return r.errDemo()
			}
			if !s.demo() && kind == SlotDemo {
				return fmt.Errorf("%w: a demo key cannot seal %s, a real keyring", ErrDemo, r.path)
			}
		}
		for _, sl := range s.slots {
			if _, ok := given[sl.kind]; !ok {
				return fmt.Errorf("%w: the %s slot", ErrMissingCredential, sl.kind)
			}
		}
		if s.epoch == ^uint32(0) || s.gens[0] == ^uint32(0) {
			return fmt.Errorf("%w: %s: epoch or generation at its limit", ErrDamaged, r.path)
		}
		old := s.slots
		s.slots = nil
		s.epoch++
		s.gens = append(s.gens, s.gens[0]+1)
		wrap, key := new([32]byte), new([32]byte)
		random(wrap[:])
		random(key[:])
		keys := append(slices.Clone(k.gens), Key{gen: s.gens[1], b: hide(key)})
		s.sealPayload(wrap, keys)
		// Re-sealed in the old order, then any new kind.
		order := make([]SlotKind, 0, len(given))
		for _, sl := range old {
			order = append(order, sl.kind)
		}
		for _, kind := range []SlotKind{SlotPassphrase, SlotCentral, SlotDemo} {
			if _, ok := given[kind]; ok && !slices.Contains(order, kind) {
				order = append(order, kind)
			}
		}
		for _, kind := range order {
			c := given[kind]
			switch kind {
			case SlotPassphrase:
				if err := s.setPassphrase(wrap, c.secret); err != nil {
					return err
				}
			case SlotCentral:
				s.setSlot(SlotCentral, Argon2Params{}, (*[32]byte)(c.secret), wrap)
			case SlotDemo:
				s.setSlot(SlotDemo, Argon2Params{}, demoKEK, wrap)
			}
		}
		out = s.keys(wrap, keys)
		return nil
	})
	if err != nil {
		return Keys{}, err
	}
	return out, nil
}

// FinishRotation drops the previous generation once nothing is encrypted
// under it any more, and returns the keys without it (the Keys given are
// then out of date for this Ring's methods). It needs no credential: the
// slots seal the wrapping key, which does not change here. A crash leaves
// the rotation begun; the caller finishes it again.
func (r *Ring) FinishRotation(k Keys) (Keys, error) {
	var out Keys
	err := r.change(k, func(s *state) error {
		if len(s.gens) < 2 {
			return fmt.Errorf("%w: %s", ErrNotRotating, r.path)
		}
		s.gens = s.gens[1:]
		keys := []Key{k.Current()}
		s.sealPayload(k.wrap.get(), keys)
		out = s.keys(k.wrap.get(), keys)
		return nil
	})
	if err != nil {
		return Keys{}, err
	}
	return out, nil
}

// errDemo refuses to give a demo keyring a real slot.
func (r *Ring) errDemo() error {
	return fmt.Errorf("%w: %s is a demo keyring, whose data key has been in clear beside the data: start a new data directory for real money", ErrDemo, r.path)
}

// change applies edit to a copy of the ring's state and writes the result,
// provided k was unlocked from this state and the file on disk is still the
// one this Ring read (another process may have rotated it meanwhile).
func (r *Ring) change(k Keys, edit func(*state) error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !k.matches(r.st) {
		return fmt.Errorf("%w: the keys were not unlocked from %s as it is now", ErrStale, r.path)
	}
	s := r.st.clone()
	if err := edit(s); err != nil {
		return err
	}
	disk, err := os.ReadFile(r.path)
	if err != nil || !bytes.Equal(disk, r.raw) {
		return fmt.Errorf("%w: %s changed on disk since it was read", ErrStale, r.path)
	}
	raw := s.encode()
	if err := writeFile(r.path, raw, false); err != nil {
		return err
	}
	r.st, r.raw = s, raw
	return nil
}

func (s *state) clone() *state {
	c := *s
	c.gens = slices.Clone(s.gens)
	c.payload = slices.Clone(s.payload)
	c.slots = slices.Clone(s.slots)
	return &c
}

func (s *state) keys(wrap *[32]byte, gens []Key) Keys {
	return Keys{ringID: s.id, epoch: s.epoch, wrap: hide(wrap), gens: gens}
}

// setPassphrase seals wrap in a passphrase slot at PassphraseCost.
func (s *state) setPassphrase(wrap *[32]byte, pass []byte) error {
	p := PassphraseCost
	if err := p.valid(); err != nil {
		return fmt.Errorf("keyring: PassphraseCost: %s", err)
	}
	sl := slot{kind: SlotPassphrase, argon: p}
	random(sl.salt[:])
	s.putSlot(sl, sl.passphraseKEK(pass), wrap)
	return nil
}

func (s *state) setSlot(kind SlotKind, p Argon2Params, kek, wrap *[32]byte) {
	s.putSlot(slot{kind: kind, argon: p}, kek, wrap)
}

// putSlot seals wrap in sl under kek and puts it in place of the slot of
// its kind, or after the others.
func (s *state) putSlot(sl slot, kek, wrap *[32]byte) {
	sl.created = time.Now().Unix()
	random(sl.nonce[:])
	aead, _ := chacha20poly1305.NewX(kek[:]) // errs only on a key's length
	aead.Seal(sl.sealed[:0], sl.nonce[:], wrap[:], s.slotAD(&sl))
	if i := slices.IndexFunc(s.slots, func(o slot) bool { return o.kind == sl.kind }); i >= 0 {
		s.slots[i] = sl
		return
	}
	s.slots = append(s.slots, sl)
}

func (sl *slot) passphraseKEK(pass []byte) *[32]byte {
	p := sl.argon
	return (*[32]byte)(argon2.IDKey(pass, sl.salt[:], p.Time, p.MemoryKiB, p.Threads, keySize))
}

func (s *state) openSlot(sl *slot, kek *[32]byte) (*[32]byte, bool) {
	aead, _ := chacha20poly1305.NewX(kek[:])
	wrap, err := aead.Open(nil, sl.nonce[:], sl.sealed[:], s.slotAD(sl))
	if err != nil {
		return nil, false
	}
	return (*[32]byte)(wrap), true
}

// sealPayload seals the generations' keys under wrap: for each, its number
// (uint32, big-endian) and its 32 bytes.
func (s *state) sealPayload(wrap *[32]byte, keys []Key) {
	plain := make([]byte, 0, len(keys)*(4+keySize))
	for _, k := range keys {
		plain = append(plain, byte(k.gen>>24), byte(k.gen>>16), byte(k.gen>>8), byte(k.gen))
		plain = append(plain, k.b.get()[:]...)
	}
	random(s.payloadNonce[:])
	aead, _ := chacha20poly1305.NewX(wrap[:])
	s.payload = aead.Seal(nil, s.payloadNonce[:], plain, s.payloadAD())
	clear(plain)
}

func (s *state) openPayload(wrap *[32]byte) ([]Key, error) {
	aead, _ := chacha20poly1305.NewX(wrap[:])
	plain, err := aead.Open(nil, s.payloadNonce[:], s.payload, s.payloadAD())
	if err != nil {
		return nil, errors.New("the generations' keys do not authenticate under a key their slot opened")
	}
	defer clear(plain)
	if len(plain) != len(s.gens)*(4+keySize) {
		return nil, fmt.Errorf("the generations' keys have %d bytes for %d generations", len(plain), len(s.gens))
	}
	keys := make([]Key, len(s.gens))
	for i, g := range s.gens {
		e := plain[i*(4+keySize):]
		if n := uint32(e[0])<<24 | uint32(e[1])<<16 | uint32(e[2])<<8 | uint32(e[3]); n != g {
			return nil, fmt.Errorf("sealed generation %d where the header says %d", n, g)
		}
		keys[i] = Key{gen: g, b: hide((*[32]byte)(bytes.Clone(e[4 : 4+keySize])))}
	}
	return keys, nil
}
