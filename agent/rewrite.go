package agent

import (
	"context"
	"errors"
	"strconv"
	"strings"
)

// rewrite proposes a new search after a retrieval found nothing relevant:
// a new query, and possibly a new route, so that a question the router sent
// to the documents can still reach the graph or the web. Only the search
// changes: the generator still answers the question the user asked.
//
// The rewriter sees every search of the run (s.Attempts) and the routes this
// agent can search. The agent holds it to both: a switch to a route with no
// retriever is refused (the rewrite stays on the current route), and a
// query already sent to the chosen route is never sent there again. When
// the rewriter has no new search left, rewriting ends early and the run
// goes on as if the budget were spent: the web fallback, then no answer.
func (r *run) rewrite(ctx context.Context, s *State) (Step, error) {
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
	err := r.think(ctx, s, func(b Brain) (err error) {
		rw, err = b.Rewrite(ctx, req)
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
		return r.fallback(s, StepRewrite, "no new search query left after "+strconv.Itoa(s.Rewrites)+" rewrites"), nil
	}
	if err != nil {
		return "", err
	}
	switched := rw.Route != s.Route
	s.Query = rw.Query
	ev := Event{Kind: EventRewriting, Step: StepRewrite, Route: rw.Route, Attempt: s.Rewrites, Max: r.budgets.MaxRewrites, Query: s.Query}
	if switched {
		reason := strings.TrimSpace(rw.Reason)
		if reason == "" {
			reason = "nothing relevant in " + routeName(s.Route) + ", so searching " + routeName(rw.Route)
		}
		s.Route, s.RouteReason = rw.Route, reason
		s.Switches++
		ev.Reason = reason
	}
	r.emit(ev)
	return retrievalStep(s.Route), nil
}

// errRepeat marks a rewrite that would only repeat a search.
var errRepeat = errors.New("the rewrite repeats a search already made")

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
		if a.Note != "" || a.Query == "" {
			continue
		}
		out = append(out, Tried{Query: a.Query, Route: a.Route, Found: a.Found, Relevant: a.Relevant})
	}
	return out
}

// routeName is how status lines and reasons name a route.
func routeName(r Route) string {
	switch r {
	case RouteVector:
		return "the documents"
	case RouteGraph:
		return "the knowledge graph"
	case RouteWeb:
		return "the web"
	case RouteDirect:
		return "the model alone"
	}
	return string(r)
}
