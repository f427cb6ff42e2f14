// Package swtpmtest starts a software TPM 2.0 (Debian's swtpm) for a test,
// on a Unix socket in the test's temporary directory, as a kiosk would use
// /dev/tpmrm0. Without swtpm the test skips, or fails under CI.
package swtpmtest

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"starfortune/internal/testenv"
)

// TPM is a running software TPM.
type TPM struct {
	// Socket is the path to give the kiosk (config [anchor] tpm).
	Socket string
	state  string
	cmd    *exec.Cmd
}

// Start starts a software TPM with an empty state, stopped when the test ends.
func Start(t testing.TB) *TPM {
	t.Helper()
	if _, err := exec.LookPath("swtpm"); err != nil {
		testenv.Missing(t, "swtpm is not installed (Debian package swtpm, scripts/deps.sh --window)")
	}
	dir := t.TempDir()
	p := &TPM{Socket: filepath.Join(dir, "tpm.sock"), state: filepath.Join(dir, "state")}
	if err := os.Mkdir(p.state, 0o700); err != nil {
		t.Fatal(err)
	}
	p.start(t)
	t.Cleanup(p.stop)
	return p
}

// Restart stops the TPM and starts it again on the same state, as a
// machine's reboot does.
func (p *TPM) Restart(t testing.TB) {
	t.Helper()
	p.stop()
	p.start(t)
}

func (p *TPM) start(t testing.TB) {
	t.Helper()
	os.Remove(p.Socket)
	p.cmd = exec.Command("swtpm", "socket", "--tpm2", "--tpmstate", "dir="+p.state,
		"--server", "type=unixio,path="+p.Socket, "--ctrl", "type=unixio,path="+p.Socket+".ctrl",
		"--flags", "not-need-init,startup-clear")
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("swtpm: %v", err)
	}
	// Listening, not only bound: the socket file exists before swtpm
	// listens on it, and a client then is refused (a loaded machine showed
	// it). swtpm takes the next client once this one hangs up.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if c, err := net.Dial("unix", p.Socket); err == nil {
			c.Close()
			return
		}
	}
	p.stop()
	t.Fatalf("swtpm did not open %s within 10 s", p.Socket)
}

func (p *TPM) stop() {
	if p.cmd == nil {
		return
	}
	p.cmd.Process.Kill()
	p.cmd.Wait()
	p.cmd = nil
}
