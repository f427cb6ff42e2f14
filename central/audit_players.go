package central

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"

	"starfortune/engine"
)

// The audit of the fleet's accounts (migrations/0007), recomputed here
// from the movements, the limits' history, the leases and the player
// log, not from what the central's functions computed: for every account
// and limit, the whole fleet's movements in the window at each movement
// stayed within the limit in force; no lease was granted more room than
// its limits left; no deposit or sale came after a break or a listing
// beyond the time a kiosk may take to learn of it; every deposit and sale
// was made under a lease.

// The kinds of the audit's findings on accounts.
const (
	// FindingOverLimit: a deposit or a sale took a limit's window, over
	// every kiosk, beyond the limit in force then.
	FindingOverLimit = "over-limit"
	// FindingLeaseOverRoom: a lease was granted more room of a kind than
	// the limits in force left then (the movements the central had
	// received and the other leases open), or none under a limit.
	FindingLeaseOverRoom = "lease-over-room"
	// FindingDuringBreak: a deposit or a sale dated during a break, later
	// than the lease's time after the break began.
	FindingDuringBreak = "play-during-break"
	// FindingWhileListed: a deposit or a sale dated after the holder was
	// listed, later than the lease's time after the listing.
	FindingWhileListed = "play-while-listed"
	// FindingNoLease: a deposit or a sale of an account pushed without the
	// lease it was made under.
	FindingNoLease = "no-lease"
)

// PlayerFinding is a finding of the audit on an account.
type PlayerFinding struct {
	Kind   string    `json:"kind"` // one of the Finding* kinds
	Player string    `json:"player"`
	Limit  string    `json:"limit,omitempty"`
	Lease  int64     `json:"lease,omitempty"`
	Kiosk  string    `json:"kiosk,omitempty"`
	At     time.Time `json:"at"`
	Detail string    `json:"detail"`
}

func (f PlayerFinding) String() string {
	return fmt.Sprintf("account %s: %s: %s", f.Player, f.Kind, f.Detail)
}

// auditMove is a deposit or a sale of an account, as
// sql/audit_player_movements.sql reads it.
type auditMove struct {
	Player     string    `db:"player"`
	Kiosk      string    `db:"kiosk"`
	Seq        int64     `db:"seq"`
	Kind       string    `db:"kind"`
	Debit      int64     `db:"debit_cents"`
	Credit     int64     `db:"credit_cents"`
	At         time.Time `db:"at"`
	ReceivedAt time.Time `db:"received_at"`
	Lease      int64     `db:"lease"`
}

// deposit is what the movement counts for the deposit limits.
func (m auditMove) deposit() int64 {
	if m.Kind != "credit" {
		return 0
	}
	return m.Credit
}

// stake is what the movement counts for the stake limits.
func (m auditMove) stake() int64 {
	if m.Kind != "sale" {
		return 0
	}
	return m.Debit
}

// prize is what the movement takes off the loss limits.
func (m auditMove) prize() int64 {
	if m.Kind != "sale" {
		return 0
	}
	return m.Credit
}

// auditLease is a lease as sql/audit_leases.sql reads it.
type auditLease struct {
	ID        int64      `db:"id"`
	Player    string     `db:"player"`
	Kiosk     string     `db:"kiosk"`
	GrantedAt time.Time  `db:"granted_at"`
	TTLms     int64      `db:"ttl_ms"`
	ExpiresAt time.Time  `db:"expires_at"`
	Deposit   *int64     `db:"room_deposit"`
	Stake     *int64     `db:"room_stake"`
	Loss      *int64     `db:"room_loss"`
	EndedAt   *time.Time `db:"ended_at"`
	moves     []auditMove
}

// room is the lease's room of kind k (nil: unbounded).
func (l *auditLease) room(k engine.LimitKind) *int64 {
	switch k {
	case engine.LimitDeposit:
		return l.Deposit
	case engine.LimitStake:
		return l.Stake
	}
	return l.Loss
}

// openAt says whether the lease was open at t.
func (l *auditLease) openAt(t time.Time) bool {
	return !l.GrantedAt.After(t) && (l.EndedAt == nil || l.EndedAt.After(t)) && l.ExpiresAt.After(t)
}

