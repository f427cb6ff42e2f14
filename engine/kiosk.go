package engine

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// The kiosk's side of a fleet (README "Fleet"): units come from packs the
// central hands out instead of blocks drawn here. A pack is verified against
// its block's root before it is stored, stored in the same durable store as
// everything else (as settings, so the journal keeps it too), and sold from
// with the same single durable transaction as a local block: a sale never
// waits for the network. A background loop claims the next pack before the
// held ones run out, pushes every ledger movement (and the sales among them)
// to the central, and keeps in touch; a kiosk that has not reached its
// central for longer than its offline grace stops selling (ErrOffline).
//
// What the store holds, all under "fleet/" settings:
//
//	fleet/state          the kiosk's id, its last sale and movement numbers,
//	                     the last movement the central has, the last contact
//	fleet/packs          the serials of the packs held, in claim order
//	fleet/pack/SERIAL/N  a pack as the central sent it (units, salts, proof),
//	                     in chunks the journal can hold
//	fleet/pcur/SERIAL    its cursor: next position, end, last record's hash
//	fleet/out/SEQ        the outbox: movement SEQ is ledger entry (player, n),
//	                     and sale number m when it is a sale
//
// A pack's history records form a hash chain of their own (Record.Prev is
// the pack's previous record), as a local block's do.

// FleetConfig makes a Service a kiosk of a fleet.
type FleetConfig struct {
	Central Central
	// Kiosk is the kiosk's id as the settings name it ("" accepts the
	// central's); a data directory belongs to one kiosk.
	Kiosk string
	// OfflineGrace is how long the kiosk sells from its packs without
	// reaching the central; 0 is the strict mode: no sale without a round
	// trip in the last StrictContact.
	OfflineGrace time.Duration
	// SyncEvery is the pause of the background loop when all is well
	// (0: one second).
	SyncEvery time.Duration
}

// DefaultOfflineGrace is the offline grace when the settings name none.
const DefaultOfflineGrace = 15 * time.Minute

// StrictContact is how recent the last round trip with the central must be
// for a sale in strict mode (offline grace 0).
const StrictContact = 30 * time.Second

const (
	fleetStateKey = "fleet/state"
	fleetPacksKey = "fleet/packs"
	pushBatch     = 1000             // movements per push
	claimWait     = 15 * time.Second // the longest a sale waits for a first pack
	maxBackoff    = 30 * time.Second
	netTimeout    = 60 * time.Second // one round of the background loop
	roundBatches  = 4                // pushes per round: claims are not kept waiting
	noPackRetry   = 30 * time.Second // the central had no pack: ask again after this
)

func packBodyKey(serial string, chunk int) string {
	return fmt.Sprintf("fleet/pack/%s/%d", serial, chunk)
}

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
func packCursorKey(serial string) string { return packCursorPrefix + serial }

const packCursorPrefix = "fleet/pcur/"

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

// outEntry is one movement of the outbox: a ledger entry, and its sale
// number when it sells a unit.
type outEntry struct {
	Player  string
	Ledger  uint64
	SaleSeq uint64 // 0: not a sale
}

func (o outEntry) encode() []byte {
	e := encoder{}
	e.u8(codecVersion)
	e.str(o.Player)
	e.u64(o.Ledger)
	e.u64(o.SaleSeq)
	return e.b
}

func decodeOutEntry(v []byte) (outEntry, error) {
	d := decoder{b: v}
	d.version("outbox entry")
	o := outEntry{Player: d.str(), Ledger: d.u64(), SaleSeq: d.u64()}
	return o, d.done("outbox entry")
}

// outbox numbers the ledger entries of one transaction for the central:
// every movement of funds (sales, credits, payouts, grants) goes to the
// outbox in the transaction that makes it.
type outbox struct {
	st     fleetState
	loaded bool
	dirty  bool
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
	e := outEntry{Player: l.Player, Ledger: l.Seq}
	if l.Kind == LedgerSale {
		o.st.SaleSeq++
		e.SaleSeq = o.st.SaleSeq
	}
	o.dirty = true
	return t.PutSetting(outboxKey(o.st.MovSeq), e.encode())
}

// heldPack is a pack the kiosk holds (or held: sold-out packs stay listed,
// their bodies are dropped from memory).
type heldPack struct {
	Serial       string
	Block        BlockRef
	First, Count uint32
	cur          packCursor
	body         *Pack // nil once nothing is left to sell
}

