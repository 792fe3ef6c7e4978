// Package agenttest provides a fake agent.Brain for tests of the agent and
// of the code that drives it, so that they script the Brain's judgements
// directly instead of going through a model client.
//
// Brain is a struct of function fields, one per method of agent.Brain:
//
//	brain := &agenttest.Brain{
//		T: t,
//		RouteFunc: func(context.Context, string) (agent.RouteDecision, error) {
//			return agent.RouteDecision{Route: agent.RouteVector, Reason: "asks about a policy"}, nil
//		},
//		…
//	}
//	a, err := agent.New(agent.Config{Model: brain, Offline: offline.New(nil), …})
//
// A nil field is a judgement the test did not expect to be asked for: the
// call fails the test (when T is set) and returns an error wrapping
// ErrUnscripted. Used as Config.Model, that error is what a failing model
// gives, so the run goes offline and still ends; the test has already
// failed and says which method was called. Err makes every call fail on
// purpose, as a model that is down.
//
// What a model-backed Brain does besides answering, the fake does too, in
// the open: Usage is reported to the run for every call that succeeds, and
// Calls counts the calls made, failed ones included.
package agenttest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/switchboard/switchboard/agent"
)

var _ agent.Brain = (*Brain)(nil)

// ErrUnscripted is wrapped by the error of a call whose function field is
// nil.
var ErrUnscripted = errors.New("agenttest: the Brain was not scripted for this call")

// Brain is a fake agent.Brain: each method calls its function field. It
// is safe for concurrent use as long as its function fields are (GradeFunc
// is called for several documents at once); set the fields before the
// first call and do not change them after.
type Brain struct {
	// T, when set, fails the test on a call whose function field is nil.
	T testing.TB
	// Err, when not nil, is returned by every call, before any function
	// field is consulted: a model that is down. Calls still counts them.
	Err error
	// Usage, when not zero, is held from the run's Allowance before every
	// call (agent.StartCall) and reported after every call that succeeds,
	// as a model-backed Brain does each request, so that a run's LLMCalls,
	// Tokens and step reports count the fake's calls, and a budget
	// refuses them. The zero value reports nothing, as the offline Brain
	// does.
	Usage agent.Usage

	CondenseFunc func(ctx context.Context, history []agent.Turn, question string) (string, error)
	RouteFunc    func(ctx context.Context, question string) (agent.RouteDecision, error)
	GradeFunc    func(ctx context.Context, question string, doc agent.Document) (agent.Grade, error)
	RewriteFunc  func(ctx context.Context, req agent.RewriteRequest) (agent.Rewrite, error)
	GenerateFunc func(ctx context.Context, req agent.GenerateRequest) (string, error)
	CheckFunc    func(ctx context.Context, question, answer string, docs []agent.Document) (agent.Verdict, error)
	DirectFunc   func(ctx context.Context, question string, history []agent.Turn) (answer string, ok bool, err error)

	mu    sync.Mutex
	calls map[string]int
}

// Calls counts the calls made to method ("Route", "Grade", …; "" for
// all), including those that failed.
func (b *Brain) Calls(method string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if method != "" {
		return b.calls[method]
	}
	n := 0
	for _, c := range b.calls {
		n += c
	}
	return n
}

// call starts a call to method: it holds the call's Usage from the run's
// Allowance (agent.StartCall), and a call refused is not made; else it
// counts the call and decides whether it may go ahead. It returns the
// error the call must return instead (a budget's refusal, Err, or an
// unscripted call), or the function that reports the usage of the call
// once it returned its error.
func (b *Brain) call(ctx context.Context, method string, scripted bool) (done func(error), err error) {
	finish := func(agent.Usage) {}
	if b.Usage != (agent.Usage{}) {
		if finish, err = agent.StartCall(ctx, b.Usage.PromptTokens+b.Usage.CompletionTokens); err != nil {
			return nil, err
		}
	}
	b.mu.Lock()
	if b.calls == nil {
		b.calls = map[string]int{}
	}
	b.calls[method]++
	b.mu.Unlock()
	done = func(err error) {
		if err != nil {
			finish(agent.Usage{})
			return
		}
		finish(b.Usage)
	}
	if b.Err != nil {
		done(b.Err)
		return nil, b.Err
	}
	if !scripted {
		if b.T != nil {
			b.T.Errorf("agenttest: unexpected call to Brain.%s: its %sFunc is nil", method, method)
		}
		err := fmt.Errorf("%w: %s", ErrUnscripted, method)
		done(err)
		return nil, err
	}
	return done, nil
}

