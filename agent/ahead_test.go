package agent_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/llm/offline"
)

// speculating is the harness with Config.Speculate on.
func speculating(t *testing.T, vector, graph *fakeRetriever) *harness {
	t.Helper()
	h := setup(t, vector, graph, nil)
	h.config.Speculate = true
	a, err := agent.New(h.config)
	if err != nil {
		t.Fatal(err)
	}
	h.agent = a
	return h
}

// waitFor is a guard against a hang, not a measure of speed: it fails the
// test when ch is not closed within a minute.
func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(time.Minute):
		t.Fatalf("%s did not happen while the router was asked", what)
	}
}

// TestDocumentsSearchedWhileRouting: the router does not answer until the
// documents have been searched for the question, which only a search
// made alongside the router's call can satisfy; the vector node then uses
// that search instead of making it again.
func TestDocumentsSearchedWhileRouting(t *testing.T) {
	searched := make(chan struct{})
	var once atomic.Bool
	vector := &fakeRetriever{docs: func(string) ([]agent.Document, error) {
		if once.CompareAndSwap(false, true) {
			close(searched)
		}
		return []agent.Document{refundDoc}, nil
	}}
	h := setup(t, vector, nil, nil)
	h.model.RouteFunc = func(context.Context, string) (agent.RouteDecision, error) {
		waitFor(t, searched, "the search")
		return agent.RouteDecision{Route: agent.RouteVector, Reason: "asks about an internal policy"}, nil
	}
	h.model.GradeFunc = grades(relevant)
	h.model.GenerateFunc = answers(nil, "Refunds within 30 days [1].")
	h.model.CheckFunc = verdicts(grounded)

	res := h.ask(t, "", "What is our refund policy?")

	if !slices.Equal(vector.queries, []string{"What is our refund policy?"}) {
		t.Errorf("vector queries = %q, want the question once", vector.queries)
	}
	if res.Confidence != agent.ConfidenceMedium || len(res.Sources) != 1 || res.DiscardedCalls != 0 {
		t.Errorf("result = %+v", res)
	}
	if want := trace(agent.StepCondense, agent.StepRoute, agent.StepVector, agent.StepGrade, agent.StepGenerate, agent.StepCheck); !slices.Equal(res.Trace, want) {
		t.Errorf("trace = %v", res.Trace)
	}
}

// TestSpeculativeGradesAreUsed: with Speculate, the documents are graded
// while the router is asked, and the grade node takes those grades: each
// document is graded once, and nothing is discarded.
func TestSpeculativeGradesAreUsed(t *testing.T) {
	docs := []agent.Document{refundDoc, {ID: "lunch", Title: "Lunch", Content: "Tacos on Tuesday."}}
	graded := make(chan struct{})
	var n atomic.Int32
	h := speculating(t, returns(docs...), nil)
	h.model.GradeFunc = func(_ context.Context, _ string, d agent.Document) (agent.Grade, error) {
		if n.Add(1) == int32(len(docs)) {
			close(graded)
		}
		if d.ID == "lunch" {
			return irrelevant, nil
		}
		return relevant, nil
	}
	h.model.RouteFunc = func(context.Context, string) (agent.RouteDecision, error) {
		waitFor(t, graded, "the grading")
		return agent.RouteDecision{Route: agent.RouteVector, Reason: "asks about an internal policy"}, nil
	}
	h.model.GenerateFunc = answers(nil, "Refunds within 30 days [1].")
	h.model.CheckFunc = verdicts(grounded)

	res := h.ask(t, "", "What is our refund policy?")

	if got := h.model.Calls("Grade"); got != len(docs) {
		t.Errorf("Grade calls = %d, want %d: each document once", got, len(docs))
	}
	if res.DiscardedCalls != 0 || res.LLMCalls != 1+len(docs)+2 {
		t.Errorf("calls = %d, discarded %d; want route, %d grades, generate and check, none discarded", res.LLMCalls, res.DiscardedCalls, len(docs))
	}
	if len(res.Sources) != 1 || res.Sources[0].Title != refundDoc.Title || res.Confidence != agent.ConfidenceMedium {
		t.Errorf("result = %+v", res)
	}
}

// TestSpeculativeGradesOfAnotherRouteAreDiscarded: when the router chooses
// the graph, the grades made ahead are not used, and their calls are
// counted as discarded; the graph's documents are graded as usual.
func TestSpeculativeGradesOfAnotherRouteAreDiscarded(t *testing.T) {
	graphDoc := agent.Document{ID: "g1", Title: "Graph", Content: "Acme supplies Globex."}
	graded := make(chan struct{})
	var ahead atomic.Int32
	h := speculating(t, returns(refundDoc), returns(graphDoc))
	h.model.GradeFunc = func(_ context.Context, _ string, d agent.Document) (agent.Grade, error) {
		if d.ID == refundDoc.ID && ahead.Add(1) == 1 {
			close(graded)
		}
		return relevant, nil
	}
	h.model.RouteFunc = func(context.Context, string) (agent.RouteDecision, error) {
		waitFor(t, graded, "the grading")
		return agent.RouteDecision{Route: agent.RouteGraph, Reason: "asks who supplies Globex"}, nil
	}
	h.model.GenerateFunc = answers(nil, "Acme supplies Globex [1].")
	h.model.CheckFunc = verdicts(grounded)

	res := h.ask(t, "", "Tell me about Globex.") // no relation word: the model's router decides

	if res.DiscardedCalls != 1 || res.LLMCalls != 1+1+1+2 {
		t.Errorf("calls = %d, discarded %d; want 1 discarded grade among route, 2 grades, generate and check", res.LLMCalls, res.DiscardedCalls)
	}
	if len(res.Sources) != 1 || res.Sources[0].Title != "Graph" || res.Route != agent.RouteGraph {
		t.Errorf("result = %+v", res)
	}
}

// TestNothingAheadOffline: without a model the router is instant, so
// nothing is searched ahead; a direct question searches nothing.
func TestNothingAheadOffline(t *testing.T) {
	vector := returns(refundDoc)
	a, err := agent.New(agent.Config{Offline: offline.New(nil), Retrievers: map[agent.Route]agent.Retriever{agent.RouteVector: vector}, Speculate: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Ask(context.Background(), agent.Question{Text: "What is 15% of 340?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Route != agent.RouteDirect || len(vector.queries) != 0 {
		t.Errorf("route %s, vector queries %q; want direct and none", res.Route, vector.queries)
	}
}
