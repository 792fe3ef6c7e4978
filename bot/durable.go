package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard/switchboard/internal/panics"
	"github.com/switchboard/switchboard/internal/retry"
	"github.com/switchboard/switchboard/questions"
)

// A question is stored when it is taken and answered by whichever worker
// claims it from the store (questions.Store): of this replica or, when
// the store is shared, of any other, one question of a thread at a time.
// There is one engine whatever keeps the questions: memory, the embedded
// file, PostgreSQL. A replica that dies while answering leaves its
// questions to the others, or to itself after a restart, once their
// leases run out; one that is stopped gives back what it could not
// finish. The placeholder is posted by the replica that took the
// question; the worker that answers shows the view where the placeholder
// is, by the address the adapter gave (Addressed), through the platform's
// Resumer, or with the Replier the question came with when its platform
// has no Resumer (the console, tests).

// Addressed is a Replier that can say where its view is shown, so that
// another replica, or this one after a restart, can go on showing it
// (Resumer). The bytes are the adapter's own.
type Addressed interface {
	Address() ([]byte, error)
}

// Resumer rebuilds a platform's Replier of the answer id from its Address.
type Resumer func(id string, address []byte) (Replier, error)

// shownChecker is a resumed Replier that can tell whether the answer is
// shown already: the replica that claimed the question before finished it
// and died before it could record so. Such a question is not answered a
// second time. Slack's replier can (its posts carry markers); Discord's
// cannot, so a Discord question taken over in that moment is answered
// again, in the same response.
type shownChecker interface {
	Shown(ctx context.Context) (bool, error)
}

// Stored questions' defaults and bounds.
const (
	defaultLease = 30 * time.Second // how long a claim lasts without renewal
	defaultPoll  = time.Second      // how often idle workers look for questions other replicas took
	maxAttempts  = 3                // claims of one question before it is given up
	storeTimeout = 5 * time.Second  // one call to the question store
	// finishAttempts bounds the tries to record an answered question,
	// within one storeTimeout.
	finishAttempts = 3
)

// Resume registers how questions of platform taken by any replica are
// shown; a replica claims only questions of the platforms it can resume.
// Adapters register when they connect, before Start.
func (d *Dispatcher) Resume(platform string, r Resumer) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.resumers[platform] = r
}

// platforms names the platforms whose questions this replica can show:
// those it can resume, and those of the questions it keeps the Replier of.
func (d *Dispatcher) platforms() (names []string, resumers map[string]Resumer) {
	d.mu.Lock()
	defer d.mu.Unlock()
	resumers = make(map[string]Resumer, len(d.resumers))
	for p, r := range d.resumers {
		names = append(names, p)
		resumers[p] = r
	}
	for p := range d.kept {
		if resumers[p] == nil {
			names = append(names, p)
		}
	}
	return names, resumers
}

// keep keeps r, the Replier of question id, for the worker that answers
// it, when its platform has no Resumer.
func (d *Dispatcher) keep(id, platform string, r Replier) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.resumers[platform] == nil {
		d.repliers[id] = r
		d.kept[platform]++
	}
}

// kept returns the Replier kept for question id, if any.
func (d *Dispatcher) keptReplier(id string) (Replier, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	r, ok := d.repliers[id]
	return r, ok
}

// forget drops question id, done with, from those taken here and the
// Replier kept for it.
func (d *Dispatcher) forget(id, platform string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.taken, id)
	d.checkDrainedLocked()
	if _, ok := d.repliers[id]; !ok {
		return
	}
	delete(d.repliers, id)
	if d.kept[platform]--; d.kept[platform] <= 0 {
		delete(d.kept, platform)
	}
}

