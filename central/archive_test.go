package central_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"starfortune/central"
	"starfortune/engine"
)

// A closed block is archived (export, verify, detach), then audited from
// its file; a block that does not verify is not archived, and an archive
// altered, or missing, is a finding.
func TestArchiveClosedBlock(t *testing.T) {
	f := newFleet(t, 1, engine.BlockSize-1000, "k1", "k2")
	big, err := f.kiosks["k1"].ClaimPack(ctx, 50) // not verified, to keep the test quick
	if err != nil {
		t.Fatal(err)
	}
	push(t, f.kiosks["k1"], sell(t, big, 0, 10, 1, "ann"))
	small := f.claim(t, "k2")
	push(t, f.kiosks["k2"], sell(t, small, 0, 4, 1, "bob"))
	dir := t.TempDir()
	ref := big.Block
	if _, err := f.admin.Archive(ctx, dir, []engine.BlockRef{ref}); !errors.Is(err, central.ErrNotArchivable) || !strings.Contains(err.Error(), "in play") {
		t.Fatalf("archive of a block in play: %v", err)
	}
	for _, p := range []engine.Pack{big, small} {
		if err := f.admin.VoidPack(ctx, p.Serial, "closing the test's block"); err != nil {
			t.Fatal(err)
		}
	}
	if done, err := f.admin.Archive(ctx, dir, nil); err != nil || len(done) != 0 {
		t.Fatalf("archive before archive_after: %v %v, want nothing", done, err)
	}
	if _, err := f.admin.Archive(ctx, dir, []engine.BlockRef{ref}); !errors.Is(err, central.ErrNotArchivable) || !strings.Contains(err.Error(), "from 20") {
		t.Fatalf("archive of a block closed just now: %v", err)
	}
	f.set(t, "archive_after = '0'")

	// A block whose rows do not verify is not archived.
	f.exec(t, "UPDATE sales SET prize_cents = prize_cents + 100 WHERE ticket = $1", big.Ticket(3).String())
	if _, err := f.admin.Archive(ctx, dir, nil); !errors.Is(err, central.ErrArchiveInvalid) || !strings.Contains(err.Error(), big.Ticket(3).String()) {
		t.Fatalf("archive of a tampered block: %v", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("a refused archive left %v", left)
	}
	f.exec(t, "UPDATE sales SET prize_cents = prize_cents - 100 WHERE ticket = $1", big.Ticket(3).String())

	done, err := f.admin.Archive(ctx, dir, nil)
	if err != nil || len(done) != 1 || done[0].Sales != 14 || done[0].File != ref.String()+".jsonl" {
		t.Fatalf("archive: %+v %v", done, err)
	}
	var partitions int
	f.scan(t, "SELECT count(*) FROM pg_inherits WHERE inhparent = 'sales'::regclass", &partitions)
	if partitions != 0 {
		t.Fatalf("%d partitions of sales left after the archive", partitions)
	}
	if _, err := f.admin.ClosingReport(ctx, ref); !errors.Is(err, central.ErrBlockArchived) {
		t.Fatalf("closing report of an archived block: %v", err)
	}
	if _, err := f.admin.BlockSales(ctx, ref); !errors.Is(err, central.ErrBlockArchived) {
		t.Fatalf("sales of an archived block: %v", err)
	}
	if again, err := f.admin.Archive(ctx, dir, nil); err != nil || len(again) != 0 {
		t.Fatalf("second archive: %+v %v", again, err)
	}
	if _, err := f.admin.Audit(ctx); !errors.Is(err, central.ErrArchiveNeeded) {
		t.Fatalf("audit without the archive: %v", err)
	}
	rep, err := f.admin.AuditFrom(ctx, dir)
	if err != nil || !rep.OK || rep.Archived != 1 || rep.Sales != 14 {
		t.Fatalf("audit from the archive: %+v %v", rep, err)
	}

	// The archive altered: a prize raised in the file.
	path := filepath.Join(dir, done[0].File)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(`"ticket":"` + big.Ticket(5).String() + `"`)
	i := bytes.Index(orig, line)
	j := i + bytes.Index(orig[i:], []byte(`"prize_cents":`)) + len(`"prize_cents":`)
	altered := append(append(append([]byte{}, orig[:j]...), '9'), orig[j:]...)
	if err := os.WriteFile(path, altered, 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err = f.admin.AuditFrom(ctx, dir)
	if err != nil || rep.OK || !hasFinding(rep, "is not the file archived") || !hasFinding(rep, big.Ticket(5).String(), "prize") {
		t.Fatalf("audit of an altered archive: %q %v", rep.Findings, err)
	}
	os.Remove(path)
	rep, err = f.admin.AuditFrom(ctx, dir)
	if err != nil || rep.OK || !hasFinding(rep, done[0].File, "is not in") {
		t.Fatalf("audit without the archive's file: %q %v", rep.Findings, err)
	}
}
