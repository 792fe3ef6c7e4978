// Package slackapi holds what the Slack adapter and the Slack history
// reader both need around slack-go: waiting out rate limits.
package slackapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/slack-go/slack"
)

// noRetryAfter is the wait for a 429 that names no delay.
const noRetryAfter = time.Second

// Retry runs one Web API call, waiting and trying again while Slack
// answers 429, at most retries more times and at most maxWait per wait.
// Only this call waits: callers on other goroutines go on. Errors name the
// method.
func Retry(ctx context.Context, log *slog.Logger, method string, retries int, maxWait time.Duration, call func() error) error {
	for attempt := 1; ; attempt++ {
		err := call()
		if err == nil {
			return nil
		}
		wait, limited := RetryAfter(err)
		if !limited || attempt > retries {
			return fmt.Errorf("slack: %s: %w", method, err)
		}
		wait = min(wait, maxWait)
		log.Warn("rate limited by Slack; retrying", "method", method, "after", wait, "attempt", attempt)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("slack: %s: rate limited, then %w", method, ctx.Err())
		case <-t.C:
		}
	}
}

// RetryAfter reports whether err is Slack's 429, and how long it asks to wait.
func RetryAfter(err error) (time.Duration, bool) {
	var rl *slack.RateLimitedError
	if errors.As(err, &rl) {
		return max(rl.RetryAfter, 0), true
	}
	var sc slack.StatusCodeError
	if errors.As(err, &sc) && sc.Code == http.StatusTooManyRequests {
		return noRetryAfter, true
	}
	return 0, false
}
