package storage_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"starfortune/internal/powercut"
	"starfortune/storage"
)

// Each power-cut case writes keys (every commit synced) in a child process
// on a power-cut file system until the moment it waits for, then the power
// is cut. Badger maps its files: a page fault on a FUSE file served by the
// same process can deadlock the Go runtime, so the writer is a child.
var cutCases = map[string]struct {
	tuning storage.Tuning
	ready  func(dir string, s *storage.Store, n int) bool
}{
	// Badger's new value-log and write-ahead-log files had their names
	// never synced (badger.patch, logFile.open): a power cut after the
	// value log moved to a new file lost the values committed into it,
	// while the keys pointing at them survived.
	"value log rotated": {storage.Tuning{ValueThreshold: 64, ValueLogFileSize: 1 << 20},
		func(dir string, s *storage.Store, n int) bool {
			m, _ := filepath.Glob(filepath.Join(dir, "*.vlog"))
			return len(m) > 1 && n%10 == 5 // a few commits into the new file
		}},
	// A memtable flush wrote its table into the MANIFEST before the
	// table's name was synced (badger.patch, handleMemTableFlush): after a
	// power cut the MANIFEST listed a table that was not there, and the
	// store would not open.
	"memtable flushed": {storage.Tuning{MemTableSize: 1 << 20, ValueThreshold: 64 << 10},
		func(dir string, s *storage.Store, n int) bool {
			for _, tb := range storage.RawDB(s).Tables() {
				if tb.Level == 0 {
					return true // flushed and in the MANIFEST
				}
			}
			time.Sleep(time.Millisecond)
			return false
		}},
}

func value(i int) []byte { return bytes.Repeat([]byte{byte(i)}, 1000) }

// cutWriter is the child: it writes keys k0, k1, … into the store at dir,
// printing each once committed, and "cut" when the case's moment has come.
func cutWriter(dir, name string) int {
	c := cutCases[name]
	storage.Tune(c.tuning)
	s, err := storage.Open(dir, storage.TestKey, zerolog.Nop())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for i := 0; ; i++ {
		if c.ready(dir, s, i) {
			fmt.Println("cut")
			select {} // until killed
		}
		err := storage.RawDB(s).Update(func(txn *badger.Txn) error { return txn.Set([]byte(fmt.Sprint("k", i)), value(i)) })
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println("k", i)
	}
}

// encryptChild is the child of TestPowerCutInEncryption: it encrypts the
// store at dir, says "encrypted", and waits to be killed.
func encryptChild(dir string) int {
	if err := storage.Encrypt(dir, storage.TestKey, zerolog.Nop(), nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("encrypted")
	select {}
}

// encryptCuts are the moments TestPowerCutInEncryption cuts at: when a
// path (relative to the backing directory) the case matches is written,
// created, renamed or removed, or after a delay.
var encryptCuts = map[string]func(rel string) bool{
	"copying":           func(rel string) bool { return strings.HasPrefix(rel, "db"+storage.SuffixPartial+"/") },
	"copy renamed":      func(rel string) bool { return rel == "db"+storage.SuffixCopy },
	"store aside":       func(rel string) bool { return rel == "db"+storage.SuffixAside },
	"copy moved in":     func(rel string) bool { return rel == "db" },
	"plaintext removed": func(rel string) bool { return strings.HasPrefix(rel, "db"+storage.SuffixAside+"/") },
	"at random":         nil,
}

// TestPowerCutInEncryption cuts the power during the one-time encryption
// of a plaintext store, at each of its steps: the next start finds a store
// that opens, either still in clear or encrypted, with all its content, and
// once encrypted no plaintext of it anywhere in the directory.
func TestPowerCutInEncryption(t *testing.T) {
	for name, match := range encryptCuts {
		t.Run(name, func(t *testing.T) {
			plain, sec := copiedStore(t, nil)
			fs, backing, mnt := powercut.MountTemp(t)
			db := filepath.Join(backing, "db")
			if err := os.CopyFS(db, os.DirFS(plain)); err != nil {
				t.Fatal(err)
			}
			want := content(t, db, nil)
			fired := make(<-chan struct{})
			var delay <-chan time.Time
			if match != nil {
				fired = fs.Watch(match)
			} else {
				delay = time.After(time.Duration(rand.IntN(3000)) * time.Millisecond)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "STARFORTUNE_CUT_ENCRYPT="+filepath.Join(mnt, "db"))
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case <-fired:
			case <-delay:
			case err := <-exited:
				t.Fatalf("the child ended before the cut: %v: %s", err, stderr.String())
			case <-time.After(2 * time.Minute):
				t.Fatal("the moment never came")
			}
			st, err := fs.Cut()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Process.Kill()
			<-exited
			t.Logf("cut (child said %q): %d names and %d files undone", strings.TrimSpace(stdout.String()), st.NamesUndone, st.FilesReverted)

			s, err := storage.Open(db, storage.TestKey, zerolog.Nop())
			switch {
			case errors.Is(err, storage.ErrPlaintext):
				if stdout.String() != "" {
					t.Fatalf("the child said %q, and the store is in clear", stdout.String())
				}
				t.Log("the store is still in clear")
				if got := content(t, db, nil); got != want {
					t.Fatalf("the plaintext store holds\n%s\nwant\n%s", got, want)
				}
				if err := storage.Encrypt(db, storage.TestKey, zerolog.Nop(), nil); err != nil {
					t.Fatalf("encrypt again after the cut: %v", err)
				}
			case err != nil:
				t.Fatalf("the store does not open after the cut: %v", err)
			default:
				t.Log("the store is encrypted")
				s.Close()
			}
			mustBeEncrypted(t, db, want, sec)
		})
	}
}

