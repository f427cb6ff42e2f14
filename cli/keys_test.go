package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"starfortune/internal/cleardata"
	"starfortune/journal"
	"starfortune/storage"
)

// cliBare runs the command line without the tests' passphrase file.
func cliBare(dir string, args ...string) (string, string, int) {
	var out, errOut bytes.Buffer
	code := Main(append([]string{"--data", dir}, args...), Program{Stdin: stdin, Stdout: &out, Stderr: &errOut, OpenLog: testLog})
	return out.String(), errOut.String(), code
}

// A new data directory opened by a command with no passphrase is refused,
// pointing at key init; the window makes it the demo's: its key in a
// marked file beside the data, the demo wallet plays, and no real money
// moves there, nor is it backed up.
func TestDemoDataDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	if _, errOut, code := cliBare(dir, "operator", "set-pin"); code != 1 || !strings.Contains(errOut, "key init") {
		t.Fatalf("a command on a new data directory without a passphrase: status %d: %s", code, errOut)
	}
	for _, p := range []string{DataDir(dir).Keyring(), DataDir(dir).Store(), DataDir(dir).Journal(), DataDir(dir).DemoKey()} {
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("the refused command made %s", p)
		}
	}
	c := &call{ctx: context.Background(), data: DataDir(dir), demoOK: true, logger: zerolog.Nop(), shared: &shared{}} // the window's
	if k, _, err := c.findKey(nil); err != nil || !k.demo {
		t.Fatalf("the window on a new data directory: demo %v, %v", k.demo, err)
	}
	if out, errOut, code := cliBare(dir, "play", "--stake", "1", "--n", "2", "--json"); code != 0 || len(decodeSales(t, out)) != 2 {
		t.Fatalf("demo play: status %d %s", code, errOut)
	}
	if b, err := os.ReadFile(DataDir(dir).DemoKey()); err != nil || !strings.Contains(strings.ToLower(string(b)), "demo") {
		t.Fatalf("the demo's key file: %v %q", err, b)
	}
	for _, args := range [][]string{
		{"wallet", "credit", "--player", "alice", "--amount", "20"},
		{"wallet", "payout", "--amount", "1"},
		{"play", "--player", "alice", "--stake", "1"},
		{"backup", filepath.Join(t.TempDir(), "b")},
		{"key", "rotate"},
	} {
		_, errOut, code := cliBare(dir, args...)
		if code != 1 || !strings.Contains(errOut, "demo") {
			t.Errorf("%s on the demo's data directory: status %d: %s", strings.Join(args, " "), code, errOut)
		}
	}
	if out, _, _ := cliBare(dir, "key", "status"); !strings.Contains(out, "DEMO") {
		t.Errorf("key status: %s", out)
	}
	if _, errOut, code := cliBare(dir, "--passphrase-file", passphraseFile, "key", "init"); code != 1 || !strings.Contains(errOut, "NEWDIR") {
		t.Errorf("key init on the demo's directory: status %d: %s", code, errOut)
	}
}

// A real data directory opens only with its passphrase: none given is a
// clear error naming the ways to give it, a wrong one another; both change
// nothing.
func TestPassphraseOpensTheDataDirectory(t *testing.T) {
	dir := newData(t)
	card := openCard(t, dir)
	mustCLI(t, dir, "wallet", "credit", "--card", card, "--pin", testCardPIN, "--amount", "20")
	if _, errOut, code := cliBare(dir, "wallet", "show", "--player", card); code != 1 || !strings.Contains(errOut, "--passphrase-file") {
		t.Fatalf("no passphrase: status %d: %s", code, errOut)
	}
	wrong := filepath.Join(t.TempDir(), "wrong")
	os.WriteFile(wrong, []byte("not the passphrase\n"), 0o600)
	if _, errOut, code := cliBare(dir, "--passphrase-file", wrong, "wallet", "show", "--player", card); code != 1 || !strings.Contains(errOut, "wrong passphrase") {
		t.Fatalf("wrong passphrase: status %d: %s", code, errOut)
	}
	if out := mustCLI(t, dir, "wallet", "show", "--player", card); !strings.Contains(out, "20,00 €") {
		t.Fatalf("after the refusals: %s", out)
	}
}

