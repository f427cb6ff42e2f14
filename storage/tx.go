package storage

import (
	"bytes"
	"context"
	"encoding"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"starfortune/engine"
)

// View runs fn on a consistent snapshot. fn's own errors come back unchanged.
func (s *Store) View(ctx context.Context, fn func(engine.ReadTx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var fnErr error
	err := s.db.View(func(txn *badger.Txn) error {
		fnErr = fn(&tx{s: s, txn: txn})
		return fnErr
	})
	if err != nil && fnErr == nil {
		return storageErr("read", err)
	}
	return err
}

// Update runs fn in one transaction, committed atomically and synced to disk
// before Update returns nil. If fn fails nothing is written, and fn's error
// comes back unchanged; a failed commit (full disk, transaction too big)
// wraps engine.ErrStorage.
func (s *Store) Update(ctx context.Context, fn func(engine.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.disk.check(); err != nil {
		return err
	}
	var fnErr error
	err := s.db.Update(func(txn *badger.Txn) error {
		fnErr = fn(&tx{s: s, txn: txn})
		return fnErr
	})
	if err != nil && fnErr == nil {
		return storageErr("commit", err)
	}
	return err
}

func storageErr(op string, err error) error {
	return fmt.Errorf("%w: %s: %w", engine.ErrStorage, op, err)
}

// tx is both engine.ReadTx (in View) and engine.Tx (in Update).
type tx struct {
	s   *Store
	txn *badger.Txn
}

var _ engine.Tx = (*tx)(nil)

// get decodes the value at key into v; ok is false if there is none.
func (t *tx) get(key []byte, v encoding.BinaryUnmarshaler) (ok bool, err error) {
	item, err := t.txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return false, nil
	}
	if err != nil {
		return false, storageErr("read", err)
	}
	return true, item.Value(v.UnmarshalBinary)
}

func (t *tx) put(key []byte, v encoding.BinaryMarshaler) error {
	b, err := v.MarshalBinary()
	if err != nil {
		return err
	}
	if err := t.txn.Set(key, b); err != nil {
		return storageErr("write", err)
	}
	return nil
}

// scan calls fn for each key under prefix, in key order, or in reverse from
// seek. Values are small and live in the LSM tree, so prefetching them
// (which helps values in the value log) would only add goroutines.
func (t *tx) scan(prefix, seek []byte, reverse bool, fn func(key []byte, item *badger.Item) error) error {
	it := t.txn.NewIterator(badger.IteratorOptions{Prefix: prefix, Reverse: reverse})
	defer it.Close()
	if seek == nil {
		seek = prefix
	}
	for it.Seek(seek); it.Valid(); it.Next() {
		item := it.Item()
		if err := fn(item.Key(), item); err == errEnd {
			return nil
		} else if err != nil {
			return err
		}
	}
	return nil
}

// Blocks lists the complete blocks in key order: emission, then stake, then
// number (so by stake then number within an emission), each with its cursor.
func (t *tx) Blocks() ([]engine.BlockInfo, error) {
	var out []engine.BlockInfo
	err := t.scan([]byte{prefixBlock}, nil, false, func(key []byte, item *badger.Item) error {
		if len(key) != 1+refLen {
			return fmt.Errorf("%w: block meta key %x", engine.ErrCorrupt, key)
		}
		ref := decodeRef(key[1:])
		var m blockMeta
		err := item.Value(func(v []byte) (err error) {
			m, err = decodeMeta(ref, v)
			return err
		})
		if err != nil {
			return err
		}
		out = append(out, engine.BlockInfo{Ref: ref, Size: m.Size, Commitment: m.Commitment, Seed: m.Seed})
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range out {
		if out[i].Cursor, err = t.Cursor(out[i].Ref); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Unit reads unit t from its chunk, through the store's cache of verified
// chunks (sales take units in order: one chunk read per 1024 sales).
func (t *tx) Unit(tk engine.Ticket) (engine.Unit, error) {
	units, err := t.s.chunk(t.txn, tk.Block, tk.Index/chunkUnits)
	if err != nil {
		return engine.Unit{}, fmt.Errorf("unit %s: %w", tk, err)
	}
	i := int(tk.Index%chunkUnits) * engine.UnitSize
	if i >= len(units) {
		return engine.Unit{}, fmt.Errorf("%w: %s: beyond block %s", engine.ErrUnknownTicket, tk, tk.Block)
	}
	u, err := engine.DecodeUnit(units[i : i+engine.UnitSize])
	if err != nil {
		return engine.Unit{}, fmt.Errorf("unit %s: %w", tk, err)
	}
	return u, nil
}

func (t *tx) Cursor(ref engine.BlockRef) (engine.Cursor, error) {
	var c engine.Cursor
	if _, err := t.get(cursorKey(ref), &c); err != nil {
		return engine.Cursor{}, fmt.Errorf("cursor of block %s: %w", ref, err)
	}
	return c, nil
}

func (t *tx) Record(tk engine.Ticket) (engine.Record, error) {
	var r engine.Record
	ok, err := t.get(recordKey(tk), &r)
	switch {
	case err != nil:
		return r, fmt.Errorf("history record %s: %w", tk, err)
	case !ok:
		return r, fmt.Errorf("%w: %s", engine.ErrUnknownTicket, tk)
	case r.Ticket != tk:
		return r, fmt.Errorf("%w: history record stored as %s says ticket %s", engine.ErrCorrupt, tk, r.Ticket)
	}
	return r, nil
}

func (t *tx) Records(ref engine.BlockRef, fn func(engine.Record) error) error {
	prefix := recordPrefix(ref)
	return t.scan(prefix, nil, false, func(key []byte, item *badger.Item) error {
		if len(key) != len(prefix)+4 {
			return fmt.Errorf("%w: history key %x", engine.ErrCorrupt, key)
		}
		tk := engine.Ticket{Block: ref, Index: binary.BigEndian.Uint32(key[len(prefix):])}
		var r engine.Record
		if err := item.Value(r.UnmarshalBinary); err != nil {
			return fmt.Errorf("history record %s: %w", tk, err)
		}
		if r.Ticket != tk {
			return fmt.Errorf("%w: history record stored as %s says ticket %s", engine.ErrCorrupt, tk, r.Ticket)
		}
		return fn(r)
	})
}

func (t *tx) Wallet(player string) (engine.Wallet, bool, error) {
	var w engine.Wallet
	ok, err := t.get(walletKey(player), &w)
	if err == nil && ok && w.Player != player {
		err = fmt.Errorf("%w: wallet stored as %q says player %q", engine.ErrCorrupt, player, w.Player)
	}
	if err != nil {
		return engine.Wallet{}, false, fmt.Errorf("wallet of %s: %w", player, err)
	}
	return w, ok, nil
}

func (t *tx) Wallets(fn func(engine.Wallet) error) error {
	return t.scan([]byte{prefixWallet}, nil, false, func(key []byte, item *badger.Item) error {
		player := string(key[1:])
		var w engine.Wallet
		if err := item.Value(w.UnmarshalBinary); err != nil {
			return fmt.Errorf("wallet of %s: %w", player, err)
		}
		if w.Player != player {
			return fmt.Errorf("%w: wallet stored as %q says player %q", engine.ErrCorrupt, player, w.Player)
		}
		return fn(w)
	})
}

func (t *tx) Ledger(player string, from, to uint64, fn func(engine.LedgerEntry) error) error {
	if from == to { // one entry (the check after each sale): a read, not an iterator over every table
		item, err := t.txn.Get(ledgerKey(player, from))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return storageErr("read", err)
		}
		return ledgerEntry(player, from, item, fn)
	}
	prefix := ledgerPrefix(player)
	desc := from > to
	return t.scan(prefix, ledgerKey(player, from), desc, func(key []byte, item *badger.Item) error {
		if len(key) != len(prefix)+8 {
			return fmt.Errorf("%w: ledger key %x", engine.ErrCorrupt, key)
		}
		seq := binary.BigEndian.Uint64(key[len(prefix):])
		if !desc && seq > to || desc && seq < to {
			return errEnd
		}
		return ledgerEntry(player, seq, item, fn)
	})
}

// ledgerEntry decodes the entry stored at player/seq and passes it to fn.
func ledgerEntry(player string, seq uint64, item *badger.Item, fn func(engine.LedgerEntry) error) error {
	var l engine.LedgerEntry
	if err := item.Value(l.UnmarshalBinary); err != nil {
		return fmt.Errorf("ledger of %s, entry %d: %w", player, seq, err)
	}
	if l.Player != player || l.Seq != seq {
		return fmt.Errorf("%w: ledger entry %s/%d says %s/%d", engine.ErrCorrupt, player, seq, l.Player, l.Seq)
	}
	return fn(l)
}

// errEnd stops a scan at the end of a range; scan turns it into nil.
var errEnd = errors.New("end of range")

// Reveal reads tk's reveal from its batch's 'R' value first, where units
// sold by batch keep theirs (a push reads one per sale), else from its own
// key (a unit played on the board): a unit's reveal is under one of the
// two, never both.
func (t *tx) Reveal(tk engine.Ticket) (engine.Reveal, bool, error) {
	var rv engine.Reveal
	ok, err := t.groupReveal(tk, &rv)
	if err == nil && !ok {
		ok, err = t.get(revealKey(tk), &rv)
	}
	if err != nil {
		return engine.Reveal{}, false, fmt.Errorf("reveal of %s: %w", tk, err)
	}
	return rv, ok, nil
}

// groupReveal reads tk's slot of its 'R' value, in place: false when there
// is no such value or the slot is empty.
func (t *tx) groupReveal(tk engine.Ticket, rv *engine.Reveal) (ok bool, err error) {
	_, err = t.readRevealGroup(tk, func(group []byte) error {
		at := int(tk.Index%revealGroup) * 4
		if ok = [4]byte(group[at:at+4]) != absentReveal; ok {
			return rv.UnmarshalBinary(group[at : at+4])
		}
		return nil
	})
	return ok, err
}

// revealGroup is a copy of the 'R' value holding tk's reveal, if there is
// one.
func (t *tx) revealGroup(tk engine.Ticket) (group []byte, ok bool, err error) {
	ok, err = t.readRevealGroup(tk, func(g []byte) error {
		group = bytes.Clone(g)
		return nil
	})
	return group, ok && err == nil, err
}

// readRevealGroup passes the 'R' value holding tk's reveal, checked, to fn
// (valid only during the call), and says whether there is one.
func (t *tx) readRevealGroup(tk engine.Ticket, fn func(group []byte) error) (bool, error) {
	item, err := t.txn.Get(revealGroupKey(tk))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return false, nil
	}
	if err != nil {
		return false, storageErr("read", err)
	}
	return true, item.Value(func(group []byte) error {
		if len(group) != 4*revealGroup {
			return fmt.Errorf("%w: reveals of %d bytes", engine.ErrCorrupt, len(group))
		}
		return fn(group)
	})
}

func (t *tx) PutCursor(ref engine.BlockRef, c engine.Cursor) error {
	return t.put(cursorKey(ref), c)
}

func (t *tx) PutRecord(r engine.Record) error { return t.put(recordKey(r.Ticket), r) }

func (t *tx) PutWallet(w engine.Wallet) error { return t.put(walletKey(w.Player), w) }

func (t *tx) PutLedger(l engine.LedgerEntry) error {
	if len(l.Player) > 255 { // the key's length byte; the engine allows 64
		return fmt.Errorf("%w: player id of %d bytes", engine.ErrBadPlayer, len(l.Player))
	}
	return t.put(ledgerKey(l.Player, l.Seq), l)
}

func (t *tx) PutReveal(tk engine.Ticket, rv engine.Reveal) error {
	return t.put(revealKey(tk), rv)
}

func (t *tx) PutReveals(first engine.Ticket, rvs []engine.Reveal) error {
	for len(rvs) > 0 {
		group, ok, err := t.revealGroup(first)
		if err != nil {
			return fmt.Errorf("reveals from %s: %w", first, err)
		}
		if !ok {
			group = bytes.Repeat(absentReveal[:], revealGroup)
		}
		at := first.Index % revealGroup
		n := min(uint32(len(rvs)), revealGroup-at)
		for i, rv := range rvs[:n] {
			var v [4]byte
			b, _ := rv.AppendBinary(v[:0])
			copy(group[4*(int(at)+i):], b)
		}
		if err := t.txn.Set(revealGroupKey(first), group); err != nil {
			return storageErr("write", err)
		}
		rvs, first = rvs[n:], first.Plus(n)
	}
	return nil
}

func (t *tx) Journal() (engine.JournalMark, bool, error) {
	var m engine.JournalMark
	ok, err := t.get(journalKey(), &m)
	if err != nil {
		return engine.JournalMark{}, false, fmt.Errorf("last journal entry: %w", err)
	}
	return m, ok, nil
}

func (t *tx) PutJournal(m engine.JournalMark) error {
	return t.put(journalKey(), m)
}
