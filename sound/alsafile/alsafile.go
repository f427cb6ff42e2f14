// Package alsafile gives tests and benches a sound card: an ALSA
// configuration whose default device writes what a program plays into a
// named pipe, and a reader that drains that pipe at the pace of a real
// device, into a recording. Without the pace ALSA's file device would take
// samples as fast as the player makes them.
//
// A program plays into it when started with HOME set to Dir (ALSA reads
// $HOME/.asoundrc).
package alsafile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// BytesPerFrame is the size of one recorded frame: the game plays mono
// 32-bit float samples.
const BytesPerFrame = 4

// Card is a recording sound card.
type Card struct {
	// Dir holds .asoundrc and the pipe: start the player with HOME=Dir.
	Dir string
	// Discard keeps no recording (Frames still counts): a card that plays
	// for long, as make bench's.
	Discard bool
	rate    int

	mu     sync.Mutex
	rec    []byte
	frames int
	pipe   *os.File
	done   chan struct{}
	err    error
	start  time.Time
}

// New makes the card in dir for a player at rate frames per second (or
// makes it anew, for the next player). Call Start before the player opens
// the device (opening blocks until then). A card serves one player.
func New(dir string, rate int) (*Card, error) {
	fifo := filepath.Join(dir, "out.raw")
	if err := unix.Mkfifo(fifo, 0o600); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("alsafile: %w", err)
	}
	conf := fmt.Sprintf("pcm.!default { type file; file %q; slave.pcm \"null\"; format \"raw\" }\n", fifo)
	if err := os.WriteFile(filepath.Join(dir, ".asoundrc"), []byte(conf), 0o600); err != nil {
		return nil, fmt.Errorf("alsafile: %w", err)
	}
	return &Card{Dir: dir, rate: rate, done: make(chan struct{})}, nil
}

// Start begins draining the pipe in real time. The recording's time 0 is
// the moment the player opens the device.
func (c *Card) Start() {
	go c.run()
}

func (c *Card) run() {
	defer close(c.done)
	// Opening a pipe for reading waits for its writer: the player's open.
	f, err := os.Open(filepath.Join(c.Dir, "out.raw"))
	if err != nil {
		c.fail(err)
		return
	}
	c.mu.Lock()
	c.pipe, c.start = f, time.Now()
	c.mu.Unlock()
	// A small pipe: what the player wrote is read within a few ms.
	_, _ = unix.FcntlInt(f.Fd(), unix.F_SETPIPE_SZ, 4096)
	buf := make([]byte, 64<<10)
	frames, recorded := 0, 0
	for tick := time.NewTicker(5 * time.Millisecond); ; <-tick.C {
		due := int(time.Since(c.start).Seconds()*float64(c.rate)) - frames
		for due > 0 {
			n, err := f.Read(buf[:min(len(buf), due*BytesPerFrame)/BytesPerFrame*BytesPerFrame])
			c.mu.Lock()
			if !c.Discard {
				c.rec = append(c.rec, buf[:n]...)
			}
			recorded += n
			c.frames = recorded / BytesPerFrame
			c.mu.Unlock()
			frames += n / BytesPerFrame
			due -= n / BytesPerFrame
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) && !errors.Is(err, syscall.EBADF) {
					c.fail(err)
				}
				return
			}
		}
	}
}

func (c *Card) fail(err error) {
	c.mu.Lock()
	c.err = fmt.Errorf("alsafile: %w", err)
	c.mu.Unlock()
}

// Frames is how many frames were recorded so far: the player's clock.
func (c *Card) Frames() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.frames
}

// Opened reports whether a player opened the device.
func (c *Card) Opened() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pipe != nil
}

// Stop waits until the player closed the device (it exited) or timeout
// passed, and returns the recording: 32-bit float little-endian frames.
func (c *Card) Stop(timeout time.Duration) ([]byte, error) {
	select {
	case <-c.done:
	case <-time.After(timeout):
		c.mu.Lock()
		if c.pipe != nil {
			c.pipe.Close()
		} else if w, err := os.OpenFile(filepath.Join(c.Dir, "out.raw"), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close() // no player came: this releases the reader's open, which then reads the end
		}
		c.mu.Unlock()
		<-c.done
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rec, c.err
}
