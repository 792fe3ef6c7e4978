package agent_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/agent/agenttest"
	"github.com/switchboard/switchboard/llm/offline"
)

// These scenarios drive the real agent with a scripted model, an
// agenttest.Brain whose judgements each test writes down, and the real
// offline engine as its fallback. What the model client makes of a
// judgement (prompts, schemas, parsing, retries) is tested in package llm;
// cmd/bot's tests run the whole stack against llmtest, a local server
// speaking the OpenAI protocol. Retrievers are hand-written fakes: the
// stores have their own tests against real databases.

// fakeRetriever returns docs and records the queries it was asked.
type fakeRetriever struct {
	mu      sync.Mutex
	queries []string
	again   []bool // each request's Again
	docs    func(query string) ([]agent.Document, error)
}

var _ agent.Retriever = (*fakeRetriever)(nil)

func (f *fakeRetriever) Retrieve(_ context.Context, req agent.Request) ([]agent.Document, error) {
	f.mu.Lock()
	f.queries = append(f.queries, req.Query)
	f.again = append(f.again, req.Again)
	f.mu.Unlock()
	return f.docs(req.Query)
}

func returns(docs ...agent.Document) *fakeRetriever {
	return &fakeRetriever{docs: func(string) ([]agent.Document, error) { return docs, nil }}
}

var (
	refundDoc = agent.Document{ID: "d1", Title: "Refund policy", Location: "docs/refund-policy.md", Content: "Customers can request a full refund within 30 days of purchase."}
	annualDoc = agent.Document{ID: "d2", Title: "Refund policy: annual plans", Location: "docs/refund-policy.md#annual", Content: "Annual plans are refunded pro rata after 30 days."}
	faqDoc    = agent.Document{ID: "d4", Title: "Billing FAQ", Location: "docs/billing-faq.md", Content: "Refunds go back to the card that paid, within 5 business days."}
	lunchDoc  = agent.Document{ID: "d3", Title: "Lunch menu", Location: "docs/lunch.md", Content: "Tacos on Tuesday."}
	webDoc    = agent.Document{ID: "w1", Title: "News", Location: "https://example.com/news", Content: "Unrelated headline."}
)

type harness struct {
	model   *agenttest.Brain
	agent   *agent.Agent
	events  []agent.Event
	vector  *fakeRetriever
	web     *fakeRetriever
	threads *agent.MemoryCheckpointer
	config  agent.Config // what agent was built from
}

// setup builds an agent on a scripted model, whose judgements the test
// then sets. web may be nil (not configured).
func setup(t *testing.T, vector, graph, web *fakeRetriever) *harness {
	t.Helper()
	h := &harness{model: scriptedModel(t), vector: vector, web: web, threads: agent.NewMemoryCheckpointer()}
	rs := map[agent.Route]agent.Retriever{}
	if vector != nil {
		rs[agent.RouteVector] = vector
	}
	if graph != nil {
		rs[agent.RouteGraph] = graph
	}
	if web != nil {
		rs[agent.RouteWeb] = web
	}
	h.config = agent.Config{Model: h.model, Offline: offline.New(nil), Retrievers: rs, Checkpointer: h.threads}
	a, err := agent.New(h.config)
	if err != nil {
		t.Fatal(err)
	}
	h.agent = a
	return h
}

func (h *harness) ask(t *testing.T, thread, question string) agent.Result {
	t.Helper()
	res, err := h.agent.Ask(context.Background(), agent.Question{ThreadID: thread, Text: question}, func(e agent.Event) { h.events = append(h.events, e) })
	if err != nil {
		t.Fatalf("Ask(%q): %v", question, err)
	}
	return res
}

func (h *harness) kinds() []agent.EventKind {
	var out []agent.EventKind
	for _, e := range h.events {
		out = append(out, e.Kind)
	}
	return out
}

func trace(steps ...agent.Step) []agent.Step { return steps }

// scriptedModel is the model of these tests: a Brain that fails the test
// on any judgement it was not scripted for, and reports each call as one
// model request, as llm.Brain does.
func scriptedModel(t *testing.T) *agenttest.Brain {
	return &agenttest.Brain{T: t, Usage: agent.Usage{Calls: 1, PromptTokens: 120, CompletionTokens: 30}}
}

