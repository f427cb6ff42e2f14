package engine

import (
	"context"
	"time"
)

// IsScript reports whether the Merkle tree's table of scripts (tree.go)
// accepts the encoded unit u.
func IsScript(u [UnitSize]byte) bool {
	id := scriptIDs[u[1]][u[2]]
	return id != 0 && scriptList[id-1].tier == u[0]
}

// Jitter is the spread of the fleet loop's periods.
var Jitter = jitter

// Customer opens an account on the wallet name, its limits far above any
// test's play, and its session: for tests of other things than the
// protections, which sell to named players.
func Customer(s *Service, name string) error {
	ctx := context.Background()
	huge := Limits{{LimitDeposit, WindowWeek}: MaxAmount, {LimitStake, WindowWeek}: MaxAmount}
	id := Identity{Holder: "Test " + name, Born: time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC), DocType: "TEST", DocNumber: name}
	a, err := s.Accounts.open(ctx, "test", name, false, OpenRequest{Identity: id, Limits: huge, PIN: "4821"})
	if err != nil {
		return err
	}
	_, err = s.OpenSession(ctx, a.Card, "4821")
	return err
}

// EncodePlay and DecodePlay are what the store keeps of an account's
// play (accountlog.go).
func EncodePlay(a Account) []byte { return a.encodePlay() }

func DecodePlay(b []byte) (Account, error) {
	var a Account
	return a, a.decodePlay(b)
}

// OutEntry is an entry of a fleet kiosk's outbox (fleet_sync.go).
type OutEntry = outEntry

func (o outEntry) Encode() []byte { return o.encode() }

var DecodeOutEntry = decodeOutEntry

// Queued is the numbers of the movements the writer's queue holds for the
// next push (fleet_sync.go).
func Queued(s *Service) []uint64 {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	var seqs []uint64
	for _, it := range s.w.queue.items {
		seqs = append(seqs, it.seq)
	}
	return seqs
}

// Outbox is every movement of a fleet kiosk's outbox, and the sales among
// them, as a push sends them, read back from the store.
func Outbox(s *Service) (moves []FleetMovement, sales []FleetSale, err error) {
	s.w.mu.Lock()
	ranges := s.Fleet.hand.ranges()
	s.w.mu.Unlock()
	err = s.w.view(context.Background(), func(tx ReadTx) error {
		st, err := readFleetState(tx)
		for seq := uint64(1); err == nil && seq <= st.MovSeq; seq++ {
			var it outItem
			if it, err = readOutItem(tx, seq); err == nil {
				m, s := it.fleet(ranges)
				moves = append(moves, m)
				if s != nil {
					sales = append(sales, *s)
				}
			}
		}
		return err
	})
	return moves, sales, err
}
