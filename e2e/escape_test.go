package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A public terminal has nothing behind the game (issue 37): the session the
// system service runs, deploy/starfortune-session, started as the service
// starts it (xinit, no window manager, the game as the only client) but
// with Xvfb in place of Xorg. The keys and clicks that open something on a
// desktop are sent through XTEST, as a keyboard and a mouse would: Super,
// Super+D, Alt+Tab, Alt+F4, Ctrl+Alt+F1, Ctrl+Alt+Backspace, and a right
// click in each corner of the screen. After each, the game's window is
// still the only window mapped on the screen and covers it, the screen is
// what it was, and the session runs the processes it ran.
//
// Without a window manager nothing turns Alt+F4 into a request to close:
// the game, which asks for the operator PIN on such a request, sees an
// ordinary key, and the screen does not change. Ctrl+Alt+F1 and
// Ctrl+Alt+Backspace are the X server's, and Xvfb has no VT nor zap: the
// shipped Xorg settings that switch them off (deploy/starfortune-xorg.conf)
// are checked apart, by scripts/verify-deploy.sh.
//
// Last, a control that the checks see a change: the operator shortcut
// (Ctrl+Shift+O), sent the same way, brings up the PIN pad inside the
// game's window, and the screen differs; Escape then leaves the pad up or
// closes it, and opens nothing.
func TestNothingBehindTheGame(t *testing.T) {
	needTools(t, "Xvfb", "xinit", "xauth", "xdotool", "xwininfo", "import", "compare")
	if testing.Short() {
		t.Skip("-short: the session takes about half a minute")
	}
	bin := starfortune(t)
	xvfb, _ := exec.LookPath("Xvfb") // xinit takes the server by its path
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(filepath.Dir(file)), "deploy", "starfortune-session")

	data, run := t.TempDir(), t.TempDir()
	setPIN(t, data, "246813")
	conf := filepath.Join(run, "starfortune.toml")
	// No attract screen while the test runs; no sound card here.
	if err := os.WriteFile(conf, []byte("idle_timeout = \"24h\"\n[sound]\nmute = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const width, height = 1366, 768 // not the window's own size (1280x800): full screen must cover it
	display := freeDisplay(t)
	s := &session{t: t, display: display, auth: filepath.Join(run, "runtime", "Xauthority")}
	cmd := exec.Command(script)
	cmd.Env = append(withoutX(os.Environ()),
		"STARFORTUNE_BIN="+bin,
		"STARFORTUNE_CONFIG="+conf,
		"STARFORTUNE_DATA="+data,
		"STARFORTUNE_DISPLAY="+display,
		"STARFORTUNE_XSERVER="+xvfb+" -screen 0 "+fmt.Sprintf("%dx%dx24", width, height),
		"RUNTIME_DIRECTORY="+filepath.Join(run, "runtime"),
		"LANG=fr_FR.UTF-8", // as the service
	) // STARFORTUNE_PASSPHRASE_FILE: TestMain's, as a drop-in of the service would give it
	out := &safeBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.pid = cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		syscall.Kill(-s.pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			syscall.Kill(-s.pid, syscall.SIGKILL)
			<-done
		}
	})
	s.exited = done

	start := time.Now()
	for deadline := start.Add(90 * time.Second); s.wid == ""; time.Sleep(300 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("the session ended before the game's window opened: %v\n%s", err, out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no window after 90 s:\n%s", out)
		}
		if o, err := s.x("xdotool", "search", "--name", "^Star Fortune$"); err == nil {
			s.wid, _, _ = strings.Cut(strings.TrimSpace(o), "\n")
		}
	}
	// The pointer starts in the screen's middle, over the login keypad's
	// 5, which shows it hovered: taken round the corners the right clicks
	// will go to (the first motion after the window maps may go unseen),
	// it hovers nothing in the reference shot either.
	for _, c := range [][2]int{{width - 1, height - 1}, {width - 1, 0}, {0, height - 1}, {0, 0}} {
		s.xdo("mousemove", strconv.Itoa(c[0]), strconv.Itoa(c[1]))
		time.Sleep(100 * time.Millisecond)
	}
	base := s.settle(filepath.Join(run, "base.png"), 3*time.Second) // the funds and the history come in
	t.Logf("the game's window %s after %.1f s", s.wid, time.Since(start).Seconds())
	if shot := os.Getenv("STARFORTUNE_ESCAPE_SHOT"); shot != "" {
		copyFile(t, base, shot)
	}
	procs := s.processes()
	t.Logf("the session's processes: %s", strings.Join(procs, ", "))
	if len(procs) != 3 {
		t.Fatalf("the session runs %d processes, want 3 (xinit, the X server, the game): %v", len(procs), procs)
	}
	s.check("at start", base, procs, width, height)

	steps := []struct{ what, how string }{
		{"Super", "super"},
		{"Super+D", "super+d"},
		{"Alt+Tab", "alt+Tab"},
		{"Alt+F4", "alt+F4"},
		{"Ctrl+Alt+F1", "ctrl+alt+F1"},
		{"Ctrl+Alt+Backspace", "ctrl+alt+BackSpace"},
	}
	for _, st := range steps {
		s.xdo("key", st.how)
		s.check(st.what, base, procs, width, height)
	}
	for _, c := range [][2]int{{0, 0}, {width - 1, 0}, {0, height - 1}, {width - 1, height - 1}} {
		s.xdo("mousemove", strconv.Itoa(c[0]), strconv.Itoa(c[1]), "click", "3")
		s.check(fmt.Sprintf("a right click at %d,%d", c[0], c[1]), base, procs, width, height)
	}

	// The control: the same path reaches the game, and the checks see it.
	s.xdo("key", "ctrl+shift+o")
	pad := s.settle(filepath.Join(run, "pad.png"), time.Second)
	if n := s.differ(base, pad); n < width*height/100 {
		t.Fatalf("Ctrl+Shift+O changed %d pixels: the keys sent do not reach the game, and the checks above prove nothing", n)
	} else {
		t.Logf("control: Ctrl+Shift+O brings up the PIN pad (%d pixels changed)", n)
	}
	s.windows(width, height)
	if now := s.processes(); !slices.Equal(now, procs) {
		t.Errorf("after Ctrl+Shift+O the session runs %v, was %v", now, procs)
	}
	// Escape on the pad: the pad stays (it only leaves its entry; the pad
	// closes with its Cancel button or a PIN), or closes; nothing else.
	s.xdo("key", "Escape")
	esc := s.settle(filepath.Join(run, "escape.png"), time.Second)
	s.windows(width, height)
	if now := s.processes(); !slices.Equal(now, procs) {
		t.Errorf("after Escape on the PIN pad the session runs %v, was %v", now, procs)
	}
	switch fromPad, fromBase := s.differ(pad, esc), s.differ(base, esc); {
	case fromBase == 0:
		t.Logf("Escape closes the PIN pad")
	case fromPad < width*height/1000:
		t.Logf("Escape leaves the PIN pad up (%d pixels changed, its entry's focus at most)", fromPad)
	default:
		t.Errorf("after Escape on the PIN pad the screen is neither the pad (%d pixels differ) nor the game (%d)", fromPad, fromBase)
	}
}

