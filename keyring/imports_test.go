package keyring_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The keyring stands alone: the standard library, golang.org/x/crypto
// (with the x/sys/cpu it needs) and internal/fsync. Every other package of
// the program may use it without a cycle, and an auditor reads only this.
func TestImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "starfortune/keyring").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, d := range strings.Fields(string(out)) {
		switch {
		case d == "starfortune/keyring", d == "starfortune/internal/fsync", d == "golang.org/x/sys/cpu",
			strings.HasPrefix(d, "golang.org/x/crypto/"):
		default:
			t.Errorf("keyring depends on %s", d)
		}
	}
}
