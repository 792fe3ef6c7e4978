package agent_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/graphwalk"
	"github.com/switchboard/switchboard/llm/offline"
)

var (
	chaiDoc  = agent.Document{ID: "g1", Title: "Knowledge graph", Location: "MATCH (s)-[:SUPPLIES]->(p {name:'Chai'})", Content: "Exotic Liquids (Supplier) -[SUPPLIES]-> Chai (Product)", Route: agent.RouteGraph}
	chaiDoc2 = agent.Document{ID: "g2", Title: "Knowledge graph", Location: "MATCH (p {name:'Chai'})-[:PART_OF]->(c)", Content: "Chai (Product) -[PART_OF]-> Beverages (Category)", Route: agent.RouteGraph}
)

// rewritings returns the run's rewriting events.
func (h *harness) rewritings() []agent.Event {
	var out []agent.Event
	for _, e := range h.events {
		if e.Kind == agent.EventRewriting {
			out = append(out, e)
		}
	}
	return out
}

// searches is every query a retriever was asked, normalised.
func searches(f *fakeRetriever) []string {
	if f == nil {
		return nil
	}
	out := make([]string, len(f.queries))
	for i, q := range f.queries {
		out[i] = agent.NormalizeQuery(q)
	}
	return out
}

func hasRepeats(qs []string) bool {
	seen := map[string]bool{}
	for _, q := range qs {
		if seen[q] {
			return true
		}
		seen[q] = true
	}
	return false
}

func TestRewriteSeesEveryTriedQueryAndNeverRepeatsOne(t *testing.T) {
	h := setup(t, returns(lunchDoc), nil, nil)
	// A careful model: it proposes the first of its ideas that the list of
	// searches tried does not show, and its second idea is the original
	// question again (in other case and punctuation). That the list shows
	// it is what keeps it from being searched twice. (When a model repeats
	// a search anyway, llm.Brain tells it so and asks once more: llm's
	// TestRewrite.)
	ideas := []string{"refund window", "what is our REFUND policy", "money back", "return purchase reimbursement"}
	var reqs []agent.RewriteRequest
	h.model.RouteFunc = vectorRoute
	h.model.GradeFunc = grades(irrelevant)
	h.model.RewriteFunc = func(_ context.Context, req agent.RewriteRequest) (agent.Rewrite, error) {
		reqs = append(reqs, req)
		for _, q := range ideas {
			if !agent.Searched(req.Tried, q, agent.RouteVector) {
				return onVector(q), nil
			}
		}
		return agent.Rewrite{}, errors.New("out of ideas")
	}

	res := h.ask(t, "", "What is our refund policy?")

	want := []string{"what is our refund policy", "refund window", "money back", "return purchase reimbursement"}
	if got := searches(h.vector); !slices.Equal(got, want) {
		t.Errorf("vector queries = %q, want %q", got, want)
	}
	if res.Offline || res.Rewrites != 3 {
		t.Errorf("offline = %v (%s) rewrites = %d; want online and 3", res.Offline, res.OfflineReason, res.Rewrites)
	}
	if len(reqs) != 3 {
		t.Fatalf("rewrite calls = %d, want 3", len(reqs))
	}
	// The third rewrite is told of the original and both rewrites, oldest
	// first, with what each found.
	wantTried := []agent.Tried{
		{Query: "What is our refund policy?", Route: agent.RouteVector, Found: 1, Relevant: 0},
		{Query: "refund window", Route: agent.RouteVector, Found: 1, Relevant: 0},
		{Query: "money back", Route: agent.RouteVector, Found: 1, Relevant: 0},
	}
	if r := reqs[2]; !slices.Equal(r.Tried, wantTried) || r.Attempt != 3 || r.Max != 3 || r.Question != "What is our refund policy?" {
		t.Errorf("third rewrite request = %+v, want tried %+v, attempt 3 of 3", r, wantTried)
	}
}

