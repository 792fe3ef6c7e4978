// Package retention prunes what the stores keep only for a while: the
// conversation threads, which would otherwise grow with every
// conversation ever held, and the chat deliveries remembered to answer
// each question once, which platforms stop retrying within hours. `bot
// serve` runs it; every replica may, since pruning twice deletes nothing
// twice.
package retention

import (
	"context"
	"log/slog"
	"time"
)

// Pruner deletes what was last written before olderThan and says how many
// it deleted. The stores' Checkpointer and Events implement it.
type Pruner interface {
	Prune(ctx context.Context, olderThan time.Time) (int, error)
}

// Job is one kind of record and how long it is kept.
type Job struct {
	Name string // for the log: "threads", "events"
	Keep time.Duration
	From Pruner
}

// Schedule runs Jobs once at once and then at every tick, until ctx ends.
type Schedule struct {
	Jobs []Job
	// Every is the time between two runs; Tick, when set, replaces the
	// ticker (tests send the ticks).
	Every time.Duration
	Tick  <-chan time.Time
	// Now is the clock the ages are counted from; nil: time.Now.
	Now func() time.Time
	// Timeout bounds one job's prune: a database that hangs delays the
	// next run, never stops the schedule. 0: one minute.
	Timeout time.Duration
	Log     *slog.Logger
	// Done, when set, hears each run's counts (tests wait on it).
	Done func(pruned map[string]int)
}

// Run prunes until ctx ends. A job that fails is logged and tried again
// at the next tick; the others still run.
func (s Schedule) Run(ctx context.Context) {
	now, log, timeout := s.Now, s.Log, s.Timeout
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if timeout <= 0 {
		timeout = time.Minute
	}
	tick := s.Tick
	if tick == nil {
		t := time.NewTicker(s.Every)
		defer t.Stop()
		tick = t.C
	}
	for {
		pruned := map[string]int{}
		for _, j := range s.Jobs {
			if j.Keep <= 0 || j.From == nil {
				continue // kept for ever
			}
			jctx, cancel := context.WithTimeout(ctx, timeout)
			n, err := j.From.Prune(jctx, now().Add(-j.Keep))
			cancel()
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				log.Error("retention: prune failed; trying again at the next run", "records", j.Name, "err", err)
				continue
			}
			pruned[j.Name] = n
			if n > 0 {
				log.Info("retention: pruned", "records", j.Name, "count", n, "older_than", j.Keep.String())
			}
		}
		if s.Done != nil {
			s.Done(pruned)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick:
		}
	}
}
