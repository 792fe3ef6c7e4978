package breaker_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/internal/breaker"
	"github.com/switchboard/switchboard/internal/fakeclock"
	"github.com/switchboard/switchboard/internal/testenv"
)

// clock is a fake clock: only the test moves it.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

func newBreaker(failures int) (*breaker.Breaker, *clock, *[]breaker.State) {
	c := &clock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	changes := &[]breaker.State{}
	b := breaker.New(breaker.Config{Failures: failures, Cooldown: time.Minute, Now: c.now,
		OnChange: func(s breaker.State) { *changes = append(*changes, s) }})
	return b, c, changes
}

// call makes one call through b with outcome o; it fails the test if b
// refuses it.
func call(t *testing.T, b *breaker.Breaker, o breaker.Outcome) {
	t.Helper()
	if r, ok := b.Allow(); !ok {
		t.Fatalf("refused while %s: %+v", b.State(), r)
	}
	b.Record(o)
}

// The breaker walks closed → open → half-open → open → half-open →
// closed on a fake clock, refusing what it should on the way.
func TestStates(t *testing.T) {
	b, clk, changes := newBreaker(3)
	call(t, b, breaker.Failure)
	call(t, b, breaker.Failure)
	call(t, b, breaker.Success) // a success in between resets the count
	call(t, b, breaker.Failure)
	call(t, b, breaker.Failure)
	if s := b.State(); s != breaker.Closed {
		t.Fatalf("state after 2 failures = %s", s)
	}
	call(t, b, breaker.Failure)
	if r, ok := b.Allow(); ok || r.Failures != 3 || r.RetryIn != time.Minute {
		t.Fatalf("after 3 failures: %+v, %v; want a refusal for a minute", r, ok)
	}
	clk.advance(59 * time.Second)
	if r, ok := b.Allow(); ok || r.RetryIn != time.Second {
		t.Fatalf("just before the cool-down ends: %+v, %v", r, ok)
	}

	clk.advance(time.Second)
	if _, ok := b.Allow(); !ok || b.State() != breaker.HalfOpen {
		t.Fatalf("after the cool-down: %v, %s", ok, b.State())
	}
	if r, ok := b.Allow(); ok || r.RetryIn != 0 || r.Failures != 3 {
		t.Errorf("a second call during the probe: %+v, %v; want refused", r, ok)
	}
	b.Record(breaker.Abandoned) // the probe's caller gave up: another may probe
	call(t, b, breaker.Failure) // a failed probe reopens at once
	if r, ok := b.Allow(); ok || r.RetryIn != time.Minute {
		t.Fatalf("after a failed probe: %+v, %v", r, ok)
	}

	clk.advance(time.Minute)
	call(t, b, breaker.Success)
	if s := b.State(); s != breaker.Closed {
		t.Errorf("after a good probe: %s", s)
	}
	want := []breaker.State{breaker.Open, breaker.HalfOpen, breaker.Open, breaker.HalfOpen, breaker.Closed}
	if !slices.Equal(*changes, want) {
		t.Errorf("changes %v, want %v", *changes, want)
	}

	// The good probe cleared the count: it takes 3 failures again.
	call(t, b, breaker.Failure)
	call(t, b, breaker.Failure)
	if _, ok := b.Allow(); !ok {
		t.Fatal("reopened after 2 failures: the count was not cleared")
	}
	b.Record(breaker.Failure)
	if _, ok := b.Allow(); ok {
		t.Error("still closed after 3 more failures")
	}
}

// Abandoned calls count neither way while closed.
func TestAbandonedCountsForNothing(t *testing.T) {
	b, _, changes := newBreaker(2)
	call(t, b, breaker.Failure)
	for range 5 {
		call(t, b, breaker.Abandoned)
	}
	call(t, b, breaker.Failure)
	if b.State() != breaker.Open || len(*changes) != 1 {
		t.Errorf("state %s, changes %v; want open once, after the two failures", b.State(), *changes)
	}
}

// The defaults: one failure opens it, for DefaultCooldown.
func TestDefaults(t *testing.T) {
	clk := &clock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	b := breaker.New(breaker.Config{Now: clk.now})
	call(t, b, breaker.Failure)
	if r, ok := b.Allow(); ok || r.RetryIn != breaker.DefaultCooldown {
		t.Errorf("after one failure: %+v, %v; want refused for %s", r, ok, breaker.DefaultCooldown)
	}
}

// prober is the Probe of a test: it answers as the server is (up or not)
// and tells the test of every call.
type prober struct {
	mu    sync.Mutex
	up    bool
	calls chan error
}

func newProber() *prober { return &prober{calls: make(chan error, 16)} }

func (p *prober) probe(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var err error
	if !p.up {
		err = errors.New("connection refused")
	}
	p.calls <- err
	return err
}

func (p *prober) setUp(up bool) { p.mu.Lock(); p.up = up; p.mu.Unlock() }

// probed waits for the next probe and returns its result.
func (p *prober) probed(t *testing.T) error {
	t.Helper()
	select {
	case err := <-p.calls:
		return err
	case <-time.After(time.Minute): // a hang guard, not a measure
		t.Fatal("no probe")
		return nil
	}
}

