package central_test

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/rs/zerolog"

	"starfortune/central"
	"starfortune/engine"
	"starfortune/engine/memstore"
)

// The players' accounts of a fleet (#31, migrations/0007), against the
// tests' own PostgreSQL, each kiosk through its own role.

// pin is the tests' card PIN.
const pin = "4071"

// openPlayer opens an account whose holder shows document CNI number doc,
// with the weekly limits deposit and stake (cents) and extra others.
func (f *fleet) openPlayer(t *testing.T, doc string, deposit, stake engine.Cents, extra engine.Limits) engine.Account {
	t.Helper()
	limits := engine.Limits{{Kind: engine.LimitDeposit, Window: engine.WindowWeek}: deposit, {Kind: engine.LimitStake, Window: engine.WindowWeek}: stake}
	for k, v := range extra {
		limits[k] = v
	}
	id := engine.Identity{Holder: "Ann " + doc, Born: time.Date(1980, 5, 17, 0, 0, 0, 0, time.UTC), DocType: "CNI", DocNumber: doc}
	a, err := f.admin.OpenPlayer(ctx, "desk", id, limits, pin)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// login logs card in at kiosk k with the tests' PIN.
func (f *fleet) login(t *testing.T, k string, card engine.Card) (engine.Account, engine.Lease) {
	t.Helper()
	a, l, err := f.kiosks[k].PlayerLogin(ctx, card, pin)
	if err != nil {
		t.Fatalf("login at %s: %v", k, err)
	}
	return a, l
}

// room is lease l's room of kind k, failing if it has none.
func room(t *testing.T, l engine.Lease, k engine.LimitKind) engine.LeaseRoom {
	t.Helper()
	r, ok := l.Room(k)
	if !ok {
		t.Fatalf("lease %d has no room of kind %d: %+v", l.ID, k, l.Rooms)
	}
	return r
}

var (
	depositWeek = engine.LimitKey{Kind: engine.LimitDeposit, Window: engine.WindowWeek}
	stakeWeek   = engine.LimitKey{Kind: engine.LimitStake, Window: engine.WindowWeek}
	lossDay     = engine.LimitKey{Kind: engine.LimitLoss, Window: engine.WindowDay}
)

// movements numbers the movements each kiosk pushes.
type movements struct {
	f   *fleet
	seq map[string]uint64
}

func (f *fleet) movements() *movements { return &movements{f: f, seq: map[string]uint64{}} }

// push pushes ms from kiosk k, numbered after its last.
func (mv *movements) push(t *testing.T, k string, ms ...engine.FleetMovement) engine.PushResult {
	t.Helper()
	for i := range ms {
		mv.seq[k]++
		ms[i].Seq, ms[i].ID = mv.seq[k], fmt.Sprintf("%d:%s", mv.seq[k], ms[i].Player)
	}
	r, err := mv.f.kiosks[k].PushMovements(ctx, ms)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// deposit is a credit of amount to the wallet of card at t, under lease.
func deposit(card engine.Card, lease int64, amount engine.Cents, at time.Time) engine.FleetMovement {
	return engine.FleetMovement{Player: string(card), Kind: engine.LedgerCredit, Credit: amount, Time: at, Lease: lease}
}

// play is a sale to card at t, under lease: stake debited, prize credited.
func play(card engine.Card, lease int64, stake, prize engine.Cents, at time.Time) engine.FleetMovement {
	return engine.FleetMovement{Player: string(card), Kind: engine.LedgerSale, Debit: stake, Credit: prize, Time: at, Lease: lease}
}

// usage is what card's limit k counts now, as the owner reads it.
func (f *fleet) usage(t *testing.T, card engine.Card, k engine.LimitKey) engine.LimitUsage {
	t.Helper()
	p, err := f.admin.Player(ctx, card)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range p.Usage {
		if u.Limit == k {
			return u
		}
	}
	t.Fatalf("%s has no limit %s in force: %+v", card, k, p.Usage)
	return engine.LimitUsage{}
}

// The login checks card and PIN and reserves a lease: its stake room is
// the lease's size, or what the limits leave, its deposit room all that
// the deposit limits leave; the account comes without its PIN. An unknown card and a wrong PIN are refused with the engine's
// errors.
func TestPlayerLogin(t *testing.T) {
	f := newFleet(t, 0, 0, "k1")
	acct := f.openPlayer(t, "A1", 20000, 30000, nil)
	if acct.Card != engine.NewCard(1) || acct.Player != string(acct.Card) || !acct.Complete {
		t.Fatalf("opened %+v, want card %s", acct, engine.NewCard(1))
	}
	a, l, err := f.kiosks["k1"].PlayerLogin(ctx, acct.Card, pin)
	if err != nil {
		t.Fatal(err)
	}
	if a.Player != acct.Player || a.Identity != acct.Identity || a.Limits[depositWeek] != 20000 || a.Limits[stakeWeek] != 30000 || a.PINHash != "" {
		t.Fatalf("account at login: %+v", a)
	}
	if l.ID == 0 || l.Player != acct.Player || l.TTL != 15*time.Minute || len(l.Rooms) != 2 {
		t.Fatalf("lease: %+v", l)
	}
	// Stakes: the lease's size (5 000 cents) binds; deposits: the limit.
	if r := room(t, l, engine.LimitStake); r.Room != 5000 || r.Bound() {
		t.Fatalf("stake room %+v, want 5000 of the lease's size", r)
	}
	if r := room(t, l, engine.LimitDeposit); r.Room != 20000 || r.Limit != depositWeek || r.Max != 20000 || r.Used != 0 {
		t.Fatalf("deposit room %+v, want all of deposit-week's 20000", r)
	}
	var wrong *engine.PlayerPINError
	if _, _, err := f.kiosks["k1"].PlayerLogin(ctx, acct.Card, "9999"); !errors.As(err, &wrong) || wrong.Left != 4 {
		t.Fatalf("wrong PIN: %v, want 4 tries left", err)
	}
	if _, _, err := f.kiosks["k1"].PlayerLogin(ctx, acct.Card, ""); !errors.As(err, &wrong) || wrong.Left != 3 {
		t.Fatalf("no PIN: %v, want a wrong PIN, 3 tries left", err)
	}
	if _, _, err := f.kiosks["k1"].PlayerLogin(ctx, engine.NewCard(99), pin); !errors.Is(err, engine.ErrUnknownCard) {
		t.Fatalf("unknown card: %v", err)
	}
	// The right PIN resets the count.
	f.login(t, "k1", acct.Card)
	if _, _, err := f.kiosks["k1"].PlayerLogin(ctx, acct.Card, "9999"); !errors.As(err, &wrong) || wrong.Left != 4 {
		t.Fatalf("wrong PIN after a right one: %v, want 4 tries left", err)
	}
	// The owner sees the account and its two open leases.
	p, err := f.admin.Player(ctx, acct.Card)
	if err != nil || len(p.Leases) != 2 || p.Leases[0].Kiosk != "k1" || p.Account.Identity != acct.Identity {
		t.Fatalf("the owner's view: %+v %v", p, err)
	}
}

// Wrong PINs count at every kiosk: two at k1 and three at k2 lock the
// card everywhere, the right PIN too is refused until the owner unlocks
// it; a new PIN replaces the old.
func TestPlayerPINLockoutFleetWide(t *testing.T) {
	f := newFleet(t, 0, 0, "k1", "k2")
	card := f.openPlayer(t, "A1", 20000, 10000, nil).Card
	for i, k := range []string{"k1", "k1", "k2", "k2"} {
		var wrong *engine.PlayerPINError
		if _, _, err := f.kiosks[k].PlayerLogin(ctx, card, "1357"); !errors.As(err, &wrong) || wrong.Left != 4-i {
			t.Fatalf("wrong PIN %d at %s: %v", i+1, k, err)
		}
	}
	if _, _, err := f.kiosks["k2"].PlayerLogin(ctx, card, "1357"); !errors.Is(err, engine.ErrCardLocked) {
		t.Fatalf("fifth wrong PIN: %v, want the card locked", err)
	}
	if _, _, err := f.kiosks["k1"].PlayerLogin(ctx, card, pin); !errors.Is(err, engine.ErrCardLocked) {
		t.Fatalf("the right PIN at k1 on a locked card: %v", err)
	}
	if p, err := f.admin.Player(ctx, card); err != nil || !p.Account.PINLocked || len(p.Leases) != 0 {
		t.Fatalf("locked account: %+v %v", p, err)
	}
	if err := f.admin.UnlockPlayerCard(ctx, "desk", card, "1111"); !errors.Is(err, engine.ErrPlayerPINRule) {
		t.Fatalf("unlock with an easy PIN: %v", err)
	}
	if err := f.admin.UnlockPlayerCard(ctx, "desk", card, "5183"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.kiosks["k2"].PlayerLogin(ctx, card, pin); !errors.Is(err, engine.ErrPlayerPIN) {
		t.Fatalf("the old PIN after a new one: %v", err)
	}
	if _, _, err := f.kiosks["k2"].PlayerLogin(ctx, card, "5183"); err != nil {
		t.Fatalf("the new PIN: %v", err)
	}
}

// A break refuses the login (and is never shortened), a listed holder
// too, and a listed identity opens no account; a document opens one.
func TestPlayerBreakAndListedRefusals(t *testing.T) {
	f := newFleet(t, 0, 0, "k1")
	card := f.openPlayer(t, "A1", 20000, 10000, nil).Card
	e, err := f.admin.PlayerBreak(ctx, "desk", card, engine.Break7d)
	if err != nil || e.Indefinite || e.Until.Sub(e.Since) != 7*24*time.Hour {
		t.Fatalf("break: %+v %v", e, err)
	}
	var excluded *engine.ExcludedError
	if _, _, err := f.kiosks["k1"].PlayerLogin(ctx, card, pin); !errors.As(err, &excluded) || excluded.Shorter || !excluded.Break.Until.Equal(e.Until) {
		t.Fatalf("login on a break: %v", err)
	}
	if _, err := f.admin.PlayerBreak(ctx, "desk", card, engine.Break24h); !errors.As(err, &excluded) || !excluded.Shorter {
		t.Fatalf("a shorter break: %v", err)
	}
	longer, err := f.admin.PlayerBreak(ctx, "desk", card, engine.Break30d)
	if err != nil || !longer.Since.Equal(e.Since) || !longer.Until.After(e.Until) {
		t.Fatalf("a longer break: %+v %v (one break made longer keeps its start %s)", longer, err, e.Since)
	}

	other := f.openPlayer(t, "B2", 20000, 10000, nil).Card
	added, accounts, err := f.admin.ImportExclusions(ctx, "desk", []string{"CNI:B2", "PASSEPORT:Z9"})
	if err != nil || added != 2 || len(accounts) != 1 || accounts[0] != string(other) {
		t.Fatalf("import: %d %v %v", added, accounts, err)
	}
	if added, _, err := f.admin.ImportExclusions(ctx, "desk", []string{"CNI:B2"}); err != nil || added != 0 {
		t.Fatalf("import again: %d %v", added, err)
	}
	if _, _, err := f.kiosks["k1"].PlayerLogin(ctx, other, pin); !errors.Is(err, engine.ErrListed) {
		t.Fatalf("login of a listed holder: %v", err)
	}
	id := engine.Identity{Holder: "Zoe", Born: time.Date(1990, 1, 2, 0, 0, 0, 0, time.UTC), DocType: "passeport", DocNumber: "z 9"}
	limits := engine.Limits{depositWeek: 100, stakeWeek: 100}
	var idErr *engine.IdentityError
	if _, err := f.admin.OpenPlayer(ctx, "desk", id, limits, pin); !errors.As(err, &idErr) || idErr.Problem != engine.IdentityListed {
		t.Fatalf("opening for a listed identity: %v", err)
	}
	id.DocType, id.DocNumber = "CNI", "a1"
	if _, err := f.admin.OpenPlayer(ctx, "desk", id, limits, pin); !errors.As(err, &idErr) || idErr.Problem != engine.IdentityTaken {
		t.Fatalf("opening for a document that holds an account: %v", err)
	}
	id.DocNumber = "C3"
	if _, err := f.admin.OpenPlayer(ctx, "desk", id, engine.Limits{depositWeek: 100}, pin); !errors.Is(err, engine.ErrLimitRequired) {
		t.Fatalf("opening without a stake limit: %v", err)
	}
	id.Born = time.Now().AddDate(-17, 0, 0)
	if _, err := f.admin.OpenPlayer(ctx, "desk", id, limits, pin); !errors.As(err, &idErr) || idErr.Problem != engine.IdentityUnderAge {
		t.Fatalf("opening for a minor: %v", err)
	}
}

// Two kiosks reserving for one player at once, many times over, real
// kiosk roles in goroutines: the rooms granted add up to the limits, never
// more (the player's row serialises the reservations).
func TestPlayerLeasesConcurrent(t *testing.T) {
	f := newFleet(t, 0, 0, "k1", "k2")
	f.set(t, "lease_size_cents = 3000")
	card := f.openPlayer(t, "A1", 10000, 20000, nil).Card
	const perKiosk = 6
	var wg sync.WaitGroup
	leases := make(chan engine.Lease, 2*perKiosk)
	errs := make(chan error, 2*perKiosk)
	for _, k := range []string{"k1", "k2"} {
		for range perKiosk {
			wg.Go(func() {
				_, l, err := f.kiosks[k].PlayerLogin(ctx, card, pin)
				if err != nil {
					errs <- err
					return
				}
				leases <- l
			})
		}
	}
	wg.Wait()
	close(leases)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var deposits, stakes engine.Cents
	held := map[string][]engine.Lease{}
	for l := range leases {
		deposits += room(t, l, engine.LimitDeposit).Room
		stakes += room(t, l, engine.LimitStake).Room
		p, err := f.admin.Player(ctx, card)
		if err != nil {
			t.Fatal(err)
		}
		for _, pl := range p.Leases {
			if pl.Lease.ID == l.ID {
				held[pl.Kiosk] = append(held[pl.Kiosk], l)
			}
		}
	}
	if n := len(held["k1"]) + len(held["k2"]); n != 2*perKiosk || deposits != 10000 || stakes != 20000 {
		t.Fatalf("%d leases hold %s of deposits and %s of stakes (the limits are 100.00 and 200.00)", n, deposits, stakes)
	}
	for _, k := range []engine.LimitKey{depositWeek, stakeWeek} {
		if u := f.usage(t, card, k); u.Used != 0 || u.Outstanding != u.Max {
			t.Fatalf("%s after the rush: %+v", k, u)
		}
	}
	// Then both kiosks at once deposit and stake what each lease allows
	// and renew it: the movements and the new leases stay within the
	// limits.
	errs = make(chan error, 2)
	for k, ls := range held {
		wg.Go(func() {
			var seq uint64
			for _, l := range ls {
				var ms []engine.FleetMovement
				if r, _ := l.Room(engine.LimitDeposit); r.Room > 0 {
					ms = append(ms, deposit(card, l.ID, r.Room, time.Now()))
				}
				if r, _ := l.Room(engine.LimitStake); r.Room > 0 {
					ms = append(ms, play(card, l.ID, r.Room, 0, time.Now()))
				}
				for i := range ms {
					seq++
					ms[i].Seq, ms[i].ID = seq, fmt.Sprintf("%s/%d", k, seq)
				}
				if _, err := f.kiosks[k].PushMovements(ctx, ms); err != nil {
					errs <- err
					return
				}
				if _, err := f.kiosks[k].RenewLease(ctx, l.ID, seq); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, k := range []engine.LimitKey{depositWeek, stakeWeek} {
		if u := f.usage(t, card, k); u.Used+u.Outstanding > u.Max || u.Used != u.Max {
			t.Fatalf("%s after the movements and renewals: %+v", k, u)
		}
	}
	if rep := f.audit(t); len(rep.PlayerFindings) != 0 {
		t.Fatalf("audit: %q", rep.Findings)
	}
}

// A renewal waits for the kiosk's movements under the lease, then ends it
// and reserves the next, counting what it used; a return brings its room
// back; a lease returned serves no more, and returning it again is no
// error.
func TestPlayerRenewAndReturn(t *testing.T) {
	f := newFleet(t, 0, 0, "k1", "k2")
	card := f.openPlayer(t, "A1", 100000, 8000, nil).Card
	mv := f.movements()
	_, l1 := f.login(t, "k1", card)
	_, l2 := f.login(t, "k2", card)
	if r := room(t, l2, engine.LimitStake); r.Room != 3000 || r.Limit != stakeWeek || r.Max != 8000 || r.Used != 5000 {
		t.Fatalf("the second lease's stake room: %+v, want 3000 left of 80.00 with 50.00 in k1's lease", r)
	}
	mv.push(t, "k1", play(card, l1.ID, 2000, 0, time.Now()))
	k1, k2 := f.kiosks["k1"], f.kiosks["k2"]
	if _, err := k1.RenewLease(ctx, l1.ID, 2); !errors.Is(err, engine.ErrSyncGap) {
		t.Fatalf("renewal through movement 2, the central holding 1: %v", err)
	}
	next, err := k1.RenewLease(ctx, l1.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	// 80.00 − 20.00 staked − 30.00 in k2's lease.
	if r := room(t, next, engine.LimitStake); next.ID == l1.ID || r.Room != 3000 || r.Used != 5000 {
		t.Fatalf("renewed: %+v", next)
	}
	var revoked *engine.LeaseRevokedError
	if _, err := k1.RenewLease(ctx, l1.ID, 1); !errors.As(err, &revoked) || revoked.Reason != engine.RevokedReturned {
		t.Fatalf("renewing a lease renewed already: %v", err)
	}
	if err := k2.ReturnLease(ctx, l2.ID, 0); err != nil {
		t.Fatal(err)
	}
	if err := k2.ReturnLease(ctx, l2.ID, 0); err != nil {
		t.Fatalf("returned again: %v", err)
	}
	st, err := k2.LeaseStates(ctx, []int64{l2.ID})
	if err != nil || len(st) != 1 || st[0].Revoked != engine.RevokedReturned || st[0].Account.Player != "" {
		t.Fatalf("the state of a returned lease: %+v %v", st, err)
	}
	// k2's room is back: 80.00 − 20.00 − 30.00 in k1's lease.
	if _, l := f.login(t, "k2", card); room(t, l, engine.LimitStake).Room != 3000 {
		t.Fatalf("login after the return: %+v", l)
	}
	if u := f.usage(t, card, stakeWeek); u.Used != 2000 || u.Outstanding != 6000 {
		t.Fatalf("stake-week: %+v", u)
	}
}

// An expired lease holds no room (another kiosk gets it back), while the
// movements pushed under it still count; it is not renewed, and its state
// says so, without the account.
func TestPlayerExpiredLease(t *testing.T) {
	f := newFleet(t, 0, 0, "k1", "k2")
	card := f.openPlayer(t, "A1", 100000, 6000, nil).Card
	mv := f.movements()
	_, l1 := f.login(t, "k1", card)
	_, l2 := f.login(t, "k2", card)
	if r := room(t, l2, engine.LimitStake); r.Room != 1000 {
		t.Fatalf("k2's room beside k1's lease: %+v", r)
	}
	mv.push(t, "k1", play(card, l1.ID, 1000, 0, time.Now()))
	f.exec(t, "UPDATE leases SET expires_at = now() - interval '1 second' WHERE id = $1", l1.ID)
	// 60.00 − 10.00 staked under the expired lease − 10.00 in k2's.
	_, l3 := f.login(t, "k2", card)
	if r := room(t, l3, engine.LimitStake); r.Room != 4000 || r.Used != 2000 || r.Limit != stakeWeek {
		t.Fatalf("room with k1's lease expired: %+v", r)
	}
	var revoked *engine.LeaseRevokedError
	if _, err := f.kiosks["k1"].RenewLease(ctx, l1.ID, 1); !errors.As(err, &revoked) || revoked.Reason != engine.RevokedExpired {
		t.Fatalf("renewing an expired lease: %v", err)
	}
	st, err := f.kiosks["k1"].LeaseStates(ctx, []int64{l1.ID})
	if err != nil || len(st) != 1 || st[0].Revoked != engine.RevokedExpired || st[0].Account.Player != "" {
		t.Fatalf("state of an expired lease: %+v %v", st, err)
	}
	if err := f.kiosks["k1"].ReturnLease(ctx, l1.ID, 99); err != nil {
		t.Fatalf("returning an expired lease (no movement to wait for): %v", err)
	}
}

// A kiosk role, talking SQL as an attacker with its credentials would,
// reads no account and reserves nothing without the PIN; through its
// client or not, it cannot renew, return, read or act through another
// kiosk's lease, nor push a movement under it.
func TestPlayerKioskRoleBoundaries(t *testing.T) {
	f := newFleet(t, 0, 0, "k1", "k2")
	card := f.openPlayer(t, "A1", 20000, 10000, nil).Card
	other := f.openPlayer(t, "B2", 20000, 10000, nil).Card
	_, l1 := f.login(t, "k1", card)
	raw := f.as(t, "k2")
	for _, sql := range []string{
		"SELECT * FROM players", "SELECT * FROM leases", "SELECT * FROM player_limits", "SELECT * FROM player_log",
		fmt.Sprintf("SELECT sf_player_json('%s', now())", card),
		fmt.Sprintf("SELECT sf_reserve_lease('%s', 'k2', now(), NULL)", card),
		fmt.Sprintf("SELECT sf_player_break('%s', 'indefinite', 'x', NULL)", card),
		fmt.Sprintf("SELECT sf_player_unlock('%s', '9876', 'x')", card),
		fmt.Sprintf("SELECT * FROM sf_limit_room('%s', now(), interval '0')", card),
	} {
		if _, err := raw.Exec(ctx, sql); sqlState(err) != "42501" {
			t.Errorf("%s as k2: %v, want insufficient privilege", sql, err)
		}
	}
	var answer string
	if err := raw.QueryRow(ctx, "SELECT player_login($1, '0000')", string(card)).Scan(&answer); err != nil || answer != `{"left": 4, "status": "wrong-pin"}` {
		t.Fatalf("login with a wrong PIN: %s %v", answer, err)
	}
	// A role's sessions in REPEATABLE READ would not see another kiosk's
	// lease reserved while they waited for the player's row: refused.
	rr := f.as(t, "k2")
	if _, err := rr.Exec(ctx, "SET default_transaction_isolation = 'repeatable read'"); err != nil {
		t.Fatal(err)
	}
	if err := rr.QueryRow(ctx, "SELECT player_login($1, $2)", string(card), pin).Scan(&answer); err == nil {
		t.Fatalf("a login in a REPEATABLE READ transaction: %s", answer)
	}
	k2 := f.kiosks["k2"]
	var revoked *engine.LeaseRevokedError
	if _, err := k2.RenewLease(ctx, l1.ID, 0); !errors.Is(err, central.ErrUnknownLease) || !errors.As(err, &revoked) {
		t.Fatalf("k2 renewing k1's lease: %v", err)
	}
	if err := k2.ReturnLease(ctx, l1.ID, 0); !errors.Is(err, central.ErrUnknownLease) {
		t.Fatalf("k2 returning k1's lease: %v", err)
	}
	if st, err := k2.LeaseStates(ctx, []int64{l1.ID}); err != nil || len(st) != 0 {
		t.Fatalf("k2 reading k1's lease: %+v %v", st, err)
	}
	if _, err := k2.PlayerSetLimit(ctx, l1.ID, depositWeek, 100); !errors.Is(err, central.ErrUnknownLease) {
		t.Fatalf("k2 setting a limit through k1's lease: %v", err)
	}
	if _, err := k2.PlayerTakeBreak(ctx, l1.ID, engine.BreakIndefinite); !errors.Is(err, central.ErrUnknownLease) {
		t.Fatalf("k2 taking a break through k1's lease: %v", err)
	}
	mv := f.movements()
	if r := mv.push(t, "k2", deposit(card, l1.ID, 100, time.Now())); r.Applied != 0 || r.Conflicts != 1 {
		t.Fatalf("k2 pushing under k1's lease: %+v", r)
	}
	if r := mv.push(t, "k1", deposit(other, l1.ID, 100, time.Now())); r.Applied != 0 || r.Conflicts != 1 {
		t.Fatalf("k1 pushing another player's movement under the lease: %+v", r)
	}
	if r := mv.push(t, "k1", deposit(card, l1.ID, 100, time.Now())); r.Applied != 1 {
		t.Fatalf("k1 pushing under its lease: %+v", r)
	}
	st, err := f.kiosks["k1"].LeaseStates(ctx, []int64{l1.ID})
	if err != nil || len(st) != 1 || st[0].Revoked != "" || st[0].Account.Player != string(card) || st[0].Account.PINFails != 1 {
		t.Fatalf("k1's lease after k2's attempts: %+v %v", st, err)
	}
	if p, err := f.admin.Player(ctx, card); err != nil || len(p.Leases) != 1 || p.Leases[0].Deposited != 100 {
		t.Fatalf("leases after a login without the PIN: %+v %v", p.Leases, err)
	}
	if rep := f.audit(t); !hasFinding(rep, "kiosk k2", "lease not held by this kiosk for this player") {
		t.Fatalf("audit: %q", rep.Findings)
	}
}

// A break taken at one kiosk revokes the session's lease at the other:
// its state says so with the break, its renewal is refused, the login
// too; the player's own lease serves no more change.
func TestPlayerBreakRevokesOtherKiosk(t *testing.T) {
	f := newFleet(t, 0, 0, "k1", "k2")
	card := f.openPlayer(t, "A1", 20000, 10000, nil).Card
	_, l1 := f.login(t, "k1", card)
	_, l2 := f.login(t, "k2", card)
	e, err := f.kiosks["k2"].PlayerTakeBreak(ctx, l2.ID, engine.Break24h)
	if err != nil || e.Until.Sub(e.Since) != 24*time.Hour {
		t.Fatalf("break at k2: %+v %v", e, err)
	}
	st, err := f.kiosks["k1"].LeaseStates(ctx, []int64{l1.ID})
	if err != nil || len(st) != 1 || st[0].Revoked != engine.RevokedBreak || !st[0].Account.Break.Active(time.Now()) {
		t.Fatalf("k1's lease after the break: %+v %v", st, err)
	}
	var revoked *engine.LeaseRevokedError
	if _, err := f.kiosks["k1"].RenewLease(ctx, l1.ID, 0); !errors.As(err, &revoked) || revoked.Reason != engine.RevokedBreak {
		t.Fatalf("renewal after the break: %v", err)
	}
	if _, err := f.kiosks["k2"].PlayerSetLimit(ctx, l2.ID, depositWeek, 100); !errors.As(err, &revoked) || revoked.Reason != engine.RevokedBreak {
		t.Fatalf("a limit through a revoked lease: %v", err)
	}
	var excluded *engine.ExcludedError
	if _, _, err := f.kiosks["k1"].PlayerLogin(ctx, card, pin); !errors.As(err, &excluded) {
		t.Fatalf("login after the break: %v", err)
	}
	// Returned (the kiosk ended the session), the lease is gone.
	if err := f.kiosks["k1"].ReturnLease(ctx, l1.ID, 0); err != nil {
		t.Fatal(err)
	}
	if p, err := f.admin.Player(ctx, card); err != nil || len(p.Leases) != 1 || p.Leases[0].Revoked != engine.RevokedBreak {
		t.Fatalf("open leases after the break: %+v %v", p.Leases, err)
	}
}

// A limit decrease at one kiosk applies at once and revokes the leases
// that may use more than it leaves (reason limit): renewed, they share
// what it leaves. An increase waits for the cooling-off, a second change
// waits for it, a mandatory limit is never removed.
func TestPlayerLimitDecrease(t *testing.T) {
	f := newFleet(t, 0, 0, "k1", "k2")
	card := f.openPlayer(t, "A1", 20000, 20000, nil).Card
	_, l1 := f.login(t, "k1", card)
	_, l2 := f.login(t, "k2", card)
	k1, k2 := f.kiosks["k1"], f.kiosks["k2"]
	ch, err := k1.PlayerSetLimit(ctx, l1.ID, stakeWeek, 6000)
	if err != nil || !ch.Effective.Equal(ch.Requested) || ch.Amount != 6000 {
		t.Fatalf("decrease: %+v %v", ch, err)
	}
	st, err := k2.LeaseStates(ctx, []int64{l2.ID})
	if err != nil || len(st) != 1 || st[0].Revoked != engine.RevokedLimit || st[0].Account.Limits[stakeWeek] != 6000 {
		t.Fatalf("k2's lease after the decrease: %+v %v", st, err)
	}
	// k2 renews first: 60.00 less the 50.00 k1's lease still holds.
	n2, err := k2.RenewLease(ctx, l2.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r := room(t, n2, engine.LimitStake); r.Room != 1000 || r.Limit != stakeWeek || r.Max != 6000 {
		t.Fatalf("k2's renewed room: %+v", r)
	}
	n1, err := k1.RenewLease(ctx, l1.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r := room(t, n1, engine.LimitStake); r.Room != 5000 {
		t.Fatalf("k1's renewed room: %+v", r)
	}
	if u := f.usage(t, card, stakeWeek); u.Outstanding != 6000 || u.Max != 6000 {
		t.Fatalf("stake-week: %+v", u)
	}
	// A deposit room is all the deposit limits leave: k1's lease was
	// granted it; a decrease revokes that lease only.
	if r := room(t, n1, engine.LimitDeposit); r.Room != 20000 || room(t, n2, engine.LimitDeposit).Room != 0 {
		t.Fatalf("deposit rooms %+v and %+v", n1.Rooms, n2.Rooms)
	}
	if _, err := k2.PlayerSetLimit(ctx, n2.ID, depositWeek, 15000); err != nil {
		t.Fatal(err)
	}
	if st, err := k2.LeaseStates(ctx, []int64{n1.ID, n2.ID}); err != nil || len(st) != 1 || st[0].ID != n2.ID {
		t.Fatalf("k2 reads other leases than its own: %+v %v", st, err)
	}
	for k, id := range map[string]int64{"k1": n1.ID, "k2": n2.ID} {
		st, err := f.kiosks[k].LeaseStates(ctx, []int64{id})
		if want := map[string]string{"k1": engine.RevokedLimit, "k2": ""}[k]; err != nil || len(st) != 1 || st[0].Revoked != want {
			t.Fatalf("%s's lease after deposit-week's decrease: %+v %v, want revoked %q", k, st, err, want)
		}
	}

	up, err := k1.PlayerSetLimit(ctx, n1.ID, stakeWeek, 30000)
	if err != nil || up.Effective.Sub(up.Requested) != 48*time.Hour {
		t.Fatalf("increase: %+v %v", up, err)
	}
	var pending *engine.PendingError
	if _, err := k2.PlayerSetLimit(ctx, n2.ID, stakeWeek, 100); !errors.As(err, &pending) || pending.Pending.Amount != 30000 {
		t.Fatalf("a change while one waits: %v", err)
	}
	if _, err := k2.PlayerSetLimit(ctx, n2.ID, depositWeek, 0); !errors.Is(err, engine.ErrLimitRequired) {
		t.Fatalf("removing deposit-week: %v", err)
	}
	if _, err := k2.PlayerSetLimit(ctx, n2.ID, engine.LimitKey{}, 100); !errors.Is(err, engine.ErrBadLimit) {
		t.Fatalf("no limit: %v", err)
	}
	// A new loss limit is a decrease (from none): at once, and the next
	// lease has a loss room.
	if _, err := f.admin.SetPlayerLimit(ctx, "desk", card, lossDay, 700); err != nil {
		t.Fatal(err)
	}
	if st, err := k2.LeaseStates(ctx, []int64{n2.ID}); err != nil || len(st) != 1 || st[0].Revoked != engine.RevokedLimit {
		t.Fatalf("a lease without a loss room after a loss limit: %+v %v", st, err)
	}
	a, l := f.login(t, "k1", card)
	if len(a.Pending) != 1 || a.Limits[lossDay] != 700 || room(t, l, engine.LimitLoss).Room != 700 {
		t.Fatalf("account and lease with a loss limit: %+v %+v", a, l)
	}
}

// A prize counts against a loss limit only if it stays in the window for
// the lease's whole time: one about to age out frees no room.
func TestPlayerLossRoomCountsPrizesThatStay(t *testing.T) {
	f := newFleet(t, 0, 0, "k1")
	card := f.openPlayer(t, "A1", 20000, 100000, engine.Limits{lossDay: 1000}).Card
	mv := f.movements()
	now := time.Now()
	_, l := f.login(t, "k1", card)
	mv.push(t, "k1", play(card, l.ID, 200, 3000, now.Add(-24*time.Hour+5*time.Minute)))
	if err := f.kiosks["k1"].ReturnLease(ctx, l.ID, 1); err != nil {
		t.Fatal(err)
	}
	_, l = f.login(t, "k1", card)
	if r := room(t, l, engine.LimitLoss); r.Room != 800 || r.Limit != lossDay || r.Used != 200 {
		t.Fatalf("loss room with a prize aging out within the lease: %+v", r)
	}
	mv.push(t, "k1", play(card, l.ID, 200, 3000, now.Add(-time.Hour)))
	if err := f.kiosks["k1"].ReturnLease(ctx, l.ID, 2); err != nil {
		t.Fatal(err)
	}
	_, l = f.login(t, "k1", card)
	if r := room(t, l, engine.LimitLoss); r.Room != 3600 || r.Used != -2600 {
		t.Fatalf("loss room with a prize that stays: %+v", r)
	}
	// The register lists the prizes of 30.00 and more, with the holder.
	reg, err := f.admin.Register(ctx, 3000)
	if err != nil || len(reg) != 2 || reg[0].Holder != "Ann A1" || reg[0].Kiosk != "k1" || reg[0].PrizeCents != 3000 || reg[1].Document != "CNI:A1" {
		t.Fatalf("register: %+v %v", reg, err)
	}
}

// The audit recomputes the accounts from the movements and the logs: a
// clean history has no finding; deposits over a limit, a lease granted
// beyond the room, play without a lease, during a break or while listed
// are found, each with its kind.
func TestPlayerAuditFindings(t *testing.T) {
	f := newFleet(t, 0, 0, "k1", "k2")
	card := f.openPlayer(t, "A1", 8000, 100000, nil).Card
	mv := f.movements()
	_, l1 := f.login(t, "k1", card)
	mv.push(t, "k1", deposit(card, l1.ID, 3000, time.Now()))
	if _, err := f.kiosks["k1"].RenewLease(ctx, l1.ID, 1); err != nil {
		t.Fatal(err)
	}
	if rep := f.audit(t); len(rep.PlayerFindings) != 0 || rep.Accounts != 1 {
		t.Fatalf("audit of a clean history: %+v", rep)
	}
	kinds := func(rep central.AuditReport) map[string]int {
		n := map[string]int{}
		for _, p := range rep.PlayerFindings {
			if p.Player != string(card) {
				t.Errorf("finding on another account: %+v", p)
			}
			n[p.Kind]++
		}
		return n
	}
	// k2 deposits 60.00 without a lease: 90.00 in the week, over 80.00.
	mv.push(t, "k2", deposit(card, 0, 6000, time.Now()))
	// A lease forged with more room than the limit leaves.
	f.exec(t, `INSERT INTO leases (player, kiosk, granted_at, ttl, expires_at, room_deposit, room_stake, rooms)
		VALUES ($1, 'k2', now(), '15 min', now() + interval '15 min', 99999, 100, '[]')`, string(card))
	rep := f.audit(t)
	if n := kinds(rep); n[central.FindingOverLimit] != 1 || n[central.FindingNoLease] != 1 || n[central.FindingLeaseOverRoom] != 1 || len(n) != 3 {
		t.Fatalf("findings %v: %q", n, rep.Findings)
	}
	if !hasFinding(rep, "over-limit", "deposit-week", "90.00 EUR", "80.00 EUR") || rep.OK {
		t.Fatalf("over-limit finding: %q", rep.Findings)
	}
	// A break and a listing now, then a deposit under the lease renewed
	// before them, dated after its time (cut to a second): past the time
	// k1 had to learn of them.
	p, err := f.admin.Player(ctx, card)
	if err != nil || len(p.Leases) != 2 {
		t.Fatalf("account: %+v %v", p, err)
	}
	renewed := p.Leases[0].Lease.ID
	if _, err := f.admin.PlayerBreak(ctx, "desk", card, engine.Break7d); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.admin.ImportExclusions(ctx, "desk", []string{"CNI:A1"}); err != nil {
		t.Fatal(err)
	}
	f.exec(t, "UPDATE leases SET ttl = interval '1 second' WHERE id = $1", renewed)
	mv.push(t, "k1", deposit(card, renewed, 10, time.Now().Add(2*time.Minute)))
	rep = f.audit(t)
	if n := kinds(rep); n[central.FindingDuringBreak] != 1 || n[central.FindingWhileListed] != 1 {
		t.Fatalf("findings %v: %q", n, rep.Findings)
	}
}

// A kiosk of the fleet (the engine, on a memory store) on the central's
// accounts: the player logs in with card and PIN, deposits and plays
// within the lease, a deposit beyond what the limit leaves is refused,
// the player logs out; the central then holds the movements made under
// the lease and has it back, and the audit finds nothing on the account.
func TestPlayerKioskSession(t *testing.T) {
	f := newFleet(t, 1, 100, "k1")
	card := f.openPlayer(t, "A1", 2000, 1000, nil).Card
	cfg := engine.DefaultConfig()
	cfg.Fleet = &engine.FleetConfig{Central: f.kiosks["k1"], Kiosk: "k1", OfflineGrace: time.Hour, SyncEvery: 20 * time.Millisecond,
		HeartbeatEvery: 20 * time.Millisecond}
	svc, err := engine.NewService(ctx, memstore.New(), cfg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	a, err := svc.OpenSession(ctx, card, pin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Credit(ctx, a.Player, 1500, "desk"); err != nil {
		t.Fatal(err)
	}
	var limit *engine.LimitError
	if _, err := svc.Credit(ctx, a.Player, 600, "desk"); !errors.As(err, &limit) || limit.Limit != depositWeek {
		t.Fatalf("a deposit beyond deposit-week: %v", err)
	}
	if _, err := svc.Sell(ctx, engine.SellRequest{Player: a.Player, Stake: 50, Count: 4, Actor: "kiosk"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CloseSession(ctx, a.Player, engine.ActorPlayer); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		p, err := f.admin.Player(ctx, card)
		if err != nil {
			t.Fatal(err)
		}
		if f.usage(t, card, stakeWeek).Used == 200 && f.usage(t, card, depositWeek).Used == 1500 && len(p.Leases) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the central after the session: %+v, stakes %+v", p, f.usage(t, card, stakeWeek))
		}
	}
	if rep := f.audit(t); len(rep.PlayerFindings) != 0 || rep.Accounts != 1 {
		t.Fatalf("audit: %q", rep.Findings)
	}
}

// An attendant at any kiosk reads an account fleet-wide with the player's
// card and PIN (migrations/0009): what its limits count over every kiosk,
// its session at another kiosk, its funds at each, as the owner reads it.
// A wrong PIN is counted towards the lockout as at a login; a kiosk's role
// reads nothing of the view without the PIN; an account on a break is
// shown all the same; the look-up is in the player's log.
func TestPlayerLookup(t *testing.T) {
	f := newFleet(t, 0, 0, "k1", "k2")
	card := f.openPlayer(t, "A1", 20000, 10000, nil).Card
	_, l1 := f.login(t, "k1", card)
	now := time.Now()
	if r := f.movements().push(t, "k1", deposit(card, l1.ID, 5000, now), play(card, l1.ID, 200, 0, now)); r.Applied != 2 {
		t.Fatalf("push: %+v", r)
	}
	k2 := f.kiosks["k2"]
	var wrong *engine.PlayerPINError
	if _, err := k2.PlayerLookup(ctx, card, "1357", "Zoé"); !errors.As(err, &wrong) || wrong.Left != 4 {
		t.Fatalf("look-up with a wrong PIN: %v", err)
	}
	if _, err := k2.PlayerLookup(ctx, engine.NewCard(99), pin, "Zoé"); !errors.Is(err, engine.ErrUnknownCard) {
		t.Fatalf("look-up of an unknown card: %v", err)
	}
	got, err := k2.PlayerLookup(ctx, card, pin, "Zoé")
	if err != nil {
		t.Fatal(err)
	}
	stake := engine.LimitUsage{Limit: stakeWeek, Max: 10000, Used: 200, Outstanding: room(t, l1, engine.LimitStake).Room - 200}
	if got.Account.Player != string(card) || got.Account.PINFails != 0 || got.Account.PINHash != "" ||
		len(got.Usage) != 2 || got.Usage[1] != stake ||
		len(got.Leases) != 1 || got.Leases[0].Kiosk != "k1" || got.Leases[0].Staked != 200 ||
		len(got.Funds) != 1 || got.Funds[0] != (engine.KioskFunds{Kiosk: "k1", Balance: 4800}) {
		t.Fatalf("look-up at k2: %+v", got)
	}
	shown, err := f.admin.Player(ctx, card)
	if err != nil || !reflect.DeepEqual(shown, got) {
		t.Fatalf("the owner's view differs from the look-up's:\n%+v\n%+v (%v)", shown, got, err)
	}
	if _, err := f.admin.PlayerBreak(ctx, "desk", card, engine.Break7d); err != nil {
		t.Fatal(err)
	}
	if got, err := k2.PlayerLookup(ctx, card, pin, "Zoé"); err != nil || !got.Account.Break.Active(time.Now()) || got.Leases[0].Revoked != engine.RevokedBreak {
		t.Fatalf("look-up of an account on a break: %+v %v", got, err)
	}
	raw := f.as(t, "k2")
	for _, sql := range []string{
		fmt.Sprintf("SELECT sf_player_view('%s')", card),
		fmt.Sprintf("SELECT * FROM sf_player_leases('%s')", card),
		fmt.Sprintf("SELECT sf_player_pin(p, '%s', 'k2', now()) FROM players p", pin),
	} {
		if _, err := raw.Exec(ctx, sql); sqlState(err) != "42501" {
			t.Errorf("%s as k2: %v, want insufficient privilege", sql, err)
		}
	}
	if _, err := raw.Exec(ctx, "SELECT player_lookup($1, $2, '')", string(card), pin); err == nil {
		t.Error("a look-up naming nobody was answered")
	}
	owner, err := pgx.Connect(ctx, f.url)
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close(ctx)
	var looks int
	if err := owner.QueryRow(ctx, "SELECT count(*) FROM player_log WHERE player = $1 AND kind = 'looked-up' AND actor = 'Zoé' AND kiosk = 'k2'",
		string(card)).Scan(&looks); err != nil || looks != 2 {
		t.Fatalf("look-ups in the player's log: %d %v", looks, err)
	}
}
