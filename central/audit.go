package central

import (
	"bytes"
	"context"
	"fmt"
	"sort"

	"github.com/jackc/pgx/v5"

	"starfortune/engine"
)

// AuditReport is what `central audit` prints: ok when no finding.
type AuditReport struct {
	OK       bool     `json:"ok"`
	Blocks   int      `json:"blocks"`
	Sales    int      `json:"sales"`
	Kiosks   int      `json:"kiosks"`
	Findings []string `json:"findings"`
}

// auditBlock is a block as the audit reads it, with what it tallies.
type auditBlock struct {
	id                  int64
	ref                 engine.BlockRef
	size                int
	root                engine.Hash
	units               []byte
	closed              bool
	revealed, secret    []byte
	next, sold, voided  int
	packs               []auditPack
	soldAt              []bool // position sold, per the sales rows
	countSold           int
	soldTally, allTally engine.Tally
}

type auditPack struct {
	serial, status string
	first, count   int
	sold           int
}

type auditKiosk struct {
	lastSale, lastMove  int64
	saleSeqs, moveSeqs  []int64
	salesNet, ledgerNet engine.Cents // stakes − prizes from its sales and from its sale movements
	credits, payouts    engine.Cents
}

// Audit checks the whole fleet. Per block: the published root recomputes
// from the units and the secret seed (and, once closed, the block
// regenerates from the revealed seed); the packs tile the handed-out
// positions; sold + voided + unsold = size, and the closure counters
// match the rows; every sale's unit, stake and prize are the block's; a
// closed block's sold and voided units tally to the prize table. Per
// kiosk: its sales and movements are gap-free and unique, and the money of
// its sales equals its synced ledger's. Every conflict the pushes recorded
// (a position sold twice…) is a finding.
func (a *Admin) Audit(ctx context.Context) (AuditReport, error) {
	var rep AuditReport
	find := func(format string, args ...any) { rep.Findings = append(rep.Findings, fmt.Sprintf(format, args...)) }
	err := pgx.BeginTxFunc(ctx, a.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		blocks, byID, err := auditLoadBlocks(ctx, tx)
		if err != nil {
			return err
		}
		rep.Blocks = len(blocks)
		packs := map[string]*auditPack{}
		packBlock := map[string]*auditBlock{}
		rows, _ := tx.Query(ctx, query("audit_packs"))
		var serial, status string
		var blockID int64
		var first, count int
		_, err = pgx.ForEachRow(rows, []any{&serial, &blockID, &first, &count, &status}, func() error {
			b := byID[blockID]
			b.packs = append(b.packs, auditPack{serial: serial, status: status, first: first, count: count})
			return nil
		})
		if err != nil {
			return err
		}
		for _, b := range blocks {
			for i := range b.packs {
				packs[b.packs[i].serial], packBlock[b.packs[i].serial] = &b.packs[i], b
			}
		}
		kiosks := map[string]*auditKiosk{}
		rows, _ = tx.Query(ctx, "SELECT id, last_sale_seq, last_movement_seq FROM kiosks ORDER BY id")
		var kid string
		var lastSale, lastMove int64
		if _, err := pgx.ForEachRow(rows, []any{&kid, &lastSale, &lastMove}, func() error {
			kiosks[kid] = &auditKiosk{lastSale: lastSale, lastMove: lastMove}
			return nil
		}); err != nil {
			return err
		}
		rep.Kiosks = len(kiosks)

		var ticket, pack string
		var pos int
		var seq, stake, prize int64
		var unit []byte
		rows, _ = tx.Query(ctx, query("audit_sales"))
		_, err = pgx.ForEachRow(rows, []any{&ticket, &blockID, &pos, &pack, &kid, &seq, &stake, &prize, &unit}, func() error {
			rep.Sales++
			b, p, k := byID[blockID], packs[pack], kiosks[kid]
			if k != nil {
				k.saleSeqs = append(k.saleSeqs, seq)
				k.salesNet += engine.Cents(stake - prize)
			}
			if b == nil || p == nil || packBlock[pack] != b {
				find("ticket %s: sale of an unknown block or of a pack of another block (%s)", ticket, pack)
				return nil
			}
			if pos < 0 || pos >= b.size {
				find("ticket %s: position %d beyond block %s", ticket, pos, b.ref)
				return nil
			}
			if pos < p.first || pos >= p.first+p.count {
				find("ticket %s: position %d outside its pack %s [%d, %d)", ticket, pos, pack, p.first, p.first+p.count)
			}
			if b.soldAt[pos] {
				find("ticket %s: position %d of block %s sold twice", ticket, pos, b.ref)
			}
			b.soldAt[pos] = true
			b.countSold++
			p.sold++
			t := engine.Ticket{Block: b.ref, Index: uint32(pos)}
			want, err := engine.DecodeUnit(b.units[pos*engine.UnitSize : (pos+1)*engine.UnitSize])
			if err != nil {
				find("block %s: unit %d: %v", b.ref, pos, err)
				return nil
			}
			if ticket != t.String() {
				find("ticket %s: recorded for position %d of block %s, whose ticket is %s", ticket, pos, b.ref, t)
			}
			if !bytes.Equal(unit, b.units[pos*engine.UnitSize:(pos+1)*engine.UnitSize]) {
				find("ticket %s: sold outcome differs from the block's unit", ticket)
			}
			if engine.Cents(stake) != b.ref.Stake || engine.Cents(prize) != want.Prize(b.ref.Stake) {
				find("ticket %s: stake %s and prize %s recorded, the block says %s and %s", ticket,
					engine.Cents(stake), engine.Cents(prize), b.ref.Stake, want.Prize(b.ref.Stake))
			}
			if tier := engine.TierOf(prize / max(stake, 1)); tier >= 0 && prize%max(stake, 1) == 0 {
				b.soldTally[tier]++
			} else {
				find("ticket %s: prize %s is no tier of the table", ticket, engine.Cents(prize))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, b := range blocks {
			auditBlockCounts(b, find)
		}

		// Conflicts recorded by the pushes: the sale was refused, never merged.
		var reason string
		rows, _ = tx.Query(ctx, "SELECT kiosk, seq, ticket, reason FROM sale_conflicts ORDER BY id")
		if _, err := pgx.ForEachRow(rows, []any{&kid, &seq, &ticket, &reason}, func() error {
			find("ticket %s: %s (kiosk %s, sale %d)", ticket, reason, kid, seq)
			if k := kiosks[kid]; k != nil {
				k.saleSeqs = append(k.saleSeqs, seq)
			}
			return nil
		}); err != nil {
			return err
		}
		rows, _ = tx.Query(ctx, "SELECT kiosk, seq, reason FROM movement_conflicts ORDER BY id")
		if _, err := pgx.ForEachRow(rows, []any{&kid, &seq, &reason}, func() error {
			find("kiosk %s: movement %d: %s", kid, seq, reason)
			if k := kiosks[kid]; k != nil {
				k.moveSeqs = append(k.moveSeqs, seq)
			}
			return nil
		}); err != nil {
			return err
		}
		var kind string
		var debit, credit int64
		var mticket *string
		rows, _ = tx.Query(ctx, "SELECT kiosk, seq, kind, debit_cents, credit_cents, ticket FROM movements")
		if _, err := pgx.ForEachRow(rows, []any{&kid, &seq, &kind, &debit, &credit, &mticket}, func() error {
			k := kiosks[kid]
			if k == nil {
				return nil
			}
			k.moveSeqs = append(k.moveSeqs, seq)
			switch kind {
			case "sale":
				k.ledgerNet += engine.Cents(debit - credit)
			case "credit", "grant":
				k.credits += engine.Cents(credit - debit)
			case "payout":
				k.payouts += engine.Cents(debit - credit)
			}
			return nil
		}); err != nil {
			return err
		}
		ids := make([]string, 0, len(kiosks))
		for id := range kiosks {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			k := kiosks[id]
			gapFree(k.saleSeqs, k.lastSale, func(f string) { find("kiosk %s: sales: %s", id, f) })
			gapFree(k.moveSeqs, k.lastMove, func(f string) { find("kiosk %s: movements: %s", id, f) })
			if k.lastMove > 0 && k.salesNet != k.ledgerNet {
				find("kiosk %s: its sales take %s net (stakes − prizes), its synced ledger %s", id, k.salesNet, k.ledgerNet)
			}
		}
		return nil
	})
	if err != nil {
		return rep, fmt.Errorf("central: audit: %w", err)
	}
	rep.OK = len(rep.Findings) == 0
	if rep.Findings == nil {
		rep.Findings = []string{}
	}
	return rep, nil
}

func auditLoadBlocks(ctx context.Context, tx pgx.Tx) ([]*auditBlock, map[int64]*auditBlock, error) {
	var blocks []*auditBlock
	byID := map[int64]*auditBlock{}
	rows, _ := tx.Query(ctx, query("audit_blocks"))
	var b auditBlock
	var em, stake, num int
	var root []byte
	_, err := pgx.ForEachRow(rows, []any{&b.id, &em, &stake, &num, &b.size, &root, &b.units, &b.closed, &b.revealed, &b.secret,
		&b.next, &b.sold, &b.voided}, func() error {
		nb := b
		nb.ref = engine.BlockRef{Emission: uint16(em), Stake: engine.Cents(stake), Number: uint32(num)}
		copy(nb.root[:], root)
		nb.units = bytes.Clone(b.units)
		nb.soldAt = make([]bool, max(nb.size, 0))
		blocks = append(blocks, &nb)
		byID[nb.id] = &nb
		return nil
	})
	return blocks, byID, err
}

// auditBlockCounts checks a block's root, tiling, counts and closure.
func auditBlockCounts(b *auditBlock, find func(string, ...any)) {
	var secret engine.Seed
	copy(secret[:], b.secret)
	if root, err := engine.Commit(b.ref, secret, b.units); err != nil || root != b.root || len(b.units) != b.size*engine.UnitSize {
		find("block %s: its units and seed do not lead to the published root %s", b.ref, b.root)
	}
	if b.closed {
		var seed engine.Seed
		copy(seed[:], b.revealed)
		if !bytes.Equal(b.revealed, b.secret) {
			find("block %s: the revealed seed is not the block's seed", b.ref)
		} else if g := engine.GenerateBlock(b.ref, seed); g.Commitment != b.root || !bytes.Equal(g.Units, b.units) {
			find("block %s: does not regenerate from its revealed seed to its published root", b.ref)
		}
	}
	at, voided, unsold := 0, 0, b.size-b.next
	for _, p := range b.packs {
		if p.first != at {
			find("block %s: pack %s starts at %d, the packs before end at %d (overlap or gap)", b.ref, p.serial, p.first, at)
		}
		at = p.first + p.count
		switch {
		case p.status == "voided":
			voided += p.count - p.sold
			for i := p.first; i < p.first+p.count && i < b.size; i++ {
				if !b.soldAt[i] {
					b.allTally[b.units[i*engine.UnitSize]]++
				}
			}
		default:
			unsold += p.count - p.sold
		}
	}
	if at != b.next {
		find("block %s: packs cover positions up to %d, its cursor is at %d", b.ref, at, b.next)
	}
	if b.countSold+voided+unsold != b.size {
		find("block %s: sold %d + voided %d + unsold %d ≠ %d", b.ref, b.countSold, voided, unsold, b.size)
	}
	if b.countSold != b.sold || voided != b.voided {
		find("block %s: %d sales and %d voided units on record, its closure counts %d and %d (a sale row deleted or added?)",
			b.ref, b.countSold, voided, b.sold, b.voided)
	}
	switch {
	case b.closed && unsold != 0:
		find("block %s: closed with %d positions neither sold nor voided", b.ref, unsold)
	case b.closed:
		for t := range b.allTally {
			b.allTally[t] += b.soldTally[t]
		}
		if b.allTally != engine.TableTally() {
			find("block %s: sold and voided units tally %v, the prize table %v", b.ref, b.allTally, engine.TableTally())
		}
	case unsold == 0 && b.countSold == b.sold:
		find("block %s: every position sold or voided but the block is not closed", b.ref)
	}
}

// gapFree reports sequence numbers 1…last missing from seqs or repeated.
func gapFree(seqs []int64, last int64, find func(string)) {
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
	want := int64(1)
	for i, s := range seqs {
		switch {
		case i > 0 && s == seqs[i-1]:
			find(fmt.Sprintf("number %d recorded twice", s))
		case s > want:
			find(fmt.Sprintf("numbers %d to %d missing", want, s-1))
			want = s + 1
		case s == want:
			want++
		}
	}
	if want <= last {
		find(fmt.Sprintf("numbers %d to %d missing", want, last))
	}
}
