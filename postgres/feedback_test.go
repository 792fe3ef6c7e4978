package postgres

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
)

func TestFeedback(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openTest(t)
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return now }
	f := NewFeedback(db)

	if got, err := f.List(ctx); err != nil || len(got) != 0 {
		t.Fatalf("List of none = %v, %v", got, err)
	}
	src := []agent.Source{{N: 1, Title: "Refunds", Location: "docs/refund.md", Snippet: "30 days", Route: agent.RouteVector}}
	up := FeedbackRecord{Thread: "C1:1", Question: "Refunds?", Answer: "30 days [1].", Route: agent.RouteVector,
		Sources: src, Vote: 1, User: "U1"}
	id1, err := f.Record(ctx, up)
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Minute)
	id2, err := f.Record(ctx, FeedbackRecord{Question: "Weather?", Answer: "I can't answer that offline.\x00", Vote: -1, User: "U2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Record(ctx, FeedbackRecord{Vote: 0}); err == nil {
		t.Error("recorded a vote of 0")
	}

	got, err := f.List(ctx)
	if err != nil || len(got) != 2 {
		t.Fatalf("List = %+v, %v", got, err)
	}
	up.ID, up.Created = id1, now.Add(-time.Minute)
	if a := got[0]; a.ID != up.ID || a.Thread != up.Thread || a.Question != up.Question || a.Answer != up.Answer ||
		a.Route != up.Route || !slices.Equal(a.Sources, src) || a.Vote != 1 || a.User != "U1" || !a.Created.Equal(up.Created) {
		t.Errorf("first = %+v, want %+v", a, up)
	}
	if b := got[1]; b.ID != id2 || b.Vote != -1 || b.Sources == nil || len(b.Sources) != 0 || b.Answer != "I can't answer that offline." {
		t.Errorf("second = %+v", b)
	}
}
