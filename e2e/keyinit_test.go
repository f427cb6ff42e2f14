package e2e

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sf "starfortune/cli"
	"starfortune/internal/cleardata"
	"starfortune/journal"
)

// key init encrypts a data directory written in clear by an earlier
// version; killed anywhere (SIGKILL, a copy of the same directory each
// round), the directory still opens, or is refused with the message that
// points at key init, never damaged; run again, key init finishes: the
// history is the same, the audit passes, and no clear copy is left.
func TestKeyInitKilledAnywhere(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	alice := openCard(t, dir)
	mustCLI(t, dir, "wallet", "credit", "--card", alice, "--pin", testCardPIN, "--amount", "400")
	mustCLI(t, dir, "play", "--card", alice, "--pin", testCardPIN, "--stake", "1", "--n", "300", "--batch", "7")
	want := mustCLI(t, dir, "history", "--player", alice, "--last", "300", "--json")
	d := sf.DataDir(dir)
	keys := unlock(t, dir)
	cur := keys.Current()
	cleardata.Decrypt(t, d.Store(), cur.Badger(), d.Journal(), journal.Keys{Current: journal.Key{Gen: cur.Gen(), Secret: cur.Journal()}})
	if err := os.Remove(d.Keyring()); err != nil {
		t.Fatal(err)
	}

	copyOf := func() string {
		into := filepath.Join(t.TempDir(), "data")
		if err := os.CopyFS(into, os.DirFS(dir)); err != nil {
			t.Fatal(err)
		}
		return into
	}
	start := time.Now()
	mustCLI(t, copyOf(), "key", "init")
	whole := time.Since(start) // the kills fall anywhere in it, and a little after
	t.Logf("key init takes %v", whole.Round(time.Millisecond))
	for round := range 10 {
		into := copyOf()
		cmd := child(t, into, "key", "init")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		after := time.Duration(rand.Int64N(int64(whole) * 11 / 10))
		time.Sleep(after)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		out, errOut, code := cli(t, into, "history", "--player", alice, "--last", "300", "--json")
		switch {
		case code == 0 && out == want:
			t.Logf("round %d: killed after %v, once key init had ended", round, after.Round(time.Millisecond))
		case code == 1 && strings.Contains(errOut, "key init"):
			held, _ := filepath.Glob(filepath.Join(into, "*"))
			t.Logf("round %d: killed after %v, during key init: %v", round, after.Round(time.Millisecond), held)
		default:
			t.Fatalf("round %d: after a kill during key init, history: status %d: %s", round, code, errOut)
		}
		mustCLI(t, into, "key", "init")
		if got := mustCLI(t, into, "history", "--player", alice, "--last", "300", "--json"); got != want {
			t.Fatalf("round %d: the history after key init:\n%s\nwant\n%s", round, got, want)
		}
		if out := mustCLI(t, into, "audit"); !strings.Contains(out, "audit OK") {
			t.Fatalf("round %d: audit: %s", round, out)
		}
		left, _ := filepath.Glob(filepath.Join(into, "*", "*.plain*"))
		more, _ := filepath.Glob(filepath.Join(into, "*.plain*"))
		if left = append(left, more...); len(left) > 0 {
			t.Fatalf("round %d: clear copies left: %v", round, left)
		}
	}
}
