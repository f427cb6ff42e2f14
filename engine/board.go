package engine

// The board of article 4.1: three slots at the top, two BONUS boxes in the
// centre and a winnings zone at the bottom. This file holds what the game
// rules need of it (what each destination is worth); geometry.go holds where
// things are drawn and path.go how a puck travels.

const (
	// NumSlots is the number of slots (and pucks offered) at the top.
	NumSlots = 3
	// NumBonusBoxes is the number of BONUS boxes in the centre.
	NumBonusBoxes = 2
	// NumSpots is the number of spots in the winnings zone.
	NumSpots = 11
)

// SpotMultiples are the values of the bottom spots, left to right, as
// multiples of the stake: 0 is a "0 €" spot. They are printed on the board.
var SpotMultiples = [NumSpots]int64{5, 0, 2, 1, 0, 10, 0, 1, 2, 0, 5}

// SpotValue is what spot i wins at stake: the sum printed on it.
func SpotValue(i int, stake Cents) Cents { return Cents(SpotMultiples[i]) * stake }

// BonusMultiples are the sums a BONUS box can reveal, as multiples of the
// stake. A unit's script stores an index into this list.
var BonusMultiples = []int64{1, 2, 5, 10, 15, 20, 50, 100, 500, 1000, 5000, 10000, 25000}

// Destination is where one drop ends: a bottom spot or a BONUS box.
type Destination struct {
	Bonus bool // true: BONUS box Index (0 left, 1 right); false: spot Index
	Index int
}

// Destinations lists every place a puck can end, spots first, then boxes.
func Destinations() []Destination {
	ds := make([]Destination, 0, NumSpots+NumBonusBoxes)
	for i := 0; i < NumSpots; i++ {
		ds = append(ds, Destination{Index: i})
	}
	for i := 0; i < NumBonusBoxes; i++ {
		ds = append(ds, Destination{Bonus: true, Index: i})
	}
	return ds
}
