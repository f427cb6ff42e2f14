package engine

import "errors"

// The errors the engine reports. Adapters wrap their own failures in these so
// callers (UI, CLI) can match them with errors.Is and choose what to say.
var (
	// ErrInsufficientFunds: the wallet cannot pay the stake or the payout.
	ErrInsufficientFunds = errors.New("insufficient funds")
	// ErrStakeClosed: every block of the emission for this stake is sold.
	ErrStakeClosed = errors.New("stake closed: all blocks of the emission are sold")
	// ErrUnknownTicket: a well-formed ticket that was never sold.
	ErrUnknownTicket = errors.New("unknown ticket")
	// ErrBadTicket: a ticket number that is malformed or fails its check digit.
	ErrBadTicket = errors.New("bad ticket number")
	// ErrBadAmount: an amount that is not a positive sum with at most two decimals.
	ErrBadAmount = errors.New("bad amount")
	// ErrBadStake: a stake other than 0,50 €, 1 € or 2 €.
	ErrBadStake = errors.New("bad stake")
	// ErrBadPlayer: an empty or unprintable player id.
	ErrBadPlayer = errors.New("bad player id")
	// ErrStorage: the store cannot be read or written (disk, corruption, lock).
	ErrStorage = errors.New("storage unavailable")
	// ErrInUse: another process holds the data directory.
	ErrInUse = errors.New("already running: data directory in use")
	// ErrCorrupt: stored data failed an integrity check.
	ErrCorrupt = errors.New("corrupted data")
	// ErrDiskFull: too little free space to record a sale safely.
	ErrDiskFull = errors.New("disk full")
	// ErrOutOfService: an integrity check failed; the terminal stops selling
	// until an operator repairs it (the error says what is wrong).
	ErrOutOfService = errors.New("terminal out of service")
	// ErrReveal: a reveal step out of order (wrong drop, slot, or finished unit).
	ErrReveal = errors.New("invalid reveal step")
)
