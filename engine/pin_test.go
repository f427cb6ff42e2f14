package engine_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/engine/memstore"
)

const operatorPIN = "482915"

// kioskClocks are the two clocks the engine is given: the wall clock,
// which anyone with the system's clock moves, and the monotonic one, which
// only the time observed passing moves. Read by the keeper's goroutine.
type kioskClocks struct {
	wall atomic.Int64 // Unix nanoseconds
	mono atomic.Int64 // nanoseconds since the program started
}

func newClocks() *kioskClocks {
	c := &kioskClocks{}
	c.wall.Store(time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *kioskClocks) now() time.Time          { return time.Unix(0, c.wall.Load()).UTC() }
func (c *kioskClocks) since() time.Duration    { return time.Duration(c.mono.Load()) }
func (c *kioskClocks) setWall(d time.Duration) { c.wall.Add(int64(d)) }
func (c *kioskClocks) run(d time.Duration)     { c.mono.Add(int64(d)); c.wall.Add(int64(d)) }
func (c *kioskClocks) config() engine.Config {
	cfg := oneBlock
	cfg.Now, cfg.Monotonic = c.now, c.since
	return cfg
}
func (c *kioskClocks) restart()       { c.mono.Store(0) } // a new process: a new origin
func (c *kioskClocks) String() string { return fmt.Sprintf("wall %s mono %s", c.now(), c.since()) }

// lockedKiosk is a terminal with its operator PIN set, on a store that
// outlives its engine (reopen is a restart), on clocks the test drives.
type lockedKiosk struct {
	t   *testing.T
	st  *memstore.Store
	clk *kioskClocks
	s   *engine.Service
}

func newLockedKiosk(t *testing.T) *lockedKiosk {
	t.Helper()
	k := &lockedKiosk{t: t, st: pinnedStore(t), clk: newClocks()}
	k.open()
	t.Cleanup(func() { k.s.Close() })
	if err := k.s.SetPIN(ctx, "cli", operatorPIN); err != nil {
		t.Fatal(err)
	}
	return k
}

func (k *lockedKiosk) open() {
	k.t.Helper()
	s, err := engine.NewService(ctx, k.st, k.clk.config(), zerolog.Nop())
	if err != nil {
		k.t.Fatal(err)
	}
	k.s = s
}

// reopen closes the engine and opens another on the same store, as a
// restart of the program does: its monotonic clock starts again.
func (k *lockedKiosk) reopen() {
	k.t.Helper()
	k.s.Close()
	k.clk.restart()
	k.open()
}

// fail types wrong PINs until the next lockout and returns it.
func (k *lockedKiosk) fail() *engine.LockedError {
	k.t.Helper()
	for i := 1; i <= engine.MaxPINFailures; i++ {
		err := k.s.Login(ctx, "operator", "739201")
		var wrong *engine.PINError
		var locked *engine.LockedError
		switch {
		case i < engine.MaxPINFailures && (!errors.As(err, &wrong) || wrong.Left != engine.MaxPINFailures-i):
			k.t.Fatalf("wrong PIN %d: %v", i, err)
		case i == engine.MaxPINFailures && !errors.As(err, &locked):
			k.t.Fatalf("wrong PIN %d did not lock: %v", i, err)
		case i == engine.MaxPINFailures:
			return locked
		}
	}
	return nil
}

// locked is the lockout the right PIN meets now.
func (k *lockedKiosk) locked() *engine.LockedError {
	k.t.Helper()
	err := k.s.Login(ctx, "operator", operatorPIN)
	var locked *engine.LockedError
	if !errors.As(err, &locked) || !errors.Is(err, engine.ErrLocked) {
		k.t.Fatalf("the right PIN during a lockout (%s): %v", k.clk, err)
	}
	return locked
}

func (k *lockedKiosk) actions(n int) string {
	k.t.Helper()
	events, err := k.s.OperatorLog(ctx, n)
	if err != nil {
		k.t.Fatal(err)
	}
	var a []string
	for i := len(events) - 1; i >= 0; i-- {
		a = append(a, events[i].Action)
	}
	return strings.Join(a, " ")
}

// lockouts are the details of the operator log's lockouts, oldest first.
func (k *lockedKiosk) lockouts() []string {
	k.t.Helper()
	events, err := k.s.OperatorLog(ctx, 1000)
	if err != nil {
		k.t.Fatal(err)
	}
	var d []string
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Action == "locked" {
			d = append(d, events[i].Detail)
		}
	}
	return d
}

