package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"runtime"
	"sync"
	"sync/atomic"
)

// A block's Merkle tree is computed on all cores (runtime.GOMAXPROCS).
//
// Its leaves are cut into spans of 2^spanBits. Every span but the last is a
// perfect subtree of RFC 6962's tree, and RFC 6962's split of n leaves
// (at the largest power of two below n, a multiple of the span when n is
// over one span) is the same split of the spans' roots: the tree hash of
// the spans' roots, taken as leaves, is the tree hash of the whole. Each
// core takes the next span until none is left, so that a core slowed down
// by another process takes fewer of them; the few hundred roots are joined
// at the end (MerkleRoot).
//
// A leaf costs three SHA-256 calls (its salt, itself, and on average one
// node) and no allocation: each core has its own digest, reset for each
// message, and its own buffers, and the SHA-256 sums are written where
// they are read next (a salt into the leaf's bytes, a leaf hash onto the
// span's stack of subtree roots).
//
// As merkle.go's, the hashing functions are marked //go:norace: each
// writes only its own worker's memory, and reads memory written before
// the workers started (the units, the tails, the early salts).

// spanBits sets the leaves per span: 4 096, about 210 spans in a block.
const spanBits = 12

// spansOf is the number of spans of n leaves.
func spansOf(n int) int { return (n + 1<<spanBits - 1) >> spanBits }

// scriptIDs[a][b] is 1 + the index in scriptList of the script whose drops
// are encoded a and b, or 0: with its tier byte, the one lookup that both
// checks an encoded unit and finds its leaf's tail.
var scriptIDs, scriptList = func() (*[256][256]uint16, []scriptEntry) {
	var ids [256][256]uint16
	var list []scriptEntry
	for t := range scripts {
		for _, u := range Scripts(t) {
			e := u.Encode()
			list = append(list, scriptEntry{tier: e[0], unit: u})
			ids[e[1]][e[2]] = uint16(len(list))
		}
	}
	return &ids, list
}()

type scriptEntry struct {
	tier byte
	unit Unit
}

// leafTails are the tails (see tailSize) of every script's leaf in a block
// at ref's stake, by script index.
func leafTails(ref BlockRef) [][tailSize]byte {
	tails := make([][tailSize]byte, len(scriptList))
	var buf [LeafSize]byte
	for i, s := range scriptList {
		copy(tails[i][:], AppendLeaf(buf[:0], ref, 0, Hash{}, s.unit)[LeafSize-tailSize:])
	}
	return tails
}

// treeWorker is one core's part of a tree: its digest and buffers, and the
// tally of the units it hashed.
type treeWorker struct {
	d     hash.Hash
	tails [][tailSize]byte // shared, read only
	tally Tally
	salt  [len(Seed{}) + 4]byte   // seed || index
	leaf  [1 + LeafSize]byte      // 0x00 || the leaf
	node  [1 + 2*sha256.Size]byte // 0x01 || left || right
	stack [64]Hash                // a span's compact range, largest subtree first
}

func newTreeWorker(ref BlockRef, seed Seed, tails [][tailSize]byte) *treeWorker {
	w := &treeWorker{d: sha256.New(), tails: tails}
	copy(w.salt[:], seed[:])
	w.leaf[0] = 0x00
	binary.BigEndian.PutUint16(w.leaf[33:], ref.Emission)
	binary.BigEndian.PutUint16(w.leaf[35:], uint16(ref.Stake))
	binary.BigEndian.PutUint32(w.leaf[37:], ref.Number)
	w.node[0] = 0x01
	return w
}

// hashLeaf sets *out to the leaf hash of the encoded unit u at index, as
// LeafHash, after checking u and counting it in the worker's tally. salt
// is the unit's salt if it was hashed already (see earlySalts), or nil. out
// must not be on the caller's stack (the digest's Sum would move it to the
// heap): it is a worker's stack slot or an element of a slice.
//
//go:norace
func (w *treeWorker) hashLeaf(index uint32, u []byte, salt, out *Hash) error {
	id := scriptIDs[u[1]][u[2]]
	if id == 0 || scriptList[id-1].tier != u[0] {
		return badUnit(index, u)
	}
	w.tally[u[0]]++
	if salt != nil {
		copy(w.leaf[1:], salt[:])
	} else {
		binary.BigEndian.PutUint32(w.salt[len(Seed{}):], index)
		w.d.Reset()
		w.d.Write(w.salt[:])
		w.d.Sum(w.leaf[1:1]) // the salt, in place
	}
	binary.BigEndian.PutUint32(w.leaf[41:], index)
	copy(w.leaf[45:], w.tails[id-1][:])
	w.d.Reset()
	w.d.Write(w.leaf[:])
	w.d.Sum(out[:0])
	return nil
}

// badUnit is the error of an encoded unit that is no script of its tier.
func badUnit(index uint32, u []byte) error {
	_, err := DecodeUnit(u)
	if err == nil { // scriptIDs lists every unit DecodeUnit accepts
		err = fmt.Errorf("%w: unit %x is no script of its tier", ErrCorrupt, u)
	}
	return fmt.Errorf("unit %d: %w", index, err)
}

// join replaces stack[k] by the node hash of stack[k] and stack[k+1].
//
//go:norace
func (w *treeWorker) join(k int) {
	copy(w.node[1:], w.stack[k][:])
	copy(w.node[1+sha256.Size:], w.stack[k+1][:])
	w.d.Reset()
	w.d.Write(w.node[:])
	w.d.Sum(w.stack[k][:0])
}

