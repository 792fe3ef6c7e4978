// Package breaker is the circuit breaker of the model client (package
// llm) and of Neo4j's reads (package neo4j): after a number of failed
// calls in a row it refuses calls, so that an outage costs each caller an
// instant refusal rather than a full timeout.
//
// A server that is back must be used again at once, not after the rest of
// a cool-down: while the circuit is open, the Breaker's own goroutine asks
// the server whether it answers (Config.Probe, a cheap call such as a
// readiness ping) every ProbeEvery, and its first success closes the
// circuit. A readiness check made through Check closes it the same way,
// so that /readyz and the circuit agree. Without a Probe, or if probes keep
// failing, one call is let through after the cool-down as a probe. Each
// user decides what counts as a failure and how a refusal is worded.
package breaker

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/switchboard/switchboard/internal/retry"
)

// Defaults for the zero values of Config.
const (
	DefaultCooldown     = 30 * time.Second
	DefaultProbeEvery   = time.Second
	DefaultProbeTimeout = 3 * time.Second
)

// State is the state of a Breaker.
type State string

// The states: closed lets every call through; open refuses them all for
// the cool-down; half-open lets one probe through, whose outcome closes
// or reopens the circuit.
const (
	Closed   State = "closed"
	Open     State = "open"
	HalfOpen State = "half-open"
)

