package neo4j

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/internal/breaker"
	"github.com/switchboard/switchboard/internal/fakeclock"
	"github.com/switchboard/switchboard/internal/testenv"
	"github.com/switchboard/switchboard/llm/offline"
)

// nextState returns the circuit's next change of state, heard on states.
func nextState(t *testing.T, states <-chan CircuitState) CircuitState {
	t.Helper()
	select {
	case s := <-states:
		return s
	case <-time.After(time.Minute): // a hang guard, not a measure
		t.Fatal("the circuit did not change")
		return ""
	}
}

// TestRetrieverOutage takes Neo4j away under a retriever that was
// working and checks that graph questions fail over instead of waiting:
// the first ones give up within the read budget (on the injected clock)
// with an error that tells the asker the knowledge graph is unavailable,
// then the circuit opens and questions fail without touching the
// network. Meanwhile the Graph probes the server in the background, and
// the first probe that finds it back closes the circuit, long before the
// cool-down ends; a readiness Ping that finds it back closes it too.
func TestRetrieverOutage(t *testing.T) {
	ctx := context.Background()
	direct := openTest(t) // the test graph, reached without the proxy
	seedGraph(t, direct)

	u, err := url.Parse(direct.cfg.URI)
	if err != nil {
		t.Fatal(err)
	}
	proxy := testenv.NewProxy(t, u.Host)
	clock := fakeclock.New()
	states := make(chan CircuitState, 16)
	g, err := Open(ctx, Config{URI: u.Scheme + "://" + proxy.Addr(), QueryTimeout: 5 * time.Second,
		ReadBudget: 2 * time.Second, CircuitFailures: 2, CircuitCooldown: time.Minute,
		Now: clock.Now, Sleep: clock.Sleep, OnCircuitChange: func(s CircuitState) { states <- s }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close(context.Background()) })
	// A read's back-off is a wait of the question the test waits on, so it
	// moves the clock itself; the breaker's probes wait on clock.Sleep,
	// which only the test's Advance (or a read's back-off) ends.
	g.sleep = clock.Jump

	r := NewGraphRetriever(g)
	r.Writer = &fakeWriter{replies: []string{suppliesQuery}}
	req := reqFor("Which customers does Acme Corp supply?")
	answered := func(t *testing.T, when string) {
		t.Helper()
		if docs, err := r.Retrieve(ctx, req); err != nil || len(docs) != 1 || docs[0].Title != "Knowledge graph query" {
			t.Fatalf("%s: %+v, %v", when, docs, err)
		}
	}
	answered(t, "before the outage")
	if _, err := g.EntityIndex(ctx); err != nil { // what the router knows of the graph
		t.Fatal(err)
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
	// fail asks twice with the server down, which opens the circuit.
	fail := func(t *testing.T) {
		t.Helper()
		for i := 1; i <= 2; i++ {
			before, start := proxy.Dials(), clock.Now()
			_, err := r.Retrieve(ctx, req)
			if u := unavailable(t, err); u.Cause == nil {
				t.Errorf("question %d was refused by the circuit before it opened: %v", i, err)
			}
			if proxy.Dials() == before {
				t.Errorf("question %d did not try the server", i)
			}
			if spent := clock.Now().Sub(start); spent > 2*time.Second {
				t.Errorf("question %d spent %v of the injected clock retrying, budget 2s", i, spent)
			}
		}
		if s := nextState(t, states); s != CircuitOpen {
			t.Fatalf("circuit %s after two failed questions, want open", s)
		}
	}

	proxy.SetDown(true)
	fail(t)

	// Open: nothing reaches the network, whichever path reads.
	dials := proxy.Dials()
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
	if n := proxy.Dials(); n != dials {
		t.Errorf("%d connections opened with the circuit open", n-dials)
	}

	// The agent turns the failure into a message for the asker.
	a, err := agent.New(agent.Config{Offline: offline.New(g), Retrievers: map[agent.Route]agent.Retriever{agent.RouteGraph: r}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.Ask(ctx, agent.Question{Text: "Which customers does Acme Corp supply?"}, nil)
	if msg := agent.ErrorMessage(err); !strings.Contains(msg, "knowledge graph is unavailable") {
		t.Errorf("agent answer: %q (%v)", msg, err)
	}
	if n := proxy.Dials(); n != dials {
		t.Errorf("the agent's question opened %d connections with the circuit open", n-dials)
	}

	// A second later the background probe tries the server; it is still
	// down, so the circuit stays open and the probe waits for the next.
	clock.WaitSleepers(t, 1, "the circuit's background probe")
	clock.Advance(time.Second)
	clock.WaitSleepers(t, 1, "the circuit's background probe")
	if proxy.Dials() == dials {
		t.Error("no background probe while open")
	}
	if err := g.Ping(ctx); err == nil {
		t.Error("Ping of a server that is down succeeded")
	}
	if s := g.circuit.current(); s != CircuitOpen {
		t.Fatalf("circuit %s after failed probes, want open", s)
	}

	// The server is back. Until a probe has seen it, questions are still
	// refused; the next probe, a second later, closes the circuit, and
	// the next question is answered, 2 s after the circuit opened with a
	// minute's cool-down.
	proxy.SetDown(false)
	_, err = r.Retrieve(ctx, req)
	unavailable(t, err)
	clock.Advance(time.Second)
	if s := nextState(t, states); s != CircuitClosed {
		t.Fatalf("circuit %s after a probe found the server back, want closed", s)
	}
	answered(t, "the first question after the probe")

	// Again, and this time a readiness check finds the server back first:
	// its success closes the circuit too, with the clock standing still.
	proxy.SetDown(true)
	fail(t)
	proxy.SetDown(false)
	if err := g.Ping(ctx); err != nil {
		t.Fatalf("Ping of a server that is back: %v", err)
	}
	if s := nextState(t, states); s != CircuitClosed {
		t.Fatalf("circuit %s after a good Ping, want closed", s)
	}
	answered(t, "the first question after /readyz")

	// Nothing listening at all (connection refused) fails over the same way.
	proxy.Close()
	for i := 0; i < 3; i++ {
		_, err := r.Retrieve(ctx, req)
		unavailable(t, err)
	}
	if s := g.circuit.current(); s != CircuitOpen {
		t.Errorf("circuit %s with nothing listening, want open", s)
	}

	// Close ends the background probes.
	g.Close(ctx)
	if n := testenv.Goroutines("breaker.(*Breaker).probeUntilClosed"); n != 0 {
		t.Errorf("%d probing goroutines after Close", n)
	}
}

// TestCircuitStates walks the breaker through its states on a fake clock.
func TestCircuitStates(t *testing.T) {
	clock := fakeclock.New()
	var changes []CircuitState
	c := newCircuit(breaker.Config{Failures: 3, Cooldown: time.Minute, Now: clock.Now,
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
	clock.Advance(time.Minute)
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
	clock.Advance(time.Minute)
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
