package engine_test

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/rfc6962"

	"starfortune/engine"
)

// The Merkle code is checked against transparency-dev/merkle, an
// independent RFC 6962 implementation; the engine itself must not import it.

var factory = compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}

// block1 is drawn once for all these tests (seconds of CPU under -race),
// and shared with the block tests' seed 1 (drawn50).
func block1() *engine.Block { return drawn50(1) }

func leaves(n int) []engine.Hash {
	b := block1()
	s := engine.NewSalter(b.Seed)
	out, err := engine.LeafHashes(ref50, s, 0, b.Units[:n*engine.UnitSize])
	if err != nil {
		panic(err)
	}
	return out
}

func bs(hs []engine.Hash) [][]byte {
	out := make([][]byte, len(hs))
	for i := range hs {
		out[i] = hs[i][:]
	}
	return out
}

func libRoot(t *testing.T, hs []engine.Hash) []byte {
	t.Helper()
	r := factory.NewEmptyRange(0)
	for _, h := range hs {
		if err := r.Append(h[:], nil); err != nil {
			t.Fatal(err)
		}
	}
	if len(hs) == 0 {
		return rfc6962.DefaultHasher.EmptyRoot()
	}
	root, err := r.GetRootHash(nil)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func TestLeafAndNodeHashesAreRFC6962(t *testing.T) {
	b := block1()
	u, _ := b.Unit(5)
	salt := engine.UnitSalt(b.Seed, 5)
	leaf := engine.AppendLeaf(nil, ref50, 5, salt, u)
	if len(leaf) != engine.LeafSize {
		t.Fatalf("leaf of %d bytes, want %d", len(leaf), engine.LeafSize)
	}
	if h := engine.LeafHash(ref50, 5, salt, u); !bytes.Equal(h[:], rfc6962.DefaultHasher.HashLeaf(leaf)) {
		t.Fatal("leaf hash differs from RFC 6962's")
	}
	l, r := engine.Hash{1}, engine.Hash{2}
	if h := engine.NodeHash(l, r); !bytes.Equal(h[:], rfc6962.DefaultHasher.HashChildren(l[:], r[:])) {
		t.Fatal("node hash differs from RFC 6962's")
	}
}

func TestMerkleRootMatchesTheLibrary(t *testing.T) {
	all := leaves(300)
	for n := 0; n <= len(all); n++ {
		if got := engine.MerkleRoot(all[:n]); !bytes.Equal(got[:], libRoot(t, all[:n])) {
			t.Fatalf("size %d: root differs", n)
		}
	}
}

func TestBlockCommitmentMatchesTheLibrary(t *testing.T) {
	b := block1()
	hs, err := engine.LeafHashes(ref50, engine.NewSalter(b.Seed), 0, b.Units)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Commitment[:], libRoot(t, hs)) {
		t.Fatal("block commitment differs from the library's root of the same leaves")
	}
}

// A known answer, for implementations in other languages (README).
func TestCommitmentKnownAnswer(t *testing.T) {
	b := block1()
	salt := engine.UnitSalt(b.Seed, 0)
	got := fmt.Sprintf("salt0=%s root=%s", salt, b.Commitment)
	const want = "salt0=a01cbdb97fb71ca9f479708dfe8f8157c1817e1214222a83a127e5b3961b20e8 root=1a728c3f199f4f17c3e1b71b79fb56acaee35e0b0374bc32b48bd22360500f08"
	if got != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
}

func TestRangeProofs(t *testing.T) {
	all := leaves(70)
	for size := 1; size <= len(all); size++ {
		tree := all[:size]
		root := engine.MerkleRoot(tree)
		levels := engine.MerkleLevels(tree)
		for begin := 0; begin < size; begin++ {
			for end := begin + 1; end <= size; end++ {
				proof := engine.RangeProof(levels, uint64(begin), uint64(end))
				if err := engine.VerifyRange(root, uint64(size), uint64(begin), tree[begin:end], proof); err != nil {
					t.Fatalf("size %d [%d,%d): %v", size, begin, end, err)
				}
				checkWithLibrary(t, tree, root, begin, end, proof)
			}
		}
	}
}

