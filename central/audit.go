package central

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"

	"starfortune/engine"
)

// AuditReport is what `central audit` prints: ok when no finding.
type AuditReport struct {
	OK       bool     `json:"ok"`
	Blocks   int      `json:"blocks"`
	Archived int      `json:"archived"` // of the blocks, those checked from their archive
	Sales    int      `json:"sales"`
	Kiosks   int      `json:"kiosks"`
	Accounts int      `json:"accounts"`
	Findings []string `json:"findings"` // every finding, in words
	// PlayerFindings are the findings on the accounts (audit_players.go),
	// also in Findings, with their kind.
	PlayerFindings []PlayerFinding `json:"player_findings"`
}

// ErrArchiveNeeded: the central has archived blocks and the audit was
// not given where their archives are.
var ErrArchiveNeeded = errors.New("central: blocks are archived: give the directory of their archives (central audit --archive DIR)")

// auditBlockRow is a block as sql/audit_blocks.sql reads it; also the
// first line of its archive (archive.go).
type auditBlockRow struct {
	ID int64 `db:"id" json:"id"`
	blockRefCols
	Size          int    `db:"size" json:"size"`
	Root          []byte `db:"root" json:"root"`
	Closed        bool   `db:"closed" json:"closed"`
	Revealed      []byte `db:"revealed" json:"seed"` // NULL until closed
	Secret        []byte `db:"secret" json:"-"`
	Next          int    `db:"next" json:"next"`
	Sold          int    `db:"sold" json:"sold"`
	Voided        int    `db:"voided" json:"voided"`
	ArchiveFile   string `db:"archive_file" json:"-"`
	ArchiveSHA256 []byte `db:"archive_sha256" json:"-"`
}

// auditBlock is one block as the audit reads it, with what it tallies:
// the audit holds one at a time.
type auditBlock struct {
	auditBlockRow
	ref                 engine.BlockRef
	root                engine.Hash
	units               []byte
	packs               []*auditPack
	bySerial            map[string]*auditPack
	soldAt              []bool // position sold, per the sales rows
	countSold           int
	soldTally, allTally engine.Tally
}

func newAuditBlock(r auditBlockRow, units []byte) *auditBlock {
	b := &auditBlock{auditBlockRow: r, ref: r.blockRef(), units: units, bySerial: map[string]*auditPack{},
		soldAt: make([]bool, max(r.Size, 0))}
	copy(b.root[:], r.Root)
	return b
}

// auditPack is a pack as sql/audit_packs.sql reads it, with its sales
// counted.
type auditPack struct {
	Serial  string `db:"serial" json:"serial"`
	BlockID int64  `db:"block_id" json:"-"`
	First   int    `db:"first" json:"first"`
	Count   int    `db:"count" json:"count"`
	Status  string `db:"status" json:"status"`
	sold    int
}

func (b *auditBlock) pack(p auditPack) {
	b.packs = append(b.packs, &p)
	b.bySerial[p.Serial] = &p
}

// auditSale is a sale as sql/audit_sales.sql reads it, the whole row.
type auditSale struct {
	Ticket     string    `db:"ticket" json:"ticket"`
	BlockID    int64     `db:"block_id" json:"-"`
	Position   int       `db:"position" json:"position"`
	Pack       string    `db:"pack_serial" json:"pack"`
	Kiosk      string    `db:"kiosk" json:"kiosk"`
	Seq        int64     `db:"seq" json:"seq"`
	SoldAt     time.Time `db:"sold_at" json:"sold_at"`
	Player     string    `db:"player" json:"player"`
	StakeCents int64     `db:"stake_cents" json:"stake_cents"`
	PrizeCents int64     `db:"prize_cents" json:"prize_cents"`
	Unit       []byte    `db:"unit" json:"unit"`
	Revealed   bool      `db:"revealed" json:"revealed"`
	ReceivedAt time.Time `db:"received_at" json:"received_at"`
}

