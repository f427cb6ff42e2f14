package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// The kiosk's side of a fleet's player accounts (fleet_players.go): the
// leases it holds, kept in one setting with the rest of the store, so that
// a sale checks and counts its lease in its own transaction.

// ActorCentral names the central in the account log: the mirror of an
// account opened there, a session it ended.
const ActorCentral = "central"

// leaseMargin is how long before its time a lease stops serving: the
// kiosk's and the central's clocks, and the round trip that brought it
// (a quarter of a short lease's time).
const leaseMargin = 30 * time.Second

// serves is when a lease received at t stops serving.
func serves(l Lease, t time.Time) time.Time { return t.Add(l.TTL - min(leaseMargin, l.TTL/4)) }

// heldLease is a lease as the kiosk holds it. What its session used of
// it is the account's (leaseUse), written with the sale.
type heldLease struct {
	Lease
	Until time.Time // the kiosk's clock: when it stops serving
	// Back: the session ended, the lease is to be returned once the
	// central holds the kiosk's movements through MovSeq.
	Back   bool
	MovSeq uint64
	// Break is a break the player took here while the central could not
	// be reached (0: none): in force here at once, sent through the
	// lease at the next round, which then returns it.
	Break Break
}

// leaseUse is what a session used of its lease ID, by kind: deposits,
// stakes, and losses counted as stakes (a prize frees room only when the
// central counts it, at the next lease).
type leaseUse struct {
	ID   int64
	Used [LimitLoss + 1]Cents
}

func (u leaseUse) encode(e *encoder) {
	e.i64(u.ID)
	for _, v := range u.Used[LimitDeposit:] {
		e.i64(int64(v))
	}
}

func decodeLeaseUse(d *decoder) leaseUse {
	u := leaseUse{ID: d.i64()}
	for k := LimitDeposit; k <= LimitLoss; k++ {
		u.Used[k] = Cents(d.i64())
	}
	return u
}

// of is what the session used of lease id (nothing yet of a new one).
func (u leaseUse) of(id int64) leaseUse {
	if u.ID != id {
		return leaseUse{ID: id}
	}
	return u
}

// leasesKey is the setting of the kiosk's leases: read by every sale of a
// fleet account, written when a lease comes, is renewed or goes.
const leasesKey = "fleet/leases"

func (l heldLease) encode(e *encoder) {
	e.i64(l.ID)
	e.str(l.Player)
	e.time(l.Granted)
	e.i64(int64(l.TTL))
	e.u8(uint8(len(l.Rooms)))
	for _, r := range l.Rooms {
		e.u8(uint8(r.Kind))
		e.i64(int64(r.Room))
		e.u8(uint8(r.Limit.Kind))
		e.u8(uint8(r.Limit.Window))
		e.i64(int64(r.Max))
		e.i64(int64(r.Used))
	}
	e.time(l.Until)
	e.u8(boolByte(l.Back))
	e.u64(l.MovSeq)
	e.u8(uint8(l.Break))
}

func decodeLease(d *decoder) heldLease {
	var l heldLease
	l.ID, l.Player, l.Granted, l.TTL = d.i64(), d.str(), d.time(), time.Duration(d.i64())
	n := int(d.u8())
	for range n {
		r := LeaseRoom{Kind: LimitKind(d.u8()), Room: Cents(d.i64())}
		r.Limit = LimitKey{Kind: LimitKind(d.u8()), Window: Window(d.u8())}
		r.Max, r.Used = Cents(d.i64()), Cents(d.i64())
		l.Rooms = append(l.Rooms, r)
	}
	l.Until = d.time()
	l.Back, l.MovSeq, l.Break = d.u8() == 1, d.u64(), Break(d.u8())
	return l
}

func readLeases(tx ReadTx) ([]heldLease, error) {
	v, ok, err := tx.Setting(leasesKey)
	if err != nil || !ok {
		return nil, err
	}
	d := decoder{b: v}
	d.version("leases")
	n := int(d.u16())
	out := make([]heldLease, 0, n)
	for range n {
		out = append(out, decodeLease(&d))
	}
	return out, d.done("leases")
}

