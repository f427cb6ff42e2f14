package engine_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/engine/memstore"
)

// memCentral is a central in memory, for the kiosk's side of a fleet's
// player accounts: it hands out packs of the pinned 0,50 € block, takes
// pushes, and keeps accounts and leases as the real one does (central/:
// PostgreSQL, tested there), simply.
type memCentral struct {
	mu       sync.Mutex
	block    *engine.Block
	levels   [][]engine.Hash
	next     uint32
	packs    int
	packSize uint32 // units per pack
	movSeq   uint64
	moves    []engine.FleetMovement
	sales    []engine.FleetSale
	down     bool // unreachable
	size     engine.Cents
	ttl      time.Duration
	accounts map[engine.Card]*memAccount
	leases   map[int64]*memLease
	lastID   int64
}

var _ engine.PlayerCentral = (*memCentral)(nil)

type memAccount struct {
	acct engine.Account
	pin  string
}

type memLease struct {
	engine.Lease
	kiosk   string
	ended   bool
	revoked string
}

var memBlock = sync.OnceValues(func() (*engine.Block, [][]engine.Hash) {
	b := pinnedBlocks()[0] // 0,50 €
	leaves, err := engine.LeafHashes(b.Ref, engine.NewSalter(b.Seed), 0, b.Units)
	if err != nil {
		panic(err)
	}
	return b, engine.MerkleLevels(leaves)
})

func newMemCentral() *memCentral {
	b, levels := memBlock()
	return &memCentral{block: b, levels: levels, packSize: 100, size: 500, ttl: time.Hour, accounts: map[engine.Card]*memAccount{}, leases: map[int64]*memLease{}}
}

var errDown = fmt.Errorf("%w: the test cut the network", engine.ErrCentralUnavailable)

func (c *memCentral) reach() error {
	if c.down {
		return errDown
	}
	return nil
}

func (c *memCentral) ClaimPack(_ context.Context, stake engine.Cents) (engine.Pack, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.reach(); err != nil {
		return engine.Pack{}, err
	}
	if stake != c.block.Ref.Stake {
		return engine.Pack{}, engine.ErrNoPack
	}
	n := c.packSize
	first := c.next
	c.next += n
	c.packs++
	s := engine.NewSalter(c.block.Seed)
	p := engine.Pack{Serial: fmt.Sprintf("%s-P%05d", c.block.Ref, c.packs), Block: c.block.Ref, Size: engine.BlockSize, First: first,
		Units: c.block.Units[first*engine.UnitSize : (first+n)*engine.UnitSize], Root: c.block.Commitment,
		Proof: engine.RangeProof(c.levels, uint64(first), uint64(first+n))}
	for i := range n {
		p.Salts = append(p.Salts, s.Salt(first+i))
	}
	return p, nil
}

func (c *memCentral) FetchPack(context.Context, string) (engine.Pack, error) {
	return engine.Pack{}, engine.ErrPackState
}

func (c *memCentral) PushSales(_ context.Context, ss []engine.FleetSale) (engine.PushResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.reach(); err != nil {
		return engine.PushResult{}, err
	}
	for _, s := range ss {
		if n := len(c.sales); n == 0 || s.Seq > c.sales[n-1].Seq {
			c.sales = append(c.sales, s)
		}
	}
	return engine.PushResult{Applied: len(ss), LastSeq: c.sales[len(c.sales)-1].Seq}, nil
}

func (c *memCentral) PushMovements(_ context.Context, ms []engine.FleetMovement) (engine.PushResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.reach(); err != nil {
		return engine.PushResult{}, err
	}
	for _, m := range ms {
		if m.Seq > c.movSeq {
			c.moves, c.movSeq = append(c.moves, m), m.Seq
		}
	}
	return engine.PushResult{Applied: len(ms), LastSeq: c.movSeq}, nil
}

func (c *memCentral) ReleasePack(context.Context, string, uint32) (string, error) { return "", nil }

func (c *memCentral) Heartbeat(context.Context, int, engine.JournalHead) (time.Time, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now(), c.reach()
}

func (c *memCentral) JournalAnchor(context.Context) (engine.JournalHead, error) {
	return engine.JournalHead{}, nil
}

func (c *memCentral) FleetView(context.Context) (engine.FleetView, error) {
	return engine.FleetView{}, nil
}

