package engine

import (
	"crypto/sha256"
	"fmt"
	"time"
)

// Record is one sold unit as the history keeps it: what was sold, to whom,
// when, and the money it moved. The records of a block form a hash chain in
// serving order (each holds the hash of the one before), whose head is kept
// with the block's cursor, so a modified record is detected.
type Record struct {
	Ticket        Ticket
	Player        string
	Time          time.Time
	Unit          Unit
	BalanceBefore Cents
	BalanceAfter  Cents
	LedgerSeq     uint64 // the player's ledger entry that settled the sale
	Prev          Hash   // hash of the block's previous record; zero for index 0
}

// Stake is what the unit cost.
func (r Record) Stake() Cents { return r.Ticket.Block.Stake }

// Prize is the unit's global prize.
func (r Record) Prize() Cents { return r.Unit.Prize(r.Stake()) }

// MarshalBinary is the record's canonical encoding.
func (r Record) MarshalBinary() ([]byte, error) {
	return r.AppendBinary(make([]byte, 0, 96+len(r.Player)))
}

// AppendBinary appends the record's canonical encoding to b.
func (r Record) AppendBinary(b []byte) ([]byte, error) {
	e := encoder{b: b}
	e.u8(codecVersion)
	e.ticket(r.Ticket)
	e.time(r.Time)
	u := r.Unit.Encode()
	e.bytes(u[:])
	e.i64(int64(r.BalanceBefore))
	e.i64(int64(r.BalanceAfter))
	e.u64(r.LedgerSeq)
	e.bytes(r.Prev[:])
	e.str(r.Player)
	return e.b, nil
}

// UnmarshalBinary decodes and validates a record.
func (r *Record) UnmarshalBinary(b []byte) error {
	d := decoder{b: b}
	d.version("record")
	r.Ticket = d.ticket()
	r.Time = d.time()
	unit := d.take(UnitSize)
	r.BalanceBefore = Cents(d.i64())
	r.BalanceAfter = Cents(d.i64())
	r.LedgerSeq = d.u64()
	r.Prev = d.hash()
	r.Player = d.str()
	if err := d.done("record"); err != nil {
		return err
	}
	var err error
	r.Unit, err = DecodeUnit(unit)
	return err
}

// Hash is the SHA-256 of the record's canonical encoding.
func (r Record) Hash() Hash {
	b, _ := r.MarshalBinary()
	return sha256.Sum256(b)
}

// LedgerKind says what moved a wallet's money.
type LedgerKind uint8

// The ledger entry kinds.
const (
	LedgerGrant  LedgerKind = iota + 1 // demo funds given to the demo wallet
	LedgerCredit                       // cash-in by an operator
	LedgerPayout                       // cash-out by an operator
	LedgerSale                         // a unit sold: stake debited, prize credited
)

