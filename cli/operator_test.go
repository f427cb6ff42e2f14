package cli

import (
	"context"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/storage"
)

// withPINInput feeds set-pin's standard input.
func withPINInput(t *testing.T, lines string) {
	t.Helper()
	old := stdin
	stdin = strings.NewReader(lines)
	t.Cleanup(func() { stdin = old })
}

func TestOperatorSetPINAndLog(t *testing.T) {
	dir := newData(t)
	for _, c := range []struct {
		input, says string
		code        int
	}{
		{"482915\n482916\n", "differ", 2},
		{"12\n12\n", "6 to 12 digits", 2},
		{"4821\n4821\n", "4 characters given", 2},
		{"000000\n000000\n", "one digit repeated", 2},
		{"123456\n123456\n", "digits in sequence", 2},
		{"121212\n121212\n", "group of digits repeated", 2},
		{"159753\n159753\n", "most common PINs", 2},
		{"482915\n", "twice", 2},
	} {
		withPINInput(t, c.input)
		if _, errOut, code := cli(t, dir, "operator", "set-pin"); code != c.code || !strings.Contains(errOut, c.says) {
			t.Errorf("set-pin with %q: status %d, %q; want %d and %q", c.input, code, errOut, c.code, c.says)
		}
	}
	if out := mustCLI(t, dir, "operator", "log"); !strings.Contains(out, "empty") {
		t.Fatalf("log after refused set-pin: %q", out)
	}
	withPINInput(t, "482915\n482915\n")
	if out := mustCLI(t, dir, "operator", "set-pin"); !strings.Contains(out, "operator PIN set") {
		t.Fatalf("set-pin: %q", out)
	}
	var ev operatorEventJSON
	out := mustCLI(t, dir, "operator", "log", "--last", "1", "--json")
	if err := json.Unmarshal([]byte(out), &ev); err != nil || ev.Seq != 1 || ev.Action != "pin-set" || ev.Actor != "cli" {
		t.Fatalf("log: %q %v", out, err)
	}
	withPINInput(t, "730164\n730164\n")
	mustCLI(t, dir, "operator", "set-pin")
	if out := mustCLI(t, dir, "operator", "log"); !strings.Contains(out, "pin-changed") || strings.Count(out, "\n") != 4 || !strings.Contains(out, "journal head 2:") {
		t.Fatalf("log:\n%s", out)
	}
	if out := mustCLI(t, dir, "operator", "status"); !strings.Contains(out, "operator PIN: set, 6 to 12 digits") || !strings.Contains(out, "lockout: none") {
		t.Fatalf("status:\n%s", out)
	}
	if _, errOut, code := cli(t, dir, "operator", "dance"); code != 2 || !strings.Contains(errOut, "set-pin, add, remove, list, status, unlock or log") {
		t.Fatalf("operator dance: %d %q", code, errOut)
	}
}

// pinClock is a monotonic clock the test moves: a lockout runs on it.
type pinClock struct{ d time.Duration }

func (c *pinClock) since() time.Duration { return c.d }