func putLeases(tx Tx, ls []heldLease) error {
	e := encoder{}
	e.u8(codecVersion)
	e.u16(uint16(len(ls)))
	for _, l := range ls {
		l.encode(&e)
	}
	return tx.PutSetting(leasesKey, e.b)
}

// changeLeases changes the kiosk's leases in tx: fn gets them and the
// number of the kiosk's last movement (what the central must hold before
// a lease given back now is returned), and returns them changed.
func changeLeases(tx *journalTx, fn func(ls []heldLease, movSeq uint64) []heldLease) error {
	ls, err := readLeases(tx)
	if err != nil {
		return err
	}
	st, err := readFleetState(tx)
	if err != nil {
		return err
	}
	return putLeases(tx, fn(ls, st.MovSeq))
}

// leaseIndex is the index of lease id in ls, -1 if none.
func leaseIndex(ls []heldLease, id int64) int {
	return slices.IndexFunc(ls, func(l heldLease) bool { return l.ID == id })
}

// sessionLease is player's lease in service (not being returned), if any.
func sessionLease(ls []heldLease, player string) (int, bool) {
	i := slices.IndexFunc(ls, func(l heldLease) bool { return l.Player == player && !l.Back })
	return i, i >= 0
}

// leaseWait is how long a sale waits for the renewal of a spent lease
// while the central answers.
const leaseWait = 5 * time.Second

// awaitRound pokes the sync loop and waits for its round to end (which
// renews a lease spent), until deadline: false at once when the last round
// could not reach the central, or the loop has stopped.
func (f *Fleet) awaitRound(ctx context.Context, deadline time.Time) bool {
	f.w.mu.Lock()
	wait, cause, stopped := f.loop.claimed, f.loop.lastErr, f.loop.stopped
	f.w.mu.Unlock()
	if stopped || cause != nil {
		return false
	}
	f.loop.poke()
	select {
	case <-wait:
		return true
	case <-ctx.Done():
		return false
	case <-time.After(time.Until(deadline)):
		return false
	}
}

// inLease refuses amount of kinds beyond the session's lease: a room
// bound by a limit is the limit's refusal, a room bound by the lease's
// size (or a lease spent or out of time) waits for the central's renewal.
func (g *guard) inLease(amount Cents, kinds ...LimitKind) error {
	l := g.lease
	if l == nil || l.Back || !g.t.Before(l.Until) {
		return ErrLeaseSpent
	}
	used := g.acct.use.Used
	for _, k := range kinds {
		r, ok := l.Room(k)
		if !ok || used[k]+amount <= r.Room {
			continue
		}
		if !r.Bound() {
			return ErrLeaseSpent
		}
		return &LimitError{Limit: r.Limit, Max: r.Max, Used: r.Used + used[k], Amount: amount}
	}
	return nil
}

// leaseGuard gives a fleet account's guard its session's lease, read in
// tx, and tags the transaction's movements with it. What the sale or the
// movement uses of it is counted in the account's play (guard.sold,
// deposited), which the guard writes back.
func leaseGuard(tx *journalTx, g *guard) error {
	ls, err := readLeases(tx)
	if err != nil {
		return err
	}
	g.fleet = true
	if i, ok := sessionLease(ls, g.acct.Player); ok {
		g.lease = &ls[i]
		g.acct.use = g.acct.use.of(g.lease.ID)
		tx.lease = g.lease.ID
	}
	return nil
}

