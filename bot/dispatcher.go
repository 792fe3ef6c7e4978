package bot

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/feedback"
	"github.com/switchboard/switchboard/internal/panics"
	"github.com/switchboard/switchboard/logs"
	"github.com/switchboard/switchboard/questions"
)

// Errors of Submit. Adapters tell the asker (ErrBusy, ErrStopping) or
// ignore the delivery (ErrDuplicate).
var (
	ErrBusy      = errors.New("bot: too many questions waiting")
	ErrStopping  = errors.New("bot: shutting down")
	ErrDuplicate = errors.New("bot: duplicate delivery")
)

// BusyMessage is what an asker is told when the queue is full.
const BusyMessage = "I'm answering a lot of questions right now and couldn't take yours. Please ask again in a minute."

// StoppingMessage is what an asker is told during a shutdown.
const StoppingMessage = "I'm restarting and couldn't take your question. Please ask again in a minute."

// questionCleaner is the agent's check and cleaning of a question, run
// before anything is posted (agent.Agent implements it).
type questionCleaner interface {
	CleanQuestion(text string) (string, error)
}

// QuestionError is Submit's error for a question that cannot be answered
// as asked (empty, too long); Message tells the asker why, privately.
type QuestionError struct{ Message string }

func (e *QuestionError) Error() string { return e.Message }

// Refusal is what an adapter tells the asker, privately, when Submit did
// not take the question, and false when the asker is told nothing (a
// duplicate delivery, already being answered).
func Refusal(err error) (string, bool) {
	var q *QuestionError
	var lim *LimitError
	switch {
	case err == nil, errors.Is(err, ErrDuplicate):
		return "", false
	case errors.As(err, &q):
		return q.Message, true
	case errors.Is(err, ErrBusy):
		return BusyMessage, true
	case errors.Is(err, ErrStopping):
		return StoppingMessage, true
	case errors.As(err, &lim):
		return lim.Error(), true // says when to ask again
	}
	return InternalMessage, true
}

// maxDetails bounds the private details one answer collects.
const maxDetails = 5

