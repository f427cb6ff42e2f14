package engine

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Players of a fleet (SPEC §10, Fleet): accounts, limits, breaks and the
// exclusion list are the central's, so that a player stopped at one kiosk
// is stopped at every other. A kiosk never waits for the network to sell:
// at login the central verifies card and PIN and reserves a lease, room
// under every limit in force for the player, summed over the whole fleet;
// the kiosk sells and credits within the lease, checked inside the sale's
// transaction, and renews it in the background before it runs out. The
// central keeps each player's open leases plus what the player used within
// every limit, under a lock on the player's row.

// LeaseRoom is a lease's room for one kind of limit.
type LeaseRoom struct {
	Kind LimitKind
	// Room is what the session may deposit, stake, or lose (stakes less
	// prizes) under the lease: for stakes and losses at most the lease's
	// size (renewals bring more); for deposits all that the deposit
	// limits leave (a deposit is one movement, of any size).
	Room Cents
	// Limit is the limit that binds the room, Max its amount in force and
	// Used what the fleet had used of it when the lease was granted (the
	// synced movements and the other open leases): what the player is
	// told when the room runs out. Zero Limit: the lease's size bound it,
	// not a limit (a renewal brings more).
	Limit LimitKey
	Max   Cents
	Used  Cents
}

// Bound reports whether the room is what is left under a limit, rather
// than the lease's size.
func (r LeaseRoom) Bound() bool { return r.Limit != (LimitKey{}) }

// Lease is room under a player's limits the central reserved for one
// session at one kiosk.
type Lease struct {
	ID      int64
	Player  string
	Granted time.Time     // the central's clock
	TTL     time.Duration // valid this long; the kiosk counts it from when it received it
	// Rooms has one room per kind of limit in force (deposits and stakes
	// always: their weekly limits are mandatory). A kind without a limit
	// has no room and no bound.
	Rooms []LeaseRoom
}

// Room is the lease's room of kind k, if k is bounded.
func (l Lease) Room(k LimitKind) (LeaseRoom, bool) {
	for _, r := range l.Rooms {
		if r.Kind == k {
			return r, true
		}
	}
	return LeaseRoom{}, false
}

// Lease revocations: why the central ended a lease.
const (
	RevokedBreak    = "break"    // the player took a break (at any kiosk, or an attendant)
	RevokedListed   = "listed"   // the holder was put on the exclusion list
	RevokedLimit    = "limit"    // a limit decreased: renew for the new room
	RevokedExpired  = "expired"  // its time ran out
	RevokedReturned = "returned" // returned, or renewed into another
)

// LeaseState is what the central says of one of a kiosk's leases.
type LeaseState struct {
	ID      int64
	Revoked string  // one of the Revoked* reasons; "" while the lease stands
	Account Account // the account as the central holds it now
}

// LeaseRevokedError is a renewal refused because the central ended the
// lease. It matches ErrLeaseRevoked.
type LeaseRevokedError struct{ Reason string }

func (e *LeaseRevokedError) Error() string { return fmt.Sprintf("%v: %s", ErrLeaseRevoked, e.Reason) }

// Unwrap makes errors.Is(err, ErrLeaseRevoked) true.
func (e *LeaseRevokedError) Unwrap() error { return ErrLeaseRevoked }

var (
	// ErrLeaseRevoked: the central ended the lease (LeaseRevokedError).
	ErrLeaseRevoked = errors.New("fleet: the central ended the session's lease")
	// ErrLeaseSpent: the session's lease is used up, or past its time,
	// and the central has not renewed it (it cannot be reached): no more
	// real-money play until it does.
	ErrLeaseSpent = errors.New("fleet: the session's lease is used up and the central cannot renew it")
)

// PlayerCentral is what a kiosk of a fleet needs of its central for the
// players' accounts. Every method is one short round trip; errors wrap
// the engine's (ErrCentralUnavailable when it cannot be reached).
type PlayerCentral interface {
	// PlayerLogin checks card and PIN, a wrong PIN counted towards the
	// card's lockout fleet-wide, refuses an account on a break or whose
	// holder is listed, and reserves a lease for a session. The account
	// has no PIN hash. Errors: *PlayerPINError, ErrCardLocked,
	// *ExcludedError, ErrListed, ErrUnknownCard, ErrAccountIncomplete.
	PlayerLogin(ctx context.Context, c Card, pin string) (Account, Lease, error)
	// RenewLease ends lease id and reserves the next for the same session
	// in one transaction, once the central holds the kiosk's movements
	// through movSeq (ErrSyncGap before). *LeaseRevokedError when the
	// central ended the lease for a break or a listing.
	RenewLease(ctx context.Context, id int64, movSeq uint64) (Lease, error)
	// ReturnLease ends lease id (logout): its unused room comes back,
	// once the central holds the kiosk's movements through movSeq.
	ReturnLease(ctx context.Context, id int64, movSeq uint64) error
	// LeaseStates is what the central says now of the kiosk's leases ids.
	LeaseStates(ctx context.Context, ids []int64) ([]LeaseState, error)
	// PlayerSetLimit and PlayerTakeBreak are the player's own changes at
	// the kiosk, made at the central for the whole fleet, with the lone
	// kiosk's rules (a decrease at once, an increase after the
	// cooling-off; a break never shortened); lease id is the session's,
	// the kiosk's proof that the player logged in there. A break ends
	// every lease of the player.
	PlayerSetLimit(ctx context.Context, id int64, k LimitKey, amount Cents) (PendingLimit, error)
	PlayerTakeBreak(ctx context.Context, id int64, b Break) (Exclusion, error)
	// PlayerLookup is card c's account as the central holds it, for
	// attendant actor at the kiosk, the player present: the PIN checked
	// and a wrong one counted as at a login; no lease reserved, the
	// account shown whatever its state. Errors: *PlayerPINError,
	// ErrCardLocked, ErrUnknownCard.
	PlayerLookup(ctx context.Context, c Card, pin, actor string) (FleetAccount, error)
}

// FleetAccount is a fleet account as the central holds it: its owner's
// `central players show`, an attendant's look-up at any kiosk.
type FleetAccount struct {
	Account Account       // no PIN hash
	Listed  bool          // its holder is on the exclusion list
	Leases  []PlayerLease // its open leases, oldest first
	// Usage is per limit in force, in LimitKeys order (a list of every
	// account leaves it out).
	Usage []LimitUsage
	// Funds is the balance of the player's wallet at each kiosk, from the
	// movements the kiosks synced, by kiosk (none at zero).
	Funds []KioskFunds
}

// PlayerLease is an open lease of an account: the room a session at one
// kiosk may use.
type PlayerLease struct {
	Lease   Lease
	Kiosk   string
	Expires time.Time
	Revoked string // "" while it stands, else RevokedBreak, RevokedListed or RevokedLimit
	// Deposited and Staked are what the movements pushed under it used of
	// its deposit and stake rooms (the loss room is used by the stakes).
	Deposited, Staked Cents
}

// LimitUsage is one limit in force of an account now: what its window
// counts over every kiosk, and what the open leases may still use of its
// kind. Max − Used − Outstanding is the room a lease would be granted.
type LimitUsage struct {
	Limit       LimitKey
	Max         Cents
	Used        Cents
	Outstanding Cents
}

// KioskFunds is what a player's wallet holds at one kiosk.
type KioskFunds struct {
	Kiosk   string
	Balance Cents
}
