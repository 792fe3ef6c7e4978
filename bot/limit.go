package bot

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/limits"
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

// TokenBudget caps the model tokens a workspace, and each person in it,
// may use per day (limits.Budget in memory, postgres.Limits shared by
// replicas). Each model call holds its most tokens before it is made and
// settles them with what it used after, so a run is stopped before the
// call that would pass a budget; the rest of it is answered in offline
// mode, with a note saying when the budget renews.
type TokenBudget interface {
	// Reserve holds tokens of today's budgets of workspace and of user
	// (keys unique across workspaces) for one model call. When either
	// has no room for them it holds nothing and returns a
	// *limits.SpentError saying which, and when it renews.
	Reserve(workspace, user string, tokens int) (limits.Hold, error)
	// Settle replaces what h held by the tokens its call used.
	Settle(h limits.Hold, used int)
}

// Observer hears what the dispatcher does, for metrics. Its methods are
// called from many goroutines and must be quick.
type Observer interface {
	// Refused: a question was not taken. reason is "busy", "stopping",
	// "user_rate" or "channel_rate".
	Refused(platform, reason string)
	// OverBudget: a question was answered offline, from its start or
	// from a call on, because its workspace, or its asker, had used up
	// their daily model tokens.
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

// allowance is what one question's run may spend on the model
// (agent.Allowance): its calls are held from the budgets of its asker and
// of its workspace. A run refused a call is told why, for the badge
// ("answered offline: …") and for the asker alone, privately, with when
// the budget renews.
type allowance struct {
	d    *Dispatcher
	in   Incoming
	once sync.Once // the observer hears once of a run refused calls
}

// allowance returns in's allowance, nil when there is no budget.
func (d *Dispatcher) allowance(in Incoming) agent.Allowance {
	if d.cfg.Budget == nil {
		return nil
	}
	return &allowance{d: d, in: in}
}

func (a *allowance) Reserve(tokens int) (func(int), error) {
	space := a.in.Platform + ":" + a.in.Workspace
	h, err := a.d.cfg.Budget.Reserve(space, space+":"+a.in.User, tokens)
	var spent *limits.SpentError
	switch {
	case errors.As(err, &spent):
		a.once.Do(func() { a.d.cfg.Observer.OverBudget(a.in.Platform) })
		renews := Wait(spent.RenewsIn)
		if spent.Budget == limits.BudgetUser {
			return nil, &agent.BudgetError{
				Reason: "the asker has used their share of today's model budget, which renews in " + renews,
				Detail: fmt.Sprintf("You have used your share of this workspace's model budget for today, so I'm answering in offline mode until it renews in %s.", renews)}
		}
		return nil, &agent.BudgetError{
			Reason: "this workspace has used today's model budget, which renews in " + renews,
			Detail: fmt.Sprintf("This workspace has used today's model budget, so I'm answering in offline mode until it renews in %s.", renews)}
	case err != nil:
		// Not a refusal: a budget protects the model's cost, not
		// anyone's answer, so the call goes ahead.
		a.d.log.Warn("token budget failed; model call let through", "err", err)
	}
	return func(used int) { a.d.cfg.Budget.Settle(h, used) }, nil
}

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
