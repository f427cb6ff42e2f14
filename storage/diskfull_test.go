package storage_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"starfortune/internal/testenv"

	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/storage"
)

// tmpfs mounts a small tmpfs of the given size (like "48m") for the test,
// or skips the test when it may not mount one (not root, in a container).
func tmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput()
	if err != nil {
		testenv.Missing(t, "cannot mount a tmpfs (%v: %s): the full-disk test needs root", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

func freeBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Bavail) * st.Bsize
}

// fill writes a file until less than leave bytes are free on dir's
// filesystem.
func fill(t *testing.T, dir string, leave int64) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for freeBytes(t, dir) >= leave {
		if _, err := f.Write(buf[:min(int64(len(buf)), freeBytes(t, dir)-leave+4096)]); err != nil {
			t.Fatalf("fill: %v", err)
		}
	}
	return path
}

// TestDiskFull: on a nearly full filesystem a sale is refused before
// anything moves, with a message saying so; selling resumes when space
// returns.
func TestDiskFull(t *testing.T) {
	const reserve = 8 << 20
	ctx := context.Background()
	mnt := tmpfs(t, "64m")
	s, err := storage.OpenWith(filepath.Join(mnt, "data"), storage.TestKey, zerolog.Nop(), storage.Options{Reserve: reserve})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	putDrawn(t, s) // the blocks newService would draw, written to the small disk
	svc := newService(t, s)
	demo := engine.DemoPlayer
	req := engine.SellRequest{Player: demo, Stake: 100, Count: 1, Actor: "kiosk"}
	sell(t, svc, req)
	t.Logf("store uses %d MiB of the tmpfs", (64<<20-freeBytes(t, mnt))>>20)

	filler := fill(t, mnt, reserve/2)
	before := snapshot(t, svc, demo)
	_, err = svc.Sell(ctx, req)
	if !errors.Is(err, engine.ErrDiskFull) || !errors.Is(err, engine.ErrStorage) || !strings.Contains(err.Error(), "MiB reserved: nothing written") {
		t.Fatalf("sale on a full disk gives %v, want ErrDiskFull", err)
	}
	t.Log(err)
	if _, err := svc.Credit(ctx, demo, 500, "operator:test"); !errors.Is(err, engine.ErrDiskFull) {
		t.Fatalf("credit on a full disk gives %v, want ErrDiskFull", err)
	}
	if after := snapshot(t, svc, demo); !sameState(before, after) {
		t.Fatalf("a refused sale moved something:\nbefore %+v\nafter  %+v", before, after)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	sold := sell(t, svc, req)[0]
	if sold.BalanceBefore != before.wallet.Balance {
		t.Fatalf("sale after the disk freed starts from %s, want %s", sold.BalanceBefore, before.wallet.Balance)
	}
	mustAudit(t, svc)
}
