package neo4j

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/internal/breaker"
	"github.com/switchboard/switchboard/llm/offline"
)

// fakeClock is the clock of the read budget and the circuit breaker in
// tests: sleeping advances it at once, so no test waits in real time.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func (c *fakeClock) sleep(ctx context.Context, d time.Duration) error {
	c.advance(d)
	return ctx.Err()
}

// switchProxy stands between the driver and the test Neo4j and plays the
// outage: up, it forwards connections; down, it accepts each one and
// closes it at once, as a server that died would; closed, nothing
// listens on its port. It counts the connections the driver opens, so a
// test can tell whether a read touched the network.
type switchProxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	down  bool
	dials int
	conns []net.Conn
	wg    sync.WaitGroup
}

func newSwitchProxy(t *testing.T, target string) *switchProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &switchProxy{ln: ln, target: target}
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(p.close)
	return p
}

func (p *switchProxy) addr() string { return p.ln.Addr().String() }

func (p *switchProxy) serve() {
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
		p.conns = append(p.conns, c, u)
		p.mu.Unlock()
		p.wg.Add(2)
		go func() { defer p.wg.Done(); io.Copy(u, c); u.Close() }()
		go func() { defer p.wg.Done(); io.Copy(c, u); c.Close() }()
	}
}

// setDown takes the server away (and drops the connections open to it) or
// brings it back.
func (p *switchProxy) setDown(down bool) {
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

func (p *switchProxy) dialCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dials
}

func (p *switchProxy) close() {
	p.ln.Close()
	p.setDown(true)
	p.wg.Wait()
}

