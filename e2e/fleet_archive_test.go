package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"starfortune/central"
)

// A closed block leaves the central for its archive, as staff would do it
// from a shell, and the fleet audit checks it there (docs/fleet.md,
// "Archiving closed blocks").
func TestFleetClosedBlockArchived(t *testing.T) {
	db, _ := fleetCentralPooled(t, 10_000, 4) // 85 packs; through PgBouncer, as a national fleet
	url := fleetKiosk(t, db, "k1")
	dir := t.TempDir()
	mustKiosk(t, dir, url, "k1", "play", "--stake", "0,50", "--n", "3")
	mustKiosk(t, dir, url, "k1", "sync", "--release")
	// The packs no kiosk took are voided, as for a block withdrawn.
	rows, err := ownerConn(t, db).Query(t.Context(), "SELECT serial FROM packs WHERE status = 'available' ORDER BY serial")
	if err != nil {
		t.Fatal(err)
	}
	left, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(left) < 80 {
		t.Fatalf("packs left: %v %v", left, err)
	}
	for _, p := range left {
		if out, errOut, code := centralCLI(t, db, "pack", "void", p, "--reason", "block withdrawn"); code != 0 {
			t.Fatalf("central pack void %s: exit %d\n%s%s", p, code, out, errOut)
		}
	}
	b := onlyBlock(t, db)
	if !b.Closed || b.Sold != 3 {
		t.Fatalf("the block after its packs were released and voided: %+v", b)
	}
	archive := t.TempDir()
	if _, errOut, code := centralCLI(t, db, "archive", archive, b.ID); code == 0 || !strings.Contains(errOut, "may be archived from") {
		t.Fatalf("archive of a block closed just now: exit %d, %s", code, errOut)
	}
	if _, err := ownerConn(t, db).Exec(t.Context(), "UPDATE fleet_settings SET archive_after = '0'"); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := centralCLI(t, db, "archive", archive)
	if code != 0 || !strings.Contains(out, "block "+b.ID+" archived: "+b.ID+".jsonl") {
		t.Fatalf("central archive: exit %d\n%s%s", code, out, errOut)
	}
	if fi, err := os.Stat(filepath.Join(archive, b.ID+".jsonl")); err != nil || fi.Size() < int64(b.Size)*3 {
		t.Fatalf("the archive file: %v %v", fi, err)
	}
	if _, errOut, code := centralCLI(t, db, "audit"); code == 0 || !strings.Contains(errOut, "--archive DIR") {
		t.Fatalf("central audit without the archive: exit %d, %s", code, errOut)
	}
	out, errOut, code = centralCLI(t, db, "audit", "--archive", archive)
	if code != 0 || !strings.Contains(out, "(1 from their archive)") || !strings.Contains(out, "audit OK") {
		t.Fatalf("central audit --archive: exit %d\n%s%s", code, out, errOut)
	}
	mustKiosk(t, dir, url, "k1", "audit")
}

// onlyBlock is the central's one block, as `central blocks --json` says.
func onlyBlock(t *testing.T, db string) central.Block {
	t.Helper()
	out, errOut, code := centralCLI(t, db, "blocks", "--json")
	var b central.Block
	if code != 0 || json.Unmarshal([]byte(out), &b) != nil {
		t.Fatalf("central blocks: exit %d %q %s", code, out, errOut)
	}
	return b
}