// Five wrong PINs lock for 5 min, five more for 1 h, five more for 24 h,
// five more until `operator unlock`; each survives a restart with what
// was left of it, and each is recorded with its level and duration.
func TestLockoutsEscalateAcrossRestarts(t *testing.T) {
	k := newLockedKiosk(t)
	for level := 1; level <= engine.LockoutLevels; level++ {
		d := engine.LockoutFor(level)
		if l := k.fail(); l.Level != level || l.Remaining != d || l.UntilUnlock {
			t.Fatalf("lockout %d: %+v, want %s", level, l, d)
		}
		k.clk.run(d / 4)
		k.reopen()
		if l := k.locked(); l.Level != level || l.Remaining != d-d/4 {
			t.Fatalf("lockout %d after a restart: %+v, want %s left", level, l, d-d/4)
		}
		k.clk.run(d - d/4 - time.Second)
		if l := k.locked(); l.Remaining != time.Second {
			t.Fatalf("lockout %d a second before its end: %+v", level, l)
		}
		k.clk.run(time.Second)
		if st, err := k.s.PINStatus(ctx); err != nil || st.Locked != nil || st.Level != level || st.Failures != 0 {
			t.Fatalf("after lockout %d: %+v %v", level, st, err)
		}
	}
	last := k.fail()
	if last.Level != engine.LockoutLevels+1 || !last.UntilUnlock || last.Remaining != 0 {
		t.Fatalf("the last lockout: %+v", last)
	}
	k.clk.run(365 * 24 * time.Hour)
	k.reopen()
	k.clk.run(time.Hour)
	if l := k.locked(); !l.UntilUnlock || !strings.Contains(l.Error(), "operator unlock") {
		t.Fatalf("the last lockout a year later, after a restart: %v", l)
	}
	want := []string{
		"level 1 of 3: 5 wrong PINs in a row: locked for 5 min 00 s of running time",
		"level 2 of 3: 5 wrong PINs in a row: locked for 1 h 00 min 00 s of running time",
		"level 3 of 3: 5 wrong PINs in a row: locked for 24 h 00 min 00 s of running time",
		"level 4: 5 more wrong PINs after 3 lockouts: locked until starfortune operator unlock (or operator set-pin)",
	}
	if got := k.lockouts(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("lockouts in the operator log:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Staff unlock it from the command line: recorded, and the escalation
	// starts again from 5 minutes.
	k.reopen()
	ended, err := k.s.Unlock(ctx, "cli")
	if err != nil || ended == nil || !ended.UntilUnlock {
		t.Fatalf("unlock: %v %v", ended, err)
	}
	events, _ := k.s.OperatorLog(ctx, 1)
	if e := events[0]; e.Action != "unlock" || e.Actor != "cli" || e.Detail != "ended lockout 4, until unlocked" {
		t.Fatalf("the unlock in the operator log: %+v", e)
	}
	if err := k.s.Login(ctx, "operator", operatorPIN); err != nil {
		t.Fatalf("the right PIN after unlock: %v", err)
	}
	if l := k.fail(); l.Level != 1 || l.Remaining != engine.LockoutDuration {
		t.Fatalf("after unlock the next lockout is %+v, want the first again", l)
	}
}

// A correct PIN between two lockouts starts the escalation again.
func TestCorrectPINResetsTheEscalation(t *testing.T) {
	k := newLockedKiosk(t)
	k.fail()
	k.clk.run(engine.LockoutDuration)
	k.fail() // the second: an hour
	k.clk.run(time.Hour)
	if err := k.s.Login(ctx, "operator", operatorPIN); err != nil {
		t.Fatal(err)
	}
	if l := k.fail(); l.Level != 1 || l.Remaining != engine.LockoutDuration {
		t.Fatalf("after a correct PIN: %+v, want the first lockout", l)
	}
	// A new PIN ends a lockout too.
	if err := k.s.SetPIN(ctx, "cli", "730164"); err != nil {
		t.Fatal(err)
	}
	if err := k.s.Login(ctx, "operator", "730164"); err != nil {
		t.Fatalf("the new PIN during the old PIN's lockout: %v", err)
	}
	if a := k.actions(3); a != "locked pin-changed login" {
		t.Fatalf("operator log: %s", a)
	}
	if events, _ := k.s.OperatorLog(ctx, 2); events[1].Detail != "ends lockout 1 of 3, 5 min 00 s of running time left" {
		t.Fatalf("pin-changed: %+v", events[1])
	}
}

// The wall clock moved a day forward, or a year back, does not end a
// lockout nor make it longer: only time observed passing counts.
func TestWallClockCannotShortenALockout(t *testing.T) {
	k := newLockedKiosk(t)
	k.fail()
	k.clk.run(time.Minute)
	k.clk.setWall(24 * time.Hour)
	if l := k.locked(); l.Remaining != 4*time.Minute {
		t.Fatalf("wall clock a day ahead: %+v, want 4 min left", l)
	}
	k.reopen() // and a restart on the clock moved
	k.clk.setWall(30 * 24 * time.Hour)
	if l := k.locked(); l.Remaining != 4*time.Minute {
		t.Fatalf("restarted with the wall clock a month ahead: %+v, want 4 min left", l)
	}
	k.clk.setWall(-2 * 365 * 24 * time.Hour)
	k.clk.run(3 * time.Minute)
	if l := k.locked(); l.Remaining != time.Minute {
		t.Fatalf("wall clock two years back: %+v, want 1 min left", l)
	}
	k.clk.run(time.Minute)
	if err := k.s.Login(ctx, "operator", operatorPIN); err != nil {
		t.Fatalf("after the lockout's 5 min of running time: %v", err)
	}
}

// While a lockout runs, the engine writes back what is left of it, so a
// crash (no Close) resumes it about where it stood; Close writes it too.
func TestLockoutIsWrittenBackAsItRuns(t *testing.T) {
	defer engine.SaveLockEvery(time.Millisecond)()
	k := newLockedKiosk(t)
	k.fail()
	k.clk.run(2 * time.Minute)
	var left time.Duration
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		var l struct {
			Left time.Duration `json:"left"`
		}
		if err := json.Unmarshal([]byte(setting(t, k.st, "operator.lock")), &l); err != nil {
			t.Fatal(err)
		}
		if left = l.Left; left == 3*time.Minute {
			break
		}
	}
	if left != 3*time.Minute {
		t.Fatalf("the stored lockout has %s left, want 3 min", left)
	}
	k.clk.run(3 * time.Minute)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if st, _ := k.s.PINStatus(ctx); st.Locked == nil && !strings.Contains(setting(t, k.st, "operator.lock"), "left") {
			return // the keeper wrote that it is over
		}
	}
	t.Fatalf("the lockout's end never written: %s", setting(t, k.st, "operator.lock"))
}

