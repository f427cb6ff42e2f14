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
	"slices"
	"strconv"
	"strings"
	"time"
)

// The operator PIN: its rule, its salted slow hash, and the escalating
// lockout after repeated failures.

// DefaultPINIterations is the PBKDF2-HMAC-SHA256 iteration count of a new
// PIN hash (about 0,1 s here): slow enough that the 10⁶ to 10¹² PINs of a
// stolen store cost a day or more each, fast enough for a login. A hash
// records its own count, so a lower Config.PINIterations (tests) does not
// make stored PINs unreadable.
const DefaultPINIterations = 210_000

const (
	pinSaltSize = 16
	pinKeySize  = 32
	// PINMinDigits to PINMaxDigits is the length of a new operator PIN.
	// A PIN set under the former rule (4 digits and up) still opens the
	// panel, with a notice (PINStatus.Weak).
	PINMinDigits = 6
	PINMaxDigits = 12
	// MaxPINFailures wrong PINs in a row lock the operator panel, for
	// longer at each lockout (LockoutFor) until a correct PIN.
	MaxPINFailures = 5
	// LockoutLevels is the number of lockouts in a row that end: the
	// lockout after them (level LockoutLevels+1) lasts until staff unlock
	// it from the command line.
	LockoutLevels = 3
	// LockoutDuration is the first lockout's.
	LockoutDuration = 5 * time.Minute
)

// LockoutFor is how long the level-th lockout in a row lasts (1: the first
// since the last correct PIN), in time the terminal runs; 0 for a level
// beyond LockoutLevels, which lasts until `starfortune operator unlock`
// or `operator set-pin`. 5 wrong PINs in a row, then 5 more, then 5
// more: 15 guesses in 25 h 5 min of running time, then none without staff.
func LockoutFor(level int) time.Duration {
	switch level {
	case 1:
		return LockoutDuration
	case 2:
		return time.Hour
	case 3:
		return 24 * time.Hour
	}
	return 0
}

// The operator errors. A wrong PIN is a *PINError (matching ErrBadPIN), a
// lockout a *LockedError (matching ErrLocked), a PIN refused by the rule a
// *PINRuleError (matching ErrPINRule).
var (
	// ErrNoPIN: no PIN was ever set, so the operator panel stays closed.
	ErrNoPIN = errors.New("no operator PIN set")
	// ErrBadPIN: the PIN typed is not the operator's.
	ErrBadPIN = errors.New("wrong operator PIN")
	// ErrPINRule: a new PIN that is not 6 to 12 digits, or is easy to guess.
	ErrPINRule = errors.New("an operator PIN is 6 to 12 digits, not easy to guess")
	// ErrLocked: too many wrong PINs; wait for the lockout to end, or, at
	// the last level, unlock it from the command line.
	ErrLocked = errors.New("operator access locked after too many wrong PINs")
)

// PINProblem is why a PIN does not meet the rule.
type PINProblem int

// The ways a PIN can fail the rule, in the order CheckPIN checks them.
const (
	PINLength    PINProblem = iota + 1 // not 6 to 12 characters (a former PIN: fewer than 6 digits)
	PINNotDigits                       // characters other than 0 to 9
	PINOneDigit                        // one digit repeated: 000000, 777777
	PINSequence                        // digits in sequence, up or down, each once or each as often: 123456, 654321, 890123, 112233, 111222
	PINRepeats                         // a group of digits repeated: 121212, 123123, 12341234
	PINWellKnown                       // on the list of well-known PINs: 159753, 147258, 102030...
	// PINFormerRule: not a refusal but what PINStatus says of a PIN set
	// under the former rule (4 to 12 digits) and not typed since: it may
	// be too short or too easy; its first login tells.
	PINFormerRule
)

var pinProblems = map[PINProblem]string{
	PINNotDigits: "only digits 0 to 9",
	PINOneDigit:  "one digit repeated (like 000000)",
	PINSequence:  "digits in sequence (like 123456, 654321 or 112233)",
	PINRepeats:   "a group of digits repeated (like 121212 or 123123)",
	PINWellKnown: "one of the most common PINs (like 159753 or 147258)",
	PINFormerRule: fmt.Sprintf("the PIN in force was set under the former rule (4 digits allowed) and not typed since: it may have fewer than %d digits",
		PINMinDigits),
}

