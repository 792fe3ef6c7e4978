package bot

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/agent/agenttest"
	"github.com/switchboard/switchboard/limits"
	"github.com/switchboard/switchboard/llm/offline"
)

// countingObserver records what the dispatcher reported.
type countingObserver struct {
	mu     sync.Mutex
	events []string
}

func (o *countingObserver) add(s string) { o.mu.Lock(); o.events = append(o.events, s); o.mu.Unlock() }
func (o *countingObserver) Refused(platform, reason string) {
	o.add("refused " + platform + " " + reason)
}
func (o *countingObserver) OverBudget(platform string) { o.add("over_budget " + platform) }
func (o *countingObserver) ChatFailed(platform, op string) {
	o.add("chat_failed " + platform + " " + op)
}
func (o *countingObserver) list() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.events...)
}

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestRateLimitedAskerIsToldWhenToRetry(t *testing.T) {
	clock := &fakeClock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	obs := &countingObserver{}
	d := start(t, Config{Agent: echo(), Limiter: limits.NewAskers(2, 0, clock.now), Observer: obs})
	ask := func(user, text string) error {
		in := msg("t-"+user, text)
		in.User = user
		return d.Submit(context.Background(), in, newRecorder())
	}
	if err := ask("U1", "one"); err != nil {
		t.Fatal(err)
	}
	clock.add(10 * time.Second)
	if err := ask("U1", "two"); err != nil {
		t.Fatal(err)
	}
	err := ask("U1", "three")
	var lim *LimitError
	if !errors.As(err, &lim) || lim.Limit != "user" || lim.RetryAfter != 20*time.Second {
		t.Fatalf("third question: %v, want a user limit for 20s", err)
	}
	if want := "You're asking faster than I can answer; try again in 20 s."; err.Error() != want {
		t.Errorf("message = %q, want %q", err.Error(), want)
	}
	if err := ask("U2", "other asker"); err != nil {
		t.Errorf("another asker was refused: %v", err)
	}
	clock.add(20 * time.Second)
	if err := ask("U1", "four"); err != nil {
		t.Errorf("after waiting as told: %v", err)
	}
	if got := strings.Join(obs.list(), ","); got != "refused test user_rate" {
		t.Errorf("observer heard %q", got)
	}
}

func TestChannelLimitMessage(t *testing.T) {
	err := &LimitError{Limit: "channel", RetryAfter: 95 * time.Second}
	if want := "This channel is asking faster than I can answer; try again in 2 min."; err.Error() != want {
		t.Errorf("message = %q, want %q", err.Error(), want)
	}
}

func TestWait(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "1 s", 300 * time.Millisecond: "1 s", 40 * time.Second: "40 s", 39*time.Second + time.Millisecond: "40 s",
		90 * time.Second: "2 min", 59 * time.Minute: "59 min", 2 * time.Hour: "2 h", 5*time.Hour + 11*time.Minute + time.Second: "5 h 12 min",
	} {
		if got := Wait(d); got != want {
			t.Errorf("Wait(%v) = %q, want %q", d, got, want)
		}
	}
}

// budgetAgent is a real agent on a model whose every call costs 150
// tokens, asked questions it routes to the direct route: two calls, 300
// tokens, a question, unless a budget stops it.
func budgetAgent(t *testing.T) (*agent.Agent, *agenttest.Brain) {
	model := &agenttest.Brain{T: t, Usage: agent.Usage{Calls: 1, PromptTokens: 120, CompletionTokens: 30},
		RouteFunc: func(context.Context, string) (agent.RouteDecision, error) {
			return agent.RouteDecision{Route: agent.RouteDirect, Reason: "arithmetic"}, nil
		},
		DirectFunc: func(context.Context, string, []agent.Turn) (string, bool, error) { return "It is 51.", true, nil },
	}
	// The model routes every question here: the engine's evident routes
	// (agent.EvidentRouter) would take arithmetic from it.
	a, err := agent.New(agent.Config{Model: model, Offline: struct{ agent.Brain }{offline.New(nil)}})
	if err != nil {
		t.Fatal(err)
	}
	return a, model
}

// ask submits a question by user in workspace to d and waits for its
// final view.
func askIn(t *testing.T, d *Dispatcher, workspace, user, thread string) (View, *recorder) {
	t.Helper()
	in := msg(thread, "What is 15% of 340?")
	in.Workspace, in.User = workspace, user
	r := newRecorder()
	if err := d.Submit(context.Background(), in, r); err != nil {
		t.Fatal(err)
	}
	return r.wait(t), r
}

