package postgres

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
)

func TestCheckpointerRoundTripAndPrune(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openTest(t)
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return now }
	c := NewCheckpointer(db)

	empty, err := c.Load(ctx, "C1:123.456")
	if err != nil || empty.ID != "C1:123.456" || len(empty.Turns) != 0 {
		t.Fatalf("Load of an unknown thread = %+v, %v", empty, err)
	}

	th := agent.Thread{ID: "C1:123.456"}
	src := []agent.Source{{N: 1, Title: "Refunds", Location: "docs/refund.md", Snippet: "30 days", Route: agent.RouteVector}}
	th.Append(agent.Turn{Question: "What is the refund policy?", Answer: "30 days [1].\x00", Route: agent.RouteVector,
		Sources: src, At: now})
	if err := c.Save(ctx, th); err != nil {
		t.Fatal(err)
	}
	th.Append(agent.Turn{Question: "and for annual plans?", Answer: "Pro rata.", Route: agent.RouteVector, At: now})
	if err := c.Save(ctx, th); err != nil {
		t.Fatal(err)
	}
	got, err := c.Load(ctx, th.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Turns) != 2 || got.Turns[1].Question != "and for annual plans?" || got.LastRoute != agent.RouteVector ||
		!got.Updated.Equal(now) || !slices.Equal(got.Turns[0].Sources, src) || got.Turns[0].Answer != "30 days [1]." {
		t.Errorf("loaded %+v", got)
	}
	if err := c.Save(ctx, agent.Thread{}); err == nil {
		t.Error("saved a thread without an id")
	}

	// Only threads idle since before the cut-off go.
	now = now.Add(48 * time.Hour)
	if err := c.Save(ctx, agent.Thread{ID: "fresh"}); err != nil {
		t.Fatal(err)
	}
	n, err := c.Prune(ctx, now.Add(-24*time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("Prune = %d, %v; want 1", n, err)
	}
	if got, _ := c.Load(ctx, th.ID); len(got.Turns) != 0 {
		t.Error("the idle thread survived Prune")
	}
	if got, _ := c.Load(ctx, "fresh"); got.ID != "fresh" {
		t.Error("the fresh thread was lost")
	}
	if n := queryInt(t, db, `SELECT count(*) FROM threads`); n != 1 {
		t.Errorf("%d threads stored, want 1", n)
	}
}