func TestRewriteRepeatsFromTheModelFallBackToOffline(t *testing.T) {
	h := setup(t, returns(lunchDoc), nil, nil)
	// A model that can only repeat the question: its rewrites are refused,
	// and the offline rewriter, which sees the same list, takes over.
	h.model.RouteFunc = vectorRoute
	h.model.GradeFunc = grades(irrelevant)
	h.model.RewriteFunc = rewrites(nil, onVector("How long do we retain deployment logs?"))

	res := h.ask(t, "", "How long do we retain deployment logs?")

	// The offline rewriter has one new query (the keywords with their
	// related words); its second rewrite repeats it, which ends the run.
	if got := searches(h.vector); hasRepeats(got) || len(got) != 2 {
		t.Errorf("vector queries = %q; want 2, none repeated", got)
	}
	if !res.Offline || res.Rewrites != 1 || res.Confidence != agent.ConfidenceNone {
		t.Errorf("offline = %v rewrites = %d confidence = %s", res.Offline, res.Rewrites, res.Confidence)
	}
	// Only the first search of the route is a first one.
	if want := []bool{false, true}; !slices.Equal(h.vector.again, want) {
		t.Errorf("Request.Again = %v, want %v", h.vector.again, want)
	}
	// A repeat costs only that rewrite: the model stays on for the rest of
	// the run, asked for each rewrite and grading every search.
	if h.model.Calls("Rewrite") != 2 || h.model.Calls("Grade") != 2 {
		t.Errorf("calls to the model: %d rewrites, %d grades; want 2 and 2", h.model.Calls("Rewrite"), h.model.Calls("Grade"))
	}
}

func TestRewriteSwitchesRouteMidRun(t *testing.T) {
	graph := returns(chaiDoc, chaiDoc2)
	h := setup(t, returns(lunchDoc), graph, nil)
	var reqs []agent.RewriteRequest
	h.model.RouteFunc = vectorRoute
	h.model.GradeFunc = gradesIrrelevantIf("Tacos")
	h.model.RewriteFunc = rewrites(&reqs, agent.Rewrite{Query: "Chai supplier", Route: agent.RouteGraph})
	h.model.GenerateFunc = answers(nil, "Exotic Liquids supplies Chai [1].")
	h.model.CheckFunc = verdicts(grounded)

	res := h.ask(t, "", "Who makes Chai?")

	want := trace(agent.StepCondense, agent.StepRoute, agent.StepVector, agent.StepGrade, agent.StepRewrite,
		agent.StepGraph, agent.StepGrade, agent.StepGenerate, agent.StepCheck)
	if !slices.Equal(res.Trace, want) {
		t.Errorf("trace = %v, want %v", res.Trace, want)
	}
	if !slices.Equal(graph.queries, []string{"Chai supplier"}) || len(h.vector.queries) != 1 {
		t.Errorf("graph queries = %q vector queries = %q", graph.queries, h.vector.queries)
	}
	// The rewriter gave no reason, and without Words none is written.
	if res.Route != agent.RouteGraph || res.RouteReason != "" {
		t.Errorf("route = %s (%s), want graph with no reason", res.Route, res.RouteReason)
	}
	if res.Rewrites != 1 || res.Confidence != agent.ConfidenceMedium || len(res.Sources) != 1 || res.Sources[0].Route != agent.RouteGraph {
		t.Errorf("rewrites = %d confidence = %s sources = %+v", res.Rewrites, res.Confidence, res.Sources)
	}
	rw := h.rewritings()
	if len(rw) != 1 || rw[0].Route != agent.RouteGraph || rw[0].From != agent.RouteVector || rw[0].Query != "Chai supplier" {
		t.Errorf("rewriting events = %+v; want one from the documents to the graph", rw)
	}
	// The model was offered the graph, since a graph retriever exists.
	if len(reqs) != 1 || !slices.Equal(reqs[0].Routes, []agent.Route{agent.RouteVector, agent.RouteGraph}) || reqs[0].Route != agent.RouteVector {
		t.Errorf("rewrite requests = %+v; want vector and graph offered, from vector", reqs)
	}
}

func TestRewriteCannotSwitchToAnUnconfiguredRoute(t *testing.T) {
	// Documents only: no graph retriever, no web search.
	h := setup(t, returns(lunchDoc), nil, nil)
	var reqs []agent.RewriteRequest
	h.model.RouteFunc = vectorRoute
	h.model.GradeFunc = grades(irrelevant)
	// A model that names routes it was not offered: the agent keeps the
	// rewrites on the documents.
	h.model.RewriteFunc = rewrites(&reqs, agent.Rewrite{Query: "refund window", Route: agent.RouteWeb, Reason: "the web knows"},
		agent.Rewrite{Query: "Acme refunds", Route: agent.RouteGraph}, agent.Rewrite{Query: "money back", Route: agent.RouteDirect})

	res := h.ask(t, "", "What is our refund policy?")

	for _, s := range res.Trace {
		if s == agent.StepWeb || s == agent.StepGraph || s == agent.StepDirect {
			t.Fatalf("trace = %v: a rewrite reached an unconfigured route", res.Trace)
		}
	}
	if got := searches(h.vector); !slices.Equal(got, []string{"what is our refund policy", "refund window", "acme refunds", "money back"}) {
		t.Errorf("vector queries = %q: the rewrites should stay with the documents", got)
	}
	if res.Route != agent.RouteVector || res.Offline {
		t.Errorf("route = %s offline = %v", res.Route, res.Offline)
	}
	for _, e := range h.rewritings() {
		if e.Route != agent.RouteVector || e.Reason != "" {
			t.Errorf("rewriting event %+v reports a switch", e)
		}
	}
	for _, r := range reqs {
		if !slices.Equal(r.Routes, []agent.Route{agent.RouteVector}) {
			t.Errorf("the model was offered routes that are not configured: %v", r.Routes)
		}
	}
}

