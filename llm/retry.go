package llm

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/switchboard/switchboard/internal/retry"
)

// Retry tuning. The waits are short because a person is watching the
// placeholder message: after maxTotalWait the agent is better off finishing
// the run with the offline engine than waiting any longer for the model.
const (
	firstBackoff = 500 * time.Millisecond
	maxBackoff   = 8 * time.Second
	maxTotalWait = 30 * time.Second
)

// retryTransport resends a request that failed for a reason worth waiting
// out: a network error, a per-attempt timeout, 408, 429 or any 5xx. It lives
// in the transport rather than around go-openai's methods because go-openai's
// errors drop the response headers, and Retry-After is in the headers.
//
// Every attempt gets its own timeout, so one hung connection cannot eat the
// whole budget. The request body is buffered once so it can be sent again.
type retryTransport struct {
	base    http.RoundTripper
	retries int           // retries after the first attempt
	timeout time.Duration // per attempt

	// sleep waits d or until ctx is done (retry.Sleep). Tests replace it
	// to record the waits instead of spending them.
	sleep func(ctx context.Context, d time.Duration) error
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := readBody(req)
	if err != nil {
		return nil, err
	}
	ctx := req.Context()
	var resp *http.Response
	attempts := t.retries + 1
	if c, ok := callOf(ctx); ok && c.probe {
		attempts = 1 // its failure is an answer: try the next mode
	}
	p := retry.Policy{
		Attempts: attempts, Backoff: firstBackoff, MaxBackoff: maxBackoff, Budget: maxTotalWait, Sleep: t.sleep,
		// The answer we retry is drained before the wait, so that its
		// connection can carry the next attempt.
		OnRetry: func(int, error, time.Duration) { discard(resp); resp = nil },
	}
	err = retry.Do(ctx, p, func(int) retry.Outcome {
		var err error
		resp, err = t.once(req, body)
		if ctx.Err() != nil || !retryable(resp, err) {
			return retry.Stop(err)
		}
		if resp != nil {
			if d, ok := retry.After(resp.Header, time.Now()); ok {
				return retry.Later(err, d)
			}
		}
		return retry.Again(err)
	})
	// A wait longer than the budget, or no retries left, ends with the
	// server's last answer, which the caller should see; a context that
	// ended a wait, with the context's error.
	var stopped *retry.StoppedError
	if errors.As(err, &stopped) {
		discard(resp)
		return nil, stopped.Ctx
	}
	return resp, err
}

// once makes one attempt with its own timeout. The timeout's context must
// outlive RoundTrip, because the caller reads the body afterwards, so it is
// cancelled when the body is closed.
func (t *retryTransport) once(req *http.Request, body []byte) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(req.Context(), t.timeout)
	r := req.Clone(ctx)
	if body != nil {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		r.ContentLength = int64(len(body))
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel,
		drain: !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")}
	return resp, nil
}

// readBody buffers and closes the request body, as a RoundTripper must.
func readBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	defer req.Body.Close()
	return io.ReadAll(req.Body)
}

// retryable reports whether an attempt failed in a way another attempt may
// fix. A 400 or 401 will fail the same way every time.
func retryable(resp *http.Response, err error) bool {
	if err != nil {
		return true // network error or the attempt's own timeout
	}
	switch {
	case resp.StatusCode == http.StatusRequestTimeout,
		resp.StatusCode == http.StatusTooManyRequests,
		resp.StatusCode >= 500:
		return true
	}
	return false
}

// discard drains a little of a response we will not use, so the connection
// can be reused, and closes it.
func discard(resp *http.Response) {
	if resp == nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// cancelOnClose releases an attempt's timeout when its body is closed.
// A JSON body is read to its end first: go-openai's decoder stops at the
// closing brace, leaving the server's final newline unread, and a
// connection whose body was not read to the end is not reused. Each
// request would dial (and, to a real API, shake hands over TLS) again.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
	drain  bool // not a stream, whose rest may never come
}

// drainWait bounds the wait for the rest of a body: a server that keeps
// it open is not waited for.
const drainWait = 50 * time.Millisecond

func (b *cancelOnClose) Close() error {
	if b.drain {
		t := time.AfterFunc(drainWait, b.cancel)
		_, _ = io.Copy(io.Discard, io.LimitReader(b.ReadCloser, 64<<10))
		t.Stop()
	}
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}
