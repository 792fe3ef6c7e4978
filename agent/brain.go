package agent

import (
	"context"
	"strings"
	"sync"
	"unicode"
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
	// Rewrite proposes a new search after the last one found nothing
	// relevant: a query never tried before on the route it names, and the
	// route to search, which may differ from the failed one ("asks the
	// documents, but names a product" → graph). See RewriteRequest.
	Rewrite(ctx context.Context, req RewriteRequest) (Rewrite, error)
	// Generate answers the question only from docs, citing them as [n]
	// where n is the document's 1-based position in docs. Unsupported, when
	// not empty, lists claims a previous draft could not ground.
	Generate(ctx context.Context, req GenerateRequest) (string, error)
	// Check judges answer against docs on two counts, in one judgement:
	// grounded (every claim is supported by docs) and answers (the
	// supported statements address what question asks: its entity, the
	// number or date it asks for, its yes or no — not merely a related
	// topic). See Verdict.
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

// Verdict is the result of a check. Grounded and Answers are judged
// apart: an answer can quote its sources faithfully and still be about
// something else than what was asked ("Do we get paid leave for jury
// duty?" answered with the kinds of leave the handbook does describe).
// The badge needs both (agent/result.go); a grounded answer that does not
// answer is regenerated once, then shown as partial with a note built from
// Missing.
type Verdict struct {
	Grounded    bool     `json:"grounded"`
	Unsupported []string `json:"unsupported"`
	// Answers is true when the answer addresses what the question asks. A
	// Brain that cannot tell must say false: true is a claim the badge
	// relies on.
	Answers bool `json:"answers"`
	// Missing, when Answers is false, names what the question asks that
	// the answer does not say, as words that complete "I found related
	// text but nothing that says …" (e.g. "whether jury duty is paid
	// leave"). It may be empty.
	Missing string `json:"missing,omitempty"`
}

// RewriteRequest is what the rewriter is given.
type RewriteRequest struct {
	Question string  // the standalone question; the answer is still for it
	Route    Route   // the route of the search that found nothing relevant
	Tried    []Tried // every search of this run, oldest first, the original query included
	// Routes are the routes the rewriter may choose: the retrieval routes
	// this agent has a retriever for, the current one included. A
	// rewrite naming any other route stays on Route.
	Routes  []Route
	Attempt int // counts from 1
	Max     int // the rewrite budget: Attempt == Max is the last rewrite
}

// Tried is one search a run made: the query, the route it was sent to, and
// what came back.
type Tried struct {
	Query    string `json:"query"`
	Route    Route  `json:"route"`
	Found    int    `json:"found"`
	Relevant int    `json:"relevant"`
}

// Rewrite is the rewriter's proposal. Route "" keeps the current route.
// Reason, when the route changes, says why in a short phrase shown to the
// user ("names Chai, a product in the knowledge graph"); it may be empty.
type Rewrite struct {
	Query  string `json:"query"`
	Route  Route  `json:"route"`
	Reason string `json:"reason,omitempty"`
}

// Searched reports whether query has already been sent to route in tried.
// Queries are compared in their words, ignoring case and punctuation, so
// that "Refund policy?" repeats "refund policy".
func Searched(tried []Tried, query string, route Route) bool {
	q := NormalizeQuery(query)
	for _, t := range tried {
		if t.Route == route && NormalizeQuery(t.Query) == q {
			return true
		}
	}
	return false
}

// NormalizeQuery is the form in which queries are compared: the words,
// lowercased, without punctuation, one space apart.
func NormalizeQuery(q string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
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
