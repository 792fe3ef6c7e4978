package agent

import (
	"context"
	"strconv"
)

// web searches the public web: as the chosen route (the router's or a
// rewrite's), or as the fallback once rewriting is over. Unlike the
// internal stores, a web search that is not configured or fails is not an
// error of the run: the answer says what happened and ends without one.
func (r *run) web(ctx context.Context, s *State) error {
	if s.Route != RouteWeb {
		// No route chose the web, so this is the fallback, which
		// searches for the question, not the last rewrite.
		s.Fallback = true
		s.Query = s.Standalone
		r.emit(Event{Kind: EventWebFallback, Step: fallbackFrom(s), Reason: fallbackReason(s)})
	}
	s.WebTried = true
	ret := r.retrievers[RouteWeb]
	if ret == nil {
		r.webUnavailable(s, SkipWebNotSetUp, nil)
		return nil
	}
	docs, err := ret.Retrieve(ctx, Request{Query: s.Query, Question: s.Standalone, Scope: s.Scope, Limit: r.budgets.TopK})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if isNotConfigured(err) {
		r.webUnavailable(s, SkipWebNotSetUp, nil)
		return nil
	}
	if err != nil {
		r.webUnavailable(s, SkipWebFailed, err)
		return nil
	}
	r.received(s, RouteWeb, docs)
	return nil
}

// fallbackFrom is the step that ended rewriting: the rewriter, when it had
// no new search left, else grade, when the rewrite budget was spent.
func fallbackFrom(s *State) Step {
	if s.NoNewSearch {
		return StepRewrite
	}
	return StepGrade
}

// fallbackReason says why the web fallback runs.
func fallbackReason(s *State) string {
	if s.NoNewSearch {
		return "no new search query left after " + strconv.Itoa(s.Rewrites) + " rewrites"
	}
	return "nothing relevant after " + strconv.Itoa(s.Rewrites) + " rewrites"
}

// webUnavailable notes why the web could not be searched, which the
// answer shows (and which ends the web route: webFailed, graph.go); the
// presenter words the detail the asker alone is told (Words.Detail).
func (r *run) webUnavailable(s *State, why Skip, err error) {
	s.Attempts = append(s.Attempts, Attempt{Route: RouteWeb, Query: s.Query, Skipped: why})
	e := Event{Kind: EventNotice, Step: StepWeb, Route: RouteWeb, Skipped: why, Err: err}
	if r.words != nil {
		e.Detail = r.words.Detail(e)
	}
	r.emit(e)
}
