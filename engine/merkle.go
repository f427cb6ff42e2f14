package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// The block commitment is the RFC 6962 (RFC 9162 §2.1.1) Merkle tree hash
// over the block's units in serving order. Each leaf is salted with a value
// derived from the block's seed: the prize table has few distinct outcomes,
// so an unsalted sibling hash in a pack's range proof would reveal the
// neighbouring outcome by lookup. Revealing the seed reveals every salt.
//
// The exact bytes (the README's "Verifying a block yourself" repeats them):
//
//	salt(i)   = SHA-256(seed || i as u32 big-endian)   (36 bytes hashed)
//	leaf(i)   = salt(i) [32]
//	            || emission u16 || stake_cents u16 || block number u32
//	            || index i u32 || prize_cents u64
//	            || for each of the two drops: kind u8 (0 spot, 1 bonus),
//	               index u8 (spot 0-10 or bonus box 0-1), value_cents u64
//	            (all integers big-endian: 72 bytes)
//	leafHash  = SHA-256(0x00 || leaf)
//	nodeHash  = SHA-256(0x01 || left || right)
//	root      = MTH over the leaf hashes (RFC 6962 §2.1: split at the largest
//	            power of two smaller than n)
//
// Every field of the leaf is printed by `history --json` and `play --json`.

// The salt is a keyed hash of the position: the seed is secret and every
// message hashed under it has the same length (36 bytes), so SHA-256's
// length extension gives no salt of another position. One compression
// instead of HMAC's two halves the salt's cost, and keeps drawing a block
// quick under the race detector.

// The hashing functions below are marked //go:norace: they touch only their
// own memory on one goroutine, and the race detector's instrumentation of
// them made drawing a block seven times slower under `go test -race`,
// where every test that opens a store draws blocks.

// LeafSize is the length of a leaf's bytes before hashing.
const LeafSize = 32 + 2 + 2 + 4 + 4 + 8 + 2*(1+1+8)

// Salter derives the per-unit salts of one block from its seed. Not safe
// for concurrent use.
type Salter struct {
	msg [len(Seed{}) + 4]byte // seed || index
}

// NewSalter returns the salter of the block drawn from seed.
func NewSalter(seed Seed) *Salter {
	s := &Salter{}
	copy(s.msg[:], seed[:])
	return s
}

// Salt is the salt of the unit at index.
//
//go:norace
func (s *Salter) Salt(index uint32) Hash {
	binary.BigEndian.PutUint32(s.msg[len(Seed{}):], index)
	return sha256.Sum256(s.msg[:])
}

// UnitSalt is the salt of unit index of the block drawn from seed.
func UnitSalt(seed Seed, index uint32) Hash { return NewSalter(seed).Salt(index) }

// AppendLeaf appends the leaf bytes of unit u at index of block ref.
func AppendLeaf(b []byte, ref BlockRef, index uint32, salt Hash, u Unit) []byte {
	b = append(b, salt[:]...)
	b = binary.BigEndian.AppendUint16(b, ref.Emission)
	b = binary.BigEndian.AppendUint16(b, uint16(ref.Stake))
	b = binary.BigEndian.AppendUint32(b, ref.Number)
	b = binary.BigEndian.AppendUint32(b, index)
	b = binary.BigEndian.AppendUint64(b, uint64(u.Prize(ref.Stake)))
	for _, d := range u.Drops {
		kind := byte(0)
		if d.Dest.Bonus {
			kind = 1
		}
		b = append(b, kind, byte(d.Dest.Index))
		b = binary.BigEndian.AppendUint64(b, uint64(d.Value(ref.Stake)))
	}
	return b
}

// LeafHash is the Merkle leaf hash of unit u at index of block ref.
func LeafHash(ref BlockRef, index uint32, salt Hash, u Unit) Hash {
	var buf [1 + LeafSize]byte
	return sha256.Sum256(AppendLeaf(append(buf[:0], 0x00), ref, index, salt, u))
}

// NodeHash is the hash of an interior node.
//
//go:norace
func NodeHash(left, right Hash) Hash {
	var buf [1 + 2*sha256.Size]byte
	buf[0] = 0x01
	copy(buf[1:], left[:])
	copy(buf[1+sha256.Size:], right[:])
	return sha256.Sum256(buf[:])
}

