package engine

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// The errors the engine reports. Adapters wrap their own failures in these so
// callers (UI, CLI) can match them with errors.Is and errors.As and choose
// what to say, in the user's language: the texts here are for logs, never
// shown to a player as they are, and never parsed.
var (
	// ErrInsufficientFunds: the wallet cannot pay the stake or the payout.
	ErrInsufficientFunds = errors.New("insufficient funds")
	// ErrStakeClosed: every block of the emission for this stake is sold.
	ErrStakeClosed = errors.New("stake closed: all blocks of the emission are sold")
	// ErrUnknownTicket: a well-formed ticket that was never sold.
	ErrUnknownTicket = errors.New("unknown ticket")
	// ErrBadTicket: a ticket number that is malformed or fails its check
	// digit; a *TicketError says which part is wrong.
	ErrBadTicket = errors.New("bad ticket number")
	// ErrBadAmount: an amount that is not a positive sum with at most two
	// decimals; an *AmountError says why.
	ErrBadAmount = errors.New("bad amount")
	// ErrBadStake: a stake other than 0,50 €, 1 € or 2 €.
	ErrBadStake = errors.New("bad stake")
	// ErrBadPlayer: an empty or unprintable player id.
	ErrBadPlayer = errors.New("bad player id")
	// ErrBadBatch: a number of units to sell at once outside 1 to MaxBatch.
	ErrBadBatch = errors.New("bad batch size")
	// ErrBadConfig: an emission the engine cannot sell (see Config).
	ErrBadConfig = errors.New("bad emission config")
	// ErrStorage: the store cannot be read or written (disk, corruption, lock).
	ErrStorage = errors.New("storage unavailable")
	// ErrInUse: another process holds the data directory.
	ErrInUse = errors.New("already running: data directory in use")
	// ErrCorrupt: stored data failed an integrity check.
	ErrCorrupt = errors.New("corrupted data")
	// ErrDiskFull: too little free space to record a sale safely.
	ErrDiskFull = errors.New("disk full")
	// ErrOutOfService: an integrity check failed; the terminal stops selling
	// until an operator repairs it. An *OutOfServiceError says what is wrong.
	ErrOutOfService = errors.New("terminal out of service")
	// ErrReveal: a reveal step out of order (wrong drop, slot, or finished unit).
	ErrReveal = errors.New("invalid reveal step")
	// ErrOffline: a kiosk of a fleet has not reached its central for longer
	// than its offline grace; it sells again by itself once it has. An
	// *OfflineError says since when.
	ErrOffline = errors.New("terminal offline: the central has not been reached for too long")
	// ErrNeedsCentral: a kiosk of a fleet opened without its central's
	// address: it reads its history but sells and syncs nothing.
	ErrNeedsCentral = errors.New("this terminal is a kiosk of a fleet: it sells and syncs only with its central's address (--central URL or the settings' [central] url)")
	// ErrDemoOnly: the data directory is the demo's (its key is a file
	// beside the data, Config.DemoOnly): only the demo wallet plays, and no
	// money is credited or paid out.
	ErrDemoOnly = errors.New("demo data directory: real-money play refused (its key is the demo's key file)")
	// ErrWrongPassphrase: the passphrase given does not unlock the data
	// directory's key.
	ErrWrongPassphrase = errors.New("wrong passphrase: it does not unlock the data directory's key")
)

// OfflineError is a sale refused by a kiosk of a fleet out of touch with
// its central. It matches ErrOffline.
type OfflineError struct {
	Since time.Time     // the last round trip with the central (zero: never)
	Grace time.Duration // the offline grace (0: strict, a recent round trip needed)
}

func (e *OfflineError) Error() string {
	since := "never reached"
	if !e.Since.IsZero() {
		since = "last reached " + e.Since.UTC().Format(time.RFC3339)
	}
	return fmt.Sprintf("%v (%s, offline grace %s)", ErrOffline, since, e.Grace)
}

// Unwrap makes errors.Is(err, ErrOffline) true.
func (e *OfflineError) Unwrap() error { return ErrOffline }

// TicketProblem is what is wrong with a ticket number.
type TicketProblem int

// The ways a ticket number can be wrong, in the order they are checked.
const (
	TicketNotDigits  TicketProblem = iota + 1 // characters other than digits, dashes and spaces
	TicketLength                              // not 16 digits
	TicketCheckDigit                          // the check digit does not match: a typing error
	TicketNotOurs                             // well formed, but no emission, stake, block or unit of this game
)

