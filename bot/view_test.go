package bot

import (
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
)

func TestStatusLines(t *testing.T) {
	cases := []struct {
		e    agent.Event
		want string
	}{
		{agent.Event{Kind: agent.EventRewriting, Attempt: 2, Max: 3, Route: agent.RouteVector, Query: "carry over vacation"},
			"rewriting query… (2/3): carry over vacation"},
		{agent.Event{Kind: agent.EventRewriting, Attempt: 1, Max: 3, Route: agent.RouteGraph, Query: "Who makes Chai?", Reason: "Chai (a product) is in the knowledge graph"},
			"rewriting query… (1/3) → graph: Who makes Chai? (Chai (a product) is in the knowledge graph)"},
		{agent.Event{Kind: agent.EventRegenerating, Attempt: 1, Max: 2, Reason: "the answer does not say whether jury duty is paid"},
			"regenerating (1/2): the answer does not say whether jury duty is paid"},
	}
	for _, c := range cases {
		if got, ok := Status(c.e); !ok || got != c.want {
			t.Errorf("Status(%+v) = %q, want %q", c.e, got, c.want)
		}
	}
}

func TestBadgeOfPartialAnswer(t *testing.T) {
	got := Badge(agent.Result{Confidence: agent.ConfidenceLow, Partial: true, Offline: true})
	if !strings.Contains(got, "does not answer the question") || strings.Contains(got, "claims") {
		t.Errorf("partial badge = %q", got)
	}
}