func (c *memCentral) LookupTicket(context.Context, engine.Ticket) (engine.FleetSale, error) {
	return engine.FleetSale{}, engine.ErrUnknownTicket
}

func (c *memCentral) KioskState(context.Context) (engine.KioskState, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return engine.KioskState{Kiosk: "k1", LastMovementSeq: c.movSeq}, c.reach()
}

func (c *memCentral) Close() {}

// open opens an account at the central with a stake-week limit.
func (c *memCentral) open(card engine.Card, pin string, stakeWeek engine.Cents) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.accounts[card] = &memAccount{pin: pin, acct: engine.Account{Player: string(card), Card: card, Complete: true,
		Identity: engine.Identity{Holder: "Marie Curie", Born: time.Date(1967, 11, 7, 0, 0, 0, 0, time.UTC)},
		Limits:   engine.Limits{{Kind: engine.LimitDeposit, Window: engine.WindowWeek}: 100_000, {Kind: engine.LimitStake, Window: engine.WindowWeek}: stakeWeek}}}
}

// used is what player moved of kind under lease id (0: under any).
func (c *memCentral) used(player string, k engine.LimitKind, id int64) (sum engine.Cents) {
	for _, m := range c.moves {
		if m.Player != player || id != 0 && m.Lease != id {
			continue
		}
		switch {
		case k == engine.LimitDeposit && m.Kind == engine.LedgerCredit:
			sum += m.Credit
		case k == engine.LimitStake && m.Kind == engine.LedgerSale:
			sum += m.Debit
		}
	}
	return sum
}

// reserve reserves a lease: under the player's stake-week and deposit-week
// limits, what the pushes used and the other open leases hold.
func (c *memCentral) reserve(a engine.Account) engine.Lease {
	c.lastID++
	l := engine.Lease{ID: c.lastID, Player: a.Player, Granted: time.Now(), TTL: c.ttl}
	for _, k := range []engine.LimitKey{{Kind: engine.LimitDeposit, Window: engine.WindowWeek}, {Kind: engine.LimitStake, Window: engine.WindowWeek}} {
		used := c.used(a.Player, k.Kind, 0)
		for _, o := range c.leases {
			if o.Player == a.Player && !o.ended {
				r, _ := o.Room(k.Kind)
				used += max(0, r.Room-c.used(a.Player, k.Kind, o.ID))
			}
		}
		size := c.size
		if k.Kind == engine.LimitDeposit {
			size = engine.MaxAmount // a deposit's room is all that is left: a deposit is one movement
		}
		room := engine.LeaseRoom{Kind: k.Kind, Room: min(size, a.Limits[k]-used)}
		if room.Room < size {
			room.Limit, room.Max, room.Used = k, a.Limits[k], used
		}
		room.Room = max(0, room.Room)
		l.Rooms = append(l.Rooms, room)
	}
	c.leases[l.ID] = &memLease{Lease: l, kiosk: "k1"}
	return l
}

func (c *memCentral) PlayerLogin(_ context.Context, card engine.Card, pin string) (engine.Account, engine.Lease, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.reach(); err != nil {
		return engine.Account{}, engine.Lease{}, err
	}
	a, ok := c.accounts[card]
	switch {
	case !ok:
		return engine.Account{}, engine.Lease{}, engine.ErrUnknownCard
	case a.pin != pin:
		return engine.Account{}, engine.Lease{}, &engine.PlayerPINError{Left: 4}
	case a.acct.Break.Active(time.Now()):
		return engine.Account{}, engine.Lease{}, &engine.ExcludedError{Break: a.acct.Break}
	}
	return a.acct, c.reserve(a.acct), nil
}

// PlayerLookup reads the account and its open leases (the central's
// tests check the usage and the funds).
func (c *memCentral) PlayerLookup(_ context.Context, card engine.Card, pin, _ string) (engine.FleetAccount, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.reach(); err != nil {
		return engine.FleetAccount{}, err
	}
	a, ok := c.accounts[card]
	switch {
	case !ok:
		return engine.FleetAccount{}, engine.ErrUnknownCard
	case a.pin != pin:
		return engine.FleetAccount{}, &engine.PlayerPINError{Left: 4}
	}
	f := engine.FleetAccount{Account: a.acct}
	for _, l := range c.leases {
		if l.Player == a.acct.Player && !l.ended {
			f.Leases = append(f.Leases, engine.PlayerLease{Lease: l.Lease, Kiosk: l.kiosk, Revoked: l.revoked})
		}
	}
	return f, nil
}