var ticketProblems = map[TicketProblem]string{
	TicketNotDigits: "only digits and dashes are allowed", TicketLength: "a ticket has 16 digits (EE-SSS-BBBB-IIIIII-C)",
	TicketCheckDigit: "wrong check digit", TicketNotOurs: "no emission, stake, block or unit of this game",
}

// TicketError is a ticket number refused by ParseTicket. It matches ErrBadTicket.
type TicketError struct {
	Input   string
	Problem TicketProblem
	Digits  int // the digits typed (TicketLength)
}

func (e *TicketError) Error() string {
	return fmt.Sprintf("%v %q: %s", ErrBadTicket, e.Input, ticketProblems[e.Problem])
}

// Unwrap makes errors.Is(err, ErrBadTicket) true.
func (e *TicketError) Unwrap() error { return ErrBadTicket }

// AmountProblem is what is wrong with an amount typed.
type AmountProblem int

// The ways an amount can be wrong.
const (
	AmountNotANumber  AmountProblem = iota + 1 // not figures with at most one decimal separator
	AmountDecimals                             // more than two decimals
	AmountNotPositive                          // zero (or less)
	AmountTooLarge                             // beyond MaxAmount
)

var amountProblems = map[AmountProblem]string{
	AmountNotANumber: "not an amount in euros", AmountDecimals: "more than two decimals",
	AmountNotPositive: "must be more than zero", AmountTooLarge: "more than the largest amount",
}

// AmountError is an amount refused by ParseAmount or by a movement of
// funds. It matches ErrBadAmount.
type AmountError struct {
	Input   string // as typed ("" when the amount came as cents)
	Problem AmountProblem
}

func (e *AmountError) Error() string {
	return fmt.Sprintf("%v %q: %s", ErrBadAmount, e.Input, amountProblems[e.Problem])
}

// Unwrap makes errors.Is(err, ErrBadAmount) true.
func (e *AmountError) Unwrap() error { return ErrBadAmount }

// PINError is a wrong operator PIN that did not yet lock the panel. It
// matches ErrBadPIN.
type PINError struct {
	Left int // wrong PINs still allowed before the lockout
}

func (e *PINError) Error() string { return fmt.Sprintf("%v (%d attempts left)", ErrBadPIN, e.Left) }

// Unwrap makes errors.Is(err, ErrBadPIN) true.
func (e *PINError) Unwrap() error { return ErrBadPIN }

// LockedError is a login refused during a lockout. It matches ErrLocked.
type LockedError struct {
	// Level is the lockout's rank since the last correct PIN: 1 to
	// LockoutLevels end by themselves (LockoutFor), the next one does not.
	Level int
	// Remaining is the running time of the terminal before the lockout
	// ends (0 with UntilUnlock). It runs only while the program runs, on
	// the monotonic clock: moving the wall clock does not shorten it.
	Remaining time.Duration
	// UntilUnlock: the last level, which only `starfortune operator
	// unlock` or `operator set-pin` end.
	UntilUnlock bool
}

func (e *LockedError) Error() string {
	if e.UntilUnlock {
		return fmt.Sprintf("%v (lockout %d): locked until starfortune operator unlock", ErrLocked, e.Level)
	}
	return fmt.Sprintf("%v (lockout %d of %d): try again in %s", ErrLocked, e.Level, LockoutLevels, hms(e.Remaining))
}

// Unwrap makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Unwrap() error { return ErrLocked }

// Describe says which lockout it is and what is left of it: "lockout 2 of
// 3, 42 min 10 s of running time left", "lockout 4, until unlocked".
func (e *LockedError) Describe() string {
	if e.UntilUnlock {
		return fmt.Sprintf("lockout %d, until unlocked", e.Level)
	}
	return fmt.Sprintf("lockout %d of %d, %s of running time left", e.Level, LockoutLevels, hms(e.Remaining))
}

// OutOfServiceError is why the terminal stopped selling. It matches
// ErrOutOfService.
type OutOfServiceError struct {
	Problems []string // what the integrity checks found, for staff
	// StoreBehind: the store lost acknowledged changes that its journal
	// holds; recovering from the journal (Recover) restores them.
	StoreBehind bool
}

func (e *OutOfServiceError) Error() string {
	return fmt.Sprintf("%v: %s", ErrOutOfService, strings.Join(e.Problems, "; "))
}

// Unwrap makes errors.Is(err, ErrOutOfService) true.
func (e *OutOfServiceError) Unwrap() error { return ErrOutOfService }
