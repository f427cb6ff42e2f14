package central_test

import (
	"errors"
	"strings"
	"testing"

	"starfortune/engine"
)

// The central anchors each kiosk's journal at its heartbeats (migrations/
// 0006): a head behind the one anchored, or the same entry with another
// hash, is refused and recorded as an alarm the audit lists (once per head
// reported: a kiosk repeats it every round); a kiosk reads
// its own anchor only; the old heartbeat without a head is gone.
func TestJournalAnchoredAtHeartbeats(t *testing.T) {
	f := newFleet(t, 0, 0, "k1", "k2")
	k1, k2 := f.kiosks["k1"], f.kiosks["k2"]
	head := func(seq uint64, b byte) engine.JournalHead {
		h := engine.JournalHead{Seq: seq}
		h.Hash[0] = b
		return h
	}
	if _, err := k1.Heartbeat(ctx, 0, head(5, 0xa5)); err != nil {
		t.Fatal(err)
	}
	if got, err := k1.JournalAnchor(ctx); err != nil || got != head(5, 0xa5) {
		t.Fatalf("k1's anchor: %v %v", got, err)
	}
	if got, err := k2.JournalAnchor(ctx); err != nil || got != (engine.JournalHead{}) {
		t.Fatalf("k2 reads an anchor before its first heartbeat: %v %v", got, err)
	}
	for _, h := range []engine.JournalHead{head(3, 0x33), head(5, 0xee), {}, head(3, 0x33)} { // cut, rewritten, emptied, cut again
		if _, err := k1.Heartbeat(ctx, 0, h); !errors.Is(err, engine.ErrJournalBehind) {
			t.Fatalf("heartbeat at %s after 5: %v", h, err)
		}
	}
	if got, _ := k1.JournalAnchor(ctx); got != head(5, 0xa5) {
		t.Fatalf("a refused head moved the anchor: %v", got)
	}
	if _, err := k1.Heartbeat(ctx, 0, head(9, 0x99)); err != nil {
		t.Fatal(err)
	}
	if _, err := k2.Heartbeat(ctx, 0, head(2, 0x22)); err != nil { // another kiosk's journal is its own
		t.Fatal(err)
	}
	rep, err := f.admin.Audit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var alarms []string
	for _, finding := range rep.Findings {
		if strings.Contains(finding, "journal rolled back") {
			alarms = append(alarms, finding)
		}
	}
	if len(alarms) != 3 || !strings.Contains(alarms[0], "kiosk k1") || !strings.Contains(alarms[0], "reported entry 3:33") ||
		!strings.Contains(alarms[0], "anchored entry 5:a5") {
		t.Fatalf("audit findings %q", rep.Findings)
	}

	// Staff accept the journal as it is (a kiosk restored on purpose):
	// the alarms are resolved, the next heartbeat anchors anew.
	if n, err := f.admin.Reanchor(ctx, "k1", "restored from the backup of Monday"); err != nil || n != 3 {
		t.Fatalf("reanchor: %d %v", n, err)
	}
	if _, err := k1.Heartbeat(ctx, 0, head(4, 0x44)); err != nil {
		t.Fatal(err)
	}
	if rep, err := f.admin.Audit(ctx); err != nil || !rep.OK {
		t.Fatalf("audit after the re-anchor: %q %v", rep.Findings, err)
	}
	if _, err := f.admin.Reanchor(ctx, "k9", "no such kiosk"); err == nil {
		t.Fatal("re-anchored a kiosk that does not exist")
	}
}
