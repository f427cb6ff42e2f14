package keyring_test

import (
	"bytes"
	"crypto/hkdf"
	"crypto/sha256"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"starfortune/keyring"
)

// cheap is the Argon2id cost of the tests' passphrases: microseconds,
// where the kiosk's default costs a quarter of a second.
var cheap = keyring.Argon2Params{Time: 1, MemoryKiB: 64, Threads: 1}

func TestMain(m *testing.M) {
	keyring.PassphraseCost = cheap
	os.Exit(m.Run())
}

var (
	pass     = []byte("correct horse battery")
	otherPwd = []byte("wrong horse battery")
	kek      = bytes.Repeat([]byte{0xc5}, 32)
	otherKEK = bytes.Repeat([]byte{0x5c}, 32)
)

// fixture is a data directory with a keyring.
type fixture struct {
	dir, path, demo string
	ring            *keyring.Ring
	keys            keyring.Keys
}

func newFixture(t *testing.T, kind string) *fixture {
	t.Helper()
	return newFixtureIn(t, t.TempDir(), kind)
}

// newFixtureIn makes the fixture in dir, which must exist.
func newFixtureIn(t testing.TB, dir, kind string) *fixture {
	t.Helper()
	f := &fixture{dir: dir, path: filepath.Join(dir, "keyring"), demo: filepath.Join(dir, keyring.DemoKeyFile)}
	var err error
	switch kind {
	case "passphrase":
		f.ring, f.keys, err = keyring.CreatePassphrase(f.path, pass)
	case "passphrase+central":
		f.ring, f.keys, err = keyring.CreatePassphrase(f.path, pass)
		if err == nil {
			err = f.ring.SetCentral(f.keys, kek)
		}
	case "central":
		f.ring, f.keys, err = keyring.CreatePassphrase(f.path, pass)
		if err == nil {
			err = f.ring.SetCentral(f.keys, kek)
		}
		if err == nil {
			err = f.ring.RemoveSlot(f.keys, keyring.SlotPassphrase)
		}
	case "demo":
		f.ring, f.keys, err = keyring.CreateDemo(f.path, f.demo)
	case "rotating":
		f.ring, f.keys, err = keyring.CreatePassphrase(f.path, pass)
		if err == nil {
			err = f.ring.SetCentral(f.keys, kek)
		}
		if err == nil {
			f.keys, err = f.ring.BeginRotation(f.keys, keyring.Passphrase(pass), keyring.Central(kek))
		}
	default:
		t.Fatalf("no fixture %q", kind)
	}
	if err != nil {
		t.Fatalf("%s: %v", kind, err)
	}
	return f
}