func TestOverBudgetAnswersOfflineAndSaysWhenItRenews(t *testing.T) {
	clock := &fakeClock{t: time.Date(2025, 3, 1, 21, 0, 0, 0, time.UTC)}
	ag, model := budgetAgent(t)
	obs := &countingObserver{}
	d := start(t, Config{Agent: ag, Budget: limits.NewBudget(450, 0, clock.now), Observer: obs})

	if v, r := askIn(t, d, "T1", "U1", "a"); v.Final.Badge.Offline != "" || len(r.private) != 0 {
		t.Errorf("within the budget: offline = %q, told %q", v.Final.Badge.Offline, r.private)
	}
	// 300 of 450 used: the route fits, the direct answer would pass the
	// budget, so it is the offline engine's.
	v, r := askIn(t, d, "T1", "U2", "b")
	if !strings.Contains(v.Final.Badge.Offline, "this workspace has used today's model budget, which renews in 3 h") ||
		!strings.Contains(v.Final.Answer, "51") {
		t.Errorf("over budget: %+v", v.Final)
	}
	if model.Calls("Route") != 2 || model.Calls("Direct") != 1 {
		t.Errorf("the model was asked to route %d and to answer %d times; want the second answer stopped before it",
			model.Calls("Route"), model.Calls("Direct"))
	}
	if len(r.private) != 1 || !strings.Contains(r.private[0], "offline mode until it renews in 3 h") {
		t.Errorf("asker was told %q", r.private)
	}
	if got := strings.Join(obs.list(), ","); got != "over_budget test" {
		t.Errorf("observer heard %q", got)
	}
	// Another workspace has its own budget.
	if v, _ := askIn(t, d, "T2", "U1", "c"); v.Final.Badge.Offline != "" {
		t.Error("another workspace was answered offline")
	}
}

func TestOverTheirShareOnePersonIsAnsweredOffline(t *testing.T) {
	clock := &fakeClock{t: time.Date(2025, 3, 1, 22, 0, 0, 0, time.UTC)}
	ag, model := budgetAgent(t)
	d := start(t, Config{Agent: ag, Budget: limits.NewBudget(10000, 300, clock.now)})

	askIn(t, d, "T1", "U1", "a")
	v, r := askIn(t, d, "T1", "U1", "b")
	if !strings.Contains(v.Final.Badge.Offline, "the asker has used their share of today's model budget, which renews in 2 h") {
		t.Errorf("over their share: %+v", v.Final)
	}
	if len(r.private) != 1 || !strings.Contains(r.private[0], "You have used your share of this workspace's model budget for today") {
		t.Errorf("asker was told %q", r.private)
	}
	if v, _ := askIn(t, d, "T1", "U2", "c"); v.Final.Badge.Offline != "" {
		t.Errorf("another person was answered offline: %s", v.Final.Badge.Offline)
	}
	if model.Calls("") != 4 {
		t.Errorf("the model was asked %d times; want two questions' two calls", model.Calls(""))
	}
}

// failingReplier fails every edit, and says when it was first asked.
type failingReplier struct {
	*recorder
	once    sync.Once
	updated chan struct{}
}

func (f *failingReplier) Update(context.Context, View) error {
	f.once.Do(func() { close(f.updated) })
	return errors.New("slack: chat.update: ratelimited")
}

func TestChatFailuresAreCounted(t *testing.T) {
	r := &failingReplier{recorder: newRecorder(), updated: make(chan struct{})}
	asker := askerFunc(func(_ context.Context, q agent.Question, emit agent.Emitter) (agent.Result, error) {
		emit(agent.Event{Kind: agent.EventRouted, Route: agent.RouteVector, Reason: "docs"})
		<-r.updated // the editor has tried its edit
		return agent.Result{Answer: "a"}, nil
	})
	obs := &countingObserver{}
	d := start(t, Config{Agent: asker, Observer: obs})
	if err := d.Submit(context.Background(), msg("t", "q"), r); err != nil {
		t.Fatal(err)
	}
	r.wait(t)
	if got := obs.list(); len(got) != 1 || got[0] != "chat_failed test update" {
		t.Errorf("observer heard %q", got)
	}
}
