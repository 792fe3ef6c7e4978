package offline

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/graphwalk"
)

// fixedIndex is a Names over the entities given as "Label:Name".
type fixedIndex struct{ idx *graphwalk.Index }

func (f fixedIndex) EntityIndex(context.Context) (*graphwalk.Index, error) { return f.idx, nil }

func rewriteBrain(entities ...string) *Brain {
	var entries []graphwalk.Entry
	for i, e := range entities {
		label, name, _ := strings.Cut(e, ":")
		entries = append(entries, graphwalk.Entry{ID: fmt.Sprint(i), Name: name, Labels: []string{label}})
	}
	return New(fixedIndex{graphwalk.NewIndex(entries)})
}

var (
	docsOnly  = []agent.Route{agent.RouteVector}
	docsGraph = []agent.Route{agent.RouteVector, agent.RouteGraph}
	allRoutes = []agent.Route{agent.RouteVector, agent.RouteGraph, agent.RouteWeb}
)

// rewrites runs n rewrites the way the agent does: each sees every search
// before it, the question on route first.
func rewrites(t *testing.T, b *Brain, question string, route agent.Route, routes []agent.Route, n int) []agent.Rewrite {
	t.Helper()
	tried := []agent.Tried{{Query: question, Route: route}}
	var out []agent.Rewrite
	for attempt := 1; attempt <= n; attempt++ {
		rw, err := b.Rewrite(context.Background(), agent.RewriteRequest{
			Question: question, Route: route, Tried: tried, Routes: routes, Attempt: attempt, Max: n,
		})
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(rw.Query) == "" || !rw.Route.Valid() {
			t.Fatalf("attempt %d: %+v", attempt, rw)
		}
		out = append(out, rw)
		route = rw.Route
		tried = append(tried, agent.Tried{Query: rw.Query, Route: rw.Route})
	}
	return out
}

// The first rewrite is always a new search; a later one repeats a search
// only when the ideas are spent (TestRewriteRunsOutOfIdeas).
func TestRewriteNeverRepeatsASearch(t *testing.T) {
	b := rewriteBrain("Customer:Acme Corp", "Customer:Globex")
	for _, q := range []string{
		"How long do we retain deployment logs?",
		"How many vacation days do employees get?",
		"What is our data retention policy for EU customers?",
		"Which suppliers are connected to our top 3 customers?",
		"Does Acme Corp have a discount?",
	} {
		t.Run(q, func(t *testing.T) {
			seen := map[string]bool{agent.NormalizeQuery(q) + "/vector": true}
			for i, rw := range rewrites(t, b, q, agent.RouteVector, docsGraph, 1) {
				key := agent.NormalizeQuery(rw.Query) + "/" + string(rw.Route)
				if seen[key] {
					t.Errorf("attempt %d: %q on %s repeats a search", i+1, rw.Query, rw.Route)
				}
				seen[key] = true
			}
		})
	}
}

func TestRewriteAttempts(t *testing.T) {
	got := rewrites(t, rewriteBrain(), "How long do we retain deployment logs?", agent.RouteVector, allRoutes, 1)
	want := []string{"long retain deployment logs retentive deploy logger retention logging"}
	for i, w := range want {
		if got[i].Query != w || got[i].Route != agent.RouteVector || got[i].Reason != "" {
			t.Errorf("attempt %d = %+v; want %q on vector", i+1, got[i], w)
		}
	}
}

// A word the question quotes is searched for alone first: the scene
// around it ("on the bridge") finds other documents.
func TestRewriteSearchesTheQuotedWord(t *testing.T) {
	got := rewrites(t, rewriteBrain(), "someone typed 'canary' in the war room, what's that mean?", agent.RouteVector, allRoutes, 1)
	if len(got) == 0 || got[0].Query != "canary" {
		t.Errorf("first rewrite = %+v; want the quoted canary", got)
	}
}

// A question with few keywords and no related words has few new queries;
// the rewrite after the last can only repeat one, which tells the agent to
// stop rewriting.
func TestRewriteRunsOutOfIdeas(t *testing.T) {
	for q, want := range map[string][]string{
		"What is moonlighting?": {"moonlighting moonlighter moonshine moon"},
		"refund policy":         {}, // already its keywords, and WordNet relates nothing to them
	} {
		got := rewrites(t, rewriteBrain(), q, agent.RouteVector, docsOnly, len(want)+1)
		tried := []agent.Tried{{Query: q, Route: agent.RouteVector}}
		for i, w := range want {
			if got[i].Query != w {
				t.Errorf("%q: rewrite %d = %q, want %q", q, i+1, got[i].Query, w)
			}
			tried = append(tried, agent.Tried{Query: got[i].Query, Route: agent.RouteVector})
		}
		if last := got[len(want)].Query; !agent.Searched(tried, last, agent.RouteVector) {
			t.Errorf("%q: rewrite %d = %q, want a repeat", q, len(want)+1, last)
		}
	}
}

// The expanded query gives every keyword a related word before any keyword
// a second one, and gives none to the words that only shape the question
// ("how long"); a phrase ("sign up") is one term.
func TestExpandedQuery(t *testing.T) {
	for _, tt := range []struct{ question, want string }{
		{"How long do we keep CVs?", "long keep cvs keeping curriculum vitae keeper resume hold maintain"},
		{"Can I sign up for a cheaper plan?", "sign up cheaper plan contract cheapness planner sign inexpensive planning sign on program programme"},
		{"How do I renew my token?", "renew token renewal item regenerate"},
	} {
		if got := expandedQuery(keywords(tt.question)); got != tt.want {
			t.Errorf("expandedQuery(%q) =\n  %q\nwant\n  %q", tt.question, got, tt.want)
		}
		if n := len(strings.Fields(expandedQuery(keywords(tt.question)))); n > 2*maxQueryTerms {
			t.Errorf("expandedQuery(%q) has %d words", tt.question, n)
		}
	}
}

