package engine_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/engine/memstore"
)

// clock is a test's wall clock, moved by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *clock                   { return &clock{t: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)} }
func eur(n int64) engine.Cents           { return engine.Cents(n * 100) }
func limits(dep, stake int64) engine.Limits {
	return engine.Limits{{Kind: engine.LimitDeposit, Window: engine.WindowWeek}: eur(dep), {Kind: engine.LimitStake, Window: engine.WindowWeek}: eur(stake)}
}

var (
	stakeWeek   = engine.LimitKey{Kind: engine.LimitStake, Window: engine.WindowWeek}
	depositWeek = engine.LimitKey{Kind: engine.LimitDeposit, Window: engine.WindowWeek}
	lossDay     = engine.LimitKey{Kind: engine.LimitLoss, Window: engine.WindowDay}
)

// protected is a lone kiosk on a memstore with a journal and the clock c.
func protected(t *testing.T, c *clock, p engine.Protection, st *memstore.Store, j *memstore.Journal) *engine.Service {
	t.Helper()
	cfg := oneBlock
	cfg.Now, cfg.Protection, cfg.Journal = c.now, p, j
	s, err := engine.NewService(ctx, st, cfg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func holder(doc string, born time.Time) engine.Identity {
	return engine.Identity{Holder: "Camille Martin", Born: born, DocType: "CNI", DocNumber: doc}
}

var adult = time.Date(1990, 5, 17, 0, 0, 0, 0, time.UTC)

func openAccount(t *testing.T, s *engine.Service, doc string, l engine.Limits) engine.Account {
	t.Helper()
	a, err := s.Open(ctx, "operator", engine.OpenRequest{Identity: holder(doc, adult), Limits: l, PIN: "2580"})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestOpeningRefusesWhatTheRulesRefuse(t *testing.T) {
	c := newClock()
	s := protected(t, c, engine.Protection{}, pinnedStore(t), &memstore.Journal{})
	minor := time.Date(2009, 12, 3, 0, 0, 0, 0, time.UTC) // 18 tomorrow
	cases := []struct {
		name string
		req  engine.OpenRequest
		want error
	}{
		{"under 18", engine.OpenRequest{Identity: holder("A1", minor), Limits: limits(100, 100), PIN: "2580"}, engine.ErrBadIdentity},
		{"born to come", engine.OpenRequest{Identity: holder("A2", c.t.AddDate(0, 0, 1)), Limits: limits(100, 100), PIN: "2580"}, engine.ErrBadIdentity},
		{"no stake limit", engine.OpenRequest{Identity: holder("A3", adult), Limits: engine.Limits{depositWeek: 100}, PIN: "2580"}, engine.ErrLimitRequired},
		{"weak PIN", engine.OpenRequest{Identity: holder("A4", adult), Limits: limits(100, 100), PIN: "1234"}, engine.ErrPlayerPINRule},
		{"no name", engine.OpenRequest{Identity: engine.Identity{Born: adult, DocType: "CNI", DocNumber: "A5"}, Limits: limits(100, 100), PIN: "2580"}, engine.ErrBadIdentity},
	}
	for _, tc := range cases {
		if _, err := s.Open(ctx, "operator", tc.req); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	for _, bad := range []string{"2001-02-30", "2001-13-01", "31/02/2001", "1850-01-01", "2030-01-01", "hier"} {
		if _, err := engine.ParseBirthDate(bad, c.t); !errors.Is(err, engine.ErrBadIdentity) {
			t.Errorf("birth date %q: %v", bad, err)
		}
	}
	if d, err := engine.ParseBirthDate("17/05/1990", c.t); err != nil || !d.Equal(adult) {
		t.Errorf("17/05/1990: %s %v", d, err)
	}
	a := openAccount(t, s, "X4RTBPFW4", limits(100, 100))
	if _, err := s.Open(ctx, "operator", engine.OpenRequest{Identity: holder("x4rt bpfw4", adult), Limits: limits(1, 1), PIN: "2580"}); !errors.Is(err, engine.ErrBadIdentity) {
		t.Errorf("a second account on one document: %v", err)
	}
	if _, err := engine.ParseCard(string(a.Card)); err != nil {
		t.Errorf("card %s: %v", a.Card, err)
	}
	typo := []byte(a.Card)
	typo[3] = '0' + (typo[3]-'0'+1)%10
	if _, err := engine.ParseCard(string(typo)); !errors.Is(err, engine.ErrBadCard) {
		t.Errorf("card with a typo %s: %v", typo, err)
	}
	if _, err := s.Credit(ctx, "alice", 100, "test"); !errors.Is(err, engine.ErrNoAccount) {
		t.Errorf("deposit without an account: %v", err)
	}
	mustAudit(t, s)
}

func TestWrongPINsLockTheCardAcrossRestarts(t *testing.T) {
	c := newClock()
	st, j := pinnedStore(t), &memstore.Journal{}
	s := protected(t, c, engine.Protection{}, st, j)
	a := openAccount(t, s, "P1", limits(100, 100))
	for i := 1; i < 5; i++ {
		var pe *engine.PlayerPINError
		if _, err := s.OpenSession(ctx, a.Card, "9999"); !errors.As(err, &pe) || pe.Left != 5-i {
			t.Fatalf("wrong PIN %d: %v", i, err)
		}
	}
	s.Close()
	s = protected(t, c, engine.Protection{}, st, j)
	if _, err := s.OpenSession(ctx, a.Card, "9999"); !errors.Is(err, engine.ErrCardLocked) {
		t.Fatalf("fifth wrong PIN after a restart: %v", err)
	}
	if _, err := s.OpenSession(ctx, a.Card, "2580"); !errors.Is(err, engine.ErrCardLocked) {
		t.Fatalf("right PIN on a locked card: %v", err)
	}
	if _, err := s.UnlockCard(ctx, "operator", a.Player, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.OpenSession(ctx, a.Card, "2580"); err != nil {
		t.Fatalf("after unlocking: %v", err)
	}
	mustAudit(t, s)
}

func TestLimitsAtOneCentOverAndFarOver(t *testing.T) {
	c := newClock()
	s := protected(t, c, engine.Protection{}, pinnedStore(t), &memstore.Journal{})
	a := openAccount(t, s, "L1", limits(50, 3))
	if _, err := s.Credit(ctx, a.Player, eur(50)+1, "test"); !errors.Is(err, engine.ErrLimit) {
		t.Fatalf("deposit one cent over: %v", err)
	}
	if _, err := s.Credit(ctx, a.Player, eur(5000), "test"); !errors.Is(err, engine.ErrLimit) {
		t.Fatalf("deposit far over: %v", err)
	}
	if _, err := s.Credit(ctx, a.Player, eur(50), "test"); err != nil {
		t.Fatalf("deposit exactly at the limit: %v", err)
	}
	if _, err := s.Sell(ctx, engine.SellRequest{Player: a.Player, Stake: 100, Count: 1}); !errors.Is(err, engine.ErrNoSession) {
		t.Fatalf("sale without a session: %v", err)
	}
	if _, err := s.OpenSession(ctx, a.Card, "2580"); err != nil {
		t.Fatal(err)
	}
	first := c.t
	c.advance(time.Minute)
	sales, err := s.Sell(ctx, engine.SellRequest{Player: a.Player, Stake: 100, Count: 5, Picks: picks})
	if err != nil || len(sales) != 3 {
		t.Fatalf("batch of 5 under a 3 € stake limit: %d sold, %v", len(sales), err)
	}
	before, _ := s.Wallet(ctx, a.Player)
	_, err = s.Sell(ctx, engine.SellRequest{Player: a.Player, Stake: 50, Count: 1})
	var le *engine.LimitError
	if !errors.As(err, &le) || le.Limit != stakeWeek || le.Used != eur(3) || le.Max != eur(3) {
		t.Fatalf("sale over the stake limit: %v", err)
	}
	if free := first.Add(time.Minute + 7*24*time.Hour); le.Frees.Before(free) || le.Frees.After(free.Add(time.Hour)) {
		t.Fatalf("room frees %s, want about %s", le.Frees, free)
	}
	if after, _ := s.Wallet(ctx, a.Player); after != before {
		t.Fatal("a refused sale moved money")
	}
	c.t = le.Frees
	if _, err := s.RealityCheck(ctx, a.Player); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sell(ctx, engine.SellRequest{Player: a.Player, Stake: 50, Count: 1, Picks: picks}); err != nil {
		t.Fatalf("sale once room freed: %v", err)
	}
	mustAudit(t, s)
}

func TestIncreasesWaitTheCoolingOffEvenWhenTheClockGoesBack(t *testing.T) {
	c := newClock()
	s := protected(t, c, engine.Protection{}, pinnedStore(t), &memstore.Journal{})
	a := openAccount(t, s, "C1", limits(50, 20))
	ch, err := s.SetLimit(ctx, "player", a.Player, stakeWeek, eur(200))
	if err != nil || !near(ch.Effective, c.t.Add(48*time.Hour)) {
		t.Fatalf("increase: %+v %v", ch, err)
	}
	var pe *engine.PendingError
	if _, err := s.SetLimit(ctx, "player", a.Player, stakeWeek, eur(300)); !errors.As(err, &pe) || !pe.Pending.Effective.Equal(ch.Effective) {
		t.Fatalf("a second increase before the first: %v", err)
	}
	if _, err := s.SetLimit(ctx, "player", a.Player, stakeWeek, 0); !errors.Is(err, engine.ErrLimitRequired) {
		t.Fatalf("removing a mandatory limit: %v", err)
	}
	c.advance(47 * time.Hour)
	if _, err := s.SetLimit(ctx, "player", a.Player, depositWeek, eur(40)); err != nil {
		t.Fatal(err)
	}
	seen := c.t
	c.advance(-72 * time.Hour) // the clock goes back: the account's time does not
	if dec, err := s.SetLimit(ctx, "player", a.Player, depositWeek, eur(10)); err != nil || !near(dec.Requested, seen) {
		t.Fatalf("decrease while the clock is back: %+v %v", dec, err)
	}
	if got, _ := s.Account(ctx, a.Player); got.Limits[stakeWeek] != eur(20) || got.Limits[depositWeek] != eur(10) {
		t.Fatalf("47 h after the increase: %v", got.Limits)
	}
	c.t = ch.Effective
	if got, _ := s.Account(ctx, a.Player); got.Limits[stakeWeek] != eur(200) {
		t.Fatalf("48 h after the increase: %v", got.Limits)
	}
	mustAudit(t, s)
}

func TestBreaksAndTheExclusionList(t *testing.T) {
	c := newClock()
	s := protected(t, c, engine.Protection{}, pinnedStore(t), &memstore.Journal{})
	a := openAccount(t, s, "B1", limits(50, 20))
	if _, err := s.Credit(ctx, a.Player, eur(10), "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.OpenSession(ctx, a.Card, "2580"); err != nil {
		t.Fatal(err)
	}
	e, err := s.TakeBreak(ctx, "player", a.Player, engine.Break7d)
	if err != nil || !near(e.Until, c.t.AddDate(0, 0, 7)) {
		t.Fatalf("break: %+v %v", e, err)
	}
	if _, err := s.TakeBreak(ctx, "player", a.Player, engine.Break24h); !errors.Is(err, engine.ErrBreakShorter) {
		t.Fatalf("shorter break: %v", err)
	}
	var ee *engine.ExcludedError
	if _, err := s.OpenSession(ctx, a.Card, "2580"); !errors.As(err, &ee) || !ee.Break.Until.Equal(e.Until) {
		t.Fatalf("login on a break: %v", err)
	}
	if _, err := s.Sell(ctx, engine.SellRequest{Player: a.Player, Stake: 50, Count: 1}); !errors.Is(err, engine.ErrExcluded) {
		t.Fatalf("sale on a break: %v", err)
	}
	if _, err := s.Credit(ctx, a.Player, 100, "test"); !errors.Is(err, engine.ErrExcluded) {
		t.Fatalf("deposit on a break: %v", err)
	}
	if _, err := s.OperatorPayout(ctx, "operator", a.Player, eur(10)); err != nil {
		t.Fatalf("payout on a break: %v", err)
	}
	c.advance(7*24*time.Hour + time.Second)
	if _, err := s.OpenSession(ctx, a.Card, "2580"); err != nil {
		t.Fatalf("login after the break: %v", err)
	}
	keys, err := engine.ParseExclusionList("# national file\nid_type,id_number\nCNI,B1\npasseport, 12AB 345\n")
	if err != nil || len(keys) != 2 || keys[0] != "CNI:B1" || keys[1] != "PASSEPORT:12AB345" {
		t.Fatalf("exclusion list: %q %v", keys, err)
	}
	added, closed, err := s.ImportExclusions(ctx, "operator", keys)
	if err != nil || added != 2 || len(closed) != 1 {
		t.Fatalf("import: %d added, %v closed, %v", added, closed, err)
	}
	if added, _, _ := s.ImportExclusions(ctx, "operator", keys); added != 0 {
		t.Fatalf("import again added %d", added)
	}
	if _, err := s.OpenSession(ctx, a.Card, "2580"); !errors.Is(err, engine.ErrListed) {
		t.Fatalf("login of a listed holder: %v", err)
	}
	if _, err := s.Open(ctx, "operator", engine.OpenRequest{Identity: engine.Identity{Holder: "X", Born: adult, DocType: "Passeport", DocNumber: "12ab345"}, Limits: limits(1, 1), PIN: "2580"}); !errors.Is(err, engine.ErrListed) {
		t.Fatalf("opening for a listed identity: %v", err)
	}
	mustAudit(t, s)
}

func TestRealityCheckPausesPlay(t *testing.T) {
	c := newClock()
	s := protected(t, c, engine.Protection{}, pinnedStore(t), &memstore.Journal{})
	a := openAccount(t, s, "R1", limits(50, 50))
	s.Credit(ctx, a.Player, eur(20), "test")
	s.OpenSession(ctx, a.Card, "2580")
	sell(t, s, a.Player, 100, 2)
	c.advance(time.Hour + time.Second)
	var re *engine.RealityCheckError
	if _, err := s.Sell(ctx, engine.SellRequest{Player: a.Player, Stake: 100, Count: 1}); !errors.As(err, &re) || re.Session.Staked != eur(2) {
		t.Fatalf("sale after an hour: %v", err)
	}
	if _, err := s.RealityCheck(ctx, a.Player); err != nil {
		t.Fatal(err)
	}
	sell(t, s, a.Player, 100, 1)
	mustAudit(t, s)
}

// prizeAt sells units of stake until one wins at least min; it returns it.
func prizeAt(t *testing.T, s *engine.Service, player string, stake, min engine.Cents) engine.Sale {
	t.Helper()
	for i := 0; i < 500; i++ {
		sales, err := s.Sell(ctx, engine.SellRequest{Player: player, Stake: stake, Count: 1, Picks: picks})
		if err != nil {
			t.Fatal(err)
		}
		if sales[0].Prize() >= min {
			return sales[0]
		}
	}
	t.Fatalf("no prize of %s in 500 units", min)
	return engine.Sale{}
}

func TestLargePrizesAreHeldUntilPaidByHand(t *testing.T) {
	c := newClock()
	p := engine.DefaultProtection()
	p.PayoutThreshold, p.HandpayThreshold = 500, 1000 // 5 € set aside, 10 € paid by hand
	s := protected(t, c, p, pinnedStore(t), &memstore.Journal{})
	a := openAccount(t, s, "H1", limits(500, 1000))
	s.Credit(ctx, a.Player, eur(400), "test")
	s.OpenSession(ctx, a.Card, "2580")
	won := prizeAt(t, s, a.Player, 200, 1000)
	acct, _ := s.Account(ctx, a.Player)
	if len(acct.Held) != 1 || acct.Held[0].Ticket != won.Ticket {
		t.Fatalf("held: %+v", acct.Held)
	}
	if _, err := s.Sell(ctx, engine.SellRequest{Player: a.Player, Stake: 50, Count: 1}); !errors.Is(err, engine.ErrPrizeHeld) {
		t.Fatalf("sale while a prize is held: %v", err)
	}
	w, _ := s.Wallet(ctx, a.Player)
	if _, err := s.OperatorPayout(ctx, "operator", a.Player, w.Balance); !errors.Is(err, engine.ErrInsufficientFunds) {
		t.Fatalf("paying out the held prize as cash: %v", err)
	}
	if _, err := s.PayHeld(ctx, "agent-1", a.Player, won.Ticket, "virement", "VIR-1"); !errors.Is(err, engine.ErrIdentityNotChecked) {
		t.Fatalf("hand-pay without identity: %v", err)
	}
	if _, err := s.CheckIdentity(ctx, "agent-1", a.Player, won.Ticket, "CNI H1"); err != nil {
		t.Fatal(err)
	}
	l, err := s.PayHeld(ctx, "agent-1", a.Player, won.Ticket, "virement", "VIR-1")
	if err != nil || l.Debit != won.Prize() {
		t.Fatalf("hand-pay: %+v %v", l, err)
	}
	reg, _ := s.Register(ctx)
	kinds := map[engine.AccountKind]int{}
	for _, r := range reg {
		kinds[r.Record.Kind]++
		if r.Holder != "Camille Martin" {
			t.Fatalf("register line without its holder: %+v", r)
		}
	}
	if kinds[engine.AccHeld] != 1 || kinds[engine.AccIdentityChecked] != 1 || kinds[engine.AccHandPaid] != 1 {
		t.Fatalf("register: %v", kinds)
	}
	sell(t, s, a.Player, 50, 1) // play is unlocked
	mustAudit(t, s)
}

func TestFormerWalletsAreCompletedBeforePlay(t *testing.T) {
	c := newClock()
	st := pinnedStore(t)
	l := engine.LedgerEntry{Player: "alice", Seq: 1, Time: c.t, Kind: engine.LedgerCredit, Credit: 700, Balance: 700, Actor: "cli"}
	st.Update(ctx, func(tx engine.Tx) error { // a wallet from before accounts
		if err := tx.PutLedger(l); err != nil {
			return err
		}
		return tx.PutWallet(engine.Wallet{Player: "alice", Balance: 700, Seq: 1, Head: l.Hash()})
	})
	j := &memstore.Journal{}
	j.Append(engine.JournalEntry{Seq: 1, Time: c.t, Ledger: []engine.LedgerEntry{l}})
	st.Update(ctx, func(tx engine.Tx) error { return tx.PutJournal(engine.MarkOf(mustLast(j))) })
	s := protected(t, c, engine.Protection{}, st, j)
	if _, err := s.Credit(ctx, "alice", 100, "test"); !errors.Is(err, engine.ErrAccountIncomplete) {
		t.Fatalf("deposit on a former wallet: %v", err)
	}
	if _, err := s.Payout(ctx, "alice", 200, "test"); err != nil {
		t.Fatalf("payout of a former wallet: %v", err)
	}
	list, _ := s.ListAccounts(ctx)
	if len(list) != 1 || list[0].Complete {
		t.Fatalf("accounts: %+v", list)
	}
	a, err := s.Complete(ctx, "operator", "alice", engine.OpenRequest{Identity: holder("F1", adult), Limits: limits(100, 100), PIN: "2580"})
	if err != nil || a.Player != "alice" {
		t.Fatalf("complete: %+v %v", a, err)
	}
	if _, err := s.Credit(ctx, "alice", 100, "test"); err != nil {
		t.Fatalf("deposit once completed: %v", err)
	}
	if bal, _ := s.Balance(ctx, "alice"); bal != 600 {
		t.Fatalf("balance %s", bal)
	}
	mustAudit(t, s)
}

// Thousands of random operations against a fake clock: after each, no limit
// in force is broken by the exact rolling sums of the ledger; the audit
// agrees at the end, and finds a breach slipped into the store, and its
// record edited to hide it.
func TestRandomPlayNeverBreaksALimit(t *testing.T) {
	c := newClock()
	st, j := pinnedStore(t), &memstore.Journal{}
	s := protected(t, c, engine.Protection{}, st, j)
	rng := rand.New(rand.NewPCG(7, 30))
	a := openAccount(t, s, "Z1", engine.Limits{depositWeek: eur(400), stakeWeek: eur(200), lossDay: eur(30),
		{Kind: engine.LimitStake, Window: engine.WindowDay}: eur(25)})
	ops := 3000
	if testing.Short() {
		ops = 600
	}
	var ledger []engine.LedgerEntry
	refused := map[string]int{}
	for i := 0; i < ops; i++ {
		switch r := rng.IntN(100); {
		case r < 50:
			_, err := s.Sell(ctx, engine.SellRequest{Player: a.Player, Stake: engine.Stakes[rng.IntN(3)], Count: 1 + rng.IntN(3), Picks: picks})
			if err != nil {
				refused[fmt.Sprintf("%T %v", err, errors.Unwrap(err))]++
			}
		case r < 62:
			s.Credit(ctx, a.Player, engine.Cents(500+rng.IntN(3000)), "test")
		case r < 65:
			s.OpenSession(ctx, a.Card, "2580")
		case r < 75:
			s.RealityCheck(ctx, a.Player)
		case r < 79:
			k := engine.LimitKeys[rng.IntN(len(engine.LimitKeys))]
			s.SetLimit(ctx, "player", a.Player, k, engine.Cents(rng.IntN(50_000)))
		case r < 80:
			if rng.IntN(20) == 0 {
				s.TakeBreak(ctx, "player", a.Player, engine.Break24h)
			}
		case r < 81:
			w, _ := s.Wallet(ctx, a.Player)
			if w.Balance > 0 {
				s.OperatorPayout(ctx, "operator", a.Player, engine.Cents(1+rng.IntN(int(w.Balance))))
			}
		case r < 97:
			c.advance(time.Duration(rng.IntN(300)) * time.Second)
		default:
			c.advance(time.Duration(rng.IntN(24*60)) * time.Minute)
		}
		entries, err := s.LedgerPage(ctx, a.Player, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) > len(ledger) {
			ledger = reverse(entries)
			checkLimits(t, s, a.Player, ledger)
		}
	}
	if len(ledger) < 100 {
		t.Fatalf("only %d ledger entries in %d operations; sales refused: %v", len(ledger), ops, refused)
	}
	mustAudit(t, s)

	// A deposit over the weekly limit slipped into the store and journal.
	w, _ := s.Wallet(ctx, a.Player)
	l := engine.LedgerEntry{Player: a.Player, Seq: w.Seq + 1, Time: c.t, Kind: engine.LedgerCredit, Credit: eur(500), Balance: w.Balance + eur(500), Actor: "x", Prev: w.Head}
	st.Update(ctx, func(tx engine.Tx) error {
		tx.PutLedger(l)
		w.Balance, w.Seq, w.Head = l.Balance, l.Seq, l.Hash()
		return tx.PutWallet(w)
	})
	last, _ := j.Last()
	j.Append(engine.JournalEntry{Seq: last.Seq + 1, Prev: last.Hash(), Time: c.t, Ledger: []engine.LedgerEntry{l}})
	st.Update(ctx, func(tx engine.Tx) error { return tx.PutJournal(engine.MarkOf(mustLast(j))) })
	rep, err := s.Audit(ctx, nil)
	if err != nil || !hasFinding(rep, "over its limit") {
		t.Fatalf("breach not found: %v %q", err, rep.Findings)
	}
	// The limit record edited to hide it: the chain, and the journal, say so.
	st.Update(ctx, func(tx engine.Tx) error {
		v, _, _ := tx.Setting("acctlog/0000000000000002")
		var r engine.AccountRecord
		r.UnmarshalBinary(v)
		r.Amount = eur(5000)
		b, _ := r.MarshalBinary()
		return tx.PutSetting("acctlog/0000000000000002", b)
	})
	rep, _ = s.Audit(ctx, nil)
	if !hasFinding(rep, "account log") {
		t.Fatalf("edited limit record not found: %q", rep.Findings)
	}
}

// near: the account's time is the clock's, or a few nanoseconds after
// when the clock stood still.
func near(got, want time.Time) bool { return !got.Before(want) && got.Sub(want) < time.Millisecond }

func mustLast(j *memstore.Journal) engine.JournalEntry { e, _ := j.Last(); return e }

func reverse(in []engine.LedgerEntry) []engine.LedgerEntry {
	out := make([]engine.LedgerEntry, len(in))
	for i, e := range in {
		out[len(in)-1-i] = e
	}
	return out
}

// checkLimits recomputes every rolling window exactly at the last entry.
func checkLimits(t *testing.T, s *engine.Service, player string, ledger []engine.LedgerEntry) {
	t.Helper()
	acct, err := s.Account(ctx, player)
	if err != nil {
		t.Fatal(err)
	}
	last := ledger[len(ledger)-1]
	if last.Kind == engine.LedgerPayout {
		return
	}
	for _, k := range engine.LimitKeys {
		max, ok := acct.Limit(k, last.Time)
		if !ok || (k.Kind == engine.LimitDeposit) != (last.Kind == engine.LedgerCredit) {
			continue
		}
		var sum engine.Cents
		for _, e := range ledger {
			if !e.Time.After(last.Time.Add(-k.Window.Duration())) {
				continue
			}
			switch {
			case k.Kind == engine.LimitDeposit && e.Kind == engine.LedgerCredit:
				sum += e.Credit
			case k.Kind == engine.LimitStake && e.Kind == engine.LedgerSale:
				sum += e.Debit
			case k.Kind == engine.LimitLoss && e.Kind == engine.LedgerSale:
				sum += e.Debit
				if e != last {
					sum -= e.Credit
				}
			}
		}
		if sum > max {
			t.Fatalf("entry %d (%s at %s): %s counts %s, limit %s", last.Seq, last.Kind, last.Time, k, sum, max)
		}
	}
}

func hasFinding(rep engine.AuditReport, part string) bool {
	for _, f := range rep.Findings {
		if strings.Contains(f, part) {
			return true
		}
	}
	return false
}

// Everything of the accounts (the log, the limits pending, the break, a
// held prize, the card's lockout count) comes back from the journal into
// an empty store; the audit passes and the protections hold as before.
func TestAccountsComeBackFromTheJournal(t *testing.T) {
	c := newClock()
	p := engine.DefaultProtection()
	p.PayoutThreshold, p.HandpayThreshold = 500, 1000
	j := &memstore.Journal{}
	s := protected(t, c, p, pinnedStore(t), j)
	a := openAccount(t, s, "J1", limits(500, 1000))
	b := openAccount(t, s, "J2", limits(50, 50))
	s.Credit(ctx, a.Player, eur(300), "test")
	s.OpenSession(ctx, a.Card, "2580")
	won := prizeAt(t, s, a.Player, 200, 1000)
	s.SetLimit(ctx, "player", a.Player, stakeWeek, eur(2000))
	s.TakeBreak(ctx, "player", b.Player, engine.Break30d)
	s.OpenSession(ctx, b.Card, "0000")
	s.ImportExclusions(ctx, "operator", []string{"CNI:SOMEONE"})
	wantA, _ := s.Account(ctx, a.Player)
	wantLog, _ := s.AccountLog(ctx, "")
	s.Close()

	fresh := memstore.New()
	if _, err := engine.Recover(ctx, j, fresh, zerolog.Nop()); err != nil {
		t.Fatal(err)
	}
	r := protected(t, c, p, fresh, j)
	mustAudit(t, r)
	gotA, _ := r.Account(ctx, a.Player)
	gotLog, _ := r.AccountLog(ctx, "")
	if len(gotLog) != len(wantLog) || gotLog[len(gotLog)-1] != wantLog[len(wantLog)-1] {
		t.Fatalf("account log: %d records, want %d", len(gotLog), len(wantLog))
	}
	if len(gotA.Held) != 1 || gotA.Held[0].Ticket != won.Ticket || len(gotA.Pending) != 1 || gotA.Session != wantA.Session {
		t.Fatalf("account after recovery: %+v, want %+v", gotA, wantA)
	}
	if _, err := r.Sell(ctx, engine.SellRequest{Player: a.Player, Stake: 50, Count: 1}); !errors.Is(err, engine.ErrPrizeHeld) {
		t.Fatalf("sale with a prize held, after recovery: %v", err)
	}
	var pe *engine.PlayerPINError
	if _, err := r.OpenSession(ctx, b.Card, "0000"); !errors.As(err, &pe) || pe.Left != 3 {
		t.Fatalf("the card's wrong PINs after recovery: %v", err)
	}
}

// A kiosk stopped (a crash, a power cut) while the reality check waits: at
// the next start the check is still due on the session, the sale refused
// moved nothing, and nothing is doubled; a new login starts a new session.
func TestRealityCheckSurvivesARestart(t *testing.T) {
	c := newClock()
	st, j := pinnedStore(t), &memstore.Journal{}
	s := protected(t, c, engine.Protection{}, st, j)
	a := openAccount(t, s, "K1", limits(50, 50))
	s.Credit(ctx, a.Player, eur(20), "test")
	s.OpenSession(ctx, a.Card, "2580")
	sell(t, s, a.Player, 100, 3)
	c.advance(time.Hour + time.Second)
	if _, err := s.Sell(ctx, engine.SellRequest{Player: a.Player, Stake: 100, Count: 1}); !errors.Is(err, engine.ErrRealityCheck) {
		t.Fatalf("sale after an hour: %v", err)
	}
	before, _ := s.Wallet(ctx, a.Player)
	s.Close()
	r := protected(t, c, engine.Protection{}, st, j)
	var re *engine.RealityCheckError
	if _, err := r.Sell(ctx, engine.SellRequest{Player: a.Player, Stake: 100, Count: 1}); !errors.As(err, &re) || re.Session.Staked != eur(3) {
		t.Fatalf("sale after the restart: %v", err)
	}
	if after, _ := r.Wallet(ctx, a.Player); after != before {
		t.Fatal("the refused sales moved money")
	}
	if _, err := r.OpenSession(ctx, a.Card, "2580"); err != nil {
		t.Fatal(err)
	}
	sell(t, r, a.Player, 100, 1)
	log, _ := r.AccountLog(ctx, a.Player)
	var starts, ends int
	for _, rec := range log {
		starts += map[bool]int{true: 1}[rec.Kind == engine.AccSessionStart]
		ends += map[bool]int{true: 1}[rec.Kind == engine.AccSessionEnd]
	}
	if starts != 2 || ends != 1 {
		t.Fatalf("%d sessions started, %d ended", starts, ends)
	}
	mustAudit(t, r)
}