// fleetLogin logs the holder of card in at a fleet's kiosk: the central
// checks the PIN and reserves the session's lease, then the kiosk keeps
// a mirror of the account (what its screens show and its sales check,
// found by its card as at a lone kiosk) and opens the session. A lease left from an earlier session of the
// player is returned.
func (pl *Accounts) fleetLogin(ctx context.Context, c Card, pin string) (Account, error) {
	// A lease this kiosk holds for the player would keep its room from
	// the new one: returned first, its movements pushed.
	if err := pl.kiosk.returnPlayer(ctx, string(c)); err != nil {
		return Account{}, err
	}
	acct, lease, err := pl.kiosk.players.PlayerLogin(ctx, c, pin)
	if err != nil {
		return Account{}, err
	}
	received := pl.w.now().UTC()
	var out Account
	err = pl.change(ctx, "login", func(tx *journalTx, log *accountLog, now time.Time) error {
		a, ok, err := readAccount(tx, acct.Player)
		if err != nil {
			return err
		}
		if !ok {
			a = Account{Player: acct.Player, Card: acct.Card, Identity: acct.Identity, Opened: now, OpenedBy: ActorCentral, Complete: true, Clock: now}
			if _, err := log.append(AccountRecord{Time: now, Kind: AccOpened, Player: a.Player, Actor: ActorCentral, Identity: a.Identity, Card: a.Card}); err != nil {
				return err
			}
			if err := tx.PutSetting(cardPrefix+string(a.Card), []byte(a.Player)); err != nil { // ByCard: the attendant's panel and commands
				return err
			}
			if _, ok, err := tx.Wallet(a.Player); err != nil {
				return err
			} else if !ok {
				if err := tx.PutWallet(Wallet{Player: a.Player}); err != nil {
					return err
				}
			}
		}
		t := a.at(now)
		a.Limits, a.Pending = acct.Limits, acct.Pending
		if a.Limits == nil {
			a.Limits = Limits{}
		}
		if err := endSession(log, &a, t, ActorPlayer); err != nil {
			return err
		}
		a.Session = Session{Open: true, Start: t, Due: t.Add(pl.p.RealityCheck)}
		if _, err := log.append(AccountRecord{Time: t, Kind: AccSessionStart, Player: a.Player, Actor: ActorPlayer, Effective: a.Session.Due}); err != nil {
			return err
		}
		if err := changeLeases(tx, func(ls []heldLease, movSeq uint64) []heldLease {
			return append(giveBack(ls, a.Player, movSeq), heldLease{Lease: lease, Until: serves(lease, received)})
		}); err != nil {
			return err
		}
		a.use = leaseUse{ID: lease.ID}
		out = a
		return putAccount(tx, a)
	})
	if err == nil {
		pl.kiosk.loop.poke()
	}
	return out, err
}

// giveBack marks player's lease in service, if any, to be returned once
// the central holds the movements through movSeq.
func giveBack(ls []heldLease, player string, movSeq uint64) []heldLease {
	if i, ok := sessionLease(ls, player); ok {
		ls[i].Back, ls[i].MovSeq = true, movSeq
	}
	return ls
}

// giveBackIn marks player's lease in service to be returned, in tx, once
// the central holds the movements made so far.
func giveBackIn(tx *journalTx, player string) error {
	return changeLeases(tx, func(ls []heldLease, movSeq uint64) []heldLease { return giveBack(ls, player, movSeq) })
}

// keepBreak keeps break b on player's lease in service, to send at the
// next round (sendBreaks).
func keepBreak(tx *journalTx, player string, b Break) error {
	return changeLeases(tx, func(ls []heldLease, _ uint64) []heldLease {
		if i, ok := sessionLease(ls, player); ok {
			ls[i].Break = b
		}
		return ls
	})
}

// sessionLeaseID is the id of player's lease in service.
func (pl *Accounts) sessionLeaseID(ctx context.Context, player string) (int64, error) {
	var id int64
	err := pl.w.view(ctx, func(tx ReadTx) error {
		ls, err := readLeases(tx)
		if i, ok := sessionLease(ls, player); ok {
			id = ls[i].ID
		}
		return err
	})
	if err == nil && id == 0 {
		err = ErrNoSession
	}
	return id, err
}