func TestRewriteSwitchesKeepTheBudgets(t *testing.T) {
	vec, graph, web := returns(lunchDoc), returns(lunchDoc), returns(webDoc)
	h := setup(t, vec, graph, web)
	// The model hops between every route; nothing is ever relevant.
	h.model.RouteFunc = vectorRoute
	h.model.GradeFunc = grades(irrelevant)
	h.model.RewriteFunc = rewrites(nil, agent.Rewrite{Query: "refund graph", Route: agent.RouteGraph}, agent.Rewrite{Query: "refund web", Route: agent.RouteWeb},
		onVector("refund docs"), agent.Rewrite{Query: "refund more", Route: agent.RouteGraph})

	res := h.ask(t, "", "What is our refund policy?")

	if res.Rewrites != 3 || res.Confidence != agent.ConfidenceNone || h.model.Calls("Rewrite") != 3 {
		t.Errorf("rewrites = %d (%d calls) confidence = %s", res.Rewrites, h.model.Calls("Rewrite"), res.Confidence)
	}
	// The web was searched once, by the switch; there is no second web
	// search as a fallback.
	if len(web.queries) != 1 || slices.Contains(h.kinds(), agent.EventWebFallback) {
		t.Errorf("web queries = %q, events = %v", web.queries, h.kinds())
	}
	if n := len(vec.queries) + len(graph.queries) + len(web.queries); n != 4 {
		t.Errorf("%d searches, want 4 (the question and 3 rewrites)", n)
	}
	if res.Trace[len(res.Trace)-1] != agent.StepNoAnswer || strings.Contains(res.Answer, "not configured") {
		t.Errorf("trace = %v answer:\n%s", res.Trace, res.Answer)
	}
	var routes []agent.Route
	for _, e := range h.rewritings() {
		routes = append(routes, e.Route)
	}
	if !slices.Equal(routes, []agent.Route{agent.RouteGraph, agent.RouteWeb, agent.RouteVector}) {
		t.Errorf("rewriting events name routes %v", routes)
	}
}

func TestRewriteThenWebFallbackOnce(t *testing.T) {
	vec, graph, web := returns(lunchDoc), returns(lunchDoc), returns(webDoc)
	h := setup(t, vec, graph, web)
	h.model.RouteFunc = vectorRoute
	h.model.GradeFunc = grades(irrelevant)
	h.model.RewriteFunc = rewrites(nil, agent.Rewrite{Query: "refund graph", Route: agent.RouteGraph}, onVector("refund docs"),
		agent.Rewrite{Query: "refund more", Route: agent.RouteGraph})

	res := h.ask(t, "", "What is our refund policy?")

	if res.Rewrites != 3 || !slices.Equal(web.queries, []string{"What is our refund policy?"}) || !slices.Contains(h.kinds(), agent.EventWebFallback) {
		t.Errorf("rewrites = %d web queries = %q events = %v", res.Rewrites, web.queries, h.kinds())
	}
}

// chaiNames is a graph index that knows one product.
type chaiNames struct{}

func (chaiNames) EntityIndex(context.Context) (*graphwalk.Index, error) {
	return graphwalk.NewIndex([]graphwalk.Entry{{ID: "p1", Name: "Chai", Labels: []string{"Product"}}}), nil
}

// documentsRouter is the offline engine with a router that always picks
// the documents, as a router that misses a question's graph entity would.
type documentsRouter struct{ *offline.Brain }

func (documentsRouter) Route(context.Context, string) (agent.RouteDecision, error) {
	return agent.RouteDecision{Route: agent.RouteVector, Reason: "asks about internal documents"}, nil
}

