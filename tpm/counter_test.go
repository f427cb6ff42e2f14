package tpm_test

import (
	"context"
	"testing"

	"starfortune/internal/swtpmtest"
	"starfortune/tpm"
)

// TestCounter: the counter is defined on first use, counts one by one,
// survives a reboot, and a second Open finds it started, not fresh.
func TestCounter(t *testing.T) {
	ctx := context.Background()
	sw := swtpmtest.Start(t)
	c, err := tpm.Open(sw.Socket, tpm.DefaultIndex)
	if err != nil {
		t.Fatal(err)
	}
	v0, fresh, err := c.Value(ctx)
	if err != nil || !fresh {
		t.Fatalf("first value %d fresh %v: %v", v0, fresh, err)
	}
	for i := uint64(1); i <= 3; i++ {
		v, err := c.Increment(ctx)
		if err != nil || v != v0+i {
			t.Fatalf("increment %d: %d, want %d: %v", i, v, v0+i, err)
		}
	}
	sw.Restart(t)
	again, err := tpm.Open(sw.Socket, tpm.DefaultIndex)
	if err != nil {
		t.Fatal(err)
	}
	v, fresh, err := again.Value(ctx)
	if err != nil || fresh || v != v0+3 {
		t.Fatalf("after a reboot: %d fresh %v, want %d not fresh: %v", v, fresh, v0+3, err)
	}
}

// TestNoTPM: a path with no TPM is a clear error, not a counter.
func TestNoTPM(t *testing.T) {
	if _, err := tpm.Open(t.TempDir()+"/none", tpm.DefaultIndex); err == nil {
		t.Fatal("opened a TPM that is not there")
	}
}
