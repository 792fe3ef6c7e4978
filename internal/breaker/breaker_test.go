package breaker_test

import (
	"slices"
	"testing"
	"time"

	"github.com/switchboard/switchboard/internal/breaker"
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
