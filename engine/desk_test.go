package engine_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/engine/memstore"
)

func TestPINRules(t *testing.T) {
	for _, c := range []struct {
		pin string
		ok  bool
	}{{"1234", true}, {"123456789012", true}, {"123", false}, {"1234567890123", false}, {"12a4", false}, {"12 34", false}, {"", false}} {
		if err := engine.CheckPIN(c.pin); (err == nil) != c.ok || err != nil && !errors.Is(err, engine.ErrPINRule) {
			t.Errorf("CheckPIN(%q) = %v, want ok=%v", c.pin, err, c.ok)
		}
	}
	if engine.LockoutDuration != 5*time.Minute || engine.MaxPINFailures != 5 {
		t.Error("lockout policy changed")
	}
}

func TestPINIsStoredAsASaltedSlowHash(t *testing.T) {
	s, st := newService(t, oneBlock)
	if err := s.Login(ctx, "operator", "1234"); !errors.Is(err, engine.ErrNoPIN) {
		t.Fatalf("login without PIN: %v", err)
	}
	if err := s.SetPIN(ctx, "cli", "12x4"); !errors.Is(err, engine.ErrPINRule) {
		t.Fatalf("bad PIN accepted: %v", err)
	}
	if err := s.SetPIN(ctx, "cli", "4821"); err != nil {
		t.Fatal(err)
	}
	first := setting(t, st, "operator.pin")
	if err := s.SetPIN(ctx, "cli", "4821"); err != nil {
		t.Fatal(err)
	}
	second := setting(t, st, "operator.pin")
	parts := strings.Split(second, "$")
	if len(parts) != 4 || parts[0] != "pbkdf2-sha256" || parts[1] != "1000" || len(parts[2]) != 32 || len(parts[3]) != 64 {
		t.Fatalf("stored hash %q", second)
	}
	if first == second || strings.Contains(second, "4821") {
		t.Fatalf("same PIN, same hash (no salt?) or PIN in clear: %q %q", first, second)
	}
	if err := s.Login(ctx, "operator", "4821"); err != nil {
		t.Fatalf("right PIN refused: %v", err)
	}
	var wrong *engine.PINError
	if err := s.Login(ctx, "operator", "4822"); !errors.As(err, &wrong) || wrong.Left != 4 || !errors.Is(err, engine.ErrBadPIN) {
		t.Fatalf("wrong PIN: %v", err)
	}
	if ok, err := s.PINSet(ctx); !ok || err != nil {
		t.Fatalf("PINSet %v %v", ok, err)
	}
}

func setting(t *testing.T, st *memstore.Store, name string) string {
	t.Helper()
	var v []byte
	st.View(ctx, func(tx engine.ReadTx) error { v, _, _ = tx.Setting(name); return nil })
	return string(v)
}