// sale checks one of the block's sales against the block and its packs.
func (b *auditBlock) sale(s auditSale, find func(string, ...any)) {
	p := b.bySerial[s.Pack]
	if s.BlockID != b.ID || p == nil {
		find("ticket %s: sale of a pack of another block or of none (%s)", s.Ticket, s.Pack)
		return
	}
	pos := s.Position
	if pos < 0 || pos >= b.Size {
		find("ticket %s: position %d beyond block %s", s.Ticket, pos, b.ref)
		return
	}
	if pos < p.First || pos >= p.First+p.Count {
		find("ticket %s: position %d outside its pack %s [%d, %d)", s.Ticket, pos, s.Pack, p.First, p.First+p.Count)
	}
	if b.soldAt[pos] {
		find("ticket %s: position %d of block %s sold twice", s.Ticket, pos, b.ref)
	}
	b.soldAt[pos] = true
	b.countSold++
	p.sold++
	t := engine.Ticket{Block: b.ref, Index: uint32(pos)}
	if len(b.units) < (pos+1)*engine.UnitSize {
		return // auditBlockCounts says the units are not the block's
	}
	unit := b.units[pos*engine.UnitSize : (pos+1)*engine.UnitSize]
	want, err := engine.DecodeUnit(unit)
	if err != nil {
		find("block %s: unit %d: %v", b.ref, pos, err)
		return
	}
	if s.Ticket != t.String() {
		find("ticket %s: recorded for position %d of block %s, whose ticket is %s", s.Ticket, pos, b.ref, t)
	}
	if !bytes.Equal(s.Unit, unit) {
		find("ticket %s: sold outcome differs from the block's unit", s.Ticket)
	}
	stake, prize := s.StakeCents, s.PrizeCents
	if engine.Cents(stake) != b.ref.Stake || engine.Cents(prize) != want.Prize(b.ref.Stake) {
		find("ticket %s: stake %s and prize %s recorded, the block says %s and %s", s.Ticket,
			engine.Cents(stake), engine.Cents(prize), b.ref.Stake, want.Prize(b.ref.Stake))
	}
	if tier := engine.TierOf(prize / max(stake, 1)); tier >= 0 && prize%max(stake, 1) == 0 {
		b.soldTally[tier]++
	} else {
		find("ticket %s: prize %s is no tier of the table", s.Ticket, engine.Cents(prize))
	}
}

type auditKiosk struct {
	lastSale, lastMove  int64
	saleSeqs, moveSeqs  seqRuns
	salesNet, ledgerNet engine.Cents // stakes − prizes from its sales and from its sale movements
	credits, payouts    engine.Cents
}

// kioskSale counts a sale in its kiosk's numbers and money.
func kioskSale(kiosks map[string]*auditKiosk, s auditSale) {
	if k := kiosks[s.Kiosk]; k != nil {
		k.saleSeqs.add(s.Seq)
		k.salesNet += engine.Cents(s.StakeCents - s.PrizeCents)
	}
}

// Audit is AuditFrom without archives: it fails with ErrArchiveNeeded on
// a central that has archived blocks.
func (a *Admin) Audit(ctx context.Context) (AuditReport, error) { return a.AuditFrom(ctx, "") }

