package bot

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/limits"
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

func TestOverBudgetAnswersOfflineAndSaysWhenItRenews(t *testing.T) {
	clock := &fakeClock{t: time.Date(2025, 3, 1, 21, 0, 0, 0, time.UTC)}
	budget := limits.NewBudget(100, clock.now)
	var asked []agent.Question
	var mu sync.Mutex
	asker := askerFunc(func(_ context.Context, q agent.Question, _ agent.Emitter) (agent.Result, error) {
		mu.Lock()
		asked = append(asked, q)
		mu.Unlock()
		return agent.Result{Answer: "a", Tokens: 80, Offline: q.OfflineReason != "", OfflineReason: q.OfflineReason}, nil
	})
	obs := &countingObserver{}
	d := start(t, Config{Agent: asker, Budget: budget, Observer: obs})
	in := func(thread string) Incoming {
		m := msg(thread, "q")
		m.Workspace = "T1"
		return m
	}
	for i, thread := range []string{"a", "b"} { // 80 tokens, then 160: over
		r := newRecorder()
		if err := d.Submit(context.Background(), in(thread), r); err != nil {
			t.Fatal(err)
		}
		if v := r.wait(t); v.Result.Offline || len(r.private) != 0 {
			t.Errorf("question %d within the budget: offline = %v, told %q", i+1, v.Result.Offline, r.private)
		}
	}
	r := newRecorder()
	if err := d.Submit(context.Background(), in("c"), r); err != nil {
		t.Fatal(err)
	}
	v := r.wait(t)
	if !v.Result.Offline || !strings.Contains(v.Result.OfflineReason, "renews in 3 h") {
		t.Errorf("over budget: %+v", v.Result)
	}
	if len(r.private) != 1 || !strings.Contains(r.private[0], "offline mode until it renews in 3 h") {
		t.Errorf("asker was told %q", r.private)
	}
	if got := strings.Join(obs.list(), ","); got != "over_budget test" {
		t.Errorf("observer heard %q", got)
	}
	// Another workspace has its own budget.
	other := in("d")
	other.Workspace = "T2"
	r = newRecorder()
	d.Submit(context.Background(), other, r)
	if v := r.wait(t); v.Result.Offline {
		t.Error("another workspace was answered offline")
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
