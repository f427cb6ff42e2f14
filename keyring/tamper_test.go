package keyring_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"starfortune/keyring"
)

// resum recomputes a keyring file's checksum, as an attacker can: the
// checksum catches accidents, the seals catch the rest.
func resum(b []byte) []byte {
	body := b[:len(b)-keyring.SumSize]
	sum := sha256.Sum256(body)
	return append(slices.Clone(body), sum[:]...)
}

// slotAt is the offset of slot i (from 0) in a file of n slots.
func slotAt(b []byte, i, n int) int {
	return len(b) - keyring.SumSize - (n-i)*keyring.SlotSize
}

// TestTamper alters each byte of a keyring file in turn. The checksum
// alone refuses every one; with the checksum recomputed, each change is
// refused by the layout checks or by a seal: every unlock either fails
// (damaged, or a wrong credential) or, through a slot the change did not
// touch, gives exactly the original keys. At least one unlock fails.
func TestTamper(t *testing.T) {
	for _, name := range []string{"passphrase+central", "rotating"} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, name)
			good := f.bytes(t)
			for i := range good {
				for _, mask := range []byte{0x01, 0xff} {
					bad := slices.Clone(good)
					bad[i] ^= mask
					overwrite(t, f.path, bad)
					if _, err := keyring.Load(f.path); !errors.Is(err, keyring.ErrDamaged) {
						t.Fatalf("byte %d ^ %#x: Load: %v, want ErrDamaged", i, mask, err)
					}
					if i >= len(good)-keyring.SumSize {
						continue // the checksum itself: recomputing it undoes the change
					}
					overwrite(t, f.path, resum(bad))
					r, err := keyring.Load(f.path)
					if err != nil {
						if !errors.Is(err, keyring.ErrDamaged) {
							t.Fatalf("byte %d ^ %#x, checksum fixed: Load: %v", i, mask, err)
						}
						continue
					}
					failed := 0
					for _, kind := range []keyring.SlotKind{keyring.SlotPassphrase, keyring.SlotCentral} {
						if kind == keyring.SlotPassphrase && expensive(r) {
							// A flipped Argon2 memory cost of up to 64 MiB
							// would make this test take seconds. The KEK
							// derives from the params and the seal binds
							// them; the cheap flips check it here.
							failed++
							continue
						}
						k, err := unlock(r, kind, "")
						switch {
						case err == nil && !sameKeys(k, f.keys):
							t.Fatalf("byte %d ^ %#x: %s unlocks other keys", i, mask, kind)
						case err == nil:
						case errors.Is(err, keyring.ErrDamaged), errors.Is(err, keyring.ErrWrongPassphrase),
							errors.Is(err, keyring.ErrWrongKey), errors.Is(err, keyring.ErrNoSlot):
							failed++
						default:
							t.Fatalf("byte %d ^ %#x: %s: unexpected %v", i, mask, kind, err)
						}
					}
					if failed == 0 {
						t.Fatalf("byte %d ^ %#x: unnoticed", i, mask)
					}
				}
			}
		})
	}
}

// overwrite writes b over the file at path, of b's size, in place: a
// truncation each time (os.WriteFile) has ext4 flush the file at close, and
// the test wait for the disk thousands of times.
func overwrite(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, 0); err != nil {
		t.Fatal(err)
	}
}

