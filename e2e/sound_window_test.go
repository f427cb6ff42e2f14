package e2e

import (
	sf "starfortune/cli"

	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/sound"
	"starfortune/sound/alsafile"
	"starfortune/storage"
)

// The real window, heard: the game built with Fyne's OpenGL driver runs
// under Xvfb with an ALSA default device that records to a pipe drained at
// a sound card's pace (sound/alsafile). A winning unit is played with the
// keyboard, and sox measures the recording where each sound belongs: the
// peg ticks during each fall, the landing thuds, the result fanfare after
// the last landing. A unit whose first puck lands in a BONUS box is played
// up to its GO: the BONUS step's notes with the landing, GO's sound after
// GO and not before. Then the same with [sound] mute = true: silence.
//
// The window resumes a unit sold beforehand through the engine (the window
// offers it at start): units are drawn at random, so playing one in the
// window would win only one time in four.
func TestSoundInTheRealWindow(t *testing.T) {
	needTools(t, "Xvfb", "xdotool", "sox")
	if testing.Short() {
		t.Skip("-short: the real window takes about a minute")
	}
	bin := starfortune(t)

	t.Run("plays", func(t *testing.T) {
		data := t.TempDir()
		sale := winningUnfinishedUnit(t, data)
		t.Logf("resuming %s: prize x%d, drops %+v", sale.Ticket, engine.PrizeTable[sale.Unit.Tier].Multiple, sale.Unit.Drops)
		// A fall to a spot lasts 2.4 to 4.1 s: the engine's path for the
		// puck a key picks is the one the window plays.
		var falls [2]float64
		for d := range falls {
			path, err := sale.Fall(d, d) // the key d+1 picks the puck above slot d
			if err != nil {
				t.Fatal(err)
			}
			falls[d] = path.Duration()
		}
		w := openWindow(t, bin, data, "")
		w.resume()
		picks := make([]int, 2)
		for d := range 2 {
			picks[d] = w.mark()
			w.key(strconv.Itoa(d+1), time.Duration((falls[d]+2.5)*float64(time.Second))) // the fall, then 1.2 s of pause
		}
		w.wait(3 * time.Second) // the result
		rec := w.close()

		lands := make([]float64, 2)
		for d, at := range picks {
			fall, from := falls[d], w.seconds(at)
			lands[d] = rec.first(from+0.5, from+fall+2, rec.thud)
			if lands[d] < 0 {
				t.Fatalf("drop %d: no landing heard within %.1f s of the pick (%s)", d+1, fall+2, rec.describe(from, from+fall+2))
			}
			ticks := rec.bursts(from+0.1, lands[d]-0.05)
			t.Logf("drop %d: picked at %.2f s, %d peg ticks, landed at %.2f s (a fall of %.2f s)", d+1, from, ticks, lands[d], fall)
			if ticks < 8 {
				t.Errorf("drop %d: %d peg ticks heard during a fall of %.1f s, want one per peg hit (a fall hits 12 to 18): %s",
					d+1, ticks, lands[d]-from, rec.describe(from, lands[d]))
			}
			// The fall starts once the engine has recorded the pick durably
			// (0.1 to 0.4 s here, more on a loaded disk): a generous margin.
			if heard := lands[d] - from; heard < fall-0.3 || heard > fall+1.5 {
				t.Errorf("drop %d: landing heard %.2f s after the pick, want at the end of the fall (%.2f s)", d+1, heard, fall)
			}
			// The other side of the "bonus" subtest's check: a spot's
			// landing is a thud alone, so BONUS notes heard there are the
			// BONUS step's, not the landing's.
			if at := rec.first(lands[d]-0.1, lands[d]+0.3, rec.arpeggio); at >= 0 {
				t.Errorf("drop %d landed on a spot, yet BONUS notes are heard at %.2f s: %s", d+1, at, rec.describe(lands[d], lands[d]+1))
			}
		}
		// The result comes 1.2 s after the last landing and lasts about a
		// second for the smallest prize.
		start := rec.first(lands[1]+0.6, lands[1]+3, rec.loud)
		if start < 0 {
			t.Fatalf("no result sound after the last landing at %.2f s: %s", lands[1], rec.describe(lands[1], lands[1]+3))
		}
		if long := rec.sounding(start, start+1.2); long < 0.7 { // 0.8 s synthesized for the smallest prize; the recording's edges blur it
			t.Errorf("the win sound lasts %.2f s from %.2f s, want a fanfare of about a second or more", long, start)
		}
	})

	// The BONUS step announces itself as the puck lands in its box, and GO
	// reveals the sum with a sound of its own, heard only once GO is pressed:
	// the unit's first puck lands in a box, and GO is pressed 2 s after the
	// step's notes have died away.
	t.Run("bonus", func(t *testing.T) {
		data := t.TempDir()
		sale := unfinishedUnit(t, data, "unit whose first puck lands in a BONUS box", func(s engine.Sale) bool {
			return s.Unit.Drops[0].Dest.Bonus
		})
		// A box is halfway down: its fall is shorter than a spot's (1.2 to
		// 2.3 s).
		path, err := sale.Fall(0, 0)
		if err != nil {
			t.Fatal(err)
		}
		fall := path.Duration()
		t.Logf("resuming %s: prize x%d, drops %+v, a fall of %.2f s", sale.Ticket, engine.PrizeTable[sale.Unit.Tier].Multiple, sale.Unit.Drops, fall)
		w := openWindow(t, bin, data, "")
		w.resume()
		pick := w.mark()
		w.key("1", time.Duration((fall+2.5)*float64(time.Second))) // the fall, the BONUS step's notes (0.7 s), then silence
		press := w.mark()
		w.key("space", 2500*time.Millisecond) // GO: recorded, then its sound (0.75 s) and the sum growing (0.6 s)
		rec := w.close()

		from, goAt := w.seconds(pick), w.seconds(press)
		land := rec.first(from+0.3, from+fall+2, rec.thud)
		if land < 0 {
			t.Fatalf("no landing heard within %.1f s of the pick (%s)", fall+2, rec.describe(from, from+fall+2))
		}
		if heard := land - from; heard < fall-0.3 || heard > fall+1.5 { // as in "plays"
			t.Errorf("landing heard %.2f s after the pick, want at the end of the fall (%.2f s)", heard, fall)
		}
		// The window shows the BONUS step in the frame the puck lands: its
		// notes start with the thud.
		bonus := rec.first(land-0.1, land+0.3, rec.arpeggio)
		if bonus < 0 {
			t.Fatalf("the puck landed in a BONUS box at %.2f s, and no BONUS notes within 0.3 s: %s", land, rec.describe(land, land+1.5))
		}
		notes := rec.held(bonus, bonus+1.5, rec.arpeggio)
		if notes < 0.2 { // 0.66 s synthesized, above the threshold for 0.34 s of it
			t.Errorf("the BONUS notes last %.2f s from %.2f s, want the step's arpeggio (0.3 s or more)", notes, bonus)
		}
		// Silence until GO: what is heard after it is GO's.
		if early := rec.first(bonus+0.9, goAt, rec.loud); early >= 0 {
			t.Errorf("a sound at %.2f s, before GO was pressed at %.2f s: %s", early, goAt, rec.describe(bonus, goAt))
		}
		reveal := rec.first(goAt, goAt+2, rec.loud)
		if reveal < 0 {
			t.Fatalf("GO pressed at %.2f s, and no sound within 2 s: %s", goAt, rec.describe(goAt, goAt+2))
		}
		long := rec.sounding(reveal, reveal+1.5)
		if long < 0.3 { // 0.75 s synthesized, a rising sweep into a chord; above the threshold for 0.45 s of it
			t.Errorf("the GO sound lasts %.2f s from %.2f s, want the reveal's sweep and chord (0.3 s or more)", long, reveal)
		}
		// Of the game's sounds only GO's swells (its sweep rises in pitch and
		// loudness into a chord); every other starts at its loudest. So a
		// sound after GO that does not swell is not GO's.
		early, later := rec.stat(reveal, reveal+0.05, "RMS amplitude"), rec.stat(reveal+0.15, reveal+0.2, "RMS amplitude")
		if later < 2*early { // synthesized: 4 times
			t.Errorf("the sound after GO does not swell (RMS %.3f in its first 50 ms, %.3f 150 ms on), want the reveal's sweep", early, later)
		}
		t.Logf("picked at %.2f s, landed at %.2f s, BONUS notes at %.2f s for %.2f s; GO pressed at %.2f s, heard at %.2f s for %.2f s, swelling from RMS %.3f to %.3f",
			from, land, bonus, notes, goAt, reveal, long, early, later)

		// The engine, not the window, says GO happened.
		ctx := context.Background()
		err = sf.WithGame(ctx, sf.DataDir(data), unlock(t, data), engine.DefaultConfig(), zerolog.Nop(), io.Discard, func(svc *engine.Service, _ *storage.Store) error {
			s, unfinished, err := svc.Unfinished(ctx, engine.DemoPlayer)
			switch {
			case err != nil:
				return err
			case !unfinished || s.Ticket != sale.Ticket:
				return fmt.Errorf("unfinished unit after the window: %v %s, want %s", unfinished, s.Ticket, sale.Ticket)
			case !s.Reveal.Go[0]:
				return fmt.Errorf("the engine has no GO for %s: the window played its sound without it", s.Ticket)
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	})

	t.Run("muted", func(t *testing.T) {
		w := openWindow(t, bin, t.TempDir(), "[sound]\nmute = true\n")
		w.key("Return", 2*time.Second)
		w.key("1", 5*time.Second)
		w.key("2", 5*time.Second)
		rec := w.close()
		if rec.seconds < 8 {
			t.Fatalf("recorded %.1f s: the device was not played", rec.seconds)
		}
		if peak := rec.stat(0, rec.seconds, "Maximum amplitude"); peak != 0 {
			t.Errorf("muted, yet the recording peaks at %.3f", peak)
		}
	})
}

// needTools fails or skips the test (missing) unless every one of tools,
// which scripts/deps.sh --window installs, is on the PATH.
func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			missing(t, tool+" (scripts/deps.sh --window installs it)")
		}
	}
}