// key passphrase and key rotate change how the data key is kept and the
// key itself without re-drawing anything: the history, the blocks'
// commitments and the audit are the same after, under the new key only.
func TestKeyPassphraseAndRotate(t *testing.T) {
	dir := newData(t)
	card := openCard(t, dir)
	mustCLI(t, dir, "wallet", "credit", "--card", card, "--pin", testCardPIN, "--amount", "20")
	mustCLI(t, dir, "play", "--card", card, "--pin", testCardPIN, "--stake", "1", "--n", "5", "--batch", "5")
	history := mustCLI(t, dir, "history", "--player", card, "--last", "100", "--json")
	blocks := mustCLI(t, dir, "blocks", "--json")
	d := DataDir(dir)
	before, _ := d.Unlock([]byte(testPassphrase))

	newPass := filepath.Join(t.TempDir(), "new")
	os.WriteFile(newPass, []byte("a new passphrase for the kiosk\n"), 0o600)
	mustCLI(t, dir, "key", "passphrase", "--new-passphrase-file", newPass)
	if _, _, code := cli(t, dir, "history"); code != 1 {
		t.Fatal("the old passphrase still opens the data directory")
	}
	if out := mustCLI(t, dir, "--passphrase-file", newPass, "key", "rotate"); !strings.Contains(out, "generation 2") {
		t.Fatalf("key rotate: %s", out)
	}
	after, err := d.Unlock([]byte("a new passphrase for the kiosk"))
	if err != nil || after.Current().Gen() != 2 || after.Current().Badger() == nil || bytes.Equal(after.Current().Badger(), before.Current().Badger()) {
		t.Fatalf("after the rotation: generation %d, %v", after.Current().Gen(), err)
	}
	if _, ok := after.Previous(); ok {
		t.Fatal("the old generation is kept after the rotation")
	}
	if _, err := storage.Open(d.Store(), before.Current().Badger(), zerolog.Nop()); err == nil {
		t.Fatal("the old key still opens the store")
	}
	if j, err := journal.Open(d.Journal(), journalKeys(before)); err == nil {
		j.Close()
		t.Fatal("the old key still opens the journal")
	}
	run := func(args ...string) string {
		return mustCLI(t, dir, append([]string{"--passphrase-file", newPass}, args...)...)
	}
	if got := run("history", "--player", card, "--last", "100", "--json"); got != history {
		t.Fatalf("history after the rotation:\n%s\nwant\n%s", got, history)
	}
	if got := run("blocks", "--json"); got != blocks {
		t.Fatalf("blocks after the rotation:\n%s\nwant\n%s", got, blocks)
	}
	if out := run("audit"); !strings.Contains(out, "audit OK") {
		t.Fatalf("audit after the rotation: %s", out)
	}
}