func (c *memCentral) lease(id int64) (*memLease, *memAccount, error) {
	l, ok := c.leases[id]
	if !ok {
		return nil, nil, fmt.Errorf("%w: lease %d", engine.ErrPackState, id)
	}
	return l, c.accounts[engine.Card(l.Player)], nil
}

func (c *memCentral) RenewLease(_ context.Context, id int64, movSeq uint64) (engine.Lease, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.reach(); err != nil {
		return engine.Lease{}, err
	}
	l, a, err := c.lease(id)
	switch {
	case err != nil:
		return engine.Lease{}, err
	case movSeq > c.movSeq:
		return engine.Lease{}, engine.ErrSyncGap
	case l.revoked != "" && l.revoked != engine.RevokedLimit:
		return engine.Lease{}, &engine.LeaseRevokedError{Reason: l.revoked}
	}
	l.ended = true
	return c.reserve(a.acct), nil
}

func (c *memCentral) ReturnLease(_ context.Context, id int64, movSeq uint64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.reach(); err != nil {
		return err
	}
	l, _, err := c.lease(id)
	if err == nil && movSeq > c.movSeq {
		err = engine.ErrSyncGap
	}
	if err == nil {
		l.ended = true
	}
	return err
}

func (c *memCentral) LeaseStates(_ context.Context, ids []int64) ([]engine.LeaseState, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.reach(); err != nil {
		return nil, err
	}
	var out []engine.LeaseState
	for _, id := range ids {
		l, a, err := c.lease(id)
		if err != nil {
			return nil, err
		}
		s := engine.LeaseState{ID: id, Revoked: l.revoked, Account: a.acct}
		if l.ended && s.Revoked == "" {
			s.Revoked = engine.RevokedReturned
		}
		out = append(out, s)
	}
	return out, nil
}

func (c *memCentral) PlayerSetLimit(_ context.Context, id int64, k engine.LimitKey, amount engine.Cents) (engine.PendingLimit, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	l, a, err := c.lease(id)
	if err != nil {
		return engine.PendingLimit{}, err
	}
	now := time.Now()
	a.acct.Limits[k] = amount // the test lowers limits only: at once
	for _, o := range c.leases {
		if o.Player == l.Player && !o.ended {
			o.revoked = engine.RevokedLimit
		}
	}
	return engine.PendingLimit{Key: k, Amount: amount, Requested: now, Effective: now}, nil
}

func (c *memCentral) PlayerTakeBreak(_ context.Context, id int64, b engine.Break) (engine.Exclusion, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.reach(); err != nil {
		return engine.Exclusion{}, err
	}
	l, a, err := c.lease(id)
	if err != nil {
		return engine.Exclusion{}, err
	}
	c.breakFor(l.Player, a)
	return a.acct.Break, nil
}

// breakFor puts player on a week's break and revokes the player's leases,
// as a break taken at another kiosk does.
func (c *memCentral) breakFor(player string, a *memAccount) {
	now := time.Now()
	a.acct.Break = engine.Exclusion{Since: now, Until: now.AddDate(0, 0, 7)}
	for _, o := range c.leases {
		if o.Player == player && !o.ended {
			o.revoked = engine.RevokedBreak
		}
	}
}

func (c *memCentral) set(fn func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fn()
}

// allEnded says whether every lease granted has ended. Called with mu.
func (c *memCentral) allEnded() bool {
	for _, l := range c.leases {
		if !l.ended {
			return false
		}
	}
	return true
}

// loggedIn opens card n at mem (100,00 € of stakes a week), a kiosk on
// mem, the card's session there, and credits the account 10,00 €.
func loggedIn(t *testing.T, mem *memCentral, n uint64) (*engine.Service, engine.Card, engine.Account) {
	t.Helper()
	card := engine.NewCard(n)
	mem.open(card, "2580", 10_000)
	s := fleetKiosk(t, mem)
	a, err := s.OpenSession(ctx, card, "2580")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.OperatorCredit(ctx, "operator", a.Player, 1000); err != nil {
		t.Fatal(err)
	}
	return s, card, a
}