// openBreaker returns a Breaker that opens after 2 failures, with p
// probing every second on clk, opened by 2 failed calls, and a channel
// that hears its later changes of state.
func openBreaker(t *testing.T, clk *fakeclock.Clock, p *prober) (*breaker.Breaker, chan breaker.State) {
	t.Helper()
	changes := make(chan breaker.State, 16)
	b := breaker.New(breaker.Config{Failures: 2, Cooldown: time.Minute, Now: clk.Now, Sleep: clk.Sleep,
		Probe: p.probe, ProbeEvery: time.Second, OnChange: func(s breaker.State) { changes <- s }})
	t.Cleanup(b.Stop)
	call(t, b, breaker.Failure)
	call(t, b, breaker.Failure)
	if s := <-changes; s != breaker.Open {
		t.Fatalf("after 2 failures: %s, want open", s)
	}
	return b, changes
}

// probers counts the Breaker goroutines that probe.
func probers() int { return testenv.Goroutines("breaker.(*Breaker).probeUntilClosed") }

// While the circuit is open the Breaker probes in the background, one
// probe every ProbeEvery on the injected clock, and the first probe that
// finds the server back closes the circuit, long before the cool-down
// ends: the next call goes through.
func TestProbeClosesTheCircuit(t *testing.T) {
	clk, p := fakeclock.New(), newProber()
	b, changes := openBreaker(t, clk, p)
	clk.WaitSleepers(t, 1, "the prober") // the prober waits for its first probe
	for range 3 {
		clk.Advance(time.Second)
		if err := p.probed(t); err == nil {
			t.Fatal("the probe found a down server up")
		}
		clk.WaitSleepers(t, 1, "the prober")
		if _, ok := b.Allow(); ok {
			t.Fatal("a failed probe let calls through")
		}
	}

	p.setUp(true)
	clk.Advance(time.Second)
	if err := p.probed(t); err != nil {
		t.Fatal(err)
	}
	if s := <-changes; s != breaker.Closed {
		t.Fatalf("after a good probe: %s, want closed", s)
	}
	call(t, b, breaker.Success) // 4 s after opening, with a minute's cool-down
	b.Stop()
	if n := probers(); n != 0 {
		t.Errorf("%d probing goroutines left after Stop", n)
	}
}

// A circuit closed by a probe is on trial: the next failure reopens it,
// and the probes then wait twice as long, up to the cool-down, until a
// call succeeds.
func TestProbeTrial(t *testing.T) {
	clk, p := fakeclock.New(), newProber()
	p.setUp(true)
	b, changes := openBreaker(t, clk, p)
	reopen := func(wait time.Duration) {
		t.Helper()
		clk.WaitSleepers(t, 1, "the prober")
		clk.Advance(wait - time.Millisecond)
		if clk.Sleepers() != 1 {
			t.Fatalf("probed before %s", wait)
		}
		clk.Advance(time.Millisecond)
		if err := p.probed(t); err != nil {
			t.Fatal(err)
		}
		if s := <-changes; s != breaker.Closed {
			t.Fatalf("after a good probe: %s", s)
		}
		call(t, b, breaker.Failure) // the trial fails: open again at once
		if s := <-changes; s != breaker.Open {
			t.Fatalf("a failed call on trial left the circuit %s", s)
		}
	}
	for _, wait := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		reopen(wait)
	}
	// A successful call ends the trial: probes wait a second again, and
	// it takes two failures to open the circuit.
	clk.WaitSleepers(t, 1, "the prober")
	clk.Advance(8 * time.Second)
	p.probed(t)
	<-changes
	call(t, b, breaker.Success)
	call(t, b, breaker.Failure)
	if _, ok := b.Allow(); !ok {
		t.Fatal("one failure after a good call opened the circuit")
	}
	b.Record(breaker.Failure)
	<-changes
	reopen(time.Second)
}

// A readiness check through Check closes an open circuit when the server
// answers, without waiting for the background probe.
func TestCheckClosesTheCircuit(t *testing.T) {
	clk, p := fakeclock.New(), newProber()
	b, changes := openBreaker(t, clk, p)
	if err := b.Check(t.Context()); err == nil {
		t.Fatal("Check of a down server succeeded")
	}
	p.probed(t)
	if _, ok := b.Allow(); ok {
		t.Fatal("a failed Check closed the circuit")
	}
	p.setUp(true)
	if err := b.Check(t.Context()); err != nil {
		t.Fatal(err)
	}
	p.probed(t)
	if s := <-changes; s != breaker.Closed {
		t.Fatalf("after a good Check: %s", s)
	}
	call(t, b, breaker.Success)

	if err := breaker.New(breaker.Config{}).Check(t.Context()); !errors.Is(err, breaker.ErrNoProbe) {
		t.Errorf("Check without a probe: %v", err)
	}
}

// Stop ends a prober that waits, and no prober starts after it; the
// circuit still opens and closes on calls.
func TestStop(t *testing.T) {
	clk, p := fakeclock.New(), newProber()
	b, changes := openBreaker(t, clk, p)
	clk.WaitSleepers(t, 1, "the prober")
	if n := probers(); n != 1 {
		t.Fatalf("%d probing goroutines while open, want 1", n)
	}
	b.Stop()
	if n := probers(); n != 0 {
		t.Errorf("%d probing goroutines after Stop", n)
	}
	clk.Advance(time.Minute)
	call(t, b, breaker.Failure) // the cool-down's probe call
	<-changes
	<-changes
	if clk.Sleepers() != 0 || probers() != 0 {
		t.Error("a prober started after Stop")
	}
}