// A data directory written in clear by an earlier version is refused until
// key init encrypts it: the journal resealed, the store copied encrypted,
// audited, swapped in, and no clear copy left; what it held is all there.
func TestKeyInitEncryptsAClearDataDirectory(t *testing.T) {
	dir := newData(t)
	card := openCard(t, dir)
	mustCLI(t, dir, "wallet", "credit", "--card", card, "--pin", testCardPIN, "--amount", "20")
	mustCLI(t, dir, "play", "--card", card, "--pin", testCardPIN, "--stake", "1", "--n", "5", "--batch", "2")
	history := mustCLI(t, dir, "history", "--player", card, "--last", "100", "--json")
	secrets := unsold(t, dir)
	decrypt(t, dir)
	if found := leaks(t, secrets, dir); len(found) == 0 { // the search finds what is there
		t.Fatal("a data directory in clear shows none of its open blocks' secrets")
	}

	if _, errOut, code := cli(t, dir, "history"); code != 1 || !strings.Contains(errOut, "key init") {
		t.Fatalf("a data directory in clear: status %d: %s", code, errOut)
	}
	out := mustCLI(t, dir, "key", "init")
	if !strings.Contains(out, "journal") || !strings.Contains(out, "audited") || !strings.Contains(out, "encrypted at rest") {
		t.Fatalf("key init: %s", out)
	}
	if got := mustCLI(t, dir, "history", "--player", card, "--last", "100", "--json"); got != history {
		t.Fatalf("history after the encryption:\n%s\nwant\n%s", got, history)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*", "*.plain*"))
	left2, _ := filepath.Glob(filepath.Join(dir, "*.plain*"))
	if left = append(left, left2...); len(left) > 0 {
		t.Fatalf("clear copies left: %v", left)
	}
	if found := leaks(t, secrets, dir); len(found) > 0 {
		t.Fatalf("after key init, the open blocks' secrets are readable in %v", found)
	}
}

// After sales, nothing of a data directory (its logs included) or of its
// backup shows an open block's seed, its units in serving order or the
// passphrase, in any encoding; a store opened without its key, or under
// another, is refused.
func TestNothingUnsoldIsReadableAtRest(t *testing.T) {
	dir := newData(t)
	card := openCard(t, dir)
	mustCLI(t, dir, "wallet", "credit", "--card", card, "--pin", testCardPIN, "--amount", "50")
	mustCLI(t, dir, "play", "--card", card, "--pin", testCardPIN, "--stake", "0.5", "--n", "30", "--batch", "7")
	backup := filepath.Join(t.TempDir(), "kiosk.sfbak")
	mustCLI(t, dir, "backup", backup)
	assertSecret(t, dir, backup)
	if found := leaks(t, [][]byte{[]byte(testPassphrase)}, dir, backup); len(found) > 0 {
		t.Fatalf("the passphrase is readable in %v", found)
	}

	d := DataDir(dir)
	for name, key := range map[string][]byte{"no key": nil, "another key": bytes.Repeat([]byte{7}, 32)} {
		_, err := storage.Open(d.Store(), key, zerolog.Nop())
		if err == nil || !strings.Contains(err.Error(), "key") {
			t.Errorf("the store opened with %s: %v", name, err)
		}
	}
	db, err := badger.Open(badger.DefaultOptions(d.Store()).WithLogger(nil).WithIndexCacheSize(1 << 20))
	if err == nil {
		db.Close()
		t.Fatal("Badger opened the store without its key")
	}
	t.Logf("Badger without the key: %v", err)
}

// assertSecret reads every byte of the data directory dir (and of the
// extra files) and fails if an open block's seed, or any run of 16 of its
// units' encodings from its cursor on, shows there: raw, in hex or in
// base64.
func assertSecret(t *testing.T, dir string, extra ...string) {
	t.Helper()
	if found := leaks(t, unsold(t, dir), dir, extra...); len(found) > 0 {
		t.Fatalf("the open blocks' secrets are readable in %v", found)
	}
}

// unsold is what must stay secret in the data directory dir: its open
// blocks' seeds, and runs of 16 units from their cursors on.
func unsold(t *testing.T, dir string) [][]byte {
	t.Helper()
	d := DataDir(dir)
	keys, err := d.Unlock([]byte(testPassphrase))
	if err != nil {
		t.Fatal(err)
	}
	seeds, runs := cleardata.Unsold(t, d.Store(), keys.Current().Badger(), 16, 512)
	return append(seeds, runs...)
}

// leaks lists the files of dir, and the extra ones, holding one of the
// secrets in clear.
func leaks(t *testing.T, secrets [][]byte, dir string, extra ...string) []string {
	t.Helper()
	var files, found []string
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			files = append(files, p)
		}
		return err
	})
	for _, f := range append(files, extra...) {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, sec := range secrets {
			for _, enc := range [][]byte{sec, []byte(hex.EncodeToString(sec)), []byte(base64.StdEncoding.EncodeToString(sec)), []byte(base64.RawURLEncoding.EncodeToString(sec))} {
				if bytes.Contains(raw, enc) {
					found = append(found, fmt.Sprintf("%s (secret %d)", f, i))
				}
			}
		}
	}
	return found
}

// decrypt turns the data directory dir into one written in clear, as
// before encryption at rest.
func decrypt(t *testing.T, dir string) {
	t.Helper()
	d := DataDir(dir)
	keys, err := d.Unlock([]byte(testPassphrase))
	if err != nil {
		t.Fatal(err)
	}
	cleardata.Decrypt(t, d.Store(), keys.Current().Badger(), d.Journal(), journalKeys(keys))
	if err := os.Remove(d.Keyring()); err != nil {
		t.Fatal(err)
	}
}