// missing fails the test when CI runs it (a capability it needs is not
// installed) and skips it elsewhere.
func missing(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("CI: %s is missing", what)
	}
	t.Skipf("%s is missing", what)
}

// winningUnfinishedUnit sells units in data until one wins with both pucks
// on spots, and leaves that one unrevealed; the others are played out.
func winningUnfinishedUnit(t *testing.T, data string) engine.Sale {
	t.Helper()
	return unfinishedUnit(t, data, "a winning unit on two spots", func(s engine.Sale) bool {
		return s.Prize() > 0 && !s.Unit.Drops[0].Dest.Bonus && !s.Unit.Drops[1].Dest.Bonus
	})
}

// unfinishedUnit sells units in data until one is what want asks for (what
// says it, for a failure), and leaves that one unrevealed; the others are
// played out, so that the window offers only that one to resume.
func unfinishedUnit(t *testing.T, data, what string, want func(engine.Sale) bool) engine.Sale {
	t.Helper()
	mustCLI(t, data, "blocks") // the shipped binary draws the blocks: this test process has the race detector
	ctx := context.Background()
	var found engine.Sale
	err := sf.WithGame(ctx, sf.DataDir(data), unlock(t, data), engine.DefaultConfig(), zerolog.Nop(), io.Discard, func(svc *engine.Service, _ *storage.Store) error {
		for range 200 {
			sales, err := svc.Sell(ctx, engine.SellRequest{Player: engine.DemoPlayer, Stake: 100, Count: 1, Actor: "test"})
			if err != nil {
				return err
			}
			s := sales[0]
			if want(s) {
				found = s
				return nil
			}
			for step := s.Next(); step.Kind != engine.StepDone; step = s.Next() {
				if step.Kind == engine.StepPick {
					s, err = svc.Pick(ctx, s.Ticket, step.Drop, 0)
				} else {
					s, err = svc.Go(ctx, s.Ticket, step.Drop)
				}
				if err != nil {
					return err
				}
			}
		}
		return fmt.Errorf("no %s in 200", what)
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// startXvfb starts an Xvfb display of the test's own, stopped at its end.
func startXvfb(t *testing.T) string {
	t.Helper()
	// -displayfd: Xvfb picks a free display and writes its number.
	r, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	xvfb := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x1024x24", "-nolisten", "tcp", "-noreset")
	xvfb.ExtraFiles = []*os.File{wr}
	if err := xvfb.Start(); err != nil {
		t.Fatal(err)
	}
	wr.Close()
	t.Cleanup(func() { xvfb.Process.Kill(); xvfb.Wait() })
	num, err := bufio.NewReader(r).ReadString('\n')
	r.Close()
	if err != nil || strings.TrimSpace(num) == "" {
		t.Fatalf("Xvfb gave no display: %q %v", num, err)
	}
	return ":" + strings.TrimSpace(num)
}

// window is the game running under Xvfb on a recording sound card.
type window struct {
	t       *testing.T
	card    *alsafile.Card
	game    *exec.Cmd
	out     *safeBuffer
	display string
	wid     string
}

// openWindow starts the game on data with the settings file conf ("" for
// none) and the environment's variables env beside the test's, on an Xvfb
// display of its own, and waits for its window and its sound device.
func openWindow(t *testing.T, bin, data, conf string, env ...string) *window {
	t.Helper()
	home := t.TempDir()
	card, err := alsafile.New(home, sound.Rate)
	if err != nil {
		t.Fatal(err)
	}
	card.Start()

	display := startXvfb(t)

	args := []string{"--data", data, "--player", "demo"} // the demo wallet: no login
	if conf != "" {
		path := filepath.Join(home, "starfortune.toml")
		if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--config", path)
	}
	out := &safeBuffer{}
	game := exec.Command(bin, args...)
	game.Env = append(append(os.Environ(), "HOME="+home, "DISPLAY="+display, "LANG=C.UTF-8"), env...)
	game.Stdout, game.Stderr = out, out
	if err := game.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { game.Process.Kill(); game.Wait() })
	w := &window{t: t, card: card, game: game, out: out, display: display}
	for deadline := time.Now().Add(90 * time.Second); w.wid == ""; time.Sleep(300 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no window after 90 s:\n%s", out)
		}
		if o, err := w.xdotool("search", "--name", "^Star Fortune$"); err == nil {
			w.wid, _, _ = strings.Cut(strings.TrimSpace(o), "\n")
		}
	}
	for deadline := time.Now().Add(10 * time.Second); !card.Opened(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the game did not open the sound device:\n%s", out)
		}
	}
	// The first frames, funds and history, and the resume offer: a key
	// pressed before is lost. 2 s sufficed on an idle machine; CI's, loaded
	// with the other packages' tests, lost the resume's keys once.
	time.Sleep(4 * time.Second)
	return w
}

