package engine

import "context"

// BlockInfo is what the store knows of a complete block besides its units.
type BlockInfo struct {
	Ref        BlockRef
	Size       uint32
	Commitment Hash
	Seed       Seed // secret until the block is exhausted: never show it before
	Cursor     Cursor
}

// Exhausted reports whether every unit of the block has been sold.
func (b BlockInfo) Exhausted() bool { return b.Cursor.Served >= b.Size }

// Store is what the engine needs of durable storage. The Badger adapter in
// storage/ implements it. Every Update is one atomic transaction, durable
// (synced to disk) when it returns nil.
type Store interface {
	View(ctx context.Context, fn func(ReadTx) error) error
	Update(ctx context.Context, fn func(Tx) error) error
	// PutBlock stores a drawn block; it becomes visible in Blocks only once
	// all of it is durable, so a block cut short by a crash is never served.
	PutBlock(ctx context.Context, b *Block) error
	// LoadBlock reads back a whole stored block, checking its integrity.
	LoadBlock(ctx context.Context, ref BlockRef) (*Block, error)
	Close() error
}

// ReadTx reads a consistent snapshot. Lookups of absent things return an
// error wrapping ErrUnknownTicket (records, units) or a zero value with
// ok=false (wallets, reveals).
type ReadTx interface {
	// Blocks lists the complete blocks, ordered by stake then number.
	Blocks() ([]BlockInfo, error)
	Unit(t Ticket) (Unit, error)
	Cursor(ref BlockRef) (Cursor, error)
	Record(t Ticket) (Record, error)
	// Records calls fn for the block's records in index order.
	Records(ref BlockRef, fn func(Record) error) error
	Wallet(player string) (w Wallet, ok bool, err error)
	// Wallets calls fn for every wallet, ordered by player.
	Wallets(fn func(Wallet) error) error
	// Ledger calls fn for the player's entries with Seq in [from, to],
	// ascending, or descending when from > to.
	Ledger(player string, from, to uint64, fn func(LedgerEntry) error) error
	Reveal(t Ticket) (rv Reveal, ok bool, err error)
	// Journal is the mark of the last journal entry written with the
	// store's data.
	Journal() (m JournalMark, ok bool, err error)
	// Setting reads a small named value (operator PIN hash, lockout state).
	Setting(name string) (v []byte, ok bool, err error)
	// OperatorEvents calls fn for the operator log's events with Seq in
	// [from, to], ascending, or descending when from > to.
	OperatorEvents(from, to uint64, fn func(OperatorEvent) error) error
}

// Tx is a read-write transaction.
type Tx interface {
	ReadTx
	PutCursor(ref BlockRef, c Cursor) error
	PutRecord(r Record) error
	PutWallet(w Wallet) error
	PutLedger(l LedgerEntry) error
	PutReveal(t Ticket, rv Reveal) error
	// PutReveals stores the reveals of len(rvs) consecutive tickets of one
	// block from first: a batch sold with its pucks chosen, every unit
	// shown at once. Reveal reads them back one by one.
	PutReveals(first Ticket, rvs []Reveal) error
	// PutJournal keeps the mark of the transaction's journal entry in the
	// store, so that a crash between the store's commit and the journal's
	// append can be repaired from the store at the next start.
	PutJournal(m JournalMark) error
	PutSetting(name string, v []byte) error
	PutOperatorEvent(e OperatorEvent) error
}
