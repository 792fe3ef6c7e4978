package offline

import (
	"context"
	"testing"

	"github.com/switchboard/switchboard/agent"
)

func turns(questions ...string) []agent.Turn {
	var ts []agent.Turn
	for _, q := range questions {
		ts = append(ts, agent.Turn{Question: q, Answer: "…", Route: agent.RouteVector})
	}
	return ts
}

func TestCondense(t *testing.T) {
	tests := []struct {
		name     string
		history  []agent.Turn
		question string
		want     string
	}{
		{"no history", nil, "and for EU customers?", "and for EU customers?"},
		{"preposition appended",
			turns("What is our data retention policy?"), "and for EU customers?",
			"What is our data retention policy for EU customers?"},
		{"preposition replaced",
			turns("What's the retention policy for US customers?"), "And for EU customers?",
			"What's the retention policy for EU customers?"},
		{"chain keeps the topic",
			turns("What is our data retention policy?", "and for EU customers?"), "what about contractors?",
			"What is our data retention policy for contractors?"},
		{"pronoun",
			turns("What is the travel policy?"), "Who approves it?",
			"Who approves the travel policy?"},
		{"there",
			turns("Tell me about the Berlin office"), "Who works there?",
			"Who works in the Berlin office?"},
		{"name swapped",
			turns("Who supplies Acme Corp?"), "and Globex?",
			"Who supplies Globex?"},
		{"possessive name swapped",
			turns("What is Acme's discount?"), "and Globex?",
			"What is Globex's discount?"},
		{"phrase for the last preposition's object",
			turns("What's the hotel limit in Stockholm?"), "and somewhere like Lisbon?",
			"What's the hotel limit in somewhere like Lisbon?"},
		{"short phrase",
			turns("What is our data retention policy?"), "this year?",
			"What is our data retention policy for this year?"},
		{"standalone question", turns("What is our data retention policy?"),
			"How many vacation days do employees get?",
			"How many vacation days do employees get?"},
		{"standalone with pronoun and its own topic", turns("What is our data retention policy?"),
			"Does it cover laptops, phones and backups?",
			"Does it cover laptops, phones and backups?"},
		{"thanks is not a follow-up", turns("What is our data retention policy?"), "thanks!", "thanks!"},
		{"empty previous question", turns(""), "and for EU?", "and for EU?"},
	}
	b := testBrain()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := b.Condense(context.Background(), tt.history, tt.question)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Condense(%q) = %q, want %q", tt.question, got, tt.want)
			}
		})
	}
}
