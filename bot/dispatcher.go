package bot

import (
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

// questionChecker is the agent's check of a question, run before anything
// is posted (agent.Agent implements it).
type questionChecker interface {
	CheckQuestion(text string) error
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
	// Dedupe is shared de-duplication across replicas (PostgreSQL); nil:
	// this process's memory only, which is always asked first.
	Dedupe   Deduper
	Feedback FeedbackStore // nil: votes are logged only
	Log      *slog.Logger
	// Limiter refuses askers and channels over their rate; nil: no limit.
	Limiter RateLimiter
	// Budget caps the model tokens of each workspace, and each person in
	// it, per day, held call by call; nil: no cap.
	Budget TokenBudget
	// Observer hears about refusals and chat errors (metrics); nil: no one.
	Observer Observer
	// Questions, when set, keeps the questions taken until they are
	// answered, shared by every replica (durable.go); nil: this process's
	// memory only, and a crash loses the questions waiting and running.
	// Queue then bounds the questions waiting across replicas.
	Questions questions.Store
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

	mu       sync.Mutex
	base     context.Context  // from Start: the parent of work not owned by a worker
	pending  map[string][]job // per thread key, waiting jobs; present while the thread is queued or running
	queued   int              // jobs waiting in pending
	stopping bool
	ready    chan string // thread keys with work, each at most once
	wg       sync.WaitGroup
	stopOnce sync.Once
	stop     chan struct{}

	// With Config.Questions: how each platform's questions are shown
	// (Resume), and a nudge for an idle worker.
	resumers map[string]Resumer
	wakeup   chan struct{}
}

type job struct {
	in     Incoming
	r      Replier
	view   View       // the placeholder, posted when the question is queued
	posted chan error // receives the placeholder's result, then is closed
	// handBack, when set, is asked before a run cut short is finished: it
	// reports true when the question was handed to another replica, which
	// finishes it (durable.go). unshown, when set, hears that the final
	// view could not be shown.
	handBack func() bool
	unshown  func()
	// hold, when set, says whether the question is still this replica's
	// to answer (agent.Question.Hold).
	hold func(context.Context) error
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
	return &Dispatcher{
		resumers: map[string]Resumer{},
		wakeup:   make(chan struct{}, cfg.Workers),
		cfg:      cfg,
		log:      cfg.Log,
		local:    NewMemoryDeduper(10000),
		base:     context.Background(),
		pending:  map[string][]job{},
		ready:    make(chan string, cfg.Queue+cfg.Workers),
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
		if d.cfg.Questions != nil {
			go d.claim(ctx)
		} else {
			go d.work(ctx)
		}
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
	// a placeholder says in the channel that it is being answered.
	if c, ok := d.cfg.Agent.(questionChecker); ok {
		if err := c.CheckQuestion(in.Text); agent.ErrorCode(err) == agent.EINVALID {
			return &QuestionError{Message: agent.ErrorMessage(err)}
		}
	}
	// Rate limits apply after de-duplication, so that a platform's
	// retries of one question count once.
	if err := d.limit(in); err != nil {
		d.refused(in, err)
		return err
	}
	if d.cfg.Questions != nil {
		return d.store(ctx, in, r)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.admitLocked(); err != nil {
		d.refused(in, err)
		return err
	}
	j := job{
		in:     in,
		r:      observedReplier{Replier: r, obs: d.cfg.Observer, platform: in.Platform},
		view:   View{AnswerID: newID(), Question: in.Text, Progress: ThinkingLine},
		posted: make(chan error, 1),
	}
	// Waiting jobs exist only while every worker is busy (or their thread
	// is), so they are exactly the questions ahead of this one.
	if ahead := d.queued; ahead > 0 {
		j.view.Progress = fmt.Sprintf("Waiting in line: %d question%s ahead of yours…", ahead, plural(ahead))
	}
	key := in.ThreadKey()
	waiting, active := d.pending[key]
	// In the order asked: a delivery that came late (a retry) goes before
	// the thread's later questions still waiting.
	i := len(waiting)
	for i > 0 && !j.in.Sent.IsZero() && j.in.Sent.Before(waiting[i-1].in.Sent) {
		i--
	}
	d.pending[key] = slices.Insert(waiting, i, j)
	d.queued++
	if !active {
		d.ready <- key // never blocks: capacity covers every thread that can be pending
	}
	// The placeholder goes out now, not when a worker is free, so that an
	// asker sees a reply within a second even when the bot is busy. It must
	// not use ctx, which belongs to the delivery and ends with it.
	base := d.base // read under d.mu: Start may set it meanwhile
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		pctx, cancel := context.WithTimeout(base, 30*time.Second)
		defer cancel()
		j.posted <- panics.Catch(d.log, "placeholder", func() error { return j.r.Start(pctx, j.view) })
		close(j.posted)
	}()
	return nil
}

// dedupeAttempts and dedupeTimeout bound how long a delivery waits for the
// shared de-duplication store: a blip is retried, an outage is not waited out.
const (
	dedupeAttempts = 3
	dedupeTimeout  = 2 * time.Second
)

// dedupe returns ErrDuplicate for a delivery already taken, by this process
// or (with a shared store) by any replica. It runs on a context of its own:
// the delivery's may end as soon as the platform has its acknowledgement
// (Discord hangs up once it has the response), and a de-duplication that
// fails with "context canceled" must not let a replay be answered again.
// If the shared store cannot say, the question is refused with an error
// the adapter shows as "please ask again" rather than risk a second answer,
// and the keys are forgotten here so that a platform's retry is judged
// afresh.
func (d *Dispatcher) dedupe(ctx context.Context, in Incoming) error {
	keys := dedupeKeys(in)
	for _, key := range keys {
		// The local memory answers replays to this process even while the
		// shared store is down.
		if first, _ := d.local.FirstSeen(ctx, key); !first {
			return ErrDuplicate
		}
	}
	if d.cfg.Dedupe == nil || d.cfg.Questions != nil {
		return nil // stored questions are de-duplicated as they are stored
	}
	for _, key := range keys {
		first, err := d.sharedFirstSeen(context.WithoutCancel(ctx), key)
		if err != nil {
			d.local.forget(keys...)
			d.log.Error("de-duplication store failed; question refused", "key", key, "err", err)
			return fmt.Errorf("bot: de-duplicate delivery: %w", err)
		}
		if !first {
			return ErrDuplicate
		}
	}
	return nil
}

// sharedFirstSeen asks the shared store, retrying failures a few times.
func (d *Dispatcher) sharedFirstSeen(ctx context.Context, key string) (first bool, err error) {
	for attempt := 1; attempt <= dedupeAttempts; attempt++ {
		actx, cancel := context.WithTimeout(ctx, dedupeTimeout)
		first, err = d.cfg.Dedupe.FirstSeen(actx, key)
		cancel()
		if err == nil {
			return first, nil
		}
		d.log.Warn("de-duplication store failed; retrying", "attempt", attempt, "err", err)
	}
	return false, err
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

func (d *Dispatcher) admitLocked() error {
	switch {
	case d.stopping:
		return ErrStopping
	case d.queued >= d.cfg.Queue:
		return ErrBusy
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

// Queued reports how many questions are waiting.
// With stored questions, it is those waiting across the replicas, or -1
// when the store cannot say within storeTimeout.
func (d *Dispatcher) Queued() int {
	if d.cfg.Questions != nil {
		ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
		defer cancel()
		n, err := d.cfg.Questions.Waiting(ctx)
		if err != nil {
			d.log.Warn("could not count the questions waiting", "err", err)
			return -1
		}
		return n
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.queued
}

// work answers the questions of one thread at a time until stopped with
// nothing left to do.
func (d *Dispatcher) work(ctx context.Context) {
	defer d.wg.Done()
	for {
		select {
		case key := <-d.ready:
			d.drain(ctx, key)
			continue
		case <-d.stop:
		case <-ctx.Done():
		}
		// Finish what is queued, then leave. Once ctx is cancelled the
		// queued questions are not run, but their placeholders, already
		// posted, are finished (see answer).
		for {
			select {
			case key := <-d.ready:
				d.drain(ctx, key)
			default:
				return
			}
		}
	}
}

// drain answers a thread's questions in order until none is waiting.
func (d *Dispatcher) drain(ctx context.Context, key string) {
	for {
		d.mu.Lock()
		jobs := d.pending[key]
		if len(jobs) == 0 {
			delete(d.pending, key)
			d.mu.Unlock()
			return
		}
		j := jobs[0]
		d.pending[key] = jobs[1:]
		d.queued--
		d.mu.Unlock()
		// answer catches the panics of the run and of the replier; this
		// is the last line, so that a bug in answer itself costs one
		// question, not the worker and every thread behind it.
		_ = panics.Catch(d.log, "answer", func() error { d.answer(ctx, j); return nil })
	}
}

// answer runs one question and keeps its message up to date.
func (d *Dispatcher) answer(ctx context.Context, j job) {
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
		Scope:    agent.Scope{Workspace: j.in.Workspace, Channel: j.in.Channel},
		MaxIdle:  j.in.MaxIdle,
		Asked:    j.in.Sent,
		Hold:     j.hold,
		// Tokens are counted as each call spends them, whoever
		// finishes the question.
		Allowance: d.allowance(j.in),
	}
	started := time.Now()
	// A placeholder that could not be posted does not drop the question:
	// it is answered without progress edits, and Finish posts the answer
	// as a new message (Replier.Finish's contract).
	placed := true
	if err := <-j.posted; err != nil {
		log.Error("could not post the placeholder; answering without progress", "err", err)
		placed = false
	}
	if ctx.Err() != nil {
		if j.handBack != nil && j.handBack() {
			return
		}
		// Abandoned before it ran (shutdown past its grace period): the
		// placeholder must not be left waiting for ever.
		fctx, fcancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer fcancel()
		v.Done, v.Failed = true, StoppingMessage
		if err := d.finish(fctx, j.r, v, log); err != nil {
			log.Error("could not finish an abandoned question", "err", err)
		}
		return
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
	if err != nil && ctx.Err() != nil && j.handBack != nil && j.handBack() {
		return // another replica answers it
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
		v.Result = &res
	}
	if len(details) > 0 {
		if perr := j.r.Private(fctx, strings.Join(details, "\n")); perr != nil {
			log.Error("could not tell the asker", "err", perr)
		}
	}
	if err := d.finish(fctx, j.r, v, log); err != nil {
		log.Error("could not post the answer", "err", err)
		if j.unshown != nil {
			j.unshown()
		}
		return
	}
	if v.Result != nil && d.cfg.Feedback != nil {
		a := feedback.Answer{ID: v.AnswerID, Thread: j.in.ThreadKey(), User: j.in.User, Question: j.in.Text,
			Answer: res.Answer, Route: res.Route, Sources: res.Sources, At: time.Now()}
		if err := d.cfg.Feedback.SaveAnswer(fctx, a); err != nil {
			log.Error("could not save the answer for feedback", "err", err)
		}
	}
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
	v.Result, v.Failed = nil, FailedMessage
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