// The judgements the tests script, as functions for agenttest.Brain's fields.

// routes routes every question to route, for reason.
func routes(route agent.Route, reason string) func(context.Context, string) (agent.RouteDecision, error) {
	return func(context.Context, string) (agent.RouteDecision, error) {
		return agent.RouteDecision{Route: route, Reason: reason}, nil
	}
}

var vectorRoute = routes(agent.RouteVector, "asks about an internal policy")

var (
	relevant   = agent.Grade{Relevant: true, Reason: "states the refund window"}
	irrelevant = agent.Grade{Relevant: false, Reason: "off topic"}
	grounded   = agent.Verdict{Grounded: true, Answers: true}
)

// grades grades every document g.
func grades(g agent.Grade) func(context.Context, string, agent.Document) (agent.Grade, error) {
	return func(context.Context, string, agent.Document) (agent.Grade, error) { return g, nil }
}

// gradesIrrelevantIf grades the documents containing word irrelevant, and
// the others relevant.
func gradesIrrelevantIf(word string) func(context.Context, string, agent.Document) (agent.Grade, error) {
	return func(_ context.Context, _ string, d agent.Document) (agent.Grade, error) {
		if strings.Contains(d.Title+"\n"+d.Content, word) {
			return irrelevant, nil
		}
		return relevant, nil
	}
}

// answers generates the drafts in order, the last one repeating; reqs, if
// not nil, collects what the generator was given (generate is never called
// concurrently).
func answers(reqs *[]agent.GenerateRequest, drafts ...string) func(context.Context, agent.GenerateRequest) (string, error) {
	next := agenttest.Sequence(drafts...)
	return func(_ context.Context, req agent.GenerateRequest) (string, error) {
		if reqs != nil {
			*reqs = append(*reqs, req)
		}
		return next(), nil
	}
}

// verdicts checks with the verdicts in order, the last one repeating.
func verdicts(vs ...agent.Verdict) func(context.Context, string, string, []agent.Document) (agent.Verdict, error) {
	next := agenttest.Sequence(vs...)
	return func(context.Context, string, string, []agent.Document) (agent.Verdict, error) { return next(), nil }
}

// rewrites proposes the rewrites in order, the last one repeating; reqs,
// if not nil, collects what the rewriter was given.
func rewrites(reqs *[]agent.RewriteRequest, rws ...agent.Rewrite) func(context.Context, agent.RewriteRequest) (agent.Rewrite, error) {
	next := agenttest.Sequence(rws...)
	return func(_ context.Context, req agent.RewriteRequest) (agent.Rewrite, error) {
		if reqs != nil {
			*reqs = append(*reqs, req)
		}
		return next(), nil
	}
}

// onVector is a rewrite to query on the documents.
func onVector(query string) agent.Rewrite {
	return agent.Rewrite{Query: query, Route: agent.RouteVector}
}

// docIDs are the IDs of docs, to compare what a node was given.
func docIDs(docs []agent.Document) []string {
	var out []string
	for _, d := range docs {
		out = append(out, d.ID)
	}
	return out
}

