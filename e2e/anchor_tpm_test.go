package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"starfortune/internal/swtpmtest"
)

// TestLoneKioskRollbackIsCaughtByItsTPM: a lone kiosk whose settings name
// a TPM (here Debian's swtpm) counts each attendant's action on its NV
// counter. The shell's rollbacks of the trust issue, a payout's journal
// line cut with the store's MANIFEST deleted, and the whole data directory
// replaced by a copy taken before the payout, are both refused: the erased
// payout never comes back silently. An attendant's override brings the
// kiosk back, recorded and listed by every audit.
func TestLoneKioskRollbackIsCaughtByItsTPM(t *testing.T) {
	t.Parallel()
	sw := swtpmtest.Start(t)
	conf := filepath.Join(t.TempDir(), "starfortune.toml")
	if err := os.WriteFile(conf, fmt.Appendf(nil, "tpm = %q\n", sw.Socket), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sf := func(args ...string) (string, string, int) {
		return cli(t, dir, append([]string{"--config", conf}, args...)...)
	}
	must := func(args ...string) string {
		t.Helper()
		out, errOut, code := sf(args...)
		if code != 0 {
			t.Fatalf("starfortune %s: status %d: %s", strings.Join(args, " "), code, errOut)
		}
		return out
	}
	must("wallet", "credit", "--amount", "22")
	older := filepath.Join(t.TempDir(), "older")
	if err := os.CopyFS(older, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	must("wallet", "payout", "--amount", "22")
	paid := must("wallet", "show")

	// The whole data directory replaced by the copy from before the payout.
	aside := dir + ".aside"
	if err := os.Rename(dir, aside); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, os.DirFS(older)); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := sf("wallet", "payout", "--amount", "22"); code == 0 || !strings.Contains(errOut, "1 attendant or player action(s) were erased") {
		t.Fatalf("a payout on the older copy: status %d: %s", code, errOut)
	}
	if _, errOut, code := sf("recover"); code != 1 || !strings.Contains(errOut, "action(s) are missing") {
		t.Fatalf("recover on the older copy: status %d: %s", code, errOut)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(aside, dir); err != nil {
		t.Fatal(err)
	}
	if out := must("wallet", "show"); out != paid {
		t.Fatalf("the kiosk's own data after the copy went: %q, want %q", out, paid)
	}

	// The payout's journal line cut, the store's MANIFEST deleted.
	cutJournalTail(t, dir)
	if err := os.Remove(filepath.Join(dir, "db", "MANIFEST")); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := sf("recover"); code != 1 || !strings.Contains(errOut, "its last 1 attendant or player action(s) are missing") {
		t.Fatalf("recover of a cut journal: status %d: %s", code, errOut)
	}
	out := must("recover", "--override", "the manager: the payout was paid, counted by hand")
	if !strings.Contains(out, "audit OK") || !strings.Contains(out, "RECOVERED WITHOUT ANCHOR") || !strings.Contains(out, "behind its TPM counter") {
		t.Fatalf("recover --override:\n%s", out)
	}
	for _, cmd := range [][]string{{"audit"}, {"report"}} {
		if out := must(cmd...); !strings.Contains(out, "RECOVERED WITHOUT ANCHOR") || !strings.Contains(out, "counted by hand") {
			t.Fatalf("%s does not list the override:\n%s", cmd[0], out)
		}
	}
	must("wallet", "payout", "--amount", "22") // selling again, counting again
}
