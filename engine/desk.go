package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"
)

// Desk is the attendant's side of the terminal: the operator PIN and its
// lockout, the operator log, and the cash movements an attendant makes
// (recorded in the operator log with the ledger entry). The caller names
// who acts (the panel, the command line...).
type Desk struct {
	w          *writer
	cash       *Cash
	iterations int // of new PIN hashes
	// noAttendant is checked when a login names no attendant, so that it
	// takes a wrong PIN's time: the hash of a PIN no one can type.
	noAttendant func() string
	lockClock
}

// lockClock counts a lockout down on the time the program observed
// passing, never on the wall clock (pinLock says why). The stored
// pinLock.Left was true at the reading mark of the monotonic clock; what is
// left now is Left less the time since mark. Every write of the lock state
// moves mark, and while a lockout runs a keeper writes it back every
// lockSaveEvery, so that a restart (a crash's too) resumes it about where
// it stood. Its fields are guarded by the writer's mu.
type lockClock struct {
	mono    func() time.Duration
	mark    time.Duration
	keeping bool          // the keeper runs
	closed  bool          // Close was called: no keeper starts
	stop    chan struct{} // closed by Close
	kept    sync.WaitGroup
}

// lockSaveEvery is how often the keeper writes back a lockout of left:
// twelve times over its course, every 30 s to every 10 min. A restart
// loses at most that much of it (the lockout runs longer, never shorter).
var lockSaveEvery = func(left time.Duration) time.Duration {
	return min(max(left/12, 30*time.Second), 10*time.Minute)
}

// monoStart is the origin of the default monotonic clock (Config.Monotonic).
var monoStart = time.Now()

func newDesk(w *writer, cash *Cash, cfg Config) *Desk {
	mono := cfg.Monotonic
	if mono == nil {
		mono = func() time.Duration { return time.Since(monoStart) } // the monotonic reading of both
	}
	d := &Desk{w: w, cash: cash, iterations: cfg.PINIterations}
	d.noAttendant = sync.OnceValue(func() string { h, _ := hashPIN("-", d.iterations); return h })
	d.mono, d.stop = mono, make(chan struct{})
	d.mark = mono() // the stored lockout's Left is what is left now
	return d
}

// start resumes the countdown of a lockout found in force at start-up; a
// lock state of the former format is written in today's at once, before
// the wall clock can move. Called with mu held.
func (d *Desk) start(ctx context.Context) {
	var l pinLock
	var former bool
	err := d.w.view(ctx, func(tx ReadTx) error {
		stored, err := readLock(tx)
		former = !stored.Until.IsZero()
		l = stored.upgrade(d.w.now())
		return err
	})
	if err == nil && former {
		err = d.putLockNow(ctx, l, d.mark, nil)
	}
	if err != nil {
		d.w.log.Error().AnErr("err", err).Msg("operator lock state unreadable")
		return
	}
	if locked := l.locked(); locked != nil {
		d.w.log.Warn().Str("lockout", locked.Error()).Msg("operator access locked")
	}
	d.keepLock(l.Left)
}

// lockNow is the lock state as it stands: the stored one, its lockout
// shortened by the time observed since it was stored. Called with mu held.
func (d *Desk) lockNow(tx ReadTx) (pinLock, error) {
	l, err := readLock(tx)
	if err != nil {
		return l, err
	}
	if !l.Until.IsZero() { // the former format (start writes it in today's)
		l = l.upgrade(d.w.now())
	}
	if l.Left > 0 {
		l.Left = max(l.Left-(d.mono()-d.mark), 0)
	}
	return l, nil
}

// putLockNow records the lock state l, true at the monotonic reading at,
// with fn's other writes; once they are durable, the countdown goes on from
// at, and a lockout that begins gets its keeper. Called with mu held.
func (d *Desk) putLockNow(ctx context.Context, l pinLock, at time.Duration, fn func(Tx) error) error {
	err := d.w.record(ctx, func(tx Tx) error {
		if fn != nil {
			if err := fn(tx); err != nil {
				return err
			}
		}
		return putLock(tx, l)
	})
	if err != nil {
		return err
	}
	d.mark = at
	d.keepLock(l.Left)
	return nil
}