func TestGroundedFirstTime(t *testing.T) {
	h := setup(t, returns(refundDoc, faqDoc), nil, nil)
	h.model.RouteFunc = vectorRoute
	h.model.GradeFunc = grades(relevant)
	h.model.GenerateFunc = answers(nil, "Refunds are available within 30 days [1], paid back to the card within 5 business days [2].")
	h.model.CheckFunc = verdicts(grounded)

	res := h.ask(t, "", "What is our refund policy?")

	if want := trace(agent.StepCondense, agent.StepRoute, agent.StepVector, agent.StepGrade, agent.StepGenerate, agent.StepCheck); !slices.Equal(res.Trace, want) {
		t.Errorf("trace = %v, want %v", res.Trace, want)
	}
	if res.Confidence != agent.ConfidenceHigh || res.Offline {
		t.Errorf("confidence = %s offline = %v, want high online", res.Confidence, res.Offline)
	}
	if res.Route != agent.RouteVector || res.RouteReason != "asks about an internal policy" {
		t.Errorf("route = %s (%s)", res.Route, res.RouteReason)
	}
	if len(res.Sources) != 2 || res.Sources[0].N != 1 || res.Sources[0].Location != "docs/refund-policy.md" {
		t.Errorf("sources = %+v", res.Sources)
	}
	// route + 2 grades + generate + check; no condense without history.
	if res.LLMCalls != 5 || h.model.Calls("") != 5 || h.model.Calls("Condense") != 0 {
		t.Errorf("llm calls = %d (%d made), condense calls = %d; want 5 and 0", res.LLMCalls, h.model.Calls(""), h.model.Calls("Condense"))
	}
	if res.Tokens == 0 {
		t.Error("tokens not counted")
	}
	// The draft is shown while it is checked: llmtest streams it.
	want := []agent.EventKind{agent.EventRouted, agent.EventRetrieved, agent.EventGraded, agent.EventGenerating, agent.EventDrafting, agent.EventChecking, agent.EventDone}
	if !slices.Equal(h.kinds(), want) {
		t.Errorf("events = %v, want %v", h.kinds(), want)
	}
}

func TestOnlyRelevantDocumentsReachTheGenerator(t *testing.T) {
	h := setup(t, returns(refundDoc, lunchDoc), nil, nil)
	var gen []agent.GenerateRequest
	h.model.RouteFunc = vectorRoute
	h.model.GradeFunc = gradesIrrelevantIf("Tacos")
	h.model.GenerateFunc = answers(&gen, "Refunds within 30 days [1].")
	h.model.CheckFunc = verdicts(grounded)

	res := h.ask(t, "", "What is our refund policy?")

	if len(gen) != 1 {
		t.Fatalf("generate calls = %d", len(gen))
	}
	if got := docIDs(gen[0].Docs); !slices.Equal(got, []string{refundDoc.ID}) {
		t.Errorf("generator saw documents %q, want only the refund policy", got)
	}
	// One relevant source: grounded, but medium.
	if res.Confidence != agent.ConfidenceMedium || len(res.Sources) != 1 {
		t.Errorf("confidence = %s sources = %d, want medium and 1", res.Confidence, len(res.Sources))
	}
}

func TestRewritesThenWebFallbackThenNoAnswer(t *testing.T) {
	h := setup(t, returns(lunchDoc), nil, returns(webDoc))
	h.model.RouteFunc = vectorRoute
	h.model.GradeFunc = grades(irrelevant)
	h.model.RewriteFunc = rewrites(nil, onVector("refund window"), onVector("money back policy"), onVector("return purchase reimbursement"))

	res := h.ask(t, "", "What is our refund policy?")

	if res.Confidence != agent.ConfidenceNone || res.Rewrites != 3 {
		t.Errorf("confidence = %s rewrites = %d, want none and 3", res.Confidence, res.Rewrites)
	}
	wantQueries := []string{"What is our refund policy?", "refund window", "money back policy", "return purchase reimbursement"}
	if !slices.Equal(h.vector.queries, wantQueries) {
		t.Errorf("vector queries = %q, want %q", h.vector.queries, wantQueries)
	}
	if len(h.web.queries) != 1 || h.web.queries[0] != "What is our refund policy?" {
		t.Errorf("web fallback queries = %q, want the question once", h.web.queries)
	}
	if h.model.Calls("Generate") != 0 {
		t.Error("generated an answer from irrelevant documents")
	}
	if res.Outcome != agent.OutcomeNotFound || !tried(res, agent.RouteVector, "money back policy") || !tried(res, agent.RouteWeb, "What is our refund policy?") {
		t.Errorf("no-answer does not note what was searched: outcome %q attempts %+v", res.Outcome, res.Attempts)
	}
	tail := res.Trace[len(res.Trace)-3:]
	if want := trace(agent.StepWeb, agent.StepGrade, agent.StepNoAnswer); !slices.Equal(tail, want) {
		t.Errorf("trace ends %v, want %v", tail, want)
	}
	var rewriting []int
	for _, e := range h.events {
		if e.Kind == agent.EventRewriting {
			rewriting = append(rewriting, e.Attempt)
			if e.Max != 3 {
				t.Errorf("rewriting event max = %d", e.Max)
			}
		}
	}
	if !slices.Equal(rewriting, []int{1, 2, 3}) || !slices.Contains(h.kinds(), agent.EventWebFallback) {
		t.Errorf("events = %v (rewrites %v)", h.kinds(), rewriting)
	}
	// The generator never ran, so the original question is still what the result reports.
	if res.Question != "What is our refund policy?" {
		t.Errorf("question = %q", res.Question)
	}
}