// checkWithLibrary rebuilds the root the library's way: the compact range of
// [0, begin) from the proof's first hashes, the range's leaves, then the
// compact range of [end, size) from the rest.
func checkWithLibrary(t *testing.T, tree []engine.Hash, root engine.Hash, begin, end int, proof []engine.Hash) {
	t.Helper()
	nl := len(compact.RangeNodes(0, uint64(begin), nil))
	if nl > len(proof) {
		t.Fatalf("[%d,%d) of %d: %d proof hashes, the left range alone has %d", begin, end, len(tree), len(proof), nl)
	}
	r, err := factory.NewRange(0, uint64(begin), bs(proof[:nl]))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range tree[begin:end] {
		if err := r.Append(h[:], nil); err != nil {
			t.Fatal(err)
		}
	}
	if end < len(tree) {
		right, err := factory.NewRange(uint64(end), uint64(len(tree)), bs(proof[nl:]))
		if err != nil {
			t.Fatalf("[%d,%d) of %d: right range: %v", begin, end, len(tree), err)
		}
		if err := r.AppendRange(right, nil); err != nil {
			t.Fatal(err)
		}
	} else if nl != len(proof) {
		t.Fatalf("[%d,%d) of %d: extra proof hashes", begin, end, len(tree))
	}
	got, err := r.GetRootHash(nil)
	if err != nil || !bytes.Equal(got, root[:]) {
		t.Fatalf("[%d,%d) of %d: library rebuilds another root (%v)", begin, end, len(tree), err)
	}
}

func TestRangeProofRefusesTampering(t *testing.T) {
	tree := leaves(1000)
	root := engine.MerkleRoot(tree)
	levels := engine.MerkleLevels(tree)
	proof := engine.RangeProof(levels, 200, 300)
	flip := func(hs []engine.Hash, i int) []engine.Hash {
		out := append([]engine.Hash(nil), hs...)
		out[i][0] ^= 1
		return out
	}
	other := leaves(2)[1]
	cases := []struct {
		name          string
		size, begin   uint64
		leaves, proof []engine.Hash
	}{
		{"a proof hash flipped", 1000, 200, tree[200:300], flip(proof, 0)},
		{"the last proof hash flipped", 1000, 200, tree[200:300], flip(proof, len(proof)-1)},
		{"a leaf changed", 1000, 200, flip(tree[200:300], 50), proof},
		{"a leaf replaced", 1000, 200, append([]engine.Hash{other}, tree[201:300]...), proof},
		{"shifted by one", 1000, 201, tree[200:300], proof},
		{"a leaf missing", 1000, 200, tree[200:299], proof},
		{"a proof hash missing", 1000, 200, tree[200:300], proof[1:]},
		{"another size", 999, 200, tree[200:300], proof},
		{"beyond the tree", 1000, 950, tree[200:300], proof},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := engine.VerifyRange(root, c.size, c.begin, c.leaves, c.proof); !errors.Is(err, engine.ErrBadProof) {
				t.Fatalf("got %v, want ErrBadProof", err)
			}
		})
	}
}

// The engine's build imports the standard library and the program's one
// logging library (zerolog, with what it imports itself), no adapter: only
// its external tests import the reference library.
func TestEngineImportsOnlyTheStandardLibraryAndZerolog(t *testing.T) {
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		return strings.Fields(string(out))
	}
	logging := map[string]bool{}
	for _, d := range deps("github.com/rs/zerolog") {
		logging[d] = true
	}
	var others []string
	for _, d := range deps("starfortune/engine") {
		if !logging[d] {
			others = append(others, d)
		}
	}
	if len(others) != 1 || others[0] != "starfortune/engine" {
		t.Fatalf("engine depends on %v besides zerolog", others)
	}
}

