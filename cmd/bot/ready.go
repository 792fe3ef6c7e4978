package main

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// modelCheckEvery is how long a model readiness result is reused: probes
// come every few seconds from every load balancer and orchestrator, and
// each one should not become a request to a paid API.
const (
	modelCheckEvery   = 30 * time.Second
	modelCheckTimeout = 3 * time.Second
)

// named prefixes a readiness check's error with the backend it checks, so
// that /readyz says which one is down.
func named(name string, check func(context.Context) error) func(context.Context) error {
	return func(ctx context.Context) error {
		if err := check(ctx); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	}
}

// cachedCheck runs a check at most once per period and reuses its result
// in between. Concurrent callers during a check wait for it rather than
// start their own.
type cachedCheck struct {
	check   func(context.Context) error
	period  time.Duration
	timeout time.Duration
	now     func() time.Time

	mu  sync.Mutex
	at  time.Time // when err was found; zero before the first check
	err error
}

func newCachedCheck(check func(context.Context) error, period time.Duration, now func() time.Time) *cachedCheck {
	return &cachedCheck{check: check, period: period, timeout: modelCheckTimeout, now: now}
}

// Check returns the last result if it is fresh, else checks again.
func (c *cachedCheck) Check(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at.IsZero() && c.now().Sub(c.at) < c.period {
		return c.err
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	c.err = c.check(ctx)
	c.at = c.now()
	return c.err
}