func TestRewritesWithoutWebEndInNoAnswer(t *testing.T) {
	h := setup(t, returns(lunchDoc), nil, nil)
	h.model.RouteFunc = vectorRoute
	h.model.GradeFunc = grades(irrelevant)
	h.model.RewriteFunc = rewrites(nil, onVector("refund"), onVector("refund window"), onVector("money back"))

	res := h.ask(t, "", "What is our refund policy?")

	if res.Confidence != agent.ConfidenceNone || res.Outcome != agent.OutcomeNotFound || !skippedWeb(res, agent.SkipNoWebFallback) {
		t.Errorf("confidence = %s outcome = %q attempts = %+v", res.Confidence, res.Outcome, res.Attempts)
	}
	if res.Trace[len(res.Trace)-1] != agent.StepNoAnswer || slices.Contains(res.Trace, agent.StepWeb) {
		t.Errorf("trace = %v", res.Trace)
	}
}

func TestRewriteThatSucceeds(t *testing.T) {
	vec := &fakeRetriever{docs: func(q string) ([]agent.Document, error) {
		if q == "refund window" {
			return []agent.Document{refundDoc, annualDoc}, nil
		}
		return []agent.Document{lunchDoc}, nil
	}}
	h := setup(t, vec, nil, nil)
	var gen []agent.GenerateRequest
	h.model.RouteFunc = vectorRoute
	h.model.GradeFunc = gradesIrrelevantIf("Tacos")
	h.model.RewriteFunc = rewrites(nil, onVector("refund window"))
	h.model.GenerateFunc = answers(&gen, "Within 30 days [1].")
	h.model.CheckFunc = verdicts(grounded)

	res := h.ask(t, "", "How long do customers have to get money back?")

	if res.Rewrites != 1 || res.Confidence != agent.ConfidenceMedium {
		t.Errorf("rewrites = %d confidence = %s, want 1 and medium", res.Rewrites, res.Confidence)
	}
	// The generator answers the user's question, not the rewritten query.
	if len(gen) != 1 || gen[0].Question != "How long do customers have to get money back?" {
		t.Errorf("generator was not given the original question: %+v", gen)
	}
}

func TestRegenerateTwiceThenLowConfidence(t *testing.T) {
	h := setup(t, returns(refundDoc, annualDoc), nil, nil)
	var gen []agent.GenerateRequest
	h.model.RouteFunc = vectorRoute
	h.model.GradeFunc = grades(relevant)
	h.model.GenerateFunc = answers(&gen, "Refunds within 30 days [1], and 90 days for VIPs [1].")
	h.model.CheckFunc = verdicts(agent.Verdict{Grounded: false, Unsupported: []string{"90 days for VIPs"}})

	res := h.ask(t, "", "What is our refund policy?")

	if res.Confidence != agent.ConfidenceLow || res.Regenerations != 2 {
		t.Errorf("confidence = %s regenerations = %d, want low and 2", res.Confidence, res.Regenerations)
	}
	if h.model.Calls("Generate") != 3 || h.model.Calls("Check") != 3 {
		t.Errorf("generate/check calls = %d/%d, want 3/3", h.model.Calls("Generate"), h.model.Calls("Check"))
	}
	if !slices.Equal(res.Unsupported, []string{"90 days for VIPs"}) || res.Answer == "" {
		t.Errorf("unsupported = %q answer = %q", res.Unsupported, res.Answer)
	}
	// A regeneration is told what was unsupported.
	if len(gen) < 2 || !slices.Equal(gen[1].Unsupported, []string{"90 days for VIPs"}) {
		t.Errorf("regeneration was not told the unsupported claim: %+v", gen)
	}
}

