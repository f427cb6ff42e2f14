package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"starfortune/engine"
	"testing"
)

// opLine is what the torture workload (internal/torture) prints once an
// operation has returned, that is once it is durable.
type opLine struct {
	Op      string `json:"op"` // "sold", "step", "credit", "opcredit", "payout"; "gc-…" under -tuning vlog
	Ticket  string `json:"ticket,omitempty"`
	Player  string `json:"player"`
	Done    bool   `json:"done,omitempty"`
	Seq     uint64 `json:"seq,omitempty"`
	Balance int64  `json:"balance,omitempty"`
}

// torturePlayers are the players the workload plays for.
var torturePlayers = []string{engine.DemoPlayer, string(engine.NewCard(1)), string(engine.NewCard(2))}

// tortureCmd is the workload on the data directory dir, not yet started;
// tuning "" keeps the kiosk's Badger settings.
func tortureCmd(t testing.TB, dir string, seed int, tuning string) *exec.Cmd {
	t.Helper()
	bin, err := buildTorture()
	if err != nil {
		t.Fatal(err)
	}
	return exec.Command(bin, "-tuning", tuning, "run", dir, fmt.Sprint(seed))
}

// checkAfterKill opens dir as the next start would (in the workload's
// binary) and checks that it serves, audits clean, holds every operation
// printed, shows an unprinted sale only as its player's newest unit and
// offers it for resumption; tuning is the workload's. known holds the tickets found at earlier
// checks, and gets this check's.
func checkAfterKill(t testing.TB, dir, tuning string, printed []opLine, known map[string]bool) {
	t.Helper()
	bin, err := buildTorture()
	if err != nil {
		t.Fatal(err)
	}
	in := struct {
		Printed []opLine `json:"printed"`
		Known   []string `json:"known"`
	}{Printed: printed, Known: []string{}}
	for k := range known {
		in.Known = append(in.Known, k)
	}
	input, _ := json.Marshal(in)
	cmd := exec.Command(bin, "-tuning", tuning, "check", dir)
	var out, errOut bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(input), &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("after a kill: %v\n%s", err, errOut.String())
	}
	var found []string
	if err := json.Unmarshal(out.Bytes(), &found); err != nil {
		t.Fatalf("torture check printed %q: %v", out.String(), err)
	}
	for _, k := range found {
		known[k] = true
	}
}
