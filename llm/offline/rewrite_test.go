package offline

import (
	"context"
	"strings"
	"testing"
)

func TestRewriteChangesTheQuery(t *testing.T) {
	tests := []struct {
		question string
		distinct bool // all three queries differ, not only from the previous one
	}{
		{"What is our refund policy?", true},
		{"How many vacation days do employees get?", true},
		{"What is our data retention policy for EU customers?", true},
		{"Which suppliers are connected to our top 3 customers?", true},
		// One keyword and no synonyms: only two queries exist, so the
		// third differs from the second but not from the first.
		{"What is moonlighting?", false},
	}
	b := testBrain()
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			seen := map[string]bool{}
			query := tt.question
			for attempt := 1; attempt <= 3; attempt++ {
				next, err := b.Rewrite(context.Background(), tt.question, query, attempt)
				if err != nil {
					t.Fatal(err)
				}
				if strings.TrimSpace(next) == "" {
					t.Fatalf("attempt %d: empty query", attempt)
				}
				if strings.EqualFold(next, query) {
					t.Errorf("attempt %d: %q repeats the previous query", attempt, next)
				}
				if tt.distinct && seen[strings.ToLower(next)] {
					t.Errorf("attempt %d: %q repeats an earlier query", attempt, next)
				}
				seen[strings.ToLower(next)] = true
				query = next
			}
		})
	}
}

func TestRewriteAttempts(t *testing.T) {
	b := testBrain()
	q := "What is our refund policy?"
	want := []string{"refund policy", "refund return reimbursement policy guideline rule", "refund"}
	for i, w := range want {
		got, err := b.Rewrite(context.Background(), q, q, i+1)
		if err != nil || got != w {
			t.Errorf("attempt %d = %q, %v; want %q", i+1, got, err, w)
		}
	}
}

func TestRewriteNeverEmpty(t *testing.T) {
	b := testBrain()
	for _, tt := range []struct{ question, query string }{
		{"what is it?", "what is it?"},
		{"", ""},
		{"   ", "refund"},
		{"???", ""},
	} {
		for attempt := -1; attempt <= 5; attempt++ {
			got, err := b.Rewrite(context.Background(), tt.question, tt.query, attempt)
			if err != nil || strings.TrimSpace(got) == "" {
				t.Errorf("Rewrite(%q, %q, %d) = %q, %v", tt.question, tt.query, attempt, got, err)
			}
		}
	}
}
