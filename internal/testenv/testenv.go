// Package testenv decides what a test does when the machine lacks something
// it needs (a tmpfs mount, strace, /dev/full, FUSE, PostgreSQL): on a
// developer's machine it skips with the reason; under CI (the CI variable
// set, as CI runs do) it fails, so that a green CI run never hides a fault
// test that did not run.
package testenv

import (
	"fmt"
	"os"
	"testing"
)

// InCI reports whether the tests run under CI.
func InCI() bool { return os.Getenv("CI") != "" }

// Missing ends the test because a capability it needs is missing: a
// failure under CI, a skip elsewhere. The reason says what is missing.
func Missing(tb testing.TB, format string, args ...any) {
	tb.Helper()
	reason := fmt.Sprintf(format, args...)
	if InCI() {
		tb.Fatalf("CI lacks what this test needs: %s", reason)
	}
	tb.Skipf("skipped (would fail under CI): %s", reason)
}
