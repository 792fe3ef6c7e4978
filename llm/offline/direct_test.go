package offline

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
)

// The calculator itself is tested in package calc; these check that the
// direct route and the router use it.

func TestDirect(t *testing.T) {
	tests := []struct {
		question string
		answer   string
		ok       bool
	}{
		{"What is 15% of 340?", "15% of 340 is 51.", true},
		{"what's 2^10", "2^10 is 1024.", true},
		{"Calculate 12 * (3+4) please", "12 * (3+4) is 84.", true},
		{"What is the square root of 144?", "the square root of 144 is 12.", true},
		{"What is 5/0?", "I can't divide by zero, so 5/0 has no value.", true},
		{"what is sqrt(-1)", "I can't compute sqrt(-1): the result is not a real number.", true},
		{"hello", introAnswer, true},
		{"thanks!", "You're welcome!", true},
		{"What is the capital of France?", "", false},
		{"What is 2024?", "", false},
		{"", "", false},
	}
	b := testBrain()
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			answer, ok, err := b.Direct(context.Background(), tt.question, nil)
			if err != nil {
				t.Fatal(err)
			}
			if answer != tt.answer || ok != tt.ok {
				t.Errorf("Direct(%q) = %q, %v; want %q, %v", tt.question, answer, ok, tt.answer, tt.ok)
			}
		})
	}
}

func TestRouteAndDirectCalculations(t *testing.T) {
	b := testBrain()
	ctx := context.Background()
	for q, want := range map[string]string{
		"how many seconds are in 2.5 minutes":                      "150",
		"How many hours are there in three and a half days?":       "84",
		"What is one fifth of one thousand two hundred and fifty?": "250",
		"days in 6 weeks":                         "42",
		"How many days are there in a leap year?": "366",
	} {
		d, err := b.Route(ctx, q)
		if err != nil || d.Route != agent.RouteDirect {
			t.Errorf("Route(%q) = %v, %v; want direct", q, d, err)
		}
		answer, ok, err := b.Direct(ctx, q, nil)
		if err != nil || !ok || !(strings.Contains(answer, " "+want+" ") || strings.HasSuffix(answer, " "+want+".")) {
			t.Errorf("Direct(%q) = %q, %v, %v; want %s", q, answer, ok, err, want)
		}
	}
}
