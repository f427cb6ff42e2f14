package e2e

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/chacha20poly1305"

	sf "starfortune/cli"
	"starfortune/engine"
	"starfortune/internal/cleardata"
	"starfortune/internal/testenv"
)

// No secret in any log, error, crash output or screen (issue #34): a lone
// kiosk is run through its life as the shipped binary, every byte it
// prints and logs is kept, and none of it may show a passphrase (the
// current one, an old one, a wrong one), the operator PIN, a key (the data
// key of every generation, the keyring's wrapping key, a slot's
// key-encryption key, the purpose keys derived from the data key), an
// open block's seed or a run of its unsold units, in any of the encodings
// a program prints bytes in. A closed block's seed is public; no block
// closes here.
//
// What the program writes at rest is TestNothingUnsoldIsReadableAtRest's
// (cli/keys_test.go); this is what it says. What the window draws on its
// unlock screen is ui's TestUnlockScreenNeverShowsThePassphrase.

// secretLife is the kiosk's life under test: its data directories, its
// passphrase files, and what it printed and logged.
type secretLife struct {
	t    *testing.T
	bin  string
	work string
	dir  string // the kiosk's data directory
	card string // the account that plays

	captured []capture
}

// capture is one output of the program: a command's stdout or stderr, a
// log file.
type capture struct {
	name string
	b    []byte
}

// run runs the program with args on data directory dir (with the
// passphrase in file pass, "" for none), stdin fed with in, and keeps its
// stdout and stderr. STARFORTUNE_DEV copies the log to stderr, as a
// developer's run does: the console's rendering is checked too.
func (l *secretLife) run(name, dir, pass, in string, args ...string) (string, string, int) {
	l.t.Helper()
	full := []string{"--data", dir}
	if pass != "" {
		full = append(full, "--passphrase-file", pass)
	}
	cmd := exec.Command(l.bin, append(full, args...)...)
	cmd.Env = append(secretEnv(), "STARFORTUNE_DEV=1")
	cmd.Stdin = strings.NewReader(in)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			l.t.Fatalf("%s: %v", name, err)
		}
		code = exit.ExitCode()
	}
	l.keep(name, out.Bytes(), errOut.Bytes())
	return out.String(), errOut.String(), code
}

func (l *secretLife) keep(name string, stdout, stderr []byte) {
	l.captured = append(l.captured, capture{name + ": stdout", stdout}, capture{name + ": stderr", stderr})
}

// must is run, failing unless the command succeeded.
func (l *secretLife) must(name, dir, pass, in string, args ...string) string {
	l.t.Helper()
	out, errOut, code := l.run(name, dir, pass, in, args...)
	if code != 0 {
		l.t.Fatalf("%s: status %d\n%s%s", name, code, out, errOut)
	}
	return out
}

// interrupted starts a long play and ends it with sig once it has printed
// a few units: SIGKILL (a crash: nothing printed) or SIGQUIT (Go's crash
// output: every goroutine's stack, with arguments).
func (l *secretLife) interrupted(name, pass string, sig syscall.Signal) {
	l.t.Helper()
	cmd := exec.Command(l.bin, "--data", l.dir, "--passphrase-file", pass, "play", "--card", l.card, "--pin", testCardPIN, "--stake", "0.5", "--n", "1000000", "--json")
	cmd.Env = append(secretEnv(), "STARFORTUNE_DEV=1", "GOTRACEBACK=all")
	errOut := &safeBuffer{}
	cmd.Stderr = errOut
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		l.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		l.t.Fatal(err)
	}
	var out bytes.Buffer
	sc := bufio.NewScanner(stdout)
	for n := 0; sc.Scan(); n++ {
		out.Write(sc.Bytes())
		out.WriteByte('\n')
		if n == 20 {
			cmd.Process.Signal(sig)
		}
	}
	io.Copy(&out, stdout)
	err = cmd.Wait()
	l.keep(name, out.Bytes(), []byte(errOut.String()))
	if sig == syscall.SIGQUIT && !strings.Contains(errOut.String(), "goroutine ") {
		l.t.Fatalf("%s: no goroutine dump after SIGQUIT (%v):\n%s", name, err, errOut)
	}
}

