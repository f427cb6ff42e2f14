package engine

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// A fleet of kiosks sells one emission drawn by a central (see the README's
// "Fleet"). The central hands out packs: contiguous ranges of one block's
// positions, with their units, salts and a Merkle range proof against the
// block's published root. The kiosk sells from its packs locally and pushes
// its sales and ledger movements back. These are the domain types and the
// interface the kiosk needs; central/ implements it on PostgreSQL.

// Errors of the fleet, matched with errors.Is.
var (
	// ErrNoPack: the central has no unit left to hand out at this stake.
	ErrNoPack = errors.New("fleet: no unit left to hand out at this stake")
	// ErrSyncGap: a push does not continue the kiosk's sequence (a sale or a
	// movement is missing before it); the kiosk must push from the
	// central's last sequence number on (KioskState).
	ErrSyncGap = errors.New("fleet: pushed sequence does not continue the central's")
	// ErrUnknownKiosk: the connection's role is not a kiosk of the fleet.
	ErrUnknownKiosk = errors.New("fleet: not a kiosk of this central")
	// ErrCentralUnavailable: the central cannot be reached or failed.
	ErrCentralUnavailable = errors.New("fleet: central unavailable")
	// ErrPackState: a pack operation that its state forbids (release of a
	// pack not held, void of a pack of a closed block, unknown serial).
	ErrPackState = errors.New("fleet: pack state forbids it")
	// ErrLookupLimit: the kiosk has looked up, within a day, as many tickets
	// of blocks in play sold by other kiosks as the central allows. Looking
	// up every sold ticket of a block in play would add up the prizes paid
	// from it so far, and so (the table being public) the value left in it;
	// a sold ticket of a closed block, or one the kiosk sold, is not counted.
	ErrLookupLimit = errors.New("fleet: too many look-ups of tickets sold by other kiosks today")
	// ErrClaimRefused: the central refused a pack for now: the kiosk holds
	// enough unsold units at the stake, claims too often, or another
	// kiosk's claim is cutting the block. Not an outage: the kiosk sells
	// what it holds and asks again at a later round.
	ErrClaimRefused = errors.New("fleet: claim refused by the central for now")
	// ErrPushRefused: a push larger (rows or bytes) than the central takes.
	ErrPushRefused = errors.New("fleet: push refused by the central: too large")
	// ErrJournalBehind: the central anchored a later journal head for
	// this kiosk at an earlier heartbeat than the one it reports now (or
	// the same entry with another hash): its history was rolled back or
	// rewritten. The kiosk stops selling; the central's audit lists it.
	ErrJournalBehind = errors.New("fleet: the journal is behind the head the central anchored for this kiosk")
	// ErrPackTooBig: the central handed out a pack of more units than a
	// kiosk holds (MaxPackSize); nothing of it is kept.
	ErrPackTooBig = errors.New("fleet: pack larger than a kiosk holds")
)

// Pack is a range of positions [First, First+Count) of one block, handed to
// one kiosk, like a booklet of scratch cards. Its serial names its block.
type Pack struct {
	Serial string   // "01-050-0003-P00007": block, then the pack's number in it
	Block  BlockRef // the block it is cut from
	Size   uint32   // the block's size: the Merkle tree's leaf count
	First  uint32
	Units  []byte // Count units of UnitSize bytes, positions First…
	Salts  []Hash // one per unit
	Proof  []Hash // RangeProofNodes(First, First+Count, Size) hashes
	Root   Hash   // the block's published commitment
}

// MaxPackSize is the most units a pack may hold: a kiosk stores a pack it
// claims in one transaction, which its store refuses above about 17 000
// units (36 bytes each, its salt and outcome), and keeps it in memory while
// it sells from it. The central cuts no larger pack; a kiosk refuses one.
const MaxPackSize = 10_000

// Count is the number of units in the pack.
func (p Pack) Count() uint32 { return uint32(len(p.Units) / UnitSize) }

// Ticket is the ticket of the pack's i-th unit.
func (p Pack) Ticket(i uint32) Ticket { return Ticket{Block: p.Block, Index: p.First + i} }

// Unit decodes the pack's i-th unit.
func (p Pack) Unit(i uint32) (Unit, error) {
	return DecodeUnit(p.Units[i*UnitSize : (i+1)*UnitSize])
}

// Verify checks the pack against its block's root: every unit valid, one
// salt per unit, and the range proof leading from the salted leaves to the
// root. A kiosk sells nothing from a pack that fails it.
func (p Pack) Verify() error {
	if len(p.Units)%UnitSize != 0 || len(p.Units) == 0 || len(p.Salts) != int(p.Count()) {
		return fmt.Errorf("pack %s: %d unit bytes and %d salts: %w", p.Serial, len(p.Units), len(p.Salts), ErrBadProof)
	}
	if uint64(p.First)+uint64(p.Count()) > uint64(p.Size) || p.Size > BlockSize {
		return fmt.Errorf("pack %s: positions %d+%d beyond a block of %d: %w", p.Serial, p.First, p.Count(), p.Size, ErrBadProof)
	}
	leaves := make([]Hash, p.Count())
	for i := range leaves {
		u, err := p.Unit(uint32(i))
		if err != nil {
			return fmt.Errorf("pack %s: unit %d: %w", p.Serial, i, err)
		}
		leaves[i] = LeafHash(p.Block, p.First+uint32(i), p.Salts[i], u)
	}
	if err := VerifyRange(p.Root, uint64(p.Size), uint64(p.First), leaves, p.Proof); err != nil {
		return fmt.Errorf("pack %s: %w", p.Serial, err)
	}
	return nil
}

