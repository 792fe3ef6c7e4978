// Package breaker is the circuit breaker of the model client (package
// llm) and of Neo4j's reads (package neo4j): after a number of failed
// calls in a row it refuses calls for a cool-down, so that an outage costs
// each caller an instant refusal rather than a full timeout, and then lets
// one probe through to see whether the server is back. Each user decides
// what counts as a failure and how a refusal is worded.
package breaker

import (
	"sync"
	"time"
)

// DefaultCooldown is a Config's cool-down when it names none.
const DefaultCooldown = 30 * time.Second

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

// Breaker is a circuit breaker. It is safe for concurrent use.
type Breaker struct {
	cfg Config

	mu       sync.Mutex
	state    State
	failures int       // in a row
	opened   time.Time // when the circuit last opened
	probing  bool      // a half-open probe is in flight
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
	return &Breaker{cfg: cfg, state: Closed}
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
		b.set(Closed)
	case Failure:
		b.failures++
		if b.state == HalfOpen || b.failures >= b.cfg.Failures {
			b.opened, b.probing = b.cfg.Now(), false
			b.set(Open)
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

func (b *Breaker) set(s State) {
	if b.state == s {
		return
	}
	b.state = s
	if b.cfg.OnChange != nil {
		b.cfg.OnChange(s)
	}
}
