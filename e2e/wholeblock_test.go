package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// A whole 0,50 € block sold through the command line with --batch: its
// closing report holds exactly the prize table of article 3 of the
// règlement and pays 297 500 €, its seed is revealed, the audit is clean,
// and the next unit comes from block 2, drawn in the background meanwhile.
func TestWholeBlockSoldByBatches(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustCLI(t, dir, "wallet", "credit", "--amount", "500000")
	mustCLI(t, dir, "play", "--stake", "0.5", "--n", "850000", "--batch", "2048")
	// Article 3: units per block of each prize, 25 000 × the stake down to
	// the losing units.
	table := []int{1, 1, 1, 50, 500, 800, 14_000, 23_020, 100_000, 76_900, 634_727}
	var closed bool
	for _, line := range strings.Split(strings.TrimSpace(mustCLI(t, dir, "report", "--json")), "\n") {
		var b struct {
			Block   string `json:"block"`
			Left    uint32 `json:"left"`
			Closing *struct {
				PaidCents int64  `json:"paid_cents"`
				Tally     []int  `json:"tally"`
				Seed      string `json:"seed"`
			} `json:"closing"`
		}
		if err := json.Unmarshal([]byte(line), &b); err != nil {
			t.Fatalf("report --json: %q: %v", line, err)
		}
		if b.Block != "01-050-0001" {
			continue
		}
		closed = true
		if b.Left != 0 || b.Closing == nil || b.Closing.PaidCents != 29_750_000 || !slices.Equal(b.Closing.Tally, table) || len(b.Closing.Seed) != 64 {
			t.Fatalf("block 01-050-0001 sold whole: %s", line)
		}
	}
	if !closed {
		t.Fatal("report --json does not list block 01-050-0001")
	}
	if out := mustCLI(t, dir, "audit"); !strings.Contains(out, "audit OK") {
		t.Fatalf("audit: %s", out)
	}
	sales := decodeSales(t, mustCLI(t, dir, "play", "--stake", "0.5", "--json"))
	if sales[0].Block != "01-050-0002" || sales[0].Index != 0 {
		t.Fatalf("after block 1: %+v", sales[0])
	}
}
