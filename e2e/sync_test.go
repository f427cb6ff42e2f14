package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"starfortune/internal/testenv"
)

// TestSaleSyncsTwoFiles counts, with strace on a real child process, the
// syncs a sale costs: the store's write-ahead log and the journal, nothing
// more. Badger v4.9.6 also synced its value log on every commit though
// nothing was written there; third_party/badger's patch removes that sync,
// and this test fails if the patch is lost (three syncs a sale).
func TestSaleSyncsTwoFiles(t *testing.T) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		testenv.Missing(t, "no strace")
	}
	if err := exec.Command(strace, "-o", os.DevNull, "true").Run(); err != nil {
		testenv.Missing(t, "strace cannot trace here: %v", err)
	}
	dir := t.TempDir()
	syncCall := regexp.MustCompile(`(?m)^\d+ +(msync|fsync|fdatasync)\(`)
	syncs := func(n int) int {
		trace := filepath.Join(t.TempDir(), "trace")
		cmd := exec.Command(strace, "-f", "-qq", "-e", "trace=msync,fsync,fdatasync", "-o", trace,
			starfortune(t), "--data", dir, "play", "--stake", "1", "--n", strconv.Itoa(n))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("play --n %d under strace: %v\n%s", n, err, out)
		}
		b, err := os.ReadFile(trace)
		if err != nil {
			t.Fatal(err)
		}
		return len(syncCall.FindAll(b, -1))
	}
	syncs(1) // creates the store and draws the blocks
	const n = 60
	one, many := syncs(1), syncs(1+n)
	perSale := float64(many-one) / n
	t.Logf("%d syncs for 1 unit, %d for %d: %.2f a sale", one, many, 1+n, perSale)
	if perSale > 2.5 {
		t.Fatalf("a sale costs %.2f syncs, want 2 (the write-ahead log and the journal): is third_party/badger's patch in use?", perSale)
	}
}
