package agent_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/agent/agenttest"
	"github.com/switchboard/switchboard/llm/offline"
)

// A question answered after a later one of its thread (a platform's
// retry of a delivery a frozen replica held, stored after the thread's
// next question was answered) is answered with the history as of its own
// time, and its turn is stored in its place: the thread reads in the
// order people asked.
func TestQuestionAnsweredLateSeesTheHistoryOfItsTime(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	asked := func(n int) time.Time { return at.Add(time.Duration(n) * time.Minute) }
	var seen []string // per question, the questions in the history it was given
	brain := &agenttest.Brain{T: t,
		CondenseFunc: func(_ context.Context, history []agent.Turn, q string) (string, error) {
			return q, nil
		},
		RouteFunc: func(context.Context, string) (agent.RouteDecision, error) {
			return agent.RouteDecision{Route: agent.RouteDirect, Reason: "a test"}, nil
		},
		DirectFunc: func(_ context.Context, q string, history []agent.Turn) (string, bool, error) {
			var qs []string
			for _, h := range history {
				qs = append(qs, h.Question)
			}
			seen = append(seen, q+" <- "+strings.Join(qs, ", "))
			return "Answer to " + q, true, nil
		},
	}
	threads := agent.NewMemoryCheckpointer()
	a, err := agent.New(agent.Config{Model: brain, Offline: offline.New(nil), Checkpointer: threads,
		Now: func() time.Time { return at.Add(time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, n := range []int{0, 1, 3, 2, 2} { // q2 arrives after q3 was answered, and is answered again
		q := agent.Question{ThreadID: "t", Text: fmt.Sprintf("q%d", n), Asked: asked(n)}
		if _, err := a.Ask(ctx, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"q0 <- ", "q1 <- q0", "q3 <- q0, q1", "q2 <- q0, q1", "q2 <- q0, q1"}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("histories given:\n%q\nwant\n%q", seen, want)
	}
	th := stored(t, threads)
	if got := questionsOf(th, " "); got != "q0 q1 q2 q3" {
		t.Errorf("stored thread %q, want the turns in the order asked, each once", got)
	}
	if th.LastRoute != agent.RouteDirect || !strings.Contains(th.Turns[len(th.Turns)-1].Answer, "q3") {
		t.Errorf("the thread's last turn is %+v, want q3's", th.Turns[len(th.Turns)-1])
	}
}

// A run that loaded its thread long before it stores its turn (its
// replica was frozen past its claim, and other replicas answered the
// thread's next questions meanwhile) adds the turn to the thread as it
// is then, not as it was loaded: the turns stored meanwhile are kept.
func TestLateTurnKeepsTheTurnsStoredMeanwhile(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	threads := agent.NewMemoryCheckpointer()
	a, err := agent.New(agent.Config{Offline: offline.New(nil), Checkpointer: threads, Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ask := func(text string, asked time.Time, hold func(context.Context) error) {
		t.Helper()
		if _, err := a.Ask(ctx, agent.Question{ThreadID: "t", Text: text, Asked: asked, Hold: hold}, nil); err != nil {
			t.Fatal(err)
		}
	}
	// The frozen run passes its hold, then the others answer the next
	// question before it stores its turn.
	ask("What is 2+2?", at, func(context.Context) error {
		ask("What is 3+3?", at.Add(time.Minute), nil)
		return nil
	})
	if got := questionsOf(stored(t, threads), " | "); got != "What is 2+2? | What is 3+3?" {
		t.Errorf("stored thread %q, want both turns in the order asked", got)
	}
}

// stored is thread "t" as threads holds it.
func stored(t *testing.T, threads agent.Checkpointer) agent.Thread {
	t.Helper()
	th, err := threads.Load(context.Background(), "t")
	if err != nil {
		t.Fatal(err)
	}
	return th
}

// questionsOf is the questions of th's turns, in order, joined by sep.
func questionsOf(th agent.Thread, sep string) string {
	var order []string
	for _, turn := range th.Turns {
		order = append(order, turn.Question)
	}
	return strings.Join(order, sep)
}

// failingSaves is a Checkpointer whose Update fails its first n calls.
type failingSaves struct {
	*agent.MemoryCheckpointer
	n, calls int
}

func (f *failingSaves) Update(ctx context.Context, id string, change func(*agent.Thread)) error {
	f.calls++
	if f.calls <= f.n {
		return fmt.Errorf("connection refused (save %d)", f.calls)
	}
	return f.MemoryCheckpointer.Update(ctx, id, change)
}

// A thread that cannot be saved does not cost the asker the answer: the
// save is tried again, and when the store stays down the answer still
// stands, with a detail for the asker (and the log) saying what was lost.
func TestAnswerStandsWhenTheThreadCannotBeSaved(t *testing.T) {
	noSleep := func(context.Context, time.Duration) error { return nil }
	for _, c := range []struct {
		name   string
		fails  int
		saved  bool
		detail bool
	}{
		{"a blink", 1, true, false},
		{"an outage", 100, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			store := &failingSaves{MemoryCheckpointer: agent.NewMemoryCheckpointer(), n: c.fails}
			a, err := agent.New(agent.Config{Offline: offline.New(nil), Checkpointer: store, Sleep: noSleep})
			if err != nil {
				t.Fatal(err)
			}
			var details []string
			res, err := a.Ask(context.Background(), agent.Question{ThreadID: "t", Text: "What is 15% of 340?"}, func(e agent.Event) {
				if e.Detail != "" {
					details = append(details, e.Detail)
				}
			})
			if err != nil || !strings.Contains(res.Answer, "51") {
				t.Fatalf("Ask = %q, %v; want the answer whatever the store did", res.Answer, err)
			}
			th, _ := store.MemoryCheckpointer.Load(context.Background(), "t")
			if saved := len(th.Turns) == 1; saved != c.saved {
				t.Errorf("saved %v after %d attempts, want %v", saved, store.calls, c.saved)
			}
			told := len(details) == 1 && strings.Contains(details[0], "could not be saved") && strings.Contains(details[0], "connection refused")
			if told != c.detail {
				t.Errorf("details %q; want a note on the lost history: %v", details, c.detail)
			}
		})
	}
}
