package sqlite

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
)

func TestCheckpointer(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return now }
	c := NewCheckpointer(db)

	empty, err := c.Load(ctx, "slack:T1:C1:123.456")
	if err != nil || empty.ID != "slack:T1:C1:123.456" || len(empty.Turns) != 0 {
		t.Fatalf("Load missing = %+v, %v", empty, err)
	}

	th := agent.Thread{ID: "slack:T1:C1:123.456"}
	th.Append(agent.Turn{Question: "Who supplies Globex?", Answer: "Acme Corp [1].", Route: agent.RouteGraph,
		Sources: []agent.Source{{N: 1, Title: "Knowledge graph", Route: agent.RouteGraph}}, At: now})
	if err := c.Save(ctx, th); err != nil {
		t.Fatal(err)
	}
	got, err := c.Load(ctx, th.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Turns) != 1 || got.Turns[0].Answer != "Acme Corp [1]." || got.LastRoute != agent.RouteGraph ||
		!got.Updated.Equal(now) || got.LastSources[0].Title != "Knowledge graph" {
		t.Errorf("roundtrip = %+v", got)
	}

	// Saving again replaces.
	th.Append(agent.Turn{Question: "and Initech?", Answer: "Also Acme.", Route: agent.RouteGraph, At: now})
	if err := c.Save(ctx, th); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Load(ctx, th.ID); len(got.Turns) != 2 {
		t.Errorf("after second save: %d turns", len(got.Turns))
	}

	now = now.Add(48 * time.Hour)
	if err := c.Save(ctx, agent.Thread{ID: "recent"}); err != nil {
		t.Fatal(err)
	}
	n, err := c.Prune(ctx, now.Add(-24*time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("Prune = %d, %v; want 1", n, err)
	}
	if got, _ := c.Load(ctx, th.ID); len(got.Turns) != 0 {
		t.Error("pruned thread still loads")
	}
	if got, _ := c.Load(ctx, "recent"); got.ID != "recent" {
		t.Error("recent thread lost")
	}
	if err := c.Save(ctx, agent.Thread{}); err == nil {
		t.Error("saving a thread without an id succeeded")
	}
}
