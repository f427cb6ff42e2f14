package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"
)

// hand is the packs a kiosk of a fleet holds, or held (a sold-out pack
// stays listed, its body dropped from memory), in claim order, and what the
// background loop keeps ahead of the sales. Guarded by the writer's lock.
type hand struct {
	packs  []*packInHand
	wanted map[Cents]bool      // stakes sold from: the loop keeps a pack ahead for them
	noPack map[Cents]time.Time // when the central last had no pack at the stake
}

func newHand() hand {
	return hand{wanted: map[Cents]bool{}, noPack: map[Cents]time.Time{}}
}

// left is the units left at the stake.
func (h *hand) left(stake Cents) (n uint32) {
	for _, p := range h.packs {
		if p.Block.Stake == stake {
			n += p.left()
		}
	}
	return n
}

// low says whether the units left at the stake are below the low water
// mark, under which the loop claims another pack (one pack ahead): the
// size of the stake's last pack.
func (h *hand) low(stake Cents) bool {
	var mark uint32 = 1
	for _, p := range h.packs {
		if p.Block.Stake == stake {
			mark = p.Count
		}
	}
	return h.left(stake) < mark
}

// has says whether the pack serial is held.
func (h *hand) has(serial string) bool {
	for _, p := range h.packs {
		if p.Serial == serial {
			return true
		}
	}
	return false
}

// serials are the serials of the packs held, in claim order.
func (h *hand) serials() []string {
	out := make([]string, 0, len(h.packs)+1)
	for _, p := range h.packs {
		out = append(out, p.Serial)
	}
	return out
}

// nextBlocks is, by stake, the block of the pack sold next.
func (h *hand) nextBlocks() map[Cents]BlockRef {
	out := map[Cents]BlockRef{}
	for i := len(h.packs) - 1; i >= 0; i-- {
		if p := h.packs[i]; p.left() > 0 {
			out[p.Block.Stake] = p.Block
		}
	}
	return out
}

// ranges are the positions of the packs held, without their bodies or
// cursors: which pack a ticket came from.
func (h *hand) ranges() []packInHand {
	out := make([]packInHand, len(h.packs))
	for i, p := range h.packs {
		out[i] = packInHand{Serial: p.Serial, Block: p.Block, First: p.First, Count: p.Count}
	}
	return out
}

// packInHand is a pack the kiosk holds, with where it stands in it (its
// cursor) and, while units are left, its body to sell them from.
type packInHand struct {
	Serial       string
	Block        BlockRef
	First, Count uint32
	cur          packCursor
	body         *Pack // nil once nothing is left to sell
}

// left is the positions left to sell.
func (p *packInHand) left() uint32 {
	if p.cur.End <= p.cur.Next {
		return 0
	}
	return p.cur.End - p.cur.Next
}

// covers says whether ticket t is one of the pack's positions.
func (p *packInHand) covers(t Ticket) bool {
	return t.Block == p.Block && t.Index >= p.First && t.Index < p.First+p.Count
}

// packCovering is the pack of packs that ticket t is one of, or nil.
func packCovering(packs []*packInHand, t Ticket) *packInHand {
	for _, p := range packs {
		if p.covers(t) {
			return p
		}
	}
	return nil
}

// readSerials reads the serials of the packs held, in claim order.
func readSerials(tx ReadTx) ([]string, error) {
	v, ok, err := tx.Setting(fleetPacksKey)
	if err != nil || !ok || len(v) == 0 {
		return nil, err
	}
	return strings.Split(string(v), "\n"), nil
}

