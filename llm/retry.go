package llm

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
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

	// sleep waits d or until ctx is done. Tests replace it to record the
	// waits instead of spending them.
	sleep func(ctx context.Context, d time.Duration) error
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := readBody(req)
	if err != nil {
		return nil, err
	}
	ctx := req.Context()
	var waited time.Duration
	for attempt := 0; ; attempt++ {
		resp, err := t.once(req, body)
		if attempt >= t.retries || ctx.Err() != nil || !retryable(resp, err) {
			return resp, err
		}
		wait := backoff(attempt)
		if resp != nil {
			if d, ok := retryAfter(resp.Header, time.Now()); ok {
				wait = d
			}
		}
		// Retrying before the server said it is ready would only earn
		// another 429, so when the wait does not fit the budget we give up
		// and let the caller see the server's answer.
		if waited+wait > maxTotalWait {
			return resp, err
		}
		discard(resp)
		if err := t.sleep(ctx, wait); err != nil {
			return nil, err
		}
		waited += wait
	}
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
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
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

// backoff is the wait before retry number attempt+1 when the server gave no
// Retry-After: exponential with jitter, so that replicas throttled together
// do not come back together.
func backoff(attempt int) time.Duration {
	d := firstBackoff << attempt
	if d > maxBackoff || d <= 0 {
		d = maxBackoff
	}
	return d/2 + rand.N(d/2+1)
}

// retryAfter reads how long the server asked us to wait: OpenAI's
// retry-after-ms, or the standard Retry-After in seconds or as an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil {
		return time.Duration(max(s, 0)) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
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

// sleepCtx waits d, or less when ctx ends first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// cancelOnClose releases an attempt's timeout when its body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}
