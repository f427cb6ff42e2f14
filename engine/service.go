package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/rs/zerolog"
)

// Config is the emission the terminal sells, and what the engine is given.
type Config struct {
	Emission       uint16 // emission number, 1 to MaxEmission
	BlocksPerStake uint32 // blocks of the emission per stake, 1 to 9999
	DemoFunds      Cents  // given to DemoPlayer on first use
	// Journal is the independent record of every change (nil: none, for
	// tests of other things).
	Journal Journal
	// Now gives the time recorded in history, ledger and operator log
	// (nil: time.Now; tests pin it).
	Now func() time.Time
	// Fleet, when set, makes the terminal a kiosk of a fleet: units come
	// from packs the central hands out (fleet_kiosk.go); nil: a lone kiosk
	// drawing its own blocks.
	Fleet *FleetConfig
	// DemoOnly marks the offline demo's data directory, whose key sits in
	// clear beside the data: nothing it holds is secret, so it plays the
	// demo wallet's demo funds and moves no real money (ErrDemoOnly).
	DemoOnly bool
	// PINIterations is the PBKDF2 count of a new operator PIN hash (0:
	// DefaultPINIterations; tests lower it).
	PINIterations int
	// Monotonic reads a clock that only goes forward, whatever is done to
	// the wall clock: the time since an origin of its own. Operator
	// lockouts run on it (nil: Go's monotonic clock; tests drive it).
	Monotonic func() time.Duration
	// Protection is how players are protected (zero: DefaultProtection).
	Protection Protection
	// Counter anchors the data outside its directory (counter.go; nil:
	// none). AdoptCounter, an attendant's reason (recover --override),
	// accepts a counter the data is behind.
	Counter      Counter
	AdoptCounter string
	// DrawFirst, a stake, serves a lone kiosk's game before its blocks are
	// drawn: NewService returns at once and the blocks the store lacks are
	// drawn in the background, this stake's first (the window's selected
	// one); a sale at a stake whose block is not drawn yet waits for it,
	// then sells. Zero: NewService draws them before it returns (the
	// commands, which list and audit the blocks they open).
	DrawFirst Cents
}

// DefaultConfig is emission 1 with 10 blocks per stake and 100,00 € of demo funds.
func DefaultConfig() Config {
	return Config{Emission: 1, BlocksPerStake: 10, DemoFunds: 10_000}
}

// check refuses an emission the engine could not sell: its tickets write
// the emission in two digits and the block number in four.
func (c Config) check() error {
	switch {
	case c.Emission == 0 || c.Emission > MaxEmission:
		return fmt.Errorf("%w: emission %d (1 to %d)", ErrBadConfig, c.Emission, MaxEmission)
	case c.BlocksPerStake == 0 || c.BlocksPerStake > 9999:
		return fmt.Errorf("%w: %d blocks per stake (1 to 9999)", ErrBadConfig, c.BlocksPerStake)
	case c.DemoFunds < 0 || c.DemoFunds > MaxAmount:
		return fmt.Errorf("%w: demo funds %s", ErrBadConfig, c.DemoFunds)
	case c.DrawFirst != 0 && !slices.Contains(Stakes, c.DrawFirst):
		return fmt.Errorf("%w: blocks drawn first at a stake of %s, which is not sold", ErrBadConfig, c.DrawFirst)
	}
	if c.Protection != (Protection{}) {
		return c.Protection.Check()
	}
	return nil
}

// Service is the game on a Store: its roles, each a type with one job,
// sharing the single writer every change goes through.
//   - Sales sells units and records their reveal;
//   - Cash holds the wallets (credit, payout);
//   - Desk is the attendant's side (PIN, operator log, cash by an attendant);
//   - Accounts holds the player accounts and their protection;
//   - Reports reads history, ledgers and blocks;
//   - Auditor verifies everything offline.
//
// Health says whether the terminal may sell.
type Service struct {
	*Sales
	*Cash
	*Desk
	*Reports
	*Auditor
	*Accounts
	// Fleet is the kiosk's side of a fleet, nil for a lone kiosk.
	Fleet *Fleet
	w     *writer
	cfg   Config
}

// NewService opens the game on store: it checks the store (and its journal)
// first, then every stake gets an open block (drawn now if the store has
// none) and a spare one drawn in the background. A store that fails its
// checks opens out of service: reads work, Health says why nothing else does.
// For a kiosk of a fleet, ctx bounds the background sync loop too: when it
// ends (the program is told to stop), the round in flight is cancelled and
// Close pushes nothing more.
func NewService(ctx context.Context, store Store, cfg Config, log zerolog.Logger) (*Service, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Protection == (Protection{}) {
		cfg.Protection = DefaultProtection()
	}
	if cfg.PINIterations <= 0 {
		cfg.PINIterations = DefaultPINIterations
	}
	w := newWriter(store, cfg.Journal, log, cfg.Now)
	fleet := cfg.Fleet
	if fleet == nil && fleetStore(ctx, store) { // its packs are read, its sales refused
		fleet = &FleetConfig{}
	}
	s := &Service{w: w, cfg: cfg}
	var central Central
	if fleet != nil {
		w.fleet = true
		s.Fleet, central = newFleet(w, *fleet), fleet.Central
	}
	cash := &Cash{w: w, demoFunds: cfg.DemoFunds, demoOnly: cfg.DemoOnly, protection: cfg.Protection}
	s.Sales, s.Cash = newSales(w, cfg, s.Fleet), cash
	s.Desk = newDesk(w, cash, cfg)
	s.Accounts = &Accounts{w: w, p: cfg.Protection, iterations: cfg.PINIterations, demoOnly: cfg.DemoOnly, kiosk: s.Fleet}
	s.Reports = &Reports{w: w, emission: cfg.Emission, central: central}
	s.Auditor = &Auditor{w: w, fleet: s.Fleet, protection: cfg.Protection}
	w.mu.Lock()
	err := w.checkAtStart(ctx)
	if cfg.Counter != nil {
		if aerr := s.Desk.anchor(ctx, cfg.Counter, err == nil, cfg.AdoptCounter); err == nil {
			err = aerr
		}
	}
	if err == nil && s.Fleet != nil {
		err = s.Fleet.load(ctx)
	}
	s.Desk.start(ctx)
	w.mu.Unlock()
	if s.Fleet != nil {
		s.Fleet.loop.start(ctx)
	} else if err == nil {
		s.Sales.blocks.openAll(ctx, cfg.DrawFirst)
	}
	return s, nil
}

// Health is nil while the terminal may sell, or why it may not (an
// *OutOfServiceError).
func (s *Service) Health() error { return s.w.Health() }

// Close waits for background work and starts no more, and writes back what
// is left of an operator lockout; the caller closes the store after. A
// kiosk of a fleet cancels its sync round in flight, then pushes its
// backlog for at most a few seconds (nothing once ctx ended).
func (s *Service) Close() {
	s.Desk.close()
	s.Sales.close()
}

// Config is the emission being sold.
func (s *Service) Config() Config { return s.cfg }