func (h *heldPack) left() uint32 {
	if h.cur.End <= h.cur.Next {
		return 0
	}
	return h.cur.End - h.cur.Next
}

func (h *heldPack) holds(t Ticket) bool {
	return t.Block == h.Block && t.Index >= h.First && t.Index < h.First+h.Count
}

// Fleet is the kiosk's side of a fleet: its packs, its outbox and the
// background loop that talks to the central. Its fields are guarded by the
// writer's lock unless said otherwise.
type Fleet struct {
	w       *writer
	cfg     FleetConfig
	demo    Cents
	packs   []*heldPack
	wanted  map[Cents]bool      // stakes sold from: the loop keeps a pack ahead for them
	noPack  map[Cents]time.Time // when the central last had no pack at the stake
	contact time.Time           // the last round trip with the central
	beat    time.Time           // the loop's: the last heartbeat
	saved   time.Time           // the contact as the store has it
	claimed chan struct{}       // closed when the loop's current round ends
	lastErr error               // the loop's last failure, nil after a good round

	pushMu     sync.Mutex    // one push at a time
	kick       chan struct{} // wakes the loop
	stop, done chan struct{}
	reconciled bool // the loop's: KioskState applied since the start
}

func newFleet(w *writer, cfg FleetConfig, demo Cents) *Fleet {
	if cfg.SyncEvery <= 0 {
		cfg.SyncEvery = time.Second
	}
	return &Fleet{w: w, cfg: cfg, demo: demo, wanted: map[Cents]bool{}, noPack: map[Cents]time.Time{},
		claimed: make(chan struct{}), kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
}

// load reads the packs held and checks each one: its body against its root
// and its cursor against its last record. Called with mu.
func (f *Fleet) load(ctx context.Context) error {
	var problems []string
	err := f.w.view(ctx, func(tx ReadTx) error {
		st, err := readFleetState(tx)
		if err != nil {
			return err
		}
		if f.cfg.Kiosk != "" && st.Kiosk != "" && st.Kiosk != f.cfg.Kiosk {
			problems = append(problems, fmt.Sprintf("this data directory belongs to kiosk %q, not %q", st.Kiosk, f.cfg.Kiosk))
		}
		f.contact, f.saved = st.Contact, st.Contact
		serials, err := readSerials(tx)
		if err != nil {
			return err
		}
		for _, s := range serials {
			h, err := readHeld(tx, s)
			if err != nil {
				problems = append(problems, fmt.Sprintf("pack %s: %v", s, err))
				continue
			}
			problems = append(problems, checkPackCursor(tx, h)...)
			if h.left() == 0 {
				h.body = nil
			} else {
				// A kiosk restarted in the middle of a pack keeps one ahead
				// from its first round, as it did before, not from its
				// first sale: the central may be away by then.
				f.wanted[h.Block.Stake] = true
			}
			f.packs = append(f.packs, h)
		}
		return nil
	})
	if err != nil {
		problems = append(problems, fmt.Sprintf("the fleet's packs cannot be read: %v", err))
	}
	return f.w.outOfService(false, problems...)
}

func readSerials(tx ReadTx) ([]string, error) {
	v, ok, err := tx.Setting(fleetPacksKey)
	if err != nil || !ok || len(v) == 0 {
		return nil, err
	}
	return strings.Split(string(v), "\n"), nil
}

// readHeld reads a stored pack and its cursor, and verifies the pack again.
func readHeld(tx ReadTx, serial string) (*heldPack, error) {
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
	return &heldPack{Serial: serial, Block: p.Block, First: p.First, Count: p.Count(), cur: c, body: &p}, nil
}

// checkPackCursor: the pack's cursor hashes its last record and no record
// lies at or beyond its next position.
func checkPackCursor(tx ReadTx, h *heldPack) []string {
	var problems []string
	if h.cur.HasLast {
		r, err := tx.Record(Ticket{Block: h.Block, Index: h.cur.Last})
		if err != nil || r.Hash() != h.cur.Head {
			problems = append(problems, fmt.Sprintf("pack %s: last record %d does not match the chain head (%v)", h.Serial, h.cur.Last, err))
		}
	} else if h.cur.Head != (Hash{}) {
		problems = append(problems, fmt.Sprintf("pack %s: a chain head without a record", h.Serial))
	}
	if h.cur.Next < h.First+h.Count {
		if _, err := tx.Record(Ticket{Block: h.Block, Index: h.cur.Next}); !errors.Is(err, ErrUnknownTicket) {
			problems = append(problems, fmt.Sprintf("pack %s: a record lies beyond the cursor (next %d)", h.Serial, h.cur.Next))
		}
	}
	return problems
}

// fleetStore reports whether store is a fleet kiosk's: opened without its
// central, it draws no block of its own (its tickets are the central's).
func fleetStore(ctx context.Context, store Store) bool {
	var ok bool
	_ = store.View(ctx, func(tx ReadTx) (err error) {
		_, ok, err = tx.Setting(fleetStateKey)
		return err
	})
	return ok
}

// held is the units left at the stake. Called with mu.
func (f *Fleet) held(stake Cents) (n uint32) {
	for _, h := range f.packs {
		if h.Block.Stake == stake {
			n += h.left()
		}
	}
	return n
}

// lowWater: below it, the loop claims another pack (one pack ahead).
// Called with mu.
func (f *Fleet) lowWater(stake Cents) uint32 {
	var n uint32 = 1
	for _, h := range f.packs {
		if h.Block.Stake == stake {
			n = h.Count
		}
	}
	return n
}

// offline is nil while the kiosk may sell, an *OfflineError otherwise.
// Called with mu.
func (f *Fleet) offline() error {
	limit := f.cfg.OfflineGrace
	if limit == 0 {
		limit = StrictContact
	}
	if f.contact.IsZero() || f.w.now().Sub(f.contact) > limit {
		return &OfflineError{Since: f.contact, Grace: f.cfg.OfflineGrace}
	}
	return nil
}

// poke wakes the background loop.
func (f *Fleet) poke() {
	select {
	case f.kick <- struct{}{}:
	default:
	}
}

// sell sells req's units from the packs held at its stake, in one durable
// transaction as a local block's. With no unit held at all (a new kiosk, a
// new stake) it waits for the loop's claim, at most claimWait.
func (f *Fleet) sell(ctx context.Context, req SellRequest) ([]Sale, error) {
	if f.cfg.Central == nil {
		return nil, ErrNeedsCentral
	}
	deadline := time.Now().Add(claimWait)
	asked := time.Now()
	for woke := false; ; woke = true {
		f.w.mu.Lock()
		if err := f.w.err(); err != nil {
			f.w.mu.Unlock()
			return nil, err
		}
		if err := f.offline(); err != nil {
			f.w.mu.Unlock()
			f.poke()
			return nil, err
		}
		f.wanted[req.Stake] = true
		if f.held(req.Stake) > 0 {
			sales, err := f.sellHeld(ctx, req)
			low := f.held(req.Stake) < f.lowWater(req.Stake)
			f.w.mu.Unlock()
			if low {
				f.poke()
			}
			if err != nil {
				f.w.log.Warn().Str("player", req.Player).Int64("stake", int64(req.Stake)).AnErr("err", err).Msg("sale refused")
			}
			return sales, err
		}
		if t, ok := f.noPack[req.Stake]; ok && !t.Before(asked.Add(-noPackRetry)) {
			f.w.mu.Unlock()
			return nil, fmt.Errorf("%w: %w (%s)", ErrStakeClosed, ErrNoPack, req.Stake)
		}
		wait, cause := f.claimed, f.lastErr
		f.w.mu.Unlock()
		if woke && cause != nil { // the round that was to claim failed: say why at once
			return nil, fmt.Errorf("no pack held at %s: %w", req.Stake, cause)
		}
		f.poke()
		left := time.Until(deadline)
		if left <= 0 {
			if cause == nil {
				cause = ErrCentralUnavailable
			}
			return nil, fmt.Errorf("no pack held at %s: %w", req.Stake, cause)
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(left):
		}
	}
}

// sellHeld writes the sale of req's units from the held packs. Called with mu.
func (f *Fleet) sellHeld(ctx context.Context, req SellRequest) ([]Sale, error) {
	now := f.w.now().UTC()
	var sales []Sale
	moved := map[*heldPack]packCursor{}
	err := f.w.update(ctx, func(tx *journalTx) error {
		tx.grow(req.Count)
		w, err := openWallet(tx, req.Player, now, f.demo, f.w.log)
		if err != nil {
			return err
		}
		i := 0
	packs:
		for _, h := range f.packs {
			if h.Block.Stake != req.Stake || h.left() == 0 {
				continue
			}
			c := h.cur
			for ; i < req.Count && c.Next < c.End; i++ {
				if w.Balance < req.Stake {
					if i == 0 {
						return fmt.Errorf("%w: balance %s, stake %s", ErrInsufficientFunds, w.Balance, req.Stake)
					}
					break
				}
				t := Ticket{Block: h.Block, Index: c.Next}
				u, err := h.body.Unit(c.Next - h.First)
				if err != nil {
					return err
				}
				sale, head, err := sellUnit(tx, &w, t, u, c.Head, req, i, now)
				if err != nil {
					return err
				}
				sales = append(sales, sale)
				c.Next, c.HasLast, c.Last, c.Head = c.Next+1, true, t.Index, head
			}
			moved[h] = c
			if err := tx.PutSetting(packCursorKey(h.Serial), c.encode()); err != nil {
				return err
			}
			if i == req.Count || w.Balance < req.Stake {
				break packs
			}
		}
		if req.Picks != nil {
			if err := putRevealRuns(tx, sales); err != nil {
				return err
			}
		}
		return tx.PutWallet(w)
	})
	if err != nil {
		return nil, err
	}
	for h, c := range moved {
		h.cur = c
		if h.left() == 0 {
			h.body = nil
			f.w.log.Info().Str("pack", h.Serial).Msg("pack sold out")
		}
	}
	if f.w.log.Info().Enabled() { // a batch sells thousands: no ticket strings for a silent log
		for _, s := range sales {
			f.w.log.Info().Str("ticket", s.Ticket.String()).Str("player", s.Player).Int64("stake", int64(s.Stake())).
				Int64("prize", int64(s.Prize())).Int64("balance", int64(s.BalanceAfter)).Msg("unit sold")
		}
	}
	return sales, nil
}

// putRevealRuns stores the reveals of sales shown at once, one call per run
// of consecutive tickets (a batch may span packs).
func putRevealRuns(tx *journalTx, sales []Sale) error {
	for start := 0; start < len(sales); {
		end := start + 1
		for end < len(sales) && sales[end].Ticket == sales[start].Ticket.Plus(uint32(end-start)) {
			end++
		}
		rvs := make([]Reveal, end-start)
		for i := range rvs {
			rvs[i] = sales[start+i].Reveal
		}
		if err := tx.PutReveals(sales[start].Ticket, rvs); err != nil {
			return err
		}
		start = end
	}
	return nil
}

// start runs the background loop: at once a first round (KioskState first,
// so that a kiosk restored from a backup never sells a position the central
// knows), then every SyncEvery, or sooner when a sale asks.
func (f *Fleet) start(ctx context.Context) {
	if f.cfg.Central == nil {
		close(f.done)
		return
	}
	first, cancel := context.WithTimeout(ctx, 3*time.Second)
	f.lastErr = f.round(first)
	cancel()
	go f.run()
}

func (f *Fleet) run() {
	defer close(f.done)
	delay := f.cfg.SyncEvery
	if f.lastErr != nil {
		delay = time.Second
	}
	timer := time.NewTimer(delay)
	defer timer.Stop()
	for {
		select {
		case <-f.stop:
			return
		case <-f.kick:
			if f.lastErrLocked() != nil {
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
		ctx, cancel := context.WithTimeout(context.Background(), netTimeout)
		err := f.round(ctx)
		cancel()
		if err != nil {
			delay = min(max(2*delay, time.Second), maxBackoff)
			f.w.log.Warn().AnErr("err", err).Str("retry_in", delay.String()).Msg("central unreachable or refusing")
		} else {
			delay = f.cfg.SyncEvery
		}
		timer.Reset(delay)
	}
}

func (f *Fleet) lastErrLocked() error {
	f.w.mu.Lock()
	defer f.w.mu.Unlock()
	return f.lastErr
}

// round is one turn of the loop: reconcile once, push the backlog, return
// released remainders, claim packs ahead, tell the central the kiosk lives.
// Whatever happens, sales waiting for a pack are woken at its end.
func (f *Fleet) round(ctx context.Context) (err error) {
	defer func() {
		f.w.mu.Lock()
		f.lastErr = err
		close(f.claimed)
		f.claimed = make(chan struct{})
		f.w.mu.Unlock()
	}()
	if !f.reconciled {
		if err := f.reconcile(ctx); err != nil {
			return err
		}
		f.reconciled = true
	}
	if err := f.claim(ctx); err != nil { // first: a sale may be waiting for it
		return err
	}
	f.pushMu.Lock()
	more, err := f.push(ctx, roundBatches)
	f.pushMu.Unlock()
	if err != nil {
		if errors.Is(err, ErrSyncGap) {
			f.reconciled = false
		}
		return err
	}
	if more {
		f.poke() // the rest at once, after a look at the packs
	}
	if err := f.releasePending(ctx); err != nil {
		return err
	}
	return f.heartbeat(ctx)
}

// heartbeat tells the central, once per SyncEvery, that the kiosk lives and
// what it has not pushed yet: what support staff see of it (FleetView).
func (f *Fleet) heartbeat(ctx context.Context) error {
	if f.w.now().Sub(f.beat) < f.cfg.SyncEvery {
		return nil
	}
	var backlog int
	err := f.w.view(ctx, func(tx ReadTx) error {
		st, err := readFleetState(tx)
		backlog = st.backlog()
		return err
	})
	if err != nil {
		return err
	}
	if _, err := f.cfg.Central.Heartbeat(ctx, backlog); err != nil {
		return err
	}
	f.beat = f.w.now()
	return f.touch(ctx)
}

// touch notes a round trip with the central; the store keeps it (for the
// next start's offline grace) when its copy is a minute old.
func (f *Fleet) touch(ctx context.Context) error {
	f.w.mu.Lock()
	defer f.w.mu.Unlock()
	f.contact = f.w.now().UTC()
	if f.contact.Sub(f.saved) < time.Minute {
		return nil
	}
	return f.saveState(ctx, func(*fleetState) {})
}

// saveState changes the stored fleet state and its contact. Called with mu.
func (f *Fleet) saveState(ctx context.Context, change func(*fleetState)) error {
	err := f.w.update(ctx, func(tx *journalTx) error {
		st, err := readFleetState(tx)
		if err != nil {
			return err
		}
		change(&st)
		st.Contact = f.contact
		return tx.PutSetting(fleetStateKey, st.encode())
	})
	if err == nil {
		f.saved = f.contact
	}
	return err
}

// claim claims a pack at each stake sold from that holds less than a pack.
func (f *Fleet) claim(ctx context.Context) error {
	for _, stake := range Stakes {
		f.w.mu.Lock()
		t, none := f.noPack[stake]
		need := f.wanted[stake] && f.held(stake) < f.lowWater(stake) && (!none || f.w.now().Sub(t) > noPackRetry)
		f.w.mu.Unlock()
		if !need {
			continue
		}
		p, err := f.cfg.Central.ClaimPack(ctx, stake)
		if errors.Is(err, ErrNoPack) {
			f.w.mu.Lock()
			f.noPack[stake] = f.w.now()
			f.w.mu.Unlock()
			f.w.log.Info().Int64("stake", int64(stake)).Msg("no pack left at the central")
			continue
		}
		if err != nil {
			return err
		}
		if err := f.hold(ctx, p, p.First); err != nil {
			return err
		}
	}
	return nil
}

// hold verifies a pack and stores it durably, to sell from next. Nothing
// of a pack that fails its proof is kept.
func (f *Fleet) hold(ctx context.Context, p Pack, next uint32) error {
	if err := p.Verify(); err != nil {
		f.w.log.Error().Str("pack", p.Serial).AnErr("err", err).Msg("pack refused: its proof does not lead to the block's root")
		return fmt.Errorf("pack %s refused: %w", p.Serial, err)
	}
	f.w.mu.Lock()
	defer f.w.mu.Unlock()
	delete(f.noPack, p.Block.Stake)
	if slices.ContainsFunc(f.packs, func(h *heldPack) bool { return h.Serial == p.Serial }) {
		return nil
	}
	h := &heldPack{Serial: p.Serial, Block: p.Block, First: p.First, Count: p.Count(), body: &p,
		cur: packCursor{Next: max(next, p.First), End: p.First + p.Count()}}
	serials := make([]string, 0, len(f.packs)+1)
	for _, o := range f.packs {
		serials = append(serials, o.Serial)
	}
	serials = append(serials, p.Serial)
	f.contact = f.w.now().UTC()
	err := f.w.update(ctx, func(tx *journalTx) error {
		if err := putPack(tx, p); err != nil {
			return err
		}
		if err := tx.PutSetting(packCursorKey(p.Serial), h.cur.encode()); err != nil {
			return err
		}
		if err := tx.PutSetting(fleetPacksKey, []byte(strings.Join(serials, "\n"))); err != nil {
			return err
		}
		st, err := readFleetState(tx)
		if err != nil {
			return err
		}
		st.Contact = f.contact
		return tx.PutSetting(fleetStateKey, st.encode())
	})
	if err != nil {
		return err
	}
	f.saved = f.contact
	f.packs = append(f.packs, h)
	f.w.log.Info().Str("pack", p.Serial).Uint32("first", p.First).Uint32("count", p.Count()).Str("root", p.Root.String()).Msg("pack claimed")
	return nil
}

// reconcile applies what the central knows of the kiosk: its last sale and
// movement numbers (a kiosk restored from an older backup numbers on from
// the central's, and pushes from there), and per pack the positions sold
// (never sold again), released or voided. A pack the central lists as held
// but the store lacks (a claim whose answer was lost) is fetched again.
func (f *Fleet) reconcile(ctx context.Context) error {
	ks, err := f.cfg.Central.KioskState(ctx)
	if err != nil {
		return err
	}
	if f.cfg.Kiosk != "" && ks.Kiosk != f.cfg.Kiosk {
		return fmt.Errorf("%w: the connection is kiosk %q, the settings say %q", ErrUnknownKiosk, ks.Kiosk, f.cfg.Kiosk)
	}
	var fetch []PackState
	f.w.mu.Lock()
	f.contact = f.w.now().UTC()
	known := map[string]PackState{}
	for _, ps := range ks.Packs {
		known[ps.Serial] = ps
	}
	moved := map[*heldPack]packCursor{}
	for _, h := range f.packs {
		c := h.cur
		ps, ok := known[h.Serial]
		switch {
		case !ok: // released whole, or never this kiosk's: nothing more to sell
			c.End, c.Release = min(c.End, c.Next), false
		case ps.Status == "claimed":
			if ps.Next > c.Next {
				f.w.log.Warn().Str("pack", h.Serial).Uint32("from", c.Next).Uint32("to", ps.Next).Msg("positions sold before a restore skipped")
				c.Next = ps.Next
			}
		case ps.Status == "returned":
			c.End, c.Release = min(c.End, ps.First+ps.Count), false
		default: // voided
			c.End, c.Release = min(c.End, c.Next), false
		}
		c.End = max(c.End, min(c.Next, h.First+h.Count)) // never below what was sold
		if c != h.cur {
			moved[h] = c
		}
		delete(known, h.Serial)
	}
	for _, ps := range known {
		if ps.Status == "claimed" && ps.Next < ps.First+ps.Count {
			fetch = append(fetch, ps)
		}
	}
	var restored bool
	err = f.w.update(ctx, func(tx *journalTx) error {
		for h, c := range moved {
			if err := tx.PutSetting(packCursorKey(h.Serial), c.encode()); err != nil {
				return err
			}
		}
		st, err := readFleetState(tx)
		if err != nil {
			return err
		}
		if st.Kiosk != "" && st.Kiosk != ks.Kiosk {
			return fmt.Errorf("%w: this data directory belongs to kiosk %q, the central's connection is %q", ErrUnknownKiosk, st.Kiosk, ks.Kiosk)
		}
		st.Kiosk = ks.Kiosk
		if ks.LastMovementSeq > st.MovSeq || ks.LastSaleSeq > st.SaleSeq {
			restored = true
			st.MovSeq, st.SaleSeq = max(st.MovSeq, ks.LastMovementSeq), max(st.SaleSeq, ks.LastSaleSeq)
		}
		st.Pushed, st.Contact = ks.LastMovementSeq, f.contact
		return tx.PutSetting(fleetStateKey, st.encode())
	})
	if err == nil {
		f.saved = f.contact
		for h, c := range moved {
			h.cur = c
		}
	}
	f.w.mu.Unlock()
	if err != nil {
		return err
	}
	if restored {
		f.w.log.Warn().Uint64("sale_seq", ks.LastSaleSeq).Uint64("movement_seq", ks.LastMovementSeq).
			Msg("the central knows more of this kiosk than its store (restored from an older backup): numbering on from the central's")
	}
	for _, ps := range fetch {
		p, err := f.cfg.Central.FetchPack(ctx, ps.Serial)
		if err != nil {
			return err
		}
		if err := f.hold(ctx, p, ps.Next); err != nil {
			return err
		}
	}
	return nil
}

// Sync pushes every movement (and the sales among them) the central does
// not have yet, in batches, then returns the remainders released.
func (f *Fleet) Sync(ctx context.Context) error {
	if f.cfg.Central == nil {
		return ErrNeedsCentral
	}
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

// pushOnce pushes one batch; it returns how many movements it pushed.
func (f *Fleet) pushOnce(ctx context.Context) (int, error) {
	f.w.mu.Lock()
	ranges := make([]heldPack, len(f.packs))
	for i, h := range f.packs {
		ranges[i] = heldPack{Serial: h.Serial, Block: h.Block, First: h.First, Count: h.Count}
	}
	f.w.mu.Unlock()
	var sales []FleetSale
	var moves []FleetMovement
	err := f.w.view(ctx, func(tx ReadTx) error {
		st, err := readFleetState(tx)
		if err != nil {
			return err
		}
		for seq := st.Pushed + 1; seq <= st.MovSeq && len(moves) < pushBatch; seq++ {
			m, s, err := outboxItem(tx, seq, ranges)
			if err != nil {
				return err
			}
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
	last := moves[len(moves)-1].Seq
	f.w.mu.Lock()
	defer f.w.mu.Unlock()
	f.contact = f.w.now().UTC()
	return len(moves), f.saveState(ctx, func(st *fleetState) { st.Pushed = max(st.Pushed, last) })
}

// outboxItem reads movement seq of the outbox, and its sale if it is one.
func outboxItem(tx ReadTx, seq uint64, packs []heldPack) (FleetMovement, *FleetSale, error) {
	v, ok, err := tx.Setting(outboxKey(seq))
	if err != nil || !ok {
		return FleetMovement{}, nil, fmt.Errorf("%w: outbox entry %d missing (%v)", ErrCorrupt, seq, err)
	}
	o, err := decodeOutEntry(v)
	if err != nil {
		return FleetMovement{}, nil, err
	}
	var l LedgerEntry
	var found bool
	if err := tx.Ledger(o.Player, o.Ledger, o.Ledger, func(e LedgerEntry) error { l, found = e, true; return nil }); err != nil || !found {
		return FleetMovement{}, nil, fmt.Errorf("%w: ledger entry %d of %s for outbox entry %d (%v)", ErrCorrupt, o.Ledger, o.Player, seq, err)
	}
	// The id names the movement number too: a kiosk restored from an old
	// backup writes its ledger entries again under new numbers.
	m := FleetMovement{Seq: seq, ID: fmt.Sprintf("%d:%s/%d", seq, o.Player, o.Ledger), Player: o.Player, Kind: l.Kind,
		Debit: l.Debit, Credit: l.Credit, Time: l.Time}
	if o.SaleSeq == 0 {
		return m, nil, nil
	}
	t := l.Ticket
	m.Ticket = &t
	sale, err := readSale(tx, t)
	if err != nil {
		return m, nil, err
	}
	s := &FleetSale{Seq: o.SaleSeq, Ticket: t, Time: sale.Time, Player: sale.Player, Unit: sale.Unit, Revealed: sale.Done()}
	for _, h := range packs {
		if h.holds(t) {
			s.Pack = h.Serial
		}
	}
	return m, s, nil
}

// releasePending returns to the central the remainders marked released.
func (f *Fleet) releasePending(ctx context.Context) error {
	f.w.mu.Lock()
	var todo []*heldPack
	for _, h := range f.packs {
		if h.cur.Release {
			todo = append(todo, h)
		}
	}
	f.w.mu.Unlock()
	for _, h := range todo {
		f.w.mu.Lock()
		from := h.cur.End
		f.w.mu.Unlock()
		serial, err := f.cfg.Central.ReleasePack(ctx, h.Serial, from)
		if errors.Is(err, ErrPackState) { // already returned (a release whose answer was lost) or voided
			f.w.log.Warn().Str("pack", h.Serial).AnErr("err", err).Msg("pack remainder not returned: the central no longer counts it as held")
		} else if err != nil {
			return err
		}
		f.w.mu.Lock()
		c := h.cur
		c.Release = false
		err = f.w.update(ctx, func(tx *journalTx) error { return tx.PutSetting(packCursorKey(h.Serial), c.encode()) })
		if err == nil {
			h.cur = c
		}
		f.w.mu.Unlock()
		if err != nil {
			return err
		}
		f.w.log.Info().Str("pack", h.Serial).Uint32("from", from).Str("new_pack", serial).Msg("pack remainder returned")
	}
	return nil
}

// Release stops selling the unsold remainder of every pack held, pushes
// the backlog and returns the remainders to the central, where they become
// packs for any kiosk. It returns the packs whose remainder was returned.
// A remainder the central could not take yet is returned by the
// background loop later; the kiosk sells none of it meanwhile.
func (f *Fleet) Release(ctx context.Context) ([]string, error) {
	if f.cfg.Central == nil {
		return nil, ErrNeedsCentral
	}
	f.w.mu.Lock()
	var released []string
	moved := map[*heldPack]packCursor{}
	for _, h := range f.packs {
		if h.left() > 0 {
			c := h.cur
			c.End, c.Release = c.Next, true
			moved[h] = c
			released = append(released, h.Serial)
		}
	}
	err := f.w.update(ctx, func(tx *journalTx) error {
		for h, c := range moved {
			if err := tx.PutSetting(packCursorKey(h.Serial), c.encode()); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		for h, c := range moved {
			h.cur, h.body = c, nil
		}
		clear(f.wanted) // no new claim either
	}
	f.w.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return released, f.Sync(ctx)
}

// SyncStatus is where the kiosk stands with the central.
type SyncStatus struct {
	Kiosk        string
	Backlog      int       // movements not yet at the central
	BacklogSales int       // of which sales
	Oldest       time.Time // the oldest of them (zero: none)
	Contact      time.Time // the last round trip with the central (zero: none)
	Offline      error     // nil while the kiosk may sell, an *OfflineError otherwise
	Packs        []HeldPack
}

// HeldPack is a pack as the kiosk's status shows it: how many positions are
// left, never which outcomes they hold.
type HeldPack struct {
	Serial       string
	Block        BlockRef
	First, Count uint32
	Left         uint32 // positions left to sell
	Releasing    bool   // remainder being returned to the central
}

// Status reads the backlog and the packs held.
func (f *Fleet) Status(ctx context.Context) (SyncStatus, error) {
	f.w.mu.Lock()
	s := SyncStatus{Contact: f.contact, Offline: f.offline()}
	for _, h := range f.packs {
		if h.left() > 0 || h.cur.Release {
			s.Packs = append(s.Packs, HeldPack{Serial: h.Serial, Block: h.Block, First: h.First, Count: h.Count, Left: h.left(), Releasing: h.cur.Release})
		}
	}
	f.w.mu.Unlock()
	err := f.w.view(ctx, func(tx ReadTx) error {
		st, err := readFleetState(tx)
		if err != nil {
			return err
		}
		s.Kiosk = st.Kiosk
		s.Backlog = st.backlog()
		for seq := st.Pushed + 1; seq <= st.MovSeq; seq++ {
			v, ok, err := tx.Setting(outboxKey(seq))
			if err != nil || !ok {
				return fmt.Errorf("%w: outbox entry %d missing (%v)", ErrCorrupt, seq, err)
			}
			o, err := decodeOutEntry(v)
			if err != nil {
				return err
			}
			if o.SaleSeq != 0 {
				s.BacklogSales++
			}
			if seq == st.Pushed+1 {
				err = tx.Ledger(o.Player, o.Ledger, o.Ledger, func(l LedgerEntry) error { s.Oldest = l.Time; return nil })
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
	slices.SortFunc(s.Packs, func(a, b HeldPack) int { return cmp.Compare(a.Serial, b.Serial) })
	return s, err
}

// close stops the loop and pushes what is left, briefly: a command that
// sold units hands them to the central before it exits when it can.
func (f *Fleet) close() {
	close(f.stop)
	<-f.done
	if f.cfg.Central == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := f.Sync(ctx); err != nil {
		f.w.log.Warn().AnErr("err", err).Msg("backlog left for the next start")
	}
}