// rekeyChild is the child of TestPowerCutInRekey: it rotates the key of
// the store at dir from TestKey to OtherKey, says "rekeyed", and waits.
func rekeyChild(dir string) int {
	if err := storage.Rekey(dir, storage.TestKey, storage.OtherKey); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("rekeyed")
	select {}
}

// TestPowerCutInRekey cuts the power while the master key is rotated,
// when the new key registry is written, when it is renamed over the old
// one, or after: the store opens with the new key or, failing that, with
// the old one (the new one once the rotation was acknowledged), whole.
func TestPowerCutInRekey(t *testing.T) {
	for name, match := range map[string]func(rel string) bool{
		"registry written": func(rel string) bool { return rel == "db/"+badger.KeyRegistryRewriteFileName },
		"registry renamed": func(rel string) bool { return rel == "db/"+badger.KeyRegistryFileName },
		"after":            nil,
	} {
		t.Run(name, func(t *testing.T) {
			enc, _ := copiedStore(t, storage.TestKey)
			fs, backing, mnt := powercut.MountTemp(t)
			db := filepath.Join(backing, "db")
			if err := os.CopyFS(db, os.DirFS(enc)); err != nil {
				t.Fatal(err)
			}
			want := content(t, db, storage.TestKey)
			fired := make(<-chan struct{})
			if match != nil {
				fired = fs.Watch(match)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "STARFORTUNE_CUT_REKEY="+filepath.Join(mnt, "db"))
			out, _ := cmd.StdoutPipe()
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			said := make(chan string, 1)
			go func() { b := bufio.NewScanner(out); b.Scan(); said <- b.Text() }()
			acked := false
			select {
			case <-fired:
			case s := <-said:
				if acked = s == "rekeyed"; !acked {
					t.Fatalf("the child said %q: %s", s, stderr.String())
				}
			case <-time.After(time.Minute):
				t.Fatal("the moment never came")
			}
			if _, err := fs.Cut(); err != nil {
				t.Fatal(err)
			}
			cmd.Process.Kill()
			cmd.Wait()
			key := storage.OtherKey
			s, err := storage.Open(db, key, zerolog.Nop())
			switch {
			case err == nil:
				s.Close()
			case errors.Is(err, storage.ErrWrongKey) && !acked:
				key = storage.TestKey
			default:
				t.Fatalf("open with the new key after the cut (acknowledged: %v): %v", acked, err)
			}
			t.Logf("the store opens with the %s key", map[bool]string{true: "new", false: "old"}[bytes.Equal(key, storage.OtherKey)])
			if got := content(t, db, key); got != want {
				t.Fatalf("after the cut the store holds\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestPowerCutInBadger(t *testing.T) {
	for name := range cutCases {
		t.Run(name, func(t *testing.T) {
			fs, backing, mnt := powercut.MountTemp(t)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "STARFORTUNE_CUT_WRITER="+filepath.Join(mnt, "db"), "STARFORTUNE_CUT_CASE="+name)
			out, _ := cmd.StdoutPipe()
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			n := 0
			sc := bufio.NewScanner(out)
			for sc.Scan() && sc.Text() != "cut" {
				n, _ = strconv.Atoi(strings.TrimPrefix(sc.Text(), "k "))
				n++
			}
			if _, err := fs.Cut(); err != nil {
				t.Fatal(err)
			}
			cmd.Process.Kill()
			cmd.Wait()
			if n == 0 {
				t.Fatalf("the writer wrote nothing: %s", stderr.String())
			}
			s := mustOpenDir(t, filepath.Join(backing, "db"))
			err := storage.RawDB(s).View(func(txn *badger.Txn) error {
				for i := 0; i < n; i++ {
					item, err := txn.Get([]byte(fmt.Sprint("k", i)))
					if err == nil {
						var v []byte
						v, err = item.ValueCopy(nil)
						if err == nil && !bytes.Equal(v, value(i)) {
							err = fmt.Errorf("wrong value")
						}
					}
					if err != nil {
						return fmt.Errorf("key %d of %d: %w", i, n, err)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatalf("a synced commit was lost at the power cut: %v", err)
			}
		})
	}
}
