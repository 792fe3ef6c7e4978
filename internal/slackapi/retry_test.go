package slackapi_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/internal/slackapi"
)

// sleeper records the waits Retry asks for and returns at once: no test
// here waits for real.
type sleeper struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeper) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waits = append(s.waits, d)
	return ctx.Err()
}

func (s *sleeper) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

func TestClassify(t *testing.T) {
	post := func(err error) error {
		return &url.Error{Op: "Post", URL: "https://slack.com/api/chat.postMessage", Err: err}
	}
	cases := []struct {
		name                  string
		err                   error
		retry, maybe, limited bool
	}{
		{"429 with Retry-After", &slack.RateLimitedError{RetryAfter: 3 * time.Second}, true, false, true},
		{"429 without Retry-After", slack.StatusCodeError{Code: 429, Status: "429 Too Many Requests"}, true, false, true},
		{"500", slack.StatusCodeError{Code: 500}, true, true, false},
		{"502", slack.StatusCodeError{Code: 502}, true, true, false},
		{"503", slack.StatusCodeError{Code: 503}, true, true, false},
		{"504", slack.StatusCodeError{Code: 504}, true, true, false},
		{"404", slack.StatusCodeError{Code: 404}, false, false, false},
		{"internal_error", slack.SlackErrorResponse{Err: "internal_error"}, true, true, false},
		{"fatal_error", slack.SlackErrorResponse{Err: "fatal_error"}, true, true, false},
		{"service_unavailable", slack.SlackErrorResponse{Err: "service_unavailable"}, true, true, false},
		{"request_timeout", slack.SlackErrorResponse{Err: "request_timeout"}, true, true, false},
		{"ok:false ratelimited", slack.SlackErrorResponse{Err: "ratelimited"}, true, false, true},
		{"invalid_auth", slack.SlackErrorResponse{Err: "invalid_auth"}, false, false, false},
		{"channel_not_found", slack.SlackErrorResponse{Err: "channel_not_found"}, false, false, false},
		{"msg_too_long", slack.SlackErrorResponse{Err: "msg_too_long"}, false, false, false},
		{"invalid_blocks", slack.SlackErrorResponse{Err: "invalid_blocks"}, false, false, false},
		{"not_in_channel", slack.SlackErrorResponse{Err: "not_in_channel"}, false, false, false},
		{"connection refused", post(&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}), true, false, false},
		{"dns", post(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "slack.com"}}), true, false, false},
		{"connection reset", post(&net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}), true, true, false},
		{"EOF", post(io.EOF), true, true, false},
		{"unexpected EOF", post(io.ErrUnexpectedEOF), true, true, false},
		{"client timeout", post(timeoutError{}), true, true, false},
		{"cancelled", post(context.Canceled), false, false, false},
		{"bare cancel", context.Canceled, false, false, false},
		{"anything else", errors.New("boom"), false, false, false},
		{"Retry's own error", &slackapi.Error{Method: "chat.update", Attempts: 6, Err: slack.StatusCodeError{Code: 503}}, true, true, false},
	}
	for _, c := range cases {
		f := slackapi.Classify(c.err)
		if f.Retry != c.retry || f.MaybeDone != c.maybe || f.RateLimited != c.limited {
			t.Errorf("%s: %+v, want retry %v, maybe done %v, rate limited %v", c.name, f, c.retry, c.maybe, c.limited)
		}
		if slackapi.Temporary(c.err) != c.retry {
			t.Errorf("%s: Temporary is %v", c.name, !c.retry)
		}
	}
}

type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

