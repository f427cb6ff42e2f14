package keyring

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"starfortune/internal/fsync"
)

// tempPattern names the temporary files beside path. A crash can leave
// one; Load ignores them and the next write removes them.
func tempPattern(path string) string { return "." + filepath.Base(path) + ".tmp-*" }

// removeTemps removes the temporary files a crash left beside path. A
// failure only leaves litter, so it is ignored.
func removeTemps(path string) {
	prefix := strings.TrimSuffix(tempPattern(path), "*")
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) && e.Type().IsRegular() {
			_ = os.Remove(filepath.Join(filepath.Dir(path), e.Name()))
		}
	}
}

// writeFile replaces path with data so that after a crash at any point the
// file holds either its old bytes or the new ones, never a mix: the bytes
// go to a temporary file in the same directory, which is synced, then
// renamed over path, then the directory is synced (fsync.Rename).
//
// With create, an existing path is an error wrapping fs.ErrExist and is
// left alone: the temporary file is hard-linked to path, which fails if
// path exists, so two creators cannot both win.
func writeFile(path string, data []byte, create bool) (err error) {
	dir := filepath.Dir(path)
	removeTemps(path)
	f, err := os.CreateTemp(dir, tempPattern(path)) // mode 0600
	if err != nil {
		return fmt.Errorf("keyring: write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return fmt.Errorf("keyring: write %s: %w", tmp, err)
	}
	if err := errors.Join(f.Sync(), f.Close()); err != nil {
		return fmt.Errorf("keyring: write %s: %w", tmp, err)
	}
	if !create {
		if err := fsync.Rename(tmp, path); err != nil {
			return fmt.Errorf("keyring: write %s: %w", path, err)
		}
		return nil
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("keyring: create %s: %w", path, fs.ErrExist)
		}
		// A file system without hard links: check, then rename. Only a
		// second writer racing this one could slip between the two.
		if _, serr := os.Lstat(path); serr == nil {
			return fmt.Errorf("keyring: create %s: %w", path, fs.ErrExist)
		}
		if err := fsync.Rename(tmp, path); err != nil {
			return fmt.Errorf("keyring: create %s: %w", path, err)
		}
		return nil
	}
	_ = os.Remove(tmp) // path is created; a failure only leaves litter
	if err := fsync.Dir(dir); err != nil {
		return fmt.Errorf("keyring: create %s: %w", path, err)
	}
	return nil
}