// keepLock starts the keeper of a lockout of left, unless one runs. Called
// with mu held.
func (d *Desk) keepLock(left time.Duration) {
	if left <= 0 || d.keeping || d.closed {
		return
	}
	d.keeping = true
	every := lockSaveEvery(left)
	d.kept.Add(1)
	go func() {
		defer d.kept.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-d.stop:
				return
			case <-t.C:
			}
			if !d.saveLock(context.Background(), 0) {
				return
			}
		}
	}()
}

// saveLock writes back what is left of the lockout in force, if at least
// least has run since it was last written; false once none runs (the
// keeper stops). A failure is logged: the stored lockout is then only
// longer than it should be.
func (d *Desk) saveLock(ctx context.Context, least time.Duration) bool {
	d.w.mu.Lock()
	defer d.w.mu.Unlock()
	at := d.mono()
	var l pinLock
	var running bool // a lockout stored as running (a PIN or an unlock may have ended it)
	err := d.w.view(ctx, func(tx ReadTx) error {
		stored, err := readLock(tx)
		running = stored.Left > 0
		if err == nil {
			l, err = d.lockNow(tx)
		}
		return err
	})
	if err == nil && running && at-d.mark >= least {
		err = d.putLockNow(ctx, l, at, nil)
	}
	if err != nil {
		d.w.log.Error().AnErr("err", err).Msg("operator lockout: its remaining time not written")
	}
	if err == nil && l.Left <= 0 {
		d.keeping = false
	}
	return d.keeping
}

// close stops the keeper and writes back what is left of a lockout that
// ran for a second or more since it was last written (a short command
// writes nothing).
func (d *Desk) close() {
	d.w.mu.Lock()
	keeping := d.keeping
	if !d.closed {
		d.closed = true
		close(d.stop)
	}
	d.w.mu.Unlock()
	d.kept.Wait()
	if keeping {
		d.saveLock(context.Background(), time.Second)
	}
}

// PINSet reports whether an operator PIN has been set.
func (d *Desk) PINSet(ctx context.Context) (bool, error) {
	var ok bool
	err := d.w.view(ctx, func(tx ReadTx) (err error) {
		_, ok, err = tx.Setting(settingPIN)
		return err
	})
	return ok, err
}

// PINStatus is what the engine knows of the operator PIN, without it.
type PINStatus struct {
	Set bool
	// Weak says why the PIN in force would be refused today (it was set
	// under the former rule), or nil. A notice: it still opens the panel;
	// `operator set-pin` replaces it.
	Weak *PINRuleError
	// Locked is the lockout in force, or nil.
	Locked *LockedError
	// Failures are the wrong PINs in a row towards the next lockout, and
	// Level the lockouts since the last correct PIN.
	Failures, Level int
}

// PINStatus reads the PIN's status: set or not, whether it meets the rule,
// the lockout.
func (d *Desk) PINStatus(ctx context.Context) (PINStatus, error) {
	d.w.mu.Lock()
	defer d.w.mu.Unlock()
	var st PINStatus
	err := d.w.view(ctx, func(tx ReadTx) (err error) {
		if _, st.Set, err = tx.Setting(settingPIN); err != nil {
			return err
		}
		if st.Weak, err = readRule(tx); err != nil {
			return err
		}
		l, err := d.lockNow(tx)
		st.Locked, st.Failures, st.Level = l.locked(), l.Failures, l.Level
		return err
	})
	if err != nil {
		return PINStatus{}, fmt.Errorf("operator PIN status: %w", err)
	}
	return st, nil
}

