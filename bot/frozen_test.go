package bot

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/llm/offline"
	"github.com/switchboard/switchboard/questions"
)

// These tests play what breaks replicas in production, on a question
// store in memory held to the contract PostgreSQL's is: a replica frozen
// past its lease (SIGSTOP, a paused VM), a delivery stored late, the
// store going away. cmd/bot's TestFrozenReplicaKeepsThreadsInOrder does
// it with three `bot serve` on PostgreSQL.

// testClock is a settable clock, shared by a replica and the store.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock() *testClock { return &testClock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)} }

func (c *testClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// A replica frozen while it answers, past its lease, loses the question
// to another replica, which answers it. When it wakes it finishes its run,
// but touches the message no more: no draft, no answer over the other's.
func TestFrozenReplicaDoesNotTouchAnAnswerItLost(t *testing.T) {
	storeClock, aClock := newTestClock(), newTestClock()
	store := questions.NewMemory(storeClock.now)
	c := &chat{all: map[string]*recorder{}}

	// A long lease: the frozen replica's own renewal (every third of it,
	// on a real ticker) does not come round during the test.
	const lease = 10 * time.Minute
	started, wake := make(chan struct{}), make(chan struct{})
	var holdErr error
	frozen := askerFunc(func(ctx context.Context, q agent.Question, emit agent.Emitter) (agent.Result, error) {
		close(started)
		<-wake
		emit(agent.Event{Kind: agent.EventDrafting, Text: "A late draft"})
		// As the agent does before it stores the turn in the thread.
		holdErr = q.Hold(ctx)
		return agent.Result{Question: q.Text, Answer: "the frozen replica's answer", Route: agent.RouteVector}, nil
	})
	// One worker, busy with the question: a frozen replica claims nothing.
	a := NewDispatcher(Config{Agent: frozen, Questions: store, Shared: true, Owner: "a", Lease: lease, Now: aClock.now, Workers: 1,
		Interval: time.Millisecond, Poll: time.Millisecond})
	a.Resume("test", c.resume)
	a.Start(context.Background())
	if err := a.Submit(context.Background(), msg("t1", "refunds?"), c.replier("q1")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(time.Minute): // a guard, not a timing
		t.Fatal("the first replica did not take the question")
	}
	// Frozen past its lease: time goes on for everyone.
	storeClock.add(lease + time.Second)
	aClock.add(lease + time.Second)

	b := start(t, Config{Agent: echo(), Questions: store, Shared: true, Owner: "b", Lease: lease, Poll: time.Millisecond})
	b.Resume("test", c.resume)
	r := c.replier("q1")
	if v := r.wait(t); v.Final == nil || v.Final.Answer != "answer to refunds?" {
		t.Fatalf("final view %+v, want the second replica's answer", v)
	}
	r.mu.Lock()
	updatesBefore := len(r.updates)
	r.mu.Unlock()

	close(wake) // the frozen replica wakes and finishes its run
	if err := a.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if holdErr == nil {
		t.Error("the frozen replica's run may still store its turn in the thread it lost")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.finished) != 1 {
		t.Errorf("the answer was finished %d times (%+v), want once, by the replica that held the question", len(r.finished), r.finished)
	}
	if late := r.updates[updatesBefore:]; len(late) > 0 {
		t.Errorf("the frozen replica edited the message after it lost the question: %+v", late)
	}
}

// frozenEnqueue is a question store on which the replica that stores a
// question freezes once the store took it, before it hears so: frozen is
// closed then, and it wakes once wake is.
type frozenEnqueue struct {
	questions.Store
	frozen, wake chan struct{}
}

func (f *frozenEnqueue) Enqueue(ctx context.Context, job questions.Job, keys []string, maxWaiting int) (int, error) {
	ahead, err := f.Store.Enqueue(ctx, job, keys, maxWaiting)
	close(f.frozen) // one question
	<-f.wake
	return ahead, err
}

// A replica frozen between storing a question and posting its
// placeholder (here, as the store takes it), past the grace after which another replica takes the
// question over as its replica's loss, posts no placeholder when it
// wakes: the other replica answered with a message of its own, and a
// placeholder posted after it would be left waiting for ever.
func TestFrozenReplicaPostsNoPlaceholderForAQuestionTakenOver(t *testing.T) {
	clock := newTestClock()
	mem := questions.NewMemory(clock.now)
	c := &chat{all: map[string]*recorder{}}
	const lease = 10 * time.Minute
	// Not started: the frozen replica's workers claim nothing.
	frozen := &frozenEnqueue{Store: mem, frozen: make(chan struct{}), wake: make(chan struct{})}
	a := NewDispatcher(Config{Agent: echo(), Questions: frozen, Shared: true, Owner: "a", Lease: lease, Now: clock.now})
	a.Resume("test", c.resume)
	submitted := make(chan error, 1)
	go func() { submitted <- a.Submit(context.Background(), msg("t1", "refunds?"), c.replier("q1")) }()
	select {
	case <-frozen.frozen:
	case <-time.After(time.Minute): // a guard, not a timing
		t.Fatal("the first replica did not get to its placeholder")
	}
	clock.add(lease + time.Second)
	b := start(t, Config{Agent: echo(), Questions: mem, Shared: true, Owner: "b", Lease: lease, Now: clock.now, Poll: time.Millisecond})
	b.Resume("test", c.resume)
	r := c.replier("q1")
	if v := r.wait(t); v.Final == nil || v.Final.Answer != "answer to refunds?" {
		t.Fatalf("final view %+v, want the second replica's answer", v)
	}
	close(frozen.wake)
	if err := <-submitted; err != nil {
		t.Fatal(err)
	}
	if err := a.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started != 0 || len(r.finished) != 1 {
		t.Errorf("%d placeholders and %d answers in the thread; want the answer alone", r.started, len(r.finished))
	}
}

// A thread's questions are answered in the order they were asked, not the
// order they were stored in: a delivery stored late (a retry of one a
// frozen replica held) goes before the thread's next question.
func TestStoredQuestionsAnsweredInTheOrderAsked(t *testing.T) {
	store := questions.NewMemory(nil)
	c := &chat{all: map[string]*recorder{}}
	var (
		mu    sync.Mutex
		order []string
		asked []time.Time
	)
	rec := askerFunc(func(_ context.Context, q agent.Question, _ agent.Emitter) (agent.Result, error) {
		mu.Lock()
		order, asked = append(order, q.Text), append(asked, q.Asked)
		mu.Unlock()
		return agent.Result{Question: q.Text, Answer: "answer to " + q.Text, Route: agent.RouteVector}, nil
	})
	d := NewDispatcher(Config{Agent: rec, Questions: store, Workers: 1, Interval: time.Millisecond, Poll: time.Millisecond})
	d.Resume("test", c.resume)
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	second, first := msg("t1", "and for EU customers?"), msg("t1", "refunds?")
	second.Sent, first.Sent = at.Add(time.Minute), at
	for _, in := range []struct {
		in   Incoming
		name string
	}{{second, "q2"}, {first, "q1"}} { // the first asked is stored last
		if err := d.Submit(context.Background(), in.in, c.replier(in.name)); err != nil {
			t.Fatal(err)
		}
	}
	// Both stored before a worker runs: the first asked is its thread's
	// head even while its placeholder is being posted.
	d.Start(context.Background())
	t.Cleanup(func() { d.Shutdown(context.Background()) })
	c.replier("q1").wait(t)
	c.replier("q2").wait(t)
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(order, " | ") != "refunds? | and for EU customers?" || !asked[0].Equal(at) {
		t.Errorf("answered %q asked at %v; want the first asked first, with its time", order, asked)
	}
}

// A question asked while the question store is down is not refused: its
// placeholder says the database is away, and it is stored and answered
// once the database is back.
func TestQuestionAskedDuringAnOutageIsAnsweredWhenTheStoreIsBack(t *testing.T) {
	store := &flakyQuestions{Store: questions.NewMemory(nil)}
	c := &chat{all: map[string]*recorder{}}
	waiting, back := make(chan struct{}, 1), make(chan struct{})
	var sleeps atomic.Int32
	sleep := func(ctx context.Context, _ time.Duration) error {
		if sleeps.Add(1) == 1 {
			return nil // a moment's failure shows nothing; the next one does
		}
		select {
		case waiting <- struct{}{}:
		default:
		}
		select {
		case <-back:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	d := start(t, Config{Agent: echo(), Questions: store, Sleep: sleep, Poll: time.Millisecond})
	d.Resume("test", c.resume)

	store.down.Store(true)
	if err := d.Submit(context.Background(), msg("t1", "refunds?"), c.replier("q1")); err != nil {
		t.Fatalf("Submit during the outage = %v; want the question taken", err)
	}
	select {
	case <-waiting:
	case <-time.After(time.Minute): // a guard, not a timing
		t.Fatal("the question was not held for the store")
	}
	r := c.replier("q1")
	r.mu.Lock()
	started, private := r.started, append([]string(nil), r.private...)
	r.mu.Unlock()
	if started != 1 || len(private) != 0 {
		t.Fatalf("during the outage: %d placeholders, private %q; want the placeholder in the thread, nothing private", started, private)
	}
	store.down.Store(false)
	close(back)
	if v := r.wait(t); v.Final == nil || v.Final.Answer != "answer to refunds?" {
		t.Errorf("final view %+v, want the answer once the store is back", v)
	}
}

// A question the store stays down for is told so in its thread, once the
// answer timeout has gone by in tries.
func TestQuestionAskedDuringALongOutageIsToldInItsThread(t *testing.T) {
	store := &flakyQuestions{Store: questions.NewMemory(nil)}
	c := &chat{all: map[string]*recorder{}}
	noSleep := func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	d := start(t, Config{Agent: echo(), Questions: store, Sleep: noSleep, Poll: time.Millisecond})
	d.Resume("test", c.resume)

	store.down.Store(true)
	if err := d.Submit(context.Background(), msg("t1", "refunds?"), c.replier("q1")); err != nil {
		t.Fatalf("Submit during the outage = %v; want the question taken", err)
	}
	if v := c.replier("q1").wait(t); v.Failed != StoreDownMessage {
		t.Errorf("final view %+v, want %q in the thread", v, StoreDownMessage)
	}
}

// threads is a Checkpointer whose database can go away.
type threads struct {
	mu   sync.Mutex
	down bool
	all  map[string]agent.Thread
}

func (c *threads) Load(_ context.Context, id string) (agent.Thread, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.down {
		return agent.Thread{}, errStoreDown
	}
	if t, ok := c.all[id]; ok {
		return t, nil
	}
	return agent.Thread{ID: id}, nil
}

func (c *threads) Update(_ context.Context, id string, change func(*agent.Thread)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.down {
		return errStoreDown
	}
	t, ok := c.all[id]
	if !ok {
		t = agent.Thread{ID: id}
	}
	t.Turns = slices.Clone(t.Turns)
	change(&t)
	c.all[id] = t
	return nil
}

func (c *threads) setDown(down bool) { c.mu.Lock(); c.down = down; c.mu.Unlock() }

// An answer whose thread cannot be saved (the database went away after
// the run began) is still posted; the asker hears privately that a
// follow-up may not know it.
func TestAnswerPostedWhenItsThreadCannotBeSaved(t *testing.T) {
	cp := &threads{all: map[string]agent.Thread{}}
	ag, err := agent.New(agent.Config{Offline: offline.New(nil), Checkpointer: cp,
		Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	cut := askerFunc(func(ctx context.Context, q agent.Question, emit agent.Emitter) (agent.Result, error) {
		return ag.Ask(ctx, q, func(e agent.Event) {
			once.Do(func() { cp.setDown(true) }) // the thread is loaded: the database goes away
			emit(e)
		})
	})
	d := start(t, Config{Agent: cut})
	r := newRecorder()
	if err := d.Submit(context.Background(), msg("t1", "What is 15% of 340?"), r); err != nil {
		t.Fatal(err)
	}
	v := r.wait(t)
	if v.Final == nil || !strings.Contains(v.Final.Answer, "51") || v.Failed != "" {
		t.Fatalf("final view %+v, want the answer although the thread was not saved", v)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.private) != 1 || !strings.Contains(r.private[0], "could not be saved") {
		t.Errorf("private %q, want a note that a follow-up may not know the answer", r.private)
	}
}

// In memory too, a question that arrives late goes before the thread's
// later questions still waiting.
func TestQueuedQuestionsAnsweredInTheOrderAsked(t *testing.T) {
	var (
		mu    sync.Mutex
		order []string
	)
	first := make(chan struct{})
	release := make(chan struct{})
	rec := askerFunc(func(_ context.Context, q agent.Question, _ agent.Emitter) (agent.Result, error) {
		if q.Text == "q1" {
			close(first)
			<-release // the thread is busy while the others arrive
		}
		mu.Lock()
		order = append(order, q.Text)
		mu.Unlock()
		return agent.Result{Question: q.Text, Answer: "answer to " + q.Text, Route: agent.RouteVector}, nil
	})
	d := start(t, Config{Agent: rec})
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	ask := func(text string, n int) *recorder {
		in := msg("t1", text)
		in.Sent = at.Add(time.Duration(n) * time.Second)
		r := newRecorder()
		if err := d.Submit(context.Background(), in, r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	r1 := ask("q1", 1)
	<-first
	r3 := ask("q3", 3)
	r2 := ask("q2", 2) // asked before q3, arrived after it
	close(release)
	for _, r := range []*recorder{r1, r2, r3} {
		r.wait(t)
	}
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(order, " "); got != "q1 q2 q3" {
		t.Errorf("answered %q, want q1 q2 q3", got)
	}
}

// A delivery the platform gave up on before it was acknowledged (its
// request ended: this replica was frozen) is not held when the store
// cannot take it: the platform delivers it again, maybe to another
// replica, and a question held here as well would be answered twice.
func TestQuestionThePlatformGaveUpOnIsNotHeld(t *testing.T) {
	store := &flakyQuestions{Store: questions.NewMemory(nil)}
	c := &chat{all: map[string]*recorder{}}
	d := start(t, Config{Agent: echo(), Questions: store, Poll: time.Millisecond})
	d.Resume("test", c.resume)

	store.down.Store(true)
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if err := d.Submit(gone, msg("t1", "refunds?"), c.replier("q1")); err == nil {
		t.Fatal("Submit took a question it could not store, of a delivery the platform gave up on")
	}
	if err := d.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := c.replier("q1")
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started != 0 || len(r.finished) != 0 {
		t.Errorf("the thread shows %d placeholders, %d answers; want nothing, the platform's redelivery answers", r.started, len(r.finished))
	}
}
