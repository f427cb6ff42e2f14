package engine

import (
	"context"
	"errors"
	"time"
)

// ErrNotFleet: the terminal is a lone kiosk; it has no fleet to show.
var ErrNotFleet = errors.New("fleet: this terminal is not a kiosk of a fleet")

// How recent a kiosk's last call to the central must be for support staff
// to see it online or late: a kiosk calls at least once per heartbeat (30 s
// by default, ±20 %), so a kiosk is online while its last call is within
// two heartbeats and a margin, late after that (a call or two lost: the
// network, a restart), lost after LostAfter (switched off, cut off, broken:
// someone should look).
const (
	OnlineWithin = 75 * time.Second
	LostAfter    = 10 * time.Minute
)

// KioskStatus is a kiosk's state as the age of its last call shows it.
type KioskStatus int

const (
	KioskNeverSeen KioskStatus = iota
	KioskOnline
	KioskLate
	KioskLost
)

func (s KioskStatus) String() string {
	return [...]string{"never seen", "online", "late", "lost"}[s]
}

// Status is the kiosk's state at the central's clock at.
func (k KioskView) Status(at time.Time) KioskStatus {
	switch age := at.Sub(k.LastSeen); {
	case k.LastSeen.IsZero():
		return KioskNeverSeen
	case age <= OnlineWithin:
		return KioskOnline
	case age <= LostAfter:
		return KioskLate
	default:
		return KioskLost
	}
}

// FleetView is the fleet as support staff watch it, on the operator
// panel's fleet tab and with `central kiosks`: which kiosks live, what each
// holds, how far each stake has sold. It counts positions only: nothing in
// it tells an outcome or a prize of a block in play (sold, held and left
// are counts of units whatever they hold).
type FleetView struct {
	At     time.Time // the central's clock when it was read
	Kiosks []KioskView
	Stakes []StakeProgress // in stake order
}

// KioskView is one kiosk of the fleet as the central knows it.
type KioskView struct {
	ID       string
	LastSeen time.Time // its last call to the central; zero: never
	// Backlog is the sales and movements the kiosk held that the central
	// did not have yet, as the kiosk said at its last heartbeat.
	Backlog   int
	BacklogAt time.Time   // when it said so (zero: never)
	Held      []HeldStake // packs it holds, per stake, in stake order
	Sales     uint64      // units it sold that the central has
}

// Online says whether the kiosk called the central within OnlineWithin of at.
func (k KioskView) Online(at time.Time) bool { return k.Status(at) == KioskOnline }

// HeldStake is what a kiosk holds at one stake: its packs not yet sold out
// (nor returned or voided) and how many of their units it has not sold.
type HeldStake struct {
	Stake Cents
	Packs int
	Left  uint64
}

// StakeProgress is how far the emission at one stake has sold across the
// fleet: positions of all its blocks, cut into packs, sold, voided.
type StakeProgress struct {
	Stake     Cents
	Blocks    int // blocks of the emission at this stake
	Closed    int // those closed (every position sold or voided; seed revealed)
	Size      uint64
	HandedOut uint64 // positions cut into packs
	Sold      uint64
	Voided    uint64
}

// FleetView reads the fleet from the central (ErrNotFleet for a lone
// kiosk).
func (r *Reports) FleetView(ctx context.Context) (FleetView, error) {
	if r.central == nil {
		return FleetView{}, ErrNotFleet
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return r.central.FleetView(ctx)
}

// InFleet says whether the terminal is a kiosk of a fleet.
func (r *Reports) InFleet() bool { return r.central != nil }
