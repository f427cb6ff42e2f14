// Package sound plays Star Fortune's sounds. Every sound is synthesized
// here, in code, from sine waves, envelopes and seeded noise: the game ships
// no audio file. The synthesis is pure (same arguments, same samples); the
// Player mixes what it is asked to play in the audio library's goroutine
// and never makes its caller wait.
package sound

import (
	"math"
	"math/rand/v2"
)

// Rate is the sample rate of every sound, in frames per second (mono).
const Rate = 44100

// A Sound is mono samples in [-1, 1] at Rate.
type Sound []float32

// The puck's speed range that peg ticks follow, in board lengths per second
// (the board is a unit square; its falls hit pegs at 0.6 to 0.85): at
// SlowPeg and below a tick is at its lowest pitch and softest, at FastPeg
// and above at its highest and loudest.
const (
	SlowPeg = 0.5
	FastPeg = 1.0
)

// Tick is the sound of the puck hitting a peg at speed (board lengths per
// second): a short knock whose pitch and loudness rise with the speed, so a
// puck gathering pace is heard gathering pace.
func Tick(speed float64) Sound {
	s := pegLevel(speed)
	f := 900 + 1500*s // Hz
	amp := 0.12 + 0.38*s
	out := make(Sound, seconds(0.045))
	noise := rand.New(rand.NewPCG(1, 2))
	for i := range out {
		t := float64(i) / Rate
		body := math.Sin(2*math.Pi*f*t) + 0.35*math.Sin(2*math.Pi*2.7*f*t)
		click := (noise.Float64()*2 - 1) * math.Exp(-t/0.002) // the hit itself
		out[i] = float32(amp * (0.75*body*math.Exp(-t/0.012) + 0.5*click))
	}
	return out
}

// Landing is the puck settling on its spot or BONUS box: a low thud with a
// bright ring on top.
func Landing() Sound {
	out := make(Sound, seconds(0.35))
	phase := 0.0
	for i := range out {
		t := float64(i) / Rate
		phase += 2 * math.Pi * (140 - 80*math.Min(t/0.12, 1)) / Rate // falls from 140 to 60 Hz
		thud := math.Sin(phase) * math.Exp(-t/0.09)
		ring := math.Sin(2*math.Pi*1320*t) * math.Exp(-t/0.06)
		out[i] = float32(0.6*thud + 0.15*ring)
	}
	return out
}

// Bonus announces the BONUS step: a quick rising arpeggio.
func Bonus() Sound {
	return notes([]float64{523.25, 659.25, 783.99, 1046.5}, 0.09, 0.35, 0.30)
}

// Reveal is the GO of a BONUS step revealing its sum: a rising sweep into a
// bright chord.
func Reveal() Sound {
	sweep := seconds(0.25)
	out := make(Sound, sweep+seconds(0.5))
	phase := 0.0
	for i := range sweep {
		t := float64(i) / Rate
		phase += 2 * math.Pi * (300 + 1500*t/0.25) / Rate
		out[i] = float32(0.22 * math.Sin(phase) * t / 0.25)
	}
	mix(out[sweep:], chord([]float64{783.99, 987.77, 1174.66}, 0.5, 0.35, 0.12), 1)
	return out
}

// Press acknowledges JOUER: a short bright blip.
func Press() Sound {
	out := make(Sound, seconds(0.08))
	for i := range out {
		t := float64(i) / Rate
		out[i] = float32(0.3 * math.Sin(2*math.Pi*880*t) * math.Exp(-t/0.025) * math.Min(t/0.002, 1))
	}
	return out
}

// Attract is the soft chime of the attract screen (played only when the
// settings ask for it).
func Attract() Sound {
	return notes([]float64{659.25, 783.99, 1046.5}, 0.22, 0.12, 0.6)
}

// Result ends a unit. multiple is its prize in stakes (0: no win): a losing
// unit gets two soft falling notes; a winning one a fanfare that is longer,
// louder and richer the larger the prize, from one stake to the jackpot.
func Result(multiple int64) Sound {
	if multiple <= 0 {
		return notes([]float64{392, 329.63}, 0.16, 0.12, 0.2)
	}
	level := clamp(math.Log10(1+float64(multiple))/math.Log10(25001), 0, 1)
	scale := []float64{523.25, 659.25, 783.99} // C major, climbing octaves
	n := 3 + int(math.Round(level*9))
	freqs := make([]float64, n)
	for i := range freqs {
		freqs[i] = scale[i%3] * math.Pow(2, float64(i/3))
	}
	amp := 0.3 + 0.35*level
	out := notes(freqs, 0.1, amp, 0.15)
	top := freqs[n-1]
	tail := chord([]float64{top / 2, top * 5 / 8, top * 3 / 4, top}, 0.3+1.4*level, amp*0.8, 0.25+0.5*level)
	if level > 0.4 { // large prizes sparkle
		sparkle := rand.New(rand.NewPCG(3, 4))
		for i := range tail {
			if sparkle.IntN(2000) == 0 {
				mix(tail[i:], notes([]float64{2000 + 2000*sparkle.Float64()}, 0.05, 0.2*level, 0.05), 1)
			}
		}
	}
	// The chord rings from the last note on, without a gap.
	at := seconds(0.1 * float64(n))
	if grow := at + len(tail) - len(out); grow > 0 {
		out = append(out, make(Sound, grow)...)
	}
	mix(out[at:], tail, 1)
	return out
}

// notes plays freqs one after the other, each step seconds apart and
// ringing for ring seconds, at amplitude amp.
func notes(freqs []float64, step, amp, ring float64) Sound {
	out := make(Sound, seconds(step*float64(len(freqs))+ring))
	for i, f := range freqs {
		mix(out[seconds(step*float64(i)):], chord([]float64{f}, ring+step, amp, ring/2), 1)
	}
	return out
}

// chord is freqs sounding together for dur seconds, decaying with time
// constant decay, at total amplitude amp; each note has a soft second
// harmonic, as a bell or a vibraphone.
func chord(freqs []float64, dur, amp, decay float64) Sound {
	out := make(Sound, seconds(dur))
	a := amp / float64(len(freqs))
	for i := range out {
		t := float64(i) / Rate
		env := math.Exp(-t/decay) * math.Min(t/0.004, 1) // 4 ms attack: no click
		var v float64
		for _, f := range freqs {
			v += math.Sin(2*math.Pi*f*t) + 0.3*math.Sin(4*math.Pi*f*t)
		}
		out[i] = float32(a * env * v / 1.3)
	}
	return out
}

// mix adds src times gain into dst, as far as dst goes.
func mix(dst, src Sound, gain float32) {
	for i := range min(len(dst), len(src)) {
		dst[i] += src[i] * gain
	}
}

// pegLevel places speed in the ticks' range, 0 to 1.
func pegLevel(speed float64) float64 { return clamp((speed-SlowPeg)/(FastPeg-SlowPeg), 0, 1) }

func seconds(s float64) int { return int(s * Rate) }

func clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

// Energy is the sum of the squares of s's samples: how much sound it holds.
func Energy(s Sound) float64 {
	var e float64
	for _, v := range s {
		e += float64(v) * float64(v)
	}
	return e
}