// seqLeaves are the leaf hashes of units [0, n) of block1, one at a time
// through the exported per-leaf functions: the reference the parallel tree
// (tree.go) is checked against.
func seqLeaves(t *testing.T, n int) []engine.Hash {
	t.Helper()
	b := block1()
	out := make([]engine.Hash, n)
	for i := range out {
		u, err := b.Unit(i)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = engine.LeafHash(ref50, uint32(i), engine.UnitSalt(b.Seed, uint32(i)), u)
	}
	return out
}

// The tree is computed on all cores in spans of 4 096 leaves: every size
// around a span's edges, on any number of cores, gives the root of the
// leaves computed one by one, and LeafHashes gives those leaves; a block
// drawn on any number of cores has the same commitment.
func TestParallelTreeMatchesOneLeafAtATime(t *testing.T) {
	b := block1()
	all := seqLeaves(t, 5*4096+17)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2, 3, 8} {
		runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 2, 3, 5, 4095, 4096, 4097, 8191, 8192, 8193, 3*4096 + 1, 4 * 4096, len(all)} {
			root, err := engine.Commit(ref50, b.Seed, b.Units[:n*engine.UnitSize])
			if err != nil {
				t.Fatal(err)
			}
			if want := engine.MerkleRoot(all[:n]); root != want {
				t.Fatalf("%d cores, %d leaves: root %s, one leaf at a time %s", procs, n, root, want)
			}
		}
		// A block's draw hashes its first salts while it shuffles.
		if g := engine.GenerateBlock(ref50, b.Seed); g.Commitment != b.Commitment {
			t.Fatalf("%d cores: the block drawn again has another commitment", procs)
		}
		const first = 4000 // leaves of a range that starts inside a span
		got, err := engine.LeafHashes(ref50, engine.NewSalter(b.Seed), first, b.Units[first*engine.UnitSize:len(all)*engine.UnitSize])
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, all[first:]) {
			t.Fatalf("%d cores: LeafHashes differs from the leaves one at a time", procs)
		}
	}
}

// The tree's own table of scripts accepts exactly the units DecodeUnit
// accepts, and builds each one's leaf as AppendLeaf does.
func TestParallelTreeChecksUnitsAsDecodeUnit(t *testing.T) {
	var valid []byte
	for tier := 0; tier <= engine.NumTiers; tier++ {
		for d := 0; d < 1<<16; d++ {
			u := [engine.UnitSize]byte{byte(tier), byte(d >> 8), byte(d)}
			_, err := engine.DecodeUnit(u[:])
			if ok := engine.IsScript(u); ok != (err == nil) {
				t.Fatalf("unit %x: the tree accepts it: %v, DecodeUnit: %v", u, ok, err)
			}
			if err == nil {
				valid = append(valid, u[:]...)
			}
		}
	}
	b := block1()
	for _, ref := range []engine.BlockRef{ref50, {Emission: 2, Stake: 200, Number: 9}} {
		got, err := engine.LeafHashes(ref, engine.NewSalter(b.Seed), 7, valid)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			u, _ := engine.DecodeUnit(valid[i*engine.UnitSize : (i+1)*engine.UnitSize])
			idx := uint32(7 + i)
			if got[i] != engine.LeafHash(ref, idx, engine.UnitSalt(b.Seed, idx), u) {
				t.Fatalf("block %s, unit %+v: leaf hash differs from LeafHash", ref, u)
			}
		}
	}
}

// An invalid unit is refused, and the error names the first one whichever
// core reaches it first.
func TestParallelTreeNamesTheFirstInvalidUnit(t *testing.T) {
	b := block1()
	units := slices.Clone(b.Units)
	for _, i := range []int{100_000, 300_000, 700_000} {
		units[i*engine.UnitSize] = byte(engine.NumTiers) // no such tier
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2, 4} {
		runtime.GOMAXPROCS(procs)
		_, err := engine.Commit(ref50, b.Seed, units)
		if !errors.Is(err, engine.ErrCorrupt) || !strings.Contains(err.Error(), "unit 100000:") {
			t.Fatalf("%d cores: %v", procs, err)
		}
	}
}