func (k LedgerKind) String() string {
	switch k {
	case LedgerGrant:
		return "grant"
	case LedgerCredit:
		return "credit"
	case LedgerPayout:
		return "payout"
	case LedgerSale:
		return "sale"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// LedgerEntry is one movement of a wallet. A player's entries are numbered
// from 1 and hash-chained; the wallet keeps the head.
type LedgerEntry struct {
	Player  string
	Seq     uint64
	Time    time.Time
	Kind    LedgerKind
	Debit   Cents
	Credit  Cents
	Balance Cents  // after the movement
	Ticket  Ticket // the unit sold, for LedgerSale
	Actor   string // who did it: "cli", "operator:<id>", the kiosk
	Prev    Hash
}

// MarshalBinary is the entry's canonical encoding.
func (l LedgerEntry) MarshalBinary() ([]byte, error) {
	return l.AppendBinary(make([]byte, 0, 112+len(l.Player)+len(l.Actor)))
}

// AppendBinary appends the entry's canonical encoding to b.
func (l LedgerEntry) AppendBinary(b []byte) ([]byte, error) {
	e := encoder{b: b}
	e.u8(codecVersion)
	e.str(l.Player)
	e.u64(l.Seq)
	e.time(l.Time)
	e.u8(uint8(l.Kind))
	e.i64(int64(l.Debit))
	e.i64(int64(l.Credit))
	e.i64(int64(l.Balance))
	e.ticket(l.Ticket)
	e.str(l.Actor)
	e.bytes(l.Prev[:])
	return e.b, nil
}

// UnmarshalBinary decodes a ledger entry.
func (l *LedgerEntry) UnmarshalBinary(b []byte) error {
	d := decoder{b: b}
	d.version("ledger entry")
	l.Player = d.str()
	l.Seq = d.u64()
	l.Time = d.time()
	l.Kind = LedgerKind(d.u8())
	l.Debit = Cents(d.i64())
	l.Credit = Cents(d.i64())
	l.Balance = Cents(d.i64())
	l.Ticket = d.ticket()
	l.Actor = d.str()
	l.Prev = d.hash()
	if err := d.done("ledger entry"); err != nil {
		return err
	}
	if l.Kind < LedgerGrant || l.Kind > LedgerSale {
		return fmt.Errorf("%w: ledger kind %d", ErrCorrupt, l.Kind)
	}
	return nil
}

// Hash is the SHA-256 of the entry's canonical encoding.
func (l LedgerEntry) Hash() Hash {
	b, _ := l.MarshalBinary()
	return sha256.Sum256(b)
}

// Wallet is a player's funds: the balance, the head of the ledger chain, and
// the player's last unit (so "Dernière partie" is one read, whatever the
// history's size).
type Wallet struct {
	Player  string
	Balance Cents
	Seq     uint64 // number of ledger entries
	Head    Hash   // hash of the last ledger entry
	HasLast bool
	Last    Ticket
}

// MarshalBinary encodes the wallet.
func (w Wallet) MarshalBinary() ([]byte, error) {
	e := encoder{b: make([]byte, 0, 72+len(w.Player))}
	e.u8(codecVersion)
	e.str(w.Player)
	e.i64(int64(w.Balance))
	e.u64(w.Seq)
	e.bytes(w.Head[:])
	var has uint8
	if w.HasLast {
		has = 1
	}
	e.u8(has)
	e.ticket(w.Last)
	return e.b, nil
}

// UnmarshalBinary decodes a wallet.
func (w *Wallet) UnmarshalBinary(b []byte) error {
	d := decoder{b: b}
	d.version("wallet")
	w.Player = d.str()
	w.Balance = Cents(d.i64())
	w.Seq = d.u64()
	w.Head = d.hash()
	w.HasLast = d.u8() == 1
	w.Last = d.ticket()
	return d.done("wallet")
}

// Cursor is how far a block has sold: Served units (the next to serve is at
// index Served) and the hash of the last record sold from it.
type Cursor struct {
	Served uint32
	Head   Hash
}

// MarshalBinary encodes the cursor.
func (c Cursor) MarshalBinary() ([]byte, error) {
	e := encoder{b: make([]byte, 0, 37)}
	e.u8(codecVersion)
	e.u32(c.Served)
	e.bytes(c.Head[:])
	return e.b, nil
}

// UnmarshalBinary decodes a cursor.
func (c *Cursor) UnmarshalBinary(b []byte) error {
	d := decoder{b: b}
	d.version("cursor")
	c.Served = d.u32()
	c.Head = d.hash()
	return d.done("cursor")
}

// NoSlot marks a puck not chosen yet.
const NoSlot = -1

// Reveal is how far the player has watched a unit: the slot chosen for each
// drop and whether each BONUS step's GO was pressed. It is saved at every
// step so an interrupted unit resumes where it stopped.
type Reveal struct {
	Slots [2]int
	Go    [2]bool
}

// NewReveal is the progress of a unit nobody has started watching.
func NewReveal() Reveal { return Reveal{Slots: [2]int{NoSlot, NoSlot}} }

// StepKind is what the player must do next.
type StepKind int

// The steps of a unit's reveal.
const (
	StepPick StepKind = iota // choose one of three pucks
	StepGo                   // press GO on the BONUS step
	StepDone                 // the unit has been fully shown
)

// Step is the next thing to do in a reveal: Kind for drop Drop (0 or 1).
type Step struct {
	Kind StepKind
	Drop int
}

// Next is the step the player is at for unit u.
func (rv Reveal) Next(u Unit) Step {
	for i := 0; i < 2; i++ {
		if rv.Slots[i] == NoSlot {
			return Step{StepPick, i}
		}
		if u.Drops[i].Dest.Bonus && !rv.Go[i] {
			return Step{StepGo, i}
		}
	}
	return Step{Kind: StepDone, Drop: 1}
}

// MarshalBinary encodes the reveal in four bytes.
func (rv Reveal) MarshalBinary() ([]byte, error) { return rv.AppendBinary(make([]byte, 0, 4)) }

// AppendBinary appends the reveal's four bytes to b.
func (rv Reveal) AppendBinary(b []byte) ([]byte, error) {
	var v [4]byte
	for i := 0; i < 2; i++ {
		v[i] = byte(int8(rv.Slots[i]))
		if rv.Go[i] {
			v[2+i] = 1
		}
	}
	return append(b, v[:]...), nil
}

// UnmarshalBinary decodes a reveal.
func (rv *Reveal) UnmarshalBinary(b []byte) error {
	if len(b) != 4 {
		return fmt.Errorf("%w: reveal of %d bytes", ErrCorrupt, len(b))
	}
	for i := 0; i < 2; i++ {
		rv.Slots[i] = int(int8(b[i]))
		if rv.Slots[i] < NoSlot || rv.Slots[i] >= NumSlots {
			return fmt.Errorf("%w: reveal slot %d", ErrCorrupt, rv.Slots[i])
		}
		rv.Go[i] = b[2+i] == 1
	}
	return nil
}
