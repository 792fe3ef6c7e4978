package agent

import (
	"context"
	"time"
)

// Observer hears how runs go, for metrics and traces, so that the agent
// itself imports neither. The agent calls it on the run's goroutine, in
// the order RunStarted, then StepStarted and StepDone for each step, then
// RunDone. Implementations must be safe for concurrent runs and must not
// block: a run waits for them.
type Observer interface {
	// RunStarted is called when Ask begins, before the question is
	// checked. The context it returns is the run's (a tracer puts the
	// run's span in it).
	RunStarted(ctx context.Context, q Question) context.Context
	// StepStarted is called before each step; the step runs with the
	// context it returns.
	StepStarted(ctx context.Context, step Step) context.Context
	// StepDone is called after each step with the context StepStarted
	// returned.
	StepDone(ctx context.Context, r StepReport)
	// RunDone is called once when Ask returns, with the context
	// RunStarted returned.
	RunDone(ctx context.Context, r RunReport)
}

// StepReport is what one step did.
type StepReport struct {
	Step     Step
	Next     Step // the step that follows; "" when this one failed
	Duration time.Duration
	Route    Route // the run's route so far; "" before the router chose
	// Docs is the number of documents the step retrieved (retrieval
	// steps) or graded (grade); Relevant, those graded relevant (grade).
	Docs     int
	Relevant int
	// Usage is the model traffic of this step alone; ModelErrors counts
	// its model calls that failed, after which the run went offline.
	Usage       Usage
	ModelErrors int
	Offline     bool // the run uses the offline engine from here on
	Err         error
}

// RunReport is how a whole run ended.
type RunReport struct {
	ThreadID string
	Duration time.Duration
	Result   *Result // nil when Err is set
	Err      error
}

// Observers returns an Observer that tells each of list in order; nil
// entries are skipped. Each one's context is handed to the next.
func Observers(list ...Observer) Observer {
	var out multiObserver
	for _, o := range list {
		if o != nil {
			out = append(out, o)
		}
	}
	return out
}

type multiObserver []Observer

func (m multiObserver) RunStarted(ctx context.Context, q Question) context.Context {
	for _, o := range m {
		ctx = o.RunStarted(ctx, q)
	}
	return ctx
}

func (m multiObserver) StepStarted(ctx context.Context, step Step) context.Context {
	for _, o := range m {
		ctx = o.StepStarted(ctx, step)
	}
	return ctx
}

func (m multiObserver) StepDone(ctx context.Context, r StepReport) {
	// In reverse, so that a tracer's span, opened last, closes first.
	for i := len(m) - 1; i >= 0; i-- {
		m[i].StepDone(ctx, r)
	}
}

func (m multiObserver) RunDone(ctx context.Context, r RunReport) {
	for i := len(m) - 1; i >= 0; i-- {
		m[i].RunDone(ctx, r)
	}
}

// stepReport describes the step that just ran on s.
func (r *run) stepReport(step, next Step, start time.Time, before Usage, errsBefore int, s *State, err error) StepReport {
	rep := StepReport{
		Step: step, Next: next, Duration: r.now().Sub(start), Route: s.Route,
		Usage: r.meter.total().minus(before), ModelErrors: r.modelErrors - errsBefore,
		Offline: s.Offline, Err: err,
	}
	switch step {
	case StepVector, StepGraph, StepWeb:
		rep.Docs = len(s.Docs)
	case StepGrade:
		rep.Docs, rep.Relevant = len(s.Docs), len(s.Relevant)
	}
	if err != nil {
		rep.Next = ""
	}
	return rep
}

// minus returns u less v: the traffic between two readings of a meter.
func (u Usage) minus(v Usage) Usage {
	return Usage{Calls: u.Calls - v.Calls, PromptTokens: u.PromptTokens - v.PromptTokens, CompletionTokens: u.CompletionTokens - v.CompletionTokens}
}