// What a command makes in a data directory is its user's alone: files
// mode 600, directories 700, whatever the umask it was started with.
func TestDataDirectoryIsPrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "kiosk")
	mustRun(t, "--data", dir, "play", "--stake", "1", "--n", "3")
	mustRun(t, "--data", dir, "backup", filepath.Join(dir, "b.sfbak"))
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if m := info.Mode().Perm(); m&0o077 != 0 {
			t.Errorf("%s: mode %04o, readable beyond its owner", path, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A kiosk's password to its central never goes on the command line, where
// ps shows it: --central with one is refused; a file of its own (mode 600)
// or the settings file carries it.
func TestCentralPasswordNeverOnTheCommandLine(t *testing.T) {
	dir := t.TempDir()
	const url = "host=/nonexistent dbname=sf user=k1 password=s3cret connect_timeout=1"
	var out, stderr bytes.Buffer
	if code := run([]string{"--data", dir, "--central", url, "--kiosk-id", "k1", "sync", "--status"}, &out, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), "--central-file") || strings.Contains(stderr.String(), "s3cret") {
		t.Fatalf("--central with a password: %d %q", code, stderr.String())
	}
	file := filepath.Join(t.TempDir(), "central.url")
	if err := os.WriteFile(file, []byte(url+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(file, 0o644) // whatever the umask
	stderr.Reset()
	if code := run([]string{"--data", dir, "--central-file", file, "--kiosk-id", "k1", "sync", "--status"}, &out, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), "chmod 600 "+file) {
		t.Fatalf("a central file readable by others: %d %q", code, stderr.String())
	}
	os.Chmod(file, 0o600)
	stderr.Reset()
	t.Setenv(centralFileEnv, file)
	code := run([]string{"--data", dir, "--kiosk-id", "k1", "sync", "--status"}, &out, &stderr)
	if strings.Contains(stderr.String(), "chmod") || strings.Contains(stderr.String(), "central file") || strings.Contains(stderr.String(), "s3cret") {
		t.Fatalf("a private central file: %d %q", code, stderr.String())
	}
}

// A kiosk behind a pooler may take its call key from a file of its own
// (mode 600), as its connection string: --call-key-file or
// STARFORTUNE_CALL_KEY_FILE, for a service manager's credentials.
func TestCallKeyFile(t *testing.T) {
	dir := t.TempDir()
	central := filepath.Join(t.TempDir(), "central.url")
	if err := os.WriteFile(central, []byte("host=/nonexistent dbname=sf user=sf_pool password=s3cret connect_timeout=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(t.TempDir(), "call.key")
	sync := func(args ...string) (int, string) {
		var out, stderr bytes.Buffer
		code := run(append([]string{"--data", dir, "--central-file", central}, append(args, "sync", "--status")...), &out, &stderr)
		return code, stderr.String()
	}
	if err := os.WriteFile(key, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, errOut := sync("--kiosk-id", "k1", "--call-key-file", key); code == 0 || !strings.Contains(errOut, "64 hexadecimal digits") {
		t.Fatalf("a call key file without a key: %d %q", code, errOut)
	}
	if err := os.WriteFile(key, []byte(strings.Repeat("ab", 32)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(key, 0o644) // whatever the umask
	if code, errOut := sync("--kiosk-id", "k1", "--call-key-file", key); code == 0 || !strings.Contains(errOut, "chmod 600 "+key) ||
		strings.Contains(errOut, "abab") {
		t.Fatalf("a call key file readable by others: %d %q", code, errOut)
	}
	os.Chmod(key, 0o600)
	if code, errOut := sync("--call-key-file", key); code != 2 || !strings.Contains(errOut, "--kiosk-id") {
		t.Fatalf("a call key without a kiosk id: %d %q", code, errOut)
	}
	t.Setenv(callKeyFileEnv, key)
	if code, errOut := sync("--kiosk-id", "k1"); strings.Contains(errOut, "call key") || strings.Contains(errOut, "abab") {
		t.Fatalf("a private call key file: %d %q", code, errOut)
	}
}
