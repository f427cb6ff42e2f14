package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// syncLoop is the kiosk's background loop: at once a first round
// (KioskState first, so that a kiosk restored from a backup never sells a
// position the central knows), then every SyncEvery, or sooner when a sale
// asks; slower, up to maxBackoff, while the central cannot be reached.
//
// A stop cancels the round in flight: the context NewService was given
// ending (the program told to stop), or Close. Nothing is lost by it: every
// sale and movement is durable in the store before anyone sees it, and
// what the central has not acknowledged is pushed again at the next start.
type syncLoop struct {
	f          *Fleet
	claimed    chan struct{} // closed when the current round ends (guarded by the writer's lock)
	lastErr    error         // the last round's failure, nil after a good one (guarded by the writer's lock)
	stopped    bool          // the loop has ended: no round will claim (guarded by the writer's lock)
	kick       chan struct{} // wakes the loop
	parent     context.Context
	ctx        context.Context    // the loop's: ends with parent, or at stop
	cancel     context.CancelFunc // ends ctx
	done       chan struct{}
	nextBeat   time.Time // the loop's: when the next heartbeat is due (zero: at once)
	reconciled bool      // the loop's: KioskState applied since the start
}

func newSyncLoop(f *Fleet) *syncLoop {
	return &syncLoop{f: f, claimed: make(chan struct{}), kick: make(chan struct{}, 1), done: make(chan struct{}),
		parent: context.Background(), ctx: context.Background(), cancel: func() {}}
}

// start runs the first round, then the loop in the background, until ctx
// ends or stop.
func (l *syncLoop) start(ctx context.Context) {
	if l.f.cfg.Central == nil {
		close(l.done)
		return
	}
	l.parent = ctx
	l.ctx, l.cancel = context.WithCancel(ctx)
	first, cancel := context.WithTimeout(l.ctx, 3*time.Second)
	l.lastErr = l.round(first)
	cancel()
	go l.run()
}

// stop cancels the round in flight, ends the loop and waits for it.
func (l *syncLoop) stop() {
	l.cancel()
	<-l.done
}