// secretEnv is the test's environment without the tests' passphrase file:
// this test gives its own.
func secretEnv() []string {
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "STARFORTUNE_") {
			env = append(env, e)
		}
	}
	return env
}

// writeSecret writes s to a new file of the test's work directory.
func (l *secretLife) writeSecret(name, s string) string {
	l.t.Helper()
	p := filepath.Join(l.work, name)
	if err := os.WriteFile(p, []byte(s+"\n"), 0o600); err != nil {
		l.t.Fatal(err)
	}
	return p
}

// copyRing keeps a copy of the data directory's keyring as it stands.
func (l *secretLife) copyRing(name string) string {
	l.t.Helper()
	b, err := os.ReadFile(sf.DataDir(l.dir).Keyring())
	if err != nil {
		l.t.Fatal(err)
	}
	p := filepath.Join(l.work, name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		l.t.Fatal(err)
	}
	return p
}

// logs keeps every log file of the data directory dir (a rotated one
// unzipped).
func (l *secretLife) logs(dir string) {
	l.t.Helper()
	filepath.WalkDir(filepath.Join(dir, "logs"), func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			l.t.Fatal(err)
		}
		if strings.HasSuffix(p, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				l.t.Fatal(err)
			}
			if b, err = io.ReadAll(zr); err != nil {
				l.t.Fatal(err)
			}
		}
		l.captured = append(l.captured, capture{p, b})
		return nil
	})
}

