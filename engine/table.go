package engine

// BlockSize is the number of units in a block (article 2).
const BlockSize = 850_000

// Tier is one line of the prize table of article 3: Count units of a block
// win Multiple times the stake. The table is the same for every stake once
// expressed in multiples of the stake.
type Tier struct {
	Multiple int64
	Count    int
}

// PrizeTable is article 3's table, largest prize first, losing units last.
// A unit stores the index of its tier in this table.
var PrizeTable = [...]Tier{
	{25_000, 1},
	{10_000, 1},
	{1_000, 1},
	{100, 50},
	{20, 500},
	{15, 800},
	{10, 14_000},
	{5, 23_020},
	{2, 100_000},
	{1, 76_900},
	{0, 634_727},
}

// NumTiers is the number of lines of the prize table, losing line included.
const NumTiers = len(PrizeTable)

// LosingTier is the index of the losing line in PrizeTable.
const LosingTier = NumTiers - 1

// Prize is what tier t pays at the given stake.
func (t Tier) Prize(stake Cents) Cents { return Cents(t.Multiple) * stake }

// Tally counts units per tier; a block's tally must equal the table's counts.
type Tally [NumTiers]int

// TableTally is the tally every block must have.
func TableTally() Tally {
	var t Tally
	for i, tier := range PrizeTable {
		t[i] = tier.Count
	}
	return t
}

// TierOf returns the index of the tier paying multiple, or -1.
func TierOf(multiple int64) int {
	for i, t := range PrizeTable {
		if t.Multiple == multiple {
			return i
		}
	}
	return -1
}