// session is the terminal's session under test.
type session struct {
	t       *testing.T
	display string
	auth    string // the X authority file the session made
	pid     int    // xinit's: the session script execs it
	wid     string // the game's window
	exited  <-chan error
}

// x runs an X client against the session's display.
func (s *session) x(name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = append(withoutX(os.Environ()), "DISPLAY="+s.display, "XAUTHORITY="+s.auth)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// xdo runs xdotool: input through XTEST, to whatever has the focus.
func (s *session) xdo(args ...string) {
	s.t.Helper()
	if out, err := s.x("xdotool", args...); err != nil {
		s.t.Fatalf("xdotool %s: %v %s", strings.Join(args, " "), err, out)
	}
}

// shot captures the screen into path.
func (s *session) shot(path string) string {
	s.t.Helper()
	if out, err := s.x("import", "-window", "root", path); err != nil {
		s.t.Fatalf("import: %v %s", err, out)
	}
	return path
}

// settle waits at least least, then until two captures a quarter of a second
// apart are the same (a loaded machine paints late), and returns the last.
func (s *session) settle(path string, least time.Duration) string {
	s.t.Helper()
	time.Sleep(least)
	prev := s.shot(path + ".prev.png")
	for i := 0; i < 40; i++ {
		time.Sleep(250 * time.Millisecond)
		s.shot(path)
		if s.differ(prev, path) == 0 {
			return path
		}
		os.Rename(path, prev)
	}
	s.t.Logf("the screen kept changing for 10 s")
	return s.shot(path)
}

// differ counts the pixels that differ between two captures, beyond a
// small fuzz.
func (s *session) differ(a, b string) int {
	s.t.Helper()
	out, err := exec.Command("compare", "-metric", "AE", "-fuzz", "3%", a, b, "null:").CombinedOutput()
	n, perr := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if perr != nil { // compare exits 1 when they differ, 2 on trouble
		s.t.Fatalf("compare %s %s: %v %s", a, b, err, out)
	}
	return int(n)
}

// check asserts that after what the session is as it was: the game's
// window alone on the screen, covering it, the screen unchanged, the same
// processes.
func (s *session) check(what, base string, procs []string, width, height int) {
	s.t.Helper()
	select {
	case err := <-s.exited:
		s.t.Fatalf("after %s the session ended: %v", what, err)
	default:
	}
	now := s.settle(filepath.Join(filepath.Dir(base), "now.png"), time.Second)
	s.windows(width, height)
	if n := s.differ(base, now); n > 0 {
		keep := filepath.Join(os.TempDir(), fmt.Sprintf("starfortune-escape-%d", os.Getpid()))
		os.MkdirAll(keep, 0o755)
		copyFile(s.t, base, filepath.Join(keep, "before.png"))
		copyFile(s.t, now, filepath.Join(keep, "after.png"))
		s.t.Errorf("after %s, %d pixels of the screen changed (%s)", what, n, keep)
	}
	if got := s.processes(); !slices.Equal(got, procs) {
		s.t.Errorf("after %s the session runs %v, was %v", what, got, procs)
	}
}

// windows asserts that the game's window is the only top-level window
// mapped, and covers the screen.
func (s *session) windows(width, height int) {
	s.t.Helper()
	out, err := s.x("xwininfo", "-root", "-children")
	if err != nil {
		s.t.Fatalf("xwininfo: %v %s", err, out)
	}
	var mapped []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], "0x") {
			continue
		}
		info, err := s.x("xwininfo", "-id", f[0])
		if err != nil {
			continue // gone meanwhile
		}
		if strings.Contains(info, "Map State: IsViewable") {
			mapped = append(mapped, strings.TrimSpace(line))
			id, _ := strconv.ParseUint(strings.TrimPrefix(f[0], "0x"), 16, 64)
			if strconv.FormatUint(id, 10) != s.wid {
				s.t.Errorf("a window other than the game's is on the screen: %s", line)
				continue
			}
			geo := fmt.Sprintf("%dx%d+0+0", width, height)
			if !strings.Contains(info, "-geometry "+geo) {
				s.t.Errorf("the game's window does not cover the %dx%d screen:\n%s", width, height, info)
			}
		}
	}
	if len(mapped) == 0 {
		s.t.Errorf("the game's window %s is not on the screen:\n%s", s.wid, out)
	}
}