func TestRegenerateOnceThenGrounded(t *testing.T) {
	h := setup(t, returns(refundDoc, annualDoc), nil, nil)
	h.model.RouteFunc = vectorRoute
	h.model.GradeFunc = grades(relevant)
	h.model.GenerateFunc = answers(nil, "Draft [1].", "Refunds within 30 days [1].")
	h.model.CheckFunc = verdicts(agent.Verdict{Grounded: false, Unsupported: []string{"Draft"}}, grounded)

	res := h.ask(t, "", "What is our refund policy?")

	if res.Confidence != agent.ConfidenceMedium || res.Regenerations != 1 || res.Answer != "Refunds within 30 days [1]." {
		t.Errorf("confidence = %s regenerations = %d answer = %q", res.Confidence, res.Regenerations, res.Answer)
	}
	if !slices.Contains(h.kinds(), agent.EventRegenerating) {
		t.Error("no regenerating event")
	}
}

func TestDirect(t *testing.T) {
	h := setup(t, returns(refundDoc), nil, nil)
	h.model.RouteFunc = routes(agent.RouteDirect, "general knowledge")
	h.model.DirectFunc = func(context.Context, string, []agent.Turn) (string, bool, error) {
		return "Paris is the capital of France.", true, nil
	}

	res := h.ask(t, "", "What is the capital of France?")

	if res.Confidence != agent.ConfidenceGeneral || res.Answer != "Paris is the capital of France." || len(res.Sources) != 0 {
		t.Errorf("result = %+v", res)
	}
	// The documents were searched for the question while the router was
	// asked (ahead.go), once, and not used.
	if q := h.vector.queries; len(q) > 1 || len(q) == 1 && q[0] != "What is the capital of France?" {
		t.Errorf("the direct route searched the documents for %q", q)
	}
	if want := trace(agent.StepCondense, agent.StepRoute, agent.StepDirect); !slices.Equal(res.Trace, want) {
		t.Errorf("trace = %v", res.Trace)
	}
}

func TestGraphRouteCitesTheCypher(t *testing.T) {
	cypher := "MATCH (s:Supplier)-[:SUPPLIES]->(p:Product) RETURN s.name, p.name LIMIT 25"
	rows := agent.Document{ID: "g1", Title: "Graph query", Location: cypher, Content: "Acme Parts -[SUPPLIES]-> Widget", Route: agent.RouteGraph}
	rows2 := agent.Document{ID: "g2", Title: "Graph query", Location: cypher, Content: "Bolt Co -[SUPPLIES]-> Gear", Route: agent.RouteGraph}
	h := setup(t, nil, returns(rows, rows2), nil)
	h.model.RouteFunc = routes(agent.RouteGraph, "asks who supplies what")
	h.model.GradeFunc = grades(relevant)
	h.model.GenerateFunc = answers(nil, "Acme Parts supplies Widget [1]; Bolt Co supplies Gear [2].")
	h.model.CheckFunc = verdicts(grounded)

	res := h.ask(t, "", "Who supplies our products?")

	// The rows of one query are one source, cited as the query.
	if res.Route != agent.RouteGraph || len(res.Sources) != 1 || res.Sources[0].Location != cypher || res.Sources[0].URL != "" {
		t.Errorf("route = %s sources = %+v", res.Route, res.Sources)
	}
	if want := "Acme Parts supplies Widget [1]; Bolt Co supplies Gear [1]."; res.Answer != want {
		t.Errorf("answer = %q, want %q", res.Answer, want)
	}
}