// spanRoot is the tree hash of units [from, to) (from < to) of the
// encoded units: as a binary counter carries, a leaf at an even position
// joins its left neighbour's subtree, and so on up; the subtrees left at
// the end (a partial span) are folded from the right, as merkleRange.root.
// salts are the span's salts if they were hashed already, else nil.
//
//go:norace
func (w *treeWorker) spanRoot(units []byte, from, to int, salts []Hash) (Hash, error) {
	top := 0
	for i := from; i < to; i++ {
		var salt *Hash
		if salts != nil {
			salt = &salts[i-from]
		}
		if err := w.hashLeaf(uint32(i), units[i*UnitSize:(i+1)*UnitSize], salt, &w.stack[top]); err != nil {
			return Hash{}, err
		}
		top++
		for t := i - from + 1; t&1 == 0; t >>= 1 {
			top--
			w.join(top - 1)
		}
	}
	for ; top > 1; top-- {
		w.join(top - 2)
	}
	return w.stack[0], nil
}

// onAllCores calls span for each span of n leaves of block ref, spans
// taken in order by one goroutine per core, each with its own worker, and
// returns the sum of the workers' tallies. After an error no new span is
// started; the error returned is that of the first span that failed, so
// the same units give the same error.
func onAllCores(n int, ref BlockRef, seed Seed, span func(w *treeWorker, c, from, to int) error) (Tally, error) {
	spans := spansOf(n)
	tails := leafTails(ref)
	type result struct {
		tally Tally
		span  int
		err   error
	}
	results := make([]result, max(1, min(runtime.GOMAXPROCS(0), spans)))
	var next atomic.Int64
	var failed atomic.Bool
	run := func(r *result) {
		w := newTreeWorker(ref, seed, tails)
		for !failed.Load() {
			c := int(next.Add(1) - 1)
			if c >= spans {
				break
			}
			from := c << spanBits
			if err := span(w, c, from, min(from+1<<spanBits, n)); err != nil {
				r.span, r.err = c, err
				failed.Store(true)
			}
		}
		r.tally = w.tally
	}
	var wg sync.WaitGroup
	for i := 1; i < len(results); i++ {
		wg.Go(func() { run(&results[i]) })
	}
	run(&results[0])
	wg.Wait()
	var tally Tally
	var first *result
	for i := range results {
		r := &results[i]
		if r.err != nil && (first == nil || r.span < first.span) {
			first = r
		}
		for t := range tally {
			tally[t] += r.tally[t]
		}
	}
	if first != nil {
		return Tally{}, first.err
	}
	return tally, nil
}

// commitTally is Commit, and the tally of the units it hashed; its error
// names the first invalid unit. early, if not nil, holds the salts of the
// first spans (see earlySalts).
func commitTally(ref BlockRef, seed Seed, units []byte, early *earlySalts) (Hash, Tally, error) {
	n := len(units) / UnitSize
	roots := make([]Hash, spansOf(n))
	tally, err := onAllCores(n, ref, seed, func(w *treeWorker, c, from, to int) (err error) {
		roots[c], err = w.spanRoot(units, from, to, early.of(c, to-from))
		return err
	})
	if err != nil {
		return Hash{}, Tally{}, err
	}
	return MerkleRoot(roots), tally, nil
}

// earlySalts hashes the salts of a block's first spans on the other cores
// while its units are drawn on one (ChaCha8's stream is one sequence): a
// salt depends only on the seed and the index. Each core takes the next
// span until stopped or until earlySpansPerCore spans per core are taken;
// the buffer is kept for the next block.
type earlySalts struct {
	seed  Seed
	max   int // spans
	next  atomic.Int64
	stop  atomic.Bool
	wg    sync.WaitGroup
	salts *[]Hash
	done  int // spans whose salts are all hashed, once stopped
}

// earlySpansPerCore bounds the early salts: 40 spans of 4 096 salts (5 MiB)
// take a core about 13 ms, a little less than a block's draw.
const earlySpansPerCore = 40

var earlyBuffers = sync.Pool{New: func() any { return new([]Hash) }}

// startEarlySalts starts hashing the salts of the block drawn from seed, on
// all cores but one.
func startEarlySalts(seed Seed) *earlySalts {
	cores := runtime.GOMAXPROCS(0) - 1
	e := &earlySalts{seed: seed, max: min(cores*earlySpansPerCore, spansOf(BlockSize))}
	if e.max <= 0 {
		return e
	}
	e.salts = earlyBuffers.Get().(*[]Hash)
	if len(*e.salts) < e.max<<spanBits {
		*e.salts = make([]Hash, e.max<<spanBits)
	}
	for range cores {
		e.wg.Go(e.run)
	}
	return e
}

//go:norace
func (e *earlySalts) run() {
	d := sha256.New()
	var msg [len(Seed{}) + 4]byte
	copy(msg[:], e.seed[:])
	salts := *e.salts
	for !e.stop.Load() {
		c := int(e.next.Add(1) - 1)
		if c >= e.max {
			return
		}
		for i := c << spanBits; i < (c+1)<<spanBits; i++ {
			binary.BigEndian.PutUint32(msg[len(Seed{}):], uint32(i))
			d.Reset()
			d.Write(msg[:])
			d.Sum(salts[i][:0])
		}
	}
}

// finish stops the cores once their current span is done: the spans
// handed out before then are all hashed.
func (e *earlySalts) finish() {
	e.stop.Store(true)
	e.wg.Wait()
	e.done = min(int(e.next.Load()), e.max)
}

// of returns the salts of span c, of n units, if they were hashed early.
func (e *earlySalts) of(c, n int) []Hash {
	if e == nil || c >= e.done {
		return nil
	}
	return (*e.salts)[c<<spanBits:][:n]
}

// release keeps the buffer for the next block.
func (e *earlySalts) release() {
	if e.salts != nil {
		earlyBuffers.Put(e.salts)
		e.salts, e.done = nil, 0
	}
}
