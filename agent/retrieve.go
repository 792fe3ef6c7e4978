package agent

import (
	"context"
	"errors"
	"fmt"
)

// vector searches internal documents.
func (r *run) vector(ctx context.Context, s *State) error {
	return r.retrieve(ctx, s, RouteVector)
}

// graph searches the knowledge graph.
func (r *run) graph(ctx context.Context, s *State) error {
	return r.retrieve(ctx, s, RouteGraph)
}

// retrieve asks one backend for documents and hands them to the grader. A
// backend that fails is an error of the run: rewriting the query cannot
// repair a database that is down, and the asker should hear so.
func (r *run) retrieve(ctx context.Context, s *State, route Route) error {
	ret := r.retrievers[route]
	if ret == nil {
		return fmt.Errorf("no %s retriever is configured", route)
	}
	again := searchedBefore(s, route)
	var docs []Document
	var ok bool
	var err error
	if route == RouteVector && !again {
		docs, ok, err = r.takeAhead(ctx, s.Query) // searched while the router was asked
	}
	if !ok {
		docs, err = ret.Retrieve(ctx, Request{Query: s.Query, Question: s.Standalone, Scope: s.Scope, Limit: r.budgets.TopK, Again: again})
	}
	if err != nil {
		// The query is the asker's words: it stays out of errors, which
		// are logged at error level.
		return fmt.Errorf("%s search: %w", route, err)
	}
	r.received(s, route, docs)
	return nil
}

// received records a retrieval's documents for grading.
func (r *run) received(s *State, route Route, docs []Document) {
	s.Docs = s.Docs[:0]
	for _, d := range r.unique(docs, route) {
		s.Docs = append(s.Docs, GradedDocument{Document: d})
	}
	s.Attempts = append(s.Attempts, Attempt{Route: route, Query: s.Query, Found: len(s.Docs)})
	r.emit(Event{Kind: EventRetrieved, Route: route, Query: s.Query, Total: len(s.Docs)})
}

// unique is what a retrieval hands to the grader: each document once, at
// most TopK, each marked with the route that found it.
func (r *run) unique(docs []Document, route Route) []Document {
	seen := map[string]bool{}
	var out []Document
	for _, d := range docs {
		key := d.ID
		if key == "" {
			key = d.Location + "\x00" + d.Content
		}
		if seen[key] || len(out) >= r.budgets.TopK {
			continue
		}
		seen[key] = true
		if d.Route == "" {
			d.Route = route
		}
		out = append(out, d)
	}
	return out
}

// isNotConfigured reports whether err means the backend is not set up.
func isNotConfigured(err error) bool { return errors.Is(err, ErrNotConfigured) }

// searchedBefore reports whether route was already searched in this run.
func searchedBefore(s *State, route Route) bool {
	for _, t := range s.tried() {
		if t.Route == route {
			return true
		}
	}
	return false
}
