package keyring_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"starfortune/keyring"
)

// TestRotationCrashPoints walks a rotation and puts the data directory in
// the state a crash leaves at each step: the file before or after each
// write, with or without a temporary file beside it (full or torn). Every
// state opens with every slot, and gives the keys of the step.
func TestRotationCrashPoints(t *testing.T) {
	f := newFixture(t, "passphrase+central")
	k1 := f.keys
	before := f.bytes(t)

	if _, err := f.ring.BeginRotation(k1, keyring.Passphrase(pass)); !errors.Is(err, keyring.ErrMissingCredential) {
		t.Fatalf("BeginRotation without the central's key: %v", err)
	}
	if _, err := f.ring.BeginRotation(k1, keyring.Passphrase(pass), keyring.Passphrase(pass), keyring.Central(kek)); !errors.Is(err, keyring.ErrMissingCredential) {
		t.Fatalf("BeginRotation with two passphrases: %v", err)
	}
	if _, err := f.ring.FinishRotation(k1); !errors.Is(err, keyring.ErrNotRotating) {
		t.Fatalf("FinishRotation before BeginRotation: %v", err)
	}
	if !bytes.Equal(before, f.bytes(t)) {
		t.Fatal("a refused rotation changed the file")
	}

	k2, err := f.ring.BeginRotation(k1, keyring.Passphrase(pass), keyring.Central(kek))
	if err != nil {
		t.Fatal(err)
	}
	rotating := f.bytes(t)
	if got := k2.Generations(); !slices.Equal(got, []uint32{1, 2}) {
		t.Fatalf("after BeginRotation: generations %v", got)
	}
	prev, _ := k2.Previous()
	if !bytes.Equal(keyring.KeyBytes(prev), keyring.KeyBytes(k1.Current())) {
		t.Fatal("generation 1 changed in the rotation")
	}
	if bytes.Equal(keyring.KeyBytes(k2.Current()), keyring.KeyBytes(k1.Current())) {
		t.Fatal("generation 2 is generation 1")
	}
	// A new wrapping key: an old copy of the file and its passphrase do
	// not open the new generation.
	if bytes.Equal(keyring.WrapBytes(k1), keyring.WrapBytes(k2)) {
		t.Fatal("the rotation kept the wrapping key")
	}
	if _, err := f.ring.BeginRotation(k2, keyring.Passphrase(pass), keyring.Central(kek)); !errors.Is(err, keyring.ErrRotating) {
		t.Fatalf("BeginRotation twice: %v", err)
	}

	k3, err := f.ring.FinishRotation(k2)
	if err != nil {
		t.Fatal(err)
	}
	finished := f.bytes(t)
	if got := k3.Generations(); !slices.Equal(got, []uint32{2}) ||
		!bytes.Equal(keyring.KeyBytes(k3.Current()), keyring.KeyBytes(k2.Current())) {
		t.Fatalf("after FinishRotation: %v", k3)
	}
	if _, ok := k3.Previous(); ok {
		t.Fatal("FinishRotation kept the previous generation")
	}

	torn := func(b []byte) []byte { return b[:len(b)/2] }
	for _, c := range []struct {
		name      string
		file, tmp []byte // tmp: a temporary file left beside, nil for none
		want      keyring.Keys
	}{
		{"before BeginRotation's write", before, nil, k1},
		{"BeginRotation's temporary file torn", before, torn(rotating), k1},
		{"BeginRotation's temporary file written, not renamed", before, rotating, k1},
		{"BeginRotation renamed", rotating, nil, k2},
		{"FinishRotation's temporary file torn", rotating, torn(finished), k2},
		{"FinishRotation's temporary file written, not renamed", rotating, finished, k2},
		{"FinishRotation renamed", finished, nil, k3},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "keyring")
			os.WriteFile(path, c.file, 0o600)
			if c.tmp != nil {
				os.WriteFile(filepath.Join(dir, ".keyring.tmp-123456"), c.tmp, 0o600)
			}
			r, err := keyring.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			var got keyring.Keys
			for _, kind := range []keyring.SlotKind{keyring.SlotPassphrase, keyring.SlotCentral} {
				k, err := unlock(r, kind, "")
				if err != nil {
					t.Fatalf("%s: %v", kind, err)
				}
				if !sameKeys(k, c.want) {
					t.Fatalf("%s gives %v, want %v", kind, k, c.want)
				}
				got = k
			}
			// The caller carries on from there: a rotation begun is
			// finished, and the crash's litter goes with the next write.
			if r.Rotating() {
				if got, err = r.FinishRotation(got); err != nil {
					t.Fatal(err)
				}
			} else if err := r.SetCentral(got, kek); err != nil {
				t.Fatal(err)
			}
			if names, _ := os.ReadDir(dir); len(names) != 1 {
				t.Errorf("left in the directory: %v", names)
			}
			r2, _ := keyring.Load(path)
			if k, err := r2.UnlockPassphrase(pass); err != nil || !sameKeys(k, got) {
				t.Fatalf("after carrying on: %v", err)
			}
		})
	}
}

// A rotation given a new passphrase changes it, and adds a slot for a
// credential of a kind the ring lacked.
func TestRotationChangesCredentials(t *testing.T) {
	f := newFixture(t, "passphrase")
	newPass := []byte("the new passphrase")
	k2, err := f.ring.BeginRotation(f.keys, keyring.Passphrase(newPass), keyring.Central(kek))
	if err != nil {
		t.Fatal(err)
	}
	r, _ := keyring.Load(f.path)
	if _, err := r.UnlockPassphrase(pass); !errors.Is(err, keyring.ErrWrongPassphrase) {
		t.Errorf("old passphrase: %v", err)
	}
	for _, unlock := range []func() (keyring.Keys, error){
		func() (keyring.Keys, error) { return r.UnlockPassphrase(newPass) },
		func() (keyring.Keys, error) { return r.UnlockCentral(kek) },
	} {
		if k, err := unlock(); err != nil || !sameKeys(k, k2) {
			t.Errorf("unlock: %v", err)
		}
	}
}
