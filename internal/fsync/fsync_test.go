package fsync_test

import (
	"os"
	"path/filepath"
	"testing"

	"starfortune/internal/fsync"
	"starfortune/internal/powercut"
)

func mount(t *testing.T) (*powercut.FS, string) {
	t.Helper()
	p, backing, _ := powercut.MountTemp(t)
	return p, backing
}

// Directories made, and files renamed, survive a power cut; with the os
// package's calls they do not (which is why this package exists).
func TestSurvivesPowerCut(t *testing.T) {
	for _, c := range []struct {
		name    string
		mkdir   func(string, os.FileMode) error
		rename  func(string, string) error
		survive bool
	}{
		{"fsync", fsync.MkdirAll, fsync.Rename, true},
		{"os", os.MkdirAll, os.Rename, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, backing := mount(t)
			dir := filepath.Join(p.Dir(), "data", "journal")
			if err := c.mkdir(dir, 0o750); err != nil {
				t.Fatal(err)
			}
			f, _ := os.Create(filepath.Join(dir, "new.tmp"))
			f.WriteString("synced")
			f.Sync()
			f.Close()
			fsync.Dir(dir) // the temporary name is durable either way
			if err := c.rename(filepath.Join(dir, "new.tmp"), filepath.Join(dir, "new")); err != nil {
				t.Fatal(err)
			}
			if _, err := p.Cut(); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(backing, "data", "journal", "new"))
			if survived := err == nil && string(b) == "synced"; survived != c.survive {
				t.Fatalf("survived: %v (%v), want %v", survived, err, c.survive)
			}
		})
	}
	if err := fsync.MkdirAll(filepath.Join(t.TempDir(), "f", "g"), 0o750); err != nil {
		t.Fatal(err)
	}
}
