package engine

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	mrand "math/rand/v2"
)

// BlockRef names a block: its emission, its stake, and its number (from 1)
// among that stake's blocks in the emission.
type BlockRef struct {
	Emission uint16
	Stake    Cents
	Number   uint32
}

// String is the block's part of a ticket number: "01-050-0003".
func (r BlockRef) String() string {
	return fmt.Sprintf("%02d-%03d-%04d", r.Emission, r.Stake, r.Number)
}

// ID packs the reference into 64 bits (emission, stake, number), the block
// identity that seeds the falls of its units (see Sale.Fall).
func (r BlockRef) ID() uint64 {
	return uint64(r.Emission)<<48 | uint64(r.Stake)<<32 | uint64(r.Number)
}

// Seed keys the generator that draws a block. It stays secret while the block
// sells and is revealed once the block is exhausted.
type Seed [32]byte

// NewSeed draws a seed from the operating system's CSPRNG.
func NewSeed() (Seed, error) {
	var s Seed
	if _, err := rand.Read(s[:]); err != nil {
		return s, fmt.Errorf("draw block seed: %w", err)
	}
	return s, nil
}

// Hash is a SHA-256 digest: commitments and the history chain.
type Hash [32]byte

func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// Block is a drawn block: its 850 000 units in serving order, each UnitSize
// bytes (see Unit.Encode), and the commitment published when it was drawn:
// the Merkle root of its salted units (merkle.go).
type Block struct {
	Ref        BlockRef
	Seed       Seed
	Units      []byte
	Commitment Hash
}

// Len is the number of units in the block.
func (b *Block) Len() int { return len(b.Units) / UnitSize }

// Unit decodes unit i.
func (b *Block) Unit(i int) (Unit, error) {
	return DecodeUnit(b.Units[i*UnitSize : (i+1)*UnitSize])
}

// GenerateBlock draws the block ref from seed: the prize table's multiset of
// outcomes shuffled by an unbiased Fisher–Yates driven by ChaCha8 keyed by the
// seed, then each unit's script drawn uniformly among those its prize allows,
// from the same stream. The same seed always gives the same block, bit for bit.
func GenerateBlock(ref BlockRef, seed Seed) *Block {
	b, _ := generateBlock(ref, seed)
	return b
}

// generateBlock is GenerateBlock, and the tally of the units it committed.
// While the units are drawn, the other cores hash the first salts.
func generateBlock(ref BlockRef, seed Seed) (*Block, Tally) {
	early := startEarlySalts(seed)
	units := drawUnits(seed)
	early.finish()
	root, tally, err := commitTally(ref, seed, units, early)
	early.release()
	if err != nil { // the units were just drawn from the scripts' own lists
		panic(err)
	}
	return &Block{Ref: ref, Seed: seed, Units: units, Commitment: root}, tally
}

// drawUnits draws a block's encoded units from seed (see GenerateBlock).
func drawUnits(seed Seed) []byte {
	tiers := make([]byte, 0, BlockSize)
	for t, tier := range PrizeTable {
		for range tier.Count {
			tiers = append(tiers, byte(t))
		}
	}
	r := mrand.New(mrand.NewChaCha8(seed))
	for i := len(tiers) - 1; i > 0; i-- {
		j := r.IntN(i + 1)
		tiers[i], tiers[j] = tiers[j], tiers[i]
	}
	units := make([]byte, len(tiers)*UnitSize)
	for i, t := range tiers {
		choices := scripts[t]
		s := choices[r.IntN(len(choices))]
		units[i*UnitSize], units[i*UnitSize+1], units[i*UnitSize+2] = t, s[0], s[1]
	}
	return units
}

// NewBlock draws block ref from a fresh random seed.
func NewBlock(ref BlockRef) (*Block, error) {
	seed, err := NewSeed()
	if err != nil {
		return nil, err
	}
	return GenerateBlock(ref, seed), nil
}

// TallyUnits counts encoded units per tier, checking each one's script.
func TallyUnits(units []byte) (Tally, error) {
	var t Tally
	if len(units)%UnitSize != 0 {
		return t, fmt.Errorf("%w: %d bytes is not a whole number of units", ErrCorrupt, len(units))
	}
	for i := 0; i < len(units); i += UnitSize {
		tier := int(units[i])
		if tier >= NumTiers || scriptTier[units[i+1]][units[i+2]] != byte(tier)+1 {
			return t, fmt.Errorf("%w: unit %d has an invalid script", ErrCorrupt, i/UnitSize)
		}
		t[tier]++
	}
	return t, nil
}

// scriptTier[a][b] is 1 + the tier whose scripts include drops (a, b), or 0.
var scriptTier = func() *[256][256]byte {
	var m [256][256]byte
	for t, list := range scripts {
		for _, s := range list {
			m[s[0]][s[1]] = byte(t) + 1
		}
	}
	return &m
}()
