package storetest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/feedback"
)

// TestFeedback checks a feedback.Store that open returns, new and empty,
// against the contract: saving is idempotent, a later vote by the same
// person replaces the earlier one, a vote needs a saved answer, and Votes
// gives each vote with its answer, oldest vote first. now sets the store's
// clock, which stamps votes.
func TestFeedback(t *testing.T, open func(t *testing.T, now func() time.Time) feedback.Store) {
	ctx := context.Background()
	clock := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	f := open(t, func() time.Time { return clock })

	if got, err := f.Votes(ctx); err != nil || len(got) != 0 {
		t.Fatalf("Votes of none = %v, %v", got, err)
	}
	src := []agent.Source{{N: 1, Title: "Refund policy", Location: "docs/refund.md", Snippet: "30 days", Route: agent.RouteVector}}
	refunds := feedback.Answer{ID: "a1", Thread: "slack:T:C:1", User: "U1", Question: "Refunds?", Answer: "30 days [1].",
		Route: agent.RouteVector, Sources: src, At: clock.Add(-time.Hour)}
	weather := feedback.Answer{ID: "a2", Thread: "discord:G:C", User: "U3", Question: "Weather?",
		Answer: "I can't answer that offline.\x00", Route: agent.RouteDirect, At: clock.Add(-time.Hour)}
	for _, a := range []feedback.Answer{refunds, refunds, weather} { // a retried save is harmless
		if err := f.SaveAnswer(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	for _, v := range []int{1, -1} { // U2 changes their mind
		if err := f.SaveVote(ctx, "a1", "U2", v); err != nil {
			t.Fatal(err)
		}
		clock = clock.Add(time.Minute)
	}
	if err := f.SaveVote(ctx, "a2", "U4", 1); err != nil {
		t.Fatal(err)
	}
	if err := f.SaveVote(ctx, "missing", "U2", 1); !errors.Is(err, feedback.ErrUnknownAnswer) {
		t.Errorf("vote on an unknown answer: %v, want ErrUnknownAnswer", err)
	}
	if err := f.SaveVote(ctx, "a1", "U5", 0); err == nil {
		t.Error("a vote of 0 was saved")
	}

	got, err := f.Votes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("Votes = %+v, want U2's last vote on a1 and U4's on a2", got)
	}
	a := got[0]
	if a.ID != "a1" || a.Thread != refunds.Thread || a.User != "U1" || a.Question != "Refunds?" || a.Answer.Answer != refunds.Answer ||
		a.Route != agent.RouteVector || !slices.Equal(a.Sources, src) || !a.At.Equal(refunds.At) ||
		a.Vote != -1 || a.Voter != "U2" || !a.VotedAt.Equal(clock.Add(-time.Minute)) {
		t.Errorf("first vote = %+v", a)
	}
	if b := got[1]; b.ID != "a2" || b.Vote != 1 || b.Voter != "U4" || b.Sources == nil || len(b.Sources) != 0 ||
		strings.ReplaceAll(b.Answer.Answer, "\x00", "") != "I can't answer that offline." || !b.VotedAt.Equal(clock) {
		t.Errorf("second vote = %+v (sources must be empty, not nil; a NUL may be dropped, nothing else)", b)
	}
}