// store stores a question Submit took, then posts its placeholder and
// marks it placed, so that a replica may claim it. A question the store
// cannot take is refused (the asker is asked to ask again), never dropped.
func (d *Dispatcher) store(ctx context.Context, in Incoming, r Replier) error {
	// The placeholder's goroutine and the question are counted now,
	// under the check that the dispatcher is not stopping, so that
	// Shutdown waits for them.
	id := newID()
	d.mu.Lock()
	if err := d.admitLocked(); err != nil {
		d.mu.Unlock()
		d.refused(in, err)
		return err
	}
	base := d.base
	d.wg.Add(1)
	d.taken[id] = true
	d.mu.Unlock()
	posting := false
	defer func() {
		if !posting {
			d.forget(id, in.Platform) // not taken
			d.wg.Done()
		}
	}()
	question, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("bot: store the question: %w", err)
	}
	addr, err := address(r)
	if err != nil {
		return fmt.Errorf("bot: store the question: %w", err)
	}
	d.keep(id, in.Platform, r)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	keys := dedupeKeys(in)
	storing := d.now() // the question is stored after, on any clock: its grace runs from no earlier
	ahead, err := d.cfg.Questions.Enqueue(sctx, questions.Job{ID: id, Thread: in.ThreadKey(), Platform: in.Platform,
		Question: question, Address: addr, Asked: in.Sent}, keys, d.cfg.Queue)
	cancel()
	switch {
	case errors.Is(err, questions.ErrDuplicate):
		return ErrDuplicate // taken by another replica
	case errors.Is(err, questions.ErrFull):
		d.local.forget(keys...) // a platform's retry is taken afresh
		d.refused(in, ErrBusy)
		return ErrBusy
	case err != nil && ctx.Err() != nil:
		// The platform gave up on the delivery before it was
		// acknowledged: it delivers it again, here or elsewhere.
		d.local.forget(keys...)
		d.log.Warn("could not store a question the platform gave up on; left to its redelivery", "question", id, "err", err)
		return fmt.Errorf("bot: store the question: %w", err)
	case err != nil:
		d.log.Error("could not store a question; keeping it here until the store is back", "question", id, "err", err)
		posting = true
		d.hold(base, in, r, questions.Job{ID: id, Thread: in.ThreadKey(), Platform: in.Platform,
			Question: question, Asked: in.Sent}, keys)
		return nil
	}
	view := View{AnswerID: id, Question: in.Text, Progress: ThinkingLine}
	if ahead > 0 {
		view.Progress = fmt.Sprintf("Waiting in line: %d question%s ahead of yours…", ahead, plural(ahead))
	}
	obs := observedReplier{Replier: r, obs: d.cfg.Observer, platform: in.Platform}
	posting = true
	go func() {
		defer d.wg.Done()
		// The placeholder is posted within half the grace after which
		// another replica takes the question over as this one's loss,
		// as a claim keeps half its lease for an edit (claim.hold). This
		// replica may be frozen (SIGSTOP, a paused VM) or held up anywhere
		// between storing the question and posting it; the other
		// replica answers with a message of its own, and a placeholder
		// posted after that would be left waiting for ever. Too late,
		// none is posted; the answer comes as a message of its own.
		due := d.cfg.Lease/2 - d.now().Sub(storing)
		pctx, cancel := context.WithTimeout(base, min(due, placeholderTimeout))
		defer cancel()
		err := errPlaceholderLate
		if due > 0 {
			err = panics.Catch(d.log, "placeholder", func() error { return obs.Start(pctx, view) })
		}
		switch {
		case errors.Is(err, errPlaceholderLate):
			d.log.Warn("the question was stored too long ago to post its placeholder; the answer will be posted as a new message", "question", id)
		case err != nil:
			d.log.Error("could not post the placeholder; the answer will be posted as a new message", "question", id, "err", err)
		}
		if a, aerr := address(r); aerr == nil {
			addr = a
		}
		sctx, scancel := context.WithTimeout(context.WithoutCancel(pctx), storeTimeout)
		defer scancel()
		if perr := d.cfg.Questions.Placed(sctx, id, addr, err == nil); perr != nil {
			// It is claimed after a grace all the same.
			d.log.Error("could not mark a question placed", "question", id, "err", perr)
		}
		d.wake()
	}()
	return nil
}

// errPlaceholderLate: the placeholder of a question was not posted, too
// long after the question was stored.
var errPlaceholderLate = errors.New("bot: the placeholder is too late to post")

// placeholderTimeout bounds the post of a placeholder.
const placeholderTimeout = 30 * time.Second

// address is where r shows its view, for a Resumer; none when r cannot
// say (its platform has no Resumer).
func address(r Replier) ([]byte, error) {
	if ad, ok := r.(Addressed); ok {
		return ad.Address()
	}
	return nil, nil
}

// wake tells an idle worker that a question may be waiting.
func (d *Dispatcher) wake() {
	select {
	case d.wakeup <- struct{}{}:
	default:
	}
}

