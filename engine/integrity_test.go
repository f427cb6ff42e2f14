package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/engine/memstore"
)

func withJournal(j engine.Journal) engine.Config {
	cfg := oneBlock
	cfg.Journal = j
	return cfg
}

// open starts a service on st with journal j. The tests give it a
// pinnedStore, not an empty memstore: on an empty store the service draws
// a block per stake first (seconds of CPU each under -race), and these
// tests are about the journal, not the draw, which the block and service
// tests check (and TestJournalRebuildsTheStore, blocks recovered from their
// seeds).
func open(t *testing.T, st engine.Store, j engine.Journal) *engine.Service {
	t.Helper()
	s, err := engine.NewService(ctx, st, withJournal(j), zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// playSome sells units step by step and by batch, and moves funds: every
// kind of journal entry.
func playSome(t *testing.T, s *engine.Service) {
	t.Helper()
	sell(t, s, engine.DemoPlayer, 50, 5)
	sales, err := s.Sell(ctx, engine.SellRequest{Player: engine.DemoPlayer, Stake: 100, Count: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Pick(ctx, sales[0].Ticket, 0, 2); err != nil {
		t.Fatal(err)
	}
	customers(t, s, "carol")
	if _, err := s.Credit(ctx, "carol", 1_000, "test"); err != nil {
		t.Fatal(err)
	}
	sell(t, s, "carol", 200, 2)
}

func TestJournalRebuildsTheStore(t *testing.T) {
	j := &memstore.Journal{}
	s := open(t, pinnedStore(t), j)
	playSome(t, s)
	mustAudit(t, s)
	want, _, _ := s.History(ctx, engine.DemoPlayer, 0, 100)
	carol, _ := s.Wallet(ctx, "carol")

	fresh := memstore.New() // empty: the blocks sold from are drawn again from their seeds
	n, err := engine.Recover(ctx, j, fresh, zerolog.Nop())
	if err != nil || n == 0 {
		t.Fatalf("recover: %d entries, %v", n, err)
	}
	r := open(t, fresh, j)
	if err := r.Health(); err != nil {
		t.Fatal(err)
	}
	got, _, _ := r.History(ctx, engine.DemoPlayer, 0, 100)
	if len(got) != len(want) {
		t.Fatalf("recovered %d units, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Record != want[i].Record || got[i].Reveal != want[i].Reveal {
			t.Fatalf("unit %d differs after recovery: %+v vs %+v", i, got[i], want[i])
		}
	}
	if w, _ := r.Wallet(ctx, "carol"); w != carol {
		t.Fatalf("carol's wallet %+v, want %+v", w, carol)
	}
	mustAudit(t, r)
	sell(t, r, engine.DemoPlayer, 50, 1) // and it sells on
	mustAudit(t, r)
}

func TestStoreBehindItsJournalStopsSelling(t *testing.T) {
	j := &memstore.Journal{}
	s := open(t, pinnedStore(t), j)
	playSome(t, s)
	// A store that lost its last two acknowledged transactions, as Badger
	// does when its write-ahead log is cut short: it keeps its blocks, and
	// Recover, finding them, does not draw them again.
	short := &memstore.Journal{}
	j.Entries(func(e engine.JournalEntry) error { return short.Append(e) })
	short.Drop(2)
	lossy := pinnedStore(t)
	if _, err := engine.Recover(ctx, short, lossy, zerolog.Nop()); err != nil {
		t.Fatal(err)
	}
	b := open(t, lossy, j)
	if err := b.Health(); !errors.Is(err, engine.ErrOutOfService) || !strings.Contains(err.Error(), "behind its journal") {
		t.Fatalf("health: %v", err)
	}
	if _, err := b.Sell(ctx, engine.SellRequest{Player: engine.DemoPlayer, Stake: 50, Count: 1}); !errors.Is(err, engine.ErrOutOfService) {
		t.Fatalf("sale on a store behind its journal: %v", err)
	}
	if rep, err := b.Audit(ctx, nil); err != nil || rep.OK() {
		t.Fatalf("audit does not see the lost sales: %v %v", err, rep.Findings)
	}
	// The journal, intact, rebuilds the store (onto its blocks: their
	// recovery from the seeds is TestJournalRebuildsTheStore's).
	fresh := pinnedStore(t)
	if _, err := engine.Recover(ctx, j, fresh, zerolog.Nop()); err != nil {
		t.Fatal(err)
	}
	mustAudit(t, open(t, fresh, j))
}

func TestJournalFailureStopsSellingAndIsRepairedAtStart(t *testing.T) {
	j := &memstore.Journal{}
	st := pinnedStore(t)
	s := open(t, st, j)
	sell(t, s, engine.DemoPlayer, 50, 2)
	j.Fail = errors.New("no space left on device")
	_, err := s.Sell(ctx, engine.SellRequest{Player: engine.DemoPlayer, Stake: 50, Count: 1})
	if !errors.Is(err, engine.ErrOutOfService) {
		t.Fatalf("sale with a failing journal: %v", err)
	}
	// The sale is committed: it is the player's last unit (article 4.2).
	last, ok, _ := s.Last(ctx, engine.DemoPlayer)
	if !ok || last.Ticket.Index != 2 {
		t.Fatalf("last unit %v", last.Ticket)
	}
	if _, err := s.Credit(ctx, engine.DemoPlayer, 100, "test"); !errors.Is(err, engine.ErrOutOfService) {
		t.Fatalf("credit while out of service: %v", err)
	}
	j.Fail = nil
	r := open(t, st, j) // restart: the journal is completed from the store
	if err := r.Health(); err != nil {
		t.Fatalf("after restart: %v", err)
	}
	mustAudit(t, r)
}

func TestTamperedStoreIsFoundAtStart(t *testing.T) {
	j := &memstore.Journal{}
	st := pinnedStore(t)
	s := open(t, st, j)
	playSome(t, s)
	st.Update(ctx, func(tx engine.Tx) error {
		w, _, _ := tx.Wallet("carol")
		w.Balance += 5_000
		return tx.PutWallet(w)
	})
	r := open(t, st, j)
	if err := r.Health(); !errors.Is(err, engine.ErrOutOfService) || !strings.Contains(err.Error(), "carol") {
		t.Fatalf("health after tampering: %v", err)
	}
	if _, err := r.Sell(ctx, engine.SellRequest{Player: "carol", Stake: 50, Count: 1}); !errors.Is(err, engine.ErrOutOfService) {
		t.Fatalf("sale from tampered data: %v", err)
	}
}

// The journal is written while the store commits: a crash between the two
// leaves the journal one entry ahead, which the next start replays.
func TestJournalOneAheadIsReplayedAtStart(t *testing.T) {
	j := &memstore.Journal{}
	s := open(t, pinnedStore(t), j)
	playSome(t, s)
	want, _, _ := s.Last(ctx, "carol")
	short := &memstore.Journal{}
	j.Entries(func(e engine.JournalEntry) error { return short.Append(e) })
	short.Drop(1)
	behind := pinnedStore(t) // the store, with its blocks, one entry behind
	if _, err := engine.Recover(ctx, short, behind, zerolog.Nop()); err != nil {
		t.Fatal(err)
	}
	r := open(t, behind, j)
	if err := r.Health(); err != nil {
		t.Fatalf("a journal one entry ahead: %v", err)
	}
	if got, ok, _ := r.Last(ctx, "carol"); !ok || got.Record != want.Record {
		t.Fatalf("the journal's last entry was not replayed: %v", got.Ticket)
	}
	mustAudit(t, r)
}

// A commit the store refuses at the last moment takes its journal entry
// back: nothing moved, nothing journaled, and selling goes on.
func TestFailedCommitIsTakenOutOfTheJournal(t *testing.T) {
	j := &memstore.Journal{}
	st := pinnedStore(t)
	s := open(t, st, j)
	sell(t, s, engine.DemoPlayer, 50, 2)
	head := j.Head()
	st.FailCommit = errors.New("I/O error")
	if _, err := s.Sell(ctx, engine.SellRequest{Player: engine.DemoPlayer, Stake: 50, Count: 1}); !errors.Is(err, engine.ErrStorage) {
		t.Fatalf("sale with a failing commit: %v", err)
	}
	if j.Head() != head {
		t.Fatal("the journal kept an entry the store refused")
	}
	st.FailCommit = nil
	if err := s.Health(); err != nil {
		t.Fatal(err)
	}
	if sales := sell(t, s, engine.DemoPlayer, 50, 1); sales[0].Ticket.Index != 2 {
		t.Fatalf("next sale %s", sales[0].Ticket)
	}
	mustAudit(t, s)
}

// The operator log, the PIN and its lockout are journaled too: a store
// rebuilt from the journal keeps them.
func TestRecoverKeepsTheOperatorSide(t *testing.T) {
	j := &memstore.Journal{}
	s := open(t, pinnedStore(t), j)
	if err := s.SetPIN(ctx, "cli", "482915"); err != nil {
		t.Fatal(err)
	}
	if err := s.Login(ctx, "operator", "000000"); !errors.Is(err, engine.ErrBadPIN) {
		t.Fatalf("wrong PIN: %v", err)
	}
	customers(t, s, "dave")
	if _, err := s.OperatorCredit(ctx, "operator", "dave", 2_000); err != nil {
		t.Fatal(err)
	}
	want, _ := s.OperatorLog(ctx, 100)

	// Nothing was sold, so the journal names no block: recovered into an
	// empty store, the service would draw its blocks.
	fresh := pinnedStore(t)
	if _, err := engine.Recover(ctx, j, fresh, zerolog.Nop()); err != nil {
		t.Fatal(err)
	}
	r := open(t, fresh, j)
	if got, _ := r.OperatorLog(ctx, 100); len(got) != len(want) || got[0] != want[0] {
		t.Fatalf("operator log after recover: %v, want %v", got, want)
	}
	if err := r.Login(ctx, "operator", "482915"); err != nil {
		t.Fatalf("the PIN did not survive recover: %v", err)
	}
	mustAudit(t, r)
}

// garbling stores records or ledger entries other than those it is given,
// as a damaged store returning other bytes would.
type garbling struct {
	engine.Store
	record, ledger bool
}

func (g garbling) Update(c context.Context, fn func(engine.Tx) error) error {
	return g.Store.Update(c, func(tx engine.Tx) error { return fn(garblingTx{tx, g}) })
}

type garblingTx struct {
	engine.Tx
	g garbling
}

func (t garblingTx) PutRecord(r engine.Record) error {
	if t.g.record {
		r.BalanceAfter++
	}
	return t.Tx.PutRecord(r)
}

func (t garblingTx) PutLedger(l engine.LedgerEntry) error {
	if t.g.ledger {
		l.Credit++
	}
	return t.Tx.PutLedger(l)
}

// Every change is read back once committed: a store that keeps other bytes
// than it was given stops the sales at once.
func TestChangesAreReadBack(t *testing.T) {
	for _, c := range []struct {
		name string
		g    garbling
		want string
	}{
		{"record", garbling{record: true}, "does not match the chain head"},
		{"ledger", garbling{ledger: true}, "does not match its last ledger entry"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.g.Store = pinnedStore(t)
			s := open(t, c.g, &memstore.Journal{})
			_, err := s.Sell(ctx, engine.SellRequest{Player: engine.DemoPlayer, Stake: 50, Count: 1})
			if !errors.Is(err, engine.ErrOutOfService) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("sale into a garbling store: %v", err)
			}
			if err := s.Health(); err == nil {
				t.Fatal("still healthy")
			}
			if _, err := s.Sell(ctx, engine.SellRequest{Player: engine.DemoPlayer, Stake: 50, Count: 1}); !errors.Is(err, engine.ErrOutOfService) {
				t.Fatalf("next sale: %v", err)
			}
		})
	}
}

// A record beyond a block's cursor (data the store should not hold) is
// found at start.
func TestRecordBeyondTheCursorIsFoundAtStart(t *testing.T) {
	j := &memstore.Journal{}
	st := pinnedStore(t)
	s := open(t, st, j)
	sales := sell(t, s, engine.DemoPlayer, 50, 2)
	st.Update(ctx, func(tx engine.Tx) error {
		r := sales[1].Record
		r.Ticket.Index++ // the unit the cursor serves next
		return tx.PutRecord(r)
	})
	r := open(t, st, j)
	if err := r.Health(); !errors.Is(err, engine.ErrOutOfService) || !strings.Contains(err.Error(), "beyond the cursor (2 served)") {
		t.Fatalf("health: %v", err)
	}
}
