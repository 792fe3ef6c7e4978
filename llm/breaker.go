package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/switchboard/switchboard/internal/breaker"
)

// ErrCircuitOpen means the model server failed so often in a row that the
// Client stopped calling it for a while. Calls then fail at once instead of
// spending the retry budget on a server that is down, and the agent answers
// in offline mode, as it does for any model failure.
var ErrCircuitOpen = errors.New("model circuit open")

// CircuitOpenError is the error of a call refused by an open circuit. It
// matches ErrCircuitOpen with errors.Is.
type CircuitOpenError struct {
	Failures int           // the consecutive failures that opened it
	RetryIn  time.Duration // until the next probe may go out
}

func (e *CircuitOpenError) Error() string {
	return fmt.Sprintf("model circuit open after %d consecutive failures; next try in %s", e.Failures, e.RetryIn.Round(time.Second))
}

// Is makes errors.Is(err, ErrCircuitOpen) true.
func (e *CircuitOpenError) Is(target error) bool { return target == ErrCircuitOpen }

// CircuitState is the state of a Client's circuit breaker: package
// breaker's, the same as the knowledge graph's.
type CircuitState = breaker.State

// The states: closed lets every call through; open refuses them all for
// the cool-down; half-open lets one probe through, whose outcome closes
// or reopens the circuit.
const (
	CircuitClosed   = breaker.Closed
	CircuitOpen     = breaker.Open
	CircuitHalfOpen = breaker.HalfOpen
)

// BreakerConfig sets up a Client's circuit breaker. A failure is a request
// that still failed after the Client's retries with a network error, a
// timeout, 408, 429 or 5xx; any other answer, even a 400, shows that the
// server is up. Requests abandoned by their caller count as neither.
//
// While the circuit is open the Client pings the server (Ping's request,
// GET {base}/models, which costs no tokens) every second in the
// background, and the first ping that succeeds closes it, as a successful
// Ping does: a server that is back is used again at once. Close stops the
// pings.
type BreakerConfig struct {
	// Failures is how many failed requests in a row open the circuit; 0
	// turns the breaker off.
	Failures int
	// Cooldown is how long the circuit stays open before one request is
	// let through as a probe; 0 means 30s.
	Cooldown time.Duration
	// Now and Sleep are the clock of the cool-down and of the waits
	// between pings; nil means the time of day and a timer.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// OnChange, if set, hears every change of state (for metrics and
	// logs). It is called with the breaker's lock held and must be quick.
	OnChange func(CircuitState)
}

// newBreaker returns the breaker of cfg, whose probe is ping.
func newBreaker(cfg BreakerConfig, ping func(context.Context) error) *breaker.Breaker {
	return breaker.New(breaker.Config{Failures: cfg.Failures, Cooldown: cfg.Cooldown, Now: cfg.Now, Sleep: cfg.Sleep,
		OnChange: cfg.OnChange, Probe: ping})
}

// breakerTransport puts the breaker in front of the retrying transport, so
// that one failure is a request whose retries were all used up.
type breakerTransport struct {
	base http.RoundTripper
	b    *breaker.Breaker
}

func (t *breakerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if r, ok := t.b.Allow(); !ok {
		if req.Body != nil {
			req.Body.Close() // a RoundTripper must close the body, even on error
		}
		return nil, &CircuitOpenError{Failures: r.Failures, RetryIn: r.RetryIn}
	}
	resp, err := t.base.RoundTrip(req)
	switch {
	case req.Context().Err() != nil:
		t.b.Record(breaker.Abandoned)
	case retryable(resp, err):
		t.b.Record(breaker.Failure)
	default:
		t.b.Record(breaker.Success)
	}
	return resp, err
}

// circuitError returns the breaker's own error when err is one, without
// the URL that go-openai wraps around transport errors: "model circuit
// open…" is what the asker's offline note should say.
func circuitError(err error) error {
	var open *CircuitOpenError
	if errors.As(err, &open) {
		return open
	}
	return err
}

// Ping checks that the model server answers, for readiness probes: one
// GET {base}/models, without retries and outside the circuit breaker,
// bounded by ctx. Any answer but a 5xx, 401 or 403 will do: a server that
// does not list its models is still up. Its success closes an open
// circuit, so that a server /readyz finds back is used again at once.
func (c *Client) Ping(ctx context.Context) error {
	if c.breaker != nil {
		return c.breaker.Check(ctx)
	}
	return c.ping(ctx)
}

// Close stops the circuit breaker's background pings. The Client still
// works after, without them: answers being finished may use it.
func (c *Client) Close() {
	if c.breaker != nil {
		c.breaker.Stop()
	}
}

// ping is Ping without the breaker: the breaker's probe.
func (c *Client) ping(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.cfg.BaseURL+"/models", nil)
	if err != nil {
		return fmt.Errorf("llm: ping: %w", err)
	}
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.rt.base.RoundTrip(req)
	if err != nil {
		return fmt.Errorf("llm: ping %s: %w", c.cfg.BaseURL, err)
	}
	discard(resp)
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return fmt.Errorf("llm: ping %s: the server refused the API key (%s)", c.cfg.BaseURL, resp.Status)
	case resp.StatusCode >= 500:
		return fmt.Errorf("llm: ping %s: %s", c.cfg.BaseURL, resp.Status)
	}
	return nil
}
