package engine

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"
)

// AuditReport is the outcome of an audit: OK when Findings is empty.
type AuditReport struct {
	Blocks   int
	Records  int
	Wallets  int
	Findings []string
	// Head is the journal's last entry: the anchor staff write down
	// (recover asks for it when the store is lost).
	Head JournalHead
	// Unanchored are the times the store was rebuilt from a journal that
	// nothing outside it vouched for (recover --override): an attendant's
	// word, listed at every audit, never a finding.
	Unanchored []OperatorEvent
	// WeakPIN says why the operator PIN in force would be refused today
	// (set under the former rule), or nil: a notice, never a finding.
	WeakPIN *PINRuleError
}

// OK reports whether the audit found nothing wrong.
func (r AuditReport) OK() bool { return len(r.Findings) == 0 }

// Auditor runs the audit: every check that can be made offline, on the
// store and the journal together.
type Auditor struct {
	w          *writer
	fleet      *Fleet // a kiosk of a fleet: its packs are audited too
	protection Protection
}

// Audit verifies everything that can be verified offline: each block's
// tallies equal the prize table, its commitment matches its units, it
// once exhausted, regenerates bit for bit from its revealed seed; its history records form an intact
// chain, match its units, number exactly its cursor; every record has exactly
// one ledger entry; every wallet's ledger is an intact chain whose sum is the
// balance; the journal is an intact chain that holds exactly the store's
// records and ledger entries. progress, if set, is told how many of total steps are done.
// The error is for an audit that could not run; what it found is in AuditReport.
func (au *Auditor) Audit(ctx context.Context, progress func(done, total int)) (AuditReport, error) {
	// Sales wait while the audit runs: the store, the journal and the
	// lists read first must be the same moment.
	au.w.mu.Lock()
	defer au.w.mu.Unlock()
	start := time.Now()
	a := auditRun{sold: map[BlockRef][]bool{}, perPlayer: map[string]*playerSales{}}
	var blocks []BlockInfo
	var wallets []Wallet
	err := au.w.view(ctx, func(tx ReadTx) (err error) {
		if blocks, err = tx.Blocks(); err != nil {
			return err
		}
		return tx.Wallets(func(w Wallet) error { wallets = append(wallets, w); return nil })
	})
	if err != nil {
		return AuditReport{}, fmt.Errorf("audit: %w", err)
	}
	total := len(blocks) + len(wallets)
	for i, b := range blocks {
		if err := a.block(ctx, au.w.store, b); err != nil {
			return AuditReport{}, fmt.Errorf("audit block %s: %w", b.Ref, err)
		}
		if progress != nil {
			progress(i+1, total)
		}
	}
	if au.fleet != nil {
		if err := a.packs(ctx, au.w, au.fleet.hand.packs); err != nil {
			return AuditReport{}, fmt.Errorf("audit packs: %w", err)
		}
	}
	for i, w := range wallets {
		if err := au.w.view(ctx, func(tx ReadTx) error { return a.wallet(tx, w) }); err != nil {
			return AuditReport{}, fmt.Errorf("audit wallet %s: %w", w.Player, err)
		}
		if progress != nil {
			progress(len(blocks)+i+1, total)
		}
	}
	if au.fleet == nil {
		if err := au.w.view(ctx, func(tx ReadTx) error { return a.accounts(tx, au.protection, wallets) }); err != nil {
			return AuditReport{}, fmt.Errorf("audit accounts: %w", err)
		}
	}
	if au.w.journal != nil {
		var packs []*packInHand
		if au.fleet != nil {
			packs = au.fleet.hand.packs
		}
		if err := au.w.view(ctx, func(tx ReadTx) error { return a.journal(tx, au.w.journal, blocks, wallets, packs) }); err != nil {
			return AuditReport{}, fmt.Errorf("audit journal: %w", err)
		}
	}
	for player, ps := range a.perPlayer {
		if ps.records != ps.entries || ps.net != 0 {
			a.findf("player %s: %d history records but %d sale ledger entries (net difference %s)", player, ps.records, ps.entries, ps.net)
		}
	}
	if err := au.w.view(ctx, func(tx ReadTx) (err error) { a.report.Unanchored, err = unanchored(tx); return err }); err != nil {
		return AuditReport{}, fmt.Errorf("audit operator log: %w", err)
	}
	if err := au.w.view(ctx, func(tx ReadTx) (err error) { a.report.WeakPIN, err = readRule(tx); return err }); err != nil {
		return AuditReport{}, fmt.Errorf("audit operator PIN: %w", err)
	}
	a.report.Blocks, a.report.Wallets = len(blocks), len(wallets)
	rep := a.report
	au.w.log.Info().Bool("ok", rep.OK()).Int("blocks", rep.Blocks).Int("records", rep.Records).Int("wallets", rep.Wallets).
		Int("findings", len(rep.Findings)).Int64("ms", time.Since(start).Milliseconds()).Msg("audit")
	for _, f := range rep.Findings {
		au.w.log.Warn().Str("finding", f).Msg("audit finding")
	}
	return rep, nil
}