// TestRelabel moves a slot where it does not belong, with a valid
// checksum: the slot's seal binds its kind, its ring and the ring's
// wrapping-key epoch, so it opens nowhere else.
func TestRelabel(t *testing.T) {
	t.Run("central slot relabelled demo", func(t *testing.T) {
		f := newFixture(t, "central")
		b := f.bytes(t)
		at := slotAt(b, 0, 1)
		if b[at] != byte(keyring.SlotCentral) {
			t.Fatalf("slot kind %d", b[at])
		}
		b[at] = byte(keyring.SlotDemo)
		os.WriteFile(f.path, resum(b), 0o600)
		// The central's key written as a demo key file, as the attacker
		// would to have the kiosk open the slot as a demo.
		os.WriteFile(f.demo, []byte("# demo\n"+hex.EncodeToString(kek)+"\n"), 0o600)
		r, err := keyring.Load(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Demo() {
			t.Fatal("relabelled slot not read as demo")
		}
		if _, err := r.UnlockDemo(f.demo); !errors.Is(err, keyring.ErrWrongKey) {
			t.Fatalf("UnlockDemo of a relabelled central slot: %v", err)
		}
	})
	t.Run("passphrase slot relabelled central", func(t *testing.T) {
		f := newFixture(t, "passphrase")
		b := f.bytes(t)
		b[slotAt(b, 0, 1)] = byte(keyring.SlotCentral)
		os.WriteFile(f.path, resum(b), 0o600)
		if _, err := keyring.Load(f.path); !errors.Is(err, keyring.ErrDamaged) {
			t.Fatalf("Load: %v", err)
		}
	})
	t.Run("format version", func(t *testing.T) {
		f := newFixture(t, "passphrase")
		b := f.bytes(t)
		b[len("STARFORTUNE-KEYRING ")] = '2'
		os.WriteFile(f.path, resum(b), 0o600)
		if _, err := keyring.Load(f.path); !errors.Is(err, keyring.ErrDamaged) {
			t.Fatalf("Load: %v", err)
		}
	})
	// The same passphrase on two rings: a's slot spliced into b's file.
	t.Run("slot moved to another ring", func(t *testing.T) {
		a, b := newFixture(t, "passphrase"), newFixture(t, "passphrase")
		ab, bb := a.bytes(t), b.bytes(t)
		copy(bb[slotAt(bb, 0, 1):], ab[slotAt(ab, 0, 1):slotAt(ab, 1, 1)])
		os.WriteFile(b.path, resum(bb), 0o600)
		r, err := keyring.Load(b.path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.UnlockPassphrase(pass); !errors.Is(err, keyring.ErrWrongPassphrase) {
			t.Fatalf("a slot from another ring: %v", err)
		}
	})
	// An old copy's slot spliced into the file after a rotation.
	t.Run("slot from before a rotation", func(t *testing.T) {
		f := newFixture(t, "passphrase")
		old := f.bytes(t)
		if _, err := f.ring.BeginRotation(f.keys, keyring.Passphrase(pass)); err != nil {
			t.Fatal(err)
		}
		now := f.bytes(t)
		copy(now[slotAt(now, 0, 1):], old[slotAt(old, 0, 1):slotAt(old, 1, 1)])
		os.WriteFile(f.path, resum(now), 0o600)
		r, err := keyring.Load(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.UnlockPassphrase(pass); !errors.Is(err, keyring.ErrWrongPassphrase) {
			t.Fatalf("a slot from before the rotation: %v", err)
		}
	})
}

// TestNoSecretInFile looks for every secret, in the forms a careless
// encoding would use, in the keyring file through a ring's life.
func TestNoSecretInFile(t *testing.T) {
	f := newFixture(t, "passphrase")
	var secrets [][]byte
	addKeys := func(k keyring.Keys) {
		secrets = append(secrets, keyring.WrapBytes(k))
		for _, g := range k.Generations() {
			key, _ := k.Gen(g)
			j, b := key.Journal(), key.Backup()
			secrets = append(secrets, keyring.KeyBytes(key), key.Badger(), j[:], b[:])
		}
	}
	secrets = append(secrets, pass, kek)
	check := func(step string, path string) {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range secrets {
			for _, form := range [][]byte{s, []byte(hex.EncodeToString(s)), []byte(hex.EncodeToString(s)[:16])} {
				if bytes.Contains(b, form) || bytes.Contains(bytes.ToLower(b), bytes.ToLower(form)) {
					t.Fatalf("%s: the file holds a secret (%d bytes)", step, len(form))
				}
			}
			if bytes.Contains(b, s[:8]) {
				t.Fatalf("%s: the file holds 8 bytes of a secret", step)
			}
		}
	}
	addKeys(f.keys)
	check("created", f.path)
	if err := f.ring.SetCentral(f.keys, kek); err != nil {
		t.Fatal(err)
	}
	check("central added", f.path)
	k2, err := f.ring.BeginRotation(f.keys, keyring.Passphrase(pass), keyring.Central(kek))
	if err != nil {
		t.Fatal(err)
	}
	addKeys(k2)
	check("rotating", f.path)
	k3, err := f.ring.FinishRotation(k2)
	if err != nil {
		t.Fatal(err)
	}
	addKeys(k3)
	check("rotated", f.path)

	d := newFixture(t, "demo")
	addKeys(d.keys)
	demoFile, _ := os.ReadFile(filepath.Join(d.dir, keyring.DemoKeyFile))
	demoKEK, err := hex.DecodeString(string(demoFile[len(demoFile)-65 : len(demoFile)-1])) // its last line
	if err != nil {
		t.Fatal(err)
	}
	secrets = append(secrets, demoKEK)
	check("demo", d.path)
}