// readPackInHand reads a stored pack and its cursor, and verifies the pack
// again.
func readPackInHand(tx ReadTx, serial string) (*packInHand, error) {
	p, err := readPack(tx, serial)
	if err != nil {
		return nil, err
	}
	if err := p.Verify(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	v, ok, err := tx.Setting(packCursorKey(serial))
	if err != nil || !ok {
		return nil, fmt.Errorf("%w: pack cursor missing (%v)", ErrCorrupt, err)
	}
	c, err := decodePackCursor(v)
	if err != nil {
		return nil, err
	}
	return &packInHand{Serial: serial, Block: p.Block, First: p.First, Count: p.Count(), cur: c, body: &p}, nil
}

// checkPackCursor: the pack's cursor hashes its last record and no record
// lies at or beyond its next position.
func checkPackCursor(tx ReadTx, p *packInHand) []string {
	var problems []string
	if p.cur.HasLast {
		r, err := tx.Record(Ticket{Block: p.Block, Index: p.cur.Last})
		if err != nil || r.Hash() != p.cur.Head {
			problems = append(problems, fmt.Sprintf("pack %s: last record %d does not match the chain head (%v)", p.Serial, p.cur.Last, err))
		}
	} else if p.cur.Head != (Hash{}) {
		problems = append(problems, fmt.Sprintf("pack %s: a chain head without a record", p.Serial))
	}
	if p.cur.Next < p.First+p.Count {
		if _, err := tx.Record(Ticket{Block: p.Block, Index: p.cur.Next}); !errors.Is(err, ErrUnknownTicket) {
			problems = append(problems, fmt.Sprintf("pack %s: a record lies beyond the cursor (next %d)", p.Serial, p.cur.Next))
		}
	}
	return problems
}

// How the store keeps the packs held.
const (
	fleetPacksKey    = "fleet/packs"
	packCursorPrefix = "fleet/pcur/"
)

func packBodyKey(serial string, chunk int) string {
	return fmt.Sprintf("fleet/pack/%s/%d", serial, chunk)
}

func packCursorKey(serial string) string { return packCursorPrefix + serial }

// packChunk is the most bytes of a pack one setting holds: the journal
// writes a setting's value with a 16-bit length (a pack of 10 000 units
// is 350 kB with its salts).
const packChunk = 60_000

// putPack stores a pack's encoding in chunks: fleet/pack/SERIAL/0, /1, …,
// the first starting with the number of chunks.
func putPack(tx *journalTx, p Pack) error {
	body := encodePack(p)
	n := (len(body) + 2 + packChunk - 1) / (packChunk)
	body = append(binary.BigEndian.AppendUint16(nil, uint16(n)), body...)
	for i := 0; len(body) > 0; i++ {
		part := body[:min(packChunk, len(body))]
		if err := tx.PutSetting(packBodyKey(p.Serial, i), part); err != nil {
			return err
		}
		body = body[len(part):]
	}
	return nil
}

// readPack reads a pack putPack stored.
func readPack(tx ReadTx, serial string) (Pack, error) {
	var body []byte
	for i, n := 0, 1; i < n; i++ {
		v, ok, err := tx.Setting(packBodyKey(serial, i))
		if err != nil || !ok {
			return Pack{}, fmt.Errorf("%w: pack %s chunk %d missing (%v)", ErrCorrupt, serial, i, err)
		}
		if i == 0 {
			if len(v) < 2 {
				return Pack{}, fmt.Errorf("%w: pack %s truncated", ErrCorrupt, serial)
			}
			n, v = int(binary.BigEndian.Uint16(v)), v[2:]
		}
		body = append(body, v...)
	}
	return decodePack(body)
}

// encodePack is a pack as the store keeps it, exactly as received.
func encodePack(p Pack) []byte {
	e := encoder{}
	e.u8(codecVersion)
	e.str(p.Serial)
	e.ticket(Ticket{Block: p.Block, Index: p.First})
	e.u32(p.Size)
	e.u32(uint32(len(p.Units)))
	e.bytes(p.Units)
	for _, hs := range [][]Hash{p.Salts, p.Proof} {
		e.u32(uint32(len(hs)))
		for _, h := range hs {
			e.bytes(h[:])
		}
	}
	e.bytes(p.Root[:])
	return e.b
}

func decodePack(v []byte) (Pack, error) {
	d := decoder{b: v}
	d.version("pack")
	p := Pack{Serial: d.str()}
	t := d.ticket()
	p.Block, p.First, p.Size = t.Block, t.Index, d.u32()
	p.Units = append([]byte(nil), d.take(int(min(d.u32(), BlockSize*UnitSize)))...)
	for _, hs := range []*[]Hash{&p.Salts, &p.Proof} {
		n := min(d.u32(), BlockSize)
		for range n {
			*hs = append(*hs, d.hash())
		}
	}
	p.Root = d.hash()
	return p, d.done("pack")
}

// packCursor is where the kiosk stands in a pack: positions [Next, End)
// are left to sell; the last record sold hashes to Head.
type packCursor struct {
	Next, End uint32
	HasLast   bool
	Last      uint32
	Head      Hash
	Release   bool // the remainder from End is to be returned to the central
}

func (c packCursor) encode() []byte {
	e := encoder{}
	e.u8(codecVersion)
	e.u32(c.Next)
	e.u32(c.End)
	e.u8(b2u(c.HasLast))
	e.u32(c.Last)
	e.bytes(c.Head[:])
	e.u8(b2u(c.Release))
	return e.b
}

func decodePackCursor(v []byte) (packCursor, error) {
	d := decoder{b: v}
	d.version("pack cursor")
	c := packCursor{Next: d.u32(), End: d.u32(), HasLast: d.u8() == 1, Last: d.u32(), Head: d.hash(), Release: d.u8() == 1}
	return c, d.done("pack cursor")
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}
