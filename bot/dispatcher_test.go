package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/feedback"
)

// askerFunc adapts a function to Asker.
type askerFunc func(ctx context.Context, q agent.Question, emit agent.Emitter) (agent.Result, error)

func (f askerFunc) Ask(ctx context.Context, q agent.Question, emit agent.Emitter) (agent.Result, error) {
	return f(ctx, q, emit)
}

// recorder is a Replier that records what it was asked to show.
type recorder struct {
	mu       sync.Mutex
	started  int
	updates  []View
	finished []View
	private  []string
	done     chan struct{}
}

func newRecorder() *recorder { return &recorder{done: make(chan struct{})} }

func (r *recorder) Start(context.Context, View) error {
	r.mu.Lock()
	r.started++
	r.mu.Unlock()
	return nil
}
func (r *recorder) Update(_ context.Context, v View) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.updates = append(r.updates, v)
	return nil
}
func (r *recorder) Finish(_ context.Context, v View) error {
	r.mu.Lock()
	r.finished = append(r.finished, v)
	r.mu.Unlock()
	close(r.done)
	return nil
}
func (r *recorder) Private(_ context.Context, text string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.private = append(r.private, text)
	return nil
}

func (r *recorder) wait(t *testing.T) View {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(20 * time.Second):
		t.Fatal("no final answer")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.finished[0]
}

func echo() Asker {
	return askerFunc(func(_ context.Context, q agent.Question, emit agent.Emitter) (agent.Result, error) {
		emit(agent.Event{Kind: agent.EventRouted, Route: agent.RouteVector, Reason: "asks about docs"})
		return agent.Result{Question: q.Text, Answer: "answer to " + q.Text, Route: agent.RouteVector}, nil
	})
}

func start(t *testing.T, cfg Config) *Dispatcher {
	t.Helper()
	if cfg.Interval == 0 {
		cfg.Interval = time.Millisecond
	}
	d := NewDispatcher(cfg)
	d.Start(context.Background())
	t.Cleanup(func() { d.Shutdown(context.Background()) })
	return d
}

func msg(thread, text string) Incoming {
	return Incoming{Platform: "test", Channel: "C1", Thread: thread, MessageID: thread + text, Text: text}
}

func TestAnswerShowsProgressAndResult(t *testing.T) {
	d := start(t, Config{Agent: echo()})
	r := newRecorder()
	if err := d.Submit(context.Background(), msg("t1", "hello"), r); err != nil {
		t.Fatal(err)
	}
	v := r.wait(t)
	if !v.Done || v.Final == nil || v.Final.Answer != "answer to hello" || v.AnswerID == "" {
		t.Errorf("final view = %+v", v)
	}
	if r.started != 1 || v.Progress != "Searching company documents…" {
		t.Errorf("started = %d progress = %q", r.started, v.Progress)
	}
}

// checker is an Asker that also checks and cleans questions as
// agent.Agent does.
type checker struct{ Asker }

func (checker) CleanQuestion(text string) (string, error) {
	if len(text) > 10 {
		return "", agent.Errorf(agent.EINVALID, "The question is too long (%d characters; the limit is 10).", len(text))
	}
	return strings.TrimSpace(text), nil
}

// The question the agent cleaned as the dispatcher took it reaches it
// cleaned, and marked so, instead of being cleaned again.
func TestCleanedQuestionTravelsOn(t *testing.T) {
	asked := make(chan agent.Question, 1)
	d := start(t, Config{Agent: checker{askerFunc(func(_ context.Context, q agent.Question, _ agent.Emitter) (agent.Result, error) {
		asked <- q
		return agent.Result{Answer: "ok", Route: agent.RouteVector}, nil
	})}})
	r := newRecorder()
	if err := d.Submit(context.Background(), msg("t1", "  hi \n"), r); err != nil {
		t.Fatal(err)
	}
	r.wait(t)
	if q := <-asked; q.Text != "hi" || !q.Cleaned {
		t.Errorf("the agent was asked %q (cleaned %v), want \"hi\", cleaned", q.Text, q.Cleaned)
	}
}

func TestUnanswerableQuestionRefusedPrivatelyBeforeAnything(t *testing.T) {
	d := start(t, Config{Agent: checker{echo()}})
	r := newRecorder()
	err := d.Submit(context.Background(), msg("t1", strings.Repeat("why ", 10)), r)
	text, tell := Refusal(err)
	if !tell || !strings.Contains(text, "too long") {
		t.Fatalf("Submit = %v; refusal %q, %v", err, text, tell)
	}
	if d.Queued() != 0 || r.started != 0 {
		t.Errorf("a refused question was queued or got a placeholder (started %d)", r.started)
	}
	if err := d.Submit(context.Background(), msg("t2", "short"), r); err != nil {
		t.Fatalf("a short question was refused: %v", err)
	}
}

