package testenv

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// Proxy stands between the code under test and a real server (the test
// PostgreSQL or Neo4j) and plays an outage of that server without
// stopping it, which other tests on the machine share. Up, it forwards
// connections; down, it accepts each one and closes it at once, as a
// server that died would, and drops the connections open through it. It
// counts the connections opened, so that a test can tell whether a call
// touched the network.
type Proxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	down  bool
	dials int
	conns []net.Conn
	wg    sync.WaitGroup
}

// NewProxy forwards a new port on 127.0.0.1 to target (host:port) until
// the test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln, target: target}
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(p.close)
	return p
}

// Addr is the proxy's host:port, to put in a URL in place of the target's.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

func (p *Proxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		p.mu.Lock()
		p.dials++
		down := p.down
		p.mu.Unlock()
		if down {
			c.Close()
			continue
		}
		u, err := net.DialTimeout("tcp", p.target, 5*time.Second)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		if p.down { // taken down while dialling
			p.mu.Unlock()
			c.Close()
			u.Close()
			continue
		}
		p.conns = append(p.conns, c, u)
		p.mu.Unlock()
		p.wg.Add(2)
		go func() { defer p.wg.Done(); io.Copy(u, c); u.Close() }()
		go func() { defer p.wg.Done(); io.Copy(c, u); c.Close() }()
	}
}

// SetDown takes the server away (and drops the connections open to it)
// or brings it back.
func (p *Proxy) SetDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
	if down {
		for _, c := range p.conns {
			c.Close()
		}
		p.conns = nil
	}
}

// Dials counts the connections opened through the proxy, refused ones
// included.
func (p *Proxy) Dials() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dials
}

func (p *Proxy) close() {
	p.ln.Close()
	p.SetDown(true)
	p.wg.Wait()
}