// tendLeases is the sync round's care of the leases, after its push: the
// leases given back are returned; the central's word on the others is
// read, and a session whose lease it ended for a break or a listing is
// ended here too (the player sees why at the next touch); a lease about
// to run out, in room or in time, is renewed.
func (f *Fleet) tendLeases(ctx context.Context) error {
	if f.players == nil {
		return nil
	}
	var ls []heldLease
	var st fleetState
	uses := map[int64]leaseUse{} // what each session used of its lease
	err := f.w.view(ctx, func(tx ReadTx) (err error) {
		if ls, err = readLeases(tx); err != nil {
			return err
		}
		for _, l := range ls {
			a, ok, err := readAccount(tx, l.Player)
			if err != nil {
				return err
			}
			if ok && !l.Back {
				uses[l.ID] = a.use.of(l.ID)
			}
		}
		st, err = readFleetState(tx)
		return err
	})
	if err != nil || len(ls) == 0 {
		return err
	}
	if err := f.sendBreaks(ctx, ls); err != nil {
		return err
	}
	if err := f.returnLeases(ctx, ls); err != nil {
		return err
	}
	var ids []int64
	for _, l := range ls {
		if !l.Back && l.Break == 0 {
			ids = append(ids, l.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	states, err := f.players.LeaseStates(ctx, ids)
	if err != nil {
		return err
	}
	now := f.w.now().UTC()
	for _, s := range states {
		i := leaseIndex(ls, s.ID)
		if i < 0 {
			continue
		}
		l, use := ls[i], uses[s.ID]
		switch s.Revoked {
		case "":
			if !l.due(now, use) {
				continue
			}
		case RevokedLimit:
		default:
			if err := f.dropLease(ctx, l.ID, s.Revoked, s.Account); err != nil {
				return err
			}
			continue
		}
		if st.MovSeq != st.Pushed {
			continue // the movements under the lease first: at the next round
		}
		next, err := f.players.RenewLease(ctx, l.ID, st.Pushed)
		var revoked *LeaseRevokedError
		switch {
		case errors.As(err, &revoked):
			err = f.dropLease(ctx, l.ID, revoked.Reason, s.Account)
		case errors.Is(err, ErrSyncGap):
			err = nil // a sale since the push: at the next round
		case err == nil:
			err = f.renewed(ctx, l, use, next, now)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// sendBreaks sends the breaks players took here while the central could
// not be reached, each through its session's lease, which then goes back.
// A break the central will not take (its lease too old) stays in force
// here only, and is logged as an error for staff to record at the central.
func (f *Fleet) sendBreaks(ctx context.Context, ls []heldLease) error {
	for _, l := range ls {
		if l.Break == 0 {
			continue
		}
		_, err := f.players.PlayerTakeBreak(ctx, l.ID, l.Break)
		switch {
		case errors.Is(err, ErrCentralUnavailable):
			return err
		case err != nil:
			f.w.log.Error().Str("player", l.Player).Str("break", l.Break.String()).AnErr("err", err).
				Msg("a break taken while the central was out of reach was refused by it: record it with central players exclude")
		default:
			f.w.log.Info().Str("player", l.Player).Str("break", l.Break.String()).Msg("a break taken offline reached the central")
		}
		f.w.mu.Lock()
		err = f.w.update(ctx, func(tx *journalTx) error {
			return changeLeases(tx, func(ls []heldLease, movSeq uint64) []heldLease {
				if i := leaseIndex(ls, l.ID); i >= 0 {
					if !ls[i].Back {
						ls[i].Back, ls[i].MovSeq = true, movSeq
					}
					ls[i].Break = 0
				}
				return ls
			})
		})
		f.w.mu.Unlock()
		if err != nil {
			return err
		}
	}
	return nil
}

// returnLeases returns the leases of ls given back (ended sessions) and
// forgets them. A lease the central ended meanwhile is forgotten too.
func (f *Fleet) returnLeases(ctx context.Context, ls []heldLease) error {
	for _, l := range ls {
		if !l.Back || l.Break != 0 { // a break to send through it first
			continue
		}
		if err := f.players.ReturnLease(ctx, l.ID, l.MovSeq); err != nil && !errors.Is(err, ErrLeaseRevoked) {
			return err
		}
		if err := f.dropLease(ctx, l.ID, "", Account{}); err != nil {
			return err
		}
	}
	return nil
}

// returnPlayer gives back the leases the kiosk holds for player (a
// player's wallet is the card's number), pushes what was moved under them
// and returns them.
func (f *Fleet) returnPlayer(ctx context.Context, player string) error {
	var mine []heldLease
	err := f.w.view(ctx, func(tx ReadTx) error {
		ls, err := readLeases(tx)
		for _, l := range ls {
			if l.Player == player {
				mine = append(mine, l)
			}
		}
		return err
	})
	if err != nil || len(mine) == 0 {
		return err
	}
	f.w.mu.Lock()
	err = f.w.update(ctx, func(tx *journalTx) error { return giveBackIn(tx, player) })
	f.w.mu.Unlock()
	if err != nil {
		return err
	}
	if err := f.pushAll(ctx); err != nil {
		return err
	}
	return f.returnOnClose(ctx)
}

// returnOnClose returns the leases given back, at the program's end, after
// its last push: a session that a command opened and closed does not keep
// its room from the player's other kiosks until the next start.
func (f *Fleet) returnOnClose(ctx context.Context) error {
	if f.players == nil {
		return nil
	}
	var ls []heldLease
	if err := f.w.view(ctx, func(tx ReadTx) (err error) { ls, err = readLeases(tx); return err }); err != nil {
		return err
	}
	return f.returnLeases(ctx, ls)
}

// due says whether a lease needs renewing, its session having used use
// of it: a third of its time left, or a room three quarters used.
func (l heldLease) due(now time.Time, use leaseUse) bool {
	if l.Until.Sub(now) < l.TTL/3 {
		return true
	}
	for _, r := range l.Rooms {
		if !r.Bound() && use.Used[r.Kind]*4 > r.Room*3 {
			return true
		}
	}
	return false
}

// renewed puts the next lease in place of l, whose session had used asked
// of it when the renewal was asked: what it used since (the movements the
// central did not count in the next one) is counted in the next one.
func (f *Fleet) renewed(ctx context.Context, l heldLease, asked leaseUse, next Lease, at time.Time) error {
	f.w.mu.Lock()
	defer f.w.mu.Unlock()
	return f.w.update(ctx, func(tx *journalTx) error {
		var ended bool
		err := changeLeases(tx, func(ls []heldLease, movSeq uint64) []heldLease {
			i := leaseIndex(ls, l.ID)
			if ended = i < 0 || ls[i].Back; ended { // a logout meanwhile: the new one goes back too
				return append(ls, heldLease{Lease: next, Back: true, MovSeq: movSeq})
			}
			ls[i] = heldLease{Lease: next, Until: serves(next, at)}
			return ls
		})
		if err != nil || ended {
			return err
		}
		a, ok, err := readAccount(tx, l.Player)
		if err != nil || !ok {
			return err
		}
		now := a.use.of(l.ID)
		a.use = leaseUse{ID: next.ID}
		for k := range a.use.Used {
			a.use.Used[k] = now.Used[k] - asked.Used[k]
		}
		return putPlay(tx, a)
	})
}

// dropLease forgets lease id. A lease the central ended (why: a
// revocation) ends its session here, with the break it learnt of.
func (f *Fleet) dropLease(ctx context.Context, id int64, why string, a Account) error {
	f.w.mu.Lock()
	defer f.w.mu.Unlock()
	return f.w.update(ctx, func(tx *journalTx) error {
		var l *heldLease
		err := changeLeases(tx, func(ls []heldLease, _ uint64) []heldLease {
			i := leaseIndex(ls, id)
			if i < 0 {
				return ls
			}
			dropped := ls[i]
			l = &dropped
			return slices.Delete(ls, i, i+1)
		})
		if err != nil || l == nil || why == "" || l.Back {
			return err
		}
		f.w.log.Warn().Int64("lease", id).Str("player", l.Player).Str("reason", why).Msg("the central ended a session's lease")
		acct, ok, err := readAccount(tx, l.Player)
		if err != nil || !ok {
			return err
		}
		log := &accountLog{tx: tx}
		t := acct.at(f.w.now().UTC())
		if a.Break.Active(t) && !acct.Break.Active(t) {
			acct.Break = a.Break
			if _, err := log.append(AccountRecord{Time: t, Kind: AccBreak, Player: acct.Player, Actor: ActorCentral, Until: a.Break.Until,
				Text: fmt.Sprintf("central: %s", why)}); err != nil {
				return err
			}
		}
		if err := endSession(log, &acct, t, ActorCentral); err != nil {
			return err
		}
		return putAccount(tx, acct)
	})
}

// fleetSetLimit changes a limit of a fleet account at the central, the
// player logged in here, and the kiosk's mirror with it.
func (pl *Accounts) fleetSetLimit(ctx context.Context, player string, k LimitKey, amount Cents) (PendingLimit, error) {
	id, err := pl.sessionLeaseID(ctx, player)
	if err != nil {
		return PendingLimit{}, err
	}
	ch, err := pl.kiosk.players.PlayerSetLimit(ctx, id, k, amount)
	if err != nil {
		return ch, err
	}
	_, err = pl.update(ctx, "limit", player, func(g *guard, _ *journalTx) error {
		a := &g.acct
		if ch.Effective.After(ch.Requested) {
			a.Pending = append(a.Pending, ch)
		} else {
			a.Limits[k] = amount
		}
		return nil
	})
	pl.kiosk.loop.poke() // a decrease ends the lease: the next one, at once
	return ch, err
}

// fleetBreak takes a break at the central, for every kiosk of the fleet,
// the player logged in here; the session ends and its lease goes back.
func (pl *Accounts) fleetBreak(ctx context.Context, player string, b Break) (Exclusion, error) {
	id, err := pl.sessionLeaseID(ctx, player)
	if err != nil {
		return Exclusion{}, err
	}
	// A break is never refused for want of the network: out of reach, it
	// is in force here at once and goes to the central at the next round.
	e, err := pl.kiosk.players.PlayerTakeBreak(ctx, id, b)
	offline := errors.Is(err, ErrCentralUnavailable)
	if err != nil && !offline {
		return e, err
	}
	_, err = pl.update(ctx, "break", player, func(g *guard, tx *journalTx) error {
		a := &g.acct
		if offline {
			e = b.from(g.t)
			if a.Break.Active(g.t) && e.endsBefore(a.Break) {
				return &ExcludedError{Break: a.Break, Shorter: true}
			}
		}
		a.Break = e
		if _, err := g.log.append(AccountRecord{Time: g.t, Kind: AccBreak, Player: a.Player, Actor: ActorPlayer, Until: e.Until, Text: b.String()}); err != nil {
			return err
		}
		if err := endSession(&g.log, a, g.t, ActorPlayer); err != nil {
			return err
		}
		if offline {
			return keepBreak(tx, player, b)
		}
		return giveBackIn(tx, player)
	})
	if offline && err == nil {
		pl.w.log.Warn().Str("player", player).Str("break", b.String()).Msg("break taken with the central out of reach: in force here, sent at the next round")
	}
	pl.kiosk.loop.poke()
	return e, err
}

// FleetAccount is card c's account as the central holds it, for
// attendant actor at this kiosk of a fleet (ErrNotFleet at a lone
// kiosk), the player present with their PIN: what every kiosk counts of
// its limits, its sessions and its funds (PlayerCentral.PlayerLookup).
// The kiosk's own part of the account (its funds here, prizes held here,
// its log) is Account's.
func (pl *Accounts) FleetAccount(ctx context.Context, actor string, c Card, pin string) (FleetAccount, error) {
	if pl.kiosk == nil {
		return FleetAccount{}, ErrNotFleet
	}
	if pl.central() == nil {
		return FleetAccount{}, pl.notInFleet()
	}
	return pl.central().PlayerLookup(ctx, c, pin, actor)
}