// EvidentRoute hides the engine's own: this router always says vector.
func (documentsRouter) EvidentRoute(context.Context, string) (agent.RouteDecision, bool, error) {
	return agent.RouteDecision{}, false, nil
}

func TestOfflineRewriterSwitchesToTheGraph(t *testing.T) {
	// The offline engine end to end: the router sends a question about Chai
	// to the documents, the documents have nothing, and the rewriter sees
	// that Chai is a product of the graph.
	vec := returns(lunchDoc)
	graph := &fakeRetriever{docs: func(q string) ([]agent.Document, error) {
		if strings.Contains(strings.ToLower(q), "chai") {
			return []agent.Document{chaiDoc, chaiDoc2}, nil
		}
		return nil, nil
	}}
	a, err := agent.New(agent.Config{
		Offline:    documentsRouter{offline.New(chaiNames{})},
		Retrievers: map[agent.Route]agent.Retriever{agent.RouteVector: vec, agent.RouteGraph: graph},
	})
	if err != nil {
		t.Fatal(err)
	}
	var events []agent.Event
	res, err := a.Ask(context.Background(), agent.Question{Text: "Where does Chai come from?"}, func(e agent.Event) { events = append(events, e) })
	if err != nil {
		t.Fatal(err)
	}
	if len(vec.queries) == 0 || len(graph.queries) == 0 || graph.queries[0] != "Where does Chai come from?" {
		t.Fatalf("vector queries %q, graph queries %q; want the question on both", vec.queries, graph.queries)
	}
	if res.Route != agent.RouteGraph || res.Rewrites != 1 || !strings.Contains(res.Answer, "Exotic Liquids") {
		t.Errorf("route = %s rewrites = %d answer = %q", res.Route, res.Rewrites, res.Answer)
	}
	for _, e := range events {
		if e.Kind == agent.EventRewriting && (e.Route != agent.RouteGraph || !strings.Contains(e.Reason, "Chai")) {
			t.Errorf("rewriting event %+v", e)
		}
	}
}

func TestOfflineRewriterOutOfIdeasEndsEarly(t *testing.T) {
	vec := returns(lunchDoc)
	a, err := agent.New(agent.Config{Offline: offline.New(nil), Retrievers: map[agent.Route]agent.Retriever{agent.RouteVector: vec}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Ask(context.Background(), agent.Question{Text: "What is our refund policy?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// "refund policy", and no other query that is new: WordNet relates no
	// other word to its keywords.
	if got := searches(vec); hasRepeats(got) || len(got) != 2 || res.Rewrites != 1 {
		t.Errorf("vector queries = %q rewrites = %d", got, res.Rewrites)
	}
	if tail := res.Trace[len(res.Trace)-2:]; !slices.Equal(tail, trace(agent.StepRewrite, agent.StepNoAnswer)) || res.Confidence != agent.ConfidenceNone {
		t.Errorf("trace = %v confidence = %s", res.Trace, res.Confidence)
	}
	if !skippedWeb(res, agent.SkipNoWebFallback) {
		t.Errorf("the run does not note that the web was not searched: %+v", res.Attempts)
	}
}

type emptyGraph struct{}

func (emptyGraph) EntityIndex(context.Context) (*graphwalk.Index, error) {
	return graphwalk.NewIndex(nil), nil
}

// A model's router that picks the graph when the graph holds nothing is
// overruled by the offline router (agent.GraphKeeper); with a graph, it
// is not.
func TestEmptyGraphIsNoRoute(t *testing.T) {
	for _, tt := range []struct {
		names offline.Names
		want  agent.Route
	}{
		{emptyGraph{}, agent.RouteVector},
		{chaiNames{}, agent.RouteGraph},
	} {
		model := scriptedModel(t)
		model.RouteFunc = routes(agent.RouteGraph, "asks how things are connected")
		model.GradeFunc = grades(relevant)
		model.GenerateFunc = answers(nil, "Lunch is at noon [1].")
		model.CheckFunc = verdicts(grounded)
		a, err := agent.New(agent.Config{Model: model, Offline: offline.New(tt.names),
			Retrievers: map[agent.Route]agent.Retriever{agent.RouteVector: returns(lunchDoc), agent.RouteGraph: returns(chaiDoc)}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := a.Ask(context.Background(), agent.Question{Text: "When is lunch served?"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Route != tt.want {
			t.Errorf("%T: route = %s, want %s", tt.names, res.Route, tt.want)
		}
	}
}