func TestRewriteSwitchesToTheGraph(t *testing.T) {
	b := rewriteBrain("Product:Geitost", "Category:Produce", "Supplier:Bigfoot Breweries")
	tests := []struct {
		question string
		routes   []agent.Route
		want     agent.Route
		reason   string
	}{
		{"Who makes Geitost?", docsGraph, agent.RouteGraph, "Geitost (a product) is in the knowledge graph"},
		{"What beers can we get from Bigfoot Breweries?", allRoutes, agent.RouteGraph, "Bigfoot Breweries (a supplier)"},
		{"who makes geitost", docsGraph, agent.RouteGraph, "Geitost"}, // all lowercase: taken at its word
		// No graph retriever: the rewrite stays with the documents.
		{"Who makes Geitost?", docsOnly, agent.RouteVector, ""},
		// "produce" is a Category, but written as a verb.
		{"How do I produce the quarterly report?", docsGraph, agent.RouteVector, ""},
		{"What is our refund policy?", allRoutes, agent.RouteVector, ""},
	}
	for _, tt := range tests {
		got := rewrites(t, b, tt.question, agent.RouteVector, tt.routes, 1)[0]
		if got.Route != tt.want || !strings.Contains(got.Reason, tt.reason) || (tt.reason == "") != (got.Reason == "") {
			t.Errorf("%q: %+v; want route %s, reason %q", tt.question, got, tt.want, tt.reason)
		}
	}

	// The switch is made once, with the question itself (the graph walk
	// reads questions); later rewrites vary the words on the graph.
	got := rewrites(t, b, "Who makes Geitost?", agent.RouteVector, docsGraph, 3)
	if got[0].Query != "Who makes Geitost?" || got[1].Route != agent.RouteGraph || got[1].Query != expandedQuery(keywords("Who makes Geitost?")) || got[1].Reason != "" {
		t.Errorf("rewrites = %+v", got)
	}
}

func TestRewriteLeavesTheGraph(t *testing.T) {
	b := rewriteBrain("Customer:Acme Corp")
	// Nothing in the graph and no entity named: the documents, at once.
	got := rewrites(t, b, "Which customers are eligible for refunds?", agent.RouteGraph, allRoutes, 2)
	if got[0].Route != agent.RouteVector || got[0].Query != "Which customers are eligible for refunds?" || got[0].Reason == "" {
		t.Errorf("first rewrite = %+v; want the question on vector", got[0])
	}
	if got[1].Route != agent.RouteVector || got[1].Query != expandedQuery(keywords("Which customers are eligible for refunds?")) {
		t.Errorf("second rewrite = %+v; want keywords on vector", got[1])
	}
	// An entity named, or only the graph's shape: the graph it stays.
	for _, q := range []string{"What is Acme Corp's refund policy?", "Who supplies Globex Corporation?"} {
		for _, rw := range rewrites(t, b, q, agent.RouteGraph, docsGraph, 3) {
			if rw.Route != agent.RouteGraph {
				t.Errorf("%q: rewrite %+v left the graph", q, rw)
			}
		}
	}
	// Without a vector retriever it stays on the graph.
	for _, rw := range rewrites(t, b, "Which customers are eligible for refunds?", agent.RouteGraph, []agent.Route{agent.RouteGraph}, 3) {
		if rw.Route != agent.RouteGraph {
			t.Errorf("switched to %s, which is not offered", rw.Route)
		}
	}
}

func TestRewriteLeavesTheWeb(t *testing.T) {
	b := rewriteBrain("Customer:Globex")
	for q, want := range map[string]agent.Route{
		"What did our team announce today?":        agent.RouteVector,
		"What did Globex announce today?":          agent.RouteGraph,
		"Who won the match last night?":            agent.RouteWeb,
		"What is the latest stock price of ACME?":  agent.RouteWeb,
		"What is the latest version of our policy": agent.RouteVector,
	} {
		if got := rewrites(t, b, q, agent.RouteWeb, allRoutes, 1)[0]; got.Route != want {
			t.Errorf("%q: %+v; want %s", q, got, want)
		}
	}
}

func TestRewriteNeverEmpty(t *testing.T) {
	b := rewriteBrain()
	for _, tt := range []struct{ question, query string }{
		{"what is it?", "what is it?"},
		{"", ""},
		{"   ", "refund"},
		{"???", ""},
	} {
		for attempt := -1; attempt <= 5; attempt++ {
			got, err := b.Rewrite(context.Background(), agent.RewriteRequest{
				Question: tt.question, Route: agent.RouteVector, Routes: docsOnly, Attempt: attempt,
				Tried: []agent.Tried{{Query: tt.query, Route: agent.RouteVector}},
			})
			if err != nil || strings.TrimSpace(got.Query) == "" || got.Route != agent.RouteVector {
				t.Errorf("Rewrite(%q, %q, %d) = %+v, %v", tt.question, tt.query, attempt, got, err)
			}
		}
	}
	// No routes offered at all, and no searches: the current route.
	got, err := b.Rewrite(context.Background(), agent.RewriteRequest{Question: "refunds?", Route: agent.RouteGraph})
	if err != nil || got.Route != agent.RouteGraph || got.Query == "" {
		t.Errorf("Rewrite with no routes = %+v, %v", got, err)
	}
}