// LeafHashes hashes encoded units (UnitSize bytes each) starting at index
// first of block ref, with their salts from the block's salter, on all
// cores (tree.go).
func LeafHashes(ref BlockRef, s *Salter, first uint32, units []byte) ([]Hash, error) {
	out := make([]Hash, len(units)/UnitSize)
	var seed Seed
	copy(seed[:], s.msg[:])
	_, err := onAllCores(len(out), ref, seed, func(w *treeWorker, _, from, to int) error {
		for i := from; i < to; i++ {
			if err := w.hashLeaf(first+uint32(i), units[i*UnitSize:(i+1)*UnitSize], nil, &out[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// tailSize is the part of a leaf after the salt, block and index: the prize
// and the two drops, which depend only on the unit's encoding and the stake.
const tailSize = LeafSize - 32 - 12

// Commit is the block commitment: the Merkle root over the salted leaves of
// all units of block ref, in serving order, computed on all cores
// (tree.go).
func Commit(ref BlockRef, seed Seed, units []byte) (Hash, error) {
	root, _, err := commitTally(ref, seed, units, nil)
	if err != nil {
		return Hash{}, fmt.Errorf("commit block %s: %w", ref, err)
	}
	return root, nil
}

// MerkleRoot is the RFC 6962 tree hash of the given leaf hashes.
func MerkleRoot(leaves []Hash) Hash {
	var r merkleRange
	for _, h := range leaves {
		r.append(h, 0)
	}
	return r.root()
}

// merkleRange is a compact range [0, n): the roots of the perfect subtrees
// given by the bits of n, largest first. Appending a node of level k at a
// position aligned to 2^k merges equal levels, as a binary counter carries.
type merkleRange struct {
	hashes []Hash
	levels []int
}

//go:norace
func (r *merkleRange) append(h Hash, level int) {
	r.hashes, r.levels = append(r.hashes, h), append(r.levels, level)
	for n := len(r.levels); n >= 2 && r.levels[n-2] == r.levels[n-1]; n = len(r.levels) {
		r.hashes[n-2] = NodeHash(r.hashes[n-2], r.hashes[n-1])
		r.levels[n-2]++
		r.hashes, r.levels = r.hashes[:n-1], r.levels[:n-1]
	}
}

// root folds the subtrees from the right, as RFC 6962's split does; the
// empty tree's hash is SHA-256 of nothing.
func (r *merkleRange) root() Hash {
	if len(r.hashes) == 0 {
		return sha256.Sum256(nil)
	}
	h := r.hashes[len(r.hashes)-1]
	for i := len(r.hashes) - 2; i >= 0; i-- {
		h = NodeHash(r.hashes[i], h)
	}
	return h
}

// NodeID names a perfect subtree: the leaves [Index·2^Level, (Index+1)·2^Level).
type NodeID struct {
	Level int
	Index uint64
}

// RangeProofNodes lists the subtrees whose hashes prove the leaves
// [begin, end) of a tree of size leaves: the compact range of [0, begin)
// (largest first), then the decomposition of [end, size) into aligned
// perfect subtrees (left to right). With the range's own leaves between
// them they rebuild the whole tree.
func RangeProofNodes(begin, end, size uint64) []NodeID {
	var out []NodeID
	var pos uint64
	for k := 63; k >= 0; k-- {
		if begin&(1<<k) != 0 {
			out = append(out, NodeID{k, pos >> k})
			pos += 1 << k
		}
	}
	for p := end; p < size; {
		k := 0
		if p != 0 {
			k = bits.TrailingZeros64(p)
		} else {
			k = 63
		}
		for p+1<<k > size {
			k--
		}
		out = append(out, NodeID{k, p >> k})
		p += 1 << k
	}
	return out
}

// MerkleLevels returns, for each level k, the hashes of the perfect subtrees
// of 2^k leaves (level 0 is the leaves themselves; a partial subtree at the
// right edge is left out). A range proof's nodes are read from it.
func MerkleLevels(leaves []Hash) [][]Hash {
	levels := [][]Hash{leaves}
	for cur := leaves; len(cur) >= 2; {
		next := make([]Hash, len(cur)/2)
		for i := range next {
			next[i] = NodeHash(cur[2*i], cur[2*i+1])
		}
		levels = append(levels, next)
		cur = next
	}
	return levels
}

// RangeProof is the proof of leaves [begin, end) of the tree whose levels
// are given (see MerkleLevels).
func RangeProof(levels [][]Hash, begin, end uint64) []Hash {
	ids := RangeProofNodes(begin, end, uint64(len(levels[0])))
	out := make([]Hash, len(ids))
	for i, id := range ids {
		out[i] = levels[id.Level][id.Index]
	}
	return out
}

// ErrBadProof is a range proof that does not lead to the expected root.
var ErrBadProof = errors.New("engine: Merkle range proof does not match the root")

// VerifyRange checks that leaves are the leaves [begin, begin+len(leaves))
// of the tree of size leaves whose root is root, given the range proof.
func VerifyRange(root Hash, size, begin uint64, leaves, proof []Hash) error {
	end := begin + uint64(len(leaves))
	if end > size || begin > end {
		return fmt.Errorf("%w: leaves [%d, %d) outside a tree of %d", ErrBadProof, begin, end, size)
	}
	ids := RangeProofNodes(begin, end, size)
	if len(ids) != len(proof) {
		return fmt.Errorf("%w: %d proof hashes, want %d", ErrBadProof, len(proof), len(ids))
	}
	var r merkleRange
	i := 0
	for ; i < len(ids) && ids[i].Index<<ids[i].Level < begin; i++ {
		r.append(proof[i], ids[i].Level)
	}
	for _, h := range leaves {
		r.append(h, 0)
	}
	for ; i < len(ids); i++ {
		r.append(proof[i], ids[i].Level)
	}
	if r.root() != root {
		return ErrBadProof
	}
	return nil
}
