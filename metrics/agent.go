package metrics

import (
	"context"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
)

var (
	_ agent.Observer = (*Metrics)(nil)
	_ bot.Observer   = (*Metrics)(nil)
)

// RunStarted implements agent.Observer.
func (m *Metrics) RunStarted(ctx context.Context, _ agent.Question) context.Context { return ctx }

// StepStarted implements agent.Observer.
func (m *Metrics) StepStarted(ctx context.Context, _ agent.Step) context.Context { return ctx }

// StepDone implements agent.Observer: time, model calls, tokens and model
// errors by node.
func (m *Metrics) StepDone(_ context.Context, r agent.StepReport) {
	step := string(r.Step)
	m.stepSeconds.WithLabelValues(step).Observe(r.Duration.Seconds())
	if r.Usage.Calls > 0 {
		m.modelCalls.WithLabelValues(step).Add(float64(r.Usage.Calls))
		m.modelTokens.WithLabelValues(step, "prompt").Add(float64(r.Usage.PromptTokens))
		m.modelTokens.WithLabelValues(step, "completion").Add(float64(r.Usage.CompletionTokens))
	}
	if r.ModelErrors > 0 {
		m.modelErrors.WithLabelValues(step).Add(float64(r.ModelErrors))
	}
}

// RunDone implements agent.Observer: the question by route and outcome,
// its latency, rewrites, regenerations, badge and offline mode.
func (m *Metrics) RunDone(_ context.Context, r agent.RunReport) {
	route, outcome := "none", "failed"
	if r.Err != nil && agent.ErrorCode(r.Err) == agent.EINVALID {
		outcome = "invalid"
	}
	if res := r.Result; res != nil {
		route, outcome = string(res.Route), "answered"
		if res.Confidence == agent.ConfidenceNone {
			outcome = "no_answer"
		}
		m.confidence.WithLabelValues(string(res.Confidence)).Inc()
		if res.Rewrites > 0 {
			m.rewrites.WithLabelValues(route).Add(float64(res.Rewrites))
		}
		if res.Regenerations > 0 {
			m.regenerations.WithLabelValues(route).Add(float64(res.Regenerations))
		}
		if res.Offline {
			m.offline.WithLabelValues(route).Inc()
		}
	}
	m.questions.WithLabelValues(route, outcome).Inc()
	m.questionSeconds.WithLabelValues(route).Observe(r.Duration.Seconds())
}

// Refused implements bot.Observer.
func (m *Metrics) Refused(platform, reason string) {
	m.refused.WithLabelValues(platform, reason).Inc()
}

// OverBudget implements bot.Observer.
func (m *Metrics) OverBudget(platform string) { m.overBudget.WithLabelValues(platform).Inc() }

// ChatFailed implements bot.Observer.
func (m *Metrics) ChatFailed(platform, op string) { m.chatErrors.WithLabelValues(platform, op).Inc() }

// Retriever returns r timed and counted as backend (postgres, sqlite,
// neo4j, tavily) serving route. Errors pass through unchanged, so that
// agent.ErrNotConfigured still means what it says.
func (m *Metrics) Retriever(route agent.Route, backend string, r agent.Retriever) agent.Retriever {
	return &retriever{next: r, m: m, route: string(route), backend: backend}
}

type retriever struct {
	next           agent.Retriever
	m              *Metrics
	route, backend string
}

func (r *retriever) Retrieve(ctx context.Context, req agent.Request) ([]agent.Document, error) {
	start := time.Now()
	docs, err := r.next.Retrieve(ctx, req)
	r.m.retrieverSeconds.WithLabelValues(r.route, r.backend).Observe(time.Since(start).Seconds())
	if err != nil {
		r.m.retrieverErrors.WithLabelValues(r.route, r.backend).Inc()
	}
	return docs, err
}
