package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Attendants: each attendant has a name and a PIN of their own, so that
// the operator log and the account log (openings, identity checks,
// hand-pays) say who did what. The operator PIN of earlier versions is the
// first attendant's, named FirstAttendant; staff holding the data key add
// the others (`operator add NAME`). One lockout guards them all: wrong
// PINs count for the panel, whoever they were typed for.

// FirstAttendant is the attendant whose PIN `operator set-pin` sets.
const FirstAttendant = "operator"

// attendantPrefix + name: that attendant's PIN hash.
const attendantPrefix = "attendant/"

var (
	// ErrBadAttendant: a name that cannot be an attendant's.
	ErrBadAttendant = errors.New("an attendant's name is 2 to 32 lower-case letters, digits, dots, dashes or underscores")
	// ErrAttendantExists: an attendant of that name exists already.
	ErrAttendantExists = errors.New("an attendant of that name exists already")
	// ErrNoAttendant: no attendant of that name.
	ErrNoAttendant = errors.New("no attendant of that name")
)

// reservedActors name what is not an attendant in the logs.
var reservedActors = []string{"cli", "kiosk", "player", "engine", "test", "torture", "bench"}

// CheckAttendantName says why name cannot be an attendant's, or nil.
func CheckAttendantName(name string) error {
	if len(name) < 2 || len(name) > 32 || slices.Contains(reservedActors, name) {
		return fmt.Errorf("%w: %q", ErrBadAttendant, name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("._-", r)) {
			return fmt.Errorf("%w: %q", ErrBadAttendant, name)
		}
	}
	return nil
}

// pinKeyOf is the setting holding the attendant's PIN hash.
func pinKeyOf(name string) string {
	if name == FirstAttendant || name == "" {
		return settingPIN
	}
	return attendantPrefix + name
}

// Attendants lists the attendants who have a PIN, the first one first.
func (d *Desk) Attendants(ctx context.Context) ([]string, error) {
	var names []string
	err := d.w.view(ctx, func(tx ReadTx) error {
		if _, ok, err := tx.Setting(settingPIN); err != nil || !ok {
			return err
		}
		names = append(names, FirstAttendant)
		list, _, err := tx.Setting(attendantsList)
		names = append(names, strings.Fields(string(list))...)
		return err
	})
	return names, err
}

// attendantsList holds the names of the attendants added, space-separated.
const attendantsList = "attendants"

// AddAttendant gives a new attendant a name and a PIN (CheckPIN's rule);
// the first attendant's PIN must be set. by is who adds them.
func (d *Desk) AddAttendant(ctx context.Context, by, name, pin string) error {
	if err := CheckAttendantName(name); err != nil {
		return err
	}
	if name == FirstAttendant {
		return fmt.Errorf("%w: %s (its PIN is set by operator set-pin)", ErrAttendantExists, name)
	}
	if err := CheckPIN(pin); err != nil {
		return err
	}
	h, err := hashPIN(pin, d.iterations) // slow: before the writer's lock
	if err != nil {
		return err
	}
	d.w.mu.Lock()
	defer d.w.mu.Unlock()
	return d.w.record(ctx, func(tx Tx) error {
		if _, ok, err := tx.Setting(settingPIN); err != nil || !ok {
			if err == nil {
				err = ErrNoPIN
			}
			return err
		}
		list, _, err := tx.Setting(attendantsList)
		if err != nil {
			return err
		}
		names := strings.Fields(string(list))
		if slices.Contains(names, name) {
			return fmt.Errorf("%w: %s", ErrAttendantExists, name)
		}
		if err := tx.PutSetting(attendantsList, []byte(strings.Join(append(names, name), " "))); err != nil {
			return err
		}
		if err := tx.PutSetting(attendantPrefix+name, []byte(h)); err != nil {
			return err
		}
		return d.putEvent(tx, by, "attendant-added", name)
	})
}

// SetAttendantPIN changes an attendant's PIN (the first one's too, as
// SetPIN does, without ending the lockout).
func (d *Desk) SetAttendantPIN(ctx context.Context, by, name, pin string) error {
	if name == FirstAttendant {
		return d.SetPIN(ctx, by, pin)
	}
	if err := CheckPIN(pin); err != nil {
		return err
	}
	h, err := hashPIN(pin, d.iterations)
	if err != nil {
		return err
	}
	d.w.mu.Lock()
	defer d.w.mu.Unlock()
	return d.w.record(ctx, func(tx Tx) error {
		if _, ok, err := tx.Setting(attendantPrefix + name); err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("%w: %s", ErrNoAttendant, name)
			}
			return err
		}
		if err := tx.PutSetting(attendantPrefix+name, []byte(h)); err != nil {
			return err
		}
		return d.putEvent(tx, by, "attendant-pin-changed", name)
	})
}

// RemoveAttendant takes an attendant's PIN away (not the first one's):
// their name stays in the logs.
func (d *Desk) RemoveAttendant(ctx context.Context, by, name string) error {
	if name == FirstAttendant {
		return fmt.Errorf("%w: the first attendant stays (change their PIN with operator set-pin)", ErrBadAttendant)
	}
	d.w.mu.Lock()
	defer d.w.mu.Unlock()
	return d.w.record(ctx, func(tx Tx) error {
		list, _, err := tx.Setting(attendantsList)
		if err != nil {
			return err
		}
		names := strings.Fields(string(list))
		i := slices.Index(names, name)
		if i < 0 {
			return fmt.Errorf("%w: %s", ErrNoAttendant, name)
		}
		if err := tx.PutSetting(attendantsList, []byte(strings.Join(slices.Delete(names, i, i+1), " "))); err != nil {
			return err
		}
		if err := tx.PutSetting(attendantPrefix+name, nil); err != nil { // no PIN: no login
			return err
		}
		return d.putEvent(tx, by, "attendant-removed", name)
	})
}
