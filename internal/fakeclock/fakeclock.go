// Package fakeclock is a clock for tests: its time moves only when the
// test moves it, so that no test waits in real time and none depends on
// how fast the machine runs it. It stands in for the Now and Sleep
// settings of the packages that wait (breaker, neo4j, llm, cmd/bot).
package fakeclock

import (
	"context"
	"sync"
	"testing"
	"time"
)

// Start is the time of a new Clock.
var Start = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// Clock is a fake clock. It is safe for concurrent use.
type Clock struct {
	mu       sync.Mutex
	changed  *sync.Cond // signalled when sleepers come or go
	t        time.Time
	sleepers map[*sleeper]struct{}
}

type sleeper struct {
	until time.Time
	wake  chan struct{}
}

// New returns a Clock at Start.
func New() *Clock {
	c := &Clock{t: Start, sleepers: map[*sleeper]struct{}{}}
	c.changed = sync.NewCond(&c.mu)
	return c
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Sleep waits until Advance has moved the clock d past the time of the
// call, or until ctx ends, and returns ctx's error then: it is a
// background loop's wait, which only the test ends.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	c.mu.Lock()
	s := &sleeper{until: c.t.Add(d), wake: make(chan struct{})}
	c.sleepers[s] = struct{}{}
	c.changed.Broadcast()
	c.mu.Unlock()
	select {
	case <-s.wake:
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.sleepers, s)
		c.changed.Broadcast()
		c.mu.Unlock()
		return ctx.Err()
	}
}

// Jump is a Sleep that moves the clock d itself: for a wait in the call
// the test is waiting on, such as a retry's back-off, which no Advance of
// the test could reach. It wakes the sleepers whose time comes with it.
func (c *Clock) Jump(ctx context.Context, d time.Duration) error {
	c.Advance(d)
	return ctx.Err()
}

// Advance moves the clock by d and wakes the sleepers whose time has come.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	for s := range c.sleepers {
		if !s.until.After(c.t) {
			close(s.wake)
			delete(c.sleepers, s)
		}
	}
	c.changed.Broadcast()
}

// Sleepers returns how many goroutines wait in Sleep.
func (c *Clock) Sleepers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.sleepers)
}

// hangGuard is how long WaitSleepers waits before it fails the test: a
// guard against a hang, so that it shows as a failure with a reason, not a
// measure of anything.
const hangGuard = time.Minute

// WaitSleepers blocks until n goroutines wait in Sleep, so that a test
// advances the clock only once a background loop has started its wait;
// who names them, for the failure.
func (c *Clock) WaitSleepers(t testing.TB, n int, who string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	stop := context.AfterFunc(ctx, func() {
		c.mu.Lock()
		c.changed.Broadcast()
		c.mu.Unlock()
	})
	defer stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.sleepers) != n {
		if ctx.Err() != nil {
			t.Fatalf("fakeclock: waiting for %s: %d goroutines sleep, want %d", who, len(c.sleepers), n)
		}
		c.changed.Wait()
	}
}