func (f *fixture) bytes(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(f.path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// unlock opens a freshly loaded copy of the ring with whatever slot kind
// names.
func unlock(r *keyring.Ring, kind keyring.SlotKind, demoPath string) (keyring.Keys, error) {
	switch kind {
	case keyring.SlotPassphrase:
		return r.UnlockPassphrase(pass)
	case keyring.SlotCentral:
		return r.UnlockCentral(kek)
	default:
		return r.UnlockDemo(demoPath)
	}
}

// sameKeys compares two Keys generation by generation, by their bytes.
func sameKeys(a, b keyring.Keys) bool {
	if !slices.Equal(a.Generations(), b.Generations()) {
		return false
	}
	for _, g := range a.Generations() {
		ka, _ := a.Gen(g)
		kb, _ := b.Gen(g)
		if !bytes.Equal(keyring.KeyBytes(ka), keyring.KeyBytes(kb)) {
			return false
		}
	}
	return true
}

func TestRoundTrip(t *testing.T) {
	for _, c := range []struct {
		fixture string
		kind    keyring.SlotKind
		demo    bool
		gens    []uint32
	}{
		{"passphrase", keyring.SlotPassphrase, false, []uint32{1}},
		{"passphrase+central", keyring.SlotPassphrase, false, []uint32{1}},
		{"passphrase+central", keyring.SlotCentral, false, []uint32{1}},
		{"central", keyring.SlotCentral, false, []uint32{1}},
		{"demo", keyring.SlotDemo, true, []uint32{1}},
		{"rotating", keyring.SlotPassphrase, false, []uint32{1, 2}},
		{"rotating", keyring.SlotCentral, false, []uint32{1, 2}},
	} {
		t.Run(c.fixture+"/"+c.kind.String(), func(t *testing.T) {
			f := newFixture(t, c.fixture)
			r, err := keyring.Load(f.path)
			if err != nil {
				t.Fatal(err)
			}
			if r.Demo() != c.demo {
				t.Errorf("Demo() = %v", r.Demo())
			}
			if got := r.Generations(); !slices.Equal(got, c.gens) {
				t.Errorf("Generations() = %v, want %v", got, c.gens)
			}
			if r.Rotating() != (len(c.gens) > 1) {
				t.Errorf("Rotating() = %v", r.Rotating())
			}
			k, err := unlock(r, c.kind, f.demo)
			if err != nil {
				t.Fatal(err)
			}
			if !sameKeys(k, f.keys) {
				t.Fatalf("unlocked %v, created %v: different keys", k, f.keys)
			}
			if cur := k.Current(); cur.Gen() != c.gens[len(c.gens)-1] {
				t.Errorf("Current().Gen() = %d", cur.Gen())
			}
			prev, ok := k.Previous()
			if ok != (len(c.gens) > 1) || (ok && prev.Gen() != c.gens[0]) {
				t.Errorf("Previous() = %d, %v", prev.Gen(), ok)
			}
			if _, ok := k.Gen(7); ok {
				t.Error("Gen(7) found")
			}
		})
	}
}

// The purpose keys are HKDF-SHA256 of the generation's key, empty salt,
// with the info strings doc.go gives: this pins them, since changing one
// would make every store and journal unreadable.
func TestPurposeKeys(t *testing.T) {
	f := newFixture(t, "passphrase")
	k := f.keys.Current()
	raw := keyring.KeyBytes(k)
	derive := func(info string) []byte {
		out, err := hkdf.Key(sha256.New, raw, nil, info, 32)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	journal, backup := k.Journal(), k.Backup()
	for _, c := range []struct {
		name string
		got  []byte
		info string
	}{
		{"Badger", k.Badger(), "starfortune/keyring/v1/badger"},
		{"Journal", journal[:], "starfortune/keyring/v1/journal"},
		{"Backup", backup[:], "starfortune/keyring/v1/backup"},
	} {
		if want := derive(c.info); !bytes.Equal(c.got, want) {
			t.Errorf("%s = %x, want HKDF(%q) = %x", c.name, c.got, c.info, want)
		}
		if bytes.Equal(c.got, raw) {
			t.Errorf("%s is the data key itself", c.name)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a zero Key derived a key")
		}
	}()
	var zero keyring.Key
	zero.Badger()
}

func TestCreateRefusesExisting(t *testing.T) {
	f := newFixture(t, "passphrase")
	before := f.bytes(t)
	if _, _, err := keyring.CreatePassphrase(f.path, pass); !errors.Is(err, fs.ErrExist) {
		t.Errorf("CreatePassphrase over a keyring: %v", err)
	}
	if _, _, err := keyring.CreateDemo(f.path, f.demo); !errors.Is(err, fs.ErrExist) {
		t.Errorf("CreateDemo over a keyring: %v", err)
	}
	if !bytes.Equal(before, f.bytes(t)) {
		t.Error("the keyring changed")
	}
	if _, err := os.Stat(f.demo); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a demo key file was written: %v", err)
	}
}

func TestLoadMissing(t *testing.T) {
	_, err := keyring.Load(filepath.Join(t.TempDir(), "keyring"))
	if !errors.Is(err, keyring.ErrNoRing) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Load of no file: %v", err)
	}
}

func TestLoadDamaged(t *testing.T) {
	f := newFixture(t, "passphrase")
	good := f.bytes(t)
	for _, c := range []struct {
		name string
		data []byte
		says string
	}{
		{"empty", nil, "not a Star Fortune keyring"},
		{"other file", []byte("hello\n"), "not a Star Fortune keyring"},
		{"future version", append([]byte("STARFORTUNE-KEYRING 2\n"), good[22:]...), "unknown format version"},
		{"truncated", good[:len(good)-1], "checksum"},
		{"one byte more", append(slices.Clone(good), 0), "checksum"},
		{"only the magic", good[:22], "truncated"},
		{"huge", append(slices.Clone(good), make([]byte, 8<<10)...), "larger than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(f.path, c.data, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := keyring.Load(f.path)
			if !errors.Is(err, keyring.ErrDamaged) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("Load: %v, want ErrDamaged saying %q", err, c.says)
			}
		})
	}
}

