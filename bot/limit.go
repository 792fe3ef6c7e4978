package bot

import (
	"context"
	"fmt"
	"time"
)

// RateLimiter refuses askers, and channels, that ask faster than the bot
// should answer (limits.Askers).
type RateLimiter interface {
	// Allow counts one question by user in channel and reports whether it
	// may be taken; if not, which limit refused it ("user" or "channel")
	// and how long until it would be taken. A refused question counts
	// against nothing.
	Allow(user, channel string) (ok bool, limit string, retryAfter time.Duration)
}

// TokenBudget caps the model tokens a workspace may use per day
// (limits.Budget). A workspace over its budget is answered in offline
// mode, with a note saying when the budget renews.
type TokenBudget interface {
	// Exhausted reports whether workspace has used up today's tokens, and
	// if so how long until they renew.
	Exhausted(workspace string) (renewsIn time.Duration, exhausted bool)
	// Spend counts the tokens one answer used.
	Spend(workspace string, tokens int)
}

// Observer hears what the dispatcher does, for metrics. Its methods are
// called from many goroutines and must be quick.
type Observer interface {
	// Refused: a question was not taken. reason is "busy", "stopping",
	// "user_rate" or "channel_rate".
	Refused(platform, reason string)
	// OverBudget: a question was answered offline because its workspace
	// had used up its daily model tokens.
	OverBudget(platform string)
	// ChatFailed: a call to the chat platform failed after the adapter's
	// own retries. op is "start", "update", "finish" or "private".
	ChatFailed(platform, op string)
}

// LimitError refuses a question whose asker or channel is over its rate
// limit. Its message is for the asker: adapters send it as it is, privately.
type LimitError struct {
	Limit      string        // "user" or "channel"
	RetryAfter time.Duration // until a question would be taken
}

func (e *LimitError) Error() string {
	who := "You're"
	if e.Limit == "channel" {
		who = "This channel is"
	}
	return fmt.Sprintf("%s asking faster than I can answer; try again in %s.", who, Wait(e.RetryAfter))
}

// Wait renders a wait for people: "40 s", "3 min", "5 h 12 min", rounded up
// so that a retry at the time named succeeds.
func Wait(d time.Duration) string {
	secs := int((d + time.Second - 1) / time.Second)
	switch {
	case secs < 1:
		return "1 s"
	case secs < 90:
		return fmt.Sprintf("%d s", secs)
	}
	mins := (secs + 59) / 60
	if mins < 60 {
		return fmt.Sprintf("%d min", mins)
	}
	if mins%60 == 0 {
		return fmt.Sprintf("%d h", mins/60)
	}
	return fmt.Sprintf("%d h %d min", mins/60, mins%60)
}

// overBudget checks the token budget of in's workspace. When it is used
// up, it returns the run's offline reason and a line for the asker: the
// badge says "answered offline", and the asker should also know why and until
// when.
func (d *Dispatcher) overBudget(in Incoming) (reason, tell string) {
	if d.cfg.Budget == nil {
		return "", ""
	}
	renews, over := d.cfg.Budget.Exhausted(budgetKey(in))
	if !over {
		return "", ""
	}
	d.cfg.Observer.OverBudget(in.Platform)
	return fmt.Sprintf("this workspace has used today's model budget, which renews in %s", Wait(renews)),
		fmt.Sprintf("This workspace has used today's model budget, so I'm answering in offline mode until it renews in %s.", Wait(renews))
}

// budgetKey names the workspace whose budget a question spends.
func budgetKey(in Incoming) string { return in.Platform + ":" + in.Workspace }

// nopObserver is the Observer of a Dispatcher configured without one.
type nopObserver struct{}

func (nopObserver) Refused(string, string)    {}
func (nopObserver) OverBudget(string)         {}
func (nopObserver) ChatFailed(string, string) {}

// observedReplier tells the Observer when a Replier call fails, so that
// chat API errors are counted for every adapter in one place.
type observedReplier struct {
	Replier
	obs      Observer
	platform string
}

func (r observedReplier) note(op string, err error) error {
	if err != nil {
		r.obs.ChatFailed(r.platform, op)
	}
	return err
}

func (r observedReplier) Start(ctx context.Context, v View) error {
	return r.note("start", r.Replier.Start(ctx, v))
}

func (r observedReplier) Update(ctx context.Context, v View) error {
	return r.note("update", r.Replier.Update(ctx, v))
}

func (r observedReplier) Finish(ctx context.Context, v View) error {
	return r.note("finish", r.Replier.Finish(ctx, v))
}

func (r observedReplier) Private(ctx context.Context, text string) error {
	return r.note("private", r.Replier.Private(ctx, text))
}
