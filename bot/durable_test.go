package bot

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/questions"
)

// These tests run replicas of the dispatcher on one question store in
// memory, as replicas share PostgreSQL's (the stores are held to one
// contract: questions/questionstest); cmd/bot's
// TestReplicasAnswerEveryQuestionOnceInOrder runs three `switchboard
// serve` on PostgreSQL and kills one.

// addressed is a recorder with an address: the test's chat, where every
// replica's replier of one answer is the same recorder.
type addressed struct {
	*recorder
	name string
}

func (a addressed) Address() ([]byte, error) { return json.Marshal(a.name) }

// chat is the resumers' view of the test's chat: recorders by name.
type chat struct {
	mu  sync.Mutex
	all map[string]*recorder
}

func (c *chat) replier(name string) addressed {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.all[name] == nil {
		c.all[name] = newRecorder()
	}
	return addressed{recorder: c.all[name], name: name}
}

func (c *chat) resume(_ string, addr []byte) (Replier, error) {
	var name string
	if err := json.Unmarshal(addr, &name); err != nil {
		return nil, err
	}
	return c.replier(name), nil
}

// A replica stopped while it answers gives the question back, without a
// word in the thread; another replica answers it, once.
func TestStoppedReplicaGivesItsQuestionBack(t *testing.T) {
	store := questions.NewMemory(nil)
	c := &chat{all: map[string]*recorder{}}
	started := make(chan struct{}, 1)
	stuck := askerFunc(func(ctx context.Context, q agent.Question, _ agent.Emitter) (agent.Result, error) {
		started <- struct{}{}
		<-ctx.Done() // until the replica is stopped
		return agent.Result{}, ctx.Err()
	})
	a := NewDispatcher(Config{Agent: stuck, Questions: store, Shared: true, Owner: "a", Interval: time.Millisecond, Poll: time.Millisecond})
	a.Resume("test", c.resume)
	actx, abandon := context.WithCancel(context.Background())
	a.Start(actx)
	if err := a.Submit(context.Background(), msg("t1", "refunds?"), c.replier("q1")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(time.Minute): // a guard, not a timing
		t.Fatal("the first replica did not take the question")
	}
	abandon() // as serve does past its grace period
	if err := a.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := c.replier("q1")
	r.mu.Lock()
	finishedByA := len(r.finished)
	r.mu.Unlock()
	if finishedByA != 0 {
		t.Fatalf("the stopped replica finished the question: %+v", r.finished)
	}
	if n := a.Queued(); n != 1 {
		t.Errorf("Queued = %d after the question was given back, want 1 (the store's count)", n)
	}

	b := start(t, Config{Agent: echo(), Questions: store, Shared: true, Owner: "b", Poll: time.Millisecond})
	b.Resume("test", c.resume)
	v := r.wait(t)
	if v.Final == nil || v.Final.Answer != "answer to refunds?" {
		t.Errorf("final view %+v, want the second replica's answer", v)
	}
	if r.started != 1 {
		t.Errorf("placeholder posted %d times, want once, by the replica that took the question", r.started)
	}
}

// flaky fails the first Finish calls of its recorder.
type flaky struct {
	addressed
	fails *atomic.Int32
}

func (f flaky) Finish(ctx context.Context, v View) error {
	if f.fails.Add(-1) >= 0 {
		return errors.New("chat API down")
	}
	return f.addressed.Finish(ctx, v)
}

// An answer that could not be shown is not recorded as answered: the
// question is given back and answered again, and shown then.
func TestAnswerNotShownIsGivenBack(t *testing.T) {
	store := questions.NewMemory(nil)
	c := &chat{all: map[string]*recorder{}}
	var fails atomic.Int32
	fails.Store(1)
	var runs atomic.Int32
	asker := askerFunc(func(_ context.Context, q agent.Question, _ agent.Emitter) (agent.Result, error) {
		runs.Add(1)
		return agent.Result{Question: q.Text, Answer: "answer to " + q.Text, Route: agent.RouteVector}, nil
	})
	d := start(t, Config{Agent: asker, Questions: store, Poll: time.Millisecond})
	d.Resume("test", func(id string, addr []byte) (Replier, error) {
		r, err := c.resume(id, addr)
		if err != nil {
			return nil, err
		}
		return flaky{addressed: r.(addressed), fails: &fails}, nil
	})
	if err := d.Submit(context.Background(), msg("t1", "refunds?"), c.replier("q1")); err != nil {
		t.Fatal(err)
	}
	v := c.replier("q1").wait(t)
	if v.Final == nil || runs.Load() != 2 {
		t.Errorf("final view %+v after %d runs; want the answer, shown by the second run", v, runs.Load())
	}
}
