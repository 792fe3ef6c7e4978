package retention_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/switchboard/switchboard/retention"
)

// pruner records the cut-offs it is given; the stores' own Prune is
// tested against the real databases (internal/storetest).
type pruner struct {
	cutoffs []time.Time
	err     error
}

func (p *pruner) Prune(_ context.Context, olderThan time.Time) (int, error) {
	p.cutoffs = append(p.cutoffs, olderThan)
	return len(p.cutoffs), p.err
}

// TestSchedule: a run at once and one per tick; each job's cut-off is its
// age before now; a job kept for ever (0) is not asked; a job that fails
// does not stop the others, nor the next run; the schedule ends with ctx.
func TestSchedule(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	threads, events, never := &pruner{}, &pruner{err: errors.New("database down")}, &pruner{}
	tick, runs := make(chan time.Time), make(chan map[string]int)
	ctx, cancel := context.WithCancel(context.Background())
	s := retention.Schedule{
		Jobs: []retention.Job{
			{Name: "events", Keep: 48 * time.Hour, From: events},
			{Name: "threads", Keep: 90 * 24 * time.Hour, From: threads},
			{Name: "kept", Keep: 0, From: never},
		},
		Tick: tick, Now: func() time.Time { return now },
		Done: func(p map[string]int) { runs <- p },
	}
	stopped := make(chan struct{})
	go func() { defer close(stopped); s.Run(ctx) }()

	first := <-runs
	now = now.Add(time.Hour)
	tick <- now
	second := <-runs
	cancel()
	<-stopped

	if first["threads"] != 1 || second["threads"] != 2 {
		t.Errorf("runs = %v, %v; want the threads pruned in each", first, second)
	}
	if _, ok := second["events"]; ok {
		t.Errorf("a failed prune reported a count: %v", second)
	}
	want := []time.Time{time.Date(2026, 9, 2, 12, 0, 0, 0, time.UTC), time.Date(2026, 9, 2, 13, 0, 0, 0, time.UTC)}
	if len(threads.cutoffs) != 2 || !threads.cutoffs[0].Equal(want[0]) || !threads.cutoffs[1].Equal(want[1]) {
		t.Errorf("thread cut-offs = %v, want %v", threads.cutoffs, want)
	}
	if len(events.cutoffs) != 2 || !events.cutoffs[0].Equal(now.Add(-time.Hour-48*time.Hour)) {
		t.Errorf("event cut-offs = %v: the failing job must be tried at every run", events.cutoffs)
	}
	if len(never.cutoffs) != 0 {
		t.Errorf("a job kept for ever was pruned at %v", never.cutoffs)
	}
}
