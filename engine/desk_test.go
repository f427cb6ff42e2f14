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
		pin  string
		want engine.PINProblem // 0: accepted
	}{
		{"482915", 0}, {"739201", 0}, {"123457", 0}, {"100000", 0}, {"482915730164", 0},
		{"4821", engine.PINLength}, {"1234", engine.PINLength}, {"0000", engine.PINLength}, {"48215", engine.PINLength},
		{"", engine.PINLength}, {"4829157301645", engine.PINLength},
		{"48a915", engine.PINNotDigits}, {"48 915", engine.PINNotDigits}, {"４８２９１５", engine.PINLength},
		{"000000", engine.PINOneDigit}, {"777777777", engine.PINOneDigit},
		{"123456", engine.PINSequence}, {"654321", engine.PINSequence}, {"012345", engine.PINSequence}, {"890123", engine.PINSequence},
		{"210987", engine.PINSequence}, {"123456789012", engine.PINSequence}, {"112233", engine.PINSequence}, {"111222", engine.PINSequence},
		{"998877", engine.PINSequence},
		{"121212", engine.PINRepeats}, {"123123", engine.PINRepeats}, {"12341234", engine.PINRepeats}, {"007007", engine.PINRepeats},
		{"159753", engine.PINWellKnown}, {"147258", engine.PINWellKnown}, {"102030", engine.PINWellKnown}, {"123321", engine.PINWellKnown},
	} {
		err := engine.CheckPIN(c.pin)
		var rule *engine.PINRuleError
		switch {
		case c.want == 0 && err != nil:
			t.Errorf("CheckPIN(%q) = %v, want accepted", c.pin, err)
		case c.want != 0 && (!errors.As(err, &rule) || !errors.Is(err, engine.ErrPINRule) || rule.Problem != c.want):
			t.Errorf("CheckPIN(%q) = %v, want problem %d", c.pin, err, c.want)
		}
	}
	// Each refusal says why, in words.
	for pin, why := range map[string]string{"4821": "4 characters given", "000000": "one digit repeated", "123456": "in sequence",
		"121212": "group of digits repeated", "159753": "most common"} {
		if err := engine.CheckPIN(pin); err == nil || !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), "6 to 12 digits") {
			t.Errorf("CheckPIN(%q) = %v, want it to say %q", pin, err, why)
		}
	}
	if engine.LockoutDuration != 5*time.Minute || engine.MaxPINFailures != 5 || engine.LockoutLevels != 3 ||
		engine.LockoutFor(1) != 5*time.Minute || engine.LockoutFor(2) != time.Hour || engine.LockoutFor(3) != 24*time.Hour || engine.LockoutFor(4) != 0 {
		t.Error("lockout policy changed")
	}
}

func TestPINIsStoredAsASaltedSlowHash(t *testing.T) {
	s, st := newService(t, oneBlock)
	if err := s.Login(ctx, "operator", "482915"); !errors.Is(err, engine.ErrNoPIN) {
		t.Fatalf("login without PIN: %v", err)
	}
	for _, bad := range []string{"12x456", "4821", "123456"} {
		if err := s.SetPIN(ctx, "cli", bad); !errors.Is(err, engine.ErrPINRule) {
			t.Fatalf("bad PIN %q accepted: %v", bad, err)
		}
	}
	if ok, err := s.PINSet(ctx); ok || err != nil {
		t.Fatalf("PINSet after refusals: %v %v", ok, err)
	}
	if err := s.SetPIN(ctx, "cli", "482915"); err != nil {
		t.Fatal(err)
	}
	first := setting(t, st, "operator.pin")
	if err := s.SetPIN(ctx, "cli", "482915"); err != nil {
		t.Fatal(err)
	}
	second := setting(t, st, "operator.pin")
	parts := strings.Split(second, "$")
	if len(parts) != 4 || parts[0] != "pbkdf2-sha256" || parts[1] != "1000" || len(parts[2]) != 32 || len(parts[3]) != 64 {
		t.Fatalf("stored hash %q", second)
	}
	if first == second || strings.Contains(second, "482915") {
		t.Fatalf("same PIN, same hash (no salt?) or PIN in clear: %q %q", first, second)
	}
	if err := s.Login(ctx, "operator", "482915"); err != nil {
		t.Fatalf("right PIN refused: %v", err)
	}
	var wrong *engine.PINError
	if err := s.Login(ctx, "operator", "482916"); !errors.As(err, &wrong) || wrong.Left != 4 || !errors.Is(err, engine.ErrBadPIN) {
		t.Fatalf("wrong PIN: %v", err)
	}
	if st, err := s.PINStatus(ctx); err != nil || !st.Set || st.Weak != nil || st.Locked != nil || st.Failures != 1 {
		t.Fatalf("PIN status %+v %v", st, err)
	}
}

