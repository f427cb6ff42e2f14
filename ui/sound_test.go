package ui_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"starfortune/engine"
	"starfortune/ui"
)

// heard records the sounds the window asks for, in order.
type heard struct {
	mu  sync.Mutex
	log []string
}

func (h *heard) add(s string) { h.mu.Lock(); h.log = append(h.log, s); h.mu.Unlock() }
func (h *heard) take() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := strings.Join(h.log, " ")
	h.log = nil
	return s
}

func (h *heard) Peg(float64)    { h.add("peg") }
func (h *heard) Land()          { h.add("land") }
func (h *heard) Bonus()         { h.add("bonus") }
func (h *heard) Reveal()        { h.add("reveal") }
func (h *heard) Result(m int64) { h.add(fmt.Sprintf("result:%d", m)) }
func (h *heard) Press()         { h.add("press") }
func (h *heard) Attract()       { h.add("attract") }

// A unit sounds JOUER, each landing, the BONUS step and its GO, and its
// result with its prize, in the order they are shown.
func TestUnitSounds(t *testing.T) {
	h := &heard{}
	r := newRig(t, ui.Options{Sounds: h})
	bonuses := 0
	for range 12 {
		r.tapPlay()
		r.playOut(t, 1)
		sale := r.history(t)[0]
		want := []string{"press"}
		for _, d := range sale.Unit.Drops {
			want = append(want, "land")
			if d.Dest.Bonus {
				want = append(want, "bonus", "reveal")
				bonuses++
			}
		}
		want = append(want, fmt.Sprintf("result:%d", engine.PrizeTable[sale.Unit.Tier].Multiple))
		// The test driver runs a fall in one frame: its peg hits are late and skipped.
		if got := strings.ReplaceAll(h.take(), "peg ", ""); got != strings.Join(want, " ") {
			t.Fatalf("unit %s: heard %q, want %q", sale.Ticket, got, strings.Join(want, " "))
		}
	}
	if bonuses == 0 {
		t.Error("no BONUS step in 12 units: the test proves less than it says")
	}
}

// adjustable is heard that the operator can turn down.
type adjustable struct {
	heard
	volume int
	muted  bool
}

func (a *adjustable) Volume() int     { return a.volume }
func (a *adjustable) SetVolume(v int) { a.volume = v }
func (a *adjustable) Muted() bool     { return a.muted }
func (a *adjustable) SetMuted(m bool) { a.muted = m }

// The operator panel's System tab mutes the terminal and sets its volume,
// at once, and the operator log records it.
func TestOperatorSoundControl(t *testing.T) {
	a := &adjustable{volume: 80}
	r, _ := newOperatorRig(t, ui.Options{Sounds: a})
	p := r.login(t)
	p.Select(ui.TabSystem)
	r.k.Wait()
	var mute *widget.Check
	var vol *widget.Slider
	for _, o := range objects(r.k.Window().Canvas()) {
		switch o := o.(type) {
		case *widget.Check:
			if o.Text == "Muet" {
				mute = o
			}
		case *widget.Slider:
			vol = o
		}
	}
	if mute == nil || vol == nil {
		t.Fatal("no mute box or volume slider in the System tab")
	}
	if vol.Value != 80 || mute.Checked {
		t.Fatalf("shows volume %v, muted %v; want the player's 80, not muted", vol.Value, mute.Checked)
	}
	test.Tap(mute)
	r.k.Wait()
	if !a.muted {
		t.Error("ticking Muet did not mute")
	}
	vol.SetValue(35)
	vol.OnChangeEnded(35)
	r.k.Wait()
	if a.volume != 35 {
		t.Errorf("volume %d after the slider moved to 35", a.volume)
	}
	if got := operatorActions(t, r); !strings.HasSuffix(got, "sound sound") {
		t.Errorf("operator log %q, want the two sound changes last", got)
	}
}