// fleetKiosk opens a fleet's kiosk on mem, its sync loop every 10 ms.
func fleetKiosk(t *testing.T, mem *memCentral) *engine.Service {
	t.Helper()
	return protectedFleetKiosk(t, mem, engine.Protection{})
}

// protectedFleetKiosk is fleetKiosk protecting players by p (zero: the
// default protection).
func protectedFleetKiosk(t *testing.T, mem *memCentral, p engine.Protection) *engine.Service {
	t.Helper()
	cfg := oneBlock
	cfg.Protection = p
	cfg.Journal = &memstore.Journal{}
	cfg.Fleet = &engine.FleetConfig{Central: mem, Kiosk: "k1", OfflineGrace: time.Hour, SyncEvery: 10 * time.Millisecond}
	s, err := engine.NewService(ctx, memstore.New(), cfg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// eventually waits up to 10 s for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s: %s", what)
		}
	}
}

// TestFleetPackTooBigRefused: a pack of more units than a kiosk holds
// (its store takes a pack in one transaction) is refused whole, with a
// clear error, and nothing of it is kept; a pack of MaxPackSize sells.
func TestFleetPackTooBigRefused(t *testing.T) {
	mem := newMemCentral()
	mem.packSize = engine.MaxPackSize + 1
	s := fleetKiosk(t, mem)
	if _, err := s.Sell(ctx, engine.SellRequest{Player: engine.DemoPlayer, Stake: 50, Count: 1, Picks: picks, Actor: "test"}); !errors.Is(err, engine.ErrPackTooBig) {
		t.Fatalf("a sale from a pack of %d units: %v, want ErrPackTooBig", mem.packSize, err)
	}
	mem.set(func() { mem.packSize = engine.MaxPackSize })
	eventually(t, "a sale from a pack of MaxPackSize", func() bool {
		_, err := s.Sell(ctx, engine.SellRequest{Player: engine.DemoPlayer, Stake: 50, Count: 1, Picks: picks, Actor: "test"})
		return err == nil
	})
	st, err := s.Fleet.Status(ctx)
	if err != nil || len(st.Packs) != 1 || st.Packs[0].Count != engine.MaxPackSize {
		t.Fatalf("packs held: %+v %v, want the one of %d units", st.Packs, err, engine.MaxPackSize)
	}
}

