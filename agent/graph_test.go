package agent

import (
	"strings"
	"testing"
)

func TestTransitionTable(t *testing.T) {
	a, err := New(Config{Offline: nopBrain{}})
	if err != nil {
		t.Fatalf("the shipped table does not check: %v", err)
	}
	missing := map[Step]node{}
	for s, n := range a.nodes {
		if s != StepGrade {
			missing[s] = n
		}
	}
	if err := checkGraph(missing); err == nil || !strings.Contains(err.Error(), "grade") {
		t.Errorf("a table missing the grade node checked: %v", err)
	}
	if allowed(StepDirect, StepGrade) || !allowed(StepGrade, StepRewrite) {
		t.Error("allowed disagrees with the table")
	}
}

// A rewrite searches again, on the same route or another retrieval route,
// or, when it has no new search, ends the rewriting: the web fallback or
// no answer. It never answers by itself.
func TestRewriteTransitions(t *testing.T) {
	for _, to := range []Step{StepVector, StepGraph, StepWeb, StepNoAnswer} {
		if !allowed(StepRewrite, to) {
			t.Errorf("rewrite→%s is not in the table", to)
		}
	}
	for _, to := range []Step{StepDirect, StepGenerate, StepGrade, StepRewrite, StepRoute} {
		if allowed(StepRewrite, to) {
			t.Errorf("rewrite→%s is in the table", to)
		}
	}
	for _, r := range []Route{RouteVector, RouteGraph, RouteWeb} {
		if !allowed(StepRewrite, retrievalStep(r)) {
			t.Errorf("a rewrite to %s cannot reach its retrieval step", r)
		}
	}
}

// nopBrain satisfies Brain for tests that never run a question.
type nopBrain struct{ Brain }
