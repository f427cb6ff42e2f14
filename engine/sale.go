package engine

// Sale is a sold unit with how far its reveal has gone.
type Sale struct {
	Record
	Reveal Reveal
	// SoldBy is the kiosk of the fleet that sold the unit when another
	// terminal did: a look-up answered by the central (its record then has
	// no balances). Empty for this terminal's units.
	SoldBy string
}

// Next is the reveal step the player is at.
func (s Sale) Next() Step { return s.Reveal.Next(s.Unit) }

// Done reports whether the unit has been fully shown.
func (s Sale) Done() bool { return s.Next().Kind == StepDone }

// Fall is the path of drop (0 or 1) from slot: the engine's path, seeded by
// what identifies the fall, so that a replay shows the same fall. This is
// the only place that seed is derived: changing it would change every
// replay.
func (s Sale) Fall(drop, slot int) (Path, error) {
	return PlanPath(s.Unit.Drops[drop].Dest, slot, PathSeed(s.Ticket.Block.ID(), s.Ticket.Index, drop, slot))
}

// ShownDrop is a drop as far as the player has seen it.
type ShownDrop struct {
	Dest Destination
	// Value is what the drop wins at the unit's stake.
	Value Cents
	// Revealed: the value has been shown (a spot as soon as the puck lands
	// there, a BONUS box once its GO was pressed).
	Revealed bool
}

// Shown is what the player has seen of the unit so far: the drops whose
// puck was chosen, in order, and the sum of the values revealed. A unit
// resumed after an interruption is put back on the board from it.
func (s Sale) Shown() (drops []ShownDrop, won Cents) {
	for d, drop := range s.Unit.Drops {
		if s.Reveal.Slots[d] == NoSlot {
			break
		}
		sd := ShownDrop{Dest: drop.Dest, Value: drop.Value(s.Stake()), Revealed: !drop.Dest.Bonus || s.Reveal.Go[d]}
		if sd.Revealed {
			won += sd.Value
		}
		drops = append(drops, sd)
	}
	return drops, won
}
