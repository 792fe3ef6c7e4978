// Package slackapi holds what the Slack adapter and the Slack history
// reader both need around slack-go: trying a Web API call again when Slack
// or the network failed it for a while (429, 5xx, Slack's transient error
// codes, lost connections), and telling those failures from the ones that
// another attempt would only repeat.
package slackapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/slack-go/slack"

	"github.com/switchboard/switchboard/internal/retry"
)

// Defaults of a Policy; Backoff and MaxBackoff default to retry's.
const (
	defaultMaxWait = time.Minute
	// noRetryAfter is the wait for a rate limit that names no delay.
	noRetryAfter = time.Second
)

// Policy says how a Web API call is tried again. The zero Policy tries
// once.
type Policy struct {
	// Retries bounds the attempts after the first.
	Retries int
	// MaxWait caps one wait, Slack's Retry-After included (default a
	// minute).
	MaxWait time.Duration
	// Backoff is the first wait after a failure that names no delay (a
	// 5xx, a transient error code, a lost connection); it doubles with
	// every retry up to MaxBackoff, and half of it is random, so that
	// callers failed together do not come back together (default 500ms).
	Backoff time.Duration
	// MaxBackoff caps the doubling (default 30s, and never above MaxWait).
	MaxBackoff time.Duration
	// Sleep waits d or until ctx ends (default: Sleep, a timer). Tests
	// pass one that returns at once, so they never wait for real.
	Sleep func(ctx context.Context, d time.Duration) error
	// Log hears about every retry (default: nowhere).
	Log *slog.Logger
}

func (p Policy) withDefaults() Policy {
	if p.Retries < 0 {
		p.Retries = 0
	}
	if p.MaxWait <= 0 {
		p.MaxWait = defaultMaxWait
	}
	if p.Log == nil {
		p.Log = slog.New(slog.DiscardHandler)
	}
	return p
}

// Sleep waits d, or until ctx ends, and then returns ctx's error: a
// Policy's default Sleep (retry.Sleep).
func Sleep(ctx context.Context, d time.Duration) error { return retry.Sleep(ctx, d) }

// Retry runs one Web API call and, while it fails in a way that may pass
// (see Classify), waits and runs it again, at most p.Retries more times.
// A failure that would only repeat (invalid_auth, channel_not_found,
// msg_too_long…) is returned at once, and so is the end of ctx. Only this
// call waits: callers on other goroutines go on.
//
// The error, an *Error, names the method and wraps the last attempt's
// error (and ctx's, if ctx ended the retries), so errors.As finds slack-go's
// error types and Temporary tells whether trying later may succeed.
//
// Retry makes the call again as it is: a call that may have taken effect
// although it failed (Failure.MaybeDone), such as a chat.postMessage
// answered with a 500, is the caller's to make safe to repeat.
func Retry(ctx context.Context, p Policy, method string, call func() error) error {
	p = p.withDefaults()
	var last error
	attempts := 0
	err := retry.Do(ctx, retry.Policy{
		Attempts: p.Retries + 1, Backoff: p.Backoff, MaxBackoff: p.MaxBackoff, MaxWait: p.MaxWait, Sleep: p.Sleep,
		OnRetry: func(attempt int, err error, wait time.Duration) {
			p.Log.Warn("Slack call failed; retrying", "method", method, "err", err, "after", wait, "attempt", attempt)
		},
	}, func(attempt int) retry.Outcome {
		last, attempts = call(), attempt
		f := Classify(last)
		switch {
		case !f.Retry:
			return retry.Stop(last)
		case f.RateLimited && f.RetryAfter >= 0:
			return retry.Later(last, spread(f.RetryAfter))
		case f.RateLimited:
			// ok:false ratelimited names no delay; a retry within the
			// second would surely be refused again.
			return retry.Again(last).AtLeast(noRetryAfter)
		}
		return retry.Again(last)
	})
	if err == nil {
		return nil
	}
	e := &Error{Method: method, Attempts: attempts, Err: last, Stopped: ctx.Err()}
	if stopped := (*retry.StoppedError)(nil); errors.As(err, &stopped) {
		e.Stopped = stopped.Ctx
	}
	return e
}

// spread adds to a wait Slack named a little more at random, up to a
// tenth and at most a second, so that the callers it refused together do
// not all come back at the same instant.
func spread(d time.Duration) time.Duration {
	if j := min(d/10, time.Second); j > 0 {
		d += rand.N(j + 1)
	}
	return d
}