func TestNoSecretInAnyOutput(t *testing.T) {
	t.Parallel() // a score of child processes, one after the other: beside the other long ones
	start := time.Now()
	l := &secretLife{t: t, bin: starfortune(t), work: t.TempDir()}
	l.dir = filepath.Join(l.work, "kiosk7")
	passes := map[string]string{
		"first passphrase":   "Quatre mots au hasard: orme vélo brume",
		"second passphrase":  "another four words: ladder quartz moss",
		"rotated passphrase": "a third one after the rotation: kiwi dune",
		"wrong passphrase":   "Quatre mots au hasard: orme velo brume", // a typo of the first
	}
	const pin = "381946572810"
	p1 := l.writeSecret("pass1", passes["first passphrase"])
	p2 := l.writeSecret("pass2", passes["second passphrase"])
	p3 := l.writeSecret("pass3", passes["rotated passphrase"])
	wrong := l.writeSecret("wrong", passes["wrong passphrase"])

	l.must("key init", l.dir, "", "", "key", "init", "--new-passphrase-file", p1)
	ring1 := l.copyRing("keyring-gen1")
	l.card = cardOf(t, l.must("player open", l.dir, p1, testCardPIN+"\n", cardArgs("SECRET-LIFE")...))
	l.must("wallet credit", l.dir, p1, "", "wallet", "credit", "--card", l.card, "--pin", testCardPIN, "--amount", "300")
	l.must("play", l.dir, p1, "", "play", "--card", l.card, "--pin", testCardPIN, "--stake", "0.5", "--n", "20", "--batch", "7", "--json")
	l.must("operator set-pin", l.dir, p1, pin+"\n"+pin+"\n", "operator", "set-pin")
	if _, errOut, code := l.run("a wrong passphrase", l.dir, wrong, "", "wallet", "show", "--player", l.card); code != 1 || !strings.Contains(errOut, "wrong passphrase") {
		t.Fatalf("a wrong passphrase: status %d: %s", code, errOut)
	}
	l.must("blocks", l.dir, p1, "", "blocks")
	l.must("report", l.dir, p1, "", "report")
	l.must("key passphrase", l.dir, p1, "", "key", "passphrase", "--new-passphrase-file", p2)
	ring1b := l.copyRing("keyring-gen1-pass2")
	if _, _, code := l.run("the old passphrase", l.dir, p1, "", "history", "--player", l.card); code != 1 {
		t.Fatalf("the old passphrase still opens: status %d", code)
	}
	backup := filepath.Join(l.work, "before-rotation.sfbak")
	l.must("backup", l.dir, p2, "", "backup", backup)
	l.must("key rotate", l.dir, p2, "", "key", "rotate", "--new-passphrase-file", p3)
	ring2 := l.copyRing("keyring-gen2")
	l.must("key status", l.dir, p3, "", "key", "status")
	restored := filepath.Join(l.work, "restored")
	l.must("restore", restored, p2, "", "restore", backup)
	l.interrupted("play killed (SIGKILL)", p3, syscall.SIGKILL)
	l.must("audit after the kill", l.dir, p3, "", "audit")
	l.interrupted("play crashed (SIGQUIT: Go's stack dump)", p3, syscall.SIGQUIT)
	l.window(passes["wrong passphrase"], passes["rotated passphrase"])
	history := decodeSales(t, l.must("history", l.dir, p3, "", "history", "--player", l.card, "--last", "1000", "--json"))
	l.must("show", l.dir, p3, "", "show", history[len(history)-1].Ticket)
	l.logs(l.dir)
	l.logs(restored)
	if !l.said("data key: a wrong passphrase was given") || !l.said("unit sold") || !l.said("goroutine ") {
		t.Fatal("the outputs lack what the kiosk's life must have written: the check would prove nothing")
	}
	lived := time.Since(start)

	secrets := map[string][][]byte{}
	for kind, p := range passes {
		secrets[kind] = [][]byte{[]byte(p)}
	}
	secrets["operator PIN"] = [][]byte{[]byte(pin)}
	for _, r := range []struct{ name, file, pass string }{
		{"first passphrase", ring1, passes["first passphrase"]},
		{"second passphrase", ring1b, passes["second passphrase"]},
		{"after the rotation", ring2, passes["rotated passphrase"]},
	} {
		ks := ringKeys(t, r.file, []byte(r.pass))
		secrets["key-encryption key of the passphrase slot ("+r.name+")"] = [][]byte{ks.kek}
		secrets["wrapping key ("+r.name+")"] = [][]byte{ks.wrap}
		for gen, key := range ks.data {
			name := fmt.Sprintf("data key generation %d", gen)
			secrets[name] = [][]byte{key}
			for _, purpose := range []string{"badger", "journal", "backup"} {
				derived, err := hkdf.Key(sha256.New, key, nil, "starfortune/keyring/v1/"+purpose, 32)
				if err != nil {
					t.Fatal(err)
				}
				secrets[fmt.Sprintf("%s key of generation %d", purpose, gen)] = [][]byte{derived}
			}
		}
	}
	// The purpose keys computed from the decoded data key are the
	// program's own: the decoding is right.
	keys, err := sf.DataDir(l.dir).Unlock([]byte(passes["rotated passphrase"]))
	if err != nil {
		t.Fatal(err)
	}
	if got := secrets[fmt.Sprintf("badger key of generation %d", keys.Current().Gen())]; len(got) == 0 || !bytes.Equal(got[0], keys.Current().Badger()) {
		t.Fatal("the data key decoded from the keyring does not derive the program's Badger key")
	}
	seeds, units := cleardata.Unsold(t, sf.DataDir(l.dir).Store(), keys.Current().Badger(), unitRun, 1)
	secrets["an open block's seed"] = seeds

	found := leaksIn(l.captured, secrets, units)
	// The detector itself finds what it looks for.
	dk := secrets["data key generation 2"][0]
	planted := []capture{
		{"planted seed", []byte("x" + hex.EncodeToString(seeds[0]))},
		{"planted units", []byte(base64.StdEncoding.EncodeToString(units[len(units)/2]) + "=")},
		{"planted key", fmt.Appendf(nil, "f({0x1, _}, {%#x, %#x, %#x, %#x, %#x, %#x, %#x, ...})", dk[3], dk[4], dk[5], dk[6], dk[7], dk[8], dk[9])},
	}
	if got := leaksIn(planted, secrets, units); len(got) != 3 {
		t.Fatalf("the detector found %v in a planted seed, run of units and key, want each", got)
	}
	var size int
	for _, c := range l.captured {
		size += len(c.b)
	}
	t.Logf("%d outputs (%d KB) of a kiosk's life (%v) searched for %d kinds of secret and %d runs of unsold units in %v",
		len(l.captured), size/1024, lived.Round(time.Millisecond), len(secrets), len(units), time.Since(start.Add(lived)).Round(time.Millisecond))
	if len(found) > 0 {
		t.Fatalf("secrets in the program's outputs:\n%s", strings.Join(found, "\n"))
	}
}