// poke wakes the loop.
func (l *syncLoop) poke() {
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

func (l *syncLoop) run() {
	defer l.end()
	delay := l.f.cfg.SyncEvery
	if l.lastErr != nil {
		delay = time.Second
	}
	timer := time.NewTimer(jitter(delay))
	defer timer.Stop()
	for {
		select {
		case <-l.ctx.Done():
			return
		case <-l.kick:
			if l.err() != nil {
				continue // backing off: the timer decides
			}
			if !timer.Stop() {
				select { // drained, so that Reset below starts afresh
				case <-timer.C:
				default:
				}
			}
		case <-timer.C:
		}
		ctx, cancel := context.WithTimeout(l.ctx, netTimeout)
		err := l.round(ctx)
		cancel()
		switch {
		case l.ctx.Err() != nil:
			l.f.w.log.Info().AnErr("err", err).Msg("sync: stopping; what the central lacks is pushed at the next start")
			return
		case err != nil:
			delay = min(max(2*delay, time.Second), maxBackoff)
			l.f.w.log.Warn().AnErr("err", err).Str("retry_in", delay.String()).Msg("central unreachable or refusing")
		default:
			delay = l.f.cfg.SyncEvery
		}
		timer.Reset(jitter(delay))
	}
}

// end marks the loop ended and wakes the sales waiting for a claim: none
// will come.
func (l *syncLoop) end() {
	l.f.w.mu.Lock()
	l.stopped = true
	close(l.claimed)
	l.claimed = make(chan struct{})
	l.f.w.mu.Unlock()
	close(l.done)
}

// err is the last round's failure (it takes the writer's lock).
func (l *syncLoop) err() error {
	l.f.w.mu.Lock()
	defer l.f.w.mu.Unlock()
	return l.lastErr
}

// round is one turn of the loop: reconcile once, push the backlog, return
// released remainders, claim packs ahead, tell the central the kiosk lives.
// Whatever happens, sales waiting for a pack are woken at its end.
func (l *syncLoop) round(ctx context.Context) (err error) {
	f := l.f
	defer func() {
		f.w.mu.Lock()
		l.lastErr = err
		close(l.claimed)
		l.claimed = make(chan struct{})
		f.w.mu.Unlock()
	}()
	if !l.reconciled {
		if err := f.reconcile(ctx); err != nil {
			return err
		}
		l.reconciled = true
	}
	refused, err := f.claim(ctx) // first: a sale may be waiting for it
	if err != nil {
		return err
	}
	f.pushMu.Lock()
	more, err := f.push(ctx, roundBatches)
	f.pushMu.Unlock()
	if err != nil {
		if errors.Is(err, ErrSyncGap) {
			l.reconciled = false
		}
		return err
	}
	if refused { // the sales just pushed may be what the central waited for
		if _, err := f.claim(ctx); err != nil {
			return err
		}
	}
	if more {
		l.poke() // the rest at once, after a look at the packs
	}
	if err := f.releasePending(ctx); err != nil {
		return err
	}
	if err := f.tendLeases(ctx); err != nil {
		return err
	}
	return l.heartbeat(ctx)
}

// heartbeat tells the central, about once per HeartbeatEvery (jittered),
// that the kiosk lives.
func (l *syncLoop) heartbeat(ctx context.Context) error {
	if l.f.w.now().Before(l.nextBeat) {
		return nil
	}
	if err := l.f.beat(ctx); err != nil {
		return err
	}
	l.nextBeat = l.f.w.now().Add(jitter(l.f.cfg.HeartbeatEvery))
	return nil
}

// jitter spreads a period over ±20 %: a fleet's kiosks, started together
// or met together by a central that restarts, do not call it in the same
// second.
func jitter(d time.Duration) time.Duration {
	return d - d/5 + rand.N(2*d/5+1)
}

// beat tells the central that the kiosk lives, what it has not pushed yet
// (what support staff see of it: FleetView) and its journal's head, which
// the central anchors: a head behind the one it anchored before is
// refused, and the kiosk goes out of service (ErrJournalBehind).
func (f *Fleet) beat(ctx context.Context) error {
	var backlog int
	err := f.w.view(ctx, func(tx ReadTx) error {
		st, err := readFleetState(tx)
		backlog = st.backlog()
		return err
	})
	if err != nil {
		return err
	}
	f.w.mu.Lock()
	head := f.w.jhead
	f.w.mu.Unlock()
	start := time.Now()
	_, err = f.cfg.Central.Heartbeat(ctx, backlog, head)
	if err == nil {
		f.w.log.Debug().Int("backlog", backlog).Float64("ms", millis(time.Since(start))).Msg("heartbeat")
	}
	if errors.Is(err, ErrJournalBehind) {
		f.w.mu.Lock()
		err = f.w.outOfService(false, fmt.Sprintf("the central refused this kiosk's journal head %s: it anchored a later one "+
			"(or another entry %d) at an earlier sync: the journal was cut or the data directory replaced by an older copy; "+
			"the central's audit lists the alarm", head, head.Seq))
		f.w.mu.Unlock()
	}
	if err != nil {
		return err
	}
	return f.touch(ctx)
}

// Sync pushes every movement (and the sales among them) the central does
// not have yet, in batches, returns the remainders released, and sends a
// heartbeat (the journal's head anchored).
func (f *Fleet) Sync(ctx context.Context) error {
	if f.cfg.Central == nil {
		return ErrNeedsCentral
	}
	if err := f.pushAll(ctx); err != nil {
		return err
	}
	return f.beat(ctx) // the journal's head anchored at once
}

// pushAll pushes what the central lacks and returns the remainders
// released: what a closing kiosk hands over before it exits.
func (f *Fleet) pushAll(ctx context.Context) error {
	f.pushMu.Lock()
	_, err := f.push(ctx, -1)
	f.pushMu.Unlock()
	if err != nil {
		return err
	}
	return f.releasePending(ctx)
}

// push pushes at most batches batches (-1: all), and says whether more
// wait. Called with pushMu.
func (f *Fleet) push(ctx context.Context, batches int) (more bool, err error) {
	for ; batches != 0; batches-- {
		n, err := f.pushOnce(ctx)
		if err != nil || n == 0 {
			return false, err
		}
	}
	return true, nil
}

// pushOnce pushes one batch; it returns how many movements it pushed. The
// movements committed since this program started come from the writer's
// queue; the others (older, or left out of it) are read back from the
// store, which holds the same.
func (f *Fleet) pushOnce(ctx context.Context) (int, error) {
	f.w.mu.Lock()
	ranges := f.hand.ranges()
	queued := f.w.queue.first(pushBatch) // committed: in the view below
	f.w.mu.Unlock()
	var sales []FleetSale
	var moves []FleetMovement
	err := f.w.view(ctx, func(tx ReadTx) error {
		st, err := readFleetState(tx)
		if err != nil {
			return err
		}
		for seq := st.Pushed + 1; seq <= st.MovSeq && len(moves) < pushBatch; seq++ {
			for len(queued) > 0 && queued[0].seq < seq { // pushed already
				queued = queued[1:]
			}
			var it outItem
			if len(queued) > 0 && queued[0].seq == seq {
				it = queued[0]
			} else if it, err = readOutItem(tx, seq); err != nil {
				return err
			}
			m, s := it.fleet(ranges)
			moves = append(moves, m)
			if s != nil {
				sales = append(sales, *s)
			}
		}
		return nil
	})
	if err != nil || len(moves) == 0 {
		return 0, err
	}
	start := time.Now() // the batch's round trips, its sales' and its movements'
	if len(sales) > 0 {
		if r, err := f.cfg.Central.PushSales(ctx, sales); err != nil {
			return 0, err
		} else if r.Conflicts > 0 {
			f.w.log.Error().Int("conflicts", r.Conflicts).Msg("the central refused sales as conflicts (see central audit)")
		}
	}
	r, err := f.cfg.Central.PushMovements(ctx, moves)
	if err != nil {
		return 0, err
	}
	if r.Conflicts > 0 {
		f.w.log.Error().Int("conflicts", r.Conflicts).Msg("the central refused movements as conflicts (see central audit)")
	}
	f.w.log.Debug().Int("sales", len(sales)).Int("movements", len(moves)).Float64("ms", millis(time.Since(start))).Msg("pushed")
	last := moves[len(moves)-1].Seq
	f.w.mu.Lock()
	defer f.w.mu.Unlock()
	f.w.queue.drop(last)
	f.link.last = f.w.now().UTC()
	f.pushedAt = time.Now()
	return len(moves), f.saveState(ctx, func(st *fleetState) { st.Pushed = max(st.Pushed, last) })
}

// millis is d in milliseconds, to the microsecond: the ms of the log's
// lines that time a call to the central (a claim, a push, a heartbeat).
func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// outItem is movement seq of the outbox with what the push sends of it: its
// ledger entry and, when it sells a unit, the sale.
type outItem struct {
	seq  uint64
	o    outEntry
	l    LedgerEntry
	sale *Sale // nil: not a sale
}

// readOutItem reads movement seq of the outbox, and its sale if it is one.
func readOutItem(tx ReadTx, seq uint64) (outItem, error) {
	o, err := readOutEntry(tx, seq)
	if err != nil {
		return outItem{}, err
	}
	it := outItem{seq: seq, o: o}
	var found bool
	if err := tx.Ledger(o.Player, o.Ledger, o.Ledger, func(e LedgerEntry) error { it.l, found = e, true; return nil }); err != nil || !found {
		return it, fmt.Errorf("%w: ledger entry %d of %s for outbox entry %d (%v)", ErrCorrupt, o.Ledger, o.Player, seq, err)
	}
	if o.SaleSeq == 0 {
		return it, nil
	}
	sale, err := readSale(tx, it.l.Ticket)
	it.sale = &sale
	return it, err
}

// fleet is the movement as pushed, and its sale from the pack in packs
// that holds it.
func (it outItem) fleet(packs []packInHand) (FleetMovement, *FleetSale) {
	o, l := it.o, it.l
	// The id names the movement number too: a kiosk restored from an old
	// backup writes its ledger entries again under new numbers.
	m := FleetMovement{Seq: it.seq, ID: fmt.Sprintf("%d:%s/%d", it.seq, o.Player, o.Ledger), Player: o.Player, Kind: l.Kind,
		Debit: l.Debit, Credit: l.Credit, Time: l.Time, Lease: o.Lease}
	t := l.Ticket
	if o.SaleSeq != 0 || o.Hand != nil {
		m.Ticket = &t
	}
	if o.Hand != nil {
		h := *o.Hand
		h.PaidBy = l.Actor
		m.Hand = &h
	}
	if o.SaleSeq == 0 {
		return m, nil
	}
	sale := it.sale
	s := &FleetSale{Seq: o.SaleSeq, Ticket: t, Time: sale.Time, Player: sale.Player, Unit: sale.Unit, Revealed: sale.Done()}
	for _, h := range packs {
		if h.covers(t) {
			s.Pack = h.Serial
		}
	}
	return m, s
}

// outQueueMax bounds the writer's queue: a kiosk that cannot push reads
// the rest of its backlog back from the store when it can.
const outQueueMax = 8 * pushBatch

// outQueue is what the outbox gained since the program started and the
// central does not have yet, as committed, in order of number, so that a
// push sends it without reading it back. A sale whose reveal had not ended
// when it was committed is left out: a push reads it back, and tells the
// central whether it has ended by then. Guarded by the writer's lock.
type outQueue struct{ items []outItem }

// add queues the movements a committed transaction numbered, with the
// sales of entry, its journal entry.
func (q *outQueue) add(added []outItem, entry JournalEntry) {
	if len(added) == 0 || len(q.items)+len(added) > outQueueMax {
		return
	}
	var records map[Ticket]int
	var reveals map[Ticket]Reveal
	for _, it := range added {
		if it.o.SaleSeq == 0 {
			q.items = append(q.items, it)
			continue
		}
		if len(entry.Reveals) == 0 { // a unit on the board: its reveal is to come
			continue
		}
		if records == nil {
			records = make(map[Ticket]int, len(entry.Records))
			for i, r := range entry.Records {
				records[r.Ticket] = i
			}
			reveals = make(map[Ticket]Reveal, len(entry.Reveals))
			for _, r := range entry.Reveals {
				reveals[r.Ticket] = r.Reveal
			}
		}
		i, ok := records[it.l.Ticket]
		rv, shown := reveals[it.l.Ticket]
		if !ok || !shown {
			continue
		}
		if sale := (Sale{Record: entry.Records[i], Reveal: rv}); sale.Done() {
			it.sale = &sale
			q.items = append(q.items, it)
		}
	}
}

// first is a copy of the n first items.
func (q *outQueue) first(n int) []outItem { return slices.Clone(q.items[:min(n, len(q.items))]) }

// drop forgets the items numbered up to last: the central has them.
func (q *outQueue) drop(last uint64) {
	n, _ := slices.BinarySearchFunc(q.items, last+1, func(it outItem, seq uint64) int { return cmp.Compare(it.seq, seq) })
	q.items = slices.Delete(q.items, 0, n)
}

// The outbox, as the store keeps it.
const fleetStateKey = "fleet/state"

func outboxKey(seq uint64) string { return fmt.Sprintf("fleet/out/%020d", seq) }

// fleetState is the kiosk's numbering and its position with the central.
type fleetState struct {
	Kiosk           string
	SaleSeq, MovSeq uint64    // the last numbers given
	Pushed          uint64    // the last movement the central has
	Contact         time.Time // the last round trip (zero: none)
}

// backlog is the number of movements (sales among them) the central lacks.
func (s fleetState) backlog() int { return int(s.MovSeq - min(s.Pushed, s.MovSeq)) }

func (s fleetState) encode() []byte {
	e := encoder{}
	e.u8(codecVersion)
	e.str(s.Kiosk)
	e.u64(s.SaleSeq)
	e.u64(s.MovSeq)
	e.u64(s.Pushed)
	e.time(s.Contact)
	return e.b
}

func readFleetState(tx ReadTx) (fleetState, error) {
	v, ok, err := tx.Setting(fleetStateKey)
	if err != nil || !ok {
		return fleetState{}, err
	}
	d := decoder{b: v}
	d.version("fleet state")
	s := fleetState{Kiosk: d.str(), SaleSeq: d.u64(), MovSeq: d.u64(), Pushed: d.u64(), Contact: d.time()}
	if s.Contact.UnixNano() == (time.Time{}).UnixNano() {
		s.Contact = time.Time{}
	}
	return s, d.done("fleet state")
}

// outEntry is one movement of the outbox: a ledger entry, and its sale
// number when it sells a unit.
type outEntry struct {
	Player  string
	Ledger  uint64
	SaleSeq uint64 // 0: not a sale
	Lease   int64  // the player's lease (0: none; absent from entries written before leases)
	// Hand is a hand pay's facts but its payer, the ledger entry's actor
	// (nil: not a hand pay; absent from entries written before them).
	Hand *HandPay
}

func (o outEntry) encode() []byte {
	e := encoder{}
	e.u8(codecVersion)
	e.str(o.Player)
	e.u64(o.Ledger)
	e.u64(o.SaleSeq)
	if o.Lease != 0 || o.Hand != nil {
		e.i64(o.Lease)
	}
	if h := o.Hand; h != nil {
		e.str(h.Document)
		e.str(h.CheckedBy)
		e.str(h.Method)
		e.str(h.Reference)
	}
	return e.b
}

func decodeOutEntry(v []byte) (outEntry, error) {
	d := decoder{b: v}
	d.version("outbox entry")
	o := outEntry{Player: d.str(), Ledger: d.u64(), SaleSeq: d.u64()}
	if len(d.b) > 0 {
		o.Lease = d.i64()
	}
	if len(d.b) > 0 {
		o.Hand = &HandPay{Document: d.str(), CheckedBy: d.str(), Method: d.str(), Reference: d.str()}
	}
	return o, d.done("outbox entry")
}

// readOutEntry reads movement seq of the outbox.
func readOutEntry(tx ReadTx, seq uint64) (outEntry, error) {
	v, ok, err := tx.Setting(outboxKey(seq))
	if err != nil || !ok {
		return outEntry{}, fmt.Errorf("%w: outbox entry %d missing (%v)", ErrCorrupt, seq, err)
	}
	return decodeOutEntry(v)
}

// outbox numbers the ledger entries of one transaction for the central:
// every movement of funds (sales, credits, payouts, grants) goes to the
// outbox in the transaction that makes it.
type outbox struct {
	st     fleetState
	loaded bool
	dirty  bool
	added  []outItem // the movements numbered, for the writer's queue once committed
}

func (o *outbox) add(t *journalTx, l LedgerEntry) error {
	if !o.loaded {
		st, err := readFleetState(t.Tx)
		if err != nil {
			return err
		}
		o.st, o.loaded = st, true
	}
	o.st.MovSeq++
	e := outEntry{Player: l.Player, Ledger: l.Seq, Lease: t.lease}
	if l.Kind == LedgerPayout {
		e.Hand = t.hand
	}
	if l.Kind == LedgerSale {
		o.st.SaleSeq++
		e.SaleSeq = o.st.SaleSeq
	}
	o.dirty = true
	o.added = append(o.added, outItem{seq: o.st.MovSeq, o: e, l: l})
	return t.PutSetting(outboxKey(o.st.MovSeq), e.encode())
}
