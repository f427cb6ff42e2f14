package storage_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/storage"
)

// plainStore is a closed plaintext store with drawn blocks and sales, as a
// kiosk's before #34, its content as content reads it, and its secrets.
func plainStore(t *testing.T) (dir, want string, sec secrets) {
	t.Helper()
	dir, sec = copiedStore(t, nil)
	return dir, content(t, dir, nil), sec
}

// content opens the store in dir with key and describes what it holds:
// its blocks and cursors, and two wallets.
func content(t *testing.T, dir string, key []byte) string {
	t.Helper()
	s, err := storage.Open(dir, key, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var b strings.Builder
	err = s.View(context.Background(), func(tx engine.ReadTx) error {
		blocks, err := tx.Blocks()
		for _, info := range blocks {
			fmt.Fprintf(&b, "%s %d %x\n", info.Ref, info.Cursor.Served, info.Seed[:4])
		}
		for _, p := range []string{engine.DemoPlayer, secretCard} {
			w, _, werr := tx.Wallet(p)
			fmt.Fprintf(&b, "%s %d %d\n", p, w.Balance, w.Seq)
			err = errors.Join(err, werr)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// beside lists the migration's names present beside dir.
func beside(t *testing.T, dir string) (names []string) {
	t.Helper()
	for _, suffix := range []string{storage.SuffixPartial, storage.SuffixCopy, storage.SuffixAside} {
		if _, err := os.Lstat(dir + suffix); err == nil {
			names = append(names, filepath.Base(dir+suffix))
		}
	}
	return names
}

// mustBeEncrypted checks that dir holds the store whose content is want,
// encrypted under storage.TestKey, nothing of it in clear and nothing left
// beside it.
func mustBeEncrypted(t *testing.T, dir, want string, sec secrets) {
	t.Helper()
	if got := content(t, dir, storage.TestKey); got != want {
		t.Fatalf("encrypted store holds\n%s\nwant\n%s", got, want)
	}
	if _, err := storage.Open(dir, nil, zerolog.Nop()); !errors.Is(err, storage.ErrWrongKey) {
		t.Fatalf("open without the key after the encryption: %v", err)
	}
	if found := sec.find(t, filepath.Dir(dir)); len(found) > 0 {
		t.Fatalf("after the encryption the data directory reveals %q", found)
	}
	if left := beside(t, dir); len(left) > 0 {
		t.Fatalf("left beside the store: %v", left)
	}
}

// TestEncrypt migrates a plaintext store: the check sees the encrypted copy,
// then the store is the same, encrypted, with no plaintext left.
func TestEncrypt(t *testing.T) {
	dir, want, sec := plainStore(t)
	checked := ""
	err := storage.Encrypt(dir, storage.TestKey, zerolog.Nop(), func(newDir string) error {
		checked = newDir
		if got := content(t, newDir, storage.TestKey); got != want {
			return fmt.Errorf("the copy holds\n%s", got)
		}
		if found := sec.find(t, newDir); len(found) > 0 {
			return fmt.Errorf("the copy reveals %q", found)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked != dir+storage.SuffixCopy {
		t.Fatalf("checked %q", checked)
	}
	mustBeEncrypted(t, dir, want, sec)
	s := mustOpenDir(t, dir)
	mustAudit(t, newService(t, s))
	s.Close()

	if _, err := storage.EncryptBeside(dir, storage.TestKey, zerolog.Nop()); !errors.Is(err, storage.ErrWrongKey) {
		t.Fatalf("encryption of an encrypted store: %v", err)
	}
	if err := storage.Encrypt(filepath.Join(t.TempDir(), "none"), storage.TestKey, zerolog.Nop(), nil); err == nil {
		t.Fatal("encryption of no store succeeded")
	}

	// A failed check leaves the plaintext store in place.
	dir, want, _ = plainStore(t)
	refused := errors.New("audit failed")
	if err := storage.Encrypt(dir, storage.TestKey, zerolog.Nop(), func(string) error { return refused }); !errors.Is(err, refused) {
		t.Fatalf("encrypt with a failing check: %v", err)
	}
	if got := content(t, dir, nil); got != want {
		t.Fatal("a refused encryption changed the store")
	}
}

// TestEncryptCrashStates builds each state a cut can leave (migrate.go's
// table) and opens it as the next start would: it opens, plaintext or
// encrypted, with everything; once encrypted, no plaintext is left.
func TestEncryptCrashStates(t *testing.T) {
	nop := zerolog.Nop()
	mv := func(t *testing.T, from, to string) {
		t.Helper()
		if err := os.Rename(from, to); err != nil {
			t.Fatal(err)
		}
	}
	// copied is a plaintext store and its finished encrypted copy.
	copied := func(t *testing.T) (dir, want string, sec secrets) {
		dir, want, sec = plainStore(t)
		if _, err := storage.EncryptBeside(dir, storage.TestKey, nop); err != nil {
			t.Fatal(err)
		}
		return dir, want, sec
	}
	plainAfterCut := func(t *testing.T, dir, want string, sec secrets) {
		t.Helper()
		if _, err := storage.Open(dir, storage.TestKey, nop); !errors.Is(err, storage.ErrPlaintext) {
			t.Fatalf("open with the key: %v, want ErrPlaintext", err)
		}
		if got := content(t, dir, nil); got != want {
			t.Fatalf("plaintext store holds\n%s\nwant\n%s", got, want)
		}
		// The migration runs again from there.
		if err := storage.Encrypt(dir, storage.TestKey, nop, nil); err != nil {
			t.Fatalf("encrypt again after the cut: %v", err)
		}
		mustBeEncrypted(t, dir, want, sec)
	}

	t.Run("building", func(t *testing.T) { // D, P
		dir, want, sec := copied(t)
		mv(t, dir+storage.SuffixCopy, dir+storage.SuffixPartial)
		tables, _ := filepath.Glob(filepath.Join(dir+storage.SuffixPartial, "*.sst"))
		for _, p := range tables[len(tables)/2:] { // a copy cut short
			os.Remove(p)
		}
		plainAfterCut(t, dir, want, sec)
	})
	t.Run("built, not swapped", func(t *testing.T) { // D, E
		dir, want, sec := copied(t)
		plainAfterCut(t, dir, want, sec)
	})
	t.Run("built, plaintext opened meanwhile", func(t *testing.T) {
		dir, want, sec := copied(t)
		content(t, dir, nil) // opens and closes it: Badger rewrites files, not the data
		if err := storage.SwapEncrypted(dir, dir+storage.SuffixCopy, nop); err != nil {
			t.Fatal(err)
		}
		mustBeEncrypted(t, dir, want, sec)
	})
	t.Run("plaintext moved aside", func(t *testing.T) { // A, E
		dir, want, sec := copied(t)
		os.Remove(filepath.Join(dir+storage.SuffixCopy, storage.CopiedFrom))
		mv(t, dir, dir+storage.SuffixAside)
		mustBeEncrypted(t, dir, want, sec)
	})
	t.Run("plaintext moved aside, opened without a key", func(t *testing.T) {
		dir, want, sec := copied(t)
		mv(t, dir, dir+storage.SuffixAside)
		if _, err := storage.Open(dir, nil, nop); !errors.Is(err, storage.ErrWrongKey) {
			t.Fatalf("open without a key: %v, want ErrWrongKey (the swap completed)", err)
		}
		mustBeEncrypted(t, dir, want, sec)
	})
	t.Run("encrypted moved in", func(t *testing.T) { // A, D encrypted
		dir, want, sec := copied(t)
		mv(t, dir, dir+storage.SuffixAside)
		mv(t, dir+storage.SuffixCopy, dir)
		mustBeEncrypted(t, dir, want, sec)
	})
	t.Run("plaintext partly removed", func(t *testing.T) {
		dir, want, sec := copied(t)
		mv(t, dir, dir+storage.SuffixAside)
		mv(t, dir+storage.SuffixCopy, dir)
		os.Remove(filepath.Join(dir+storage.SuffixAside, "MANIFEST"))
		mustBeEncrypted(t, dir, want, sec)
	})
	t.Run("plaintext aside alone", func(t *testing.T) { // A: no run leaves it
		dir, want, sec := plainStore(t)
		mv(t, dir, dir+storage.SuffixAside)
		plainAfterCut(t, dir, want, sec)
	})

	// States no run leaves, which could lose data either way: refused, and
	// nothing is removed.
	for _, c := range []struct {
		name  string
		build func(t *testing.T, dir string)
	}{
		{"plaintext beside plaintext", func(t *testing.T, dir string) {
			if err := os.CopyFS(dir+storage.SuffixAside, os.DirFS(dir)); err != nil {
				t.Fatal(err)
			}
		}},
		{"all three", func(t *testing.T, dir string) {
			if _, err := storage.EncryptBeside(dir, storage.TestKey, nop); err != nil {
				t.Fatal(err)
			}
			if err := os.CopyFS(dir+storage.SuffixAside, os.DirFS(dir)); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, _, _ := plainStore(t)
			c.build(t, dir)
			names := beside(t, dir)
			for _, key := range [][]byte{nil, storage.TestKey} {
				if _, err := storage.Open(dir, key, nop); err == nil || !strings.Contains(err.Error(), "cannot be completed") {
					t.Fatalf("open: %v", err)
				} else {
					t.Log(err)
				}
			}
			if got := beside(t, dir); !slices.Equal(got, names) {
				t.Fatalf("beside the store %v, were %v", got, names)
			}
		})
	}
}

// TestEncryptRefusesMovedStore: a sale made in the plaintext store after
// its copy would be lost by the swap, which is refused.
func TestEncryptRefusesMovedStore(t *testing.T) {
	nop := zerolog.Nop()
	dir, _, sec := plainStore(t)
	newDir, err := storage.EncryptBeside(dir, storage.TestKey, nop)
	if err != nil {
		t.Fatal(err)
	}
	if err := storage.SwapEncrypted(dir, filepath.Join(t.TempDir(), "other"), nop); err == nil {
		t.Fatal("swap with a copy of another name succeeded")
	}
	s, err := storage.Open(dir, nil, nop)
	if err != nil {
		t.Fatal(err)
	}
	sell(t, newService(t, s), engine.SellRequest{Player: engine.DemoPlayer, Stake: 200, Count: 1, Actor: "test"})
	s.Close()
	want := content(t, dir, nil)
	if err := storage.SwapEncrypted(dir, newDir, nop); !errors.Is(err, storage.ErrStoreMoved) {
		t.Fatalf("swap after a sale: %v, want ErrStoreMoved", err)
	}
	if got := content(t, dir, nil); got != want {
		t.Fatal("a refused swap changed the store")
	}
	if err := storage.Encrypt(dir, storage.TestKey, nop, nil); err != nil {
		t.Fatal(err)
	}
	mustBeEncrypted(t, dir, want, sec)
}
