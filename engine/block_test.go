package engine_test

import (
	"bytes"
	"errors"
	"sync"
	"testing"

	"starfortune/engine"
)

var ref50 = engine.BlockRef{Emission: 1, Stake: 50, Number: 1}

// drawn50 is block ref50 drawn from seed(sd), drawn once per test binary
// whichever test asks first: a block's Merkle tree takes a second or more
// of CPU under -race, and the tests that only read drawn blocks (their
// tallies, spread, scripts, units, the Merkle tests' block1) share them.
// Callers must not change it: those that damage units clone them first.
// The tests of the draw itself draw again (reproducibility, cores).
func drawn50(sd byte) *engine.Block {
	drawnMu.Lock()
	once, ok := drawnOnce[sd]
	if !ok {
		once = sync.OnceValue(func() *engine.Block { return engine.GenerateBlock(ref50, seed(sd)) })
		drawnOnce[sd] = once
	}
	drawnMu.Unlock()
	return once()
}

var (
	drawnMu   sync.Mutex
	drawnOnce = map[byte]func() *engine.Block{}
)

func seed(b byte) engine.Seed {
	var s engine.Seed
	for i := range s {
		s[i] = b + byte(i)
	}
	return s
}

func TestBlockTalliesEqualTheTable(t *testing.T) {
	for _, sd := range []byte{1, 2, 3, 42} {
		b := drawn50(sd)
		if b.Len() != engine.BlockSize {
			t.Fatalf("seed %d: %d units", sd, b.Len())
		}
		tally, err := engine.TallyUnits(b.Units)
		if err != nil {
			t.Fatal(err)
		}
		if tally != engine.TableTally() {
			t.Errorf("seed %d: tally %v, table %v", sd, tally, engine.TableTally())
		}
		var paid engine.Cents
		for i := 0; i < b.Len(); i++ {
			u, err := b.Unit(i)
			if err != nil {
				t.Fatalf("seed %d unit %d: %v", sd, i, err)
			}
			paid += u.Prize(ref50.Stake)
		}
		if paid != 29_750_000 {
			t.Errorf("seed %d: block pays %s, règlement 297 500 €", sd, paid)
		}
	}
}

