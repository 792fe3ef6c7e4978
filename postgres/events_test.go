package postgres

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestEventsAreHandledOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openTest(t)
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return now }
	e := NewEvents(db)

	// Replicas race for each event; one wins each.
	var wins atomic.Int32
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i := range 20 {
				first, err := e.MarkProcessed(ctx, "slack", fmt.Sprintf("Ev%03d", i))
				if err != nil {
					t.Error(err)
				}
				if first {
					wins.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if wins.Load() != 20 {
		t.Errorf("%d first deliveries of 20 events", wins.Load())
	}
	// The same id on another platform is another event.
	if first, err := e.MarkProcessed(ctx, "discord", "Ev000"); err != nil || !first {
		t.Errorf("discord Ev000 = %v, %v; want first", first, err)
	}

	now = now.Add(48 * time.Hour)
	if first, _ := e.MarkProcessed(ctx, "slack", "late"); !first {
		t.Error("a new event was not first")
	}
	n, err := e.Prune(ctx, now.Add(-24*time.Hour))
	if err != nil || n != 21 {
		t.Fatalf("Prune = %d, %v; want 21", n, err)
	}
	if first, _ := e.MarkProcessed(ctx, "slack", "late"); first {
		t.Error("a recent event was forgotten")
	}
}

func TestCursors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := NewCursors(openTest(t))
	if _, ok, err := c.Get(ctx, "slack:T1", "C1"); err != nil || ok {
		t.Fatalf("Get of an unknown cursor = %v, %v", ok, err)
	}
	for _, cur := range []string{"1700000000.000100", "1700000001.000200"} {
		if err := c.Set(ctx, "slack:T1", "C1", cur); err != nil {
			t.Fatal(err)
		}
		if got, ok, err := c.Get(ctx, "slack:T1", "C1"); err != nil || !ok || got != cur {
			t.Errorf("Get = %q, %v, %v; want %q", got, ok, err, cur)
		}
	}
	if _, ok, _ := c.Get(ctx, "slack:T1", "C2"); ok {
		t.Error("another channel shares the cursor")
	}
	if _, ok, _ := c.Get(ctx, "discord:G1", "C1"); ok {
		t.Error("another source shares the cursor")
	}
}