// auditRun is one audit as it goes: what it found so far, the units seen
// sold, each player's sales counted twice.
type auditRun struct {
	report    AuditReport
	sold      map[BlockRef][]bool // units seen in history, then in a ledger
	perPlayer map[string]*playerSales
}

// playerSales compares a player's history with the sale entries of the
// player's ledger: both counts and (prize - stake) sums must agree.
type playerSales struct {
	records, entries int
	net              Cents // history's net minus the ledger's
}

// counted checks a history record's funds and counts it for its player,
// whether it came from a block or from a pack.
func (a *auditRun) counted(r Record) {
	if r.BalanceAfter != r.BalanceBefore-r.Stake()+r.Prize() {
		a.findf("ticket %s: funds %s -> %s do not match stake %s and prize %s", r.Ticket, r.BalanceBefore, r.BalanceAfter, r.Stake(), r.Prize())
	}
	ps := a.player(r.Player)
	ps.records++
	ps.net += r.Prize() - r.Stake()
	a.report.Records++
}

func (a *auditRun) findf(format string, args ...any) {
	a.report.Findings = append(a.report.Findings, fmt.Sprintf(format, args...))
}

func (a *auditRun) player(p string) *playerSales {
	ps := a.perPlayer[p]
	if ps == nil {
		ps = &playerSales{}
		a.perPlayer[p] = ps
	}
	return ps
}

func (a *auditRun) block(ctx context.Context, store Store, info BlockInfo) error {
	ref := info.Ref
	b, err := store.LoadBlock(ctx, ref)
	if err != nil {
		a.findf("block %s: cannot be read: %v", ref, err)
		return nil
	}
	if b.Len() != int(info.Size) || info.Size != BlockSize {
		a.findf("block %s: %d units, want %d", ref, b.Len(), BlockSize)
	}
	// The Merkle tree's pass checks and counts the units it hashes. Once
	// exhausted, the seed is public: anyone can redraw the block. A redrawn
	// block equal to the stored one has the stored units' root and tally,
	// so the tree is computed once.
	var root Hash
	var tally Tally
	if info.Exhausted() {
		var g *Block
		if g, tally = generateBlock(ref, info.Seed); bytes.Equal(g.Units, b.Units) {
			root = g.Commitment
		} else {
			a.findf("block %s: does not regenerate from its revealed seed", ref)
			root, tally, err = commitTally(ref, info.Seed, b.Units, nil)
		}
	} else {
		root, tally, err = commitTally(ref, info.Seed, b.Units, nil)
	}
	switch {
	case len(b.Units)%UnitSize != 0:
		a.findf("block %s: %v: %d bytes is not a whole number of units", ref, ErrCorrupt, len(b.Units))
	case err != nil:
		a.findf("block %s: %v", ref, err)
	case tally != TableTally():
		a.findf("block %s: prize tally %v differs from the table %v", ref, tally, TableTally())
	}
	if err != nil || root != info.Commitment {
		a.findf("block %s: units do not match the commitment %s", ref, info.Commitment)
	}
	served := make([]bool, b.Len())
	a.sold[ref] = served
	var n uint32
	var head Hash
	err = store.View(ctx, func(tx ReadTx) error {
		return tx.Records(ref, func(r Record) error {
			t := r.Ticket
			if t.Index != n {
				a.findf("ticket %s: history record out of sequence (expected index %d)", t, n)
			}
			n++
			if r.Prev != head {
				a.findf("ticket %s: history chain broken (record or its predecessor modified)", t)
			}
			head = r.Hash()
			if int(t.Index) >= len(served) {
				a.findf("ticket %s: beyond the block", t)
				return nil
			}
			served[t.Index] = true
			if u, err := b.Unit(int(t.Index)); err != nil || u != r.Unit {
				a.findf("ticket %s: history outcome differs from the block's unit", t)
			}
			a.counted(r)
			return nil
		})
	})
	if err != nil {
		return err
	}
	if n != info.Cursor.Served {
		a.findf("block %s: cursor says %d units served, history has %d", ref, info.Cursor.Served, n)
	}
	if head != info.Cursor.Head {
		a.findf("block %s: history chain head does not match the cursor (last record modified or lost)", ref)
	}
	return nil
}

