package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The journal is a second, independent record of every change of money or
// history: a plain append-only file, one hash-chained entry per store
// transaction, synced before the change is shown. It can contradict the
// store (a store that lost acknowledged writes is behind its journal) and
// rebuild it (Recover).

// JournalEntry is what one store transaction changed: the blocks first sold
// from in it (with their seeds, so a lost block can be drawn again), the
// history records, ledger entries and reveal steps it wrote, and the
// operator log's events and settings (PIN hash, lockout).
type JournalEntry struct {
	Seq      uint64 // from 1
	Prev     Hash   // hash of the entry before; zero for the first
	Time     time.Time
	Blocks   []BlockInfo // Ref, Size, Commitment, Seed (Cursor unused)
	Records  []Record
	Ledger   []LedgerEntry
	Reveals  []JournalReveal
	Events   []OperatorEvent
	Settings []JournalSetting
}

// JournalSetting is a named setting as the journal keeps it.
type JournalSetting struct {
	Name  string
	Value []byte
}

// JournalReveal is a reveal step as the journal keeps it.
type JournalReveal struct {
	Ticket Ticket
	Reveal Reveal
}

// JournalHead is the position of a journal: its last entry's number and hash.
type JournalHead struct {
	Seq  uint64
	Hash Hash
}

// String is the head as reports print it and recover reads it back:
// "<entry>:<hash in hex>".
func (h JournalHead) String() string { return fmt.Sprintf("%d:%s", h.Seq, h.Hash) }

// ParseJournalHead reads a head printed by String.
func ParseJournalHead(s string) (JournalHead, error) {
	seq, hash, ok := strings.Cut(strings.TrimSpace(s), ":")
	n, err := strconv.ParseUint(seq, 10, 64)
	b, herr := hex.DecodeString(hash)
	if !ok || err != nil || herr != nil || len(b) != len(Hash{}) || n == 0 {
		return JournalHead{}, fmt.Errorf("journal head %q: want <entry>:<64 hex digits>, as audit and report print it", s)
	}
	return JournalHead{Seq: n, Hash: Hash(b)}, nil
}

// Journal is the append-only file the engine writes after each committed
// transaction. Append returns once the entry is synced to disk.
type Journal interface {
	Append(e JournalEntry) error
	Head() JournalHead
	// Last is the entry at the head, when known (after opening, after an
	// append).
	Last() (JournalEntry, bool)
	// Retract removes the last entry, which must be at h: the engine appends
	// while the store commits, and takes the entry back if the commit fails.
	Retract(h JournalHead) error
	// Entries calls fn for every entry in order, checking the chain.
	Entries(fn func(JournalEntry) error) error
}

// MarshalBinary is the entry's canonical encoding, over which its hash is
// computed.
func (e JournalEntry) MarshalBinary() ([]byte, error) {
	enc := encoder{b: make([]byte, 0, 64+len(e.Records)*120+len(e.Ledger)*130)}
	enc.u8(codecVersion)
	enc.u64(e.Seq)
	enc.bytes(e.Prev[:])
	enc.time(e.Time)
	enc.u32(uint32(len(e.Blocks)))
	for _, b := range e.Blocks {
		enc.ticket(Ticket{Block: b.Ref})
		enc.u32(b.Size)
		enc.bytes(b.Commitment[:])
		enc.bytes(b.Seed[:])
	}
	sub := func(v encoding.BinaryAppender) { // a length, then the value's encoding
		at := len(enc.b)
		enc.u16(0)
		enc.b, _ = v.AppendBinary(enc.b)
		binary.BigEndian.PutUint16(enc.b[at:], uint16(len(enc.b)-at-2))
	}
	enc.u32(uint32(len(e.Records)))
	for _, r := range e.Records {
		sub(r)
	}
	enc.u32(uint32(len(e.Ledger)))
	for _, l := range e.Ledger {
		sub(l)
	}
	enc.u32(uint32(len(e.Reveals)))
	for _, rv := range e.Reveals {
		enc.ticket(rv.Ticket)
		sub(rv.Reveal)
	}
	enc.u32(uint32(len(e.Events)))
	for _, ev := range e.Events {
		sub(ev)
	}
	enc.u32(uint32(len(e.Settings)))
	for _, st := range e.Settings {
		enc.str(st.Name)
		enc.u16(uint16(len(st.Value)))
		enc.bytes(st.Value)
	}
	return enc.b, nil
}

// UnmarshalBinary decodes an entry, checking every value in it.
func (e *JournalEntry) UnmarshalBinary(b []byte) error {
	d := decoder{b: b}
	d.version("journal entry")
	e.Seq = d.u64()
	e.Prev = d.hash()
	e.Time = d.time()
	count := func() int {
		n := int(d.u32())
		if d.err == nil && n > len(d.b) {
			d.err = fmt.Errorf("%w: journal entry counts %d items in %d bytes", ErrCorrupt, n, len(d.b))
		}
		if d.err != nil {
			return 0
		}
		return n
	}
	sub := func(v interface{ UnmarshalBinary([]byte) error }) {
		raw := d.take(int(d.u16()))
		if d.err == nil {
			if err := v.UnmarshalBinary(raw); err != nil {
				d.err = err
			}
		}
	}
	e.Blocks = nil
	for n := count(); n > 0 && d.err == nil; n-- {
		t := d.ticket() // a block ref, written as a ticket of index 0
		if d.err == nil && t.Index != 0 {
			d.err = fmt.Errorf("%w: journal entry: block %s given with index %d", ErrCorrupt, t.Block, t.Index)
		}
		b := BlockInfo{Ref: t.Block, Size: d.u32()}
		b.Commitment = d.hash()
		copy(b.Seed[:], d.take(len(b.Seed)))
		e.Blocks = append(e.Blocks, b)
	}
	e.Records = nil
	for n := count(); n > 0 && d.err == nil; n-- {
		var r Record
		sub(&r)
		e.Records = append(e.Records, r)
	}
	e.Ledger = nil
	for n := count(); n > 0 && d.err == nil; n-- {
		var l LedgerEntry
		sub(&l)
		e.Ledger = append(e.Ledger, l)
	}
	e.Reveals = nil
	for n := count(); n > 0 && d.err == nil; n-- {
		rv := JournalReveal{Ticket: d.ticket()}
		sub(&rv.Reveal)
		e.Reveals = append(e.Reveals, rv)
	}
	e.Events = nil
	for n := count(); n > 0 && d.err == nil; n-- {
		var ev OperatorEvent
		sub(&ev)
		e.Events = append(e.Events, ev)
	}
	e.Settings = nil
	for n := count(); n > 0 && d.err == nil; n-- {
		st := JournalSetting{Name: d.str()}
		st.Value = bytes.Clone(d.take(int(d.u16())))
		e.Settings = append(e.Settings, st)
	}
	return d.done("journal entry")
}

// Hash is the SHA-256 of the entry's canonical encoding.
func (e JournalEntry) Hash() Hash {
	b, _ := e.MarshalBinary()
	return sha256.Sum256(b)
}

// Head is the journal position this entry ends at.
func (e JournalEntry) Head() JournalHead { return JournalHead{Seq: e.Seq, Hash: e.Hash()} }