// withOperator opens the game on dir as the window would (a restart each
// time, its monotonic clock from zero) and runs fn.
func withOperator(t *testing.T, dir string, fn func(*engine.Service, *pinClock)) {
	t.Helper()
	keys, err := DataDir(dir).Unlock([]byte(testPassphrase))
	if err != nil {
		t.Fatal(err)
	}
	clock := &pinClock{}
	cfg := engine.DefaultConfig()
	cfg.Monotonic = clock.since
	err = WithGame(context.Background(), DataDir(dir), keys, cfg, zerolog.Nop(), io.Discard, func(svc *engine.Service, _ *storage.Store) error {
		fn(svc, clock)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// guess types wrong PINs at the window until the next lockout.
func guess(t *testing.T, svc *engine.Service) *engine.LockedError {
	t.Helper()
	var locked *engine.LockedError
	for i := range engine.MaxPINFailures {
		if err := svc.Login(context.Background(), "operator", "739201"); errors.As(err, &locked) != (i == engine.MaxPINFailures-1) {
			t.Fatalf("wrong PIN %d: %v", i+1, err)
		}
	}
	return locked
}

// On a real data directory, reopened between each: lockouts of 5 min, 1 h
// and 24 h, each resumed after a restart with what was left of it, then
// one that only `operator unlock` ends, which the operator log records.
func TestOperatorUnlockEndsTheLastLockout(t *testing.T) {
	dir := newData(t)
	withPINInput(t, "482915\n482915\n")
	mustCLI(t, dir, "operator", "set-pin")
	withOperator(t, dir, func(svc *engine.Service, clock *pinClock) {
		if l := guess(t, svc); l.Level != 1 || l.Remaining != 5*time.Minute {
			t.Fatalf("first lockout %+v", l)
		}
		clock.d += 2 * time.Minute
	})
	if out := mustCLI(t, dir, "operator", "status"); !strings.Contains(out, "LOCKED (level 1 of 3) for 3m0s more") {
		t.Fatalf("status after a restart:\n%s", out)
	}
	for level := 2; level <= engine.LockoutLevels+1; level++ {
		withOperator(t, dir, func(svc *engine.Service, clock *pinClock) {
			clock.d += engine.LockoutFor(level - 1) // what is left of the last one, and more
			clock.d += time.Hour
			if l := guess(t, svc); l.Level != level || l.Remaining != engine.LockoutFor(level) || l.UntilUnlock != (level > engine.LockoutLevels) {
				t.Fatalf("lockout %d: %+v", level, l)
			}
		})
	}
	withOperator(t, dir, func(svc *engine.Service, clock *pinClock) {
		clock.d += 1000 * time.Hour
		if err := svc.Login(context.Background(), "operator", "482915"); !errors.Is(err, engine.ErrLocked) {
			t.Fatalf("the right PIN at the last level: %v", err)
		}
	})
	if out := mustCLI(t, dir, "operator", "status"); !strings.Contains(out, "LOCKED (level 4) until starfortune operator unlock") {
		t.Fatalf("status at the last level:\n%s", out)
	}
	if out := mustCLI(t, dir, "operator", "unlock"); !strings.Contains(out, "operator access unlocked: ended lockout 4, until unlocked; wrong PINs start again from the first lockout") {
		t.Fatalf("unlock: %q", out)
	}
	if out := mustCLI(t, dir, "operator", "unlock"); !strings.Contains(out, "nothing to unlock") {
		t.Fatalf("unlock again: %q", out)
	}
	log := mustCLI(t, dir, "operator", "log", "--last", "100")
	for _, want := range []string{"cli       unlock", "locked        level 1 of 3: 5 wrong PINs in a row: locked for 5 min 00 s of running time",
		"locked for 1 h 00 min 00 s", "locked for 24 h 00 min 00 s", "level 4: 5 more wrong PINs after 3 lockouts: locked until starfortune operator unlock"} {
		if !strings.Contains(log, want) {
			t.Errorf("the operator log lacks %q:\n%s", want, log)
		}
	}
	withOperator(t, dir, func(svc *engine.Service, _ *pinClock) {
		if err := svc.Login(context.Background(), "operator", "482915"); err != nil {
			t.Fatalf("the right PIN after unlock: %v", err)
		}
	})
}

// A PIN set under the former rule (4 digits) still opens the panel; the
// status, the audit and set-pin say to change it.
func TestFormerShortPINIsNoticed(t *testing.T) {
	dir := newData(t)
	salt := []byte("0123456789abcdef")
	key, err := pbkdf2.Key(sha256.New, "4821", salt, 1000, 32)
	if err != nil {
		t.Fatal(err)
	}
	withOperator(t, dir, func(svc *engine.Service, _ *pinClock) {}) // the game's first start
	keys, err := DataDir(dir).Unlock([]byte(testPassphrase))
	if err != nil {
		t.Fatal(err)
	}
	store, err := openStore(DataDir(dir).Store(), keys, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	err = store.Update(context.Background(), func(tx engine.Tx) error {
		return tx.PutSetting("operator.pin", fmt.Appendf(nil, "pbkdf2-sha256$1000$%x$%x", salt, key))
	})
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	if out := mustCLI(t, dir, "operator", "status"); !strings.Contains(out, "CHANGE IT: the PIN in force was set under the former rule") {
		t.Fatalf("status:\n%s", out)
	}
	withOperator(t, dir, func(svc *engine.Service, _ *pinClock) {
		if err := svc.Login(context.Background(), "operator", "4821"); err != nil {
			t.Fatalf("the former PIN: %v", err)
		}
	})
	if out := mustCLI(t, dir, "audit"); !strings.Contains(out, "NOTICE: operator PIN: the PIN in force has fewer than 6 digits: change it with starfortune operator set-pin") ||
		!strings.Contains(out, "audit OK") {
		t.Fatalf("audit:\n%s", out)
	}
	var rep struct {
		OK     bool   `json:"ok"`
		Notice string `json:"operator_pin_notice"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "audit", "--json")), &rep); err != nil || !rep.OK || !strings.Contains(rep.Notice, "fewer than 6") {
		t.Fatalf("audit --json: %+v %v", rep, err)
	}
	withPINInput(t, "730164\n730164\n")
	if out, errOut, code := cli(t, dir, "operator", "set-pin"); code != 0 || !strings.Contains(errOut, "must be changed: the PIN in force has fewer than 6 digits") {
		t.Fatalf("set-pin: %d %q %q", code, out, errOut)
	}
	if out := mustCLI(t, dir, "operator", "status"); strings.Contains(out, "CHANGE") {
		t.Fatalf("status after a new PIN:\n%s", out)
	}
}

// The report says how many units each block sold, never what a block on
// sale paid or has left (its closing figures come once it is sold out:
// engine's TestBlockReport).
func TestReport(t *testing.T) {
	dir := newData(t)
	mustCLI(t, dir, "play", "--stake", "2", "--n", "9", "--batch", "9", "--json")
	rows, err := csv.NewReader(strings.NewReader(mustCLI(t, dir, "report", "--csv"))).ReadAll()
	if err != nil || len(rows) < 4 { // a block per stake, and spares drawn in the background
		t.Fatalf("report --csv: %v %v", rows, err)
	}
	var row []string
	for _, r := range rows {
		if r[0] == "01-200-0001" {
			row = r
		}
	}
	if rows[0][0] != "block" || rows[0][5] != "sales_eur" || rows[0][6] != "paid_eur" || row == nil || row[3] != "9" || row[4] != "849991" || row[5] != "18.00" {
		t.Fatalf("csv rows: %v", rows)
	}
	for i, name := range rows[0] {
		if (name == "paid_eur" || name == "payout_ratio" || name == "seed" || strings.HasPrefix(name, "units_prize_")) && row[i] != "" {
			t.Errorf("csv: %s = %q for a block on sale", name, row[i])
		}
	}
	var b struct {
		Block   string          `json:"block"`
		Served  uint32          `json:"served"`
		Open    bool            `json:"open"`
		Closing json.RawMessage `json:"closing"`
	}
	for _, line := range strings.Split(strings.TrimSpace(mustCLI(t, dir, "report", "--json")), "\n") {
		if strings.Contains(line, `"01-200-0001"`) {
			err = json.Unmarshal([]byte(line), &b)
			if strings.Contains(line, "paid") || strings.Contains(line, "tally") {
				t.Errorf("report --json discloses a block on sale: %s", line)
			}
		}
	}
	if err != nil || b.Served != 9 || !b.Open || b.Closing != nil {
		t.Fatalf("report --json: %+v %v", b, err)
	}
	if out := mustCLI(t, dir, "report"); !strings.Contains(out, "01-200-0001") || !strings.Contains(out, "table 70 %") ||
		!strings.Contains(out, "en vente") || !strings.Contains(out, "secrète") {
		t.Fatalf("report:\n%s", out)
	}
}