// TestFleetSessionPlaysWithinItsLease: a fleet's player logs in through the
// central, which reserves a lease; the kiosk sells within it, its
// movements tagged with it, and renews it in the background before its
// room runs out (a sale waits for the renewal of a lease spent); the
// central cut, the session plays on what the lease
// holds, then stops with ErrLeaseSpent; the limit's own end is a
// LimitError; logging out gives the lease back.
func TestFleetSessionPlaysWithinItsLease(t *testing.T) {
	mem := newMemCentral()
	card := engine.NewCard(1)
	mem.open(card, "2580", 2000) // 20,00 € a week, in leases of 5,00 €
	s := fleetKiosk(t, mem)
	if _, err := s.OpenSession(ctx, card, "1111"); !errors.Is(err, engine.ErrPlayerPIN) {
		t.Fatalf("wrong PIN: %v", err)
	}
	a, err := s.OpenSession(ctx, card, "2580")
	if err != nil || a.Player != string(card) || !a.Session.Open {
		t.Fatalf("login: %+v %v", a, err)
	}
	if _, err := s.OperatorCredit(ctx, "operator", a.Player, 5000); err != nil {
		t.Fatalf("a deposit within the lease: %v", err)
	}
	for sold := range 30 { // 15,00 €: three leases' worth, each sale waiting for a renewal if need be
		if _, err := s.Sell(ctx, engine.SellRequest{Player: a.Player, Stake: 50, Count: 1, Picks: picks, Actor: "test"}); err != nil {
			t.Fatalf("after %d units: %v", sold, err)
		}
	}
	eventually(t, "the sales pushed", func() bool {
		mem.mu.Lock()
		defer mem.mu.Unlock()
		return mem.used(a.Player, engine.LimitStake, 0) == 1500
	})
	mem.mu.Lock()
	var leases []int64
	for _, m := range mem.moves {
		if m.Kind == engine.LedgerSale && !slices.Contains(leases, m.Lease) {
			leases = append(leases, m.Lease)
		}
	}
	mem.mu.Unlock()
	if len(leases) < 3 || slices.Contains(leases, 0) {
		t.Fatalf("sales pushed under leases %v: want three leases at least, none untagged", leases)
	}

	// The central cut: what the lease holds, then a clear refusal.
	mem.set(func() { mem.down = true })
	var err2 error
	for range 20 {
		if _, err2 = s.Sell(ctx, engine.SellRequest{Player: a.Player, Stake: 50, Count: 1, Picks: picks, Actor: "test"}); err2 != nil {
			break
		}
	}
	if !errors.Is(err2, engine.ErrLeaseSpent) {
		t.Fatalf("the lease spent with the central cut: %v", err2)
	}
	mem.set(func() { mem.down = false })

	// The limit's end: 20,00 € staked, a LimitError naming it.
	var limit *engine.LimitError
	eventually(t, "the stake-week limit refusing a unit", func() bool {
		_, err := s.Sell(ctx, engine.SellRequest{Player: a.Player, Stake: 50, Count: 1, Picks: picks, Actor: "test"})
		return errors.As(err, &limit)
	})
	if limit.Limit != (engine.LimitKey{Kind: engine.LimitStake, Window: engine.WindowWeek}) || limit.Max != 2000 || limit.Used != 2000 {
		t.Fatalf("limit refusal: %+v", limit)
	}

	if _, err := s.CloseSession(ctx, a.Player, engine.ActorPlayer); err != nil {
		t.Fatal(err)
	}
	eventually(t, "every lease returned", func() bool {
		mem.mu.Lock()
		defer mem.mu.Unlock()
		return mem.allEnded()
	})
	mustAudit(t, s)
}

// TestFleetBreakElsewhereEndsTheSession: a break taken at another kiosk
// reaches this one at its next round: the session ends, the break is
// recorded in the mirror, and play is refused with it, as is a login.
func TestFleetBreakElsewhereEndsTheSession(t *testing.T) {
	mem := newMemCentral()
	s, card, a := loggedIn(t, mem, 2)
	mem.set(func() { mem.breakFor(a.Player, mem.accounts[card]) })
	var excluded *engine.ExcludedError
	eventually(t, "the break refusing play", func() bool {
		_, err := s.Sell(ctx, engine.SellRequest{Player: a.Player, Stake: 50, Count: 1, Picks: picks, Actor: "test"})
		return errors.As(err, &excluded)
	})
	if got, _ := s.Account(ctx, a.Player); got.Session.Open || !got.Break.Active(time.Now()) {
		t.Fatalf("the mirror after the break: %+v", got)
	}
	if _, err := s.OpenSession(ctx, card, "2580"); !errors.As(err, &excluded) {
		t.Fatalf("login during the break: %v", err)
	}
	mustAudit(t, s)
}

// TestFleetBreakTakenOffline: a player's break is never refused for want
// of the network: with the central cut, it is in force at the kiosk at
// once, and reaches the central at the first round once it answers again,
// which ends the lease there.
func TestFleetBreakTakenOffline(t *testing.T) {
	mem := newMemCentral()
	s, card, a := loggedIn(t, mem, 3)
	sell(t, s, a.Player, 50, 1) // a pack held
	mem.set(func() { mem.down = true })
	e, err := s.TakeBreak(ctx, engine.ActorPlayer, a.Player, engine.Break7d)
	if err != nil || !e.Active(time.Now()) {
		t.Fatalf("a break with the central cut: %+v %v", e, err)
	}
	var excluded *engine.ExcludedError
	if _, err := s.Sell(ctx, engine.SellRequest{Player: a.Player, Stake: 50, Count: 1, Picks: picks, Actor: "test"}); !errors.As(err, &excluded) {
		t.Fatalf("play during the break taken offline: %v", err)
	}
	mem.set(func() { mem.down = false })
	eventually(t, "the break at the central, the lease ended", func() bool {
		mem.mu.Lock()
		defer mem.mu.Unlock()
		return mem.allEnded() && mem.accounts[card].acct.Break.Active(time.Now())
	})
	mustAudit(t, s)
}
