package keyring_test

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"starfortune/keyring"
)

func TestSlots(t *testing.T) {
	f := newFixture(t, "passphrase")
	kinds := func() []keyring.SlotKind {
		var out []keyring.SlotKind
		for _, s := range f.ring.Slots() {
			out = append(out, s.Kind)
		}
		return out
	}
	loaded := func() *keyring.Ring {
		t.Helper()
		r, err := keyring.Load(f.path)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	info := f.ring.Slots()
	if len(info) != 1 || info[0].Kind != keyring.SlotPassphrase || info[0].Argon2 != cheap ||
		time.Since(info[0].Created) > time.Minute || info[0].Created.After(time.Now()) {
		t.Fatalf("Slots() = %+v", info)
	}

	if err := f.ring.SetCentral(f.keys, kek); err != nil {
		t.Fatal(err)
	}
	if got := kinds(); len(got) != 2 || got[1] != keyring.SlotCentral {
		t.Fatalf("after SetCentral: %v", got)
	}
	if s := f.ring.Slots()[1]; s.Argon2 != (keyring.Argon2Params{}) {
		t.Errorf("central slot with argon2 params %+v", s.Argon2)
	}
	if k, err := loaded().UnlockCentral(kek); err != nil || !sameKeys(k, f.keys) {
		t.Fatalf("UnlockCentral: %v", err)
	}

	// Replacing the central key: the old one stops opening this file.
	if err := f.ring.SetCentral(f.keys, otherKEK); err != nil {
		t.Fatal(err)
	}
	if _, err := loaded().UnlockCentral(kek); !errors.Is(err, keyring.ErrWrongKey) {
		t.Errorf("old central key: %v", err)
	}
	if k, err := loaded().UnlockCentral(otherKEK); err != nil || !sameKeys(k, f.keys) {
		t.Fatalf("new central key: %v", err)
	}

	// Changing the passphrase, at the default cost.
	newPass := []byte("a new passphrase")
	keyring.PassphraseCost = keyring.Argon2Params{Time: 2, MemoryKiB: 128, Threads: 2}
	err := f.ring.SetPassphrase(f.keys, newPass)
	keyring.PassphraseCost = cheap
	if err != nil {
		t.Fatal(err)
	}
	r := loaded()
	if got := r.Slots()[0].Argon2; got != (keyring.Argon2Params{Time: 2, MemoryKiB: 128, Threads: 2}) {
		t.Errorf("the new passphrase slot's cost: %+v", got)
	}
	if _, err := r.UnlockPassphrase(pass); !errors.Is(err, keyring.ErrWrongPassphrase) {
		t.Errorf("old passphrase: %v", err)
	}
	if k, err := r.UnlockPassphrase(newPass); err != nil || !sameKeys(k, f.keys) {
		t.Fatalf("new passphrase: %v", err)
	}

	if err := f.ring.RemoveSlot(f.keys, keyring.SlotPassphrase); err != nil {
		t.Fatal(err)
	}
	if _, err := loaded().UnlockPassphrase(newPass); !errors.Is(err, keyring.ErrNoSlot) {
		t.Errorf("removed slot: %v", err)
	}
	if err := f.ring.RemoveSlot(f.keys, keyring.SlotPassphrase); !errors.Is(err, keyring.ErrNoSlot) {
		t.Errorf("removing an absent slot: %v", err)
	}
	if err := f.ring.RemoveSlot(f.keys, keyring.SlotCentral); !errors.Is(err, keyring.ErrLastSlot) {
		t.Errorf("removing the last slot: %v", err)
	}
	if err := f.ring.SetCentral(f.keys, kek[:31]); !errors.Is(err, keyring.ErrWrongKey) {
		t.Errorf("a 31-byte central key: %v", err)
	}
	// A passphrase slot can be added back.
	if err := f.ring.SetPassphrase(f.keys, pass); err != nil {
		t.Fatal(err)
	}
	if k, err := loaded().UnlockPassphrase(pass); err != nil || !sameKeys(k, f.keys) {
		t.Fatalf("passphrase added back: %v", err)
	}
}

func TestDemo(t *testing.T) {
	f := newFixture(t, "demo")
	if !f.ring.Demo() {
		t.Fatal("CreateDemo made a real keyring")
	}
	b, err := os.ReadFile(f.demo)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	if !strings.HasPrefix(first, "# ") || !strings.Contains(first, "NOT SECRET") || !strings.Contains(first, "DEMO") {
		t.Errorf("the demo key file starts with %q", first)
	}
	if st, _ := os.Stat(f.demo); st.Mode().Perm() != 0o600 {
		t.Errorf("demo key file mode %v", st.Mode())
	}
	for _, c := range []struct {
		name string
		do   func() error
	}{
		{"SetPassphrase", func() error { return f.ring.SetPassphrase(f.keys, pass) }},
		{"SetCentral", func() error { return f.ring.SetCentral(f.keys, kek) }},
		{"BeginRotation with a passphrase", func() error {
			_, err := f.ring.BeginRotation(f.keys, keyring.DemoKey(f.demo), keyring.Passphrase(pass))
			return err
		}},
	} {
		if err := c.do(); !errors.Is(err, keyring.ErrDemo) {
			t.Errorf("%s on a demo keyring: %v", c.name, err)
		}
	}
	if err := f.ring.RemoveSlot(f.keys, keyring.SlotDemo); !errors.Is(err, keyring.ErrLastSlot) {
		t.Errorf("RemoveSlot(demo): %v", err)
	}
	if _, err := f.ring.BeginRotation(f.keys); !errors.Is(err, keyring.ErrMissingCredential) {
		t.Errorf("BeginRotation with nothing: %v", err)
	}

	// A demo keyring rotates like a real one, keeping its key file.
	k2, err := f.ring.BeginRotation(f.keys, keyring.DemoKey(f.demo))
	if err != nil {
		t.Fatal(err)
	}
	if b2, _ := os.ReadFile(f.demo); !bytes.Equal(b, b2) {
		t.Error("the rotation rewrote the demo key file")
	}
	r, _ := keyring.Load(f.path)
	if k, err := r.UnlockDemo(f.demo); err != nil || !sameKeys(k, k2) || !r.Demo() {
		t.Fatalf("after the rotation: %v", err)
	}

	// A real keyring refuses a demo key.
	real := newFixture(t, "passphrase")
	if _, err := real.ring.BeginRotation(real.keys, keyring.Passphrase(pass), keyring.DemoKey(f.demo)); !errors.Is(err, keyring.ErrDemo) {
		t.Errorf("a demo key on a real keyring: %v", err)
	}
}

// A crash between writing the demo key file and the keyring leaves the
// key file alone; CreateDemo again uses it. A file there that is not a
// demo key is not overwritten.
func TestCreateDemoAfterCrash(t *testing.T) {
	f := newFixture(t, "demo")
	key, _ := os.ReadFile(f.demo)
	os.Remove(f.path)
	r, k, err := keyring.CreateDemo(f.path, f.demo)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(f.demo); !bytes.Equal(b, key) {
		t.Error("the demo key changed")
	}
	if got, err := r.UnlockDemo(f.demo); err != nil || !sameKeys(got, k) {
		t.Fatal(err)
	}

	os.Remove(f.path)
	os.WriteFile(f.demo, []byte("precious\n"), 0o600)
	if _, _, err := keyring.CreateDemo(f.path, f.demo); err == nil {
		t.Fatal("CreateDemo over a file that is not a demo key")
	}
	if b, _ := os.ReadFile(f.demo); string(b) != "precious\n" {
		t.Errorf("the file was overwritten: %q", b)
	}
}

// Keys unlocked from another state of the ring, or a ring another process
// changed, are refused: writing would seal the wrong wrapping key or undo
// the other change.
func TestStale(t *testing.T) {
	f := newFixture(t, "passphrase+central")
	other := newFixture(t, "passphrase")
	if err := f.ring.SetCentral(other.keys, kek); !errors.Is(err, keyring.ErrStale) {
		t.Errorf("another ring's keys: %v", err)
	}
	if err := f.ring.SetCentral(keyring.Keys{}, kek); !errors.Is(err, keyring.ErrStale) {
		t.Errorf("zero Keys: %v", err)
	}

	r2, _ := keyring.Load(f.path)
	k2, _ := r2.UnlockPassphrase(pass)
	if err := f.ring.SetCentral(f.keys, otherKEK); err != nil {
		t.Fatal(err)
	}
	if err := r2.RemoveSlot(k2, keyring.SlotCentral); !errors.Is(err, keyring.ErrStale) {
		t.Errorf("a ring changed on disk: %v", err)
	}

	before := f.keys
	rot, err := f.ring.BeginRotation(f.keys, keyring.Passphrase(pass), keyring.Central(kek))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ring.SetPassphrase(before, pass); !errors.Is(err, keyring.ErrStale) {
		t.Errorf("keys from before the rotation: %v", err)
	}
	fin, err := f.ring.FinishRotation(rot)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.ring.SetPassphrase(rot, pass); !errors.Is(err, keyring.ErrStale) {
		t.Errorf("keys from before FinishRotation: %v", err)
	}
	if err := f.ring.SetPassphrase(fin, pass); err != nil {
		t.Errorf("keys FinishRotation gave: %v", err)
	}
}

// A fleet kiosk's new keyring opens with its central's KEK alone, and then
// takes a passphrase for the starts without the central.
func TestCreateCentral(t *testing.T) {
	path := t.TempDir() + "/keyring"
	ring, keys, err := keyring.CreateCentral(path, kek)
	if err != nil {
		t.Fatal(err)
	}
	if ring.Demo() || len(ring.Slots()) != 1 || ring.Slots()[0].Kind != keyring.SlotCentral {
		t.Fatalf("slots %+v", ring.Slots())
	}
	loaded, err := keyring.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if k, err := loaded.UnlockCentral(kek); err != nil || !sameKeys(k, keys) {
		t.Fatalf("UnlockCentral: %v", err)
	}
	if _, _, err := keyring.CreateCentral(path, kek); err == nil {
		t.Fatal("CreateCentral replaced an existing keyring")
	}
	if _, _, err := keyring.CreateCentral(t.TempDir()+"/keyring", kek[:31]); err == nil {
		t.Fatal("a 31-byte KEK was taken")
	}
	if err := loaded.SetPassphrase(keys, []byte("correct horse battery")); err != nil {
		t.Fatal(err)
	}
	if k, err := loaded.UnlockPassphrase([]byte("correct horse battery")); err != nil || !sameKeys(k, keys) {
		t.Fatalf("UnlockPassphrase: %v", err)
	}
}