// usedBy is what the lease's movements the central had received by t
// used of its room of kind k (a loss room is used by the stakes).
func (l *auditLease) usedBy(k engine.LimitKind, t time.Time) (sum int64) {
	for _, m := range l.moves {
		if m.ReceivedAt.After(t) {
			continue
		}
		if k == engine.LimitDeposit {
			sum += m.deposit()
		} else {
			sum += m.stake()
		}
	}
	return sum
}

// limitChange is a row of sql/audit_player_limits.sql.
type limitChange struct {
	amount    int64
	effective time.Time
}

// auditAccountRow is a row of sql/audit_players.sql.
type auditAccountRow struct {
	Player   string     `db:"player"`
	ListedAt *time.Time `db:"listed_at"`
	TTLms    int64      `db:"ttl_ms"`
}

// auditAccount is an account with what the audit reads of it.
type auditAccount struct {
	auditAccountRow
	limits map[engine.LimitKey][]limitChange // in the order they apply
	moves  []auditMove                       // by time
	leases []*auditLease                     // by grant
	breaks []engine.Exclusion
}

// limitAt is the limit k in force at t, 0 for none.
func (a *auditAccount) limitAt(k engine.LimitKey, t time.Time) int64 {
	var v int64
	for _, c := range a.limits[k] {
		if c.effective.After(t) {
			break
		}
		v = c.amount
	}
	return v
}

// inForce is the limit k that bounds movement m, 0 for none: the limit in
// force at its time, or, for a movement under a lease, the one in force
// when the lease was granted if that was higher. A decrease applies at
// once to the leases granted after it; a lease granted before it serves
// on until its kiosk learns of the decrease at its next round (the
// central ends the lease then), or its time runs out, for a kiosk cut
// from the central; a limit set since then does not bound it either.
func (a *auditAccount) inForce(k engine.LimitKey, m auditMove) int64 {
	now := a.limitAt(k, m.At)
	for _, l := range a.leases {
		if l.ID == m.Lease {
			then := a.limitAt(k, l.GrantedAt)
			if then == 0 {
				return 0
			}
			return max(now, then)
		}
	}
	return now
}

// auditPlayers checks the fleet's accounts (see the top of the file),
// adding its findings to rep.
func auditPlayers(ctx context.Context, tx pgx.Tx, rep *AuditReport, find func(string, ...any)) error {
	accts, err := auditLoadAccounts(ctx, tx)
	if err != nil {
		return err
	}
	rep.Accounts = len(accts)
	add := func(f PlayerFinding) {
		rep.PlayerFindings = append(rep.PlayerFindings, f)
		find("%s", f)
	}
	players := make([]string, 0, len(accts))
	for p := range accts {
		players = append(players, p)
	}
	sort.Strings(players)
	for _, p := range players {
		a := accts[p]
		auditOverLimit(a, add)
		auditLeaseRooms(a, add)
		auditExclusions(a, add)
	}
	return nil
}