func TestWrongCredentials(t *testing.T) {
	real := newFixture(t, "passphrase+central")
	demo := newFixture(t, "demo")
	otherDemo := newFixture(t, "demo")
	garbled := filepath.Join(t.TempDir(), "garbled")
	os.WriteFile(garbled, []byte("# a comment\nnot hex\n"), 0o600)
	for _, c := range []struct {
		name   string
		ring   *fixture
		unlock func(r *keyring.Ring) (keyring.Keys, error)
		want   error
	}{
		{"wrong passphrase", real, func(r *keyring.Ring) (keyring.Keys, error) { return r.UnlockPassphrase(otherPwd) }, keyring.ErrWrongPassphrase},
		{"empty passphrase", real, func(r *keyring.Ring) (keyring.Keys, error) { return r.UnlockPassphrase(nil) }, keyring.ErrWrongPassphrase},
		{"wrong central key", real, func(r *keyring.Ring) (keyring.Keys, error) { return r.UnlockCentral(otherKEK) }, keyring.ErrWrongKey},
		{"short central key", real, func(r *keyring.Ring) (keyring.Keys, error) { return r.UnlockCentral(kek[:16]) }, keyring.ErrWrongKey},
		{"no demo slot", real, func(r *keyring.Ring) (keyring.Keys, error) { return r.UnlockDemo(demo.demo) }, keyring.ErrNoSlot},
		{"another demo's key", demo, func(r *keyring.Ring) (keyring.Keys, error) { return r.UnlockDemo(otherDemo.demo) }, keyring.ErrWrongKey},
		{"demo key file missing", demo, func(r *keyring.Ring) (keyring.Keys, error) { return r.UnlockDemo(demo.demo + ".gone") }, fs.ErrNotExist},
		{"demo key file garbled", demo, func(r *keyring.Ring) (keyring.Keys, error) { return r.UnlockDemo(garbled) }, keyring.ErrDamaged},
		{"no passphrase slot", demo, func(r *keyring.Ring) (keyring.Keys, error) { return r.UnlockPassphrase(pass) }, keyring.ErrNoSlot},
		{"no central slot", demo, func(r *keyring.Ring) (keyring.Keys, error) { return r.UnlockCentral(kek) }, keyring.ErrNoSlot},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := keyring.Load(c.ring.path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.unlock(r); !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
		})
	}
}

func TestWeakPassphrase(t *testing.T) {
	f := newFixture(t, "passphrase")
	for _, c := range []struct {
		pass string
		weak bool
	}{
		{"", true},
		{"seven77", true},
		{"éééééé", true}, // 12 bytes, 6 characters
		{"eight888", false},
		{"éééééééé", false},
	} {
		t.Run(c.pass, func(t *testing.T) {
			_, _, err := keyring.CreatePassphrase(filepath.Join(t.TempDir(), "keyring"), []byte(c.pass))
			if errors.Is(err, keyring.ErrWeakPassphrase) != c.weak || (!c.weak && err != nil) {
				t.Errorf("CreatePassphrase: %v", err)
			}
			err = f.ring.SetPassphrase(f.keys, []byte(c.pass))
			if errors.Is(err, keyring.ErrWeakPassphrase) != c.weak || (!c.weak && err != nil) {
				t.Errorf("SetPassphrase: %v", err)
			}
			k, err := f.ring.BeginRotation(f.keys, keyring.Passphrase([]byte(c.pass)))
			if c.weak && !errors.Is(err, keyring.ErrWeakPassphrase) {
				t.Errorf("BeginRotation: %v", err)
			}
			if !c.weak {
				if err != nil {
					t.Fatalf("BeginRotation: %v", err)
				}
				if f.keys, err = f.ring.FinishRotation(k); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