func (a *auditRun) wallet(tx ReadTx, w Wallet) error {
	var balance Cents
	var seq uint64
	var head Hash
	err := tx.Ledger(w.Player, 1, w.Seq, func(l LedgerEntry) error {
		seq++
		if l.Seq != seq || l.Player != w.Player {
			a.findf("player %s: ledger entry %d out of sequence", w.Player, l.Seq)
		}
		if l.Prev != head {
			a.findf("player %s: ledger chain broken at entry %d (entry modified)", w.Player, l.Seq)
		}
		head = l.Hash()
		balance += l.Credit - l.Debit
		if l.Balance != balance || balance < 0 {
			a.findf("player %s: ledger entry %d says balance %s, sum is %s", w.Player, l.Seq, l.Balance, balance)
		}
		if l.Kind != LedgerSale {
			return nil
		}
		t := l.Ticket
		served := a.sold[t.Block]
		switch {
		case l.Debit != t.Block.Stake:
			a.findf("ticket %s: ledger debit %s is not the stake", t, l.Debit)
		case served == nil || int(t.Index) >= len(served) || !served[t.Index]:
			a.findf("ticket %s: in %s's ledger but not in the history", t, w.Player)
		default:
			served[t.Index] = false // each history record settles once
		}
		ps := a.player(w.Player)
		ps.entries++
		ps.net -= l.Credit - l.Debit
		return nil
	})
	if err != nil {
		return err
	}
	if seq != w.Seq || head != w.Head {
		a.findf("player %s: wallet says %d ledger entries, ledger has %d or its chain head differs", w.Player, w.Seq, seq)
	}
	if balance != w.Balance {
		a.findf("player %s: wallet balance %s, ledger sum %s", w.Player, w.Balance, balance)
	}
	return nil
}

