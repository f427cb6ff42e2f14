package engine

import (
	"encoding/binary"
	"fmt"
	"time"
)

// Binary encodings of the values the store keeps. They are canonical: the
// history and ledger hash chains are computed over them, so a byte changed on
// disk changes a hash. Each starts with a version byte.

const codecVersion = 1

type encoder struct{ b []byte }

func (e *encoder) u8(v uint8)     { e.b = append(e.b, v) }
func (e *encoder) u16(v uint16)   { e.b = binary.BigEndian.AppendUint16(e.b, v) }
func (e *encoder) u32(v uint32)   { e.b = binary.BigEndian.AppendUint32(e.b, v) }
func (e *encoder) u64(v uint64)   { e.b = binary.BigEndian.AppendUint64(e.b, v) }
func (e *encoder) i64(v int64)    { e.u64(uint64(v)) }
func (e *encoder) bytes(v []byte) { e.b = append(e.b, v...) }
func (e *encoder) time(t time.Time) { // the zero time as 0, which no real time is
	if t.IsZero() {
		e.i64(0)
		return
	}
	e.i64(t.UnixNano())
}
func (e *encoder) str(s string) {
	e.u8(uint8(len(s)))
	e.b = append(e.b, s...)
}
func (e *encoder) ticket(t Ticket) {
	e.u16(t.Block.Emission)
	e.u16(uint16(t.Block.Stake))
	e.u32(t.Block.Number)
	e.u32(t.Index)
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) take(n int) []byte {
	if d.err != nil || len(d.b) < n {
		d.err = fmt.Errorf("%w: value truncated", ErrCorrupt)
		// Zeros for the fixed-size reads to decode (8 bytes at most); a
		// damaged length must not allocate gigabytes.
		return make([]byte, min(n, 8))
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}
func (d *decoder) u8() uint8   { return d.take(1)[0] }
func (d *decoder) u16() uint16 { return binary.BigEndian.Uint16(d.take(2)) }
func (d *decoder) u32() uint32 { return binary.BigEndian.Uint32(d.take(4)) }
func (d *decoder) u64() uint64 { return binary.BigEndian.Uint64(d.take(8)) }
func (d *decoder) i64() int64  { return int64(d.u64()) }
func (d *decoder) time() time.Time {
	if n := d.i64(); n != 0 {
		return time.Unix(0, n).UTC()
	}
	return time.Time{}
}
func (d *decoder) str() string    { return string(d.take(int(d.u8()))) }
func (d *decoder) hash() (h Hash) { copy(h[:], d.take(len(h))); return h }
func (d *decoder) ticket() Ticket {
	return Ticket{Block: BlockRef{Emission: d.u16(), Stake: Cents(d.u16()), Number: d.u32()}, Index: d.u32()}
}
func (d *decoder) version(what string) {
	if v := d.u8(); d.err == nil && v != codecVersion {
		d.err = fmt.Errorf("%w: %s encoding version %d", ErrCorrupt, what, v)
	}
}
func (d *decoder) done(what string) error {
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%w: %d trailing bytes after %s", ErrCorrupt, len(d.b), what)
	}
	return d.err
}
