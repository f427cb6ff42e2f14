package ui_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

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