// TestDetailsArePrivate: what went wrong on the way (a server's error, a
// setting's name) reaches the asker privately, never the thread.
func TestDetailsArePrivate(t *testing.T) {
	const detail = `Post "http://10.0.0.5:8080/v1/chat/completions": dial tcp 10.0.0.5:8080: connection refused`
	a := askerFunc(func(_ context.Context, q agent.Question, emit agent.Emitter) (agent.Result, error) {
		emit(agent.Event{Kind: agent.EventDegraded, Reason: "the language model isn't answering", Detail: detail})
		return agent.Result{Question: q.Text, Answer: "offline answer", Route: agent.RouteVector, Offline: true,
			OfflineReason: "the language model isn't answering"}, nil
	})
	d := start(t, Config{Agent: a})
	r := newRecorder()
	if err := d.Submit(context.Background(), msg("t1", "hello"), r); err != nil {
		t.Fatal(err)
	}
	v := r.wait(t)
	r.mu.Lock()
	defer r.mu.Unlock()
	public := append(append([]View{}, r.updates...), v)
	for _, u := range public {
		if strings.Contains(u.Progress, "10.0.0.5") || strings.Contains(u.Failed, "10.0.0.5") {
			t.Errorf("public view shows the detail: %+v", u)
		}
	}
	if f := *v.Final; strings.Contains(f.Badge.String(), "10.0.0.5") || !strings.Contains(f.Badge.String(), "answered offline: the language model isn't answering") {
		t.Errorf("badge = %q", f.Badge.String())
	}
	if len(r.private) != 1 || !strings.Contains(r.private[0], detail) {
		t.Errorf("private = %q, want the detail once", r.private)
	}
}

