package engine_test

import (
	"testing"
	"time"

	"starfortune/engine"
)

// The loop's periods are spread over ±20 %, and spread: a fleet started
// together does not call its central in the same second.
func TestJitterSpreadsPeriods(t *testing.T) {
	const d = 30 * time.Second
	lo, hi := d, time.Duration(0)
	for range 1000 {
		j := engine.Jitter(d)
		if j < d*8/10 || j > d*12/10 {
			t.Fatalf("jitter(%v) = %v, beyond ±20 %%", d, j)
		}
		lo, hi = min(lo, j), max(hi, j)
	}
	if hi-lo < d/4 {
		t.Fatalf("1000 jittered periods span only %v..%v", lo, hi)
	}
}

// A kiosk is online while its last call is within two heartbeats and a
// margin, late until LostAfter, lost beyond; never seen before its first.
func TestKioskStatusFromItsLastCall(t *testing.T) {
	at := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	for age, want := range map[time.Duration]engine.KioskStatus{
		0: engine.KioskOnline, engine.OnlineWithin: engine.KioskOnline, engine.OnlineWithin + time.Second: engine.KioskLate,
		engine.LostAfter: engine.KioskLate, engine.LostAfter + time.Second: engine.KioskLost,
	} {
		if got := (engine.KioskView{LastSeen: at.Add(-age)}).Status(at); got != want {
			t.Errorf("last call %v ago: %v, want %v", age, got, want)
		}
	}
	if got := (engine.KioskView{}).Status(at); got != engine.KioskNeverSeen {
		t.Errorf("never called: %v", got)
	}
}