// SetPIN sets (or replaces) the operator PIN, which CheckPIN must accept,
// and ends any lockout and its escalation. Only its salted slow hash is
// stored.
func (d *Desk) SetPIN(ctx context.Context, actor, pin string) error {
	if err := CheckPIN(pin); err != nil {
		return err
	}
	h, err := hashPIN(pin, d.iterations) // slow: before taking the writer's lock
	if err != nil {
		return err
	}
	d.w.mu.Lock()
	defer d.w.mu.Unlock()
	var was pinLock
	if err := d.w.view(ctx, func(tx ReadTx) (err error) { was, err = d.lockNow(tx); return err }); err != nil {
		return fmt.Errorf("set operator PIN: %w", err)
	}
	err = d.putLockNow(ctx, pinLock{}, d.mono(), func(tx Tx) error {
		_, had, err := tx.Setting(settingPIN)
		if err != nil {
			return err
		}
		if err := tx.PutSetting(settingPIN, []byte(h)); err != nil {
			return err
		}
		if err := putRule(tx, 0); err != nil {
			return err
		}
		action, detail := "pin-set", ""
		if had {
			action = "pin-changed"
		}
		if locked := was.locked(); locked != nil {
			detail = "ends " + locked.Describe()
		}
		return d.putEvent(tx, actor, action, detail)
	})
	if err != nil {
		return fmt.Errorf("set operator PIN: %w", err)
	}
	d.w.log.Info().Msg("operator PIN set")
	return nil
}

// Unlock ends the lockout in force and clears the escalation, as a correct
// PIN would: staff at the command line (`operator unlock`), who hold the
// data directory's key, are the only way out of the last level besides a
// new PIN. It returns the lockout it ended (nil: none) and records what it
// did in the operator log; with nothing to clear it changes and records
// nothing.
func (d *Desk) Unlock(ctx context.Context, actor string) (*LockedError, error) {
	d.w.mu.Lock()
	defer d.w.mu.Unlock()
	var l pinLock
	if err := d.w.view(ctx, func(tx ReadTx) (err error) { l, err = d.lockNow(tx); return err }); err != nil {
		return nil, fmt.Errorf("operator unlock: %w", err)
	}
	if l == (pinLock{}) {
		return nil, nil
	}
	locked := l.locked()
	detail := fmt.Sprintf("no lockout in force; cleared %d wrong PINs and %d lockouts in a row", l.Failures, min(l.Level, LockoutLevels+1))
	if locked != nil {
		detail = "ended " + locked.Describe()
	}
	err := d.putLockNow(ctx, pinLock{}, d.mono(), func(tx Tx) error { return d.putEvent(tx, actor, "unlock", detail) })
	if err != nil {
		return nil, fmt.Errorf("operator unlock: %w", err)
	}
	d.w.log.Warn().Str("actor", actor).Str("detail", detail).Msg("operator access unlocked")
	return locked, nil
}

