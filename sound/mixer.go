package sound

import (
	"encoding/binary"
	"math"
	"sync/atomic"
	"time"
)

// Limits of the mixer: past them a sound is dropped, never queued, so that
// a late sound is not heard out of time and a burst costs nothing.
const (
	maxVoices = 12                     // sounds heard at once
	maxCues   = 32                     // sounds asked for and not yet picked up
	maxLate   = 120 * time.Millisecond // a sound picked up later than this is dropped
)

// Mixer adds up the sounds being played into one stream of 32-bit float
// little-endian mono samples at Rate: it is the io.Reader the audio
// library's player goroutine reads. Play never blocks; Read never fails and
// gives silence when nothing plays.
type Mixer struct {
	cues    chan cue
	voices  [maxVoices]voice
	gain    atomic.Uint32 // float32 bits of the master volume
	dropped atomic.Int64
	now     func() time.Time
}

type cue struct {
	s    Sound
	gain float32
	at   time.Time
}

type voice struct {
	s    Sound
	pos  int
	gain float32
}

// NewMixer returns a silent mixer at full volume.
func NewMixer() *Mixer {
	m := &Mixer{cues: make(chan cue, maxCues), now: time.Now}
	m.SetGain(1)
	return m
}

// SetGain sets the master volume, 0 (silence) to 1.
func (m *Mixer) SetGain(g float64) { m.gain.Store(math.Float32bits(float32(clamp(g, 0, 1)))) }

// Gain is the master volume.
func (m *Mixer) Gain() float64 { return float64(math.Float32frombits(m.gain.Load())) }

// Play asks for s at gain (0 to 1). It never waits: when too many sounds
// are pending, s is dropped and Play reports false.
func (m *Mixer) Play(s Sound, gain float32) bool {
	select {
	case m.cues <- cue{s: s, gain: gain, at: m.now()}:
		return true
	default:
		m.dropped.Add(1)
		return false
	}
}

// Dropped is how many sounds were dropped: too many at once, or too late.
func (m *Mixer) Dropped() int64 { return m.dropped.Load() }

// Read fills p with the next samples of the mix (whole samples only).
func (m *Mixer) Read(p []byte) (int, error) {
	m.pickUp()
	n := len(p) / 4
	gain := math.Float32frombits(m.gain.Load())
	for i := range n {
		var v float32
		for j := range m.voices {
			vc := &m.voices[j]
			if vc.pos < len(vc.s) {
				v += vc.s[vc.pos] * vc.gain
				vc.pos++
			}
		}
		v = max(-1, min(1, v*gain))
		binary.LittleEndian.PutUint32(p[4*i:], math.Float32bits(v))
	}
	return 4 * n, nil
}

// pickUp starts the sounds asked for since the last Read, in free voices.
func (m *Mixer) pickUp() {
	for {
		select {
		case c := <-m.cues:
			if m.now().Sub(c.at) > maxLate || !m.start(c) {
				m.dropped.Add(1)
			}
		default:
			return
		}
	}
}

func (m *Mixer) start(c cue) bool {
	for j := range m.voices {
		if vc := &m.voices[j]; vc.pos >= len(vc.s) {
			*vc = voice{s: c.s, gain: c.gain}
			return true
		}
	}
	return false
}