// AuditFrom checks the whole fleet, the archived blocks from their
// archives in directory archive. Per block, one at a time (the memory it
// takes is one block's, whatever the history): the published root
// recomputes from the units and the secret seed (and, once closed, the
// block regenerates from the revealed seed); the packs tile the
// handed-out positions; sold + voided + unsold = size, and the closure
// counters match the rows; every sale's unit, stake and prize are the
// block's; a closed block's sold and voided units tally to the prize
// table; an archive is the file archived (its SHA-256) of the block the
// central published. Per kiosk: its sales and movements are gap-free and
// unique, and the money of its sales equals its synced ledger's. Every
// conflict the pushes recorded (a position sold twice…) is a finding. Per
// account: its limits, leases, breaks and listing held over the whole
// fleet (audit_players.go).
func (a *Admin) AuditFrom(ctx context.Context, archive string) (AuditReport, error) {
	var rep AuditReport
	find := func(format string, args ...any) { rep.Findings = append(rep.Findings, fmt.Sprintf(format, args...)) }
	err := pgx.BeginTxFunc(ctx, a.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		kiosks := map[string]*auditKiosk{}
		rows, _ := tx.Query(ctx, query("audit_kiosks"))
		var kid string
		var lastSale, lastMove int64
		if _, err := pgx.ForEachRow(rows, []any{&kid, &lastSale, &lastMove}, func() error {
			kiosks[kid] = &auditKiosk{lastSale: lastSale, lastMove: lastMove}
			return nil
		}); err != nil {
			return err
		}
		rep.Kiosks = len(kiosks)

		blocks, err := auditBlockRows(ctx, tx, nil)
		if err != nil {
			return err
		}
		rep.Blocks = len(blocks)
		for _, r := range blocks {
			if r.ArchiveFile != "" {
				rep.Archived++
				if archive == "" {
					return fmt.Errorf("%w (%d of them)", ErrArchiveNeeded, rep.Archived)
				}
			}
		}
		for _, r := range blocks {
			units, err := blockUnits(ctx, tx, r.ID)
			if err != nil {
				return err
			}
			b := newAuditBlock(r, units)
			sale := func(s auditSale) error {
				rep.Sales++
				b.sale(s, find)
				kioskSale(kiosks, s)
				return nil
			}
			read, err := true, error(nil)
			if r.ArchiveFile != "" {
				read, err = auditArchived(archive, b, sale, find)
			} else {
				err = blockRows(ctx, tx, r.ID, func(p auditPack) error { b.pack(p); return nil }, sale)
			}
			if err != nil {
				return err
			}
			if read {
				auditBlockCounts(b, find)
			}
		}
		rows, _ = tx.Query(ctx, query("audit_orphan_sales"))
		var table string
		if _, err := pgx.ForEachRow(rows, []any{&table}, func() error {
			find("sales of a block the central does not hold (table %s)", table)
			return nil
		}); err != nil {
			return err
		}

		// Conflicts recorded by the pushes: the sale was refused, never merged.
		var ticket, reason string
		var seq int64
		rows, _ = tx.Query(ctx, query("audit_sale_conflicts"))
		if _, err := pgx.ForEachRow(rows, []any{&kid, &seq, &ticket, &reason}, func() error {
			find("ticket %s: %s (kiosk %s, sale %d)", ticket, reason, kid, seq)
			if k := kiosks[kid]; k != nil {
				k.saleSeqs.add(seq)
			}
			return nil
		}); err != nil {
			return err
		}
		rows, _ = tx.Query(ctx, query("audit_movement_conflicts"))
		if _, err := pgx.ForEachRow(rows, []any{&kid, &seq, &reason}, func() error {
			find("kiosk %s: movement %d: %s", kid, seq, reason)
			if k := kiosks[kid]; k != nil {
				k.moveSeqs.add(seq)
			}
			return nil
		}); err != nil {
			return err
		}
		var moveID string
		var uses int64
		rows, _ = tx.Query(ctx, query("audit_movement_ids"))
		if _, err := pgx.ForEachRow(rows, []any{&kid, &moveID, &uses}, func() error {
			find("kiosk %s: movement id %s used %d times", kid, moveID, uses)
			return nil
		}); err != nil {
			return err
		}
		rows, _ = tx.Query(ctx, query("audit_hand_pays"))
		if _, err := pgx.ForEachRow(rows, []any{&kid, &moveID, &ticket}, func() error {
			find("ticket %s: a hand pay whose payout the central does not hold (kiosk %s, movement %s)", ticket, kid, moveID)
			return nil
		}); err != nil {
			return err
		}
		// Journals behind their anchor (migrations/0006).
		var at time.Time
		var anchoredSeq, reportedSeq int64
		var anchoredHash, reportedHash string
		rows, _ = tx.Query(ctx, query("audit_journal_alarms"))
		if _, err := pgx.ForEachRow(rows, []any{&kid, &at, &anchoredSeq, &anchoredHash, &reportedSeq, &reportedHash}, func() error {
			find("kiosk %s: journal rolled back: on %s it reported entry %d:%s, the central had anchored entry %d:%s",
				kid, at.UTC().Format(time.RFC3339), reportedSeq, reportedHash, anchoredSeq, anchoredHash)
			return nil
		}); err != nil {
			return err
		}
		var kind string
		var debit, credit int64
		rows, _ = tx.Query(ctx, query("audit_movements"))
		if _, err := pgx.ForEachRow(rows, []any{&kid, &seq, &kind, &debit, &credit}, func() error {
			k := kiosks[kid]
			if k == nil {
				return nil
			}
			k.moveSeqs.add(seq)
			if odd := oddMovement(kind, debit, credit); odd != "" { // stored before migration 0005 refused it
				find("kiosk %s: movement %d: %s", kid, seq, odd)
			}
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
		if err := auditHoldings(ctx, tx, find); err != nil {
			return err
		}
		if err := auditPlayers(ctx, tx, &rep, find); err != nil {
			return err
		}
		ids := make([]string, 0, len(kiosks))
		for id := range kiosks {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			k := kiosks[id]
			k.saleSeqs.check(k.lastSale, func(f string) { find("kiosk %s: sales: %s", id, f) })
			k.moveSeqs.check(k.lastMove, func(f string) { find("kiosk %s: movements: %s", id, f) })
			if k.lastMove > 0 && k.salesNet != k.ledgerNet {
				find("kiosk %s: its sales take %s net (stakes − prizes), its synced ledger %s", id, k.salesNet, k.ledgerNet)
			}
		}
		return nil
	})
	if errors.Is(err, ErrArchiveNeeded) {
		return rep, err
	}
	if err != nil {
		return rep, fmt.Errorf("central: audit: %w", err)
	}
	rep.OK = len(rep.Findings) == 0
	if rep.Findings == nil {
		rep.Findings = []string{}
	}
	if rep.PlayerFindings == nil {
		rep.PlayerFindings = []PlayerFinding{}
	}
	return rep, nil
}

// auditBlockRows reads every block, or the one of id *only, but its units
// (sql/audit_blocks.sql).
func auditBlockRows(ctx context.Context, tx pgx.Tx, only *int64) ([]auditBlockRow, error) {
	rows, _ := tx.Query(ctx, query("audit_blocks"), only)
	return pgx.CollectRows(rows, pgx.RowToStructByName[auditBlockRow])
}

// blockUnits reads block id's units.
func blockUnits(ctx context.Context, tx pgx.Tx, id int64) ([]byte, error) {
	var units []byte
	err := tx.QueryRow(ctx, query("audit_block_units"), id).Scan(&units)
	return units, err
}

// blockRows reads block id's packs into pack, then its sales into sale,
// each in position order, one row at a time.
func blockRows(ctx context.Context, tx pgx.Tx, id int64, pack func(auditPack) error, sale func(auditSale) error) error {
	rows, _ := tx.Query(ctx, query("audit_packs"), id)
	if err := forEachRowByName(rows, pack); err != nil {
		return err
	}
	rows, _ = tx.Query(ctx, query("audit_sales"), id)
	return forEachRowByName(rows, sale)
}

// auditBlockCounts checks a block's root, tiling, counts and closure.
func auditBlockCounts(b *auditBlock, find func(string, ...any)) {
	var secret engine.Seed
	copy(secret[:], b.Secret)
	if root, err := engine.Commit(b.ref, secret, b.units); err != nil || root != b.root || len(b.units) != b.Size*engine.UnitSize {
		find("block %s: its units and seed do not lead to the published root %s", b.ref, b.root)
	}
	if b.Closed {
		var seed engine.Seed
		copy(seed[:], b.Revealed)
		if !bytes.Equal(b.Revealed, b.Secret) {
			find("block %s: the revealed seed is not the block's seed", b.ref)
		} else if g := engine.GenerateBlock(b.ref, seed); g.Commitment != b.root || !bytes.Equal(g.Units, b.units) {
			find("block %s: does not regenerate from its revealed seed to its published root", b.ref)
		}
	}
	at, voided, unsold := 0, 0, b.Size-b.Next
	for _, p := range b.packs {
		if p.First != at {
			find("block %s: pack %s starts at %d, the packs before end at %d (overlap or gap)", b.ref, p.Serial, p.First, at)
		}
		at = p.First + p.Count
		switch {
		case p.Status == "voided":
			voided += p.Count - p.sold
			for i := p.First; i < p.First+p.Count && i < b.Size && (i+1)*engine.UnitSize <= len(b.units); i++ {
				if !b.soldAt[i] {
					b.allTally[b.units[i*engine.UnitSize]]++
				}
			}
		default:
			unsold += p.Count - p.sold
		}
	}
	if at != b.Next {
		find("block %s: packs cover positions up to %d, its cursor is at %d", b.ref, at, b.Next)
	}
	if b.countSold+voided+unsold != b.Size {
		find("block %s: sold %d + voided %d + unsold %d ≠ %d", b.ref, b.countSold, voided, unsold, b.Size)
	}
	if b.countSold != b.Sold || voided != b.Voided {
		find("block %s: %d sales and %d voided units on record, its closure counts %d and %d (a sale row deleted or added?)",
			b.ref, b.countSold, voided, b.Sold, b.Voided)
	}
	switch {
	case b.Closed && unsold != 0:
		find("block %s: closed with %d positions neither sold nor voided", b.ref, unsold)
	case b.Closed:
		for t := range b.allTally {
			b.allTally[t] += b.soldTally[t]
		}
		if b.allTally != engine.TableTally() {
			find("block %s: sold and voided units tally %v, the prize table %v", b.ref, b.allTally, engine.TableTally())
		}
	case unsold == 0 && b.countSold == b.Sold:
		find("block %s: every position sold or voided but the block is not closed", b.ref)
	}
}

// auditHolding is a row of sql/audit_holdings.sql.
type auditHolding struct {
	Kiosk          string `db:"kiosk"`
	StakeCents     int64  `db:"stake_cents"`
	Held           int64  `db:"held"`
	Allowed        int64  `db:"allowed"`
	ReleasedUnsold int64  `db:"released_unsold"`
	Dropped        int64  `db:"conflicts_dropped"`
}

// releasedUnsoldFinding is how many packs a kiosk may release with nothing
// sold before the audit says so: a kiosk shut down with its pack ahead
// untouched releases one, now and then.
const releasedUnsoldFinding = 3

// auditHoldings reports kiosks holding more unsold units than the claim
// limits allow (a hoard from before them, or limits lowered since),
// releasing packs they sold nothing of (outcomes seen and given back), and
// refused rows not stored beyond the cap.
func auditHoldings(ctx context.Context, tx pgx.Tx, find func(string, ...any)) error {
	rows, _ := tx.Query(ctx, query("audit_holdings"))
	dropped := map[string]bool{}
	return forEachRowByName(rows, func(h auditHolding) error {
		if h.Held > h.Allowed {
			find("kiosk %s: holds %d unsold units at a stake of %s, the claim limits allow %d (over-claiming)", h.Kiosk, h.Held,
				engine.Cents(h.StakeCents), h.Allowed)
		}
		if h.ReleasedUnsold >= releasedUnsoldFinding {
			find("kiosk %s: released %d packs at a stake of %s with nothing sold from them (their outcomes seen, then given back)",
				h.Kiosk, h.ReleasedUnsold, engine.Cents(h.StakeCents))
		}
		if h.Dropped > 0 && !dropped[h.Kiosk] {
			dropped[h.Kiosk] = true
			find("kiosk %s: %d more refused sales or movements, not stored (conflicts_per_kiosk reached)", h.Kiosk, h.Dropped)
		}
		return nil
	})
}

// oddMovement says what is wrong with a movement's amounts for its kind,
// or "": what push_movements refuses since migration 0005.
func oddMovement(kind string, debit, credit int64) string {
	switch {
	case debit < 0 || credit < 0:
		return "negative amount"
	case debit > int64(engine.MaxAmount) || credit > int64(engine.MaxAmount):
		return "amount over the maximum"
	case kind == "sale" && debit == 0:
		return "a sale that takes no stake"
	case kind == "payout" && (debit == 0 || credit != 0):
		return "a payout that pays nothing out"
	case (kind == "grant" || kind == "credit") && (credit == 0 || debit != 0):
		return "a " + kind + " that credits nothing"
	case kind != "sale" && kind != "payout" && kind != "grant" && kind != "credit":
		return "unknown kind " + kind
	}
	return ""
}

// seqRuns are the sequence numbers of a kiosk's rows, as runs of
// consecutive numbers: its sales read block by block and position by
// position come in runs of a pack, its movements in one run, so that the
// audit holds a few runs per kiosk, not a number per row.
type seqRuns []seqRun

type seqRun struct{ lo, hi int64 }

func (r *seqRuns) add(n int64) {
	if l := len(*r); l > 0 && (*r)[l-1].hi+1 == n {
		(*r)[l-1].hi = n
		return
	}
	*r = append(*r, seqRun{n, n})
}

// check reports the numbers 1…last missing from r or held twice.
func (r seqRuns) check(last int64, find func(string)) {
	sort.Slice(r, func(i, j int) bool { return r[i].lo < r[j].lo || r[i].lo == r[j].lo && r[i].hi < r[j].hi })
	want := int64(1) // the first number no run has held yet
	for _, x := range r {
		switch twice := min(x.hi, want-1); {
		case x.lo == twice:
			find(fmt.Sprintf("number %d recorded twice", x.lo))
		case x.lo < twice:
			find(fmt.Sprintf("numbers %d to %d recorded twice", x.lo, twice))
		case x.lo > want:
			find(fmt.Sprintf("numbers %d to %d missing", want, x.lo-1))
		}
		want = max(want, x.hi+1)
	}
	if want <= last {
		find(fmt.Sprintf("numbers %d to %d missing", want, last))
	}
}