func (w *window) xdotool(args ...string) (string, error) {
	cmd := exec.Command("xdotool", args...)
	cmd.Env = append(os.Environ(), "DISPLAY="+w.display)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// key presses key in the window, then waits.
func (w *window) key(key string, wait time.Duration) {
	w.t.Helper()
	if out, err := w.xdotool("key", "--window", w.wid, key); err != nil {
		w.t.Fatalf("xdotool key %s: %v %s", key, err, out)
	}
	time.Sleep(wait)
}

// resume answers the start's offer to resume the unfinished unit.
// Its buttons take the focus with Tab, "Later" then "Resume", and Space
// presses the focused one: no coordinates, whatever the layout.
func (w *window) resume() {
	w.key("Tab", 300*time.Millisecond)
	w.key("Tab", 300*time.Millisecond)
	w.key("space", time.Second)
}

// mark is the recording's position now, in frames.
func (w *window) mark() int { return w.card.Frames() }

func (w *window) seconds(frames int) float64 { return float64(frames) / sound.Rate }

func (w *window) wait(d time.Duration) { time.Sleep(d) }

// close stops the game with SIGTERM and returns what it played.
func (w *window) close() *recording {
	w.t.Helper()
	w.game.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- w.game.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		w.t.Fatalf("the window did not stop on SIGTERM:\n%s", w.out)
	}
	raw, err := w.card.Stop(3 * time.Second)
	if err != nil {
		w.t.Fatal(err)
	}
	path := filepath.Join(w.t.TempDir(), "out.raw")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		w.t.Fatal(err)
	}
	return &recording{t: w.t, path: path, seconds: float64(len(raw)/alsafile.BytesPerFrame) / sound.Rate}
}

