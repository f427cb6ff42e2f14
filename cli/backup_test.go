package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"slices"
	"starfortune/journal"
	"starfortune/keyring"
	"strings"
	"testing"
)

// members reads a backup's members, by name, in order: it opens the
// backup's keyring with the tests' passphrase, then its sealed stream.
func members(t *testing.T, file string) (names []string, data map[string][]byte) {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	rest, ok := bytes.CutPrefix(raw, []byte(backupMagic))
	if !ok {
		t.Fatalf("%s does not start with %q", file, backupMagic)
	}
	n := binary.BigEndian.Uint32(rest)
	ringFile := filepath.Join(t.TempDir(), "keyring")
	if err := os.WriteFile(ringFile, rest[4:4+n], 0o600); err != nil {
		t.Fatal(err)
	}
	ring, err := keyring.Load(ringFile)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := ring.UnlockPassphrase([]byte(testPassphrase))
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := keyring.NewSealReader(bytes.NewReader(rest[4+n:]), keys)
	if err != nil {
		t.Fatal(err)
	}
	gz, err := gzip.NewReader(sealed)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	data = map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names, data
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		data[h.Name] = b
	}
}

// writeBackup writes a backup of the given members, in order.
func writeBackup(t *testing.T, file string, names []string, data map[string][]byte) {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, n := range names {
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o640, Size: int64(len(data[n]))}); err != nil {
			t.Fatal(err)
		}
		tw.Write(data[n])
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	gz.Close()
	if err := os.WriteFile(file, buf.Bytes(), 0o640); err != nil {
		t.Fatal(err)
	}
}

// TestBackupInParts: a backup writes the store's stream (every key and
// value of the store, in clear) straight into the backup, in parts, never
// into a temporary file: without a temporary directory it still works,
// and nothing but the backup appears beside it. It restores, and so does a
// backup of the layout before #34 (the stream in one member); parts out of
// order are refused.
func TestBackupInParts(t *testing.T) {
	dir := newData(t)
	mustCLI(t, dir, "play", "--stake", "0,50", "--n", "5", "--batch", "5", "--json")
	want := mustCLI(t, dir, "history", "--last", "100", "--json")
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing")) // os.CreateTemp fails
	defer func(n int) { storePartSize = n }(storePartSize)
	storePartSize = 256 << 10

	out := t.TempDir()
	file := filepath.Join(out, "kiosk.sfbak")
	mustCLI(t, dir, "backup", file)
	if entries, _ := os.ReadDir(out); len(entries) != 1 {
		t.Fatalf("beside the backup: %v", entries)
	}
	names, data := members(t, file)
	parts := len(names) - 1
	if parts < 3 || names[parts] != backupJournal {
		t.Fatalf("members %v: want the store in several parts, then the journal", names)
	}
	var stream []byte
	for i, n := range names[:parts] {
		if n != storePart(i) || i < parts-1 && len(data[n]) != storePartSize {
			t.Fatalf("member %d is %s of %d bytes", i, n, len(data[n]))
		}
		stream = append(stream, data[n]...)
	}
	restored := filepath.Join(t.TempDir(), "restored")
	if got := mustCLI(t, restored, "restore", file); !strings.Contains(got, "audit OK") {
		t.Fatalf("restore: %s", got)
	}
	if got := mustCLI(t, restored, "history", "--last", "100", "--json"); got != want {
		t.Fatalf("restored history differs:\n%s\nwant\n%s", got, want)
	}

	// A backup made before #34: the stream whole in store.badger, the
	// journal in clear.
	old := filepath.Join(t.TempDir(), "old.sfbak")
	writeBackup(t, old, []string{backupStore, backupJournal}, map[string][]byte{backupStore: stream, backupJournal: clearJournal(t, dir, data[backupJournal])})
	restored = filepath.Join(t.TempDir(), "restored-old")
	if got := mustCLI(t, restored, "restore", old); !strings.Contains(got, "audit OK") {
		t.Fatalf("restore of a pre-#34 backup: %s", got)
	}

	for name, order := range map[string][]string{
		"parts swapped": append(append([]string{names[1], names[0]}, names[2:parts]...), backupJournal),
		"a part lost":   append(slices.Clone(names[:1]), names[2:]...),
		"journal only":  {backupJournal},
	} {
		bad := filepath.Join(t.TempDir(), "bad.sfbak")
		writeBackup(t, bad, order, data)
		into := filepath.Join(t.TempDir(), "x")
		if _, errOut, code := cli(t, into, "restore", bad); code != 1 {
			t.Fatalf("%s: restore status %d: %s", name, code, errOut)
		} else {
			t.Logf("%s: %s", name, strings.TrimSpace(errOut))
		}
		d := DataDir(into)
		left, _ := filepath.Glob(d.Store() + "*")
		left2, _ := filepath.Glob(d.Journal() + "*")
		if left = append(left, left2...); len(left) > 0 {
			t.Fatalf("%s: a refused restore left %v", name, left)
		}
	}
}

// clearJournal is a sealed journal of the data directory dir in clear, as
// the journals before encryption at rest were.
func clearJournal(t *testing.T, dir string, sealed []byte) []byte {
	t.Helper()
	keys, err := DataDir(dir).Unlock([]byte(testPassphrase))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "journal.sfj")
	if err := os.WriteFile(path, sealed, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := journal.Reseal(path, journalKeys(keys), journal.Plain); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A restore writes nothing it has not checked: a backup member larger than
// the free space (a compressed bomb: a small file declaring terabytes) is
// refused before it is written, and a backup whose restored copy does not
// audit clean (here its journal emptied: the store is ahead of it) is
// refused after the audit of that copy; either way the data directory
// holds nothing of it.
func TestRestoreChecksBeforeAnythingMovesIn(t *testing.T) {
	bomb := filepath.Join(t.TempDir(), "bomb.sfbak")
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: backupJournal, Mode: 0o600, Size: 1 << 50}); err != nil {
		t.Fatal(err)
	}
	tw.Write(make([]byte, 4096)) // the rest would unpack from almost nothing
	gz.Close()
	if err := os.WriteFile(bomb, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}

	dir := newData(t)
	mustCLI(t, dir, "play", "--stake", "0,50", "--n", "5", "--json")
	real := filepath.Join(t.TempDir(), "kiosk.sfbak")
	mustCLI(t, dir, "backup", real)
	names, data := members(t, real)
	data[backupJournal] = nil
	emptied := filepath.Join(t.TempDir(), "emptied.sfbak")
	writeBackup(t, emptied, names, data)

	for file, says := range map[string]string{bomb: "disk full", emptied: "journal"} {
		restored := filepath.Join(t.TempDir(), "restored")
		_, errOut, code := cli(t, restored, "restore", file)
		if code != 1 || !strings.Contains(errOut, "nothing was restored") || !strings.Contains(errOut, says) {
			t.Fatalf("restore %s: %d %q", filepath.Base(file), code, errOut)
		}
		entries, _ := os.ReadDir(restored)
		for _, e := range entries {
			if e.Name() != "logs" {
				t.Errorf("restore %s left %s in the data directory", filepath.Base(file), e.Name())
			}
		}
	}
}
