package agent_test

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/llm/offline"
)

// A question with MaxIdle continues its thread only while the thread is
// not silent for longer: an asker who comes back later starts afresh.
func TestMaxIdle(t *testing.T) {
	const follow = "and for annual plans?"
	start := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name      string
		maxIdle   time.Duration
		after     time.Duration // since the last turn
		condensed bool
		kept      int // turns of the thread after the question
	}{
		{"within the window", 30 * time.Minute, 20 * time.Minute, true, 3},
		{"after the window", 30 * time.Minute, 31 * time.Minute, false, 1},
		{"no window", 0, 48 * time.Hour, true, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			now := start
			threads := agent.NewMemoryCheckpointer()
			a, err := agent.New(agent.Config{Offline: offline.New(nil), Checkpointer: threads,
				Retrievers: map[agent.Route]agent.Retriever{agent.RouteVector: returns(refundDoc, annualDoc)},
				Now:        func() time.Time { return now }})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			// Two turns 25 minutes apart: a pause shorter than the window
			// does not end the conversation.
			for _, q := range []string{"What is our refund policy?", "What is our refund policy for monthly plans?"} {
				if _, err := a.Ask(ctx, agent.Question{ThreadID: "t", Text: q, MaxIdle: c.maxIdle}, nil); err != nil {
					t.Fatal(err)
				}
				now = now.Add(25 * time.Minute)
			}
			now = now.Add(c.after - 25*time.Minute)
			res, err := a.Ask(ctx, agent.Question{ThreadID: "t", Text: follow, MaxIdle: c.maxIdle}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Standalone != follow; got != c.condensed {
				t.Errorf("standalone %q: condensed %v, want %v", res.Standalone, got, c.condensed)
			}
			th, _ := threads.Load(ctx, "t")
			if len(th.Turns) != c.kept || th.Turns[len(th.Turns)-1].Question != follow {
				t.Errorf("thread kept %d turns (%+v), want %d ending with the follow-up", len(th.Turns), th.Turns, c.kept)
			}
		})
	}
}

func TestForgetIdle(t *testing.T) {
	at := func(min int) agent.Turn {
		return agent.Turn{Question: "q", At: time.Date(2025, 3, 1, 9, min, 0, 0, time.UTC)}
	}
	now := at(50).At
	for _, c := range []struct {
		name  string
		turns []agent.Turn
		want  int
	}{
		{"empty", nil, 0},
		{"all recent", []agent.Turn{at(0), at(20), at(40)}, 3},
		{"a long pause before", []agent.Turn{at(0), at(35), at(40)}, 2},
		{"silent since", []agent.Turn{at(0), at(5)}, 0},
		{"exactly the window", []agent.Turn{at(10), at(20)}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			th := agent.Thread{ID: "t", Turns: c.turns, LastRoute: agent.RouteVector}
			th.ForgetIdle(now, 30*time.Minute)
			if len(th.Turns) != c.want {
				t.Errorf("%d turns kept, want %d", len(th.Turns), c.want)
			}
			if c.want == 0 && (th.LastRoute != "" || th.LastSources != nil) {
				t.Errorf("a forgotten thread keeps its last route %q", th.LastRoute)
			}
		})
	}
}
