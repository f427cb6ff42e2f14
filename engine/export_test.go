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
