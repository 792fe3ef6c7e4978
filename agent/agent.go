package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/switchboard/switchboard/internal/retry"
)

// Config wires an Agent.
type Config struct {
	// Model is the model-backed Brain; nil runs everything offline.
	Model Brain
	// Offline is the deterministic Brain used without a model and when the
	// model fails during a run. Required.
	Offline Brain
	// Retrievers by route. A missing web retriever means web search is
	// not configured, which the agent tells the user.
	Retrievers map[Route]Retriever
	// Checkpointer stores threads; nil keeps them in memory.
	Checkpointer Checkpointer
	Budgets      Budgets
	// Observer hears about every run and step (metrics, traces); nil
	// tells no one.
	Observer Observer
	// Now is the clock, replaceable in tests.
	Now func() time.Time
	// Sleep waits between attempts to save a thread (nil: a timer);
	// tests pass one that returns at once.
	Sleep func(ctx context.Context, d time.Duration) error
	// Knowledge, if set, lets a run that finds nothing say when the
	// knowledge base is empty and how to fill it (noanswer.go).
	Knowledge KnowledgeBase
	// Words writes the answers of the outcomes the agent does not word
	// (no answer, an empty knowledge base, no model) and the details a
	// notice tells the asker; nil leaves them empty (see Words).
	Words Words
	// Speculate grades the documents found for the question while the
	// router is asked, so that a question the router sends to the
	// documents needs one model round trip less; when it sends it
	// elsewhere, those grading calls were spent for nothing
	// (Usage.Discarded). See ahead.go.
	Speculate bool
}

// Agent answers questions. It is safe for concurrent use: each Ask owns its
// own State. Questions of the same thread must be serialised by the caller,
// or the later one may overwrite the earlier one's turn.
type Agent struct {
	// modelBrain (nil without a model) and offlineBrain reach the nodes
	// only as ports (port.go), which TestNodesAskOnlyTheirPort checks.
	modelBrain   Brain
	offlineBrain Brain
	retrievers   map[Route]Retriever
	threads      Checkpointer
	budgets      Budgets
	observer     Observer
	now          func() time.Time
	sleep        func(context.Context, time.Duration) error
	knowledge    KnowledgeBase
	words        Words
	speculate    bool
}

// New checks cfg and the transition table and returns an Agent.
func New(cfg Config) (*Agent, error) {
	if cfg.Offline == nil {
		return nil, errors.New("agent: an offline Brain is required")
	}
	a := &Agent{
		modelBrain:   cfg.Model,
		offlineBrain: cfg.Offline,
		retrievers:   cfg.Retrievers,
		threads:      cfg.Checkpointer,
		budgets:      cfg.Budgets.withDefaults(),
		observer:     cfg.Observer,
		now:          cfg.Now,
		sleep:        cfg.Sleep,
		knowledge:    cfg.Knowledge,
		words:        cfg.Words,
		speculate:    cfg.Speculate,
	}
	if a.retrievers == nil {
		a.retrievers = map[Route]Retriever{}
	}
	if a.threads == nil {
		a.threads = NewMemoryCheckpointer()
	}
	if a.now == nil {
		a.now = time.Now
	}
	if a.observer == nil {
		a.observer = Observers()
	}
	if err := checkGraph(machine); err != nil {
		return nil, err
	}
	return a, nil
}

// Question is one question to answer.
type Question struct {
	ThreadID string // "" for a one-off question with no history
	Text     string
	Scope    Scope
	// Allowance, when set, is asked before every model call of the run:
	// a call it refuses is not made, and the run goes on offline, saying
	// why (a token budget that is spent). nil: no budget.
	Allowance Allowance
	// MaxIdle, when set, ends a thread's conversation after a silence
	// longer than it: the turns before that silence are dropped, so that
	// an asker who comes back hours later starts afresh. 0: a thread's
	// history is kept however old.
	MaxIdle time.Duration
	// Asked is when the question was asked on its platform. A question
	// answered after a later one of its thread (a delivery retried late)
	// sees only the turns asked before it, and its turn is stored in its
	// place (Thread.AsOf, Thread.Append). Zero: now, after every turn.
	Asked time.Time
	// Hold, when set, is asked just before the finished turn is stored,
	// and an error ends the run instead: a replica that lost the question
	// to another (it was frozen past its lease) must not write the thread
	// over the other's answer.
	Hold func(ctx context.Context) error
	// Cleaned says that Text is what CleanQuestion returned for the
	// question, so that Ask does not clean it again.
	Cleaned bool
}

