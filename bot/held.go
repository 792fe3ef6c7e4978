package bot

import (
	"context"
	"errors"
	"time"

	"github.com/switchboard/switchboard/internal/panics"
	"github.com/switchboard/switchboard/internal/retry"
	"github.com/switchboard/switchboard/questions"
)

// A question taken while the question store is down (PostgreSQL stopped,
// a network cut) is not refused: people asked it in a thread, and a
// private "please ask again" leaves the thread with nothing (issue 21).
// It is held here and stored as soon as the store is back, then answered
// as any stored question. When the store failed only for a moment, nothing
// shows until the answer, which comes as a message of its own.
// When it stays down, the placeholder goes out at the second failed try
// and says so; when it stays down for the answer timeout, the placeholder
// ends saying that too. A replica that dies meanwhile loses what it held,
// as it would have before acknowledging the delivery.
//
// A try that failed may have stored the question all the same (a timeout
// after the commit): Enqueue takes the same job again as stored, not as a
// duplicate. A duplicate is the platform's retry of the delivery, stored
// by another replica, which answers it.

// Bounds of holding a question: the waits between tries to store it grow
// from heldBackoff to heldMaxBackoff; Config.Timeout bounds them all.
const (
	heldBackoff    = time.Second
	heldMaxBackoff = 15 * time.Second
)

// hold stores a question the store could not take at once, in a goroutine
// the caller has counted in d.wg.
func (d *Dispatcher) hold(base context.Context, in Incoming, r Replier, job questions.Job, keys []string) {
	obs := observedReplier{Replier: r, obs: d.cfg.Observer, platform: in.Platform}
	view := View{AnswerID: job.ID, Question: in.Text, Progress: StoreWaitLine}
	go func() {
		defer d.wg.Done()
		log := d.log.With("question", job.ID)
		var posted, placed bool
		post := func(v View) {
			if posted {
				return
			}
			posted = true
			placed = panics.Catch(d.log, "placeholder", func() error {
				pctx, cancel := context.WithTimeout(base, 30*time.Second)
				defer cancel()
				return obs.Start(pctx, v)
			}) == nil
		}
		// Stopping or not, a question held here has nowhere else to go:
		// it is tried until the answer timeout, as an answer runs.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(base), d.cfg.Timeout)
		defer cancel()
		var err error
		tries := retry.Policy{Attempts: int(d.cfg.Timeout/heldBackoff) + 1, Backoff: heldBackoff,
			MaxBackoff: heldMaxBackoff, Budget: d.cfg.Timeout, Sleep: d.cfg.Sleep}
		_ = retry.Do(ctx, tries, func(attempt int) retry.Outcome {
			if addr, aerr := address(r); aerr == nil {
				job.Address = addr
			}
			sctx, scancel := context.WithTimeout(ctx, storeTimeout)
			defer scancel()
			_, err = d.cfg.Questions.Enqueue(sctx, job, keys, d.cfg.Queue)
			if err == nil || errors.Is(err, questions.ErrDuplicate) || errors.Is(err, questions.ErrFull) {
				return retry.Stop(nil)
			}
			log.Warn("the question store is down; holding the question", "attempt", attempt, "err", err)
			if attempt > 1 {
				post(view) // down for more than a moment: the thread is told
			}
			return retry.Again(err)
		})
		if err != nil {
			d.forget(job.ID, in.Platform) // not stored: no worker answers it
		}
		fctx, fcancel := context.WithTimeout(context.WithoutCancel(base), 30*time.Second)
		defer fcancel()
		v := view
		v.Done = true
		switch {
		case err == nil:
			// Stored, but perhaps long ago: a try that timed out may have
			// stored it, and another replica may have taken it since,
			// a lease after it was stored. A placeholder posted now could
			// be left behind, so none is: the answer comes as a message
			// of its own (Replier.Finish).
			log.Info("the question held is stored")
			if addr, aerr := address(r); aerr == nil {
				job.Address = addr
			}
			if perr := d.cfg.Questions.Placed(fctx, job.ID, job.Address, placed); perr != nil {
				log.Error("could not mark a question placed", "err", perr)
			}
			d.wake()
			return
		case errors.Is(err, questions.ErrDuplicate):
			// The platform delivered it again to a replica that stored
			// it: that one answers it.
			if !posted {
				return
			}
			v.Failed = AnsweredElsewhereMessage
		case errors.Is(err, questions.ErrFull):
			d.cfg.Observer.Refused(in.Platform, "busy")
			if !posted {
				d.local.forget(keys...)
				if perr := obs.Private(fctx, BusyMessage); perr != nil {
					log.Error("could not tell the asker", "err", perr)
				}
				return
			}
			v.Failed = BusyMessage
		default:
			log.Error("the question store stayed down; the question held is given up", "err", err)
			post(view)
			v.Failed = StoreDownMessage
		}
		d.local.forget(keys...) // a platform's retry is taken afresh
		if err := d.finish(fctx, obs, v, log); err != nil {
			log.Error("could not tell the asker", "err", err)
		}
	}()
}
