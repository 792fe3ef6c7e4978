package slack

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/switchboard/switchboard/internal/slackapi"
)

// outbox keeps the answers Slack did not take in time (its API down, or
// rate limits past the retries) and tries them again with a growing wait
// until they are shown, Config.Redeliver has passed or Close. It holds at
// most Config.Outbox answers; answers of one thread go out in the order
// they came. One goroutine does the work, started when the first answer
// waits and ended when none does, or by close.
type outbox struct {
	a      *Adapter
	ctx    context.Context // ends with close: attempts stop
	cancel context.CancelFunc

	mu      sync.Mutex
	items   []*waiting // oldest first
	running bool       // the goroutine is on
	closed  bool       // no more answers are taken
	poke    func()     // cuts the goroutine's wait short, when it waits
	wg      sync.WaitGroup
}

// waiting is an answer in the outbox.
type waiting struct {
	r        *replier
	deadline time.Time // given up after
	next     time.Time // the next attempt
	tries    int
}

// Bounds of redelivery besides Config.Redeliver: the waits between
// attempts, how many attempts, and how long one may take.
const (
	outboxFirstWait = 2 * time.Second
	outboxMaxWait   = time.Minute
	outboxMaxTries  = 100
	outboxAttempt   = time.Minute
)

func newOutbox(a *Adapter) *outbox {
	ctx, cancel := context.WithCancel(context.Background())
	return &outbox{a: a, ctx: ctx, cancel: cancel}
}

// add queues r's final view; false if the outbox is full or closed.
func (o *outbox) add(r *replier) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, w := range o.items {
		if w.r == r {
			return true
		}
	}
	if o.closed || len(o.items) >= o.a.cfg.Outbox {
		o.a.log.Error("the outbox is full or closed; an answer is lost", "channel", r.channel, "thread", r.thread,
			"waiting", len(o.items), "closed", o.closed)
		return false
	}
	now := o.a.cfg.Now()
	o.items = append(o.items, &waiting{r: r, deadline: now.Add(o.a.cfg.Redeliver), next: now.Add(outboxWait(0))})
	if !o.running {
		o.running = true
		o.wg.Add(1)
		go o.run()
	} else if o.poke != nil {
		o.poke()
	}
	return true
}

// run attempts the answers as they fall due, until none is left or the
// outbox closes.
func (o *outbox) run() {
	defer o.wg.Done()
	for {
		o.mu.Lock()
		if len(o.items) == 0 || o.ctx.Err() != nil {
			o.running = false
			o.mu.Unlock()
			return
		}
		heads := o.heads()
		due := heads[0].next
		for _, w := range heads[1:] {
			if w.next.Before(due) {
				due = w.next
			}
		}
		wait := due.Sub(o.a.cfg.Now())
		if wait <= 0 {
			o.mu.Unlock()
			o.attempt()
			continue
		}
		ctx, cancel := context.WithCancel(o.ctx)
		o.poke = cancel
		o.mu.Unlock()
		_ = o.a.cfg.Sleep(ctx, wait) // ends early when poked or closed
		o.mu.Lock()
		o.poke = nil
		o.mu.Unlock()
		cancel()
	}
}

// heads returns the oldest answer of every thread: the others wait for
// it. Callers hold o.mu.
func (o *outbox) heads() []*waiting {
	var heads []*waiting
	seen := map[string]bool{}
	for _, w := range o.items {
		thread := w.r.channel + "/" + w.r.thread
		if !seen[thread] {
			seen[thread] = true
			heads = append(heads, w)
		}
	}
	return heads
}

// attempt tries every answer that is due and not behind an earlier answer
// of its thread.
func (o *outbox) attempt() {
	o.mu.Lock()
	now := o.a.cfg.Now()
	var due []*waiting
	for _, w := range o.heads() {
		if !w.next.After(now) {
			due = append(due, w)
		}
	}
	o.mu.Unlock()
	for _, w := range due {
		ctx, cancel := context.WithTimeout(o.ctx, outboxAttempt)
		err := w.r.redeliver(ctx)
		cancel()
		if o.ctx.Err() != nil {
			return // closed: the answer stays, for close to count
		}
		o.mu.Lock()
		w.tries++
		now := o.a.cfg.Now()
		log := o.a.log.With("channel", w.r.channel, "thread", w.r.thread, "attempts", w.tries)
		switch {
		case err == nil:
			o.remove(w)
			log.Info("delivered an answer Slack had not taken")
		case !slackapi.Temporary(err):
			o.remove(w)
			log.Error("gave up an answer: Slack refused it", "err", err)
		case !now.Before(w.deadline) || w.tries >= outboxMaxTries:
			o.remove(w)
			log.Error("gave up an answer Slack would not take", "err", err)
		default:
			w.next = now.Add(outboxWait(w.tries))
			log.Warn("Slack still does not take an answer; trying again later", "at", w.next, "err", err)
		}
		o.mu.Unlock()
	}
}

// remove takes w out of the queue. Callers hold o.mu.
func (o *outbox) remove(w *waiting) {
	for i, x := range o.items {
		if x == w {
			o.items = append(o.items[:i], o.items[i+1:]...)
			return
		}
	}
}

// close refuses new answers, tries those waiting once more, without
// waiting, and again as they fall due, until none is left or ctx ends;
// then it stops the goroutine and reports the answers not delivered.
func (o *outbox) close(ctx context.Context) error {
	o.mu.Lock()
	o.closed = true
	now := o.a.cfg.Now()
	for _, w := range o.items {
		w.next = now
	}
	if o.poke != nil {
		o.poke()
	}
	o.mu.Unlock()
	done := make(chan struct{})
	go func() { o.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		o.cancel()
		<-done
	}
	o.cancel()
	o.mu.Lock()
	n := len(o.items)
	o.items = nil
	o.mu.Unlock()
	if n > 0 {
		return fmt.Errorf("slack: %d answer(s) that Slack did not take were not delivered", n)
	}
	return nil
}

// outboxWait is the wait after tries failed attempts: doubling from
// outboxFirstWait up to outboxMaxWait, at least half of it, the rest at
// random.
func outboxWait(tries int) time.Duration {
	d := outboxFirstWait
	for i := 0; i < tries && d < outboxMaxWait; i++ {
		d *= 2
	}
	d = min(d, outboxMaxWait)
	return d/2 + rand.N(d/2+1)
}
