package cli

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"starfortune/engine"
)

// cmdVerify recomputes a closed block's Merkle root from its units as JSON
// lines (what `history --json`, `play --json` and `central show --json`
// print) and its revealed seed. The leaf bytes are built here from the JSON
// fields, as docs/auditing.md documents them, not by the engine's own encoder, so
// a pass shows that the documentation and the engine agree. Positions the
// file lacks (units voided centrally, or a partial history) are drawn again
// from the seed and counted in the report.
func verifyFlags(fs *flag.FlagSet) func(*call) error {
	seedHex := fs.String("seed", "", "required: the block's revealed seed, 64 `HEX` digits")
	rootHex := fs.String("root", "", "required: the block's published commitment, 64 `HEX` digits")
	return func(c *call) error { return verify(c, *seedHex, *rootHex) }
}

func verify(c *call, seedHex, rootHex string) error {
	pos, stdout := c.args, c.out
	var seed engine.Seed
	var root engine.Hash
	if err := decodeHex32(seedHex, seed[:]); err != nil {
		return usageError{fmt.Errorf("--seed: %w", err)}
	}
	if err := decodeHex32(rootHex, root[:]); err != nil {
		return usageError{fmt.Errorf("--root: %w", err)}
	}
	in := c.stdin
	if pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	res, err := verifyBlock(in, seed)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "block %s: root %s recomputed from %d units of the file and %d drawn again from the seed: %s\n",
		res.ref, res.root, res.fromFile, res.fromSeed, map[bool]string{true: "matches", false: "DOES NOT MATCH"}[res.root == root])
	if res.root != root {
		return fmt.Errorf("%w: block %s", errRootMismatch, res.ref)
	}
	return nil
}

// errRootMismatch is a recomputed root that differs from the published one.
var errRootMismatch = errors.New("the recomputed Merkle root differs from the published commitment")

type verifyResult struct {
	ref                engine.BlockRef
	root               engine.Hash
	fromFile, fromSeed int
}

// unitLine is the part of a unit's JSON line that its leaf encodes.
type unitLine struct {
	Block      string `json:"block"`
	Index      *int64 `json:"index"`
	StakeCents int64  `json:"stake_cents"`
	PrizeCents int64  `json:"prize_cents"`
	Drops      []struct {
		Kind       string `json:"kind"`
		Index      int    `json:"index"`
		ValueCents int64  `json:"value_cents"`
	} `json:"drops"`
}

func verifyBlock(in io.Reader, seed engine.Seed) (verifyResult, error) {
	var res verifyResult
	leaves := make([]engine.Hash, engine.BlockSize)
	have := make([]bool, engine.BlockSize)
	salter := engine.NewSalter(seed)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var u unitLine
		if err := json.Unmarshal(sc.Bytes(), &u); err != nil {
			return res, fmt.Errorf("line %d: %w", line, err)
		}
		ref, err := parseBlockRef(u.Block)
		if err != nil {
			return res, fmt.Errorf("line %d: %w", line, err)
		}
		switch {
		case res.fromFile == 0:
			res.ref = ref
		case ref != res.ref:
			return res, fmt.Errorf("line %d: block %s, the file's first line is of block %s", line, ref, res.ref)
		}
		if u.Index == nil || *u.Index < 0 || *u.Index >= engine.BlockSize || len(u.Drops) != 2 || u.StakeCents != int64(ref.Stake) {
			return res, fmt.Errorf("line %d: not a unit of block %s (index, stake or drops)", line, ref)
		}
		i := uint32(*u.Index)
		salt := salter.Salt(i)
		leaf := append(make([]byte, 0, 1+engine.LeafSize), 0x00)
		leaf = append(leaf, salt[:]...)
		leaf = binary.BigEndian.AppendUint16(leaf, ref.Emission)
		leaf = binary.BigEndian.AppendUint16(leaf, uint16(ref.Stake))
		leaf = binary.BigEndian.AppendUint32(leaf, ref.Number)
		leaf = binary.BigEndian.AppendUint32(leaf, i)
		leaf = binary.BigEndian.AppendUint64(leaf, uint64(u.PrizeCents))
		for _, d := range u.Drops {
			kind := byte(0)
			if d.Kind == "bonus" {
				kind = 1
			}
			leaf = append(leaf, kind, byte(d.Index))
			leaf = binary.BigEndian.AppendUint64(leaf, uint64(d.ValueCents))
		}
		h := engine.Hash(sha256.Sum256(leaf))
		if have[i] && leaves[i] != h {
			return res, fmt.Errorf("line %d: position %d appears twice with different outcomes", line, i)
		}
		if !have[i] {
			res.fromFile++
		}
		leaves[i], have[i] = h, true
	}
	if err := sc.Err(); err != nil {
		return res, err
	}
	if res.fromFile == 0 {
		return res, errors.New("no unit in the file")
	}
	if res.fromFile < engine.BlockSize {
		b := engine.GenerateBlock(res.ref, seed)
		for i := range leaves {
			if have[i] {
				continue
			}
			u, err := b.Unit(i)
			if err != nil {
				return res, err
			}
			leaves[i] = engine.LeafHash(res.ref, uint32(i), salter.Salt(uint32(i)), u)
			res.fromSeed++
		}
	}
	res.root = engine.MerkleRoot(leaves)
	return res, nil
}

// parseBlockRef reads a block as the JSON prints it: "01-050-0003".
func parseBlockRef(s string) (engine.BlockRef, error) {
	var e, st, n uint32
	var rest string
	if c, _ := fmt.Sscanf(s, "%02d-%03d-%04d%s", &e, &st, &n, &rest); c != 3 || len(s) != 11 || e > 99 || n == 0 {
		return engine.BlockRef{}, fmt.Errorf("block %q: want EE-SSS-NNNN", s)
	}
	return engine.BlockRef{Emission: uint16(e), Stake: engine.Cents(st), Number: n}, nil
}

func decodeHex32(s string, out []byte) error {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		return fmt.Errorf("want 64 hex digits, got %q", s)
	}
	copy(out, b)
	return nil
}
