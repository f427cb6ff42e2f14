package keyring_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"starfortune/keyring"
)

var update = flag.Bool("update", false, "rewrite the keyring files and the sealed stream in testdata")

// The files in testdata were written by this package (go test -run
// TestGolden -update). They pin the format: a version that can no longer
// read them cannot read the kiosks' keyrings and backups either. The fuzz
// tests start from them, because their keys are the same in every process
// the fuzzer starts.
var golden = []struct {
	name  string // testdata/NAME/keyring
	kinds []keyring.SlotKind
	gens  []uint32
}{
	{"passphrase", []keyring.SlotKind{keyring.SlotPassphrase, keyring.SlotCentral}, []uint32{1}},
	{"rotating", []keyring.SlotKind{keyring.SlotPassphrase, keyring.SlotCentral}, []uint32{1, 2}},
	{"demo", []keyring.SlotKind{keyring.SlotDemo}, []uint32{1}},
}

// goldenStream is testdata/sealed: plaintext(goldenStreamSize) sealed
// under generation 1 of testdata/passphrase.
const goldenStreamSize = chunk + 1000

func goldenPath(name string) string { return filepath.Join("testdata", name, "keyring") }

func goldenDemoKey(name string) string { return filepath.Join("testdata", name, keyring.DemoKeyFile) }

// goldenKeys unlocks a golden keyring.
func goldenKeys(tb testing.TB, name string) keyring.Keys {
	tb.Helper()
	r, err := keyring.Load(goldenPath(name))
	if err != nil {
		tb.Fatal(err)
	}
	k, err := unlock(r, r.Slots()[0].Kind, goldenDemoKey(name))
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

func TestGolden(t *testing.T) {
	if *update {
		writeGolden(t)
	}
	for _, g := range golden {
		t.Run(g.name, func(t *testing.T) {
			r, err := keyring.Load(goldenPath(g.name))
			if err != nil {
				t.Fatal(err)
			}
			var kinds []keyring.SlotKind
			for _, s := range r.Slots() {
				kinds = append(kinds, s.Kind)
			}
			// The offsets doc.go gives.
			b, _ := os.ReadFile(goldenPath(g.name))
			n, m := len(g.gens), len(g.kinds)
			if len(b) != 84+40*n+106*m+32 || string(b[:22]) != "STARFORTUNE-KEYRING 1\n" ||
				b[42] != byte(n) || int(b[46]) != int(g.gens[0]) || b[83+40*n] != byte(m) {
				t.Fatalf("the layout is not doc.go's")
			}
			for i, kind := range g.kinds {
				if b[84+40*n+106*i] != byte(kind) {
					t.Fatalf("slot %d is not at doc.go's offset", i)
				}
			}
			if !slices.Equal(kinds, g.kinds) || !slices.Equal(r.Generations(), g.gens) {
				t.Fatalf("slots %v, generations %v", kinds, r.Generations())
			}
			var first keyring.Keys
			for i, kind := range g.kinds {
				k, err := unlock(r, kind, goldenDemoKey(g.name))
				if err != nil {
					t.Fatalf("%s: %v", kind, err)
				}
				if !slices.Equal(k.Generations(), g.gens) || (i > 0 && !sameKeys(k, first)) {
					t.Fatalf("%s gives %v", kind, k)
				}
				first = k
			}
		})
	}
	sealed, err := os.ReadFile(filepath.Join("testdata", "sealed"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := open(goldenKeys(t, "passphrase"), sealed)
	if err != nil || !bytes.Equal(got, plaintext(goldenStreamSize)) {
		t.Fatalf("testdata/sealed: %d bytes, %v", len(got), err)
	}
}

func writeGolden(t *testing.T) {
	if err := os.RemoveAll("testdata"); err != nil {
		t.Fatal(err)
	}
	for _, g := range golden {
		dir := filepath.Join("testdata", g.name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		kind := g.name
		if kind == "passphrase" {
			kind = "passphrase+central"
		}
		newFixtureIn(t, dir, kind)
	}
	if err := os.WriteFile(filepath.Join("testdata", "sealed"), seal(t, goldenKeys(t, "passphrase"), plaintext(goldenStreamSize), 0), 0o644); err != nil {
		t.Fatal(err)
	}
}
