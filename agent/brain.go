package agent

import (
	"context"
	"sync"
)

// Brain makes the judgements the nodes need: it is the union of the ports
// the nodes declare, one method each, in the files of the nodes that use
// them (Condenser in condense.go, Router in route.go, Grader in grade.go,
// Rewriter in rewrite.go, Generator in generate.go, Checker in check.go,
// DirectAnswerer in direct.go). Each port's comment is its contract.
//
// Brain exists for wiring: a run asks one Brain for everything, so that it
// can switch all of its judgements to the offline engine at once. There
// are two: one backed by a language model (package llm) and a
// deterministic offline one (package llm/offline); tests use
// agenttest.Brain. The agent calls the model-backed Brain first and, when
// it fails at run time, finishes the run with the offline one.
//
// Every method must honour ctx and must not retain its arguments. An error
// means the Brain could not judge (a model that is down, or whose output
// makes no sense): the agent then goes offline for the rest of the run, or,
// when the offline Brain itself fails, fails the run.
type Brain interface {
	Condenser
	Router
	Grader
	Rewriter
	Generator
	Checker
	DirectAnswerer
}

type meterKey struct{}

// meter counts one run's model usage, and holds its calls' tokens from the
// run's Allowance. Grading calls the model from several goroutines at
// once, so unlike State it needs a lock.
type meter struct {
	allow Allowance // nil: no budget

	mu sync.Mutex
	u  Usage
}

// add counts u into m.
func (m *meter) add(u Usage) {
	m.mu.Lock()
	m.u.Add(u)
	m.mu.Unlock()
}

func (m *meter) total() Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.u
}

// withMeter returns a context whose model calls are counted into m.
func withMeter(ctx context.Context, m *meter) context.Context {
	return context.WithValue(ctx, meterKey{}, m)
}

// StartCall is called by a model-backed Brain before every request to the
// model, with the most tokens the request may use (its prompt's estimate
// and its reply's bound). It holds them from the Allowance of the run that
// ctx belongs to, if any, and returns the function to call once the
// request is over, with its usage (zero if it failed), which counts the
// usage into the run and settles the hold. When the request would pass
// the run's budget it returns a *BudgetError, and the request must not be
// sent: a run stops before the call that would pass its budget, not after
// its answer.
func StartCall(ctx context.Context, tokens int) (done func(Usage), err error) {
	m, ok := ctx.Value(meterKey{}).(*meter)
	if !ok {
		return func(Usage) {}, nil // not a run's call: ingest, a readiness check
	}
	settle := func(int) {}
	if m.allow != nil {
		if settle, err = m.allow.Reserve(tokens); err != nil {
			return nil, err
		}
	}
	var once sync.Once
	return func(u Usage) {
		once.Do(func() {
			m.add(u)
			settle(u.PromptTokens + u.CompletionTokens)
		})
	}, nil
}
