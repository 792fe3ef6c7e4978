package agent

import (
	"context"
	"fmt"
)

// web searches the public web: as the chosen route, or as the fallback
// after the rewrites are used up. Unlike the internal stores, a web search
// that is not configured or fails is not an error of the run: the answer
// says what happened and ends without one.
func (r *run) web(ctx context.Context, s *State) (Step, error) {
	s.WebTried = true
	ret := r.retrievers[RouteWeb]
	if ret == nil {
		return r.webUnavailable(s, webNotSetUp, webSetUpHint)
	}
	docs, err := ret.Retrieve(ctx, Request{Query: s.Query, Question: s.Standalone, Scope: s.Scope, Limit: r.budgets.TopK})
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	if isNotConfigured(err) {
		return r.webUnavailable(s, webNotSetUp, webSetUpHint)
	}
	if err != nil {
		return r.webUnavailable(s, "web search failed", fmt.Sprintf("Web search failed: %v", err))
	}
	r.received(s, RouteWeb, docs)
	return StepGrade, nil
}

// What the thread reads when the web route has no search to use, and what
// only the asker is told: the setting is an admin's business.
const (
	webNotSetUp  = "web search isn't set up here"
	webSetUpHint = "Web search is not configured: an admin can enable it by setting TAVILY_API_KEY."
)

// webUnavailable ends the web route with why, which the answer shows;
// detail goes to the asker alone.
func (r *run) webUnavailable(s *State, why, detail string) (Step, error) {
	s.Attempts = append(s.Attempts, Attempt{Route: RouteWeb, Query: s.Query, Note: why})
	r.emit(Event{Kind: EventNotice, Step: StepWeb, Route: RouteWeb, Reason: why, Detail: detail})
	return StepNoAnswer, nil
}

// webAvailable reports whether a web fallback is worth trying.
func (r *run) webAvailable(s *State) bool {
	return r.retrievers[RouteWeb] != nil && !s.WebTried
}
