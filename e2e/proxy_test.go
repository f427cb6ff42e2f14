package e2e

import (
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// netProxy stands between kiosks and the central: a Unix socket of its own
// that forwards to the server's. It can cut the network for a while (the
// connections open dropped, new ones closed at once: cut), or hang (stall:
// the bytes of the connections open are held, neither side hears from the
// other, and new connections are accepted and left unanswered, as when the
// central's host freezes or a network drops packets silently; resume).
type netProxy struct {
	dir    string // the socket's directory: host=dir in a connection string
	target string

	mu      sync.Mutex
	open    map[net.Conn]bool
	down    time.Time // no connection before
	stalled bool
	resumed *sync.Cond
	conns   atomic.Int32 // connections accepted
	held    atomic.Int64 // bytes held while stalled, either way
}

func newNetProxy(t *testing.T, serverDir string, port int) *netProxy {
	t.Helper()
	p := &netProxy{dir: t.TempDir(), target: filepath.Join(serverDir, fmt.Sprintf(".s.PGSQL.%d", port)), open: map[net.Conn]bool{}}
	p.resumed = sync.NewCond(&p.mu)
	ln, err := net.Listen("unix", filepath.Join(p.dir, fmt.Sprintf(".s.PGSQL.%d", port)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ln.Close()
		p.resume() // the held connections end with their kiosk
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.conns.Add(1)
			go p.forward(c)
		}
	}()
	return p
}

// url is kiosk id's connection string through the proxy.
func (p *netProxy) url(kioskURL, id, serverDir string) string {
	u := strings.Replace(kioskURL, "host="+serverDir, "host="+p.dir, 1)
	if key, ok := callKeyFiles.Load(kioskURL + " " + id); ok { // behind a pooler: the same call key
		callKeyFiles.Store(u+" "+id, key)
	}
	return u
}

func (p *netProxy) forward(c net.Conn) {
	defer c.Close()
	p.mu.Lock()
	cut := time.Now().Before(p.down)
	p.mu.Unlock()
	if cut {
		return
	}
	p.wait(0) // a connection made while stalled is never answered meanwhile
	s, err := net.Dial("unix", p.target)
	if err != nil {
		return
	}
	defer s.Close()
	p.mu.Lock()
	p.open[c], p.open[s] = true, true
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		defer func() { done <- struct{}{} }()
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				p.wait(n)
				if _, werr := dst.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}
	go pipe(s, c)
	go pipe(c, s)
	<-done
	c.Close()
	s.Close()
	<-done
	p.mu.Lock()
	delete(p.open, c)
	delete(p.open, s)
	p.mu.Unlock()
}

// cut drops every connection through p and refuses new ones for d.
func (p *netProxy) cut(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = time.Now().Add(d)
	for c := range p.open {
		c.Close()
	}
}

// wait blocks while the proxy is stalled, holding n bytes.
func (p *netProxy) wait(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stalled {
		p.held.Add(int64(max(n, 1))) // a connection counts
	}
	for p.stalled {
		p.resumed.Wait()
	}
}

func (p *netProxy) stall() {
	p.mu.Lock()
	p.stalled = true
	p.held.Store(0)
	p.mu.Unlock()
}

func (p *netProxy) resume() {
	p.mu.Lock()
	p.stalled = false
	p.resumed.Broadcast()
	p.mu.Unlock()
}

// hungRound waits until the stalled proxy holds something of a
// conversation between the kiosk and the central (a query, an answer, a
// new connection): a sync round is in flight and hangs.
func (p *netProxy) hungRound(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); p.held.Load() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no sync round reached the stalled central within 10 s")
		}
	}
}