func setting(t *testing.T, st *memstore.Store, name string) string {
	t.Helper()
	var v []byte
	st.View(ctx, func(tx engine.ReadTx) error { v, _, _ = tx.Setting(name); return nil })
	return string(v)
}

// An out-of-service terminal still lets the operator in and logs it.
func TestLoginWorksOutOfService(t *testing.T) {
	j := &memstore.Journal{}
	s := open(t, pinnedStore(t), j)
	if err := s.SetPIN(ctx, "cli", "482915"); err != nil {
		t.Fatal(err)
	}
	customers(t, s, "carol")
	j.Fail = errors.New("no space left on device")
	if _, err := s.Credit(ctx, "carol", 1_000, "test"); err == nil || s.Health() == nil {
		t.Fatalf("journal failure did not stop the terminal: %v", err)
	}
	if err := s.Login(ctx, "operator", "482915"); err != nil {
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
	customers(t, s, "kiosk7")
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

// Each attendant logs in with their own PIN; the operator log says who; a
// name that is no attendant's counts as a wrong PIN; a removed attendant
// no longer logs in.
func TestAttendantsHaveTheirOwnPINs(t *testing.T) {
	s, _ := newService(t, oneBlock)
	if err := s.AddAttendant(ctx, "cli", "marie", "482915"); !errors.Is(err, engine.ErrNoPIN) {
		t.Fatalf("an attendant before the first PIN: %v", err)
	}
	if err := s.SetPIN(ctx, "cli", "482915"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"Marie", "m", "cli", "marie dupont"} {
		if err := s.AddAttendant(ctx, "cli", bad, "739164"); !errors.Is(err, engine.ErrBadAttendant) {
			t.Errorf("attendant %q: %v", bad, err)
		}
	}
	if err := s.AddAttendant(ctx, "cli", "marie", "123456"); !errors.Is(err, engine.ErrPINRule) {
		t.Fatalf("a weak PIN: %v", err)
	}
	if err := s.AddAttendant(ctx, "cli", "marie", "739164"); err != nil {
		t.Fatal(err)
	}
	if err := s.AddAttendant(ctx, "cli", "marie", "739164"); !errors.Is(err, engine.ErrAttendantExists) {
		t.Fatalf("twice: %v", err)
	}
	if names, _ := s.Attendants(ctx); len(names) != 2 || names[0] != engine.FirstAttendant || names[1] != "marie" {
		t.Fatalf("attendants: %v", names)
	}
	if err := s.Login(ctx, "marie", "739164"); err != nil {
		t.Fatalf("marie's login: %v", err)
	}
	if err := s.Login(ctx, "marie", "482915"); !errors.Is(err, engine.ErrBadPIN) {
		t.Fatalf("marie with the operator's PIN: %v", err)
	}
	if err := s.Login(ctx, "nobody", "739164"); !errors.Is(err, engine.ErrBadPIN) {
		t.Fatalf("no such attendant: %v", err)
	}
	if ev, _ := s.OperatorLog(ctx, 3); ev[2].Actor != "marie" || ev[2].Action != "login" {
		t.Fatalf("operator log: %v", ev)
	}
	if err := s.RemoveAttendant(ctx, "cli", "marie"); err != nil {
		t.Fatal(err)
	}
	if err := s.Login(ctx, "marie", "739164"); !errors.Is(err, engine.ErrBadPIN) {
		t.Fatalf("a removed attendant: %v", err)
	}
}
