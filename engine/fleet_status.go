package engine

import (
	"cmp"
	"context"
	"slices"
	"time"
)

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
	s := SyncStatus{Contact: f.link.last, Offline: f.link.offline(f.w.now())}
	for _, h := range f.hand.packs {
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
			o, err := readOutEntry(tx, seq)
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