// recording is what the game played, measured with sox.
type recording struct {
	t       *testing.T
	path    string
	seconds float64
}

// slice is how finely the recording is looked at: shorter than a peg tick
// (45 ms) and than the gap between two.
const slice = 0.02

// stat is the value sox's stat effect prints under name (such as "RMS
// amplitude") for the recording from from to to seconds, after the sox
// effects filter.
func (r *recording) stat(from, to float64, name string, filter ...string) float64 {
	t := r.t
	t.Helper()
	args := []string{"-t", "raw", "-r", strconv.Itoa(sound.Rate), "-e", "floating-point", "-b", "32", "-c", "1", r.path, "-n",
		"trim", fmt.Sprintf("%.4f", max(from, 0)), fmt.Sprintf("%.4f", to-max(from, 0))}
	out, err := exec.Command("sox", append(append(args, filter...), "stat")...).CombinedOutput()
	if err != nil {
		t.Fatalf("sox: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.Join(strings.Fields(k), " ") == name {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				t.Fatalf("sox %s: %q", name, v)
			}
			return f
		}
	}
	t.Fatalf("sox printed no %q:\n%s", name, out)
	return 0
}

// What is heard where: a thud is the landing's low note (the ticks have
// nothing below 250 Hz); loud is any sound well above silence.
func (r *recording) thud(at float64) bool {
	return r.stat(at, at+slice, "RMS amplitude", "sinc", "-250") > 0.05
}

