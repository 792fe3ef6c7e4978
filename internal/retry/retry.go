// Package retry is the one loop that tries a call again when it failed in
// a way that may pass: the model client, Slack, Discord, Tavily, the
// embedder and Neo4j's reads all go through Do. Each caller says only what
// its protocol makes retryable (Slack's ok:false codes, Discord's 429,
// HTTP 5xx, a lost connection) and whether the server named a wait; the
// waits, their bounds and the context are handled here, once.
package retry

import (
	"context"
	"math/rand/v2"
	"time"
)

// Defaults of a Policy.
const (
	DefaultBackoff    = 500 * time.Millisecond
	DefaultMaxBackoff = 30 * time.Second
)

// Policy says how often, and after what waits, Do tries a call again. The
// zero Policy makes one attempt.
type Policy struct {
	// Attempts bounds the calls, the first one included; less than 1
	// means 1.
	Attempts int
	// Backoff is the first wait after a failure that names no wait; it
	// doubles with every retry up to MaxBackoff, and at random up to half
	// of it is taken off ("equal jitter"), so that callers failed together
	// do not come back together. Zero means DefaultBackoff.
	Backoff time.Duration
	// MaxBackoff caps the doubling; zero means DefaultMaxBackoff. It is
	// never above MaxWait.
	MaxBackoff time.Duration
	// MaxWait caps any one wait, a server's Retry-After included: the
	// retry then goes out early. Zero means no cap.
	MaxWait time.Duration
	// Budget bounds all the waits of one Do together. A wait that would
	// take them past it is not begun: Do returns the last attempt's
	// error instead, since retrying before the server said it is ready
	// would only earn another refusal. Zero means no bound.
	Budget time.Duration
	// Sleep waits d, or until ctx ends and then returns ctx's error.
	// Zero means Sleep, a timer; tests pass one that records the waits
	// and returns at once.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand returns a number in [0, n), for the jitter; nil means
	// math/rand/v2. Tests pass one that makes the waits exact.
	Rand func(n int64) int64
	// OnRetry, if set, hears of every retry before its wait: the attempt
	// that failed (1 for the first), its error and the wait. Callers log
	// there, or release what the failed attempt holds.
	OnRetry func(attempt int, err error, wait time.Duration)
}

// Outcome is what one attempt tells Do: its error, and whether and when
// to try again. Make one with Stop, Again or Later.
type Outcome struct {
	err   error
	retry bool
	wait  time.Duration // the wait the attempt named, when named
	named bool
	least time.Duration // the shortest wait, whatever else says
}

// Stop ends Do with err: nil for a call that succeeded, or an error that
// another attempt would only repeat.
func Stop(err error) Outcome { return Outcome{err: err} }

// Again asks for another attempt after the Policy's backoff. err may be
// nil when the failure is not an error to the caller (an HTTP 503 is a
// response); Do then returns nil if the attempts run out.
func Again(err error) Outcome { return Outcome{err: err, retry: true} }

// Later asks for another attempt after d: the wait a server named
// (Retry-After, Discord's retry_after) or one the caller's protocol
// fixes. MaxWait caps it and Budget may refuse it.
func Later(err error, d time.Duration) Outcome {
	return Outcome{err: err, retry: true, wait: max(d, 0), named: true}
}

// AtLeast makes o's wait no shorter than d: for a rate limit that named
// no wait, where a backoff shorter than d would surely be refused again.
// MaxWait still caps it.
func (o Outcome) AtLeast(d time.Duration) Outcome {
	o.least = d
	return o
}

// StoppedError is Do's error when ctx ended the retries: during a wait,
// or before a failed attempt could be tried again. It matches both the
// last attempt's error and ctx's with errors.Is and errors.As.
type StoppedError struct {
	Err error // the last attempt's error; nil if it was not an error
	Ctx error // what ended the wait: ctx's error
}

func (e *StoppedError) Error() string {
	if e.Err == nil {
		return e.Ctx.Error()
	}
	return e.Err.Error() + ", then " + e.Ctx.Error()
}

// Unwrap returns the last attempt's error and ctx's.
func (e *StoppedError) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Ctx}
	}
	return []error{e.Err, e.Ctx}
}

// Do calls call, numbering the attempts from 1, until an attempt returns
// Stop, p.Attempts have been made, a wait would overrun p.Budget or ctx
// ends. It returns the last attempt's error (nil when it succeeded), or a
// *StoppedError when ctx ended the retries. Only this goroutine waits.
//
// Do makes the call again as it is: a call that may have taken effect
// although it failed is the caller's to make safe to repeat.
func Do(ctx context.Context, p Policy, call func(attempt int) Outcome) error {
	p = p.withDefaults()
	var waited time.Duration
	for attempt := 1; ; attempt++ {
		o := call(attempt)
		if !o.retry || attempt >= p.Attempts {
			return o.err
		}
		if err := ctx.Err(); err != nil {
			return &StoppedError{Err: o.err, Ctx: err}
		}
		wait := p.wait(o, attempt)
		if p.Budget > 0 && waited+wait > p.Budget {
			return o.err
		}
		if p.OnRetry != nil {
			p.OnRetry(attempt, o.err, wait)
		}
		if err := p.Sleep(ctx, wait); err != nil {
			return &StoppedError{Err: o.err, Ctx: err}
		}
		waited += wait
	}
}

func (p Policy) withDefaults() Policy {
	p.Attempts = max(p.Attempts, 1)
	if p.Backoff <= 0 {
		p.Backoff = DefaultBackoff
	}
	if p.MaxBackoff <= 0 {
		p.MaxBackoff = DefaultMaxBackoff
	}
	if p.MaxWait > 0 {
		p.MaxBackoff = min(p.MaxBackoff, p.MaxWait)
	}
	if p.Sleep == nil {
		p.Sleep = Sleep
	}
	if p.Rand == nil {
		p.Rand = rand.Int64N
	}
	return p
}

// wait is how long to wait after attempt failed with o.
func (p Policy) wait(o Outcome, attempt int) time.Duration {
	d := o.wait
	if !o.named {
		d = p.Backoff
		for i := 1; i < attempt && d < p.MaxBackoff; i++ {
			d = min(d, p.MaxBackoff-d) + d // doubles, without overflowing
		}
		d = min(d, p.MaxBackoff)
		d = d/2 + time.Duration(p.Rand(int64(d/2)+1))
	}
	d = max(d, o.least)
	if p.MaxWait > 0 {
		d = min(d, p.MaxWait)
	}
	return d
}

// Sleep waits d, or until ctx ends, and then returns ctx's error. It is
// a Policy's default Sleep.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
