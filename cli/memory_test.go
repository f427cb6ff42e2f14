package cli

import (
	"runtime/debug"
	"testing"
)

// The window holds its Go memory to windowMemoryLimit, unless the
// environment's GOMEMLIMIT says otherwise.
func TestHoldWindowMemory(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })

	t.Setenv("GOMEMLIMIT", "")
	holdWindowMemory()
	if got := debug.SetMemoryLimit(-1); got != windowMemoryLimit {
		t.Fatalf("memory limit %d, want %d", got, windowMemoryLimit)
	}

	debug.SetMemoryLimit(before)
	t.Setenv("GOMEMLIMIT", "300MiB") // read by the runtime at start; here only its presence counts
	holdWindowMemory()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Fatalf("with GOMEMLIMIT set the limit became %d, want it left at %d", got, before)
	}
}