// Every transient fault the fake serves, Slack's and the network's, is
// retried until the call goes through, without waiting for real.
func TestRetryTransientFaults(t *testing.T) {
	faults := []slacktest.Fault{
		slacktest.ServerError(500), slacktest.ServerError(502), slacktest.ServerError(503), slacktest.ServerError(504),
		slacktest.SlackError("internal_error"), slacktest.SlackError("fatal_error"),
		slacktest.SlackError("service_unavailable"), slacktest.SlackError("request_timeout"),
		slacktest.SlackError("ratelimited"), slacktest.RateLimited(2), slacktest.RateLimited(-1), slacktest.Dropped,
	}
	for _, f := range faults {
		t.Run(f.String(), func(t *testing.T) {
			fake := slacktest.NewServer()
			defer fake.Close()
			api := slack.New(fake.BotToken, slack.OptionAPIURL(fake.APIURL()))
			fake.Fail("chat.postMessage", 3, f)
			s := &sleeper{}
			ctx := context.Background()
			err := slackapi.Retry(ctx, slackapi.Policy{Retries: 5, Sleep: s.Sleep}, "chat.postMessage", func() error {
				_, _, err := api.PostMessageContext(ctx, "C1", slack.MsgOptionText("hi", false))
				return err
			})
			if err != nil {
				t.Fatalf("Retry: %v", err)
			}
			if n := fake.Calls("chat.postMessage"); n != 4 {
				t.Errorf("%d calls, want 3 failed and 1 that went through", n)
			}
			if n := len(s.got()); n != 3 {
				t.Errorf("%d waits, want 3", n)
			}
			if n := len(fake.Messages("C1", "")); n != 1 {
				t.Errorf("%d messages posted, want 1", n)
			}
		})
	}
}

// Failures another attempt would repeat are returned at once.
func TestRetryPermanentFaults(t *testing.T) {
	for _, code := range []string{"invalid_auth", "channel_not_found", "msg_too_long", "not_in_channel", "invalid_blocks", "missing_scope"} {
		fake := slacktest.NewServer()
		api := slack.New(fake.BotToken, slack.OptionAPIURL(fake.APIURL()))
		fake.Fail("chat.postMessage", 1, slacktest.SlackError(code))
		s := &sleeper{}
		ctx := context.Background()
		err := slackapi.Retry(ctx, slackapi.Policy{Retries: 5, Sleep: s.Sleep}, "chat.postMessage", func() error {
			_, _, err := api.PostMessageContext(ctx, "C1", slack.MsgOptionText("hi", false))
			return err
		})
		if err == nil || !strings.Contains(err.Error(), "slack: chat.postMessage: "+code) {
			t.Errorf("%s: %v", code, err)
		}
		if slackapi.Temporary(err) {
			t.Errorf("%s: reported as temporary", code)
		}
		if n := fake.Calls("chat.postMessage"); n != 1 || len(s.got()) != 0 {
			t.Errorf("%s: %d calls, %d waits; want 1 and none", code, n, len(s.got()))
		}
		fake.Close()
	}
}

// The budget holds: more faults than retries fail the call, with an error
// that says trying later may work and keeps slack-go's error.
func TestRetryBudget(t *testing.T) {
	fake := slacktest.NewServer()
	defer fake.Close()
	api := slack.New(fake.BotToken, slack.OptionAPIURL(fake.APIURL()))
	fake.Fail("chat.update", -1, slacktest.RateLimited(3))
	s := &sleeper{}
	ctx := context.Background()
	err := slackapi.Retry(ctx, slackapi.Policy{Retries: 4, Sleep: s.Sleep}, "chat.update", func() error {
		_, _, _, err := api.UpdateMessageContext(ctx, "C1", "1.1", slack.MsgOptionText("x", false))
		return err
	})
	var rl *slack.RateLimitedError
	if !errors.As(err, &rl) || !slackapi.Temporary(err) || !strings.Contains(err.Error(), "after 5 attempts") {
		t.Fatalf("err %v", err)
	}
	if n := fake.Calls("chat.update"); n != 5 {
		t.Errorf("%d calls, want 5", n)
	}
	for _, w := range s.got() {
		if w < 3*time.Second || w > 3*time.Second+300*time.Millisecond {
			t.Errorf("waited %s after a Retry-After of 3s", w)
		}
	}
}

