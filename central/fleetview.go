package central

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"starfortune/engine"
)

// heartbeatSQL records that the kiosk lives with a backlog of $1 and its
// journal's head ($2, $3), and returns the central's clock, or NULL for a
// head behind the one it anchored (migrations/0003, 0006).
const heartbeatSQL = "SELECT heartbeat($1, $2, $3)"

// Heartbeat implements engine.Central: the kiosk lives, backlog of its
// sales and movements are not at the central yet, and its journal is at
// head (migrations/0003, 0006).
func (c *Client) Heartbeat(ctx context.Context, backlog int, head engine.JournalHead) (time.Time, error) {
	var hash []byte
	if head.Seq > 0 {
		hash = head.Hash[:]
	}
	var t *time.Time
	if err := c.db.QueryRow(ctx, heartbeatSQL, max(backlog, 0), int64(head.Seq), hash).Scan(&t); err != nil {
		return time.Time{}, fmt.Errorf("heartbeat: %w", translate(err))
	}
	if t == nil {
		return time.Time{}, fmt.Errorf("heartbeat: %w (reported %s)", engine.ErrJournalBehind, head)
	}
	return *t, nil
}

// journalAnchorSQL is the calling kiosk's anchored journal head
// (migrations/0006).
const journalAnchorSQL = "SELECT seq, hash FROM journal_anchor()"

// JournalAnchor implements engine.Central.
func (c *Client) JournalAnchor(ctx context.Context) (engine.JournalHead, error) {
	var seq int64
	var hash []byte
	if err := c.db.QueryRow(ctx, journalAnchorSQL).Scan(&seq, &hash); err != nil {
		return engine.JournalHead{}, fmt.Errorf("journal anchor: %w", translate(err))
	}
	h := engine.JournalHead{Seq: uint64(seq)}
	copy(h.Hash[:], hash)
	return h, nil
}

// The fleet view's two doors (migrations/0003): fleet_view() is a kiosk
// role's, a SECURITY DEFINER wrapper of sf_fleet_view(), the owner's; the
// same JSON (fleetViewJSON) through either.
const (
	kioskFleetViewSQL = "SELECT fleet_view()"
	ownerFleetViewSQL = "SELECT sf_fleet_view()"
)

// FleetView implements engine.Central through fleet_view(), a kiosk role's
// right: the same counts support staff see with `central kiosks`.
func (c *Client) FleetView(ctx context.Context) (engine.FleetView, error) {
	var raw []byte
	if err := c.db.QueryRow(ctx, kioskFleetViewSQL).Scan(&raw); err != nil {
		return engine.FleetView{}, fmt.Errorf("fleet view: %w", translate(err))
	}
	return decodeFleetView(raw)
}

// FleetView is the fleet as a kiosk's fleet_view() shows it, read by the
// owner (`central kiosks`).
func (a *Admin) FleetView(ctx context.Context) (engine.FleetView, error) {
	var raw []byte
	if err := a.pool.QueryRow(ctx, ownerFleetViewSQL).Scan(&raw); err != nil {
		return engine.FleetView{}, fmt.Errorf("central: fleet view: %w", err)
	}
	return decodeFleetView(raw)
}

// fleetViewJSON is what sf_fleet_view returns (migrations/0003).
type fleetViewJSON struct {
	At     time.Time `json:"at"`
	Kiosks []struct {
		ID        string     `json:"id"`
		LastSeen  *time.Time `json:"last_seen"`
		Backlog   int        `json:"backlog"`
		BacklogAt *time.Time `json:"backlog_at"`
		Sales     uint64     `json:"sales"`
		Held      []struct {
			StakeCents int64  `json:"stake_cents"`
			Packs      int    `json:"packs"`
			Left       uint64 `json:"left"`
		} `json:"held"`
	} `json:"kiosks"`
	Stakes []struct {
		StakeCents int64  `json:"stake_cents"`
		Blocks     int    `json:"blocks"`
		Closed     int    `json:"closed"`
		Size       uint64 `json:"size"`
		HandedOut  uint64 `json:"handed_out"`
		Sold       uint64 `json:"sold"`
		Voided     uint64 `json:"voided"`
	} `json:"stakes"`
}

func decodeFleetView(raw []byte) (engine.FleetView, error) {
	var j fleetViewJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return engine.FleetView{}, fmt.Errorf("central: fleet view: %w", err)
	}
	v := engine.FleetView{At: j.At}
	for _, k := range j.Kiosks {
		kv := engine.KioskView{ID: k.ID, Backlog: k.Backlog, Sales: k.Sales}
		if k.LastSeen != nil {
			kv.LastSeen = *k.LastSeen
		}
		if k.BacklogAt != nil {
			kv.BacklogAt = *k.BacklogAt
		}
		for _, h := range k.Held {
			kv.Held = append(kv.Held, engine.HeldStake{Stake: engine.Cents(h.StakeCents), Packs: h.Packs, Left: h.Left})
		}
		v.Kiosks = append(v.Kiosks, kv)
	}
	for _, s := range j.Stakes {
		v.Stakes = append(v.Stakes, engine.StakeProgress{Stake: engine.Cents(s.StakeCents), Blocks: s.Blocks, Closed: s.Closed,
			Size: s.Size, HandedOut: s.HandedOut, Sold: s.Sold, Voided: s.Voided})
	}
	return v, nil
}