// Five wrong PINs lock for five minutes, and a new Service on the same
// store (a restart) is still locked.
func TestLockoutSurvivesRestart(t *testing.T) {
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	cfg := oneBlock
	cfg.Now = func() time.Time { return now }
	s, st := newService(t, cfg)
	if err := s.SetPIN(ctx, "cli", "4821"); err != nil {
		t.Fatal(err)
	}
	for i := range engine.MaxPINFailures {
		err := s.Login(ctx, "operator", "0000")
		if i < engine.MaxPINFailures-1 && (!errors.Is(err, engine.ErrBadPIN) || errors.Is(err, engine.ErrLocked)) {
			t.Fatalf("failure %d: %v", i+1, err)
		}
		if i == engine.MaxPINFailures-1 && !errors.Is(err, engine.ErrLocked) {
			t.Fatalf("fifth failure did not lock: %v", err)
		}
	}
	restarted, err := engine.NewService(ctx, st, cfg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer restarted.Close()
	now = now.Add(2 * time.Minute)
	err = restarted.Login(ctx, "operator", "4821") // the right PIN, but locked
	var locked *engine.LockedError
	if !errors.As(err, &locked) || locked.Remaining != 3*time.Minute || !locked.Until.Equal(now.Add(3*time.Minute)) {
		t.Fatalf("after restart: %v, want locked 3 more minutes", err)
	}
	now = now.Add(3*time.Minute + time.Second)
	if err := restarted.Login(ctx, "operator", "4821"); err != nil {
		t.Fatalf("after the lockout: %v", err)
	}
	events, err := restarted.OperatorLog(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range events {
		actions = append(actions, e.Action)
	}
	want := "login login-locked locked pin-failed pin-failed pin-failed pin-failed pin-failed pin-set"
	if got := strings.Join(actions, " "); got != want {
		t.Fatalf("operator log newest first:\n got %s\nwant %s", got, want)
	}
	if events[0].Seq != uint64(len(events)) || events[0].Actor != "operator" {
		t.Fatalf("newest event %+v", events[0])
	}
	if short, _ := restarted.OperatorLog(ctx, 2); len(short) != 2 || short[0].Seq != events[0].Seq {
		t.Fatalf("limit: %+v", short)
	}
}

// An out-of-service terminal still lets the operator in and logs it.
func TestLoginWorksOutOfService(t *testing.T) {
	j := &memstore.Journal{}
	s := open(t, memstore.New(), j)
	if err := s.SetPIN(ctx, "cli", "4821"); err != nil {
		t.Fatal(err)
	}
	j.Fail = errors.New("no space left on device")
	if _, err := s.Credit(ctx, "carol", 1_000, "test"); err == nil || s.Health() == nil {
		t.Fatalf("journal failure did not stop the terminal: %v", err)
	}
	if err := s.Login(ctx, "operator", "4821"); err != nil {
		t.Fatalf("login out of service: %v", err)
	}
	if err := s.RecordOperator(ctx, "operator", "audit", "checked"); err != nil {
		t.Fatal(err)
	}
	if ev, _ := s.OperatorLog(ctx, 1); len(ev) != 1 || ev[0].Action != "audit" {
		t.Fatalf("log out of service: %v", ev)
	}
}

func TestOperatorFundsAreLedgeredAndLogged(t *testing.T) {
	s, _ := newService(t, oneBlock)
	l, err := s.OperatorCredit(ctx, "operator", "kiosk7", 2000)
	if err != nil || l.Balance != 2000 || l.Actor != "operator" || l.Kind != engine.LedgerCredit {
		t.Fatalf("credit: %+v %v", l, err)
	}
	if _, err := s.OperatorPayout(ctx, "operator", "kiosk7", 2001); !errors.Is(err, engine.ErrInsufficientFunds) {
		t.Fatalf("payout beyond the balance: %v", err)
	}
	l, err = s.OperatorPayout(ctx, "operator", "kiosk7", 750)
	if err != nil || l.Balance != 1250 || l.Kind != engine.LedgerPayout {
		t.Fatalf("payout: %+v %v", l, err)
	}
	events, _ := s.OperatorLog(ctx, 10)
	if len(events) != 3 || events[0].Action != "payout" || events[1].Action != "payout-refused" || events[2].Action != "credit" ||
		!strings.Contains(events[0].Detail, "kiosk7") || !strings.Contains(events[0].Detail, "7.50") {
		t.Fatalf("log: %v", events)
	}
	if p, _ := s.Players(ctx); len(p) != 1 || p[0] != "kiosk7" {
		t.Fatalf("players %v", p)
	}
	mustAudit(t, s)
}

func TestBlockReport(t *testing.T) {
	s, st := newService(t, oneBlock)
	if _, err := s.Credit(ctx, engine.DemoPlayer, 100_000, "test"); err != nil {
		t.Fatal(err)
	}
	sell(t, s, engine.DemoPlayer, 50, 400)
	sell(t, s, engine.DemoPlayer, 200, 7)
	rep, err := s.BlockReport(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep) != 3 {
		t.Fatalf("%d blocks, want 3", len(rep))
	}
	served := map[engine.Cents]uint32{50: 400, 100: 0, 200: 7}
	for _, b := range rep {
		if b.Served != served[b.Ref.Stake] || b.Left != b.Size-b.Served || b.Sales != engine.Cents(b.Served)*b.Ref.Stake || !b.Open {
			t.Errorf("block %s: %+v", b.Ref, b)
		}
		// Nothing tells what is left in a block on sale.
		if b.Paid != 0 || b.Tally != (engine.Tally{}) || b.Seed != (engine.Seed{}) || b.Ratio() != 0 || b.Exhausted() {
			t.Errorf("block %s on sale discloses paid %s, tally %v, seed or ratio %v", b.Ref, b.Paid, b.Tally, b.Ratio())
		}
	}
	if r := engine.TablePayoutRatio(); r < 0.6999 || r > 0.7001 {
		t.Errorf("table ratio %v", r)
	}
	// Sold out, the block's closing figures are the règlement's table.
	nearlySold(t, st, s, 200, 2)
	s, _ = engine.NewService(ctx, st, oneBlock, zerolog.Nop())
	defer s.Close()
	sell(t, s, engine.DemoPlayer, 200, 2)
	rep, err = s.BlockReport(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range rep {
		if b.Ref.Stake != 200 {
			continue
		}
		if !b.Exhausted() || b.Open || b.Tally != engine.TableTally() || b.Paid != 1_190_000_00 || b.Seed == (engine.Seed{}) ||
			b.Ratio() < 0.6999 || b.Ratio() > 0.7001 {
			t.Errorf("sold-out block %s: %+v, ratio %v", b.Ref, b, b.Ratio())
		}
	}
}
