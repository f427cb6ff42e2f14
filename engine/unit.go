package engine

import "fmt"

// UnitSize is the size of an encoded unit: its tier and its two drops.
const UnitSize = 3

// Drop is what one puck of a unit lands on: a spot (worth the spot's value)
// or a BONUS box (worth the sum the GO step reveals).
type Drop struct {
	Dest     Destination
	Multiple int64 // value as a multiple of the stake
}

// Value is what the drop wins at the given stake.
func (d Drop) Value(stake Cents) Cents { return Cents(d.Multiple) * stake }

// Unit is one game unit: its prize tier and its presentation script, the two
// drops, fixed when the block was drawn. The drops always sum to the prize.
type Unit struct {
	Tier  int
	Drops [2]Drop
}

// Prize is the unit's global prize at the given stake.
func (u Unit) Prize(stake Cents) Cents { return PrizeTable[u.Tier].Prize(stake) }

// Encoding of a drop in one byte:
//
//	spot:  0b00ii_iiii           i = spot index
//	bonus: 0b1bvv_vvvv           b = box, v = index into BonusMultiples
const (
	dropBonus = 0x80
	dropBox   = 0x40
	dropIndex = 0x3f
)

func encodeDrop(d Drop) byte {
	if !d.Dest.Bonus {
		return byte(d.Dest.Index)
	}
	for i, m := range BonusMultiples {
		if m == d.Multiple {
			return dropBonus | byte(d.Dest.Index)<<6&dropBox | byte(i)
		}
	}
	panic(fmt.Sprintf("engine: bonus value %d not in BonusMultiples", d.Multiple))
}

func decodeDrop(b byte) (Drop, error) {
	i := int(b & dropIndex)
	if b&dropBonus == 0 {
		if b&dropBox != 0 || i >= NumSpots {
			return Drop{}, fmt.Errorf("%w: bad spot drop %#02x", ErrCorrupt, b)
		}
		return Drop{Dest: Destination{Index: i}, Multiple: SpotMultiples[i]}, nil
	}
	if i >= len(BonusMultiples) {
		return Drop{}, fmt.Errorf("%w: bad bonus drop %#02x", ErrCorrupt, b)
	}
	box := 0
	if b&dropBox != 0 {
		box = 1
	}
	return Drop{Dest: Destination{Bonus: true, Index: box}, Multiple: BonusMultiples[i]}, nil
}

// Encode returns the unit's canonical 3-byte encoding.
func (u Unit) Encode() [UnitSize]byte {
	return [UnitSize]byte{byte(u.Tier), encodeDrop(u.Drops[0]), encodeDrop(u.Drops[1])}
}

// DecodeUnit reads a canonical encoding and checks that it is a valid unit:
// a known tier whose drops sum to its prize.
func DecodeUnit(b []byte) (Unit, error) {
	if len(b) != UnitSize {
		return Unit{}, fmt.Errorf("%w: unit of %d bytes", ErrCorrupt, len(b))
	}
	u := Unit{Tier: int(b[0])}
	if u.Tier >= NumTiers {
		return Unit{}, fmt.Errorf("%w: unit tier %d", ErrCorrupt, u.Tier)
	}
	var err error
	for i := range u.Drops {
		if u.Drops[i], err = decodeDrop(b[1+i]); err != nil {
			return Unit{}, err
		}
	}
	if err := u.Validate(); err != nil {
		return Unit{}, err
	}
	return u, nil
}

// Validate checks the script against the rules: the drops sum to the prize,
// a losing unit lands both pucks on 0 € spots, a BONUS never reveals 0.
func (u Unit) Validate() error {
	if u.Tier < 0 || u.Tier >= NumTiers {
		return fmt.Errorf("%w: tier %d", ErrCorrupt, u.Tier)
	}
	want := PrizeTable[u.Tier].Multiple
	var sum int64
	for _, d := range u.Drops {
		if d.Dest.Bonus {
			if d.Dest.Index < 0 || d.Dest.Index >= NumBonusBoxes || d.Multiple <= 0 {
				return fmt.Errorf("%w: bonus drop %+v", ErrCorrupt, d)
			}
		} else if d.Dest.Index < 0 || d.Dest.Index >= NumSpots || SpotMultiples[d.Dest.Index] != d.Multiple {
			return fmt.Errorf("%w: spot drop %+v", ErrCorrupt, d)
		}
		sum += d.Multiple
	}
	if sum != want {
		return fmt.Errorf("%w: drops sum to %d× the stake, prize is %d×", ErrCorrupt, sum, want)
	}
	return nil
}

// scripts[t] lists every pair of encoded drops the board allows for tier t:
// each drop a spot or a box with a revealable value, summing to the prize.
// A block draws each unit's script uniformly from its tier's list.
var scripts = func() [NumTiers][][2]byte {
	var drops []Drop
	for _, d := range Destinations() {
		if !d.Bonus {
			drops = append(drops, Drop{Dest: d, Multiple: SpotMultiples[d.Index]})
			continue
		}
		for _, m := range BonusMultiples {
			drops = append(drops, Drop{Dest: d, Multiple: m})
		}
	}
	var out [NumTiers][][2]byte
	for t, tier := range PrizeTable {
		for _, a := range drops {
			for _, b := range drops {
				if a.Multiple+b.Multiple == tier.Multiple {
					out[t] = append(out[t], [2]byte{encodeDrop(a), encodeDrop(b)})
				}
			}
		}
		if len(out[t]) == 0 {
			panic(fmt.Sprintf("engine: the board cannot show a prize of %d× the stake", tier.Multiple))
		}
	}
	return out
}()

// Scripts returns every script the board allows for tier t.
func Scripts(t int) []Unit {
	out := make([]Unit, 0, len(scripts[t]))
	for _, s := range scripts[t] {
		u, err := DecodeUnit([]byte{byte(t), s[0], s[1]})
		if err != nil {
			panic(err)
		}
		out = append(out, u)
	}
	return out
}
