package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// Desk is the attendant's side of the terminal: the operator PIN and its
// lockout, the operator log, and the cash movements an attendant makes
// (recorded in the operator log with the ledger entry). The caller names
// who acts (the panel, the command line...).
type Desk struct {
	w          *writer
	cash       *Cash
	iterations int // of new PIN hashes
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

// SetPIN sets (or replaces) the operator PIN, 4 to 12 digits, and ends any
// lockout. Only its salted slow hash is stored.
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
	err = d.w.record(ctx, func(tx Tx) error {
		_, had, err := tx.Setting(settingPIN)
		if err != nil {
			return err
		}
		if err := tx.PutSetting(settingPIN, []byte(h)); err != nil {
			return err
		}
		if err := putLock(tx, pinLock{}); err != nil {
			return err
		}
		action := "pin-set"
		if had {
			action = "pin-changed"
		}
		return d.putEvent(tx, actor, action, "")
	})
	if err != nil {
		return fmt.Errorf("set operator PIN: %w", err)
	}
	d.w.log.Info().Msg("operator PIN set")
	return nil
}

// Login checks the operator PIN. MaxPINFailures wrong PINs in a row lock
// the operator out for LockoutDuration (a *LockedError); a wrong PIN before
// that is a *PINError with the attempts left; a PIN typed during a lockout
// is not even checked. Every login, failure, lockout and refusal is logged
// and recorded in the operator log, which works when the terminal is out of
// service: that is when an attendant is needed.
func (d *Desk) Login(ctx context.Context, actor, pin string) error {
	var stored []byte
	var has bool
	var lock pinLock
	err := d.w.view(ctx, func(tx ReadTx) (err error) {
		if stored, has, err = tx.Setting(settingPIN); err != nil {
			return err
		}
		lock, err = readLock(tx)
		return err
	})
	if err != nil {
		return fmt.Errorf("operator login: %w", err)
	}
	if !has {
		d.w.log.Warn().Msg("operator login refused: no PIN set")
		return ErrNoPIN
	}
	if locked := lockedFor(lock, d.w.now()); locked != nil {
		d.event(ctx, actor, "login-locked", locked.Error())
		return locked
	}
	matched, err := verifyPIN(string(stored), pin) // slow: outside the writer's lock
	if err != nil {
		return fmt.Errorf("operator login: %w", err)
	}
	o, err := d.recordLogin(ctx, actor, matched)
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
// records it.
func (d *Desk) recordLogin(ctx context.Context, actor string, matched bool) (loginOutcome, error) {
	d.w.mu.Lock()
	defer d.w.mu.Unlock()
	var lock pinLock
	if err := d.w.view(ctx, func(tx ReadTx) (err error) { lock, err = readLock(tx); return err }); err != nil {
		return loginOutcome{}, err
	}
	o := attempt(lock, matched, d.w.now().UTC())
	return o, d.w.record(ctx, func(tx Tx) error {
		for _, ev := range o.events {
			if err := d.putEvent(tx, actor, ev[0], ev[1]); err != nil {
				return err
			}
		}
		return putLock(tx, o.lock)
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