// PINRuleError is a PIN that does not meet the rule: refused by CheckPIN
// (and so by SetPIN), or the notice of PINStatus about the PIN in force.
// It matches ErrPINRule.
type PINRuleError struct {
	Problem PINProblem
	Length  int // the characters given (PINLength; 0: a PIN in force, fewer than PINMinDigits)
}

// Reason says what is wrong, for logs and the command line.
func (e *PINRuleError) Reason() string {
	if e.Problem != PINLength {
		return pinProblems[e.Problem]
	}
	if e.Length == 0 {
		return fmt.Sprintf("the PIN in force has fewer than %d digits", PINMinDigits)
	}
	return fmt.Sprintf("%d characters given", e.Length)
}

func (e *PINRuleError) Error() string { return fmt.Sprintf("%v: %s", ErrPINRule, e.Reason()) }

// Unwrap makes errors.Is(err, ErrPINRule) true.
func (e *PINRuleError) Unwrap() error { return ErrPINRule }

// Settings the operator side keeps in the store.
const (
	// settingPIN holds the PIN's hash: "pbkdf2-sha256$<iterations>$<salt hex>$<key hex>".
	settingPIN = "operator.pin"
	// settingLock holds the wrong-PIN count and the lockout (JSON, pinLock).
	settingLock = "operator.lock"
	// settingPINRule says whether the PIN in force meets the rule (JSON,
	// pinRuleMark). Absent: the PIN was set under the former rule.
	settingPINRule = "operator.pin.rule"
)

// pinRule is the version of the rule CheckPIN applies: 1 was 4 to 12
// digits; 2 is 6 to 12 digits, none easy to guess.
const pinRule = 2

// pinRuleMark records what the PIN in force is against the rule: checked
// when it is set, and at the first login of a PIN set under an older rule
// (only then is it known in clear).
type pinRuleMark struct {
	Rule    int        `json:"rule"`    // the rule it was checked against
	Problem PINProblem `json:"problem"` // 0: it meets that rule
}

// wellKnownPINs are common choices no pattern below catches: keypad
// shapes, mirrors, counting by tens, famous numbers.
var wellKnownPINs = []string{
	"123321", "321123", "456654", "654456", "789987", "987789", "147741", "159951", "357753",
	"159753", "159357", "753159", "357159", "951753", "147258", "147852", "741852", "852741",
	"258369", "963852", "369258", "147369", "963741", "789456", "456123", "321654", "123654",
	"123789", "789123", "102030", "10203040", "1020304050", "100200", "100200300", "112358", "11235813",
	"314159", "3141592", "31415926", "271828", "142857",
}

// CheckPIN says why pin cannot be a new operator PIN (a *PINRuleError), or nil.
func CheckPIN(pin string) error {
	if p := pinProblem(pin); p != 0 {
		e := &PINRuleError{Problem: p}
		if p == PINLength {
			e.Length = len(pin)
		}
		return e
	}
	return nil
}

// pinProblem is what is wrong with pin, or 0.
func pinProblem(pin string) PINProblem {
	switch {
	case len(pin) < PINMinDigits || len(pin) > PINMaxDigits:
		return PINLength
	case !allDigits(pin):
		return PINNotDigits
	case strings.Count(pin, pin[:1]) == len(pin):
		return PINOneDigit
	case inSequence(pin):
		return PINSequence
	case repeated(pin):
		return PINRepeats
	case slices.Contains(wellKnownPINs, pin):
		return PINWellKnown
	}
	return 0
}

// inSequence reports whether pin is digits going up or down by one (9
// wraps to 0), each once or each the same number of times: 123456,
// 654321, 890123, 112233, 111222.
func inSequence(pin string) bool {
	var digits []byte // the digits of each run of one digit
	var runs []int    // and the run's length
	for i := 0; i < len(pin); i++ {
		if i > 0 && pin[i] == pin[i-1] {
			runs[len(runs)-1]++
			continue
		}
		digits, runs = append(digits, pin[i]), append(runs, 1)
	}
	if len(digits) < 2 {
		return false
	}
	step := (digits[1] - digits[0] + 10) % 10
	if step != 1 && step != 9 {
		return false
	}
	for i := 1; i < len(digits); i++ {
		if (digits[i]-digits[i-1]+10)%10 != step || runs[i] != runs[0] {
			return false
		}
	}
	return true
}

