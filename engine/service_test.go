package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/engine/memstore"
)

var ctx = context.Background()

// pinnedStore holds the first block of every stake drawn from a fixed seed,
// so that a test's outcomes are the same at every run.
func pinnedStore(t testing.TB) *memstore.Store {
	t.Helper()
	st := memstore.New()
	for _, b := range pinnedBlocks() {
		c := *b // each test its own copy: some tamper with their store's
		c.Units = slices.Clone(b.Units)
		if err := st.PutBlock(ctx, &c); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// pinnedBlocks are drawn once per test binary: drawing a block (its Merkle
// root over 850 000 leaves) takes about a second of CPU under -race.
var pinnedBlocks = sync.OnceValue(func() []*engine.Block {
	var out []*engine.Block
	for i, stake := range engine.Stakes {
		out = append(out, engine.GenerateBlock(engine.BlockRef{Emission: 1, Stake: stake, Number: 1}, seed(byte(100+i))))
	}
	return out
})

func newService(t *testing.T, cfg engine.Config) (*engine.Service, *memstore.Store) {
	t.Helper()
	st := pinnedStore(t)
	clock := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	if cfg.Now == nil {
		cfg.Now = func() time.Time { clock = clock.Add(time.Second); return clock }
	}
	s, err := engine.NewService(ctx, st, cfg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, st
}

// picks chooses the pucks of a batch's units.
func picks(i int) [2]int { return [2]int{i % engine.NumSlots, (i + 1) % engine.NumSlots} }

func sell(t *testing.T, s *engine.Service, player string, stake engine.Cents, n int) []engine.Sale {
	t.Helper()
	sales, err := s.Sell(ctx, engine.SellRequest{Player: player, Stake: stake, Count: n, Picks: picks, Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return sales
}

func mustAudit(t *testing.T, s *engine.Service) {
	t.Helper()
	rep, err := s.Audit(ctx, nil)
	if err != nil || !rep.OK() {
		t.Fatalf("audit: %v %q", err, rep.Findings)
	}
}

func TestSellSettlesMoneyAndHistory(t *testing.T) {
	s, _ := newService(t, oneBlock)
	if bal, err := s.Balance(ctx, engine.DemoPlayer); err != nil || bal != 10_000 {
		t.Fatalf("demo funds %s, %v", bal, err)
	}
	sales := sell(t, s, engine.DemoPlayer, 100, 50)
	bal := engine.Cents(10_000)
	for i, sale := range sales {
		if sale.Ticket.Index != uint32(i) || sale.Ticket.Block.Stake != 100 {
			t.Fatalf("sale %d: ticket %s", i, sale.Ticket)
		}
		if sale.BalanceBefore != bal || sale.BalanceAfter != bal-100+sale.Prize() || !sale.Done() {
			t.Fatalf("sale %d: %+v", i, sale)
		}
		bal = sale.BalanceAfter
	}
	if got, _ := s.Balance(ctx, engine.DemoPlayer); got != bal {
		t.Fatalf("balance %s, want %s", got, bal)
	}
	last, ok, err := s.Last(ctx, engine.DemoPlayer)
	if err != nil || !ok || last.Ticket != sales[49].Ticket {
		t.Fatalf("last unit %v %v %v", last.Ticket, ok, err)
	}
	got, err := s.Lookup(ctx, sales[10].Ticket)
	if err != nil || got.Record != sales[10].Record {
		t.Fatalf("lookup: %v", err)
	}
	if _, err := s.Lookup(ctx, engine.Ticket{Block: sales[0].Ticket.Block, Index: 999}); !errors.Is(err, engine.ErrUnknownTicket) {
		t.Fatalf("unknown ticket: %v", err)
	}
	mustAudit(t, s)
}

func TestHistoryPagesNewestFirst(t *testing.T) {
	s, _ := newService(t, oneBlock)
	sales := sell(t, s, engine.DemoPlayer, 50, 25)
	if _, err := s.Credit(ctx, engine.DemoPlayer, 500, "test"); err != nil {
		t.Fatal(err)
	}
	sales = append(sales, sell(t, s, engine.DemoPlayer, 200, 3)...)
	var seen []engine.Sale
	before := uint64(0)
	for page := 0; ; page++ {
		got, next, err := s.History(ctx, engine.DemoPlayer, before, 10)
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, got...)
		if next == 0 {
			break
		}
		before = next
		if page > 5 {
			t.Fatal("paging does not end")
		}
	}
	if len(seen) != len(sales) {
		t.Fatalf("history has %d units, sold %d", len(seen), len(sales))
	}
	for i, sale := range seen {
		if sale.Ticket != sales[len(sales)-1-i].Ticket {
			t.Fatalf("history[%d] = %s, want %s", i, sale.Ticket, sales[len(sales)-1-i].Ticket)
		}
	}
}

func TestInsufficientFundsChangesNothing(t *testing.T) {
	s, _ := newService(t, oneBlock)
	customers(t, s, "alice")
	for _, player := range []string{"alice", engine.DemoPlayer} {
		if player == engine.DemoPlayer {
			bal, _ := s.Balance(ctx, player)
			if _, err := s.Payout(ctx, player, bal-30, "test"); err != nil {
				t.Fatal(err)
			}
		}
		before, _ := s.Wallet(ctx, player)
		blocks, _ := s.Blocks(ctx)
		_, err := s.Sell(ctx, engine.SellRequest{Player: player, Stake: 50, Count: 1})
		if !errors.Is(err, engine.ErrInsufficientFunds) {
			t.Fatalf("%s: %v, want ErrInsufficientFunds", player, err)
		}
		after, _ := s.Wallet(ctx, player)
		blocksAfter, _ := s.Blocks(ctx)
		if before != after || blocks[0].Cursor != blocksAfter[0].Cursor {
			t.Fatalf("%s: a refused sale changed something", player)
		}
	}
	if _, err := s.Payout(ctx, "alice", 1, "test"); !errors.Is(err, engine.ErrInsufficientFunds) {
		t.Fatalf("payout beyond the balance: %v", err)
	}
	if _, err := s.Credit(ctx, "alice", 0, "test"); !errors.Is(err, engine.ErrBadAmount) {
		t.Fatalf("zero credit: %v", err)
	}
	if _, err := s.Credit(ctx, "bad player", 100, "test"); !errors.Is(err, engine.ErrBadPlayer) {
		t.Fatalf("bad player: %v", err)
	}
	mustAudit(t, s)
}

func TestBatchStopsWhenFundsRunOut(t *testing.T) {
	s, _ := newService(t, oneBlock)
	customers(t, s, "bob")
	if _, err := s.Credit(ctx, "bob", 300, "test"); err != nil {
		t.Fatal(err)
	}
	sales := sell(t, s, "bob", 200, 10)
	bal := sales[len(sales)-1].BalanceAfter
	if bal >= 200 {
		t.Fatalf("batch stopped with %s left", bal)
	}
	if got, _ := s.Balance(ctx, "bob"); got != bal || got < 0 {
		t.Fatalf("balance %s", got)
	}
}

func TestRevealStepByStep(t *testing.T) {
	s, _ := newService(t, oneBlock)
	var bonus engine.Sale
	for bonus.Player == "" {
		sales, err := s.Sell(ctx, engine.SellRequest{Player: engine.DemoPlayer, Stake: 50, Count: 1})
		if err != nil {
			t.Fatal(err)
		}
		sale := sales[0]
		if _, ok, _ := s.Unfinished(ctx, engine.DemoPlayer); !ok {
			t.Fatal("a new unit is not reported unfinished")
		}
		if _, err := s.Go(ctx, sale.Ticket, 0); !errors.Is(err, engine.ErrReveal) {
			t.Fatalf("GO before any pick: %v", err)
		}
		if sale.Unit.Drops[0].Dest.Bonus {
			bonus = sale
			break
		}
		for drop := 0; drop < 2; drop++ {
			if sale, err = s.Pick(ctx, sale.Ticket, drop, 2); err != nil {
				t.Fatal(err)
			}
			if sale.Unit.Drops[drop].Dest.Bonus {
				if sale, err = s.Go(ctx, sale.Ticket, drop); err != nil {
					t.Fatal(err)
				}
			}
		}
		if !sale.Done() {
			t.Fatal("unit not done after both drops")
		}
	}
	sale, err := s.Pick(ctx, bonus.Ticket, 0, 1)
	if err != nil || sale.Next() != (engine.Step{Kind: engine.StepGo, Drop: 0}) {
		t.Fatalf("after landing in a BONUS box: %+v %v", sale.Next(), err)
	}
	if _, err := s.Pick(ctx, bonus.Ticket, 1, 0); !errors.Is(err, engine.ErrReveal) {
		t.Fatalf("second puck before GO: %v", err)
	}
	if _, err := s.Pick(ctx, bonus.Ticket, 0, 7); !errors.Is(err, engine.ErrReveal) {
		t.Fatalf("slot 7: %v", err)
	}
	// The reveal survives: a restarted kiosk resumes at GO.
	un, ok, err := s.Unfinished(ctx, engine.DemoPlayer)
	if err != nil || !ok || un.Ticket != bonus.Ticket || un.Next().Kind != engine.StepGo || un.Reveal.Slots[0] != 1 {
		t.Fatalf("unfinished: %+v %v %v", un, ok, err)
	}
	mustAudit(t, s)
}

func TestStorageErrorChangesNothing(t *testing.T) {
	s, st := newService(t, oneBlock)
	sell(t, s, engine.DemoPlayer, 50, 3)
	before, _ := s.Wallet(ctx, engine.DemoPlayer)
	st.Fail = errors.New("no space left on device")
	_, err := s.Sell(ctx, engine.SellRequest{Player: engine.DemoPlayer, Stake: 50, Count: 1})
	if !errors.Is(err, engine.ErrStorage) || !strings.Contains(err.Error(), "no space") {
		t.Fatalf("sale on a full disk: %v", err)
	}
	st.Fail = nil
	if after, _ := s.Wallet(ctx, engine.DemoPlayer); after != before {
		t.Fatal("a failed sale moved money")
	}
	sales := sell(t, s, engine.DemoPlayer, 50, 1)
	if sales[0].Ticket.Index != 3 {
		t.Fatalf("selling resumed at %s", sales[0].Ticket)
	}
	mustAudit(t, s)
}

// nearlySold pretends all but n units of the stake's open block are sold, so
// that block changes can be tested without selling 850 000 units: it writes
// the last of those sales' records and moves the cursor to it, which is all
// the start-up check looks at (an audit would see through it).
func nearlySold(t *testing.T, st *memstore.Store, s *engine.Service, stake engine.Cents, n uint32) {
	t.Helper()
	blocks, _ := s.Blocks(ctx)
	for _, b := range blocks {
		if b.Ref.Stake == stake && !b.Exhausted() {
			err := st.Update(ctx, func(tx engine.Tx) error {
				last := engine.Ticket{Block: b.Ref, Index: b.Size - n - 1}
				u, err := tx.Unit(last)
				if err != nil {
					return err
				}
				r := engine.Record{Ticket: last, Player: "filler", Unit: u}
				if err := tx.PutRecord(r); err != nil {
					return err
				}
				return tx.PutCursor(b.Ref, engine.Cursor{Served: b.Size - n, Head: r.Hash()})
			})
			if err != nil {
				t.Fatal(err)
			}
			return
		}
	}
}

func TestBlocksFollowEachOtherThenTheStakeCloses(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.BlocksPerStake = 2
	st := memstore.New()
	s, err := engine.NewService(ctx, st, cfg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	s.Close() // let the spare block be drawn
	blocks, _ := s.Blocks(ctx)
	if len(blocks) != 6 {
		t.Fatalf("%d blocks: want an open and a spare block per stake", len(blocks))
	}
	for _, b := range blocks {
		if b.Seed != (engine.Seed{}) {
			t.Fatalf("block %s: seed revealed while selling", b.Ref)
		}
	}
	nearlySold(t, st, s, 200, 2)
	// A new service reads the cursor the store now has.
	s, _ = engine.NewService(ctx, st, cfg, zerolog.Nop())
	sales := sell(t, s, engine.DemoPlayer, 200, 5)
	if len(sales) != 2 || sales[1].Ticket.Index != engine.BlockSize-1 {
		t.Fatalf("batch crossed the block's end: %d sales", len(sales))
	}
	sales = sell(t, s, engine.DemoPlayer, 200, 1)
	if sales[0].Ticket.Block.Number != 2 || sales[0].Ticket.Index != 0 {
		t.Fatalf("after block 1: %s", sales[0].Ticket)
	}
	blocks, _ = s.Blocks(ctx)
	for _, b := range blocks {
		if b.Exhausted() != (b.Seed != engine.Seed{}) {
			t.Fatalf("block %s: exhausted %v, seed shown %v", b.Ref, b.Exhausted(), b.Seed != engine.Seed{})
		}
	}
	nearlySold(t, st, s, 200, 1)
	s.Close()
	s, _ = engine.NewService(ctx, st, cfg, zerolog.Nop())
	sell(t, s, engine.DemoPlayer, 200, 1)
	_, err = s.Sell(ctx, engine.SellRequest{Player: engine.DemoPlayer, Stake: 200, Count: 1})
	if !errors.Is(err, engine.ErrStakeClosed) {
		t.Fatalf("after the emission's last block: %v", err)
	}
	if _, err := s.Sell(ctx, engine.SellRequest{Player: engine.DemoPlayer, Stake: 50, Count: 1}); err != nil {
		t.Fatalf("other stakes still sell: %v", err)
	}
}

func TestConcurrentSalesAreSerialised(t *testing.T) {
	s, _ := newService(t, oneBlock)
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[engine.Ticket]bool{}
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				sales, err := s.Sell(ctx, engine.SellRequest{Player: engine.DemoPlayer, Stake: 50, Count: 1})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if seen[sales[0].Ticket] {
					t.Errorf("ticket %s sold twice", sales[0].Ticket)
				}
				seen[sales[0].Ticket] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != 40 {
		t.Fatalf("%d tickets", len(seen))
	}
	mustAudit(t, s)
}

func TestAuditFindsTampering(t *testing.T) {
	cases := map[string]func(tx engine.Tx, sales []engine.Sale) error{
		"record": func(tx engine.Tx, sales []engine.Sale) error {
			r := sales[3].Record
			r.BalanceAfter += 1000
			r.BalanceBefore += 1000
			return tx.PutRecord(r)
		},
		"last record": func(tx engine.Tx, sales []engine.Sale) error {
			r := sales[len(sales)-1].Record
			r.Time = r.Time.Add(time.Hour)
			return tx.PutRecord(r)
		},
		"wallet": func(tx engine.Tx, sales []engine.Sale) error {
			w, _, _ := tx.Wallet(engine.DemoPlayer)
			w.Balance += 10_000
			return tx.PutWallet(w)
		},
		"cursor": func(tx engine.Tx, sales []engine.Sale) error {
			c, _ := tx.Cursor(sales[0].Ticket.Block)
			c.Served--
			return tx.PutCursor(sales[0].Ticket.Block, c)
		},
	}
	// Every case starts from the same state (pinned blocks, the same clock,
	// the same sales): the audit finds it sound once, in the first case
	// run, and then each tampering.
	var clean sync.Once
	for name, tamper := range cases {
		t.Run(name, func(t *testing.T) {
			s, st := newService(t, oneBlock)
			sales := sell(t, s, engine.DemoPlayer, 100, 8)
			clean.Do(func() { mustAudit(t, s) })
			if err := st.Update(ctx, func(tx engine.Tx) error { return tamper(tx, sales) }); err != nil {
				t.Fatal(err)
			}
			rep, err := s.Audit(ctx, nil)
			if err != nil || rep.OK() {
				t.Fatalf("tampered %s not found: %v %v", name, err, rep.Findings)
			}
			t.Log(rep.Findings)
		})
	}
}

// The audit's pass over a block's Merkle tree checks its units against the
// commitment and counts them against the table, whether the block still
// sells or is sold out (its seed public, the block redrawn).
func TestAuditFindsTamperedBlockUnits(t *testing.T) {
	otherTier := func(units []byte, i int) int { // a unit after i of another tier
		j := i + 1
		for units[j*engine.UnitSize] == units[i*engine.UnitSize] {
			j++
		}
		return j
	}
	cases := []struct {
		name    string
		tamper  func(units []byte)
		want    []string
		soldOut bool // also audited as sold out
	}{
		{"two units swapped", func(units []byte) {
			j := otherTier(units, 1000)
			a, b := units[1000*engine.UnitSize:][:engine.UnitSize], units[j*engine.UnitSize:][:engine.UnitSize]
			var tmp [engine.UnitSize]byte
			copy(tmp[:], a)
			copy(a, b)
			copy(b, tmp[:])
		}, []string{"do not match the commitment"}, false},
		{"a unit of another tier", func(units []byte) {
			j := otherTier(units, 1000)
			copy(units[1000*engine.UnitSize:][:engine.UnitSize], units[j*engine.UnitSize:])
		}, []string{"prize tally", "do not match the commitment"}, true},
		{"an invalid unit", func(units []byte) {
			units[1000*engine.UnitSize] = byte(engine.NumTiers)
		}, []string{"unit 1000: corrupted data", "do not match the commitment"}, false},
	}
	// The audit checks each block on its own, and each of its findings
	// names the block: each case tampers a block of its own (case i that of
	// stake i), the cases on sale in one store and those sold out in
	// another, and one audit of each store (a Merkle tree per block, a
	// second of CPU each under -race) serves all its cases.
	audit := func(soldOut bool) []string {
		t.Helper()
		s, st := newService(t, oneBlock)
		for i, c := range cases {
			if soldOut && !c.soldOut {
				continue
			}
			ref := engine.BlockRef{Emission: 1, Stake: engine.Stakes[i], Number: 1}
			b, err := st.LoadBlock(ctx, ref)
			if err != nil {
				t.Fatal(err)
			}
			c.tamper(b.Units)
			if soldOut {
				err := st.Update(ctx, func(tx engine.Tx) error {
					return tx.PutCursor(ref, engine.Cursor{Served: engine.BlockSize})
				})
				if err != nil {
					t.Fatal(err)
				}
			}
		}
		rep, err := s.Audit(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		return rep.Findings
	}
	findings := map[bool][]string{false: audit(false), true: audit(true)}
	for i, c := range cases {
		ref := engine.BlockRef{Emission: 1, Stake: engine.Stakes[i], Number: 1}
		for _, soldOut := range []bool{false, true} {
			if soldOut && !c.soldOut {
				continue
			}
			t.Run(fmt.Sprintf("%s, sold out %v", c.name, soldOut), func(t *testing.T) {
				var mine []string // the findings about the case's block
				for _, f := range findings[soldOut] {
					if strings.Contains(f, "block "+ref.String()) {
						mine = append(mine, f)
					}
				}
				all := strings.Join(mine, "\n")
				want := c.want
				if soldOut {
					want = append([]string{"does not regenerate from its revealed seed"}, want...)
				}
				for _, w := range want {
					if !strings.Contains(all, w) {
						t.Errorf("no finding about block %s says %q:\n%s", ref, w, strings.Join(findings[soldOut], "\n"))
					}
				}
				if c.name == "two units swapped" && strings.Contains(all, "prize tally") {
					t.Errorf("a tally finding for units only moved:\n%s", all)
				}
			})
		}
	}
}

// oneBlock keeps tests quick: one block per stake, no spare drawn behind it.
var oneBlock = engine.Config{Emission: 1, BlocksPerStake: 1, DemoFunds: 10_000, PINIterations: lowPINIterations}

// lowPINIterations: the real count costs ~0,1 s per hash (more under
// -race); a hash records its count, so a lower one exercises the same code.
const lowPINIterations = 1000

// The emission bounds are the engine's: a ticket writes the emission in two
// digits, so emission 100 would sell tickets ParseTicket refuses.
func TestEmissionBounds(t *testing.T) {
	for _, cfg := range []engine.Config{
		{Emission: 0, BlocksPerStake: 1}, {Emission: 100, BlocksPerStake: 1},
		{Emission: 1, BlocksPerStake: 0}, {Emission: 1, BlocksPerStake: 10_000}, {Emission: 1, BlocksPerStake: 1, DemoFunds: -1},
	} {
		if _, err := engine.NewService(ctx, memstore.New(), cfg, zerolog.Nop()); !errors.Is(err, engine.ErrBadConfig) {
			t.Errorf("%+v: %v, want ErrBadConfig", cfg, err)
		}
	}
	cfg := engine.Config{Emission: engine.MaxEmission, BlocksPerStake: 1, DemoFunds: 1000}
	s, err := engine.NewService(ctx, memstore.New(), cfg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sale := sell(t, s, engine.DemoPlayer, 50, 1)[0]
	if got, err := engine.ParseTicket(sale.Ticket.String()); err != nil || got != sale.Ticket {
		t.Fatalf("ticket of emission %d: %v %v", engine.MaxEmission, got, err)
	}
}

// The views the screens use: the fall of a drop (a pure function of the
// unit, the drop and the slot), what a resumed unit has shown, the open
// block of each stake.
func TestViews(t *testing.T) {
	s, _ := newService(t, oneBlock)
	sales, err := s.Sell(ctx, engine.SellRequest{Player: engine.DemoPlayer, Stake: 100, Count: 40, Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, sale := range sales {
		if drops, won := sale.Shown(); len(drops) != 0 || won != 0 {
			t.Fatalf("%s: shown %v %s before any pick", sale.Ticket, drops, won)
		}
		for sale.Next().Kind != engine.StepDone {
			step := sale.Next()
			if step.Kind == engine.StepPick {
				p1, err1 := sale.Fall(step.Drop, 2)
				p2, err2 := sale.Fall(step.Drop, 2)
				if err1 != nil || err2 != nil || len(p1.Points) == 0 || p1.Duration() != p2.Duration() ||
					engine.ValidatePath(p1, 2) != nil {
					t.Fatalf("%s drop %d: fall %v %v", sale.Ticket, step.Drop, err1, err2)
				}
				sale, err = s.Pick(ctx, sale.Ticket, step.Drop, 2)
			} else {
				sale, err = s.Go(ctx, sale.Ticket, step.Drop)
			}
			if err != nil {
				t.Fatal(err)
			}
			drops, won := sale.Shown()
			var sum engine.Cents
			for d, sd := range drops {
				if sd.Dest != sale.Unit.Drops[d].Dest || sd.Value != sale.Unit.Drops[d].Value(100) {
					t.Fatalf("%s: shown drop %d %+v", sale.Ticket, d, sd)
				}
				if sd.Revealed {
					sum += sd.Value
				}
			}
			if won != sum {
				t.Fatalf("%s: won %s, revealed values sum to %s", sale.Ticket, won, sum)
			}
		}
		if drops, won := sale.Shown(); len(drops) != 2 || won != sale.Prize() {
			t.Fatalf("%s: shown %v %s at the end, prize %s", sale.Ticket, drops, won, sale.Prize())
		}
	}
	open := s.OpenBlocks()
	rep, err := s.BlockReport(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range rep {
		if b.Open != (open[b.Ref.Stake] == b.Ref) {
			t.Errorf("block %s: Open %v, OpenBlocks %v", b.Ref, b.Open, open)
		}
	}
	if len(open) != len(engine.Stakes) {
		t.Errorf("open blocks %v", open)
	}
	for i, m := range engine.SpotMultiples {
		if engine.SpotValue(i, 200) != engine.Cents(m)*200 {
			t.Errorf("spot %d", i)
		}
	}
}

// customers gives each named player an account and an open session (see
// engine.Customer).
func customers(t testing.TB, s *engine.Service, names ...string) {
	t.Helper()
	for _, n := range names {
		if err := engine.Customer(s, n); err != nil {
			t.Fatalf("account for %s: %v", n, err)
		}
	}
}

// A window's game is served before its blocks are drawn (Config.DrawFirst):
// they are drawn behind it, the selected stake's first, and a sale at any
// stake right away waits for its block, then sells, never an error.
// Closing waits for the drawing: the store then holds an open and a spare
// block per stake. A stake that is not sold cannot be drawn first.
func TestSaleWaitsForItsBlockDrawnBehind(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.BlocksPerStake = 2
	cfg.DrawFirst = 100
	var logged bytes.Buffer
	st := memstore.New()
	s, err := engine.NewService(ctx, st, cfg, zerolog.New(zerolog.SyncWriter(&logged)))
	if err != nil {
		t.Fatal(err)
	}
	for _, stake := range []engine.Cents{200, 50, 100} {
		if sale := sell(t, s, engine.DemoPlayer, stake, 1)[0]; sale.Ticket.Block != (engine.BlockRef{Emission: 1, Stake: stake, Number: 1}) || sale.Ticket.Index != 0 {
			t.Fatalf("the first sale at %s: %s", stake, sale.Ticket)
		}
	}
	mustAudit(t, s)
	s.Close()
	if blocks, _ := s.Blocks(ctx); len(blocks) != 6 {
		t.Fatalf("%d blocks after close: want an open and a spare block per stake", len(blocks))
	}

	cfg.DrawFirst = 0
	var quiet bytes.Buffer
	s, err = engine.NewService(ctx, memstore.New(), cfg, zerolog.New(zerolog.SyncWriter(&quiet)))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	first := func(log string) string {
		for line := range strings.Lines(log) {
			var e struct{ Block, Message string }
			if json.Unmarshal([]byte(line), &e) == nil && e.Message == "block generated" {
				return e.Block
			}
		}
		return ""
	}
	if got := first(quiet.String()); got != "01-050-0001" {
		t.Fatalf("without DrawFirst the first block drawn is %q, want the first stake's", got)
	}
	logged.Reset()
	cfg.DrawFirst = 200
	s, err = engine.NewService(ctx, memstore.New(), cfg, zerolog.New(zerolog.SyncWriter(&logged)))
	if err != nil {
		t.Fatal(err)
	}
	// Closed at once, it would draw nothing: closing starts no more work.
	for deadline := time.Now().Add(time.Minute); len(s.Sales.OpenBlocks()) < len(engine.Stakes); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the blocks drawn behind: %v after a minute", s.Sales.OpenBlocks())
		}
	}
	s.Close()
	if got := first(logged.String()); got != "01-200-0001" {
		t.Fatalf("with DrawFirst 2,00 € the first block drawn is %q", got)
	}

	cfg.DrawFirst = 75
	if _, err := engine.NewService(ctx, memstore.New(), cfg, zerolog.Nop()); !errors.Is(err, engine.ErrBadConfig) {
		t.Fatalf("blocks drawn first at 0,75 €: %v, want ErrBadConfig", err)
	}
}