// work answers stored questions, one at a time, until the dispatcher
// stops: it claims one, answers it, and when there is none waits for a
// question taken here or for the next look (Config.Poll). Stopping, a
// worker of a shared store leaves the questions waiting to the other
// replicas; of one that is not, it answers them first, as long as the
// grace period lasts (ctx); in memory alone, it tells the askers of those
// left when it ends.
func (d *Dispatcher) work(ctx context.Context) {
	defer d.wg.Done()
	poll := time.NewTicker(d.cfg.Poll)
	defer poll.Stop()
	stop, done := d.stop, ctx.Done() // set to nil once seen, not to wake on them again
	for {
		stopping := stop == nil || isClosed(d.stop)
		if (stopping && d.cfg.Shared) || (ctx.Err() != nil && !d.volatile) {
			return
		}
		names, resumers := d.platforms()
		// Each claim is its own owner: a worker whose claim ran out
		// cannot renew or finish the claim another worker of this
		// replica took after it.
		owner := d.cfg.Owner + "/" + newID()
		var (
			j   questions.Job
			ok  bool
			err error
		)
		if len(names) > 0 {
			// Not cancelled with ctx: a claim the database made while the
			// client gave up on it would hold the question for a lease,
			// unanswered. One taken as the replica stops is given back
			// (below). A claim made as its storeTimeout ran out still
			// holds it for a lease, and counts as an attempt.
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
			j, ok, err = d.cfg.Questions.Claim(cctx, owner, names, d.cfg.Lease)
			cancel()
		}
		if err != nil {
			d.log.Warn("could not claim a question", "err", err)
		}
		if ok && ctx.Err() != nil && !d.volatile {
			// Claimed as the replica stops: given back untouched.
			d.release(ctx, j.ID, owner, d.log.With("question", j.ID))
			return
		}
		if ok {
			_ = panics.Catch(d.log, "answer", func() error { d.answerStored(ctx, j, owner, resumers[j.Platform]); return nil })
			continue
		}
		if stopping && d.idle() {
			return
		}
		if stopping {
			stop = nil
		}
		if ctx.Err() != nil {
			done = nil
		}
		select {
		case <-d.wakeup:
		case <-poll.C:
		case <-stop:
		case <-done:
		case <-d.drained:
		}
	}
}

// idle reports whether every question taken here is done with: a
// stopping worker of a store that is not shared answers those first.
// Questions stored by a process before this one (a restart) are answered
// if they can be, not waited for.
func (d *Dispatcher) idle() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.taken) == 0
}

// checkDrainedLocked closes drained, for every waiting worker to see,
// once the dispatcher stops with no question taken here left.
func (d *Dispatcher) checkDrainedLocked() {
	if d.stopping && len(d.taken) == 0 && !d.isDrained {
		d.isDrained = true
		close(d.drained)
	}
}

// isClosed reports whether c is closed.
func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// answerStored answers a claimed question where its placeholder is,
// renewing the claim while it runs. A question it loses (the claim ran out
// and another replica took it) it leaves without a word; one it cannot
// finish because the replica is stopping, or whose answer it could not
// show, it gives back.
func (d *Dispatcher) answerStored(ctx context.Context, qj questions.Job, owner string, resume Resumer) {
	log := d.log.With("question", qj.ID, "attempt", qj.Attempts)
	var in Incoming
	if err := json.Unmarshal(qj.Question, &in); err != nil {
		log.Error("a stored question cannot be read; given up", "err", err)
		d.finished(ctx, qj, owner, log)
		return
	}
	r, kept := d.keptReplier(qj.ID)
	var err error
	switch {
	case kept:
	case resume != nil:
		r, err = resume(qj.ID, qj.Address)
	default:
		err = fmt.Errorf("no adapter for %s", qj.Platform)
	}
	if err != nil {
		log.Error("a stored question cannot be shown; given up", "err", err)
		d.finished(ctx, qj, owner, log)
		return
	}
	// The claim is renewed from here on, the look for an answer shown
	// already included, and checked before every edit.
	jctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := &claim{d: d, id: qj.ID, owner: owner, log: log, cancel: cancel, renewed: d.now()}
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		d.renew(jctx, c)
	}()
	defer func() { cancel(); <-renewed }()
	j := job{in: in, r: observedReplier{Replier: claimedReplier{Replier: r, c: c}, obs: d.cfg.Observer, platform: in.Platform},
		view: View{AnswerID: qj.ID, Question: in.Text, Progress: ThinkingLine}, placed: qj.Placed, claim: c, stop: ctx}

	if sc, ok := r.(shownChecker); ok && qj.Attempts > 1 {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		shown, err := sc.Shown(cctx)
		cancel()
		if err != nil {
			log.Warn("could not tell whether a question taken over was answered; answering it", "err", err)
		}
		if shown {
			log.Info("a question taken over was answered already")
			d.finished(ctx, qj, owner, log)
			return
		}
	}
	if qj.Attempts > maxAttempts {
		// Each claim before this one ended with its replica gone: the
		// question itself may be what brings them down.
		log.Error("a question was claimed too often; given up")
		v := j.view
		v.Done, v.Failed = true, FailedMessage
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := d.finish(fctx, j.r, v, log); err != nil {
			log.Error("could not tell the asker", "err", err)
		}
		d.finished(ctx, qj, owner, log)
		return
	}

	done := d.answer(jctx, j)
	cancel()
	<-renewed
	switch {
	case c.lost.Load():
		// Another replica answers it.
	case done:
		d.finished(ctx, qj, owner, log)
	default:
		d.release(ctx, qj.ID, owner, log)
	}
}

