package storetest

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/feedback"
)

// answeredStore is what the chat adapters ask of a feedback store besides
// feedback.Store: whether the bot answered someone in a thread.
type answeredStore interface {
	Answered(ctx context.Context, thread, user string) (bool, error)
}

// TestFeedback checks a feedback.Store that open returns, new and empty,
// against the contract: saving is idempotent, a later vote by the same
// person replaces the earlier one, a vote needs a saved answer, Votes
// gives each vote with its answer, oldest vote first, and Answered tells
// who was answered in which thread. now sets the store's clock, which
// stamps votes.
func TestFeedback(t *testing.T, open func(t *testing.T, now func() time.Time) feedback.Store) {
	ctx := context.Background()
	clock := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	f := open(t, func() time.Time { return clock })

	if got, err := f.Votes(ctx); err != nil || len(got) != 0 {
		t.Fatalf("Votes of none = %v, %v", got, err)
	}
	src := []agent.Source{{N: 1, Title: "Refund policy", Location: "docs/refund.md", Snippet: "30 days", Route: agent.RouteVector,
		Owners: []string{"@acme/billing", "U7"}}} // ingest's owner:, for Ask an expert
	refunds := feedback.Answer{ID: "a1", Thread: "slack:T:C:1", User: "U1", Question: "Refunds?", Answer: "30 days [1].",
		Route: agent.RouteVector, Sources: src, At: clock.Add(-time.Hour)}
	weather := feedback.Answer{ID: "a2", Thread: "discord:G:C", User: "U3", Question: "Weather?",
		Answer: "I can't answer that offline.\x00", Route: agent.RouteDirect, At: clock.Add(-time.Hour)}
	for _, a := range []feedback.Answer{refunds, refunds, weather} { // a retried save is harmless
		if err := f.SaveAnswer(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	checkAnswered(t, f, refunds.Thread)
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
		a.Route != agent.RouteVector || !reflect.DeepEqual(a.Sources, src) || !a.At.Equal(refunds.At) ||
		a.Vote != -1 || a.Voter != "U2" || !a.VotedAt.Equal(clock.Add(-time.Minute)) {
		t.Errorf("first vote = %+v", a)
	}
	if b := got[1]; b.ID != "a2" || b.Vote != 1 || b.Voter != "U4" || b.Sources == nil || len(b.Sources) != 0 ||
		strings.ReplaceAll(b.Answer.Answer, "\x00", "") != "I can't answer that offline." || !b.VotedAt.Equal(clock) {
		t.Errorf("second vote = %+v (sources must be empty, not nil; a NUL may be dropped, nothing else)", b)
	}
	checkLiked(t, f, func() { clock = clock.Add(time.Second) })
	checkShare(t, f, refunds)
	checkHuman(t, f, clock)
}

// checkHuman checks HumanAnswers (issue 26): the people's replies saved
// as answers are read back with where they came from, oldest first, and
// nothing else is listed.
func checkHuman(t *testing.T, f feedback.Store, clock time.Time) {
	ctx := context.Background()
	human := func(id string, at time.Time) feedback.Answer {
		return feedback.Answer{ID: id, Thread: "slack:T:C:5", User: "U9", Question: "Parking?", Answer: "Level 2 is ours.",
			Route: agent.RouteVector, At: at, Human: &feedback.Human{Link: "https://x.slack.com/p" + id,
				Title: "Parking?", SavedBy: "U1", Document: "slack:C:answer:" + id}}
	}
	h2, h1 := human("h2", clock.Add(time.Minute)), human("h1", clock)
	for _, a := range []feedback.Answer{h2, h1} {
		if err := f.SaveAnswer(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	saved, err := f.HumanAnswers(ctx)
	if err != nil || len(saved) != 2 || saved[0].ID != "h1" || saved[1].ID != "h2" || saved[0].Result != nil ||
		!reflect.DeepEqual(saved[0].Human, h1.Human) || saved[0].Answer != h1.Answer || saved[0].User != "U9" {
		t.Errorf("HumanAnswers = %+v, %v; want h1 then h2", saved, err)
	}
	if got, err := f.Answer(ctx, "h1"); err != nil || !reflect.DeepEqual(got.Human, h1.Human) {
		t.Errorf("Answer(h1) = %+v, %v; want it with %+v", got, err, h1.Human)
	}
}

// checkLiked checks Liked on the store TestFeedback filled: a1 voted
// down, a2 up in Discord. tick moves the store's clock on.
func checkLiked(t *testing.T, f feedback.Store, tick func()) {
	t.Helper()
	ctx := context.Background()
	for _, a := range []feedback.Answer{
		{ID: "a3", Thread: "slack:T:C:2", Question: "Who owns billing?"},
		{ID: "a4", Thread: "slack:T:C:3", Question: "How long do refunds take?"},
		{ID: "a5", Thread: "slack:T:D:4", Question: "How long do refunds take?"}, // asked again: once
		{ID: "a6", Thread: "slack:T2:C:1", Question: "Another workspace's?"},
		{ID: "a7", Thread: "slack:T:C:5", Question: "Disliked?"},
	} {
		if err := f.SaveAnswer(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	for _, v := range []struct {
		id, voter string
		vote      int
	}{{"a3", "U6", 1}, {"a4", "U6", 1}, {"a5", "U7", 1}, {"a6", "U6", 1}, {"a7", "U6", 1}, {"a7", "U7", -1}, {"a7", "U8", -1}} {
		if err := f.SaveVote(ctx, v.id, v.voter, v.vote); err != nil {
			t.Fatal(err)
		}
		tick()
	}
	refunds := feedback.Liked{Question: "How long do refunds take?", Thread: "slack:T:D:4"} // voted on last there
	for _, c := range []struct {
		prefix string
		n      int
		want   []feedback.Liked
	}{
		{"slack:T:", 5, []feedback.Liked{refunds, {Question: "Who owns billing?", Thread: "slack:T:C:2"}}},
		{"slack:T:", 1, []feedback.Liked{refunds}},
		{"discord:", 5, []feedback.Liked{{Question: "Weather?", Thread: "discord:G:C"}}},
		{"slack:T%", 5, nil}, // the prefix is text, not a pattern
		{"slack:T:", 0, nil},
	} {
		got, err := f.Liked(ctx, c.prefix, c.n)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("Liked(%q, %d) = %q, %v; want %q", c.prefix, c.n, got, err, c.want)
		}
	}
}

// checkShare checks Answer and Share: an answer is read back with the
// run it was presented from, and shared once until unshared.
func checkShare(t *testing.T, f feedback.Store, saved feedback.Answer) {
	t.Helper()
	ctx := context.Background()
	res := &agent.Result{Question: "Refunds?", Answer: "30 days [1].", Route: agent.RouteVector, Sources: saved.Sources,
		Confidence: agent.ConfidenceHigh, Unsupported: []string{"nothing\x00"}}
	kept := feedback.Answer{ID: "s1", Thread: "slack:T:C:ask:1", User: "U1", Question: "Refunds?", Answer: res.Answer,
		Route: res.Route, Sources: saved.Sources, At: saved.At, Result: res}
	if err := f.SaveAnswer(ctx, kept); err != nil {
		t.Fatal(err)
	}
	got, err := f.Answer(ctx, "s1")
	if err != nil || got.Thread != kept.Thread || got.User != "U1" || got.Question != "Refunds?" || got.Answer != res.Answer ||
		got.Route != res.Route || !reflect.DeepEqual(got.Sources, kept.Sources) || !got.At.Equal(kept.At) ||
		got.Result == nil || got.Result.Confidence != agent.ConfidenceHigh || !reflect.DeepEqual(got.Result.Sources, res.Sources) ||
		len(got.Result.Unsupported) != 1 {
		t.Errorf("Answer(s1) = %+v, %v; want %+v", got, err, kept)
	}
	if got, err := f.Answer(ctx, saved.ID); err != nil || got.Result != nil || got.Question != saved.Question {
		t.Errorf("Answer(%s) = %+v, %v; want it without a result", saved.ID, got, err)
	}
	if _, err := f.Answer(ctx, "missing"); !errors.Is(err, feedback.ErrUnknownAnswer) {
		t.Errorf("Answer(missing): %v, want ErrUnknownAnswer", err)
	}
	// Shared and escalated are two marks of one answer, each set once:
	// escalating a shared answer is its first escalation.
	for _, m := range []struct {
		name string
		set  func(ctx context.Context, id string, on bool) (bool, error)
	}{{"Share", f.Share}, {"Escalate", f.Escalate}} {
		for i, c := range []struct {
			id   string
			on   bool
			want bool
		}{
			{"s1", true, true}, {"s1", true, false}, // pressed twice: once
			{"s1", false, true}, {"s1", false, false}, // a failed post lets it be pressed again
			{"s1", true, true},
			{"missing", true, false},
		} {
			if got, err := m.set(ctx, c.id, c.on); err != nil || got != c.want {
				t.Errorf("%d: %s(%s, %v) = %v, %v; want %v", i, m.name, c.id, c.on, got, err, c.want)
			}
		}
	}
}

// checkAnswered checks Answered on a store where U1 was answered in thread
// (and U3 elsewhere).
func checkAnswered(t *testing.T, f feedback.Store, thread string) {
	t.Helper()
	a, ok := f.(answeredStore)
	if !ok {
		t.Errorf("%T has no Answered(ctx, thread, user) method", f)
		return
	}
	for _, c := range []struct {
		thread, user string
		want         bool
	}{
		{thread, "U1", true},
		{thread, "", true},    // anyone
		{thread, "U3", false}, // answered, but in another thread
		{thread + "0", "", false},
		{"slack:T:C", "", false}, // a prefix of the thread is another thread
	} {
		got, err := a.Answered(context.Background(), c.thread, c.user)
		if err != nil || got != c.want {
			t.Errorf("Answered(%q, %q) = %v, %v; want %v", c.thread, c.user, got, err, c.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := a.Answered(ctx, thread, "U1"); err == nil {
		t.Error("Answered with a cancelled context did not fail")
	}
}
