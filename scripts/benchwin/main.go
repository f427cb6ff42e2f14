// Command benchwin measures a windowed program under X (Xvfb in `make
// bench`): how long from exec until its window is mapped and until it shows
// its first painted frame, then, optionally after playing a unit with the
// keyboard, its resident memory. One run per invocation; it prints
//
//	mapped_ms=<n> first_frame_ms=<n> rss_kb=<n> peak_rss_kb=<n> rss_anon_kb=<n> rss_file_kb=<n> pss_kb=<n> pss_anon_kb=<n>
//
// PSS (proportional set size, /proc/PID/smaps_rollup) counts each shared
// page divided by the number of processes mapping it: the libraries a
// program shares with the rest of the system weigh less than in RSS.
//
// The first frame is the first capture of the window (xwd) that is not a
// single flat colour: an unpainted window is uniformly black here. Polling
// costs both the game and its baseline the same, so compare them, not the
// absolute numbers.
//
// Usage: benchwin -name TITLE [-play] [-hold 16s] -- CMD [ARGS...]
package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	name := flag.String("name", "", "exact title of the window to wait for")
	play := flag.Bool("play", false, "play one unit with the keyboard (Enter, 1, Space, 2, Space) before reading the memory")
	fall := flag.Bool("fall", false, "measure the CPU while a puck falls instead: Enter, then 1, then cpu_fall_pct over the next 2.5 s (a program without pucks measures itself idle)")
	hold := flag.Duration("hold", 0, "how long to keep the program running after its first frame, sampling its memory (the play happens within it)")
	timeout := flag.Duration("timeout", 60*time.Second, "give up waiting for the window after this long")
	logFile := flag.String("log", "", "append the program's output to this file")
	flag.Parse()
	if *name == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: benchwin -name TITLE [-play] [-hold DURATION] -- CMD [ARGS...]")
		os.Exit(2)
	}
	if *logFile != "" {
		f, err := os.OpenFile(*logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchwin:", err)
			os.Exit(1)
		}
		programLog = f
	}
	if *fall {
		*play, *hold = false, 0
	}
	fallCPU = *fall
	if err := run(*name, *play, *hold, *timeout, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "benchwin:", err)
		os.Exit(1)
	}
}

// fallCPU: measure the CPU during a fall (-fall) rather than the memory.
var fallCPU bool

// programLog receives the measured program's output when -log is given.
var programLog io.Writer = io.Discard

