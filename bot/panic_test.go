package bot

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
)

// A panic while answering one question becomes that asker's error message;
// the worker carries on with the next question.
func TestPanicInAnswerIsTheAskersError(t *testing.T) {
	asker := askerFunc(func(ctx context.Context, q agent.Question, emit agent.Emitter) (agent.Result, error) {
		if q.Text == "boom" {
			var parts []string
			_ = parts[len(q.Text)] // a splitter's index out of range
		}
		return echo().Ask(ctx, q, emit)
	})
	d := start(t, Config{Agent: asker, Workers: 1})
	bad, good := newRecorder(), newRecorder()
	if err := d.Submit(context.Background(), msg("t1", "boom"), bad); err != nil {
		t.Fatal(err)
	}
	if err := d.Submit(context.Background(), msg("t2", "hello"), good); err != nil {
		t.Fatal(err)
	}
	if v := bad.wait(t); v.Final != nil || v.Failed == "" {
		t.Errorf("the panicking question's final view = %+v, want a failure", v)
	}
	bad.mu.Lock()
	private := strings.Join(bad.private, "\n")
	bad.mu.Unlock()
	if !strings.Contains(private, "went wrong") || strings.Contains(private, "index out of range") {
		t.Errorf("asker was told %q: want the generic message, no panic details", private)
	}
	if v := good.wait(t); v.Final == nil || v.Final.Answer != "answer to hello" {
		t.Errorf("the next question's final view = %+v", v)
	}
}

// panicFinish panics when asked to show an answer, as a renderer bug
// would, and records the failure view shown instead.
type panicFinish struct{ *recorder }

func (p panicFinish) Finish(ctx context.Context, v View) error {
	if v.Final != nil {
		panic("render: slice bounds out of range")
	}
	return p.recorder.Finish(ctx, v)
}

func TestPanicInRenderingShowsTheFailure(t *testing.T) {
	d := start(t, Config{Agent: echo()})
	r := panicFinish{newRecorder()}
	if err := d.Submit(context.Background(), msg("t1", "hello"), r); err != nil {
		t.Fatal(err)
	}
	if v := r.wait(t); v.Failed == "" || v.Final != nil {
		t.Errorf("final view = %+v, want the plain failure", v)
	}
}

// failedStart cannot post its placeholder (the chat API was down then).
type failedStart struct{ *recorder }

func (f failedStart) Start(context.Context, View) error { return errors.New("chat.postMessage: 503") }

// A question whose placeholder could not be posted is still answered, in
// one final message, and no progress edit targets the missing message.
func TestFailedPlaceholderStillAnswers(t *testing.T) {
	d := start(t, Config{Agent: echo()})
	r := failedStart{newRecorder()}
	if err := d.Submit(context.Background(), msg("t1", "hello"), r); err != nil {
		t.Fatal(err)
	}
	if v := r.wait(t); v.Final == nil || v.Final.Answer != "answer to hello" {
		t.Errorf("final view = %+v", v)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.updates) != 0 || len(r.finished) != 1 {
		t.Errorf("%d progress edits and %d final messages, want 0 and 1", len(r.updates), len(r.finished))
	}
}
