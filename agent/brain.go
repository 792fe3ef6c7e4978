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

// meter counts one run's model usage. Grading calls the model from several
// goroutines at once, so unlike State it needs a lock.
type meter struct {
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

// RecordUsage adds one model call's usage to the run that ctx belongs to, if
// any. Model-backed Brains call it after every request, so that a run can
// report its model calls and tokens without threading counters through
// every method.
func RecordUsage(ctx context.Context, u Usage) {
	if m, ok := ctx.Value(meterKey{}).(*meter); ok {
		m.add(u)
	}
}