// finished records that the question qj is done with. Recording it is
// tried again through a blink of the store: one left unrecorded is
// claimed again once its lease runs out.
func (d *Dispatcher) finished(ctx context.Context, qj questions.Job, owner string, log *slog.Logger) {
	d.forget(qj.ID, qj.Platform)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	err := retry.Do(sctx, retry.Policy{Attempts: finishAttempts, Sleep: d.cfg.Sleep}, func(int) retry.Outcome {
		if err := d.cfg.Questions.Finish(sctx, qj.ID, owner); err != nil {
			return retry.Again(err)
		}
		return retry.Stop(nil)
	})
	if err != nil {
		log.Error("question store: finish", "err", err)
	}
	d.wake() // the thread's next question may be claimed
}

// errClaimLost refuses an edit by a replica that no longer holds the
// question: another replica answers it, and may have already.
var errClaimLost = errors.New("bot: the claim on the question was lost to another replica")

// claim is a replica's hold on a stored question while it answers it.
type claim struct {
	d         *Dispatcher
	id, owner string
	log       *slog.Logger
	cancel    context.CancelFunc // ends the run, once the claim is lost
	lost      atomic.Bool

	mu      sync.Mutex
	renewed time.Time // when the last renewal that kept the claim was sent
}

// kept records a renewal sent at sent that kept the claim.
func (c *claim) kept(sent time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sent.After(c.renewed) {
		c.renewed = sent
	}
}

// lose gives the claim up: the run ends and shows nothing more.
func (c *claim) lose() {
	c.lost.Store(true)
	c.cancel()
}

// hold checks, before an edit, that the claim is still this replica's.
// Within half a lease of a renewal that kept it, it is: the lease runs
// from when the store took the renewal, after it was sent. Past that the
// replica may have been frozen (SIGSTOP, a pause of the VM) while another
// replica took the question over and answered it, so the store is asked,
// which renews the claim too. A store that cannot say lets the edit go:
// while it is down no other replica can take the question either, and an
// answer must not go unshown for an outage (a Slack replica that takes
// the question over later finds it shown; see shownChecker).
func (c *claim) hold(ctx context.Context) error {
	if c.lost.Load() {
		return errClaimLost
	}
	c.mu.Lock()
	fresh := c.d.now().Sub(c.renewed) < c.d.cfg.Lease/2
	c.mu.Unlock()
	if fresh {
		return nil
	}
	sent := c.d.now()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	kept, err := c.d.cfg.Questions.Extend(sctx, c.id, c.owner, c.d.cfg.Lease)
	switch {
	case err != nil:
		c.log.Warn("could not check the claim on a question before showing it; showing it", "err", err)
	case !kept:
		c.log.Warn("another replica took the question over; not touching its message")
		c.lose()
		return errClaimLost
	default:
		c.kept(sent)
	}
	return nil
}

// claimedReplier shows a stored question only while its claim holds.
type claimedReplier struct {
	Replier
	c *claim
}

func (r claimedReplier) Update(ctx context.Context, v View) error {
	if err := r.c.hold(ctx); err != nil {
		return err
	}
	return r.Replier.Update(ctx, v)
}

func (r claimedReplier) Finish(ctx context.Context, v View) error {
	if err := r.c.hold(ctx); err != nil {
		return err
	}
	return r.Replier.Finish(ctx, v)
}

func (r claimedReplier) Private(ctx context.Context, text string) error {
	if err := r.c.hold(ctx); err != nil {
		return err
	}
	return r.Replier.Private(ctx, text)
}

// release gives question id back to be claimed at once: this replica is
// stopping, or could not show the answer.
func (d *Dispatcher) release(ctx context.Context, id, owner string, log *slog.Logger) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	defer d.wake()
	if err := d.cfg.Questions.Release(sctx, id, owner); err != nil {
		log.Error("question store: release", "err", err)
		return
	}
	log.Info("the question is given back to be answered again")
}

// renew extends c every third of the lease until ctx ends. When the
// claim is found lost, or could not be renewed for a whole lease (another
// replica may have claimed it since), it loses it and returns.
func (d *Dispatcher) renew(ctx context.Context, c *claim) {
	t := time.NewTicker(d.cfg.Lease / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		sent := d.now()
		sctx, cancel := context.WithTimeout(ctx, storeTimeout)
		kept, err := d.cfg.Questions.Extend(sctx, c.id, c.owner, d.cfg.Lease)
		cancel()
		c.mu.Lock()
		since := d.now().Sub(c.renewed)
		c.mu.Unlock()
		switch {
		case err == nil && kept:
			c.kept(sent)
		case err == nil:
			c.lose()
			return
		case ctx.Err() != nil:
			return
		case since >= d.cfg.Lease:
			c.log.Error("could not renew the claim on a question for a whole lease; leaving it", "err", err)
			c.lose()
			return
		default:
			c.log.Warn("could not renew the claim on a question; trying again", "err", err)
		}
	}
}