// Ask runs the state machine for q, reporting progress to emit (which may
// be nil), and stores the finished turn in the thread. It always ends: every
// loop is bounded, and ctx cancellation stops it between and inside steps.
// Errors are *Error for unusable questions; anything else is internal.
func (a *Agent) Ask(ctx context.Context, q Question, emit Emitter) (res Result, err error) {
	if emit == nil {
		emit = func(Event) {}
	}
	ctx = a.observer.RunStarted(ctx, q)
	start := a.now()
	defer func() {
		rep := RunReport{ThreadID: q.ThreadID, Duration: a.now().Sub(start), Err: err}
		if err == nil {
			rep.Result = &res
		}
		a.observer.RunDone(ctx, rep)
	}()
	text := q.Text
	if !q.Cleaned || text == "" {
		text, err = a.cleanQuestion(q.Text)
	}
	if err != nil {
		emit(Event{Kind: EventFailed, Err: err})
		return Result{}, err
	}
	res, err = a.ask(ctx, q, text, emit)
	if err != nil {
		emit(Event{Kind: EventFailed, Err: err})
		return Result{}, err
	}
	emit(Event{Kind: EventDone, Step: StepEnd, Route: res.Route, Result: &res})
	return res, nil
}

func (a *Agent) ask(ctx context.Context, q Question, text string, emit Emitter) (Result, error) {
	thread := Thread{ID: q.ThreadID}
	loaded := a.now() // what the idle silence is counted up to, here and when the turn is stored
	if q.ThreadID != "" {
		var err error
		if thread, err = a.threads.Load(ctx, q.ThreadID); err != nil {
			return Result{}, fmt.Errorf("agent: load thread %q: %w", q.ThreadID, err)
		}
		if q.MaxIdle > 0 {
			thread.ForgetIdle(loaded, q.MaxIdle)
		}
	}
	run := &run{Agent: a, emit: emit, retrievers: a.retrieversFor(q.Scope)}
	s := &State{Thread: thread.AsOf(q.Asked), Question: text, Scope: q.Scope, WebConfigured: run.retrievers[RouteWeb] != nil}
	if a.modelBrain == nil {
		s.Offline, s.ModelOff, s.OfflineReason = true, true, "no language model is configured"
	}
	m := &meter{allow: q.Allowance}
	ctx = withMeter(ctx, m)
	run.meter = m
	err := run.loop(ctx, s)
	run.dropAhead() // nothing of this run runs on after it, and its calls are counted
	if err != nil {
		return Result{}, err
	}
	settle(s) // the best draft the checks left, when the last one was not accepted (check.go)
	if (s.Partial || s.CutOff) && a.words != nil {
		// Before shortening, so that what is cut for length is the draft.
		s.Answer = a.words.Note(Result{Partial: s.Partial, Missing: s.Missing, CutOff: s.CutOff, CutAtLimit: s.CutOff && s.CutDraftAtLimit}) + "\n\n" + s.Answer
	}
	s.Usage = m.total()
	s.Answer = shorten(s.Answer, a.budgets.MaxAnswerChars)
	res := a.result(s)
	if q.ThreadID != "" {
		if q.Hold != nil {
			if err := q.Hold(ctx); err != nil {
				return Result{}, fmt.Errorf("agent: store the turn: %w", err)
			}
		}
		// The turn goes into the thread as stored now, not as loaded:
		// other replicas may have stored turns meanwhile (this one was
		// frozen past its claim after Hold), which a write of the thread
		// as loaded would drop.
		turn := Turn{Question: text, Answer: res.Answer, Route: res.Route, Sources: res.Sources, At: a.now(), Asked: q.Asked}
		if err := a.save(ctx, q, loaded, turn); err != nil {
			// The answer stands: an unsaved turn costs a follow-up its
			// context, while failing the run would cost the asker the
			// answer the model already wrote (issue 21).
			emit(Event{Kind: EventNotice, Err: err,
				Detail: "This answer could not be saved in the conversation's history, so a follow-up may not know it: " + err.Error()})
		}
	}
	return res, nil
}

// Saving a thread is tried saveAttempts times, saveBackoff apart at
// first: a store that blinks keeps the turn.
const (
	saveAttempts = 3
	saveBackoff  = 250 * time.Millisecond
)

// retrieversFor returns the retrievers a run in scope may use: without
// the graph or the web when the channel's sources leave them out (issue
// 26), so that those routes are not taken, as when they are not
// configured; the documents' retriever filters by the sources itself.
func (a *Agent) retrieversFor(sc Scope) map[Route]Retriever {
	if len(sc.Sources) == 0 {
		return a.retrievers
	}
	out := make(map[Route]Retriever, len(a.retrievers))
	for route, ret := range a.retrievers {
		if (route == RouteGraph || route == RouteWeb) && !sc.Cites(string(route)) {
			continue
		}
		out[route] = ret
	}
	return out
}

// save adds the turn of q to its thread, loaded at loaded, trying again
// when the store fails.
func (a *Agent) save(ctx context.Context, q Question, loaded time.Time, turn Turn) error {
	add := func(t *Thread) {
		if q.MaxIdle > 0 {
			t.ForgetIdle(loaded, q.MaxIdle)
		}
		t.Append(turn)
	}
	err := retry.Do(ctx, retry.Policy{Attempts: saveAttempts, Backoff: saveBackoff, Sleep: a.sleep}, func(int) retry.Outcome {
		if err := a.threads.Update(ctx, q.ThreadID, add); err != nil {
			return retry.Again(err)
		}
		return retry.Stop(nil)
	})
	if err != nil {
		return fmt.Errorf("agent: save thread %q: %w", q.ThreadID, err)
	}
	return nil
}