func (r *recording) loud(at float64) bool {
	return r.stat(at, at+slice, "RMS amplitude") > 0.01
}

// arpeggio is the BONUS step's notes: its first three (523 to 784 Hz) lie
// where the landing has nothing (its thud is below 140 Hz, its ring at
// 1320 Hz) and the ticks next to nothing (900 Hz and up).
func (r *recording) arpeggio(at float64) bool {
	return r.stat(at, at+slice, "RMS amplitude", "sinc", "450-850") > 0.03
}

// first is the start of the first slice from from to to where heard holds,
// or -1.
func (r *recording) first(from, to float64, heard func(float64) bool) float64 {
	for at := from; at < min(to, r.seconds); at += slice {
		if heard(at) {
			return at
		}
	}
	return -1
}

// bursts counts the separate sounds from from to to: runs of loud slices
// with silence between them.
func (r *recording) bursts(from, to float64) int {
	n, on := 0, false
	for at := from; at < to; at += slice {
		l := r.loud(at)
		if l && !on {
			n++
		}
		on = l
	}
	return n
}

// sounding is how long the sound lasts from from, up to to: until the
// first silence of 60 ms (a note's attack may dip for a slice).
func (r *recording) sounding(from, to float64) float64 { return r.held(from, to, r.loud) }

// held is how long heard holds from from, up to to, through gaps shorter
// than 60 ms.
func (r *recording) held(from, to float64, heard func(float64) bool) float64 {
	last, quiet := from, 0
	for at := from; at < to && quiet < 3; at += slice {
		if heard(at) {
			last, quiet = at+slice, 0
		} else {
			quiet++
		}
	}
	return last - from
}

// describe is the loudness of the recording from from to to, slice by
// slice, for a failure message: '#' loud, '.' silent.
func (r *recording) describe(from, to float64) string {
	var b strings.Builder
	for at := from; at < min(to, r.seconds); at += slice {
		if r.loud(at) {
			b.WriteByte('#')
		} else {
			b.WriteByte('.')
		}
	}
	return fmt.Sprintf("from %.2f s: %s", from, b.String())
}