// FleetSale is a unit sold by a kiosk, as pushed to the central and as the
// central's look-up returns it.
type FleetSale struct {
	Seq      uint64 // the kiosk's sale sequence number: 1, 2, … without gap
	Kiosk    string // set by the central from the pushing role
	Pack     string // serial of the pack the unit came from
	Ticket   Ticket
	Time     time.Time
	Player   string
	Unit     Unit
	Revealed bool // the reveal had ended when pushed
}

// FleetMovement is one wallet ledger entry of a kiosk, pushed to the central.
type FleetMovement struct {
	Seq    uint64 // the kiosk's movement sequence number: 1, 2, … without gap
	ID     string // idempotency key, unique per kiosk (e.g. "player/ledger seq")
	Player string
	Kind   LedgerKind
	Debit  Cents
	Credit Cents
	Ticket *Ticket // the unit sold, for LedgerSale; the prize paid, for a hand pay's LedgerPayout
	Time   time.Time
	// Lease is the player's lease the movement was made under (0: none,
	// a wallet without a fleet account): the central counts it against
	// that lease's room (fleet_players.go).
	Lease int64
	// Hand is, for the payout of a held prize paid by hand, what the
	// fleet's register keeps of it; nil for any other movement.
	Hand *HandPay
}

// HandPay is how a held prize was paid by hand (Accounts.PayHeld): the
// identity document the attendant saw and who checked it, who paid it
// (the payout's actor), how, and the transfer's or cheque's reference.
type HandPay struct {
	Document  string `json:"document"`
	CheckedBy string `json:"checked_by"`
	PaidBy    string `json:"paid_by"`
	Method    string `json:"method"`
	Reference string `json:"reference"`
}

// PushResult is what the central did with a push: new rows applied, rows
// it already had (a re-push after a lost answer), and rows it refused and
// recorded as conflicts for `central audit` (a position sold twice, a
// position outside the kiosk's packs, a voided pack).
type PushResult struct {
	Applied, Duplicates, Conflicts int
	LastSeq                        uint64 // the central's last sequence number for this kiosk after the push
}

// PackState is what the central knows of one of a kiosk's packs.
type PackState struct {
	Serial       string
	Block        BlockRef
	First, Count uint32
	Status       string // "claimed", "returned" (remainder released) or "voided"
	Sold         uint32 // sales of the pack the central holds
	Next         uint32 // one past the highest sold position, First if none
}

// KioskState is what the central knows of a kiosk: what a kiosk restored
// from a backup asks first, so it never sells a known position again.
type KioskState struct {
	Kiosk           string
	LastSaleSeq     uint64
	LastMovementSeq uint64
	Packs           []PackState
}

// Central is what a kiosk in fleet mode needs of the central. Every method
// is one short round trip; errors wrap the Err* values above (or
// ErrUnknownTicket, ErrBadStake).
type Central interface {
	// ClaimPack hands the kiosk a new pack at the given stake: the next
	// positions of the open block. ErrClaimRefused while the kiosk holds
	// enough unsold units or claims too often. The caller must Verify it
	// before selling from it.
	ClaimPack(ctx context.Context, stake Cents) (Pack, error)
	// FetchPack sends again a pack the kiosk holds (the part it keeps after
	// a release): after a claim whose answer was lost, which KioskState
	// lists, or on a kiosk restored from a backup. Verify it as a claim.
	FetchPack(ctx context.Context, serial string) (Pack, error)
	// PushSales applies the kiosk's sales idempotently, in Seq order.
	PushSales(ctx context.Context, sales []FleetSale) (PushResult, error)
	// PushMovements applies the kiosk's ledger movements idempotently.
	PushMovements(ctx context.Context, ms []FleetMovement) (PushResult, error)
	// ReleasePack returns the unsold remainder [from, end) of a pack the
	// kiosk holds; the central voids it, for its outcomes went to this
	// kiosk. It returns the voided remainder's serial ("" when nothing
	// remained).
	ReleasePack(ctx context.Context, serial string, from uint32) (string, error)
	// Heartbeat tells the central the kiosk is alive, how many of its
	// sales and movements the central lacks (backlog) and its journal's
	// head, which the central anchors; it returns the central's clock, or
	// ErrJournalBehind for a head behind the one anchored before.
	Heartbeat(ctx context.Context, backlog int, head JournalHead) (time.Time, error)
	// JournalAnchor is the last journal head the central anchored for
	// this kiosk (zero before its first heartbeat): what recover checks a
	// journal against when the store is lost.
	JournalAnchor(ctx context.Context) (JournalHead, error)
	// FleetView is the fleet as support staff watch it (counts only).
	FleetView(ctx context.Context) (FleetView, error)
	// LookupTicket finds a sold unit of the fleet.
	LookupTicket(ctx context.Context, t Ticket) (FleetSale, error)
	// KioskState is what the central knows of this kiosk.
	KioskState(ctx context.Context) (KioskState, error)
	Close()
}