// Login checks the operator PIN. MaxPINFailures wrong PINs in a row lock
// the operator out (a *LockedError), longer at each lockout until a correct
// PIN (LockoutFor), the last time until staff unlock it from the command
// line; a wrong PIN before that is a *PINError with the attempts left; a
// PIN typed during a lockout is not even checked. Every login, failure,
// lockout and refusal is logged and recorded in the operator log, which
// works when the terminal is out of service: that is when an attendant is
// needed. The first login with a PIN set under the former rule records
// whether it meets today's (PINStatus.Weak).
//
// actor is the attendant whose PIN is typed (FirstAttendant: the operator
// PIN); a name that is no attendant's counts as a wrong PIN.
func (d *Desk) Login(ctx context.Context, actor, pin string) error {
	var stored []byte
	var has bool
	var lock pinLock
	d.w.mu.Lock()
	err := d.w.view(ctx, func(tx ReadTx) (err error) {
		if _, has, err = tx.Setting(settingPIN); err != nil {
			return err
		}
		if stored, _, err = tx.Setting(pinKeyOf(actor)); err != nil {
			return err
		}
		lock, err = d.lockNow(tx)
		return err
	})
	d.w.mu.Unlock()
	if err != nil {
		return fmt.Errorf("operator login: %w", err)
	}
	if !has {
		d.w.log.Warn().Msg("operator login refused: no PIN set")
		return ErrNoPIN
	}
	if locked := lock.locked(); locked != nil {
		d.event(ctx, actor, "login-locked", locked.Error())
		return locked
	}
	if len(stored) == 0 { // no such attendant: as long to refuse as a wrong PIN
		stored, pin = []byte(d.noAttendant()), ""
	}
	matched, err := verifyPIN(string(stored), pin) // slow: outside the writer's lock
	if err != nil {
		return fmt.Errorf("operator login: %w", err)
	}
	o, err := d.recordLogin(ctx, actor, matched, pin)
	if err != nil {
		d.w.log.Error().AnErr("err", err).Msg("operator login not recorded")
		return fmt.Errorf("operator login: %w", err)
	}
	switch {
	case o.result == nil:
		d.w.log.Info().Msg("operator login")
	case errors.Is(o.result, ErrLocked):
		d.w.log.Warn().Str("err", o.result.Error()).Msg("operator locked out")
	default:
		d.w.log.Warn().Str("err", o.result.Error()).Msg("operator PIN failed")
	}
	return o.result
}

// recordLogin decides the attempt on the lock state as it is now (read
// again under the writer's lock: another login may have changed it) and
// records it. A correct PIN set under the former rule is checked against
// today's, once.
func (d *Desk) recordLogin(ctx context.Context, actor string, matched bool, pin string) (loginOutcome, error) {
	d.w.mu.Lock()
	defer d.w.mu.Unlock()
	at := d.mono()
	var lock pinLock
	var rule *PINRuleError
	err := d.w.view(ctx, func(tx ReadTx) (err error) {
		if lock, err = d.lockNow(tx); err != nil {
			return err
		}
		rule, err = readRule(tx)
		return err
	})
	if err != nil {
		return loginOutcome{}, err
	}
	o := attempt(lock, matched)
	check := o.result == nil && rule != nil && rule.Problem == PINFormerRule
	return o, d.putLockNow(ctx, o.lock, at, func(tx Tx) error {
		for _, ev := range o.events {
			if err := d.putEvent(tx, actor, ev[0], ev[1]); err != nil {
				return err
			}
		}
		if !check {
			return nil
		}
		p := pinProblem(pin)
		if p != 0 {
			weak := &PINRuleError{Problem: p} // a former PIN's length is neither recorded nor logged
			d.w.log.Warn().Str("reason", weak.Reason()).Msg("the operator PIN does not meet the rule")
			if err := d.putEvent(tx, actor, "pin-weak", weak.Reason()+": change it with starfortune operator set-pin"); err != nil {
				return err
			}
		}
		return putRule(tx, p)
	})
}

// RecordOperator appends an action to the operator log, durably, and logs
// it. It works when the terminal is out of service.
func (d *Desk) RecordOperator(ctx context.Context, actor, action, detail string) error {
	d.w.mu.Lock()
	defer d.w.mu.Unlock()
	err := d.w.record(ctx, func(tx Tx) error { return d.putEvent(tx, actor, action, detail) })
	if err != nil {
		d.w.log.Error().Str("actor", actor).Str("action", action).Str("detail", detail).AnErr("err", err).Msg("operator action not recorded")
		return fmt.Errorf("record operator action %s: %w", action, err)
	}
	return nil
}

// event records an event whose failure to be recorded must not change the
// outcome (it is logged).
func (d *Desk) event(ctx context.Context, actor, action, detail string) {
	_ = d.RecordOperator(ctx, actor, action, detail)
}