func TestFollowUpIsCondensed(t *testing.T) {
	h := setup(t, returns(refundDoc, annualDoc), nil, nil)
	h.model.RouteFunc = vectorRoute
	h.model.GradeFunc = grades(relevant)
	h.model.GenerateFunc = answers(nil, "Within 30 days [1].")
	h.model.CheckFunc = verdicts(grounded)
	var history []agent.Turn
	var followUp string
	h.model.CondenseFunc = func(_ context.Context, turns []agent.Turn, question string) (string, error) {
		history, followUp = turns, question
		return "What is our refund policy for annual plans?", nil
	}

	h.ask(t, "t1", "What is our refund policy?")
	res := h.ask(t, "t1", "and for annual plans?")

	if h.model.Calls("Condense") != 1 {
		t.Fatalf("condense calls = %d, want 1 (only the follow-up)", h.model.Calls("Condense"))
	}
	if len(history) != 1 || history[0].Question != "What is our refund policy?" || followUp != "and for annual plans?" {
		t.Errorf("condense did not see the thread's history and the follow-up: %+v, %q", history, followUp)
	}
	if res.Question != "and for annual plans?" || res.Standalone != "What is our refund policy for annual plans?" {
		t.Errorf("question = %q standalone = %q", res.Question, res.Standalone)
	}
	if last := h.vector.queries[len(h.vector.queries)-1]; last != "What is our refund policy for annual plans?" {
		t.Errorf("retrieval used %q, not the standalone question", last)
	}
	th, _ := h.threads.Load(context.Background(), "t1")
	if len(th.Turns) != 2 || th.LastRoute != agent.RouteVector || len(th.LastSources) == 0 {
		t.Errorf("thread = %+v", th)
	}
}

func TestWebRouteNotConfigured(t *testing.T) {
	h := setup(t, returns(refundDoc), nil, nil)
	h.model.RouteFunc = routes(agent.RouteWeb, "asks about today's news")

	res := h.ask(t, "", "What did the Fed announce this morning?")

	if res.Route != agent.RouteWeb || res.Confidence != agent.ConfidenceNone || res.Outcome != agent.OutcomeNotFound || !skippedWeb(res, agent.SkipWebNotSetUp) {
		t.Errorf("route = %s confidence = %s outcome = %q attempts = %+v", res.Route, res.Confidence, res.Outcome, res.Attempts)
	}
}

// tried reports whether the run noted a search for query on route, for
// the presenter to say.
func tried(res agent.Result, route agent.Route, query string) bool {
	return slices.ContainsFunc(res.Attempts, func(a agent.Attempt) bool { return a.Route == route && a.Query == query })
}

// skippedWeb reports whether the run noted that the web was not searched,
// and why, for the presenter to say.
func skippedWeb(res agent.Result, why agent.Skip) bool {
	return slices.ContainsFunc(res.Attempts, func(a agent.Attempt) bool { return a.Route == agent.RouteWeb && a.Skipped == why })
}

func TestModelOutageDegradesToOffline(t *testing.T) {
	h := setup(t, returns(refundDoc, annualDoc), nil, nil)
	h.model.Err = errors.New("llm: route: 503 Service Unavailable")

	res := h.ask(t, "", "What is our refund policy?")

	// The reason is public: it must not carry the server's error, which
	// goes to the asker alone as the event's detail.
	if !res.Offline || res.OfflineReason != "the language model isn't answering" {
		t.Errorf("offline = %v reason = %q", res.Offline, res.OfflineReason)
	}
	if res.Route != agent.RouteVector || res.Answer == "" || res.Confidence == agent.ConfidenceNone {
		t.Errorf("offline engine did not answer: %+v", res)
	}
	n := 0
	for _, e := range h.events {
		if e.Kind == agent.EventDegraded {
			n++
			if strings.Contains(e.Reason, "503") || !strings.Contains(e.Detail, "503 Service Unavailable") {
				t.Errorf("degraded event: reason %q (public), detail %q (private)", e.Reason, e.Detail)
			}
		}
	}
	if n != 1 {
		t.Errorf("degraded events = %d, want exactly 1", n)
	}
	// After the first failure the model is not asked again in this run.
	if c := h.model.Calls(""); c != 1 {
		t.Errorf("model calls after the outage = %d, want 1", c)
	}
}

func TestGradingOutageMidRunRegradesOffline(t *testing.T) {
	h := setup(t, returns(refundDoc, annualDoc), nil, nil)
	h.model.RouteFunc = vectorRoute
	// One grade fails as a server does: the model is gone for the run.
	h.model.GradeFunc = func(_ context.Context, _ string, d agent.Document) (agent.Grade, error) {
		if strings.Contains(d.Content, "pro rata") {
			return relevant, nil
		}
		return agent.Grade{}, errors.New("llm: grade: the model server answered HTTP 503 Service Unavailable")
	}

	res := h.ask(t, "", "What is our refund policy?")

	if !res.Offline || !strings.Contains(res.OfflineReason, "isn't answering") || res.Answer == "" {
		t.Errorf("offline = %v (%s) answer = %q", res.Offline, res.OfflineReason, res.Answer)
	}
	if h.model.Calls("Generate") != 0 {
		t.Error("the model was asked to generate after it failed")
	}
}