// journal cross-checks the store against the journal. The journal's records
// of each block must form the same chain as the store's (same count, same
// head hash: then every record is the same, byte for byte), and likewise
// each player's ledger entries; the journal must end where the store says.
func (a *auditRun) journal(tx ReadTx, j Journal, blocks []BlockInfo, wallets []Wallet, packs []*packInHand) error {
	chains := map[BlockRef]*Cursor{}
	packHeads := map[*packInHand]Hash{}
	ledgers := map[string]*Wallet{}
	accounts := map[string][]byte{} // the account log's head and the accounts, as last journaled
	var head JournalHead
	defer func() { a.report.Head = head }()
	err := j.Entries(func(e JournalEntry) error {
		head = e.Head()
		for _, r := range e.Records {
			if h := packCovering(packs, r.Ticket); h != nil {
				if r.Prev != packHeads[h] {
					a.findf("ticket %s: the journal's record does not follow pack %s's previous one (journal entry %d)", r.Ticket, h.Serial, e.Seq)
				}
				packHeads[h] = r.Hash()
				continue
			}
			c := chains[r.Ticket.Block]
			if c == nil {
				c = &Cursor{}
				chains[r.Ticket.Block] = c
			}
			if r.Ticket.Index != c.Served || r.Prev != c.Head {
				a.findf("ticket %s: the journal's record does not follow the block's previous one (journal entry %d)", r.Ticket, e.Seq)
			}
			c.Served, c.Head = r.Ticket.Index+1, r.Hash()
		}
		for _, l := range e.Ledger {
			w := ledgers[l.Player]
			if w == nil {
				w = &Wallet{Player: l.Player}
				ledgers[l.Player] = w
			}
			if l.Seq != w.Seq+1 || l.Prev != w.Head {
				a.findf("player %s: the journal's ledger entry %d does not follow entry %d (journal entry %d)", l.Player, l.Seq, w.Seq, e.Seq)
			}
			w.Seq, w.Head = l.Seq, l.Hash()
		}
		for _, st := range e.Settings {
			if st.Name == accountLogHead || strings.HasPrefix(st.Name, accountPrefix) || strings.HasPrefix(st.Name, playPrefix) {
				accounts[st.Name] = st.Value
			}
		}
		return nil
	})
	if err != nil {
		a.findf("journal: %v", err)
		return nil
	}
	for _, b := range blocks {
		c := chains[b.Ref]
		if c == nil {
			c = &Cursor{}
		}
		if *c != b.Cursor {
			a.findf("block %s: the journal holds %d sales, the store %d, or their records differ", b.Ref, c.Served, b.Cursor.Served)
		}
		delete(chains, b.Ref)
	}
	for ref, c := range chains {
		a.findf("block %s: %d sales in the journal, block unknown to the store", ref, c.Served)
	}
	for _, h := range packs {
		if packHeads[h] != h.cur.Head {
			a.findf("pack %s: the journal's sales and the store's differ", h.Serial)
		}
	}
	for _, w := range wallets {
		l := ledgers[w.Player]
		if l == nil {
			l = &Wallet{}
		}
		if l.Seq != w.Seq || l.Head != w.Head {
			a.findf("player %s: the journal holds %d ledger entries, the store %d, or they differ", w.Player, l.Seq, w.Seq)
		}
		delete(ledgers, w.Player)
	}
	for p, l := range ledgers {
		a.findf("player %s: %d ledger entries in the journal, no wallet in the store", p, l.Seq)
	}
	for name, v := range accounts {
		if got, _, err := tx.Setting(name); err != nil {
			return err
		} else if !bytes.Equal(got, v) {
			a.findf("%s: the store's differs from the journal's (account log or account modified)", name)
		}
	}
	stored, ok, err := tx.Journal()
	if err != nil {
		return err
	}
	if ok && stored.Head != head || !ok && head.Seq != 0 {
		a.findf("the journal ends at entry %d, the store at entry %d", head.Seq, stored.Head.Seq)
	}
	return nil
}

// packs audits a fleet's kiosk's packs: each verifies against its block's
// root; its history records form an intact chain of their own, match its
// units, lie below its cursor and end at its head.
func (a *auditRun) packs(ctx context.Context, w *writer, held []*packInHand) error {
	byBlock := map[BlockRef][]*packInHand{}
	var refs []BlockRef
	for _, h := range held {
		if byBlock[h.Block] == nil {
			refs = append(refs, h.Block)
		}
		byBlock[h.Block] = append(byBlock[h.Block], h)
	}
	for _, ref := range refs {
		hs := byBlock[ref]
		bodies := map[*packInHand]*Pack{}
		err := w.view(ctx, func(tx ReadTx) error {
			for _, h := range hs {
				stored, err := readPackInHand(tx, h.Serial)
				if err != nil {
					a.findf("pack %s: %v", h.Serial, err)
					continue
				}
				bodies[h] = stored.body
			}
			return nil
		})
		if err != nil {
			return err
		}
		served := make([]bool, BlockSize)
		a.sold[ref] = served
		heads := map[*packInHand]Hash{}
		err = w.view(ctx, func(tx ReadTx) error {
			return tx.Records(ref, func(r Record) error {
				t := r.Ticket
				h := packCovering(hs, t)
				if h == nil || int(t.Index) >= len(served) {
					a.findf("ticket %s: a history record outside the packs held", t)
					return nil
				}
				if r.Prev != heads[h] {
					a.findf("ticket %s: history chain of pack %s broken (record or its predecessor modified)", t, h.Serial)
				}
				heads[h] = r.Hash()
				served[t.Index] = true
				if t.Index >= h.cur.Next {
					a.findf("ticket %s: beyond pack %s's cursor", t, h.Serial)
				}
				if b := bodies[h]; b != nil {
					if u, err := b.Unit(t.Index - h.First); err != nil || u != r.Unit {
						a.findf("ticket %s: history outcome differs from pack %s's unit", t, h.Serial)
					}
				}
				a.counted(r)
				return nil
			})
		})
		if err != nil {
			return err
		}
		for _, h := range hs {
			if heads[h] != h.cur.Head {
				a.findf("pack %s: history chain head does not match the cursor (last record modified or lost)", h.Serial)
			}
		}
	}
	return nil
}