// processes lists the session's processes (xinit's and its descendants'),
// "pid name" each, sorted.
func (s *session) processes() []string {
	s.t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		s.t.Fatal(err)
	}
	parent, name := map[int]int{}, map[int]string{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		st := string(b)
		lp, rp := strings.IndexByte(st, '('), strings.LastIndexByte(st, ')')
		if lp < 0 || rp < lp {
			continue
		}
		f := strings.Fields(st[rp+1:])
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		parent[pid], name[pid] = ppid, st[lp+1:rp]
	}
	var list []string
	for pid := range parent {
		for p := pid; p > 1; p = parent[p] {
			if p == s.pid {
				list = append(list, fmt.Sprintf("%d %s", pid, name[pid]))
				break
			}
		}
	}
	slices.Sort(list)
	return list
}

// setPIN sets the operator PIN of the data directory data.
func setPIN(t *testing.T, data, pin string) {
	t.Helper()
	cmd := child(t, data, "operator", "set-pin")
	cmd.Stdin = strings.NewReader(pin + "\n" + pin + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("operator set-pin: %v %s", err, out)
	}
}

// freeDisplay is an X display number nobody holds.
func freeDisplay(t *testing.T) string {
	t.Helper()
	for n := 100 + os.Getpid()%500; n < 1000; n++ {
		_, errLock := os.Stat(fmt.Sprintf("/tmp/.X%d-lock", n))
		_, errSock := os.Stat(fmt.Sprintf("/tmp/.X11-unix/X%d", n))
		if os.IsNotExist(errLock) && os.IsNotExist(errSock) {
			return fmt.Sprintf(":%d", n)
		}
	}
	t.Fatal("no free X display")
	return ""
}

// withoutX is env without the variables that name an X display.
func withoutX(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return name == "DISPLAY" || name == "XAUTHORITY" || name == "WAYLAND_DISPLAY"
	})
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err == nil {
		err = os.WriteFile(to, b, 0o644)
	}
	if err != nil {
		t.Error(err)
	}
}