// Config sets up a Breaker.
type Config struct {
	// Failures is how many failed calls in a row open the circuit; less
	// than 1 means 1.
	Failures int
	// Cooldown is how long the circuit stays open before a probe is let
	// through; zero means DefaultCooldown.
	Cooldown time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// OnChange, if set, hears every change of state (for metrics and
	// logs). It is called with the breaker's lock held and must be quick.
	OnChange func(State)

	// Probe, if set, asks the server whether it answers, outside the
	// circuit: a cheap call of the same server, such as a readiness ping.
	// While the circuit is open one goroutine of the Breaker calls it,
	// waiting ProbeEvery before each call, and bounds each call by
	// ProbeTimeout; the first success closes the circuit. Stop ends that
	// goroutine.
	//
	// A circuit closed by a probe is on trial: the next failed call opens
	// it again at once, and each time that happens the wait between probes
	// doubles, up to Cooldown, so that a server whose pings succeed while
	// its real calls fail (a model server over its rate limit) is not sent
	// a failing call every ProbeEvery. A successful call ends the trial.
	Probe func(context.Context) error
	// ProbeEvery is the wait before each probe; zero means
	// DefaultProbeEvery.
	ProbeEvery time.Duration
	// ProbeTimeout bounds one probe; zero means DefaultProbeTimeout.
	ProbeTimeout time.Duration
	// Sleep waits between probes and returns early, with ctx's error,
	// when ctx ends; nil means a timer. Tests pass one driven by their
	// clock.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Outcome is how a call that Allow let through went.
type Outcome int

const (
	// Success: the server answered, which closes the circuit.
	Success Outcome = iota
	// Failure: the server could not be reached or failed; enough of them
	// in a row, or one probe, open the circuit.
	Failure
	// Abandoned: the caller gave up, which says nothing about the
	// server; a probe abandoned lets the next call probe.
	Abandoned
)

// Refusal says why Allow refused a call.
type Refusal struct {
	Failures int           // the failures in a row that opened the circuit
	RetryIn  time.Duration // until a probe may go out; zero while one is in flight
}

// Breaker is a circuit breaker. It is safe for concurrent use. A Breaker
// with a Probe must be stopped (Stop) when it is no longer used.
type Breaker struct {
	cfg Config

	// watch is the context of the probing goroutine; cancelled by Stop.
	watch  context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	state    State
	failures int       // in a row
	opened   time.Time // when the circuit last opened
	probing  bool      // a half-open probe is in flight
	trial    bool      // closed by a probe, with no successful call since
	every    time.Duration
	watching bool // the probing goroutine runs
	stopped  bool
}

// New returns a closed Breaker for cfg.
func New(cfg Config) *Breaker {
	cfg.Failures = max(cfg.Failures, 1)
	if cfg.Cooldown <= 0 {
		cfg.Cooldown = DefaultCooldown
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ProbeEvery <= 0 {
		cfg.ProbeEvery = DefaultProbeEvery
	}
	if cfg.ProbeTimeout <= 0 {
		cfg.ProbeTimeout = DefaultProbeTimeout
	}
	if cfg.Sleep == nil {
		cfg.Sleep = retry.Sleep
	}
	watch, cancel := context.WithCancel(context.Background())
	return &Breaker{cfg: cfg, state: Closed, every: cfg.ProbeEvery, watch: watch, cancel: cancel}
}

// Allow reports whether a call may go out now, and if not, why. Every
// call it allows must be followed by one Record of its outcome.
func (b *Breaker) Allow() (Refusal, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch b.state {
	case Open:
		wait := b.opened.Add(b.cfg.Cooldown).Sub(b.cfg.Now())
		if wait > 0 {
			return Refusal{Failures: b.failures, RetryIn: wait}, false
		}
		b.set(HalfOpen)
		b.probing = true
	case HalfOpen:
		if b.probing {
			// One probe at a time: the others would only pile onto a
			// server that may still be down.
			return Refusal{Failures: b.failures}, false
		}
		b.probing = true
	}
	return Refusal{}, true
}

// Record takes the outcome of a call that Allow let through.
func (b *Breaker) Record(o Outcome) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch o {
	case Success:
		b.failures, b.probing = 0, false
		b.trial, b.every = false, b.cfg.ProbeEvery
		b.set(Closed)
	case Failure:
		b.failures++
		if b.state == HalfOpen || b.trial || b.failures >= b.cfg.Failures {
			if b.trial {
				// The probe's success did not hold: probe less often.
				b.every = min(2*b.every, max(b.cfg.Cooldown, b.cfg.ProbeEvery))
			}
			b.opened, b.probing, b.trial = b.cfg.Now(), false, false
			b.set(Open)
			b.startProbing()
		}
	case Abandoned:
		if b.state == HalfOpen {
			b.probing = false // let the next call probe
		}
	}
}

// State returns the current state, for tests and logs. An open circuit
// whose cool-down has passed stays Open until Allow lets a probe out.
func (b *Breaker) State() State {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state
}

// ErrNoProbe is Check's error for a Breaker without a Probe.
var ErrNoProbe = errors.New("breaker: no probe configured")

// Check runs the Probe now, bounded by ctx and ProbeTimeout, and returns
// its error; a success closes an open circuit, as a background probe's
// does. It is what readiness checks call, so that a server the readiness
// check finds answering is also used again by calls.
func (b *Breaker) Check(ctx context.Context) error {
	if b.cfg.Probe == nil {
		return ErrNoProbe
	}
	ctx, cancel := context.WithTimeout(ctx, b.cfg.ProbeTimeout)
	defer cancel()
	if err := b.cfg.Probe(ctx); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state != Closed {
		b.failures, b.probing, b.trial = 0, false, true
		b.set(Closed)
	}
	return nil
}

// Stop ends the probing goroutine, if one runs, and waits for it; no
// other starts after. The circuit still works, without background probes.
func (b *Breaker) Stop() {
	b.mu.Lock()
	b.stopped = true
	b.mu.Unlock()
	b.cancel()
	b.wg.Wait()
}

// startProbing starts the probing goroutine if the circuit has a Probe
// and none runs. It is called with b.mu held, as the circuit opens.
func (b *Breaker) startProbing() {
	if b.cfg.Probe == nil || b.watching || b.stopped {
		return
	}
	b.watching = true
	b.wg.Add(1)
	go b.probeUntilClosed()
}

// probeUntilClosed probes the server while the circuit is not closed,
// waiting b.every before each probe. It ends when a probe or a call
// closes the circuit, or at Stop: so there is one goroutine per open
// circuit at the most, and its loop lasts as long as the outage.
func (b *Breaker) probeUntilClosed() {
	defer b.wg.Done()
	for {
		b.mu.Lock()
		every := b.every
		b.mu.Unlock()
		slept := b.cfg.Sleep(b.watch, every) == nil && b.watch.Err() == nil
		if slept {
			_ = b.Check(b.watch) // a failure leaves the circuit open
		}
		b.mu.Lock()
		if !slept || b.state == Closed {
			// Stopped, or a Sleep that cannot wait (which would make
			// this loop spin): the cool-down's probe calls take over.
			b.watching = false
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
	}
}

func (b *Breaker) set(s State) {
	if b.state == s {
		return
	}
	b.state = s
	if b.cfg.OnChange != nil {
		b.cfg.OnChange(s)
	}
}