// Condense calls CondenseFunc.
func (b *Brain) Condense(ctx context.Context, history []agent.Turn, question string) (q string, err error) {
	done, err := b.call(ctx, "Condense", b.CondenseFunc != nil)
	if err != nil {
		return "", err
	}
	defer func() { done(err) }()
	return b.CondenseFunc(ctx, history, question)
}

// Route calls RouteFunc.
func (b *Brain) Route(ctx context.Context, question string) (d agent.RouteDecision, err error) {
	done, err := b.call(ctx, "Route", b.RouteFunc != nil)
	if err != nil {
		return agent.RouteDecision{}, err
	}
	defer func() { done(err) }()
	return b.RouteFunc(ctx, question)
}

// Grade calls GradeFunc.
func (b *Brain) Grade(ctx context.Context, question string, doc agent.Document) (g agent.Grade, err error) {
	done, err := b.call(ctx, "Grade", b.GradeFunc != nil)
	if err != nil {
		return agent.Grade{}, err
	}
	defer func() { done(err) }()
	return b.GradeFunc(ctx, question, doc)
}

// Rewrite calls RewriteFunc.
func (b *Brain) Rewrite(ctx context.Context, req agent.RewriteRequest) (rw agent.Rewrite, err error) {
	done, err := b.call(ctx, "Rewrite", b.RewriteFunc != nil)
	if err != nil {
		return agent.Rewrite{}, err
	}
	defer func() { done(err) }()
	return b.RewriteFunc(ctx, req)
}

// Generate calls GenerateFunc.
func (b *Brain) Generate(ctx context.Context, req agent.GenerateRequest) (answer string, err error) {
	done, err := b.call(ctx, "Generate", b.GenerateFunc != nil)
	if err != nil {
		return "", err
	}
	defer func() { done(err) }()
	return b.GenerateFunc(ctx, req)
}

// Check calls CheckFunc.
func (b *Brain) Check(ctx context.Context, question, answer string, docs []agent.Document) (v agent.Verdict, err error) {
	done, err := b.call(ctx, "Check", b.CheckFunc != nil)
	if err != nil {
		return agent.Verdict{}, err
	}
	defer func() { done(err) }()
	return b.CheckFunc(ctx, question, answer, docs)
}

// Direct calls DirectFunc.
func (b *Brain) Direct(ctx context.Context, question string, history []agent.Turn) (answer string, ok bool, err error) {
	done, err := b.call(ctx, "Direct", b.DirectFunc != nil)
	if err != nil {
		return "", false, err
	}
	defer func() { done(err) }()
	return b.DirectFunc(ctx, question, history)
}

// Sequence returns a function that gives values in order, one per call,
// the last one repeating: a judgement that changes between calls, such
// as a check that fails once and then passes. It is safe for concurrent
// use, and panics when values is empty.
//
//	verdicts := agenttest.Sequence(notGrounded, grounded)
//	brain.CheckFunc = func(context.Context, string, string, []agent.Document) (agent.Verdict, error) {
//		return verdicts(), nil
//	}
func Sequence[T any](values ...T) func() T {
	if len(values) == 0 {
		panic("agenttest: Sequence needs at least one value")
	}
	var mu sync.Mutex
	next := 0
	return func() T {
		mu.Lock()
		defer mu.Unlock()
		v := values[next]
		if next < len(values)-1 {
			next++
		}
		return v
	}
}
