package agenttest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/agent/agenttest"
)

// failures records what a test would have been failed with.
type failures struct {
	testing.TB
	mu   sync.Mutex
	msgs []string
}

func (f *failures) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
}

func (f *failures) Helper() {}

type docs []agent.Document

func (d docs) Retrieve(context.Context, agent.Request) ([]agent.Document, error) { return d, nil }

func TestScriptedRun(t *testing.T) {
	b := &agenttest.Brain{
		T:     t,
		Usage: agent.Usage{Calls: 1, PromptTokens: 10, CompletionTokens: 2},
		RouteFunc: func(context.Context, string) (agent.RouteDecision, error) {
			return agent.RouteDecision{Route: agent.RouteVector, Reason: "scripted"}, nil
		},
		GradeFunc: func(context.Context, string, agent.Document) (agent.Grade, error) {
			return agent.Grade{Relevant: true}, nil
		},
		GenerateFunc: func(context.Context, agent.GenerateRequest) (string, error) { return "A [1]. B [2].", nil },
		CheckFunc: func(context.Context, string, string, []agent.Document) (agent.Verdict, error) {
			return agent.Verdict{Grounded: true, Answers: true}, nil
		},
	}
	a, err := agent.New(agent.Config{Model: b, Offline: &agenttest.Brain{T: t}, Retrievers: map[agent.Route]agent.Retriever{
		agent.RouteVector: docs{{ID: "a", Location: "a.md", Content: "A"}, {ID: "b", Location: "b.md", Content: "B"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Ask(context.Background(), agent.Question{Text: "A and B?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// route, two grades, generate, check; the usage of each reported.
	if res.Offline || res.Confidence != agent.ConfidenceHigh || b.Calls("") != 5 || b.Calls("Grade") != 2 || b.Calls("Condense") != 0 {
		t.Errorf("result = %+v after %d calls (%d grades)", res, b.Calls(""), b.Calls("Grade"))
	}
	if res.LLMCalls != 5 || res.Tokens != 5*12 {
		t.Errorf("llm calls = %d tokens = %d, want 5 and 60", res.LLMCalls, res.Tokens)
	}
}

func TestUnscriptedCallFailsTheTest(t *testing.T) {
	f := &failures{TB: t}
	b := &agenttest.Brain{T: f}
	_, err := b.Route(context.Background(), "q")
	if !errors.Is(err, agenttest.ErrUnscripted) || len(f.msgs) != 1 || !strings.Contains(f.msgs[0], "Brain.Route") {
		t.Errorf("err = %v, failures = %q; want ErrUnscripted and one failure naming Route", err, f.msgs)
	}
	if b.Calls("Route") != 1 || b.Calls("") != 1 {
		t.Errorf("calls = %d", b.Calls(""))
	}
	// Without T, the error alone.
	if _, _, err := (&agenttest.Brain{}).Direct(context.Background(), "q", nil); !errors.Is(err, agenttest.ErrUnscripted) {
		t.Errorf("err = %v", err)
	}
}

func TestErrFailsEveryCall(t *testing.T) {
	down := errors.New("503 Service Unavailable")
	b := &agenttest.Brain{T: t, Err: down, GenerateFunc: func(context.Context, agent.GenerateRequest) (string, error) {
		t.Error("GenerateFunc called although Err is set")
		return "", nil
	}}
	ctx := context.Background()
	if _, err := b.Generate(ctx, agent.GenerateRequest{}); err != down {
		t.Errorf("Generate err = %v", err)
	}
	if _, err := b.Check(ctx, "q", "a", nil); err != down {
		t.Errorf("Check err = %v (a nil field with Err set is not a test failure)", err)
	}
	if b.Calls("") != 2 {
		t.Errorf("calls = %d, want 2", b.Calls(""))
	}
}

func TestSequence(t *testing.T) {
	next := agenttest.Sequence("a", "b")
	var got []string
	for range 4 {
		got = append(got, next())
	}
	if strings.Join(got, "") != "abbb" {
		t.Errorf("Sequence gave %q, want a, b, then b again", got)
	}
}