func run(name string, play bool, hold, timeout time.Duration, argv []string) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	var output bytes.Buffer
	cmd.Stdout = io.MultiWriter(&output, programLog)
	cmd.Stderr = cmd.Stdout
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer stop(cmd, exited)
	gone := func() error {
		select {
		case err := <-exited:
			exited <- err
			return fmt.Errorf("%s exited before showing its window (%v): %s", argv[0], err, lastLines(output.String()))
		default:
			return nil
		}
	}

	deadline := start.Add(timeout)
	var wid string
	for wid == "" {
		if err := gone(); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no window titled %q after %s", name, timeout)
		}
		out, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^"+regexp.QuoteMeta(name)+"$").Output()
		wid, _, _ = strings.Cut(strings.TrimSpace(string(out)), "\n")
		if wid == "" {
			time.Sleep(10 * time.Millisecond)
		}
	}
	mapped := time.Since(start)
	for {
		if err := gone(); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("window %s never showed a painted frame in %s", wid, timeout)
		}
		img, err := exec.Command("xwd", "-silent", "-id", wid).Output()
		if err == nil {
			if painted, err := xwdPainted(img); err != nil {
				return err
			} else if painted {
				break
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	firstFrame := time.Since(start)

	pid := cmd.Process.Pid
	if fallCPU {
		return measureFall(wid, pid)
	}
	peak := 0
	sample := func() int {
		kb, err := rssKB(pid)
		if err == nil && kb > peak {
			peak = kb
		}
		return kb
	}
	end := time.Now().Add(hold)
	// The highest PSS of the hold's last 5 s: with -play, the 5 s after
	// the unit's reveal ends (its keys take 16 s); the peak a unit leaves
	// behind, before the collector and the allocator give it back.
	pssPeak := 0
	peakFrom := end.Add(-5 * time.Second)
	samplePSS := func() {
		if time.Now().Before(peakFrom) {
			return
		}
		if kb, err := fieldKB(fmt.Sprintf("/proc/%d/smaps_rollup", pid), "Pss:"); err == nil && kb > pssPeak {
			pssPeak = kb
		}
	}
	if play {
		// The keys the smoke test uses: JOUER, first puck, GO, second puck, GO.
		for _, k := range []struct {
			key  string
			wait time.Duration
		}{{"Return", 2 * time.Second}, {"1", 5 * time.Second}, {"space", 2 * time.Second}, {"2", 5 * time.Second}, {"space", 2 * time.Second}} {
			if err := exec.Command("xdotool", "key", "--window", wid, k.key).Run(); err != nil {
				return fmt.Errorf("xdotool key %s: %w", k.key, err)
			}
			for t := time.Now().Add(k.wait); time.Now().Before(t); time.Sleep(100 * time.Millisecond) {
				sample()
				samplePSS()
			}
		}
	}
	for time.Now().Before(end) {
		sample()
		samplePSS()
		time.Sleep(100 * time.Millisecond)
	}
	if err := gone(); err != nil {
		return err
	}
	rss := sample()
	anon, _ := statusKB(pid, "RssAnon:")
	file, _ := statusKB(pid, "RssFile:")
	pss, _ := fieldKB(fmt.Sprintf("/proc/%d/smaps_rollup", pid), "Pss:")
	pssAnon, _ := fieldKB(fmt.Sprintf("/proc/%d/smaps_rollup", pid), "Pss_Anon:")
	fmt.Printf("mapped_ms=%d first_frame_ms=%d rss_kb=%d peak_rss_kb=%d rss_anon_kb=%d rss_file_kb=%d pss_kb=%d pss_anon_kb=%d pss_peak_kb=%d\n",
		mapped.Milliseconds(), firstFrame.Milliseconds(), rss, peak, anon, file, pss, pssAnon, pssPeak)
	return nil
}

// measureFall presses Enter (JOUER) and 1 (the first puck), then prints
// the share of one core the program used over the 2.5 s that follow: the
// puck's fall (2.7 s or more). The steps and waits are the same for a
// program that has no pucks, which then measures itself idle.
func measureFall(wid string, pid int) error {
	time.Sleep(2 * time.Second) // settled: the first frames are drawn
	for _, key := range []string{"Return", "1"} {
		if err := exec.Command("xdotool", "key", "--window", wid, key).Run(); err != nil {
			return fmt.Errorf("xdotool key %s: %w", key, err)
		}
		time.Sleep(1500 * time.Millisecond) // the sale, then the pucks on offer; then the fall starts
	}
	// Measured from 0.3 s into the fall: the pick is recorded first.
	a, err := cpuTicks(pid)
	if err != nil {
		return err
	}
	start := time.Now()
	time.Sleep(2500 * time.Millisecond)
	b, err := cpuTicks(pid)
	if err != nil {
		return err
	}
	const ticksPerSecond = 100 // USER_HZ on Linux
	fmt.Printf("cpu_fall_pct=%.1f\n", float64(b-a)/ticksPerSecond/time.Since(start).Seconds()*100)
	return nil
}

// cpuTicks is the CPU time pid used so far, user and system, all threads.
func cpuTicks(pid int) (int, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command name, which is in parentheses.
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	utime, err1 := strconv.Atoi(f[11])
	stime, err2 := strconv.Atoi(f[12])
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return utime + stime, nil
}

// stop ends the program with SIGTERM, as systemd would, then SIGKILL.
func stop(cmd *exec.Cmd, exited chan error) {
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-exited
	}
}

func rssKB(pid int) (int, error) { return statusKB(pid, "VmRSS:") }

// statusKB reads a "Name:  123 kB" line of /proc/PID/status.
func statusKB(pid int, name string) (int, error) {
	return fieldKB(fmt.Sprintf("/proc/%d/status", pid), name)
}

// fieldKB reads the "Name:  123 kB" line of a /proc file.
func fieldKB(path, name string) (int, error) {
	status, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, name); ok {
			return strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
		}
	}
	return 0, fmt.Errorf("no %s in %s", name, path)
}

// xwdPainted reports whether an XWD image (X Window Dump, as xwd writes it)
// holds more than one colour. Only the 32-bit pixels of a true-colour
// screen (Xvfb's -screen WxHx24) are understood.
func xwdPainted(img []byte) (bool, error) {
	if len(img) < 100 {
		return false, errors.New("xwd: short header")
	}
	field := func(i int) uint32 { return binary.BigEndian.Uint32(img[4*i:]) }
	headerSize, width, height := int(field(0)), int(field(4)), int(field(5))
	msbFirst, bitsPerPixel, bytesPerLine := field(7) == 1, field(11), int(field(12))
	mask := field(14) | field(15) | field(16)
	data := headerSize + 12*int(field(19))
	if bitsPerPixel != 32 || width*4 > bytesPerLine || data < 100 || data+height*bytesPerLine > len(img) {
		return false, fmt.Errorf("xwd: unsupported image (%d×%d, %d bits per pixel)", width, height, bitsPerPixel)
	}
	var order binary.ByteOrder = binary.LittleEndian
	if msbFirst {
		order = binary.BigEndian
	}
	first := order.Uint32(img[data:]) & mask
	for y := range height {
		row := img[data+y*bytesPerLine:]
		for x := range width {
			if order.Uint32(row[4*x:])&mask != first {
				return true, nil
			}
		}
	}
	return false, nil
}

// lastLines is the end of the program's output, from its panic if it had one.
func lastLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "panic:") || strings.HasPrefix(l, "fatal error:") {
			return strings.Join(lines[i:min(len(lines), i+8)], " | ")
		}
	}
	return strings.Join(lines[max(0, len(lines)-5):], " | ")
}