// A terminal set up under the former rule keeps its 4-digit PIN and its
// lockout: the PIN still opens the panel, with a notice to change it.
func TestFormerPINStillOpensWithANotice(t *testing.T) {
	clk := newClocks()
	st := pinnedStore(t)
	h, err := engine.HashPIN("4821", lowPINIterations)
	if err != nil {
		t.Fatal(err)
	}
	until := clk.now().Add(3 * time.Minute)
	err = st.Update(ctx, func(tx engine.Tx) error {
		if err := tx.PutSetting("operator.pin", []byte(h)); err != nil {
			return err
		}
		return tx.PutSetting("operator.lock", fmt.Appendf(nil, `{"failures":0,"until":%q}`, until.Format(time.RFC3339Nano)))
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := engine.NewService(ctx, st, clk.config(), zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	status, err := s.PINStatus(ctx)
	if err != nil || !status.Set || status.Weak == nil || status.Weak.Problem != engine.PINFormerRule ||
		status.Locked == nil || status.Locked.Level != 1 || status.Locked.Remaining != 3*time.Minute {
		t.Fatalf("a former PIN and lockout: %+v %v", status, err)
	}
	rep, err := s.Audit(ctx, nil)
	if err != nil || !rep.OK() || rep.WeakPIN == nil || rep.WeakPIN.Problem != engine.PINFormerRule {
		t.Fatalf("audit: %v %+v (a notice, never a finding)", err, rep)
	}
	clk.setWall(time.Hour) // the former lockout, converted, runs on the monotonic clock too
	if err := s.Login(ctx, "operator", "4821"); !errors.Is(err, engine.ErrLocked) {
		t.Fatalf("the former lockout ended with the wall clock: %v", err)
	}
	clk.run(3 * time.Minute)
	if err := s.Login(ctx, "operator", "4821"); err != nil {
		t.Fatalf("the former PIN refused: %v", err)
	}
	status, _ = s.PINStatus(ctx)
	if status.Weak == nil || status.Weak.Problem != engine.PINLength || !strings.Contains(status.Weak.Error(), "fewer than 6 digits") {
		t.Fatalf("after its login the former PIN is %+v", status.Weak)
	}
	events, _ := s.OperatorLog(ctx, 2)
	if events[0].Action != "pin-weak" || !strings.Contains(events[0].Detail, "operator set-pin") || strings.Contains(events[0].Detail, "4") ||
		events[1].Action != "login" {
		t.Fatalf("operator log: %v", events)
	}
	if err := s.Login(ctx, "operator", "4821"); err != nil { // noticed once
		t.Fatal(err)
	}
	if a := strings.Count(fmt.Sprint(must(s.OperatorLog(ctx, 10))), "pin-weak"); a != 1 {
		t.Fatalf("pin-weak recorded %d times", a)
	}
	if err := s.SetPIN(ctx, "cli", operatorPIN); err != nil {
		t.Fatal(err)
	}
	if status, _ = s.PINStatus(ctx); status.Weak != nil {
		t.Fatalf("a new PIN is %+v", status.Weak)
	}
}

// A former PIN that meets today's rule is marked so at its first login.
func TestFormerGoodPINNeedsNoChange(t *testing.T) {
	st := pinnedStore(t)
	h, _ := engine.HashPIN(operatorPIN, lowPINIterations)
	if err := st.Update(ctx, func(tx engine.Tx) error { return tx.PutSetting("operator.pin", []byte(h)) }); err != nil {
		t.Fatal(err)
	}
	s, err := engine.NewService(ctx, st, newClocks().config(), zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Login(ctx, "operator", operatorPIN); err != nil {
		t.Fatal(err)
	}
	if status, _ := s.PINStatus(ctx); status.Weak != nil {
		t.Fatalf("a former PIN of 6 digits: %+v", status.Weak)
	}
}

// Unlock with nothing locked changes and records nothing; with wrong PINs
// counted, it clears them.
func TestUnlockWithNoLockout(t *testing.T) {
	k := newLockedKiosk(t)
	if l, err := k.s.Unlock(ctx, "cli"); l != nil || err != nil {
		t.Fatalf("unlock: %v %v", l, err)
	}
	if a := k.actions(10); a != "pin-set" {
		t.Fatalf("operator log: %s", a)
	}
	k.s.Login(ctx, "operator", "739201")
	if l, err := k.s.Unlock(ctx, "cli"); l != nil || err != nil {
		t.Fatalf("unlock: %v %v", l, err)
	}
	if st, _ := k.s.PINStatus(ctx); st.Failures != 0 || k.actions(1) != "unlock" {
		t.Fatalf("after unlock: %+v, %s", st, k.actions(1))
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
