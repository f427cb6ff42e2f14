package sound_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"starfortune/sound"
	"starfortune/sound/alsafile"
)

// read takes n samples of m's stream.
func read(m *sound.Mixer, n int) []float32 {
	buf := make([]byte, 4*n)
	m.Read(buf)
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:]))
	}
	return out
}

func energy(s []float32) float64 { return sound.Energy(sound.Sound(s)) }

func TestPlayerMixes(t *testing.T) {
	loud := sound.NewSilent(sound.Settings{Volume: 100})
	soft := sound.NewSilent(sound.Settings{Volume: 40})
	muted := sound.NewSilent(sound.Settings{Volume: 100, Mute: true})
	idle := sound.NewSilent(sound.Settings{Volume: 100})
	// Played just before they are read: a sound picked up late is dropped.
	loud.Land()
	soft.Land()
	muted.Land()

	n := sound.Rate / 2
	eLoud, eSoft := energy(read(loud.Mixer(), n)), energy(read(soft.Mixer(), n))
	if want := sound.Energy(sound.Landing()); math.Abs(eLoud-want) > want*1e-3 {
		t.Errorf("full volume: energy %.2f, want the landing's %.2f", eLoud, want)
	}
	if eSoft <= 0 || eSoft >= eLoud/10 {
		t.Errorf("volume 40: energy %.3f, want some but well below full volume's %.2f", eSoft, eLoud)
	}
	if e := energy(read(muted.Mixer(), n)); e != 0 {
		t.Errorf("muted: energy %.3f, want silence", e)
	}
	if e := energy(read(idle.Mixer(), n)); e != 0 {
		t.Errorf("nothing played: energy %.3f, want silence", e)
	}
	muted.SetMuted(false)
	muted.Press()
	if e := energy(read(muted.Mixer(), n)); e == 0 {
		t.Error("unmuted: still silent")
	}
}

// The attract screen's chime sounds only when the settings ask for it.
func TestAttractSilentUnlessConfigured(t *testing.T) {
	for _, on := range []bool{false, true} {
		p := sound.NewSilent(sound.Settings{Volume: 100, Attract: on})
		p.Attract()
		if e := energy(read(p.Mixer(), sound.Rate)); (e > 0) != on {
			t.Errorf("attract=%v: energy %.2f", on, e)
		}
	}
}

// Sounds are dropped, never queued: a burst beyond the mixer's room costs
// the caller nothing and a sound picked up late is not heard.
func TestMixerDropsRatherThanQueues(t *testing.T) {
	m := sound.NewMixer()
	tick := sound.Tick(1)
	refused := 0
	for range 1000 { // nothing reads meanwhile: a Play that waited would hang here
		if !m.Play(tick, 1) {
			refused++
		}
	}
	if refused != 1000-32 {
		t.Errorf("%d of 1000 sounds refused at once, want all but the 32 pending ones", refused)
	}
	read(m, 64)
	if m.Dropped() < 1000-40 {
		t.Errorf("dropped %d of 1000 sounds asked at once, want all but a mixer's worth", m.Dropped())
	}

	late := sound.NewMixer()
	late.Play(sound.Landing(), 1)
	time.Sleep(200 * time.Millisecond) // the device stalled
	if e := energy(read(late, sound.Rate/2)); e != 0 {
		t.Errorf("a sound picked up 200 ms late was played (energy %.2f)", e)
	}
}

// The player on a real ALSA device: the default device writes to a pipe
// that alsafile drains in real time. Each case runs in a child process (the
// audio library opens one device per process).
func TestPlayerOnALSA(t *testing.T) {
	if sc := os.Getenv("SOUND_TEST_CHILD"); sc != "" {
		playerChild(sc)
		return
	}
	cases := []struct {
		name  string
		card  bool // a device is there
		sound bool // sound is expected in the recording
	}{
		{"plays", true, true},
		{"muted", true, false},
		{"no-device", false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var card *alsafile.Card
			if c.card {
				var err error
				if card, err = alsafile.New(dir, sound.Rate); err != nil {
					t.Fatal(err)
				}
				card.Start()
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestPlayerOnALSA$")
			cmd.Env = append(os.Environ(), "SOUND_TEST_CHILD="+c.name, "HOME="+dir)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("child: %v\n%s%s", err, stdout.String(), stderr.String())
			}
			logLines := strings.Count(stdout.String(), "sound:")
			if logLines != 1 {
				t.Errorf("%d log lines about sound, want 1:\n%s", logLines, stdout.String())
			}
			if strings.Contains(stderr.String(), "ALSA") {
				t.Errorf("ALSA printed on stderr:\n%s", stderr.String())
			}
			if !c.card {
				if !strings.Contains(stdout.String(), "no audio device") {
					t.Errorf("want the no-device line, got:\n%s", stdout.String())
				}
				return
			}
			rec, err := card.Stop(2 * time.Second)
			if err != nil {
				t.Fatal(err)
			}
			samples := make([]float32, len(rec)/4)
			for i := range samples {
				samples[i] = math.Float32frombits(binary.LittleEndian.Uint32(rec[4*i:]))
			}
			secs := float64(len(samples)) / sound.Rate
			e := energy(samples)
			t.Logf("recorded %.2f s, energy %.2f", secs, e)
			if secs < 1 || secs > 5 {
				t.Errorf("recorded %.2f s of a child that played about 1.5 s: the device was not clocked", secs)
			}
			if want := sound.Energy(sound.Press()) + sound.Energy(sound.Landing()); c.sound && e < want/2 {
				t.Errorf("energy %.2f, want about %.2f (JOUER and a landing)", e, want)
			}
			if !c.sound && e != 0 {
				t.Errorf("muted: energy %.3f, want silence", e)
			}
		})
	}
}

// playerChild opens the device, plays JOUER, a fast peg and a landing, and
// waits for them to be heard.
func playerChild(sc string) {
	log := zerolog.New(os.Stdout)
	p := sound.Open(sound.Settings{Volume: 100, Mute: sc == "muted"}, log)
	for t := time.Now(); !p.Playing() && time.Since(t) < 2*time.Second; {
		time.Sleep(10 * time.Millisecond)
	}
	runtime.GC() // the audio library closes a player it finds unreachable: the game's is kept
	runtime.GC()
	p.Press()
	time.Sleep(300 * time.Millisecond)
	p.Peg(sound.FastPeg)
	time.Sleep(300 * time.Millisecond)
	p.Land()
	time.Sleep(800 * time.Millisecond)
}
