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

// nopBrain satisfies Brain for tests that never run a question.
type nopBrain struct{ Brain }
