package eval

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/feedback"
)

// A saved reply becomes a case: its question, the reply's telling words
// to contain, its document to cite; the latest reply to a question wins.
func TestFromHumanAnswers(t *testing.T) {
	at := time.Date(2025, 5, 1, 9, 0, 0, 0, time.UTC)
	human := func(q, reply, title string, at time.Time) feedback.Answer {
		return feedback.Answer{ID: "human:" + reply, Question: q, Answer: reply, User: "U2", At: at,
			Human: &feedback.Human{Title: title, SavedBy: "U1", Link: "https://x.slack.com/p1"}}
	}
	cases, notes := FromHumanAnswers([]feedback.Answer{
		human("What is the guest wifi password?", "It is on the card at reception.", "What is the guest wifi password?", at),
		{ID: "a1", Question: "Not saved", Answer: "x"},
		human("Where do bikes go?", "In the basement.", "Where do bikes go?", at),
		human("Where do bikes go?", "Behind building B, in the covered racks.", "Where do bikes go? (2)", at.Add(time.Hour)),
	})
	if len(cases) != 2 || len(notes) != 1 {
		t.Fatalf("cases %+v, notes %q", cases, notes)
	}
	if c := cases[0]; c.Question != "What is the guest wifi password?" || !slices.Equal(c.MustContain, []string{"card", "reception"}) ||
		c.MustCite != "What is the guest wifi password?" || c.ExpectedRoute != agent.RouteVector || !strings.Contains(c.Note, "U2") {
		t.Errorf("case %+v", c)
	}
	if c := cases[1]; c.MustCite != "Where do bikes go? (2)" || !slices.Equal(c.MustContain, []string{"building", "covered"}) {
		t.Errorf("the latest reply's case %+v", c)
	}
}
