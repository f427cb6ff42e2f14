package engine

import (
	"context"
	"fmt"
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
//
// The files by role:
//
//	fleet_kiosk.go   Fleet, its start from the store, its contact with the central
//	fleet_pack.go    the packs held (hand), how the store keeps a pack and its cursor
//	fleet_sell.go    selling from the packs held (packSource)
//	fleet_claim.go   packs claimed, reconciled with the central, released
//	fleet_sync.go    the background loop, the outbox and its pushes
//	fleet_status.go  where the kiosk stands with the central (Status)

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
	// (0: one second): sales are pushed then, if there are any.
	SyncEvery time.Duration
	// HeartbeatEvery is how often the kiosk tells the central it lives
	// when nothing else brings it there (0: DefaultHeartbeatEvery).
	HeartbeatEvery time.Duration
}

// DefaultHeartbeatEvery is the heartbeat's period when the settings name
// none: a fleet of thousands of kiosks beating every second would write
// more to the central than its sales do.
const DefaultHeartbeatEvery = 30 * time.Second

// DefaultOfflineGrace is the offline grace when the settings name none.
const DefaultOfflineGrace = 15 * time.Minute

// StrictContact is how recent the last round trip with the central must be
// for a sale in strict mode (offline grace 0).
const StrictContact = 30 * time.Second

const (
	pushBatch    = 1000             // movements per push
	claimWait    = 15 * time.Second // the longest a sale waits for a first pack
	maxBackoff   = 30 * time.Second
	netTimeout   = 60 * time.Second // one round of the background loop
	finalPush    = 3 * time.Second  // the push of a kiosk that closes, at most
	roundBatches = 4                // pushes per round: claims are not kept waiting
	noPackRetry  = 30 * time.Second // the central had no pack: ask again after this
)

// Fleet is the kiosk's side of a fleet: the packs it holds, its contact
// with the central, and the background loop that claims, pushes and keeps
// in touch. Its fields are guarded by the writer's lock unless said
// otherwise.
type Fleet struct {
	w       *writer
	cfg     FleetConfig
	players PlayerCentral // the central's accounts (nil: a central without)
	hand    hand          // the packs held
	link    contact       // the last round trip with the central
	// refused: the central's last answer to a claim was "not now" (the
	// kiosk holds enough unsold units as the central counts them); pushedAt:
	// when a push last went through. A sale waiting for a pack waits on
	// while such pushes go (source).
	refused  bool
	pushedAt time.Time
	loop     *syncLoop  // the background loop
	pushMu   sync.Mutex // one push at a time (not the writer's lock)
}

func newFleet(w *writer, cfg FleetConfig) *Fleet {
	if cfg.SyncEvery <= 0 {
		cfg.SyncEvery = time.Second
	}
	if cfg.HeartbeatEvery <= 0 {
		cfg.HeartbeatEvery = DefaultHeartbeatEvery
	}
	if cfg.OfflineGrace == 0 { // strict: a sale needs a round trip within StrictContact
		cfg.HeartbeatEvery = min(cfg.HeartbeatEvery, StrictContact/2)
	}
	f := &Fleet{w: w, cfg: cfg, hand: newHand(), link: contact{grace: cfg.OfflineGrace}}
	f.players, _ = cfg.Central.(PlayerCentral)
	f.loop = newSyncLoop(f)
	return f
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
		f.link.last, f.link.saved = st.Contact, st.Contact
		serials, err := readSerials(tx)
		if err != nil {
			return err
		}
		for _, s := range serials {
			h, err := readPackInHand(tx, s)
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
				f.hand.wanted[h.Block.Stake] = true
			}
			f.hand.packs = append(f.hand.packs, h)
		}
		return nil
	})
	if err != nil {
		problems = append(problems, fmt.Sprintf("the fleet's packs cannot be read: %v", err))
	}
	return f.w.outOfService(false, problems...)
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

// close stops the loop (its round in flight cancelled) and pushes what is
// left, briefly: a command that sold units hands them to the central
// before it exits when it can. A program told to stop (the context
// NewService was given ended: SIGTERM) pushes nothing more and leaves the
// backlog, durable in the store, for the next start: a central that hangs
// must not hold up its exit.
func (f *Fleet) close() {
	f.loop.stop()
	if f.cfg.Central == nil {
		return
	}
	if f.loop.parent.Err() != nil {
		f.w.log.Info().Msg("stopping: backlog left for the next start")
		return
	}
	ctx, cancel := context.WithTimeout(f.loop.parent, finalPush)
	defer cancel()
	if err := f.pushAll(ctx); err != nil {
		f.w.log.Warn().AnErr("err", err).Msg("backlog left for the next start")
		return
	}
	if err := f.returnOnClose(ctx); err != nil {
		f.w.log.Warn().AnErr("err", err).Msg("leases left to return at the next start")
	}
}

// contact is the kiosk's last round trip with its central, in memory and
// as the store keeps it (the fleet state's Contact: the next start's
// offline grace counts from it). Guarded by the writer's lock.
type contact struct {
	grace time.Duration // FleetConfig.OfflineGrace
	last  time.Time     // the last round trip (zero: none)
	saved time.Time     // last as the store has it
}

// offline is nil while the kiosk may sell at now, an *OfflineError
// otherwise.
func (c *contact) offline(now time.Time) error {
	limit := c.grace
	if limit == 0 {
		limit = StrictContact
	}
	if c.last.IsZero() || now.Sub(c.last) > limit {
		return &OfflineError{Since: c.last, Grace: c.grace}
	}
	return nil
}

// touch notes a round trip with the central; the store keeps it (for the
// next start's offline grace) when its copy is a minute old.
func (f *Fleet) touch(ctx context.Context) error {
	f.w.mu.Lock()
	defer f.w.mu.Unlock()
	f.link.last = f.w.now().UTC()
	if f.link.last.Sub(f.link.saved) < time.Minute {
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
		st.Contact = f.link.last
		return tx.PutSetting(fleetStateKey, st.encode())
	})
	if err == nil {
		f.link.saved = f.link.last
	}
	return err
}