// auditLoadAccounts reads every account with its limits, deposits and
// sales, leases and breaks.
func auditLoadAccounts(ctx context.Context, tx pgx.Tx) (map[string]*auditAccount, error) {
	accts := map[string]*auditAccount{}
	rows, _ := tx.Query(ctx, query("audit_players"))
	if err := forEachRowByName(rows, func(r auditAccountRow) error {
		accts[r.Player] = &auditAccount{auditAccountRow: r, limits: map[engine.LimitKey][]limitChange{}}
		return nil
	}); err != nil {
		return nil, err
	}
	var player, name string
	var amount int64
	var at time.Time
	rows, _ = tx.Query(ctx, query("audit_player_limits"))
	if _, err := pgx.ForEachRow(rows, []any{&player, &name, &amount, &at}, func() error {
		k, err := engine.ParseLimitKey(name)
		if a := accts[player]; a != nil && err == nil {
			a.limits[k] = append(a.limits[k], limitChange{amount, at})
		}
		return err
	}); err != nil {
		return nil, err
	}
	leases := map[int64]*auditLease{}
	rows, _ = tx.Query(ctx, query("audit_leases"))
	if err := forEachRowByName(rows, func(l auditLease) error {
		if a := accts[l.Player]; a != nil {
			a.leases = append(a.leases, &l)
			leases[l.ID] = &l
		}
		return nil
	}); err != nil {
		return nil, err
	}
	rows, _ = tx.Query(ctx, query("audit_player_movements"))
	if err := forEachRowByName(rows, func(m auditMove) error {
		if a := accts[m.Player]; a != nil {
			a.moves = append(a.moves, m)
		}
		if l := leases[m.Lease]; l != nil {
			l.moves = append(l.moves, m)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	var since, until *time.Time
	var indefinite bool
	rows, _ = tx.Query(ctx, query("audit_player_breaks"))
	_, err := pgx.ForEachRow(rows, []any{&player, &since, &until, &indefinite}, func() error {
		if a := accts[player]; a != nil && since != nil {
			e := engine.Exclusion{Since: *since, Indefinite: indefinite}
			if until != nil {
				e.Until = *until
			}
			a.breaks = append(a.breaks, e)
		}
		return nil
	})
	return accts, err
}

// auditOverLimit checks, at each deposit and sale, every limit of its
// kind in force then against the whole fleet's movements in its window,
// as the lone kiosk's audit does (engine's exactUse): the deposits, the
// stakes, or the stakes less the prizes before it. One finding per limit,
// at its first breach, counting the others.
func auditOverLimit(a *auditAccount, add func(PlayerFinding)) {
	for _, k := range engine.LimitKeys {
		if len(a.limits[k]) == 0 {
			continue
		}
		win := k.Window.Duration()
		var first PlayerFinding
		breaches := 0
		left := 0
		var deposits, stakes, prizes int64 // of moves[left:i+1]
		for _, m := range a.moves {
			deposits, stakes, prizes = deposits+m.deposit(), stakes+m.stake(), prizes+m.prize()
			for ; !a.moves[left].At.After(m.At.Add(-win)); left++ {
				l := a.moves[left]
				deposits, stakes, prizes = deposits-l.deposit(), stakes-l.stake(), prizes-l.prize()
			}
			if (k.Kind == engine.LimitDeposit) != (m.Kind == "credit") {
				continue // a deposit counts for the deposit limits, a sale for the others
			}
			max := a.inForce(k, m)
			if max == 0 {
				continue
			}
			used := stakes - (prizes - m.prize()) // the prizes before it
			switch k.Kind {
			case engine.LimitDeposit:
				used = deposits
			case engine.LimitStake:
				used = stakes
			}
			if used <= max {
				continue
			}
			if breaches++; breaches == 1 {
				first = PlayerFinding{Kind: FindingOverLimit, Player: a.Player, Limit: k.String(), Lease: m.Lease, Kiosk: m.Kiosk, At: m.At,
					Detail: fmt.Sprintf("%s %d of kiosk %s on %s took %s to %s over the fleet, over its limit %s", m.Kind, m.Seq, m.Kiosk,
						m.At.UTC().Format(time.RFC3339), k, engine.Cents(used), engine.Cents(max))}
			}
		}
		if breaches > 1 {
			first.Detail += fmt.Sprintf(" (and %d more movements over it)", breaches-1)
		}
		if breaches > 0 {
			add(first)
		}
	}
}

// auditLeaseRooms recomputes, for each lease at its grant, the room each
// kind's limits in force left: the limit, less what its window counted
// of the movements the central had received by then (a prize only if it
// stayed in the window for the lease's time), less what the player's
// other leases open then could still use of the kind.
func auditLeaseRooms(a *auditAccount, add func(PlayerFinding)) {
	for _, l := range a.leases {
		t, ttl := l.GrantedAt, time.Duration(l.TTLms)*time.Millisecond
		for _, kind := range []engine.LimitKind{engine.LimitDeposit, engine.LimitStake, engine.LimitLoss} {
			var outstanding int64
			for _, o := range a.leases {
				if r := o.room(kind); o != l && r != nil && o.openAt(t) {
					outstanding += max(0, *r-o.usedBy(kind, t))
				}
			}
			bound, left := engine.LimitKey{}, int64(0)
			for _, k := range engine.LimitKeys {
				lim := a.limitAt(k, t)
				if k.Kind != kind || lim == 0 {
					continue
				}
				if room := lim - a.usedAt(k, t, ttl) - outstanding; bound == (engine.LimitKey{}) || room < left {
					bound, left = k, room
				}
			}
			if bound == (engine.LimitKey{}) {
				continue // no limit of the kind: nothing to bound
			}
			left = max(left, 0)
			f := PlayerFinding{Kind: FindingLeaseOverRoom, Player: a.Player, Limit: bound.String(), Lease: l.ID, Kiosk: l.Kiosk, At: t}
			switch r := l.room(kind); {
			case r == nil:
				f.Detail = fmt.Sprintf("lease %d granted to kiosk %s on %s without a room under %s", l.ID, l.Kiosk, t.UTC().Format(time.RFC3339), bound)
				add(f)
			case *r > left:
				f.Detail = fmt.Sprintf("lease %d granted to kiosk %s on %s a room of %s, %s left %s", l.ID, l.Kiosk, t.UTC().Format(time.RFC3339),
					engine.Cents(*r), bound, engine.Cents(left))
				add(f)
			}
		}
	}
}

// usedAt is what limit k's window counted at t of the movements the
// central had received by then, a prize only if it stayed in the window
// for ttl more.
func (a *auditAccount) usedAt(k engine.LimitKey, t time.Time, ttl time.Duration) (sum int64) {
	from := t.Add(-k.Window.Duration())
	start := sort.Search(len(a.moves), func(i int) bool { return a.moves[i].At.After(from) })
	for _, m := range a.moves[start:] {
		if m.ReceivedAt.After(t) {
			continue
		}
		switch k.Kind {
		case engine.LimitDeposit:
			sum += m.deposit()
		case engine.LimitStake:
			sum += m.stake()
		default:
			sum += m.stake()
			if m.At.After(from.Add(ttl)) {
				sum -= m.prize()
			}
		}
	}
	return sum
}

// auditExclusions finds the deposits and sales made without a lease, and
// those dated during a break or after a listing later than a kiosk may
// take to learn of it: the time of the lease they were made under (of a
// lease granted now, without one). One finding per kind and kiosk, at its
// first movement, counting the others.
func auditExclusions(a *auditAccount, add func(PlayerFinding)) {
	ttls := map[int64]time.Duration{}
	for _, l := range a.leases {
		ttls[l.ID] = time.Duration(l.TTLms) * time.Millisecond
	}
	type kindKiosk struct{ kind, kiosk string }
	var order []kindKiosk
	found := map[kindKiosk]*PlayerFinding{}
	count := map[kindKiosk]int{}
	note := func(kind string, m auditMove, detail string) {
		k := kindKiosk{kind, m.Kiosk}
		if count[k]++; count[k] == 1 {
			order = append(order, k)
			found[k] = &PlayerFinding{Kind: kind, Player: a.Player, Lease: m.Lease, Kiosk: m.Kiosk, At: m.At, Detail: detail}
		}
	}
	for _, m := range a.moves {
		what := fmt.Sprintf("%s %d of kiosk %s on %s", m.Kind, m.Seq, m.Kiosk, m.At.UTC().Format(time.RFC3339))
		grace, ok := ttls[m.Lease]
		if !ok {
			grace = time.Duration(a.TTLms) * time.Millisecond
			note(FindingNoLease, m, what+" made under no lease")
		}
		for _, b := range a.breaks {
			if m.At.After(b.Since.Add(grace)) && b.Active(m.At) {
				note(FindingDuringBreak, m, fmt.Sprintf("%s, during the break from %s", what, b.Since.UTC().Format(time.RFC3339)))
				break
			}
		}
		if a.ListedAt != nil && m.At.After(a.ListedAt.Add(grace)) {
			note(FindingWhileListed, m, fmt.Sprintf("%s, after the holder was listed on %s", what, a.ListedAt.UTC().Format(time.RFC3339)))
		}
	}
	for _, k := range order {
		f := found[k]
		if n := count[k]; n > 1 {
			f.Detail += fmt.Sprintf(" (and %d more)", n-1)
		}
		add(*f)
	}
}