// CleanQuestion returns text as Ask reads it, or the error Ask would
// refuse it with (EINVALID, with a message for the asker), so that a chat
// adapter can refuse it privately before posting anything in the channel,
// and hand the cleaned text on (Question.Cleaned) instead of having it
// cleaned again.
func (a *Agent) CleanQuestion(text string) (string, error) {
	return a.cleanQuestion(text)
}

// cleanQuestion refuses empty and oversized questions with a message the
// asker can act on, and drops control characters that chat clients and
// pasted text sometimes carry.
func (a *Agent) cleanQuestion(text string) (string, error) {
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "")
	}
	text = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, text)
	text = strings.TrimSpace(text)
	if text == "" {
		return "", Errorf(EINVALID, "The question is empty: ask me something, for example \"What is our refund policy?\"")
	}
	if n := utf8.RuneCountInString(text); n > a.budgets.MaxQuestionChars {
		return "", Errorf(EINVALID, "The question is too long (%d characters; the limit is %d). Please shorten it.", n, a.budgets.MaxQuestionChars)
	}
	return text, nil
}

// run is one Ask in progress: the agent plus where its events go.
type run struct {
	*Agent
	emit  Emitter
	meter *meter
	// retrievers are the Agent's that the question's scope may cite
	// (retrieversFor); they hide the Agent's.
	retrievers map[Route]Retriever
	// modelErrors counts the model calls of this run that failed, for
	// the observer (a call the budget refused is not one). Only the run's
	// goroutine touches it.
	modelErrors int
	// ahead is the search (and grading) started while the router is
	// asked, until a node takes it or the run drops it (ahead.go). Only
	// the run's goroutine touches the field.
	ahead *ahead
}

// loop walks the transition table (graph.go) from its first step to end:
// it runs each step's node, then takes the first of its edges whose
// predicate holds on the state the node left.
func (r *run) loop(ctx context.Context, s *State) error {
	step := firstStep
	for step != StepEnd {
		if len(s.Trace) >= r.budgets.MaxSteps {
			return fmt.Errorf("agent: step budget of %d exhausted after %s", r.budgets.MaxSteps, pathOf(s.Trace))
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("agent: stopped before %s: %w", step, err)
		}
		s.Trace = append(s.Trace, step)
		def := machine[step]
		sctx := r.observer.StepStarted(ctx, step)
		start, before, errsBefore := r.now(), r.meter.total(), r.modelErrors
		var to Step
		var err error
		if def.alongside != "" {
			err = machine[def.alongside].run(r, sctx, s) // it returns while its work goes on
		}
		if err == nil {
			err = def.run(r, sctx, s)
		}
		if err == nil {
			to, err = next(step, s, r.budgets)
		}
		if err == nil && def.alongside != "" && !holdsAny(def.alongside, s, r.budgets) {
			// Its results lead nowhere the run goes. The one step run
			// alongside another is the search ahead of the router.
			r.dropAhead()
		}
		r.observer.StepDone(sctx, r.stepReport(step, to, start, before, errsBefore, s, err))
		if err != nil {
			return fmt.Errorf("agent: %s: %w", pathOf(s.Trace), err)
		}
		step = to
	}
	return nil
}

func pathOf(trace []Step) string {
	parts := make([]string, len(trace))
	for i, s := range trace {
		parts[i] = string(s)
	}
	return strings.Join(parts, "→")
}

// failed records a model call that failed with err: one unusable reply,
// a call the budget refused, or the model gone for the rest of the run.
func (r *run) failed(s *State, err error) {
	var spent *BudgetError
	switch {
	case errors.As(err, &spent):
		r.degrade(s, spent.Reason, spent.Detail, err)
		return
	case !errors.Is(err, ErrBadOutput):
		r.modelErrors++
		// The reason is shown to everyone in the thread, so it names no
		// server; the cause goes to the asker and the log as the detail.
		r.degrade(s, "the language model isn't answering",
			"The language model failed, so this answer used the offline engine: "+err.Error(), err)
		return
	}
	r.modelErrors++
	s.Offline = true
	if s.OfflineReason == "" {
		s.OfflineReason = "the language model's reply to a step could not be used"
	}
	r.emit(Event{Kind: EventNotice, Err: err,
		Detail: "One step used the offline engine because the language model's reply could not be used: " + err.Error()})
}

// degrade switches the rest of the run to the offline engine, for reason
// (shown with the answer) and detail (for the asker alone).
func (r *run) degrade(s *State, reason, detail string, cause error) {
	if s.ModelOff {
		return // said once
	}
	s.Offline, s.ModelOff, s.OfflineReason = true, true, reason
	r.emit(Event{Kind: EventDegraded, Reason: reason, Err: cause, Detail: detail})
}