func TestBlockIsReproducibleFromItsSeed(t *testing.T) {
	a := drawn50(1)
	b := engine.GenerateBlock(ref50, seed(1)) // drawn again
	if !bytes.Equal(a.Units, b.Units) || a.Commitment != b.Commitment {
		t.Fatal("same seed gave different blocks")
	}
	c := drawn50(2)
	if bytes.Equal(a.Units, c.Units) || a.Commitment == c.Commitment {
		t.Fatal("different seeds gave the same block")
	}
	commit := func(ref engine.BlockRef, s engine.Seed, units []byte) engine.Hash {
		t.Helper()
		h, err := engine.Commit(ref, s, units)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	if commit(ref50, a.Seed, a.Units) != a.Commitment {
		t.Fatal("commitment is not the root of the units")
	}
	other := ref50
	other.Number = 2
	if commit(other, a.Seed, a.Units) == a.Commitment {
		t.Fatal("commitment does not bind the block's identity")
	}
	if commit(ref50, c.Seed, a.Units) == a.Commitment {
		t.Fatal("commitment does not bind the salts")
	}
	units := bytes.Clone(a.Units)
	units[3*1000+1], units[3*1001+1] = units[3*1001+1], units[3*1000+1]
	if commit(ref50, a.Seed, units) == a.Commitment && !bytes.Equal(units, a.Units) {
		t.Fatal("commitment does not see a changed unit")
	}
}

func TestNewBlockSeedsDiffer(t *testing.T) {
	a, err := engine.NewBlock(ref50)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := engine.NewBlock(ref50)
	if a.Seed == b.Seed || a.Seed == (engine.Seed{}) {
		t.Fatal("crypto/rand seeds repeat or are zero")
	}
}

// Winners must be spread uniformly over the serving order: a chi-square
// test over 100 equal slices of the block, two-sided at the 99 % level. A
// block holds a fixed number of winners (drawn without replacement), so the
// statistic takes the finite-population correction 1 - winners/units.
func TestWinnersAreUniformlySpread(t *testing.T) {
	const bins = 100
	const low, high = 66.510, 138.987 // chi-square quantiles 0.005 and 0.995, 99 degrees of freedom
	const winners = 215_273.0
	for _, sd := range []byte{1, 2, 3} { // the blocks TestBlockTalliesEqualTheTable checks
		b := drawn50(sd)
		var counts [bins]float64
		per := engine.BlockSize / bins
		for i := 0; i < b.Len(); i++ {
			if int(b.Units[i*engine.UnitSize]) != engine.LosingTier {
				counts[i/per]++
			}
		}
		expected := winners / bins
		var chi2 float64
		for _, c := range counts {
			chi2 += (c - expected) * (c - expected) / expected
		}
		chi2 /= 1 - winners/engine.BlockSize
		if chi2 < low || chi2 > high {
			t.Errorf("seed %d: chi-square %.1f outside [%.1f, %.1f]: winners are not spread uniformly", sd, chi2, low, high)
		}
		t.Logf("seed %d: chi-square %.1f", sd, chi2)
	}
}

// Every unit of whole blocks carries a script valid for its prize, and the
// scripts use every way the board allows: both boxes, single and double wins.
func TestScriptsAreValidAndVaried(t *testing.T) {
	var boxes [engine.NumBonusBoxes]int
	var single, double, bonusOnly, lossSpots int
	spots := map[int]bool{}
	for _, sd := range []byte{3, 42} { // two of the blocks TestBlockTalliesEqualTheTable checks
		b := drawn50(sd)
		for i := 0; i < b.Len(); i++ {
			u, err := b.Unit(i)
			if err != nil {
				t.Fatalf("unit %d: %v", i, err)
			}
			if err := u.Validate(); err != nil {
				t.Fatalf("unit %d: %v", i, err)
			}
			var sum int64
			wins := 0
			for _, d := range u.Drops {
				sum += d.Multiple
				if d.Multiple > 0 {
					wins++
				}
				if d.Dest.Bonus {
					boxes[d.Dest.Index]++
				} else {
					spots[d.Dest.Index] = true
				}
			}
			if sum != engine.PrizeTable[u.Tier].Multiple {
				t.Fatalf("unit %d: drops sum to %d, prize %d", i, sum, engine.PrizeTable[u.Tier].Multiple)
			}
			switch {
			case u.Tier == engine.LosingTier:
				if u.Drops[0].Dest.Bonus || u.Drops[1].Dest.Bonus || sum != 0 {
					t.Fatalf("losing unit %d does not land on 0 € spots: %+v", i, u)
				}
				lossSpots++
			case wins == 1:
				single++
			case wins == 2:
				double++
			}
			if u.Drops[0].Dest.Bonus != u.Drops[1].Dest.Bonus && u.Tier <= 2 {
				bonusOnly++
			}
		}
	}
	for i, n := range boxes {
		if n == 0 {
			t.Errorf("BONUS box %d never used", i)
		}
	}
	if single == 0 || double == 0 || bonusOnly == 0 {
		t.Errorf("single wins %d, double wins %d, jackpots by a bonus %d", single, double, bonusOnly)
	}
	if len(spots) != engine.NumSpots {
		t.Errorf("only %d of %d spots ever used", len(spots), engine.NumSpots)
	}
}

func TestScriptsListEveryDecomposition(t *testing.T) {
	has := func(tier int, a, b int64, bonusA, bonusB bool) bool {
		for _, u := range engine.Scripts(tier) {
			d := u.Drops
			if d[0].Multiple == a && d[1].Multiple == b && d[0].Dest.Bonus == bonusA && d[1].Dest.Bonus == bonusB {
				return true
			}
		}
		return false
	}
	tier := func(m int64) int { return engine.TierOf(m) }
	for _, c := range []struct {
		tier           int
		a, b           int64
		bonusA, bonusB bool
	}{
		{tier(15), 10, 5, false, false},
		{tier(20), 10, 10, false, false},
		{tier(20), 20, 0, true, false},
		{tier(25_000), 25_000, 0, true, false},
		{tier(25_000), 0, 25_000, false, true},
		{tier(0), 0, 0, false, false},
	} {
		if !has(c.tier, c.a, c.b, c.bonusA, c.bonusB) {
			t.Errorf("tier %d lacks %d+%d (bonus %v/%v)", c.tier, c.a, c.b, c.bonusA, c.bonusB)
		}
	}
}

func TestDecodeUnitRejectsDamage(t *testing.T) {
	b := block1() // any drawn block's units: those of the Merkle tests'
	for i := 0; i < 2000; i++ {
		raw := bytes.Clone(b.Units[i*3 : i*3+3])
		raw[0] ^= 0x01 // another tier: the drops no longer sum to its prize
		if _, err := engine.DecodeUnit(raw); !errors.Is(err, engine.ErrCorrupt) {
			t.Fatalf("unit %d with a changed tier: %v, want ErrCorrupt", i, err)
		}
	}
	if _, err := engine.TallyUnits(append(bytes.Clone(b.Units[:30]), 0xff, 0, 0)); !errors.Is(err, engine.ErrCorrupt) {
		t.Fatalf("tally of a damaged block: %v", err)
	}
}

func BenchmarkGenerateBlock(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		engine.GenerateBlock(ref50, seed(byte(i)))
	}
}

func BenchmarkTallyUnits(b *testing.B) {
	blk := engine.GenerateBlock(ref50, seed(1))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := engine.TallyUnits(blk.Units); err != nil {
			b.Fatal(err)
		}
	}
}