// TestRetrieverOutage takes Neo4j away under a retriever that was
// working and checks that graph questions fail over instead of waiting:
// the first ones give up within the read budget (on the injected clock)
// with an error that tells the asker the knowledge graph is unavailable,
// then the circuit opens and questions fail without touching the
// network, until a probe after the cool-down finds the server back.
func TestRetrieverOutage(t *testing.T) {
	ctx := context.Background()
	direct := openTest(t) // the test graph, reached without the proxy
	seedGraph(t, direct)

	u, err := url.Parse(direct.cfg.URI)
	if err != nil {
		t.Fatal(err)
	}
	proxy := newSwitchProxy(t, u.Host)
	g, err := Open(ctx, Config{URI: u.Scheme + "://" + proxy.addr(), QueryTimeout: 5 * time.Second,
		ReadBudget: 2 * time.Second, CircuitFailures: 2, CircuitCooldown: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close(context.Background()) })
	clock := newFakeClock()
	g.now, g.sleep = clock.now, clock.sleep

	r := NewGraphRetriever(g)
	r.Writer = &fakeWriter{replies: []string{suppliesQuery}}
	req := reqFor("Which customers does Acme Corp supply?")
	if docs, err := r.Retrieve(ctx, req); err != nil || len(docs) != 1 || docs[0].Title != "Knowledge graph query" {
		t.Fatalf("before the outage: %+v, %v", docs, err)
	}

	unavailable := func(t *testing.T, err error) *UnavailableError {
		t.Helper()
		var u *UnavailableError
		if !errors.Is(err, ErrUnavailable) || !errors.As(err, &u) {
			t.Fatalf("want the knowledge graph unavailable, got %v", err)
		}
		if msg := agent.ErrorMessage(err); !strings.Contains(msg, "knowledge graph is unavailable") {
			t.Errorf("the asker is told %q", msg)
		}
		return u
	}

	proxy.setDown(true)
	for i := 1; i <= 2; i++ {
		before, start := proxy.dialCount(), clock.now()
		_, err := r.Retrieve(ctx, req)
		if u := unavailable(t, err); u.Cause == nil {
			t.Errorf("question %d was refused by the circuit before it opened: %v", i, err)
		}
		if proxy.dialCount() == before {
			t.Errorf("question %d did not try the server", i)
		}
		if spent := clock.now().Sub(start); spent > 2*time.Second {
			t.Errorf("question %d spent %v of the injected clock retrying, budget 2s", i, spent)
		}
	}
	if s := g.circuit.current(); s != CircuitOpen {
		t.Fatalf("circuit %s after two failed questions, want open", s)
	}

	// Open: nothing reaches the network, whichever path reads.
	dials := proxy.dialCount()
	_, err = r.Retrieve(ctx, req)
	if u := unavailable(t, err); u.Cause != nil || u.RetryIn != time.Minute {
		t.Errorf("open circuit: %+v", u)
	}
	walker := NewGraphRetriever(g) // no writer: the walk
	_, err = walker.Retrieve(ctx, reqFor("Who does Acme Corp supply?"))
	unavailable(t, err)
	if _, err := g.CountNodes(ctx); !errors.Is(err, ErrUnavailable) {
		t.Errorf("CountNodes with the circuit open: %v", err)
	}
	if n := proxy.dialCount(); n != dials {
		t.Errorf("%d connections opened with the circuit open", n-dials)
	}

	// The agent turns the failure into a message for the asker.
	a, err := agent.New(agent.Config{Offline: offline.New(nil), Retrievers: map[agent.Route]agent.Retriever{agent.RouteGraph: r}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.Ask(ctx, agent.Question{Text: "Which customers does Acme Corp supply?"}, nil)
	if msg := agent.ErrorMessage(err); !strings.Contains(msg, "knowledge graph is unavailable") {
		t.Errorf("agent answer: %q (%v)", msg, err)
	}
	if n := proxy.dialCount(); n != dials {
		t.Errorf("the agent's question opened %d connections with the circuit open", n-dials)
	}

	// After the cool-down one probe goes out; it fails, and the circuit
	// opens again for another cool-down.
	clock.advance(time.Minute)
	_, err = r.Retrieve(ctx, req)
	unavailable(t, err)
	if proxy.dialCount() == dials {
		t.Error("no probe after the cool-down")
	}
	if s := g.circuit.current(); s != CircuitOpen {
		t.Errorf("circuit %s after a failed probe, want open", s)
	}
	dials = proxy.dialCount()
	if _, err := r.Retrieve(ctx, req); !errors.Is(err, ErrUnavailable) || proxy.dialCount() != dials {
		t.Errorf("right after a failed probe: %v, %d connections", err, proxy.dialCount()-dials)
	}

	// The server is back: the next probe closes the circuit.
	proxy.setDown(false)
	clock.advance(time.Minute)
	if docs, err := r.Retrieve(ctx, req); err != nil || len(docs) != 1 {
		t.Fatalf("after the outage: %+v, %v", docs, err)
	}
	if s := g.circuit.current(); s != CircuitClosed {
		t.Errorf("circuit %s after a good probe, want closed", s)
	}

	// Nothing listening at all (connection refused) fails over the same way.
	proxy.close()
	clock.advance(time.Hour)
	for i := 0; i < 3; i++ {
		_, err := r.Retrieve(ctx, req)
		unavailable(t, err)
	}
	if s := g.circuit.current(); s != CircuitOpen {
		t.Errorf("circuit %s with nothing listening, want open", s)
	}
}

// TestCircuitStates walks the breaker through its states on a fake clock.
func TestCircuitStates(t *testing.T) {
	clock := newFakeClock()
	var changes []CircuitState
	c := newCircuit(breaker.Config{Failures: 3, Cooldown: time.Minute, Now: clock.now,
		OnChange: func(s CircuitState) { changes = append(changes, s) }})
	fail := func() {
		t.Helper()
		if err := c.allow(); err != nil {
			t.Fatalf("refused while %s: %v", c.current(), err)
		}
		c.record(failed)
	}
	fail()
	fail()
	if err := c.allow(); err != nil {
		t.Fatal(err)
	}
	c.record(succeeded) // a success in between resets the count
	fail()
	fail()
	if c.current() != CircuitClosed {
		t.Fatalf("state after 2 failures = %s", c.current())
	}
	fail()
	var u *UnavailableError
	if err := c.allow(); !errors.As(err, &u) || u.Failures != 3 || u.RetryIn != time.Minute || u.Cause != nil {
		t.Fatalf("after 3 failures: %v", err)
	}
	clock.advance(time.Minute)
	if err := c.allow(); err != nil || c.current() != CircuitHalfOpen {
		t.Fatalf("after the cool-down: %v, %s", err, c.current())
	}
	if err := c.allow(); !errors.Is(err, ErrUnavailable) {
		t.Errorf("a second read during the probe: %v", err)
	}
	c.record(abandoned) // the probe's caller gave up: another may probe
	if err := c.allow(); err != nil {
		t.Fatalf("next probe: %v", err)
	}
	c.record(failed) // a failed probe reopens at once
	if err := c.allow(); !errors.As(err, &u) || u.RetryIn != time.Minute {
		t.Fatalf("after a failed probe: %v", err)
	}
	clock.advance(time.Minute)
	if err := c.allow(); err != nil {
		t.Fatal(err)
	}
	c.record(succeeded)
	if c.current() != CircuitClosed {
		t.Errorf("after a good probe: %s", c.current())
	}
	want := []CircuitState{CircuitOpen, CircuitHalfOpen, CircuitOpen, CircuitHalfOpen, CircuitClosed}
	if strings.Join(statesText(changes), " ") != strings.Join(statesText(want), " ") {
		t.Errorf("changes %v, want %v", changes, want)
	}
	var off *circuit // CircuitFailures < 0: no breaker
	if err := off.allow(); err != nil {
		t.Error(err)
	}
	off.record(failed)
}

func statesText(ss []CircuitState) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return out
}
