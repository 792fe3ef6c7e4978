package agent

import (
	"context"
	"sync"
)

// Brain makes the judgements the nodes need. There are two: one backed by a
// language model (package llm) and a deterministic offline one (package
// llm/offline). The agent calls the model-backed Brain first and, when it
// fails at run time, finishes the run with the offline one.
//
// Methods must honour ctx and must not retain their arguments.
type Brain interface {
	// Condense turns a follow-up ("and for EU customers?") into a
	// standalone question using the thread's earlier turns. With no history it
	// returns the question unchanged.
	Condense(ctx context.Context, history []Turn, question string) (string, error)
	// Route decides where the answer to question lives, and says why in
	// a short phrase shown to the user.
	Route(ctx context.Context, question string) (RouteDecision, error)
	// Grade judges whether one document helps answer the question.
	Grade(ctx context.Context, question string, doc Document) (Grade, error)
	// Rewrite proposes a new search query after query found nothing
	// relevant. attempt counts from 1.
	Rewrite(ctx context.Context, question, query string, attempt int) (string, error)
	// Generate answers the question only from docs, citing them as [n]
	// where n is the document's 1-based position in docs. Unsupported, when
	// not empty, lists claims a previous draft could not ground.
	Generate(ctx context.Context, req GenerateRequest) (string, error)
	// Check verifies that every claim of answer is supported by docs.
	Check(ctx context.Context, question, answer string, docs []Document) (Verdict, error)
	// Direct answers without retrieval. ok is false when the Brain cannot
	// answer (the offline engine for anything but arithmetic); answer then
	// says so honestly.
	Direct(ctx context.Context, question string, history []Turn) (answer string, ok bool, err error)
}

// RouteDecision is the router's choice and its reason.
type RouteDecision struct {
	Route  Route  `json:"route"`
	Reason string `json:"reason"`
}

// Grade is the verdict on one document.
type Grade struct {
	Relevant bool   `json:"relevant"`
	Reason   string `json:"reason"`
}

// Verdict is the result of a grounding check.
type Verdict struct {
	Grounded    bool     `json:"grounded"`
	Unsupported []string `json:"unsupported"`
}

// GenerateRequest is what the generator is given.
type GenerateRequest struct {
	Question    string
	History     []Turn
	Docs        []Document
	Unsupported []string
}

type meterKey struct{}

// meter counts one run's model usage. Grading calls the model from several
// goroutines at once, so unlike State it needs a lock.
type meter struct {
	mu sync.Mutex
	u  Usage
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
		m.mu.Lock()
		m.u.Add(u)
		m.mu.Unlock()
	}
}
