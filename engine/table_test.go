package engine_test

import (
	"testing"

	"starfortune/engine"
)

// The three tables of article 3 of the règlement, restated exactly as
// published: for each stake, the number of prizes and the amount of each.
var reglement = []struct {
	stake  engine.Cents
	lines  []struct{ count, amount int64 } // amount in cents
	total  int64                           // "lots formant un total de", cents
	prizes int                             // number of winning units
}{
	{50, []struct{ count, amount int64 }{
		{1, 1_250_000}, {1, 500_000}, {1, 50_000}, {50, 5_000}, {500, 1_000},
		{800, 750}, {14_000, 500}, {23_020, 250}, {100_000, 100}, {76_900, 50},
	}, 29_750_000, 215_273},
	{100, []struct{ count, amount int64 }{
		{1, 2_500_000}, {1, 1_000_000}, {1, 100_000}, {50, 10_000}, {500, 2_000},
		{800, 1_500}, {14_000, 1_000}, {23_020, 500}, {100_000, 200}, {76_900, 100},
	}, 59_500_000, 215_273},
	{200, []struct{ count, amount int64 }{
		{1, 5_000_000}, {1, 2_000_000}, {1, 200_000}, {50, 20_000}, {500, 4_000},
		{800, 3_000}, {14_000, 2_000}, {23_020, 1_000}, {100_000, 400}, {76_900, 200},
	}, 119_000_000, 215_273},
}

func TestPrizeTableIsTheReglement(t *testing.T) {
	for _, want := range reglement {
		t.Run(want.stake.String(), func(t *testing.T) {
			var winners, total int64
			for i, line := range want.lines {
				tier := engine.PrizeTable[i]
				if int64(tier.Count) != line.count || int64(tier.Prize(want.stake)) != line.amount {
					t.Errorf("line %d: table has %d × %s, règlement says %d × %s", i,
						tier.Count, tier.Prize(want.stake), line.count, engine.Cents(line.amount))
				}
				winners += line.count
				total += line.count * line.amount
			}
			if len(engine.PrizeTable) != len(want.lines)+1 {
				t.Fatalf("table has %d lines, règlement %d prizes + losing units", len(engine.PrizeTable), len(want.lines))
			}
			if winners != int64(want.prizes) || total != want.total {
				t.Errorf("règlement restated wrongly: %d prizes totalling %d cents", winners, total)
			}
			var ourWinners, ourTotal int64
			for _, tier := range engine.PrizeTable {
				if tier.Multiple > 0 {
					ourWinners += int64(tier.Count)
				}
				ourTotal += int64(tier.Count) * int64(tier.Prize(want.stake))
			}
			losing := engine.PrizeTable[engine.LosingTier]
			if ourWinners != 215_273 || losing.Multiple != 0 || losing.Count != 634_727 ||
				ourWinners+int64(losing.Count) != engine.BlockSize || engine.BlockSize != 850_000 {
				t.Errorf("winners %d, losing line %+v, block size %d", ourWinners, losing, engine.BlockSize)
			}
			if ourTotal != want.total {
				t.Errorf("total prizes %s, règlement %s", engine.Cents(ourTotal), engine.Cents(want.total))
			}
			// 70 % of the block's sales are paid back.
			if ourTotal*100 != int64(engine.BlockSize)*int64(want.stake)*70 {
				t.Errorf("payout ratio is not 70 %%: %d of %d", ourTotal, int64(engine.BlockSize)*int64(want.stake))
			}
		})
	}
}
