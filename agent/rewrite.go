package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// Rewriter is the port of the rewrite node.
type Rewriter interface {
	// Rewrite proposes a new search after the last one found nothing
	// relevant: a query, and the route to send it to, which may differ
	// from the failed one ("asks the documents, but names a product" →
	// graph), so that a misrouted question can still find its answer.
	// One call gives both.
	//
	// The proposal must be new: a query never sent to the route it names
	// (Searched over req.Tried). A route outside req.Routes, or none,
	// means req.Route. A repeat or an empty query is taken as the
	// Brain's failure: from the model, the offline rewriter is asked
	// instead; when the offline rewriter has nothing new either,
	// rewriting ends early (the web fallback, then no answer). Reason,
	// when the route changes, is shown to the user.
	Rewrite(ctx context.Context, req RewriteRequest) (Rewrite, error)
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

// rewrite proposes a new search after a retrieval found nothing relevant:
// a new query, and possibly a new route, so that a question the router sent
// to the documents can still reach the graph or the web (docs/DESIGN.md,
// rule 9). Only the search changes: the generator still answers the
// question the user asked (rule 2).
//
// The rewriter sees every search of the run (s.Attempts) and the routes this
// agent can search. The agent holds it to both: a switch to a route with no
// retriever is refused (the rewrite stays on the current route), and a
// query already sent to the chosen route is never sent there again. When
// the rewriter has no new search left (s.NoNewSearch), rewriting ends
// early and the run goes on as if the budget were spent: the web
// fallback, then no answer. The edges (graph.go) lead to the retrieval
// node of s.Route, or to that fallback.
func (r *run) rewrite(ctx context.Context, s *State, p port[Rewriter]) error {
	s.Rewrites++
	req := RewriteRequest{
		Question: s.Standalone,
		Route:    s.Route,
		Tried:    s.tried(),
		Routes:   r.rewriteRoutes(s),
		Attempt:  s.Rewrites,
		Max:      r.budgets.MaxRewrites,
	}
	var rw Rewrite
	err := p.ask(r, ctx, s, func(rwr Rewriter) (err error) {
		rw, err = rwr.Rewrite(ctx, req)
		if err == nil && !r.usable(req, &rw) {
			// A repeat from the model is its failure, like any bad
			// output; the offline rewriter then tries.
			err = errRepeat
		}
		return err
	})
	if errors.Is(err, errRepeat) {
		// Not even the offline rewriter has a search left to try: this
		// rewrite was not made.
		s.Rewrites--
		s.NoNewSearch = true
		return nil
	}
	if err != nil {
		return err
	}
	switched := rw.Route != s.Route
	s.Query = rw.Query
	ev := Event{Kind: EventRewriting, Step: StepRewrite, Route: rw.Route, Attempt: s.Rewrites, Max: r.budgets.MaxRewrites, Query: s.Query}
	if switched {
		reason := strings.TrimSpace(rw.Reason)
		if reason == "" && r.words != nil {
			reason = r.words.Switched(s.Route, rw.Route)
		}
		ev.From = s.Route
		s.Route, s.RouteReason = rw.Route, reason
		s.Switches++
		ev.Reason = reason
	}
	r.emit(ev)
	return nil
}

// errRepeat marks a rewrite that would only repeat a search. From the
// model it is an unusable reply (ErrBadOutput): the offline rewriter takes
// this one call, and the model stays on for the rest of the run.
var errRepeat = fmt.Errorf("%w: the rewrite repeats a search already made", ErrBadOutput)

// usable holds a rewrite to the request: a route outside req.Routes (or
// none) means the current route, and the query must be new to that route.
func (r *run) usable(req RewriteRequest, rw *Rewrite) bool {
	if rw.Route == "" || !containsRoute(req.Routes, rw.Route) {
		rw.Route, rw.Reason = req.Route, ""
	}
	rw.Query = strings.TrimSpace(rw.Query)
	return rw.Query != "" && !Searched(req.Tried, rw.Query, rw.Route)
}

// rewriteRoutes are the routes a rewrite may search: the current one and
// every other retrieval route with a retriever. Direct is never one: a
// rewrite is for a search. The web is offered only when web search is
// configured, and not once the web fallback has run.
func (r *run) rewriteRoutes(s *State) []Route {
	routes := []Route{s.Route}
	for _, rt := range []Route{RouteVector, RouteGraph, RouteWeb} {
		if rt == s.Route || r.retrievers[rt] == nil || (rt == RouteWeb && s.Fallback) {
			continue
		}
		routes = append(routes, rt)
	}
	return routes
}

func containsRoute(routes []Route, r Route) bool {
	for _, x := range routes {
		if x == r {
			return true
		}
	}
	return false
}

// tried lists the searches the run has made, oldest first: every
// retrieval that ran (a web search that was not configured or failed did
// not, and is left out).
func (s *State) tried() []Tried {
	out := make([]Tried, 0, len(s.Attempts))
	for _, a := range s.Attempts {
		if a.Skipped != "" || a.Query == "" {
			continue
		}
		out = append(out, Tried{Query: a.Query, Route: a.Route, Found: a.Found, Relevant: a.Relevant})
	}
	return out
}