// Error is a Web API call that failed for good: Retry's error.
type Error struct {
	Method   string
	Attempts int   // how many times the call was made
	Err      error // the last attempt's error
	Stopped  error // the context's error, when it ended the retries
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("slack: %s: %v", e.Method, e.Err)
	if e.Attempts > 1 {
		msg += fmt.Sprintf(" (after %d attempts)", e.Attempts)
	}
	if e.Stopped != nil {
		msg += ", then " + e.Stopped.Error()
	}
	return msg
}

// Unwrap returns the last attempt's error and the context's.
func (e *Error) Unwrap() []error {
	if e.Stopped != nil {
		return []error{e.Err, e.Stopped}
	}
	return []error{e.Err}
}

// Failure is what a failed call's error says about trying again.
type Failure struct {
	// Retry: another attempt, later, may succeed.
	Retry bool
	// MaybeDone: the call may have taken effect although it failed (a
	// 5xx, internal_error, a connection lost or timed out after the
	// request went out). Repeating a post may then post twice. It is false
	// for failures Slack answers before doing anything (rate limits) and
	// for connections that could not be made.
	MaybeDone bool
	// RateLimited: Slack refused the call for its rate limits.
	RateLimited bool
	// RetryAfter is the wait a 429 named (-1 when none was named).
	RetryAfter time.Duration
}

// retryableCodes are the ok:false error codes that describe Slack's state,
// not the call's: the same call may succeed later.
var retryableCodes = map[string]Failure{
	"internal_error":      {Retry: true, MaybeDone: true, RetryAfter: -1},
	"fatal_error":         {Retry: true, MaybeDone: true, RetryAfter: -1},
	"service_unavailable": {Retry: true, MaybeDone: true, RetryAfter: -1},
	"request_timeout":     {Retry: true, MaybeDone: true, RetryAfter: -1},
	"ratelimited":         {Retry: true, RateLimited: true, RetryAfter: -1},
	"rate_limited":        {Retry: true, RateLimited: true, RetryAfter: -1},
}

// Classify reads a Web API call's error: Slack's 429 (with its
// Retry-After), 5xx, ok:false error codes, and the network's errors.
// Anything else, and a cancelled context, is not worth retrying.
func Classify(err error) Failure {
	none := Failure{RetryAfter: -1}
	if err == nil {
		return none
	}
	var re *Error
	if errors.As(err, &re) {
		return Classify(re.Err)
	}
	var rl *slack.RateLimitedError
	if errors.As(err, &rl) {
		return Failure{Retry: true, RateLimited: true, RetryAfter: max(rl.RetryAfter, 0)}
	}
	var sc slack.StatusCodeError
	if errors.As(err, &sc) {
		switch {
		case sc.Code == http.StatusTooManyRequests:
			return Failure{Retry: true, RateLimited: true, RetryAfter: noRetryAfter}
		case sc.Code >= 500, sc.Code == http.StatusRequestTimeout:
			return Failure{Retry: true, MaybeDone: true, RetryAfter: -1}
		}
		return none
	}
	var se slack.SlackErrorResponse
	if errors.As(err, &se) {
		return retryableCodes[se.Err] // the zero Failure for the others
	}
	if errors.Is(err, context.Canceled) {
		return none
	}
	return network(err)
}

// network classifies the errors of the HTTP client: a connection that was
// never made (the request did not go out) and one lost or timed out after
// it may have.
func network(err error) Failure {
	notSent := Failure{Retry: true, RetryAfter: -1}
	maybe := Failure{Retry: true, MaybeDone: true, RetryAfter: -1}
	var dns *net.DNSError
	var op *net.OpError
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED), errors.As(err, &dns):
		return notSent
	case errors.As(err, &op) && op.Op == "dial":
		return notSent
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNABORTED),
		errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ETIMEDOUT):
		return maybe
	case errors.As(err, &ne) && ne.Timeout():
		return maybe // the client's timeout, or the call's deadline
	case op != nil:
		return maybe
	}
	// The transport's own errors are not all typed.
	msg := err.Error()
	for _, s := range []string{"connection reset", "broken pipe", "server closed", "EOF", "connection refused"} {
		if strings.Contains(msg, s) {
			if s == "connection refused" {
				return notSent
			}
			return maybe
		}
	}
	return Failure{RetryAfter: -1}
}

// Temporary reports whether a call that failed with err may succeed if
// made again later: it failed for Slack's state or the network's, or its
// retries ran out of time, rather than for what it asked.
func Temporary(err error) bool { return Classify(err).Retry }

// MaybeDone reports whether a call that failed with err may nonetheless
// have taken effect (see Failure.MaybeDone).
func MaybeDone(err error) bool { return Classify(err).MaybeDone }
