package sound_test

import (
	"math"
	"testing"

	"starfortune/sound"
)

// pitch estimates the main frequency of s between from and to seconds by
// counting its rising zero crossings.
func pitch(s sound.Sound, from, to float64) float64 {
	a, b := int(from*sound.Rate), int(to*sound.Rate)
	n := 0
	for i := a + 1; i < b; i++ {
		if s[i-1] < 0 && s[i] >= 0 {
			n++
		}
	}
	return float64(n) / (to - from)
}

func peak(s sound.Sound) float64 {
	var p float64
	for _, v := range s {
		p = math.Max(p, math.Abs(float64(v)))
	}
	return p
}

func TestTickFollowsSpeed(t *testing.T) {
	var lastPitch, lastEnergy float64
	for _, speed := range []float64{0.5, 0.6, 0.7, 0.8, 0.9, 1} {
		s := sound.Tick(speed)
		p, e := pitch(s, 0.004, 0.03), sound.Energy(s)
		t.Logf("speed %.1f: pitch %.0f Hz, energy %.2f", speed, p, e)
		if p <= lastPitch || e <= lastEnergy {
			t.Fatalf("speed %.1f: pitch %.0f Hz and energy %.2f, want both above the slower tick's %.0f Hz and %.2f", speed, p, e, lastPitch, lastEnergy)
		}
		lastPitch, lastEnergy = p, e
	}
	if a, b := sound.Tick(sound.FastPeg), sound.Tick(2*sound.FastPeg); sound.Energy(a) != sound.Energy(b) {
		t.Fatal("a puck faster than FastPeg ticks louder still")
	}
	if a, b := sound.Tick(sound.SlowPeg), sound.Tick(0); sound.Energy(a) != sound.Energy(b) || sound.Energy(b) == 0 {
		t.Fatal("a puck slower than SlowPeg ticks softer still, or not at all")
	}
}

// The end of a unit sounds bigger the bigger the prize, across the whole
// prize table (multiples of the stake), and a lost unit is the quietest.
func TestResultGrowsWithPrize(t *testing.T) {
	multiples := []int64{0, 1, 2, 5, 10, 15, 20, 100, 1000, 10000, 25000}
	last := 0.0
	for _, m := range multiples {
		s := sound.Result(m)
		e := sound.Energy(s)
		t.Logf("x%d: %.2f s, energy %.1f", m, float64(len(s))/sound.Rate, e)
		if e <= last {
			t.Fatalf("prize x%d: energy %.1f, not above the smaller prize's %.1f", m, e, last)
		}
		last = e
	}
}

// Every sound stays within [-1, 1] with headroom, starts without a click
// and is deterministic.
func TestSoundsAreClean(t *testing.T) {
	sounds := map[string]func() sound.Sound{
		"tick slow": func() sound.Sound { return sound.Tick(sound.SlowPeg) },
		"tick fast": func() sound.Sound { return sound.Tick(sound.FastPeg) },
		"landing":   sound.Landing,
		"bonus":     sound.Bonus,
		"reveal":    sound.Reveal,
		"press":     sound.Press,
		"attract":   sound.Attract,
		"lost":      func() sound.Sound { return sound.Result(0) },
		"jackpot":   func() sound.Sound { return sound.Result(25000) },
	}
	for name, make := range sounds {
		t.Run(name, func(t *testing.T) {
			s := make()
			if len(s) == 0 || len(s) > 4*sound.Rate {
				t.Fatalf("%d samples", len(s))
			}
			if p := peak(s); p > 0.95 || p < 0.05 {
				t.Fatalf("peak %.2f, want audible and below 0.95", p)
			}
			if sound.Energy(s) != sound.Energy(make()) {
				t.Fatal("not deterministic")
			}
			for i, v := range s {
				if math.IsNaN(float64(v)) {
					t.Fatalf("NaN at %d", i)
				}
			}
		})
	}
}

// rms is the loudness of s from from to to seconds (0 past its end).
func rms(s sound.Sound, from, to float64) float64 {
	a, b := min(int(from*sound.Rate), len(s)), min(int(to*sound.Rate), len(s))
	if b <= a {
		return 0
	}
	return math.Sqrt(sound.Energy(s[a:b]) / float64(b-a))
}

// The real-window test tells GO's sound from the others by its swell: it
// grows from soft to loud where every other sound starts at its loudest.
// Measured as that test does, 150 ms on against the first 50 ms, from the
// sound's start or one 20 ms slice into it (where a recording first hears
// it).
func TestOnlyTheRevealSwells(t *testing.T) {
	sounds := map[string]sound.Sound{
		"tick slow": sound.Tick(sound.SlowPeg),
		"tick fast": sound.Tick(sound.FastPeg),
		"landing":   sound.Landing(),
		"bonus":     sound.Bonus(),
		"reveal":    sound.Reveal(),
		"press":     sound.Press(),
		"attract":   sound.Attract(),
		"lost":      sound.Result(0),
		"smallest":  sound.Result(1),
		"jackpot":   sound.Result(25000),
	}
	for name, s := range sounds {
		for _, at := range []float64{0, 0.02} {
			swell := rms(s, at+0.15, at+0.2) / rms(s, at, at+0.05)
			t.Logf("%s from %.2f s: %.2f", name, at, swell)
			if name == "reveal" && swell < 3 {
				t.Errorf("the reveal from %.2f s swells %.2f times, want 3 or more (the window test asks 2)", at, swell)
			}
			if name != "reveal" && swell > 1.5 {
				t.Errorf("%s from %.2f s swells %.2f times, want 1.5 at most (the window test takes 2 for the reveal)", name, at, swell)
			}
		}
	}
}
