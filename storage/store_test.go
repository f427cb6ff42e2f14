package storage_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/storage"
)

// MustOpen opens a store in a fresh temporary directory, closed at the end
// of the test.
func MustOpen(tb testing.TB) *storage.Store {
	tb.Helper()
	return mustOpenDir(tb, tb.TempDir())
}

func mustOpenDir(tb testing.TB, dir string) *storage.Store {
	tb.Helper()
	s, err := storage.Open(dir, storage.TestKey, zerolog.Nop())
	if err != nil {
		tb.Fatalf("open %s: %v", dir, err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// testConfig keeps the number of blocks small: one per stake, no spare.
// Every audit computes each block's Merkle tree (a second of CPU under the
// race detector), and the secrecy scans and the encryption read every
// block's chunks. The spares a kiosk draws in the background are drawn once
// per test binary, on a store of their own (storage.FirstStart).
var testConfig = engine.Config{Emission: 1, BlocksPerStake: 1, DemoFunds: 10_000}

var start = time.Date(2026, 12, 2, 14, 30, 0, 0, time.UTC)

func newService(tb testing.TB, s engine.Store) *engine.Service {
	tb.Helper()
	now := start
	cfg := testConfig
	cfg.Now = func() time.Time { now = now.Add(time.Second); return now }
	svc, err := engine.NewService(context.Background(), s, cfg, zerolog.Nop())
	if err != nil {
		tb.Fatalf("new service: %v", err)
	}
	svc.Close() // wait for any block drawn in the background, so that tests see a settled store
	return svc
}

func sell(tb testing.TB, svc *engine.Service, req engine.SellRequest) []engine.Sale {
	tb.Helper()
	sales, err := svc.Sell(context.Background(), req)
	if err != nil {
		tb.Fatalf("sell %+v: %v", req, err)
	}
	return sales
}

func picks(i int) [2]int { return [2]int{i % engine.NumSlots, (i + 1) % engine.NumSlots} }

func mustAudit(tb testing.TB, svc *engine.Service) {
	tb.Helper()
	rep, err := svc.Audit(context.Background(), nil)
	if err != nil {
		tb.Fatalf("audit: %v", err)
	}
	if !rep.OK() {
		tb.Fatalf("audit findings: %q", rep.Findings)
	}
}

// state is what a refused sale must leave untouched.
type state struct {
	wallet  engine.Wallet
	blocks  []engine.BlockInfo
	history []engine.Sale
}

func snapshot(tb testing.TB, svc *engine.Service, player string) state {
	tb.Helper()
	ctx := context.Background()
	w, err := svc.Wallet(ctx, player)
	if err != nil {
		tb.Fatal(err)
	}
	blocks, err := svc.Blocks(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	h, _, err := svc.History(ctx, player, 0, 1000)
	if err != nil {
		tb.Fatal(err)
	}
	return state{w, blocks, h}
}

func sameState(a, b state) bool {
	return a.wallet == b.wallet && slices.Equal(a.blocks, b.blocks) &&
		slices.EqualFunc(a.history, b.history, func(x, y engine.Sale) bool {
			return x.Ticket == y.Ticket && x.Time.Equal(y.Time) && x.Unit == y.Unit && x.BalanceAfter == y.BalanceAfter && x.Reveal == y.Reveal
		})
}

// TestServiceOnBadger drives the whole engine on a real store: sales with
// and without picks, reveal steps, history paging, last unit, lookup,
// credit and payout, refused sales, audit, then a reopen.
func TestServiceOnBadger(t *testing.T) {
	ctx := context.Background()
	s := mustOpenDir(t, drawnDir(t))
	svc := newService(t, s)
	demo := engine.DemoPlayer

	// One unit revealed step by step.
	first := sell(t, svc, engine.SellRequest{Player: demo, Stake: 50, Count: 1, Actor: "kiosk"})[0]
	if first.Done() || first.Next() != (engine.Step{Kind: engine.StepPick, Drop: 0}) {
		t.Fatalf("new sale at step %+v", first.Next())
	}
	if first.BalanceBefore != testConfig.DemoFunds || first.BalanceAfter != first.BalanceBefore-50+first.Prize() {
		t.Fatalf("funds %s -> %s, prize %s", first.BalanceBefore, first.BalanceAfter, first.Prize())
	}
	sale := first
	for steps := 0; !sale.Done(); steps++ {
		if steps > 4 {
			t.Fatalf("reveal does not end: %+v", sale.Reveal)
		}
		var err error
		switch st := sale.Next(); st.Kind {
		case engine.StepPick:
			sale, err = svc.Pick(ctx, sale.Ticket, st.Drop, 2)
		case engine.StepGo:
			sale, err = svc.Go(ctx, sale.Ticket, st.Drop)
		}
		if err != nil {
			t.Fatalf("reveal step of %s: %v", sale.Ticket, err)
		}
	}
	if _, err := svc.Pick(ctx, sale.Ticket, 0, 1); !errors.Is(err, engine.ErrReveal) {
		t.Fatalf("pick on a finished unit: %v, want ErrReveal", err)
	}

	// A batch with picks: revealed at once, consecutive tickets.
	batch := sell(t, svc, engine.SellRequest{Player: demo, Stake: 100, Count: 30, Picks: picks, Actor: "cli"})
	if len(batch) != 30 {
		t.Fatalf("sold %d of 30", len(batch))
	}
	for i, b := range batch {
		if !b.Done() || b.Reveal.Slots != picks(i) || b.Ticket.Index != uint32(i) {
			t.Fatalf("batch unit %d: ticket %s reveal %+v", i, b.Ticket, b.Reveal)
		}
	}
	lastSale := batch[len(batch)-1]

	// History, newest first, in pages that neither skip nor repeat.
	var all []engine.Sale
	for before, pages := uint64(0), 0; ; pages++ {
		page, next, err := svc.History(ctx, demo, before, 7)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page...)
		if next == 0 {
			break
		}
		if pages > 10 || len(page) != 7 {
			t.Fatalf("page %d of %d units, next %d", pages, len(page), next)
		}
		before = next
	}
	if len(all) != 31 || all[0].Ticket != lastSale.Ticket || all[30].Ticket != first.Ticket {
		t.Fatalf("history of %d units from %s to %s", len(all), all[0].Ticket, all[len(all)-1].Ticket)
	}
	if !all[30].Done() {
		t.Fatalf("history lost the reveal of %s: %+v", first.Ticket, all[30].Reveal)
	}

	last, ok, err := svc.Last(ctx, demo)
	if err != nil || !ok || last.Ticket != lastSale.Ticket || last.BalanceAfter != lastSale.BalanceAfter {
		t.Fatalf("last: %v %v %+v, want %s", ok, err, last.Ticket, lastSale.Ticket)
	}
	got, err := svc.Lookup(ctx, batch[3].Ticket)
	if err != nil || got.Unit != batch[3].Unit || !got.Time.Equal(batch[3].Time) || got.Prev != batch[2].Hash() {
		t.Fatalf("lookup %s: %+v, %v", batch[3].Ticket, got, err)
	}
	unsold := engine.Ticket{Block: lastSale.Ticket.Block, Index: 500}
	if _, err := svc.Lookup(ctx, unsold); !errors.Is(err, engine.ErrUnknownTicket) {
		t.Fatalf("lookup of unsold %s: %v, want ErrUnknownTicket", unsold, err)
	}

	// Operator money, then a sale refused for want of funds changes nothing.
	bob := customer(t, svc, "Bob Martin")
	if _, err := svc.Credit(ctx, bob, 250, "operator:1"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Payout(ctx, bob, 100, "operator:1"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Payout(ctx, bob, 1000, "operator:1"); !errors.Is(err, engine.ErrInsufficientFunds) {
		t.Fatalf("payout beyond the balance: %v", err)
	}
	before := snapshot(t, svc, bob)
	if before.wallet.Balance != 150 {
		t.Fatalf("bob has %s, want 1,50 €", before.wallet.Balance)
	}
	if _, err := svc.Sell(ctx, engine.SellRequest{Player: bob, Stake: 200, Count: 1}); !errors.Is(err, engine.ErrInsufficientFunds) {
		t.Fatalf("sale beyond the balance: %v, want ErrInsufficientFunds", err)
	}
	if after := snapshot(t, svc, bob); !sameState(before, after) {
		t.Fatalf("a refused sale changed the state:\n%+v\n%+v", before, after)
	}
	bobs := sell(t, svc, engine.SellRequest{Player: bob, Stake: 50, Count: 5, Picks: picks})
	if len(bobs) == 0 || bobs[0].BalanceBefore != 150 {
		t.Fatalf("bob's sales: %+v", bobs)
	}
	mustAudit(t, svc)

	// Everything survives a close and reopen; the directory is locked meanwhile.
	svc.Close()
	demoState, bobState := snapshot(t, svc, demo), snapshot(t, svc, bob)
	if _, err := storage.Open(s.Dir(), storage.TestKey, zerolog.Nop()); !errors.Is(err, engine.ErrInUse) || !strings.Contains(err.Error(), s.Dir()) {
		t.Fatalf("second open: %v, want ErrInUse naming %s", err, s.Dir())
	} else if !strings.HasPrefix(err.Error(), "already running") {
		t.Errorf("second open says %q", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := mustOpenDir(t, s.Dir())
	svc2 := newService(t, s2)
	if got := snapshot(t, svc2, demo); !sameState(demoState, got) {
		t.Fatalf("demo after reopen:\n%+v\n%+v", demoState, got)
	}
	if got := snapshot(t, svc2, bob); !sameState(bobState, got) {
		t.Fatalf("bob after reopen:\n%+v\n%+v", bobState, got)
	}
	more := sell(t, svc2, engine.SellRequest{Player: demo, Stake: 100, Count: 2, Picks: picks})
	if more[0].Ticket.Index != lastSale.Ticket.Index+1 || more[0].Prev != lastSale.Hash() {
		t.Fatalf("after reopen sold %s, want the unit after %s", more[0].Ticket, lastSale.Ticket)
	}
	mustAudit(t, svc2)
}

// TestReadTx checks the store's orderings directly: ledgers both ways and
// ranges, players that are prefixes of each other, wallets, records.
func TestReadTx(t *testing.T) {
	ctx := context.Background()
	s := MustOpen(t)
	ref := engine.BlockRef{Emission: 1, Stake: 50, Number: 1}
	err := s.Update(ctx, func(tx engine.Tx) error {
		for _, p := range []string{"anne", "ann", "bo"} {
			w := engine.Wallet{Player: p}
			for seq := uint64(1); seq <= 12; seq++ {
				l := engine.LedgerEntry{Player: p, Seq: seq, Kind: engine.LedgerCredit, Credit: engine.Cents(seq), Actor: "test"}
				if err := tx.PutLedger(l); err != nil {
					return err
				}
				w.Seq = seq
			}
			if err := tx.PutWallet(w); err != nil {
				return err
			}
		}
		u := engine.Scripts(0)[0]
		for _, i := range []uint32{2, 0, 300, 1} { // written out of order
			r := engine.Record{Ticket: engine.Ticket{Block: ref, Index: i}, Player: "ann", Unit: u, Time: start}
			if err := tx.PutRecord(r); err != nil {
				return err
			}
		}
		return tx.PutCursor(ref, engine.Cursor{Served: 4})
	})
	if err != nil {
		t.Fatal(err)
	}
	seqs := func(player string, from, to uint64) (out []uint64) {
		err := s.View(ctx, func(tx engine.ReadTx) error {
			return tx.Ledger(player, from, to, func(l engine.LedgerEntry) error {
				if l.Player != player {
					return fmt.Errorf("entry of %s in %s's ledger", l.Player, player)
				}
				out = append(out, l.Seq)
				return nil
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, c := range []struct {
		player   string
		from, to uint64
		want     []uint64
	}{
		{"ann", 1, 3, []uint64{1, 2, 3}},
		{"ann", 11, 20, []uint64{11, 12}},
		{"ann", 3, 1, []uint64{3, 2, 1}},
		{"anne", 20, 11, []uint64{12, 11}},
		{"anne", 5, 5, []uint64{5}},
		{"an", 1, 12, nil},
		{"bo", 13, 20, nil},
		{"bo", 12, 12, []uint64{12}},
	} {
		if got := seqs(c.player, c.from, c.to); !slices.Equal(got, c.want) {
			t.Errorf("ledger %s [%d, %d] = %v, want %v", c.player, c.from, c.to, got, c.want)
		}
	}

	stop := errors.New("stop")
	var players []string
	var indexes []uint32
	err = s.View(ctx, func(tx engine.ReadTx) error {
		if err := tx.Wallets(func(w engine.Wallet) error { players = append(players, w.Player); return nil }); err != nil {
			return err
		}
		if err := tx.Records(ref, func(r engine.Record) error { indexes = append(indexes, r.Ticket.Index); return nil }); err != nil {
			return err
		}
		if _, ok, err := tx.Wallet("nobody"); ok || err != nil {
			return fmt.Errorf("wallet of nobody: %v %v", ok, err)
		}
		if _, ok, err := tx.Reveal(engine.Ticket{Block: ref}); ok || err != nil {
			return fmt.Errorf("reveal never saved: %v %v", ok, err)
		}
		if _, err := tx.Record(engine.Ticket{Block: ref, Index: 3}); !errors.Is(err, engine.ErrUnknownTicket) {
			return fmt.Errorf("absent record: %v", err)
		}
		if _, err := tx.Unit(engine.Ticket{Block: ref}); !errors.Is(err, engine.ErrUnknownTicket) {
			return fmt.Errorf("unit of a block never stored: %v", err)
		}
		if c, err := tx.Cursor(engine.BlockRef{Emission: 9, Stake: 50, Number: 1}); err != nil || c != (engine.Cursor{}) {
			return fmt.Errorf("cursor of a block never sold: %+v %v", c, err)
		}
		return tx.Wallets(func(engine.Wallet) error { return stop })
	})
	if err != stop {
		t.Fatalf("view: %v, want the callback's own error unchanged", err)
	}
	if !slices.Equal(players, []string{"ann", "anne", "bo"}) || !slices.Equal(indexes, []uint32{0, 1, 2, 300}) {
		t.Fatalf("wallets %v, records %v", players, indexes)
	}
	if err := s.Update(ctx, func(engine.Tx) error { return stop }); err != stop {
		t.Fatalf("update: %v, want the callback's own error unchanged", err)
	}
}

func newBlock(tb testing.TB, ref engine.BlockRef, seedByte byte) *engine.Block {
	tb.Helper()
	var seed engine.Seed
	seed[0] = seedByte
	return engine.GenerateBlock(ref, seed)
}

func putBlock(tb testing.TB, s engine.Store, b *engine.Block) {
	tb.Helper()
	if err := s.PutBlock(context.Background(), b); err != nil {
		tb.Fatalf("put block %s: %v", b.Ref, err)
	}
}

func rawSet(tb testing.TB, s *storage.Store, key, value []byte) {
	tb.Helper()
	err := storage.RawDB(s).Update(func(txn *badger.Txn) error {
		if value == nil {
			return txn.Delete(key)
		}
		return txn.Set(key, value)
	})
	if err != nil {
		tb.Fatal(err)
	}
}

func rawGet(tb testing.TB, s *storage.Store, key []byte) []byte {
	tb.Helper()
	var v []byte
	err := storage.RawDB(s).View(func(txn *badger.Txn) error {
		item, err := txn.Get(key)
		if err != nil {
			return err
		}
		v, err = item.ValueCopy(nil)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

func listed(tb testing.TB, s engine.Store) (refs []engine.BlockRef) {
	tb.Helper()
	err := s.View(context.Background(), func(tx engine.ReadTx) error {
		blocks, err := tx.Blocks()
		for _, b := range blocks {
			refs = append(refs, b.Ref)
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return refs
}

// TestBlocks stores blocks, reads them back whole and unit by unit, and
// checks that an incomplete block is invisible and is fully replaced when
// drawn again.
// A batch's reveals go in groups of keys; each reads back as its own, next
// to reveals stored one by one, in two transactions that share a group.
func TestGroupedReveals(t *testing.T) {
	ctx := context.Background()
	s := MustOpen(t)
	ref := engine.BlockRef{Emission: 1, Stake: 100, Number: 3}
	at := func(i uint32) engine.Ticket { return engine.Ticket{Block: ref, Index: i} }
	reveal := func(i uint32) engine.Reveal {
		return engine.Reveal{Slots: [2]int{int(i % 3), int(i+1) % 3}, Go: [2]bool{i%2 == 0, i%5 == 0}}
	}
	batch := func(from, n uint32) func(engine.Tx) error {
		return func(tx engine.Tx) error {
			rvs := make([]engine.Reveal, n)
			for i := range rvs {
				rvs[i] = reveal(from + uint32(i))
			}
			return tx.PutReveals(at(from), rvs)
		}
	}
	for _, fn := range []func(engine.Tx) error{
		batch(10, 600), // across three groups
		batch(610, 1),  // into a group the first batch began
		func(tx engine.Tx) error { return tx.PutReveal(at(2000), reveal(2000)) },
	} {
		if err := s.Update(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}
	err := s.View(ctx, func(tx engine.ReadTx) error {
		for i := uint32(0); i < 2100; i++ {
			rv, ok, err := tx.Reveal(at(i))
			want := i >= 10 && i <= 610 || i == 2000
			if err != nil || ok != want || ok && rv != reveal(i) {
				return fmt.Errorf("reveal of %d: %+v %v %v", i, rv, ok, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rawSet(t, s, storage.RevealGroupKey(at(10)), []byte{1, 2, 3})
	err = s.View(ctx, func(tx engine.ReadTx) error { _, _, err := tx.Reveal(at(11)); return err })
	if !errors.Is(err, engine.ErrCorrupt) {
		t.Fatalf("reveal from a damaged group: %v", err)
	}
}

func TestBlocks(t *testing.T) {
	ctx := context.Background()
	s := MustOpen(t)
	a := firstBlock(t, engine.BlockRef{Emission: 1, Stake: 200, Number: 1})
	b := firstBlock(t, engine.BlockRef{Emission: 1, Stake: 50, Number: 2})
	putBlock(t, s, a)
	putBlock(t, s, b)
	if err := s.PutBlock(ctx, a); err == nil {
		t.Fatal("a complete block was stored twice")
	}
	got, err := s.LoadBlock(ctx, a.Ref)
	if err != nil || !bytes.Equal(got.Units, a.Units) || got.Seed != a.Seed || got.Commitment != a.Commitment {
		t.Fatalf("load block: %v", err)
	}
	err = s.View(ctx, func(tx engine.ReadTx) error {
		for _, i := range []int{0, 1, 1023, 1024, 1025, 424242, engine.BlockSize - 1} {
			u, err := tx.Unit(engine.Ticket{Block: a.Ref, Index: uint32(i)})
			if want, _ := a.Unit(i); err != nil || u != want {
				return fmt.Errorf("unit %d: %+v %v, want %+v", i, u, err, want)
			}
		}
		for _, i := range []uint32{engine.BlockSize, engine.BlockSize + 5000} {
			if _, err := tx.Unit(engine.Ticket{Block: a.Ref, Index: i}); !errors.Is(err, engine.ErrUnknownTicket) {
				return fmt.Errorf("unit %d beyond the block: %v", i, err)
			}
		}
		blocks, err := tx.Blocks()
		if err != nil {
			return err
		}
		if len(blocks) != 2 || blocks[0].Ref != b.Ref || blocks[1].Size != engine.BlockSize || blocks[1].Commitment != a.Commitment {
			return fmt.Errorf("blocks %+v", blocks)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// A draw cut short: chunks, some beyond a full block's, and no completion record.
	ref := engine.BlockRef{Emission: 1, Stake: 100, Number: 1}
	small := &engine.Block{Ref: ref, Units: bytes.Repeat(a.Units[:30], 500)}
	putBlock(t, s, small)
	rawSet(t, s, storage.MetaKey(ref), nil)
	rawSet(t, s, storage.ChunkKey(ref, 900), []byte("left over"))
	if refs := listed(t, s); slices.Contains(refs, ref) {
		t.Fatalf("incomplete block listed: %v", refs)
	}
	if _, err := s.LoadBlock(ctx, ref); !errors.Is(err, engine.ErrUnknownTicket) {
		t.Fatalf("load of an incomplete block: %v, want ErrUnknownTicket", err)
	}
	redrawn := firstBlock(t, ref)
	putBlock(t, s, redrawn)
	got, err = s.LoadBlock(ctx, ref)
	if err != nil || !bytes.Equal(got.Units, redrawn.Units) || got.Commitment != redrawn.Commitment {
		t.Fatalf("redrawn block: %v", err)
	}
	if refs := listed(t, s); !slices.Equal(refs, []engine.BlockRef{b.Ref, ref, a.Ref}) {
		t.Fatalf("blocks %v", refs)
	}
}

// TestCorruptChunk damages a chunk behind the store's back: reads of it
// fail with ErrCorrupt naming the block and chunk, and the audit says so.
func TestCorruptChunk(t *testing.T) {
	ctx := context.Background()
	ref := engine.BlockRef{Emission: 1, Stake: 50, Number: 1}
	for _, c := range []struct {
		name   string
		damage func([]byte) []byte
	}{
		{"flipped", func(v []byte) []byte { v[100] ^= 0x04; return v }},
		{"truncated", func(v []byte) []byte { return v[:len(v)-7] }},
		{"garbage", func([]byte) []byte { return []byte("garbage") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := MustOpen(t)
			putBlock(t, s, firstBlock(t, ref))
			key := storage.ChunkKey(ref, 5)
			rawSet(t, s, key, c.damage(rawGet(t, s, key)))
			_, err := s.LoadBlock(ctx, ref)
			if !errors.Is(err, engine.ErrCorrupt) || !strings.Contains(err.Error(), "block "+ref.String()+" chunk 5") {
				t.Fatalf("load: %v, want ErrCorrupt naming block %s chunk 5", err, ref)
			}
			err = s.View(ctx, func(tx engine.ReadTx) error {
				if _, err := tx.Unit(engine.Ticket{Block: ref, Index: 4 * storage.ChunkUnits}); err != nil {
					return fmt.Errorf("unit of a sound chunk: %w", err)
				}
				_, err := tx.Unit(engine.Ticket{Block: ref, Index: 5*storage.ChunkUnits + 17})
				return err
			})
			if !errors.Is(err, engine.ErrCorrupt) || !strings.Contains(err.Error(), "chunk 5") {
				t.Fatalf("unit: %v, want ErrCorrupt naming chunk 5", err)
			}
		})
	}

	// The audit reports it (and the service refuses to sell from it).
	s := mustOpenDir(t, drawnDir(t))
	rawSet(t, s, storage.ChunkKey(ref, 0), []byte("garbage"))
	svc := newService(t, s)
	if _, err := svc.Sell(ctx, engine.SellRequest{Player: engine.DemoPlayer, Stake: 50, Count: 1}); !errors.Is(err, engine.ErrCorrupt) {
		t.Fatalf("sale from a corrupted chunk: %v, want ErrCorrupt", err)
	}
	rep, err := svc.Audit(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(rep.Findings, func(f string) bool { return strings.Contains(f, ref.String()) && strings.Contains(f, "chunk 0") }) {
		t.Fatalf("audit findings %q do not name block %s chunk 0", rep.Findings, ref)
	}
}

// TestTamperedRecord rewrites a history record with another balance, well
// encoded: the audit names the ticket.
func TestTamperedRecord(t *testing.T) {
	ctx := context.Background()
	s := mustOpenDir(t, drawnDir(t))
	svc := newService(t, s)
	sales := sell(t, svc, engine.SellRequest{Player: engine.DemoPlayer, Stake: 200, Count: 6, Picks: picks})
	mustAudit(t, svc)
	r := sales[2].Record
	r.BalanceAfter += 1000
	b, _ := r.MarshalBinary()
	rawSet(t, s, storage.RecordKey(r.Ticket), b)
	rep, err := svc.Audit(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() || !slices.ContainsFunc(rep.Findings, func(f string) bool { return strings.Contains(f, r.Ticket.String()) }) {
		t.Fatalf("audit findings %q do not name ticket %s", rep.Findings, r.Ticket)
	}
}

// Schema 1 kept the last journal entry whole; opening, or restoring a
// backup of, such a store keeps the entry's mark instead.
func TestSchema1IsMigrated(t *testing.T) {
	at := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	entry := engine.JournalEntry{Seq: 3, Time: at,
		Ledger: []engine.LedgerEntry{
			{Player: "ann", Seq: 1, Time: at, Kind: engine.LedgerCredit, Credit: 500, Balance: 500, Actor: "op"},
			{Player: "ann", Seq: 2, Time: at, Kind: engine.LedgerPayout, Debit: 200, Balance: 300, Actor: "op"}},
		Settings: []engine.JournalSetting{{Name: "pin", Value: []byte{1, 2}}}}
	raw, _ := entry.MarshalBinary()
	s := MustOpen(t)
	rawSet(t, s, storage.JournalKey(), raw)
	rawSet(t, s, storage.SchemaKey(), []byte{0, 0, 0, 1})
	var backup bytes.Buffer
	if err := s.Backup(&backup); err != nil {
		t.Fatal(err)
	}
	s.Close()
	v1 := backup.Bytes()
	binary.BigEndian.PutUint32(v1[len("STARFORTUNE-BACKUP\n"):], 1)
	restored := filepath.Join(t.TempDir(), "restored")
	if err := storage.Restore(restored, bytes.NewReader(v1), storage.TestKey, zerolog.Nop()); err != nil {
		t.Fatalf("restore of a schema 1 backup: %v", err)
	}
	for _, dir := range []string{s.Dir(), restored} {
		s := mustOpenDir(t, dir)
		var mark engine.JournalMark
		err := s.View(context.Background(), func(tx engine.ReadTx) (err error) { mark, _, err = tx.Journal(); return err })
		if err != nil || !reflect.DeepEqual(mark, engine.MarkOf(entry)) || len(mark.Ledger) != 1 {
			t.Fatalf("%s: mark %+v (%v), want %+v", dir, mark, err, engine.MarkOf(entry))
		}
		s.Close()
	}
}

// Schema 3 committed blocks with one SHA-256: a store holding such a block
// is refused with ErrOldCommitment; one without blocks, or whose blocks
// already carry their Merkle root, migrates.
func TestSchema3WithBlocksIsRefused(t *testing.T) {
	s := MustOpen(t)
	old := firstBlock(t, engine.BlockRef{Emission: 1, Stake: 50, Number: 1})
	old.Commitment = engine.Hash(sha256.Sum256(old.Units)) // as schema 3 committed it
	putBlock(t, s, old)
	rawSet(t, s, storage.SchemaKey(), []byte{0, 0, 0, 3})
	s.Close()
	_, err := storage.Open(s.Dir(), storage.TestKey, zerolog.Nop())
	if !errors.Is(err, storage.ErrOldCommitment) || !errors.Is(err, engine.ErrStorage) || !strings.Contains(err.Error(), s.Dir()) {
		t.Fatalf("open of a schema 3 store with blocks: %v, want ErrOldCommitment", err)
	}

	empty := MustOpen(t)
	rawSet(t, empty, storage.SchemaKey(), []byte{0, 0, 0, 3})
	empty.Close()
	mustOpenDir(t, empty.Dir()).Close()

	merkle := MustOpen(t)
	putBlock(t, merkle, firstBlock(t, engine.BlockRef{Emission: 1, Stake: 50, Number: 1}))
	rawSet(t, merkle, storage.SchemaKey(), []byte{0, 0, 0, 3})
	merkle.Close()
	mustOpenDir(t, merkle.Dir()).Close()
}

func TestSchemaMismatch(t *testing.T) {
	s := MustOpen(t)
	rawSet(t, s, storage.SchemaKey(), []byte{0, 0, 0, 99})
	s.Close()
	_, err := storage.Open(s.Dir(), storage.TestKey, zerolog.Nop())
	if !errors.Is(err, engine.ErrStorage) || !strings.Contains(err.Error(), "schema version 99") || !strings.Contains(err.Error(), s.Dir()) {
		t.Fatalf("open of schema 99: %v", err)
	}

	// A directory holding some other Badger database is refused too, even
	// under the store's key.
	dir := t.TempDir()
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil).WithEncryptionKey(storage.TestKey).WithIndexCacheSize(1 << 20))
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(txn *badger.Txn) error { return txn.Set([]byte("other"), []byte("app")) })
	db.Close()
	if _, err := storage.Open(dir, storage.TestKey, zerolog.Nop()); !errors.Is(err, engine.ErrStorage) {
		t.Fatalf("open of a foreign database: %v", err)
	}
}

func TestBackupRestore(t *testing.T) {
	ctx := context.Background()
	s := mustOpenDir(t, drawnDir(t))
	svc := newService(t, s)
	sell(t, svc, engine.SellRequest{Player: engine.DemoPlayer, Stake: 50, Count: 40, Picks: picks})
	bob := customer(t, svc, "Bob Martin")
	if _, err := svc.Credit(ctx, bob, 1000, "operator:1"); err != nil {
		t.Fatal(err)
	}
	want := snapshot(t, svc, engine.DemoPlayer)
	var backup bytes.Buffer
	if err := s.Backup(&backup); err != nil {
		t.Fatal(err)
	}

	if err := storage.Restore(s.Dir(), bytes.NewReader(backup.Bytes()), storage.TestKey, zerolog.Nop()); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("restore over a live store: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "restored")
	if err := storage.Restore(dir, bytes.NewReader(backup.Bytes()), storage.TestKey, zerolog.Nop()); err != nil {
		t.Fatal(err)
	}
	r := mustOpenDir(t, dir)
	if !slices.Equal(listed(t, s), listed(t, r)) {
		t.Fatalf("blocks %v, restored %v", listed(t, s), listed(t, r))
	}
	svc2 := newService(t, r)
	if got := snapshot(t, svc2, engine.DemoPlayer); !sameState(want, got) {
		t.Fatalf("restored state differs:\n%+v\n%+v", want, got)
	}
	if bal, err := svc2.Balance(ctx, bob); err != nil || bal != 1000 {
		t.Fatalf("bob restored with %s, %v", bal, err)
	}
	mustAudit(t, svc2)

	hdr := backup.Bytes()[:len("STARFORTUNE-BACKUP\n")+4]
	for name, damaged := range map[string][]byte{
		"garbage":    []byte("not a backup"),
		"truncated":  backup.Bytes()[:backup.Len()/2],
		"huge frame": append(bytes.Clone(hdr), 0, 0, 0, 0, 0, 0, 0, 0x40, 1, 2, 3),
		"bad frame":  append(bytes.Clone(hdr), 5, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff),
	} {
		empty := t.TempDir()
		if err := storage.Restore(empty, bytes.NewReader(damaged), storage.TestKey, zerolog.Nop()); err == nil {
			t.Errorf("restore of a %s backup succeeded", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
		if entries, _ := os.ReadDir(empty); len(entries) != 0 {
			t.Errorf("a failed restore (%s) left %d files", name, len(entries))
		}
	}
}

func TestDefaultDir(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/data/xdg")
	if d := storage.DefaultDir(); d != "/data/xdg/starfortune" {
		t.Fatalf("with XDG_DATA_HOME: %q", d)
	}
	t.Setenv("XDG_DATA_HOME", "relative")
	t.Setenv("HOME", "/home/kiosk")
	if d := storage.DefaultDir(); d != "/home/kiosk/.local/share/starfortune" {
		t.Fatalf("with a relative XDG_DATA_HOME: %q", d)
	}
}

func TestClosed(t *testing.T) {
	s := MustOpen(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	err := s.View(context.Background(), func(engine.ReadTx) error { return nil })
	if !errors.Is(err, engine.ErrStorage) {
		t.Fatalf("view after close: %v, want ErrStorage", err)
	}
}

// customer opens an account for holder on svc, its limits far above any
// test's play, logs it in and returns its wallet (the card's number).
func customer(t testing.TB, svc *engine.Service, holder string) string {
	t.Helper()
	ctx := context.Background()
	huge := engine.Limits{{Kind: engine.LimitDeposit, Window: engine.WindowWeek}: engine.MaxAmount, {Kind: engine.LimitStake, Window: engine.WindowWeek}: engine.MaxAmount}
	id := engine.Identity{Holder: holder, Born: time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC), DocType: "TEST", DocNumber: strings.ReplaceAll(holder, " ", "")}
	a, err := svc.Open(ctx, "operator:1", engine.OpenRequest{Identity: id, Limits: huge, PIN: "2580"})
	if err == nil {
		_, err = svc.OpenSession(ctx, a.Card, "2580")
	}
	if err != nil {
		t.Fatalf("account for %s: %v", holder, err)
	}
	return a.Player
}
