package e2e

import (
	"strings"
	"testing"
	"time"
)

// The window holds its Go heap to a soft limit (cli's windowMemoryLimit).
// Set under what the window keeps alive and what the runtime holds beside
// it, the collector runs without a pause: at 32 MiB it ran 100 times in 5 s
// while the window waited for a player (up to a third of a core) and 247
// times in the 2.5 s of a puck's fall (58 % of a core). The real window,
// idle, then while a puck falls, collects a few times at most: it
// allocates little once up.
func TestWindowHeapLimitLeavesRoom(t *testing.T) {
	needTools(t, "Xvfb", "xdotool")
	if testing.Short() {
		t.Skip("-short: the real window takes about half a minute")
	}
	data := t.TempDir()
	mustCLI(t, data, "blocks") // its blocks drawn before: nothing to draw, nothing to resume
	w := openWindow(t, starfortune(t), data, "", "GODEBUG=gctrace=1")
	collections := func() int { return strings.Count(w.out.String(), "\ngc ") }
	before := collections()
	w.wait(5 * time.Second)
	idle := collections() - before
	w.key("Return", 1500*time.Millisecond) // JOUER
	before = collections()
	w.key("1", 2500*time.Millisecond) // the first puck falls
	falling := collections() - before
	w.close()
	t.Logf("collections: %d in 5 s idle, %d in 2.5 s of a fall", idle, falling)
	if idle > 10 || falling > 10 {
		t.Fatalf("the collector ran %d times in 5 s idle and %d in 2.5 s of a fall: the window's heap limit leaves no room above what it keeps alive", idle, falling)
	}
}