// Config configures a Dispatcher.
type Config struct {
	Agent    Asker
	Workers  int           // questions answered at once across threads (default 8)
	Queue    int           // questions waiting before askers are told to retry (default 100)
	Interval time.Duration // least time between two edits of one message (default 1s)
	Timeout  time.Duration // longest time one answer may take (default 3m)
	Feedback FeedbackStore // nil: votes are logged only
	Log      *slog.Logger
	// Limiter refuses askers and channels over their rate; nil: no limit.
	Limiter RateLimiter
	// Budget caps the model tokens of each workspace, and each person in
	// it, per day, held call by call; nil: no cap.
	Budget TokenBudget
	// Observer hears about refusals and chat errors (metrics); nil: no one.
	Observer Observer
	// Questions keeps the questions taken until they are answered
	// (durable.go): in the embedded file, so that a restart loses none,
	// or in PostgreSQL, shared by every replica; nil: this process's
	// memory (questions.Memory), and a crash loses the questions waiting
	// and running. Queue bounds the questions waiting in it, and it
	// de-duplicates the deliveries.
	Questions questions.Store
	// Shared says that other replicas claim from Questions too: a replica
	// that stops leaves the questions waiting to them instead of
	// answering them first.
	Shared bool
	// Owner names this replica in Questions (default: a random id); Lease
	// is how long its claim on a question lasts without renewal (30s), and
	// Poll how often idle workers look for questions other replicas took
	// (1s).
	Owner string
	Lease time.Duration
	Poll  time.Duration
	// Now is the clock (default time.Now); tests move it to freeze a
	// replica past its lease. Sleep waits between tries of the question
	// store while it is down (default: a timer); tests return at once.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// Dispatcher takes questions from the adapters and answers them: questions
// of different threads concurrently, up to Workers; questions of one thread
// in the order they came, so that a follow-up sees the answer before it.
type Dispatcher struct {
	cfg   Config
	log   *slog.Logger
	local *MemoryDeduper // deliveries this process took, asked first
	// volatile: the questions are in this process's memory alone, so a
	// question cut short by a stop is told so rather than given back.
	volatile bool

	mu       sync.Mutex
	base     context.Context // from Start: the parent of work not owned by a worker
	stopping bool
	wg       sync.WaitGroup
	stopOnce sync.Once
	stop     chan struct{}

	// How each platform's questions are shown (Resume); the repliers of
	// questions taken here whose platform has no Resumer, by answer id,
	// and how many of each platform are kept; a nudge for an idle worker.
	resumers map[string]Resumer
	repliers map[string]Replier
	kept     map[string]int
	wakeup   chan struct{}
	// taken holds the questions taken here not yet done with; drained
	// is closed once the dispatcher stops with none left.
	taken     map[string]bool
	drained   chan struct{}
	isDrained bool
}

// job is a claimed question being answered.
type job struct {
	in     Incoming
	r      Replier
	view   View // the placeholder
	placed bool // whether the placeholder was posted
	// claim is this replica's hold on the question; stop is the worker's
	// context, which ends when the replica stops past its grace.
	claim *claim
	stop  context.Context
}

// NewDispatcher returns a Dispatcher; Start runs its workers.
func NewDispatcher(cfg Config) *Dispatcher {
	if cfg.Workers <= 0 {
		cfg.Workers = 8
	}
	if cfg.Queue <= 0 {
		cfg.Queue = 100
	}
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 3 * time.Minute
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Observer == nil {
		cfg.Observer = nopObserver{}
	}
	if cfg.Owner == "" {
		cfg.Owner = newID()
	}
	if cfg.Lease <= 0 {
		cfg.Lease = defaultLease
	}
	if cfg.Poll <= 0 {
		cfg.Poll = defaultPoll
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Questions == nil {
		cfg.Questions = questions.NewMemory(cfg.Now)
	}
	_, inMemory := cfg.Questions.(*questions.Memory)
	return &Dispatcher{
		resumers: map[string]Resumer{},
		repliers: map[string]Replier{},
		kept:     map[string]int{},
		taken:    map[string]bool{},
		drained:  make(chan struct{}),
		wakeup:   make(chan struct{}, cfg.Workers),
		cfg:      cfg,
		log:      cfg.Log,
		local:    NewMemoryDeduper(10000),
		volatile: inMemory && !cfg.Shared,
		base:     context.Background(),
		stop:     make(chan struct{}),
	}
}

// Start runs the workers until Shutdown. ctx is the parent of every answer:
// cancelling it abandons in-flight answers (Shutdown is the gentle way).
func (d *Dispatcher) Start(ctx context.Context) {
	d.mu.Lock()
	d.base = ctx
	d.mu.Unlock()
	for i := 0; i < d.cfg.Workers; i++ {
		d.wg.Add(1)
		go d.work(ctx)
	}
}

// Submit queues a question without blocking. It returns ErrDuplicate for a
// delivery already seen, ErrBusy when the queue is full, ErrStopping
// during shutdown and a *LimitError when the asker or the channel asks too
// fast; the adapter then tells the asker (see BusyMessage; a LimitError's
// message says when to ask again).
func (d *Dispatcher) Submit(ctx context.Context, in Incoming, r Replier) error {
	// Refuse before de-duplicating, so that a delivery refused as busy is
	// still answered when the platform retries it.
	if err := d.admit(); err != nil {
		d.refused(in, err)
		return err
	}
	if err := d.dedupe(ctx, in); err != nil {
		return err
	}
	// A question the agent would refuse is refused now, privately, before
	// a placeholder says in the channel that it is being answered; one it
	// takes travels on cleaned.
	if c, ok := d.cfg.Agent.(questionCleaner); ok {
		cleaned, err := c.CleanQuestion(in.Text)
		if agent.ErrorCode(err) == agent.EINVALID {
			return &QuestionError{Message: agent.ErrorMessage(err)}
		}
		if err == nil {
			in.Cleaned = cleaned
		}
	}
	// Rate limits apply after de-duplication, so that a platform's
	// retries of one question count once.
	if err := d.limit(in); err != nil {
		d.refused(in, err)
		return err
	}
	return d.store(ctx, in, r)
}

// dedupe returns ErrDuplicate for a delivery this process took already.
// The question store is asked next, as the question is stored (a retry
// taken by another replica); this process's memory answers the replays to
// it even while the store is down.
func (d *Dispatcher) dedupe(ctx context.Context, in Incoming) error {
	for _, key := range dedupeKeys(in) {
		if first, _ := d.local.FirstSeen(ctx, key); !first {
			return ErrDuplicate
		}
	}
	return nil
}

// limit applies the rate limits of the asker and the channel, keyed so
// that ids of different workspaces and platforms never meet.
func (d *Dispatcher) limit(in Incoming) error {
	if d.cfg.Limiter == nil {
		return nil
	}
	space := in.Platform + ":" + in.Workspace + ":"
	if ok, which, wait := d.cfg.Limiter.Allow(space+in.User, space+in.Channel); !ok {
		return &LimitError{Limit: which, RetryAfter: wait}
	}
	return nil
}

// refused tells the Observer why a question was not taken.
func (d *Dispatcher) refused(in Incoming, err error) {
	var lim *LimitError
	switch {
	case errors.As(err, &lim):
		d.cfg.Observer.Refused(in.Platform, lim.Limit+"_rate")
	case errors.Is(err, ErrBusy):
		d.cfg.Observer.Refused(in.Platform, "busy")
	case errors.Is(err, ErrStopping):
		d.cfg.Observer.Refused(in.Platform, "stopping")
	}
}

func (d *Dispatcher) admit() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.admitLocked()
}

// admitLocked refuses questions once the dispatcher stops; the store
// refuses them past Queue (ErrBusy).
func (d *Dispatcher) admitLocked() error {
	if d.stopping {
		return ErrStopping
	}
	return nil
}

// dedupeKeys names a delivery twice: by the platform's event id (retries of
// one event) and by the asking message (one message delivered as two event
// types, such as Slack's app_mention and message).
func dedupeKeys(in Incoming) []string {
	var keys []string
	if in.EventID != "" {
		keys = append(keys, in.Platform+":event:"+in.EventID)
	}
	if in.MessageID != "" {
		keys = append(keys, in.Platform+":msg:"+in.Channel+":"+in.MessageID)
	}
	return keys
}

// Shutdown stops taking questions, lets the queued and in-flight ones
// finish, and returns when they have or when ctx ends.
func (d *Dispatcher) Shutdown(ctx context.Context) error {
	d.mu.Lock()
	d.stopping = true
	d.checkDrainedLocked()
	d.mu.Unlock()
	d.stopOnce.Do(func() { close(d.stop) })
	done := make(chan struct{})
	go func() { d.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("bot: shutdown: %w", ctx.Err())
	}
}

// Queued reports how many questions are waiting in the store (across the
// replicas, when it is shared), or -1 when the store cannot say within
// storeTimeout.
func (d *Dispatcher) Queued() int {
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	n, err := d.cfg.Questions.Waiting(ctx)
	if err != nil {
		d.log.Warn("could not count the questions waiting", "err", err)
		return -1
	}
	return n
}

// answer runs one question and keeps its message up to date. It reports
// whether the question is done with: false when it is to be given back
// (the run was cut short by a stop, or its final view could not be
// shown) or was lost to another replica, which answers it.
func (d *Dispatcher) answer(ctx context.Context, j job) (done bool) {
	ctx, cancel := context.WithTimeout(ctx, d.cfg.Timeout)
	defer cancel()
	log := d.log.With("thread", j.in.ThreadKey(), "platform", j.in.Platform)
	v := j.view
	v.Progress = ThinkingLine
	// The answer's id names the run in every log line written for it,
	// here and, through ctx, in the agent's stores.
	log = log.With("run", v.AnswerID)
	ctx = logs.With(ctx, "thread", j.in.ThreadKey(), "run", v.AnswerID)
	q := agent.Question{
		ThreadID: j.in.ThreadKey(),
		Text:     j.in.Text,
		Scope:    agent.Scope{Workspace: j.in.Workspace, Channel: cmp.Or(j.in.Viewing, j.in.Channel), Prefer: j.in.Viewing, Sources: j.in.Sources},
		MaxIdle:  j.in.MaxIdle,
		Asked:    j.in.Sent,
		Hold:     j.claim.hold,
		// Tokens are counted as each call spends them, whoever
		// finishes the question.
		Allowance: d.allowance(j.in),
	}
	if j.in.Cleaned != "" {
		q.Text, q.Cleaned = j.in.Cleaned, true
	}
	started := time.Now()
	// A placeholder that could not be posted does not drop the question:
	// it is answered without progress edits, and Finish posts the answer
	// as a new message (Replier.Finish's contract).
	placed := j.placed
	if !placed {
		log.Error("the placeholder was not posted; answering without progress")
	}
	if ctx.Err() != nil {
		if d.handedBack(j) {
			return false
		}
		// Abandoned before it ran (shutdown past its grace period): the
		// placeholder must not be left waiting for ever.
		fctx, fcancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer fcancel()
		v.Done, v.Failed = true, StoppingMessage
		if err := d.finish(fctx, j.r, v, log); err != nil {
			log.Error("could not finish an abandoned question", "err", err)
		}
		return true
	}
	var ed *editor
	if placed {
		ed = newEditor(ctx, j.r, d.cfg.Interval, log)
	}
	// Details of what went wrong on the way (a server's error, a setting
	// to set) are for the asker alone: collected here, sent privately
	// after the answer, never shown in the thread.
	var details []string
	emit := func(e agent.Event) {
		if e.Detail != "" && !slices.Contains(details, e.Detail) && len(details) < maxDetails {
			details = append(details, e.Detail)
			log.Warn("run detail for the asker", "event", e.Kind, "detail", e.Detail)
		}
		if ed == nil {
			return
		}
		changed := false
		if line, ok := Progress(e); ok && line != v.Progress {
			v.Progress, changed = line, true
		}
		if draft := Draft(e, v.Draft); draft != v.Draft {
			v.Draft, changed = draft, true
		}
		if changed {
			ed.show(v)
		}
	}
	var res agent.Result
	err := panics.Catch(log, "answer", func() (err error) {
		res, err = d.cfg.Agent.Ask(ctx, q, emit)
		return err
	})
	if ed != nil {
		ed.close()
	}
	if err != nil && ctx.Err() != nil && d.handedBack(j) {
		return false // answered again, here after a restart or by another replica
	}
	if err == nil {
		log.Info("answered", "route", res.Route, "confidence", res.Confidence, "offline", res.Offline,
			"rewrites", res.Rewrites, "regenerations", res.Regenerations, "llm_calls", res.LLMCalls,
			"tokens", res.Tokens, "duration", time.Since(started).Round(time.Millisecond))
	}
	// The asker must hear the outcome even if the run's own time ran out.
	fctx, fcancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer fcancel()
	v.Done, v.Draft = true, ""
	if err != nil {
		log.Error("answer failed", "err", err)
		v.Failed = FailedMessage
		if ctx.Err() != nil && agent.ErrorCode(err) != agent.EINVALID {
			v.Failed = TimeoutMessage
		}
		details = append([]string{agent.ErrorMessage(err)}, details...)
	} else {
		f := Present(v.Question, res)
		v.Final = &f
	}
	if len(details) > 0 {
		if perr := j.r.Private(fctx, strings.Join(details, "\n")); perr != nil {
			log.Error("could not tell the asker", "err", perr)
		}
	}
	if v.Final != nil && d.cfg.Feedback != nil {
		// Kept before it is shown: its buttons (👍, Share, Ask an expert)
		// read it back, and a person may press one the moment it appears.
		kept := res
		kept.Trace = nil // what Present reads is kept, not each step of the run
		a := feedback.Answer{ID: v.AnswerID, Thread: j.in.ThreadKey(), User: j.in.User, Question: j.in.Text,
			Answer: res.Answer, Route: res.Route, Sources: res.Sources, At: time.Now(), Result: &kept}
		if err := d.cfg.Feedback.SaveAnswer(fctx, a); err != nil {
			log.Error("could not save the answer for feedback", "err", err)
		}
	}
	if err := d.finish(fctx, j.r, v, log); err != nil {
		log.Error("could not post the answer; it is given back to be answered again", "err", err)
		return false
	}
	return true
}

// handedBack reports whether a run cut short leaves its question to be
// answered again rather than told it is over: when the claim was lost to
// another replica, or when the replica is stopping and the store outlives
// it (a restart or another replica answers it). In memory alone, the
// asker is told instead.
func (d *Dispatcher) handedBack(j job) bool {
	switch {
	case j.claim.lost.Load():
		j.claim.log.Warn("another replica took the question over; leaving it to it")
		return true
	case j.stop.Err() != nil && !d.volatile:
		return true
	}
	return false
}

// finish shows the final view. If showing it panics (a rendering bug on
// an odd answer), the asker is shown the plain failure instead, so that the
// question still gets its one final message.
func (d *Dispatcher) finish(ctx context.Context, r Replier, v View, log *slog.Logger) error {
	err := panics.Catch(log, "finish", func() error { return r.Finish(ctx, v) })
	var pe *panics.Error
	if !errors.As(err, &pe) {
		return err
	}
	v.Final, v.Failed = nil, FailedMessage
	return panics.Catch(log, "finish", func() error { return r.Finish(ctx, v) })
}

// Vote records a 👍 (+1) or 👎 (-1) from a feedback button.
func (d *Dispatcher) Vote(ctx context.Context, answerID, user string, vote int) error {
	if vote != 1 && vote != -1 {
		return fmt.Errorf("bot: vote %d is not +1 or -1", vote)
	}
	d.log.Info("feedback", "answer", answerID, "vote", vote)
	if d.cfg.Feedback == nil {
		return nil
	}
	return d.cfg.Feedback.SaveVote(ctx, answerID, user, vote)
}

// now is the dispatcher's clock.
func (d *Dispatcher) now() time.Time { return d.cfg.Now() }

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