// said reports whether any output holds s.
func (l *secretLife) said(s string) bool {
	for _, c := range l.captured {
		if bytes.Contains(c.b, []byte(s)) {
			return true
		}
	}
	return false
}

// window opens the kiosk's window under Xvfb on its unlock screen, types
// a wrong passphrase (logged), then the right one, plays a unit with
// Enter, and ends it with SIGQUIT, keeping what it printed: the crash
// output of the program a kiosk runs, which systemd's journal keeps.
func (l *secretLife) window(wrong, right string) {
	t := l.t
	t.Helper()
	for _, tool := range []string{"Xvfb", "xdotool"} {
		if _, err := exec.LookPath(tool); err != nil {
			if testenv.InCI() {
				t.Fatalf("CI lacks %s (scripts/deps.sh --window installs it)", tool)
			}
			t.Logf("%s is missing: the window is left out (scripts/deps.sh --window installs it)", tool)
			return
		}
	}
	display := startXvfb(t)
	out := &safeBuffer{}
	win := exec.Command(l.bin, "--data", l.dir, "--player", "demo") // no passphrase: the unlock screen; the demo wallet: no login
	win.Env = append(secretEnv(), "STARFORTUNE_DEV=1", "GOTRACEBACK=all", "HOME="+t.TempDir(), "DISPLAY="+display, "LANG=C.UTF-8")
	win.Stdout, win.Stderr = out, out
	logBefore := logCount(l.dir, "")
	if err := win.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- win.Wait() }()
	defer func() {
		win.Process.Kill()
		<-exited
		l.keep("window", []byte(out.String()), nil)
	}()
	xdo := func(args ...string) string {
		cmd := exec.Command("xdotool", args...)
		cmd.Env = append(os.Environ(), "DISPLAY="+display)
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("xdotool %v: %v %s\nwindow:\n%s", args, err, b, out)
		}
		return strings.TrimSpace(string(b))
	}
	var wid string
	for deadline := time.Now().Add(60 * time.Second); wid == ""; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no window after 60 s:\n%s", out)
		}
		cmd := exec.Command("xdotool", "search", "--name", "^Star Fortune$")
		cmd.Env = append(os.Environ(), "DISPLAY="+display)
		if b, err := cmd.Output(); err == nil {
			wid, _, _ = strings.Cut(strings.TrimSpace(string(b)), "\n")
		}
	}
	// The unlock screen has its field focused from the start. What is
	// typed before the window takes keys is lost, and typed again.
	wrongs := logCount(l.dir, "a wrong passphrase was given")
	retry(t, "the window logged no wrong passphrase", out, func() bool {
		xdo("type", "--window", wid, "--delay", "10", wrong)
		xdo("key", "--window", wid, "Return")
		return waitFor(2*time.Second, func() bool { return logCount(l.dir, "a wrong passphrase was given") > wrongs })
	})
	opened := logCount(l.dir, "storage opened")
	retry(t, "the right passphrase did not open the store", out, func() bool {
		xdo("type", "--window", wid, "--delay", "10", right)
		xdo("key", "--window", wid, "Return")
		return waitFor(3*time.Second, func() bool { return logCount(l.dir, "storage opened") > opened })
	})
	sold := logCount(l.dir, "unit sold")
	retry(t, "JOUER sold nothing", out, func() bool { // Enter is ignored until the game has read the funds
		xdo("key", "--window", wid, "Return")
		return waitFor(time.Second, func() bool { return logCount(l.dir, "unit sold") > sold })
	})
	if err := win.Process.Signal(syscall.SIGQUIT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		exited <- err
	case <-time.After(10 * time.Second):
		t.Fatalf("the window did not end on SIGQUIT:\n%s", out)
	}
	if !strings.Contains(out.String(), "goroutine ") {
		t.Fatalf("no goroutine dump from the window after SIGQUIT:\n%s", out)
	}
	if logCount(l.dir, "") <= logBefore {
		t.Fatal("the window logged nothing")
	}
}

