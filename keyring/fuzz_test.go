package keyring_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"starfortune/keyring"
)

// FuzzLoad feeds Load arbitrary files, seeded with the golden keyrings.
// Nothing panics; an error is ErrDamaged; and whatever loads unlocks, if
// at all, to the keys of a golden keyring.
func FuzzLoad(f *testing.F) {
	var known []keyring.Keys
	for _, g := range golden {
		known = append(known, goldenKeys(f, g.name))
		b, err := os.ReadFile(goldenPath(g.name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
		// No slots, with a valid checksum.
		f.Add(resum(append(bytes.Clone(b[:len(b)-keyring.SumSize-len(g.kinds)*keyring.SlotSize-1]), 0)))
	}
	f.Add([]byte("STARFORTUNE-KEYRING 1\n"))
	f.Add([]byte{})
	demoKey, err := filepath.Abs(goldenDemoKey("demo"))
	if err != nil {
		f.Fatal(err)
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "keyring")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := keyring.Load(path)
		if err != nil {
			if !errors.Is(err, keyring.ErrDamaged) {
				t.Fatalf("Load: %v", err)
			}
			return
		}
		_, _, _ = r.Slots(), r.Demo(), r.Generations()
		for _, kind := range []keyring.SlotKind{keyring.SlotPassphrase, keyring.SlotCentral, keyring.SlotDemo} {
			if kind == keyring.SlotPassphrase && expensive(r) {
				continue // a fuzzed cost can ask for a gigabyte
			}
			k, err := unlock(r, kind, demoKey)
			if err != nil {
				continue
			}
			found := false
			for _, kn := range known {
				found = found || sameKeys(k, kn)
			}
			if !found {
				t.Fatalf("%s unlocks keys of no keyring", kind)
			}
		}
	})
}

// expensive reports a passphrase slot whose Argon2 cost is above the
// tests'.
func expensive(r *keyring.Ring) bool {
	for _, s := range r.Slots() {
		if s.Kind == keyring.SlotPassphrase && uint64(s.Argon2.MemoryKiB)*uint64(s.Argon2.Time) > 1<<10 {
			return true
		}
	}
	return false
}

// FuzzSealReader feeds the stream reader arbitrary bytes, seeded with
// valid streams under a golden key. Nothing panics; an error is ErrDamaged
// or ErrWrongKey; and a stream read without error gives the plaintext the
// seeds were made of (no forgery).
func FuzzSealReader(f *testing.F) {
	k := goldenKeys(f, "rotating")
	for _, n := range []int{0, 1, 100, chunk, chunk + 1} {
		sealed := seal(f, k, plaintext(n), 0)
		f.Add(sealed)
		f.Add(sealed[:len(sealed)-1])
	}
	f.Add([]byte("STARFORTUNE-SEALED 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := keyring.NewSealReader(bytes.NewReader(data), k)
		if err != nil {
			if !errors.Is(err, keyring.ErrDamaged) && !errors.Is(err, keyring.ErrWrongKey) {
				t.Fatalf("NewSealReader: %v", err)
			}
			return
		}
		got, err := io.ReadAll(r)
		if err != nil {
			if !errors.Is(err, keyring.ErrDamaged) {
				t.Fatalf("Read: %v", err)
			}
			return
		}
		if !bytes.Equal(got, plaintext(len(got))) {
			t.Fatalf("a stream read without error gave %d bytes of no seed", len(got))
		}
	})
}