// putEvent writes the next event of the operator log in tx and logs it.
// Called with mu held, so the numbering has one writer.
func (d *Desk) putEvent(tx Tx, actor, action, detail string) error {
	last, err := lastOperatorSeq(tx)
	if err != nil {
		return err
	}
	e := OperatorEvent{Seq: last + 1, Time: d.w.now().UTC(), Actor: actor, Action: action, Detail: detail}
	if err := tx.PutOperatorEvent(e); err != nil {
		return err
	}
	d.w.log.Info().Uint64("seq", e.Seq).Str("actor", actor).Str("action", action).Str("detail", detail).Msg("operator action")
	return nil
}

// lastOperatorSeq is the number of the operator log's last event (0: empty):
// a descending scan from the top stops at it.
func lastOperatorSeq(tx ReadTx) (uint64, error) {
	var last uint64
	err := tx.OperatorEvents(math.MaxUint64, 1, func(e OperatorEvent) error { last = e.Seq; return errStop })
	if err != nil && !errors.Is(err, errStop) {
		return 0, err
	}
	return last, nil
}

// OperatorLog returns up to limit events of the operator log, newest first.
func (d *Desk) OperatorLog(ctx context.Context, limit int) (events []OperatorEvent, err error) {
	err = d.w.view(ctx, func(tx ReadTx) (err error) {
		events, err = firstOf(limit, func(fn func(OperatorEvent) error) error {
			return tx.OperatorEvents(math.MaxUint64, 1, fn) // downwards from the newest
		})
		return err
	})
	return events, err
}

// OperatorCredit is a cash-in by an attendant: a ledger entry by actor, and
// the action in the operator log (refusals too).
func (d *Desk) OperatorCredit(ctx context.Context, actor, player string, amount Cents) (LedgerEntry, error) {
	return d.move(ctx, "credit", player, LedgerEntry{Kind: LedgerCredit, Credit: amount, Actor: actor})
}

// OperatorPayout is a cash-out by an attendant, never beyond the balance,
// recorded like OperatorCredit.
func (d *Desk) OperatorPayout(ctx context.Context, actor, player string, amount Cents) (LedgerEntry, error) {
	return d.move(ctx, "payout", player, LedgerEntry{Kind: LedgerPayout, Debit: amount, Actor: actor})
}

// move moves the funds and records the action in the operator log in the
// same transaction: a crash keeps both or neither. A refusal is recorded on
// its own.
func (d *Desk) move(ctx context.Context, action, player string, l LedgerEntry) (LedgerEntry, error) {
	amount := l.Credit + l.Debit
	l, err := d.cash.move(ctx, player, l, func(tx *journalTx, l LedgerEntry) error {
		return d.putEvent(tx, l.Actor, action, fmt.Sprintf("player %s amount %s ledger %d balance %s", player, amount.Euros(), l.Seq, l.Balance.Euros()))
	})
	if err != nil {
		d.event(ctx, l.Actor, action+"-refused", fmt.Sprintf("player %s amount %s: %v", player, amount.Euros(), err))
	}
	return l, err
}

// Anchor is what staff write down so that a lost store can be rebuilt
// from the journal only if the journal is whole (recover --expect-head):
// the journal's head now, and the times a store was rebuilt with no such
// anchor, on an attendant's word. Reports print it.
func (d *Desk) Anchor(ctx context.Context) (head JournalHead, overrides []OperatorEvent, err error) {
	d.w.mu.Lock()
	head = d.w.jhead
	d.w.mu.Unlock()
	err = d.w.view(ctx, func(tx ReadTx) (err error) { overrides, err = unanchored(tx); return err })
	return head, overrides, err
}

// unanchored lists the operator log's recover overrides, oldest first.
func unanchored(tx ReadTx) (events []OperatorEvent, err error) {
	err = tx.OperatorEvents(1, math.MaxUint64, func(e OperatorEvent) error {
		if e.Action == ActionRecoverOverride {
			events = append(events, e)
		}
		return nil
	})
	return events, err
}
