package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestSecondInstanceIsRefused(t *testing.T) {
	dir := t.TempDir()
	first := child(t, dir, "play", "--stake", "0.5", "--n", "1000000", "--json")
	stdout, _ := first.StdoutPipe()
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { first.Process.Kill(); first.Wait() }()
	if !bufio.NewScanner(stdout).Scan() {
		t.Fatal("first instance printed nothing")
	}
	out, err := child(t, dir, "wallet", "show").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "already running") || !strings.Contains(string(out), dir) {
		t.Fatalf("second instance: %v %s", err, out)
	}
}

// Kill a real process with SIGKILL in the middle of sales, again and again:
// every unit it printed must be in the history, and the audit stays clean.
func TestKilledDuringSalesLosesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var printed []string
	rounds := 8
	for round := 0; round < rounds; round++ {
		args := []string{"play", "--stake", "1", "--n", "100000", "--json"}
		if round%2 == 1 {
			args = append(args, "--batch", "64")
		}
		cmd := child(t, dir, args...)
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		// Killed 0 to 600 ms after its first sale printed, however long
		// it took to start (drawing the blocks of a new directory, a
		// loaded machine), or after 60 s if it prints none.
		deadline := time.After(time.Minute)
		first := true
		lines := make(chan string)
		go func() {
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
	read:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break read
				}
				var s saleJSON
				if json.Unmarshal([]byte(l), &s) == nil {
					printed = append(printed, s.Ticket)
					if first {
						deadline, first = time.After(time.Duration(rand.IntN(600))*time.Millisecond), false
					}
				}
			case <-deadline:
				cmd.Process.Signal(syscall.SIGKILL)
				deadline = nil
			}
		}
		cmd.Wait()
		mustCLI(t, dir, "wallet", "credit", "--amount", "100") // keep funds for the next round
	}
	if len(printed) == 0 {
		t.Fatal("no sale printed before the kills")
	}
	hist := decodeSales(t, mustCLI(t, dir, "history", "--last", "1000000", "--json"))
	inHistory := map[string]bool{}
	for _, s := range hist {
		inHistory[s.Ticket] = true
	}
	for _, tk := range printed {
		if !inHistory[tk] {
			t.Fatalf("ticket %s was printed but is not in the history", tk)
		}
	}
	if len(hist) < len(printed) {
		t.Fatalf("history %d < printed %d", len(hist), len(printed))
	}
	mustCLI(t, dir, "audit")
	t.Logf("%d rounds: %d units printed, %d in history", rounds, len(printed), len(hist))
	if _, err := os.Stat(filepath.Join(dir, "logs", "starfortune.log")); err != nil {
		t.Fatal("no log file:", err)
	}
}

// Under Debian's default C.UTF-8 locale the program says nothing on stderr
// (Fyne used to report "Error parsing user locale C" at every start): a real
// process, since the locale is read before main.
func TestNoLocaleNoiseOnStderr(t *testing.T) {
	for _, locale := range []string{"C.UTF-8", "C", "fr_FR.UTF-8", "en_GB.UTF-8"} {
		cmd := child(t, t.TempDir(), "version")
		env := []string{"LANG=" + locale}
		for _, kv := range os.Environ() {
			if name, _, _ := strings.Cut(kv, "="); name != "LANG" && name != "LC_ALL" && name != "LC_MESSAGES" && name != "LANGUAGE" {
				env = append(env, kv)
			}
		}
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil || stderr.Len() != 0 || !strings.HasPrefix(stdout.String(), "starfortune ") {
			t.Errorf("LANG=%s: %v, stdout %q, stderr %q", locale, err, stdout.String(), stderr.String())
		}
	}
}
