package postgres

import (
	"context"
	"testing"

	"github.com/switchboard/switchboard/agent"
)

// The Checkpointer's round trip and Prune are checked by TestDocumentStore
// (internal/storetest). PostgreSQL cannot store NUL in text: it is dropped
// rather than a reason to lose the thread.
func TestCheckpointerDropsNUL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := NewCheckpointer(openTest(t))
	th := agent.Thread{ID: "C1:123.456"}
	th.Append(agent.Turn{Question: "What is the refund policy?", Answer: "30 days [1].\x00", Route: agent.RouteVector})
	if err := c.Save(ctx, th); err != nil {
		t.Fatal(err)
	}
	got, err := c.Load(ctx, th.ID)
	if err != nil || len(got.Turns) != 1 || got.Turns[0].Answer != "30 days [1]." {
		t.Errorf("loaded %+v, %v", got, err)
	}
}