func TestOneThreadInOrderOthersConcurrently(t *testing.T) {
	var mu sync.Mutex
	running := map[string]bool{}
	var order []string
	maxParallel, parallel := 0, 0
	// The first question of every thread waits until two run at once, so
	// that concurrency is shown without counting on the scheduler (a
	// dispatcher running one at a time times out here and fails below).
	two, twoOnce := make(chan struct{}), sync.Once{}
	asker := askerFunc(func(_ context.Context, q agent.Question, _ agent.Emitter) (agent.Result, error) {
		mu.Lock()
		if running[q.ThreadID] {
			t.Errorf("two questions of thread %s ran at once", q.ThreadID)
		}
		running[q.ThreadID] = true
		parallel++
		if maxParallel = max(maxParallel, parallel); parallel >= 2 {
			twoOnce.Do(func() { close(two) })
		}
		order = append(order, q.Text)
		mu.Unlock()
		if strings.HasSuffix(q.Text, "0") {
			select {
			case <-two:
			case <-time.After(20 * time.Second):
			}
		}
		time.Sleep(time.Millisecond) // a window for a second question of the thread to overlap
		mu.Lock()
		running[q.ThreadID] = false
		parallel--
		mu.Unlock()
		return agent.Result{Answer: q.Text}, nil
	})
	d := start(t, Config{Agent: asker, Workers: 4})
	var rs []*recorder
	for i := 0; i < 3; i++ {
		for _, th := range []string{"a", "b", "c", "d"} {
			r := newRecorder()
			rs = append(rs, r)
			if err := d.Submit(context.Background(), msg(th, fmt.Sprintf("%s%d", th, i)), r); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, r := range rs {
		r.wait(t)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, th := range []string{"a", "b", "c", "d"} {
		var got []string
		for _, o := range order {
			if strings.HasPrefix(o, th) {
				got = append(got, o)
			}
		}
		if strings.Join(got, ",") != th+"0,"+th+"1,"+th+"2" {
			t.Errorf("thread %s answered in order %v", th, got)
		}
	}
	if maxParallel < 2 {
		t.Errorf("threads never ran concurrently (max %d at once)", maxParallel)
	}
}

func TestDuplicatesAnsweredOnce(t *testing.T) {
	d := start(t, Config{Agent: echo()})
	in := msg("t1", "hi")
	in.EventID = "Ev1"
	if err := d.Submit(context.Background(), in, newRecorder()); err != nil {
		t.Fatal(err)
	}
	if err := d.Submit(context.Background(), in, newRecorder()); !errors.Is(err, ErrDuplicate) {
		t.Errorf("retried event: err = %v", err)
	}
	other := in
	other.EventID = "Ev2" // the same message as another event type
	if err := d.Submit(context.Background(), other, newRecorder()); !errors.Is(err, ErrDuplicate) {
		t.Errorf("same message, other event: err = %v", err)
	}
}

func TestFullQueueRefusesAndShutdownDrains(t *testing.T) {
	release := make(chan struct{})
	running := make(chan struct{}, 4)
	asker := askerFunc(func(ctx context.Context, q agent.Question, _ agent.Emitter) (agent.Result, error) {
		running <- struct{}{}
		<-release
		return agent.Result{Answer: q.Text}, nil
	})
	d := NewDispatcher(Config{Agent: asker, Workers: 1, Queue: 2, Interval: time.Millisecond})
	d.Start(context.Background())
	var rs []*recorder
	var errs []error
	for i := 0; i < 4; i++ {
		r := newRecorder()
		rs = append(rs, r)
		errs = append(errs, d.Submit(context.Background(), msg(fmt.Sprint(i), "q"), r))
		if i == 0 { // the worker takes the first: the queue holds two more
			select {
			case <-running:
			case <-time.After(20 * time.Second):
				t.Fatal("the first question never ran")
			}
		}
	}
	if errs[0] != nil || errs[1] != nil || errs[2] != nil || !errors.Is(errs[3], ErrBusy) {
		t.Fatalf("submit errors = %v, want the fourth ErrBusy", errs)
	}
	shut := make(chan error, 1)
	go func() { shut <- d.Shutdown(context.Background()) }()
	// Shutdown refuses new work at once.
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; ; i++ {
		err := d.Submit(context.Background(), msg("late", fmt.Sprint(i)), newRecorder())
		if errors.Is(err, ErrStopping) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("submit during shutdown: %v", err)
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	if err := <-shut; err != nil {
		t.Fatal(err)
	}
	for _, r := range rs[:3] {
		if v := r.wait(t); v.Final == nil {
			t.Errorf("queued question not answered before shutdown: %+v", v)
		}
	}
}

func TestFailureIsPrivate(t *testing.T) {
	asker := askerFunc(func(context.Context, agent.Question, agent.Emitter) (agent.Result, error) {
		return agent.Result{}, errors.New("pq: connection refused at 10.0.0.5")
	})
	d := start(t, Config{Agent: asker})
	r := newRecorder()
	d.Submit(context.Background(), msg("t", "q"), r)
	v := r.wait(t)
	if v.Failed == "" || v.Final != nil {
		t.Errorf("final view = %+v", v)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.private) != 1 || strings.Contains(r.private[0], "10.0.0.5") {
		t.Errorf("private = %q: want one message without internals", r.private)
	}
}

// A question queued when the grace period ends (Start's ctx cancelled) has
// a placeholder in the thread already; it must be finished, not left
// "waiting in line" for ever.
func TestAbandonedQueuedQuestionsAreFinished(t *testing.T) {
	running := make(chan struct{}, 1)
	asker := askerFunc(func(ctx context.Context, q agent.Question, _ agent.Emitter) (agent.Result, error) {
		select {
		case running <- struct{}{}:
		default:
		}
		<-ctx.Done()
		return agent.Result{}, ctx.Err()
	})
	d := NewDispatcher(Config{Agent: asker, Workers: 1, Interval: time.Millisecond})
	work, abandon := context.WithCancel(context.Background())
	d.Start(work)
	first := newRecorder()
	if err := d.Submit(context.Background(), msg("t0", "q"), first); err != nil {
		t.Fatal(err)
	}
	<-running
	var queued []*recorder
	for i := 1; i <= 10; i++ {
		r := newRecorder()
		if err := d.Submit(context.Background(), msg(fmt.Sprintf("t%d", i), "q"), r); err != nil {
			t.Fatal(err)
		}
		queued = append(queued, r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_ = d.Shutdown(ctx) // the grace period ends with the questions still queued
	abandon()
	if err := d.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	first.wait(t)
	for i, r := range queued {
		r.mu.Lock()
		started, finished := r.started, len(r.finished)
		r.mu.Unlock()
		if started != 1 || finished != 1 {
			t.Fatalf("queued question %d: started %d, finished %d; its placeholder is left waiting", i+1, started, finished)
		}
		if v := r.finished[0]; !v.Done || v.Failed != StoppingMessage {
			t.Errorf("queued question %d: final view %+v, want failed with %q", i+1, v, StoppingMessage)
		}
	}
}

// An adapter may take a question before the workers start; its placeholder
// must not race with Start.
func TestSubmitBeforeStart(t *testing.T) {
	d := NewDispatcher(Config{Agent: echo(), Interval: time.Millisecond})
	r := newRecorder()
	if err := d.Submit(context.Background(), msg("t1", "early"), r); err != nil {
		t.Fatal(err)
	}
	d.Start(context.Background())
	defer d.Shutdown(context.Background())
	r.wait(t)
}

// keptAnswers is a FeedbackStore in memory.
type keptAnswers struct {
	mu   sync.Mutex
	kept map[string]bool
}

func (k *keptAnswers) SaveAnswer(_ context.Context, a feedback.Answer) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.kept[a.ID] = true
	return nil
}

func (k *keptAnswers) SaveVote(context.Context, string, string, int) error { return nil }

// pressingRecorder presses a button of the answer as it is shown: the
// answer must already be kept, or the press finds nothing.
type pressingRecorder struct {
	*recorder
	store *keptAnswers
	found bool
}

func (r *pressingRecorder) Finish(ctx context.Context, v View) error {
	r.store.mu.Lock()
	r.found = r.store.kept[v.AnswerID]
	r.store.mu.Unlock()
	return r.recorder.Finish(ctx, v)
}

func TestAnswerIsKeptBeforeItIsShown(t *testing.T) {
	store := &keptAnswers{kept: make(map[string]bool)}
	d := start(t, Config{Agent: echo(), Feedback: store})
	r := &pressingRecorder{recorder: newRecorder(), store: store}
	if err := d.Submit(context.Background(), msg("t1", "hello"), r); err != nil {
		t.Fatal(err)
	}
	r.wait(t)
	if !r.found {
		t.Error("the answer was shown before it was kept: a button pressed at once finds no answer")
	}
}
