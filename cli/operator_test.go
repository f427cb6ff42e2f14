package cli

import (
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
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
		{"1234\n1235\n", "differ", 2},
		{"12\n12\n", "4 to 12 digits", 2},
		{"1234\n", "twice", 2},
	} {
		withPINInput(t, c.input)
		if _, errOut, code := cli(t, dir, "operator", "set-pin"); code != c.code || !strings.Contains(errOut, c.says) {
			t.Errorf("set-pin with %q: status %d, %q; want %d and %q", c.input, code, errOut, c.code, c.says)
		}
	}
	if out := mustCLI(t, dir, "operator", "log"); !strings.Contains(out, "empty") {
		t.Fatalf("log after refused set-pin: %q", out)
	}
	withPINInput(t, "4821\n4821\n")
	if out := mustCLI(t, dir, "operator", "set-pin"); !strings.Contains(out, "operator PIN set") {
		t.Fatalf("set-pin: %q", out)
	}
	var ev operatorEventJSON
	out := mustCLI(t, dir, "operator", "log", "--last", "1", "--json")
	if err := json.Unmarshal([]byte(out), &ev); err != nil || ev.Seq != 1 || ev.Action != "pin-set" || ev.Actor != "cli" {
		t.Fatalf("log: %q %v", out, err)
	}
	withPINInput(t, "9876\n9876\n")
	mustCLI(t, dir, "operator", "set-pin")
	if out := mustCLI(t, dir, "operator", "log"); !strings.Contains(out, "pin-changed") || strings.Count(out, "\n") != 2 {
		t.Fatalf("log:\n%s", out)
	}
	if _, errOut, code := cli(t, dir, "operator", "dance"); code != 2 || !strings.Contains(errOut, "set-pin or log") {
		t.Fatalf("operator dance: %d %q", code, errOut)
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