// waitFor polls ok for at most d.
func waitFor(d time.Duration, ok func() bool) bool {
	for deadline := time.Now().Add(d); !ok(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// retry tries try up to five times, failing with why when it never works.
func retry(t *testing.T, why string, out fmt.Stringer, try func() bool) {
	t.Helper()
	for range 5 {
		if try() {
			return
		}
	}
	t.Fatalf("%s:\n%s", why, out)
}

// logCount counts the lines of the data directory's log holding s.
func logCount(dir, s string) int {
	b, _ := os.ReadFile(filepath.Join(dir, "logs", "starfortune.log"))
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if line != "" && strings.Contains(line, s) {
			n++
		}
	}
	return n
}

// ringSecrets is what a keyring file holds under one passphrase: its
// data key generations, its wrapping key, and the passphrase slot's
// key-encryption key.
type ringSecrets struct {
	data      map[uint32][]byte
	wrap, kek []byte
}

// ringKeys opens the keyring file with pass, from its layout as
// keyring/doc.go gives it byte for byte, not through the keyring package:
// the test learns the data key's bytes, which that package never hands out.
func ringKeys(t *testing.T, file string, pass []byte) ringSecrets {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	const magic = "STARFORTUNE-KEYRING 1\n"
	if !bytes.HasPrefix(b, []byte(magic)) || len(b) < 43 {
		t.Fatalf("%s: not a keyring", file)
	}
	h := b[:42]
	n := int(b[42])
	nonce := b[43+4*n : 67+4*n]
	payload := b[67+4*n : 83+40*n]
	m := int(b[83+40*n])
	rs := ringSecrets{data: map[uint32][]byte{}}
	for i := range m {
		slot := b[84+40*n+106*i : 84+40*n+106*(i+1)]
		if slot[0] != 1 { // the passphrase slot
			continue
		}
		passes, mem, threads, salt := binary.BigEndian.Uint32(slot[9:]), binary.BigEndian.Uint32(slot[13:]), slot[17], slot[18:34]
		rs.kek = argon2.IDKey(pass, salt, passes, mem, threads, 32)
		aead, err := chacha20poly1305.NewX(rs.kek)
		if err != nil {
			t.Fatal(err)
		}
		if rs.wrap, err = aead.Open(nil, slot[34:58], slot[58:106], append(bytes.Clone(h), slot[:34]...)); err != nil {
			t.Fatalf("%s: the passphrase slot does not open: %v", file, err)
		}
	}
	if rs.wrap == nil {
		t.Fatalf("%s: no passphrase slot", file)
	}
	aead, err := chacha20poly1305.NewX(rs.wrap)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := aead.Open(nil, nonce, payload, b[:43+4*n])
	if err != nil || len(plain) != 36*n {
		t.Fatalf("%s: the payload does not open: %v", file, err)
	}
	for i := range n {
		rs.data[binary.BigEndian.Uint32(plain[36*i:])] = plain[36*i+4 : 36*i+36]
	}
	return rs
}

// unitRun is how many consecutive unsold units make a run searched for:
// 12 bytes, which no output holds by chance.
const unitRun = 4

// encodings are the ways a program prints bytes: raw, hex (%x, %X),
// base64 (standard and URL, padded or not); and for a key or a seed, any
// six bytes of it in a row as Go prints a byte slice (%v: "133 111 49 …")
// and as a stack trace prints an array argument ("0x85, 0x6f, 0x31, …"),
// and its 8-byte words as a stack trace prints word arguments
// (little-endian, "0x…").
func encodings(b []byte) [][]byte {
	out := [][]byte{b, []byte(hex.EncodeToString(b)), []byte(strings.ToUpper(hex.EncodeToString(b))),
		[]byte(base64.StdEncoding.EncodeToString(b)), []byte(base64.RawStdEncoding.EncodeToString(b)),
		[]byte(base64.URLEncoding.EncodeToString(b)), []byte(base64.RawURLEncoding.EncodeToString(b))}
	if len(b) < 16 {
		return out
	}
	for i := 0; i+6 <= len(b); i++ {
		dec, tr := make([]string, 6), make([]string, 6)
		for j, c := range b[i : i+6] {
			dec[j], tr[j] = fmt.Sprint(c), fmt.Sprintf("%#x", c)
		}
		out = append(out, []byte(strings.Join(dec, " ")), []byte(strings.Join(tr, ", ")))
	}
	for i := 0; i+8 <= len(b); i += 8 {
		if w := binary.LittleEndian.Uint64(b[i:]); w>>40 != 0 { // at least 11 digits: none by chance
			out = append(out, fmt.Appendf(nil, "0x%x", w))
		}
	}
	return out
}

// leaksIn lists every output holding a secret, or a run of unsold units
// (raw, in hex, or in base64, whose four characters a unit's three bytes
// always fill), naming the output and the kind of secret.
func leaksIn(outs []capture, secrets map[string][][]byte, runs [][]byte) []string {
	idx := newRunIndex(runs)
	var found []string
	for _, c := range outs {
		for kind, secs := range secrets {
			if holds(c.b, secs) {
				found = append(found, fmt.Sprintf("%s: %s", c.name, kind))
			}
		}
		if how := idx.in(c.b); how != "" {
			found = append(found, fmt.Sprintf("%s: unsold units (%s)", c.name, how))
		}
	}
	return found
}

// holds reports whether b holds one of secs in one of its encodings.
func holds(b []byte, secs [][]byte) bool {
	for _, sec := range secs {
		for _, enc := range encodings(sec) {
			if bytes.Contains(b, enc) {
				return true
			}
		}
	}
	return false
}

// runIndex finds runs of units in any encoding by their windows.
type runIndex struct{ raw, hex, b64 map[string]bool }

func newRunIndex(runs [][]byte) runIndex {
	x := runIndex{map[string]bool{}, map[string]bool{}, map[string]bool{}}
	for _, r := range runs {
		x.raw[string(r)] = true
		x.hex[hex.EncodeToString(r)] = true
		x.b64[base64.StdEncoding.EncodeToString(r)] = true
		x.b64[base64.URLEncoding.EncodeToString(r)] = true
	}
	return x
}

// in says in which encoding b holds one of the runs, or "".
func (x runIndex) in(b []byte) string {
	const n = unitRun * engine.UnitSize
	lower := bytes.ToLower(b)
	for i := range b {
		switch {
		case i+n <= len(b) && x.raw[string(b[i:i+n])]:
			return "raw"
		case i+2*n <= len(b) && x.hex[string(lower[i:i+2*n])]:
			return "hex"
		case i+4*n/3 <= len(b) && x.b64[string(b[i:i+4*n/3])]:
			return "base64"
		}
	}
	return ""
}
