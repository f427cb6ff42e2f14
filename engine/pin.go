package engine

import (
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The operator PIN: its rule, its salted slow hash, and the lockout after
// repeated failures.

// DefaultPINIterations is the PBKDF2-HMAC-SHA256 iteration count of a new
// PIN hash (about 0,1 s here): slow enough that the 10⁴ to 10¹² PINs of a
// stolen store cost hours to days each, fast enough for a login. A hash
// records its own count, so a lower Config.PINIterations (tests) does not
// make stored PINs unreadable.
const DefaultPINIterations = 210_000

const (
	pinSaltSize = 16
	pinKeySize  = 32
	pinMinLen   = 4
	pinMaxLen   = 12
	// MaxPINFailures wrong PINs in a row lock the operator panel...
	MaxPINFailures = 5
	// ...for LockoutDuration, even across restarts.
	LockoutDuration = 5 * time.Minute
)

// The operator errors. A wrong PIN is a *PINError (matching ErrBadPIN), a
// lockout a *LockedError (matching ErrLocked).
var (
	// ErrNoPIN: no PIN was ever set, so the operator panel stays closed.
	ErrNoPIN = errors.New("no operator PIN set")
	// ErrBadPIN: the PIN typed is not the operator's.
	ErrBadPIN = errors.New("wrong operator PIN")
	// ErrPINRule: a new PIN that is not 4 to 12 digits.
	ErrPINRule = errors.New("an operator PIN is 4 to 12 digits")
	// ErrLocked: too many wrong PINs; wait for the lockout to end.
	ErrLocked = errors.New("operator access locked after too many wrong PINs")
)

// Settings the operator side keeps in the store.
const (
	// settingPIN holds the PIN's hash: "pbkdf2-sha256$<iterations>$<salt hex>$<key hex>".
	settingPIN = "operator.pin"
	// settingLock holds the wrong-PIN count and the end of a lockout (JSON).
	settingLock = "operator.lock"
)

// CheckPIN says why pin cannot be an operator PIN, or nil.
func CheckPIN(pin string) error {
	if len(pin) < pinMinLen || len(pin) > pinMaxLen {
		return fmt.Errorf("%w: %d characters given", ErrPINRule, len(pin))
	}
	if !allDigits(pin) {
		return fmt.Errorf("%w: only digits 0 to 9", ErrPINRule)
	}
	return nil
}

// hashPIN derives the stored form of pin with a fresh salt.
func hashPIN(pin string, iterations int) (string, error) {
	salt := make([]byte, pinSaltSize)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("PIN salt: %w", err)
	}
	key, err := pbkdf2.Key(sha256.New, pin, salt, iterations, pinKeySize)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("pbkdf2-sha256$%d$%x$%x", iterations, salt, key), nil
}

// verifyPIN compares pin with a stored hash in constant time.
func verifyPIN(stored, pin string) (bool, error) {
	parts := strings.Split(stored, "$")
	if len(parts) != 4 || parts[0] != "pbkdf2-sha256" {
		return false, fmt.Errorf("%w: operator PIN hash has an unknown format", ErrCorrupt)
	}
	iter, err1 := strconv.Atoi(parts[1])
	salt, err2 := hex.DecodeString(parts[2])
	want, err3 := hex.DecodeString(parts[3])
	if err := errors.Join(err1, err2, err3); err != nil || iter < 1 || len(want) == 0 {
		return false, fmt.Errorf("%w: operator PIN hash unreadable", ErrCorrupt)
	}
	got, err := pbkdf2.Key(sha256.New, pin, salt, iter, len(want))
	if err != nil {
		return false, err
	}
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// pinLock is the lockout state, persisted so a restart does not reset it.
type pinLock struct {
	Failures int       `json:"failures"` // wrong PINs since the last success or lockout
	Until    time.Time `json:"until"`    // end of the current lockout (zero: none)
}

// lockedFor is the lockout in force at now, or nil. A lockout never lasts
// more than LockoutDuration from now, even if the clock went back.
func lockedFor(l pinLock, now time.Time) *LockedError {
	left := l.Until.Sub(now)
	if l.Until.IsZero() || left <= 0 {
		return nil
	}
	left = min(left, LockoutDuration)
	return &LockedError{Remaining: left, Until: now.Add(left)}
}

// loginOutcome is what a login attempt does: the lock state after it, the
// events for the operator log, and the answer (nil: logged in).
type loginOutcome struct {
	lock   pinLock
	events [][2]string // action, detail
	result error
}

// attempt decides a login attempt from the lock state before it and whether
// the PIN matched.
func attempt(lock pinLock, matched bool, now time.Time) loginOutcome {
	if locked := lockedFor(lock, now); locked != nil {
		return loginOutcome{lock: lock, events: [][2]string{{"login-locked", locked.Error()}}, result: locked}
	}
	if matched {
		return loginOutcome{events: [][2]string{{"login", ""}}}
	}
	lock.Failures++
	left := MaxPINFailures - lock.Failures
	o := loginOutcome{lock: lock, result: &PINError{Left: left},
		events: [][2]string{{"pin-failed", fmt.Sprintf("wrong PIN %d of %d", lock.Failures, MaxPINFailures)}}}
	if left <= 0 {
		o.lock = pinLock{Until: now.Add(LockoutDuration)}
		o.result = &LockedError{Remaining: LockoutDuration, Until: o.lock.Until}
		o.events = append(o.events, [2]string{"locked", fmt.Sprintf("%d wrong PINs: locked until %s", MaxPINFailures, o.lock.Until.Format(time.RFC3339))})
	}
	return o
}

func readLock(tx ReadTx) (pinLock, error) {
	var l pinLock
	v, ok, err := tx.Setting(settingLock)
	if err != nil || !ok {
		return l, err
	}
	if err := json.Unmarshal(v, &l); err != nil {
		return l, fmt.Errorf("%w: operator lock state: %v", ErrCorrupt, err)
	}
	return l, nil
}

func putLock(tx Tx, l pinLock) error {
	v, _ := json.Marshal(l)
	return tx.PutSetting(settingLock, v)
}
