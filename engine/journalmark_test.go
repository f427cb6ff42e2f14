package engine_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"starfortune/engine"
	"starfortune/engine/memstore"
)

// storeAhead plays, then sells a batch (pucks chosen) that the store commits
// but the journal refuses: the state a crash between the two leaves.
func storeAhead(t *testing.T) (*memstore.Journal, *memstore.Store, engine.JournalMark) {
	t.Helper()
	j := &memstore.Journal{}
	st := pinnedStore(t)
	s := open(t, st, j)
	playSome(t, s)
	j.Fail = errors.New("no space left on device")
	if _, err := s.Sell(ctx, engine.SellRequest{Player: "carol", Stake: 50, Count: 7, Picks: picks}); !errors.Is(err, engine.ErrOutOfService) {
		t.Fatalf("sale with a failing journal: %v", err)
	}
	j.Fail = nil
	var mark engine.JournalMark
	st.View(ctx, func(tx engine.ReadTx) (err error) { mark, _, err = tx.Journal(); return err })
	if mark.Head.Seq != j.Head().Seq+1 {
		t.Fatalf("store at entry %d, journal at %d", mark.Head.Seq, j.Head().Seq)
	}
	return j, st, mark
}

func TestStoreAheadByABatchCompletesTheJournal(t *testing.T) {
	j, st, mark := storeAhead(t)
	// The store keeps the batch's records, ledger entries and reveals as
	// one run each, not their copies.
	if len(mark.Records) != 1 || mark.Records[0].Count != 7 || len(mark.Ledger) != 1 || mark.Ledger[0].Count != 7 ||
		len(mark.Reveals) != 1 || mark.Reveals[0].Count != 7 || mark.Entry.Records != nil {
		t.Fatalf("mark of a batch of 7: %+v", mark)
	}
	r := open(t, st, j)
	if err := r.Health(); err != nil {
		t.Fatalf("after restart: %v", err)
	}
	if j.Head() != mark.Head {
		t.Fatalf("journal completed up to %+v, the store marks %+v", j.Head(), mark.Head)
	}
	last, _ := j.Last()
	if len(last.Records) != 7 || len(last.Ledger) != 7 || len(last.Reveals) != 7 || last.Reveals[6].Reveal.Slots != picks(6) {
		t.Fatalf("entry read back: %d records, %d ledger entries, %d reveals", len(last.Records), len(last.Ledger), len(last.Reveals))
	}
	mustAudit(t, r)
}

// The entry is read back from the store, so what was changed in the store
// since its commit must not go into the journal.
func TestStoreAheadWithChangedDataIsNotJournaled(t *testing.T) {
	j, st, mark := storeAhead(t)
	st.Update(ctx, func(tx engine.Tx) error { return tx.PutReveal(mark.Reveals[0].First, engine.NewReveal()) })
	r := open(t, st, j)
	if err := r.Health(); !errors.Is(err, engine.ErrOutOfService) || !strings.Contains(err.Error(), "cannot be completed") ||
		!strings.Contains(err.Error(), "differs") {
		t.Fatalf("health: %v", err)
	}
	if j.Head().Seq != mark.Head.Seq-1 {
		t.Fatalf("journal at entry %d", j.Head().Seq)
	}
}

func TestJournalMarkEncoding(t *testing.T) {
	_, _, mark := storeAhead(t)
	b, err := mark.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got engine.JournalMark
	if err := got.UnmarshalBinary(b); err != nil || !reflect.DeepEqual(got, mark) {
		t.Fatalf("decoded %+v (%v), want %+v", got, err, mark)
	}
	for n := range len(b) {
		if err := got.UnmarshalBinary(b[:n]); !errors.Is(err, engine.ErrCorrupt) {
			t.Fatalf("%d of %d bytes: %v", n, len(b), err)
		}
	}
	if err := got.UnmarshalBinary(append(b, 0)); !errors.Is(err, engine.ErrCorrupt) {
		t.Fatalf("a trailing byte: %v", err)
	}
}

// FuzzJournalMark: any bytes give a mark or an error wrapping ErrCorrupt,
// never a panic; an accepted mark encodes back to the same bytes.
func FuzzJournalMark(f *testing.F) {
	at := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	block := engine.BlockRef{Emission: 1, Stake: 50, Number: 2}
	e := engine.JournalEntry{Seq: 9, Time: at,
		Blocks:   []engine.BlockInfo{{Ref: block, Size: 850_000}},
		Events:   []engine.OperatorEvent{{Seq: 4, Time: at, Actor: "op", Action: "credit"}},
		Settings: []engine.JournalSetting{{Name: "pin", Value: []byte{1, 2, 3}}}}
	for i := range uint32(3) {
		t := engine.Ticket{Block: block, Index: 40 + i}
		e.Records = append(e.Records, engine.Record{Ticket: t, Player: "demo", Time: at})
		e.Ledger = append(e.Ledger, engine.LedgerEntry{Player: "demo", Seq: 10 + uint64(i), Time: at, Kind: engine.LedgerSale, Ticket: t})
		e.Reveals = append(e.Reveals, engine.JournalReveal{Ticket: t, Reveal: engine.NewReveal()})
	}
	b, err := engine.MarkOf(e).MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		var m engine.JournalMark
		if err := m.UnmarshalBinary(b); err != nil {
			if !errors.Is(err, engine.ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		again, err := m.MarshalBinary()
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("accepted %x, encodes as %x (%v)", b, again, err)
		}
	})
}
