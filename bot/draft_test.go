package bot

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
)

// edits is a Replier that hands every progress edit to the test.
type edits struct {
	*recorder
	views chan View
}

func (e edits) Update(ctx context.Context, v View) error {
	_ = e.recorder.Update(ctx, v)
	e.views <- v
	return nil
}

// until reads edits until one satisfies ok; the run waits meanwhile, so
// every step is seen whatever the throttle coalesces. It runs on the run's
// goroutine, so it fails the test with Errorf and lets the run go on.
func (e edits) until(t *testing.T, what string, ok func(View) bool) {
	t.Helper()
	timeout := time.After(time.Minute) // a guard, not a timing
	for {
		select {
		case v := <-e.views:
			if ok(v) {
				return
			}
		case <-timeout:
			t.Errorf("no edit showing %s", what)
			return
		}
	}
}

// The message shows the draft as it is written and while it is checked,
// marked in the view as a draft; a rejected draft disappears when the
// rewrite begins, and the finished answer carries no draft.
func TestDraftIsShownUntilTheAnswer(t *testing.T) {
	r := edits{recorder: newRecorder(), views: make(chan View, 100)}
	asker := askerFunc(func(_ context.Context, q agent.Question, emit agent.Emitter) (agent.Result, error) {
		emit(agent.Event{Kind: agent.EventGenerating, Total: 2})
		emit(agent.Event{Kind: agent.EventDrafting, Text: "Refunds are possible for a year"})
		r.until(t, "the first draft", func(v View) bool { return v.Draft == "Refunds are possible for a year" })
		emit(agent.Event{Kind: agent.EventChecking})
		r.until(t, "the draft being checked", func(v View) bool {
			return v.Progress == "Checking it against the sources…" && v.Draft == "Refunds are possible for a year"
		})
		emit(agent.Event{Kind: agent.EventRegenerating, Attempt: 1, Max: 2})
		r.until(t, "the rewrite without the rejected draft", func(v View) bool { return v.Draft == "" && v.Progress != "Checking it against the sources…" })
		emit(agent.Event{Kind: agent.EventDrafting, Attempt: 1, Text: "Refunds within 30 days [1]."})
		r.until(t, "the second draft", func(v View) bool { return v.Draft == "Refunds within 30 days [1]." })
		return agent.Result{Question: q.Text, Answer: "Refunds within 30 days [1].", Route: agent.RouteVector}, nil
	})
	d := start(t, Config{Agent: asker})
	if err := d.Submit(context.Background(), msg("t1", "refunds?"), r); err != nil {
		t.Fatal(err)
	}
	if v := r.wait(t); !v.Done || v.Draft != "" || v.Final == nil {
		t.Errorf("final view %+v: want the answer and no draft", v)
	}
}