// TestUnusableReplyCostsOneCall: a reply the client could not use (the
// server works) is graded offline, and the model still writes the answer;
// the run counts as offline, so its badge is never high.
func TestUnusableReplyCostsOneCall(t *testing.T) {
	h := setup(t, returns(refundDoc, annualDoc), nil, nil)
	h.model.RouteFunc = vectorRoute
	h.model.GradeFunc = func(_ context.Context, _ string, d agent.Document) (agent.Grade, error) {
		if strings.Contains(d.Content, "pro rata") {
			return relevant, nil
		}
		return agent.Grade{}, fmt.Errorf("llm: grade: %w: reply is not valid JSON even after a retry", agent.ErrBadOutput)
	}
	h.model.GenerateFunc = answers(nil, "Annual plans are refunded pro rata after 30 days [1].")
	h.model.CheckFunc = verdicts(grounded)

	res := h.ask(t, "", "What is our refund policy?")

	if h.model.Calls("Generate") == 0 {
		t.Error("one unusable grade took the model off the rest of the run")
	}
	if !res.Offline || res.Confidence == agent.ConfidenceHigh {
		t.Errorf("offline = %v, confidence %s: a mixed run must count as offline", res.Offline, res.Confidence)
	}
	for _, e := range h.events {
		if e.Kind == agent.EventDegraded {
			t.Errorf("an unusable reply announced the model as down: %+v", e)
		}
	}
}

func TestCancellationStopsTheRun(t *testing.T) {
	h := setup(t, returns(refundDoc), nil, nil)
	// A model that takes a minute, or until the run is cancelled.
	h.model.RouteFunc = func(ctx context.Context, _ string) (agent.RouteDecision, error) {
		select {
		case <-ctx.Done():
			return agent.RouteDecision{}, ctx.Err()
		case <-time.After(time.Minute):
			return agent.RouteDecision{Route: agent.RouteVector, Reason: "slow"}, nil
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var failed bool
	done := make(chan error, 1)
	go func() {
		_, err := h.agent.Ask(ctx, agent.Question{Text: "What is our refund policy?"}, func(e agent.Event) {
			failed = failed || e.Kind == agent.EventFailed
		})
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if !failed {
			t.Error("no failed event")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Ask did not stop after cancellation")
	}
}

func TestRetrieverFailureFailsTheRun(t *testing.T) {
	broken := &fakeRetriever{docs: func(string) ([]agent.Document, error) { return nil, errors.New("connection refused") }}
	h := setup(t, broken, nil, nil)
	h.model.RouteFunc = vectorRoute
	_, err := h.agent.Ask(context.Background(), agent.Question{Text: "What is our refund policy?"}, nil)
	if err == nil || !strings.Contains(err.Error(), "condense→route→vector") || agent.ErrorCode(err) != agent.EINTERNAL {
		t.Errorf("err = %v, want an internal error naming the path", err)
	}
}

func TestBadQuestions(t *testing.T) {
	h := setup(t, returns(refundDoc), nil, nil)
	for name, q := range map[string]string{
		"empty":    "",
		"blank":    " \n\t ",
		"control":  "\x00\x01\x02",
		"100 kB":   strings.Repeat("refund ", 100*1024/7),
		"bad utf8": "\xff\xfe",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := h.agent.Ask(context.Background(), agent.Question{Text: q}, nil)
			if agent.ErrorCode(err) != agent.EINVALID {
				t.Fatalf("err = %v, want an EINVALID message", err)
			}
			if msg := agent.ErrorMessage(err); msg == "" || strings.Contains(msg, "agent:") {
				t.Errorf("message %q is not for people", msg)
			}
		})
	}
	if h.model.Calls("") != 0 {
		t.Error("a bad question reached the model")
	}
}
