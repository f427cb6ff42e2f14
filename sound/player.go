package sound

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ebitengine/oto/v3"
	"github.com/rs/zerolog"
)

// Settings are the [sound] part of the settings file.
type Settings struct {
	Volume  int  // volume: 0 to 100 per cent
	Mute    bool // mute: no sound at all
	Attract bool // attract: the attract screen chimes (silent by default)
}

// DefaultSettings are a terminal's without a [sound] table: sound on at 80 %,
// a silent attract screen.
func DefaultSettings() Settings { return Settings{Volume: 80} }

// Player plays the game's sounds on the machine's default ALSA device. Its
// methods return at once: the sound is synthesized beforehand (or cached)
// and handed to the mixer, which the audio library's goroutine reads. On a
// machine without an audio device it stays silent.
type Player struct {
	mix     atomic.Pointer[Mixer] // nil until the device is open, or for good without one
	mixer   *Mixer
	out     *oto.Player // kept: the library closes a player it finds unreachable
	volume  atomic.Int32
	mute    atomic.Bool
	attract bool

	sounds func() *bank // synthesized once, behind the window's first frame

	mu      sync.Mutex
	results map[int64]Sound
}

// bank is the game's sounds, but the results' (synthesized at their first
// use): about 17 ms of synthesis.
type bank struct {
	ticks                                [tickSteps]Sound
	landing, bonus, reveal, press, chime Sound
}

func synthesize() *bank {
	b := &bank{landing: Landing(), bonus: Bonus(), reveal: Reveal(), press: Press(), chime: Attract()}
	for i := range b.ticks {
		b.ticks[i] = Tick(SlowPeg + (FastPeg-SlowPeg)*float64(i)/(tickSteps-1))
	}
	return b
}

// tickSteps is how many peg ticks, from slow to fast, are synthesized once.
const tickSteps = 16

// deviceBuffer is the latency the audio device is asked for; the mixer
// reads ahead of it by mixAhead. A sound starts within their sum.
const (
	deviceBuffer = 40 * time.Millisecond
	mixAhead     = 20 * time.Millisecond
)

// otoOnce guards the audio library's context: it allows one per process.
var otoOnce sync.Once

// Open returns a player with settings s and starts opening the default
// audio device, without waiting for it: sounds asked for meanwhile are not
// heard. When there is no device, log gets one line and the player stays
// silent; it never fails.
func Open(s Settings, log zerolog.Logger) *Player {
	p := NewSilent(s)
	opened := false
	otoOnce.Do(func() {
		opened = true
		quietALSA()
		ctx, ready, err := oto.NewContext(&oto.NewContextOptions{
			SampleRate: Rate, ChannelCount: 1, Format: oto.FormatFloat32LE, BufferSize: deviceBuffer})
		if err != nil {
			log.Warn().AnErr("err", err).Msg("sound: no audio device, the game plays silently")
			return
		}
		go func() {
			<-ready
			if err := ctx.Err(); err != nil {
				log.Warn().AnErr("err", err).Msg("sound: no audio device, the game plays silently")
				return
			}
			p.out = ctx.NewPlayer(p.mixer)
			p.out.SetBufferSize(int(mixAhead.Seconds()*Rate) * 4)
			p.out.Play()
			p.mix.Store(p.mixer)
			log.Info().Int("volume", s.Volume).Bool("mute", s.Mute).Msg("sound: playing on the default audio device")
		}()
	})
	if !opened {
		log.Warn().Msg("sound: the audio device is already in use by another player; this one is silent")
	}
	return p
}

// NewSilent returns a player that synthesizes and mixes but plays nowhere:
// Mixer gives its stream. Tests use it; Open starts from it.
func NewSilent(s Settings) *Player {
	p := &Player{mixer: NewMixer(), attract: s.Attract, results: map[int64]Sound{}, sounds: sync.OnceValue(synthesize)}
	go p.sounds() // while the window starts: a sound asked for sooner waits for them
	p.SetVolume(s.Volume)
	p.SetMuted(s.Mute)
	return p
}

// Mixer is the stream the player mixes, whether or not a device plays it.
func (p *Player) Mixer() *Mixer { return p.mixer }

// Playing reports whether an audio device plays the sounds.
func (p *Player) Playing() bool { return p.mix.Load() != nil }

// SetVolume sets the volume, 0 to 100 per cent.
func (p *Player) SetVolume(v int) {
	v = max(0, min(100, v))
	p.volume.Store(int32(v))
	// Loudness is heard on a log scale: a square law gives an even slider.
	p.mixer.SetGain(math.Pow(float64(v)/100, 2))
}

// Volume is the volume in per cent.
func (p *Player) Volume() int { return int(p.volume.Load()) }

// SetMuted mutes or unmutes the player.
func (p *Player) SetMuted(m bool) { p.mute.Store(m) }

// Muted reports whether the player is muted.
func (p *Player) Muted() bool { return p.mute.Load() }

func (p *Player) play(s Sound) {
	if p.mute.Load() || p.volume.Load() == 0 {
		return
	}
	p.mixer.Play(s, 1)
}

// Peg plays a peg hit by the puck at speed, in board lengths per second.
func (p *Player) Peg(speed float64) {
	i := int(math.Round(pegLevel(speed) * (tickSteps - 1)))
	p.play(p.sounds().ticks[i])
}

// Land plays the puck landing.
func (p *Player) Land() { p.play(p.sounds().landing) }

// Bonus plays the BONUS step appearing.
func (p *Player) Bonus() { p.play(p.sounds().bonus) }

// Reveal plays GO revealing a BONUS sum.
func (p *Player) Reveal() { p.play(p.sounds().reveal) }

// Press plays the JOUER button.
func (p *Player) Press() { p.play(p.sounds().press) }

// Attract plays the attract screen's chime, if the settings allow it.
func (p *Player) Attract() {
	if p.attract {
		p.play(p.sounds().chime)
	}
}

// Result plays the end of a unit whose prize is multiple stakes (0: lost).
func (p *Player) Result(multiple int64) {
	p.mu.Lock()
	s, ok := p.results[multiple]
	if !ok {
		s = Result(multiple) // a few milliseconds, once per prize line
		p.results[multiple] = s
	}
	p.mu.Unlock()
	p.play(s)
}