// repeated reports whether pin is a group of digits said over: 121212,
// 123123, 12341234.
func repeated(pin string) bool {
	for n := 1; n <= len(pin)/2; n++ {
		if len(pin)%n == 0 && strings.Repeat(pin[:n], len(pin)/n) == pin {
			return true
		}
	}
	return false
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
//
// A lockout is not an end on the wall clock, which anyone who can reach
// the system's clock (or its time server) moves at will: it is the running
// time it still has to run, Left, which the Desk counts down on the
// monotonic clock while the program runs (lockClock) and writes back as it
// goes. Moving the wall clock, forward or back, changes nothing; a restart
// resumes what was left when it was last written (never less); a terminal
// switched off does not count down.
type pinLock struct {
	Failures int           `json:"failures"`        // wrong PINs since the last success or lockout
	Level    int           `json:"level,omitempty"` // lockouts since the last correct PIN (beyond LockoutLevels: until unlocked)
	Left     time.Duration `json:"left,omitempty"`  // running time the lockout in force still has to run
	// Until is the former format's end of a lockout on the wall clock:
	// read once (upgrade), never written.
	Until time.Time `json:"until,omitzero"`
}

// upgrade turns a lock state of the former format, whose lockout ended at
// a time of the wall clock, into a level-1 lockout of what was left of it
// at wall (at most LockoutDuration, as before).
func (l pinLock) upgrade(wall time.Time) pinLock {
	if l.Until.IsZero() {
		return l
	}
	if left := l.Until.Sub(wall); l.Level == 0 && l.Left == 0 && left > 0 {
		l.Level, l.Left = 1, min(left, LockoutDuration)
	}
	l.Until = time.Time{}
	return l
}

// locked is the lockout in force, or nil.
func (l pinLock) locked() *LockedError {
	switch {
	case l.Level > LockoutLevels:
		return &LockedError{Level: l.Level, UntilUnlock: true}
	case l.Left > 0:
		return &LockedError{Level: l.Level, Remaining: l.Left}
	}
	return nil
}

// loginOutcome is what a login attempt does: the lock state after it, the
// events for the operator log, and the answer (nil: logged in).
type loginOutcome struct {
	lock   pinLock
	events [][2]string // action, detail
	result error
}

// attempt decides a login attempt from the lock state before it and whether
// the PIN matched: a lockout refuses it unchecked; a correct PIN clears
// the failures and the escalation; the MaxPINFailures-th wrong PIN in a
// row locks at the next level.
func attempt(lock pinLock, matched bool) loginOutcome {
	if locked := lock.locked(); locked != nil {
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
		level := min(lock.Level+1, LockoutLevels+1)
		o.lock = pinLock{Level: level, Left: LockoutFor(level)}
		locked := o.lock.locked()
		o.result = locked
		o.events = append(o.events, [2]string{"locked", lockDetail(locked)})
	}
	return o
}

// lockDetail is the operator log's account of a lockout that begins.
func lockDetail(l *LockedError) string {
	if l.UntilUnlock {
		return fmt.Sprintf("level %d: %d more wrong PINs after %d lockouts: locked until starfortune operator unlock (or operator set-pin)",
			l.Level, MaxPINFailures, LockoutLevels)
	}
	return fmt.Sprintf("level %d of %d: %d wrong PINs in a row: locked for %s of running time", l.Level, LockoutLevels, MaxPINFailures, hms(l.Remaining))
}

// hms writes d as "5 min 00 s" or "23 h 59 min 59 s".
func hms(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d h %02d min %02d s", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d min %02d s", s/60, s%60)
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
	l.Until = time.Time{}
	v, _ := json.Marshal(l)
	return tx.PutSetting(settingLock, v)
}

// readRule is what the PIN in force is against the rule: nil when it
// meets it (or when there is no PIN).
func readRule(tx ReadTx) (*PINRuleError, error) {
	if _, ok, err := tx.Setting(settingPIN); err != nil || !ok {
		return nil, err
	}
	v, ok, err := tx.Setting(settingPINRule)
	if err != nil {
		return nil, err
	}
	var m pinRuleMark
	if ok {
		if err := json.Unmarshal(v, &m); err != nil {
			return nil, fmt.Errorf("%w: operator PIN rule mark: %v", ErrCorrupt, err)
		}
	}
	switch {
	case m.Rule < pinRule:
		return &PINRuleError{Problem: PINFormerRule}, nil
	case m.Problem != 0:
		return &PINRuleError{Problem: m.Problem}, nil
	}
	return nil, nil
}

func putRule(tx Tx, problem PINProblem) error {
	v, _ := json.Marshal(pinRuleMark{Rule: pinRule, Problem: problem})
	return tx.PutSetting(settingPINRule, v)
}
