package bot

import (
	"context"
	"log/slog"
	"time"

	"github.com/switchboard/switchboard/internal/panics"
)

// editor applies progress to a posted message at most once per interval,
// on its own goroutine, so that the agent never waits for a chat API. Only
// the newest view matters: views that arrive faster are coalesced.
type editor struct {
	latest chan View
	quit   chan struct{}
	done   chan struct{}
}

func newEditor(ctx context.Context, r Replier, interval time.Duration, log *slog.Logger) *editor {
	e := &editor{latest: make(chan View, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(e.done)
		var last time.Time
		for {
			var v View
			select {
			case v = <-e.latest:
			case <-e.quit:
				return
			}
			if wait := interval - time.Since(last); wait > 0 {
				t := time.NewTimer(wait)
				select {
				case <-t.C:
				case <-e.quit:
					t.Stop()
					return
				case <-ctx.Done():
					t.Stop()
					return
				}
			}
			// A newer view may have arrived while waiting.
			select {
			case v = <-e.latest:
			default:
			}
			if err := panics.Catch(log, "progress edit", func() error { return r.Update(ctx, v) }); err != nil {
				log.Warn("progress edit failed", "err", err)
			}
			last = time.Now()
		}
	}()
	return e
}

// show replaces the pending view with v without blocking.
func (e *editor) show(v View) {
	select {
	case <-e.latest: // drop the stale one
	default:
	}
	select {
	case e.latest <- v:
	default:
	}
}

// close stops the editor, dropping progress not yet shown, and waits for
// an edit in flight, so that a late progress edit never overwrites the
// final message and the final message is not held back by the throttle.
func (e *editor) close() {
	close(e.quit)
	<-e.done
}
