// Package fsync makes directory changes durable. A file's fsync covers its
// contents, not its name: a file created or renamed, or a directory made,
// survives a power cut only once the directory holding the entry is synced
// too (the power-cut test found data directories, journals and recovered
// stores lost that way).
package fsync

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Dir syncs the directory dir: the entries created, renamed or removed in it
// are on the disk when it returns.
func Dir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}

// MkdirAll is os.MkdirAll whose result is durable: each directory it makes
// is synced, and so is the directory holding it.
func MkdirAll(path string, perm fs.FileMode) error {
	path = filepath.Clean(path)
	if st, err := os.Stat(path); err == nil {
		if !st.IsDir() {
			return &fs.PathError{Op: "mkdir", Path: path, Err: errors.New("not a directory")}
		}
		return nil
	}
	if parent := filepath.Dir(path); parent != path {
		if err := MkdirAll(parent, perm); err != nil {
			return err
		}
	}
	if err := os.Mkdir(path, perm); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return errors.Join(Dir(path), Dir(filepath.Dir(path)))
}

// Rename is os.Rename made durable: the directories of both names are
// synced.
func Rename(from, to string) error {
	if err := os.Rename(from, to); err != nil {
		return err
	}
	if err := Dir(filepath.Dir(to)); err != nil {
		return err
	}
	if filepath.Dir(from) != filepath.Dir(to) {
		return Dir(filepath.Dir(from))
	}
	return nil
}

// WriteFile writes b to the file at path (made, or emptied) and syncs it,
// so that once renamed into place it holds b after a power cut, not
// nothing.
func WriteFile(path string, b []byte, perm fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	return errors.Join(err, f.Sync(), f.Close())
}