// Waits double from Backoff up to MaxBackoff, at least half of each at
// random; Retry-After is honoured, and capped by MaxWait.
func TestRetryWaits(t *testing.T) {
	s := &sleeper{}
	p := slackapi.Policy{Retries: 8, Backoff: 100 * time.Millisecond, MaxBackoff: time.Second, Sleep: s.Sleep}
	_ = slackapi.Retry(context.Background(), p, "m", func() error { return slack.StatusCodeError{Code: 502} })
	waits := s.got()
	if len(waits) != 8 {
		t.Fatalf("%d waits, want 8", len(waits))
	}
	for i, w := range waits {
		full := min(100*time.Millisecond<<i, time.Second)
		if w < full/2 || w > full {
			t.Errorf("wait %d is %s, want within [%s, %s]", i+1, w, full/2, full)
		}
	}

	s = &sleeper{}
	p = slackapi.Policy{Retries: 2, MaxWait: 5 * time.Second, Sleep: s.Sleep}
	_ = slackapi.Retry(context.Background(), p, "m", func() error { return &slack.RateLimitedError{RetryAfter: 30 * time.Second} })
	if waits := s.got(); len(waits) != 2 || waits[0] != 5*time.Second {
		t.Errorf("waits %v after a Retry-After of 30s, want MaxWait (5s)", waits)
	}

	s = &sleeper{}
	_ = slackapi.Retry(context.Background(), slackapi.Policy{Retries: 1, Sleep: s.Sleep}, "m", func() error {
		return slack.SlackErrorResponse{Err: "ratelimited"}
	})
	if waits := s.got(); len(waits) != 1 || waits[0] < time.Second {
		t.Errorf("waits %v after ok:false ratelimited, want at least a second", waits)
	}
}

// The caller's context ends the retries, in a wait or in a call.
func TestRetryContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	err := slackapi.Retry(ctx, slackapi.Policy{Retries: 5, Sleep: func(ctx context.Context, d time.Duration) error {
		cancel()
		return ctx.Err()
	}}, "chat.postMessage", func() error {
		calls++
		return slack.StatusCodeError{Code: 500}
	})
	if !errors.Is(err, context.Canceled) || calls != 1 {
		t.Errorf("after cancel in a wait: %v, %d calls", err, calls)
	}
	ctx, cancel = context.WithCancel(context.Background())
	calls = 0
	err = slackapi.Retry(ctx, slackapi.Policy{Retries: 5}, "chat.postMessage", func() error {
		calls++
		cancel()
		return fmt.Errorf("post: %w", context.Canceled)
	})
	if !errors.Is(err, context.Canceled) || calls != 1 {
		t.Errorf("after cancel in a call: %v, %d calls", err, calls)
	}
}

// Network failures: a connection refused is retried and did nothing; a
// connection that hangs until the client's timeout is retried and may
// have done the call.
func TestRetryNetwork(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	api := slack.New("xoxb-1", slack.OptionAPIURL("http://"+addr+"/api/"))
	s := &sleeper{}
	ctx := context.Background()
	err = slackapi.Retry(ctx, slackapi.Policy{Retries: 2, Sleep: s.Sleep}, "chat.postMessage", func() error {
		_, _, err := api.PostMessageContext(ctx, "C1", slack.MsgOptionText("hi", false))
		return err
	})
	if f := slackapi.Classify(err); !f.Retry || f.MaybeDone || len(s.got()) != 2 {
		t.Errorf("connection refused: %v (%+v), %d waits", err, f, len(s.got()))
	}

	fake := slacktest.NewServer()
	defer fake.Close()
	fake.Fail("chat.postMessage", 1, slacktest.Hung.AfterDoing())
	api = slack.New(fake.BotToken, slack.OptionAPIURL(fake.APIURL()), slack.OptionHTTPClient(&http.Client{Timeout: 100 * time.Millisecond}))
	var first error
	err = slackapi.Retry(ctx, slackapi.Policy{Retries: 2, Sleep: s.Sleep}, "chat.postMessage", func() error {
		_, _, err := api.PostMessageContext(ctx, "C1", slack.MsgOptionText("hi", false))
		if first == nil {
			first = err
		}
		return err
	})
	if err != nil || !slackapi.MaybeDone(first) {
		t.Errorf("hung connection: %v; first attempt %v (maybe done %v)", err, first, slackapi.MaybeDone(first))
	}
	// The hung call was done: retrying it blindly posts twice, which is
	// why posts look before they post again (bot/slack).
	if n := len(fake.Messages("C1", "")); n != 2 {
		t.Errorf("%d messages", n)
	}
}
