package agent

import (
	"context"
	"strings"
)

// rewrite proposes a new search query after a retrieval found nothing
// relevant, and searches the same route again. Only the query changes: the
// generator still answers the question the user asked.
func (r *run) rewrite(ctx context.Context, s *State) (Step, error) {
	s.Rewrites++
	var q string
	err := r.think(ctx, s, func(b Brain) (err error) {
		q, err = b.Rewrite(ctx, s.Standalone, s.Query, s.Rewrites)
		return err
	})
	if err != nil {
		return "", err
	}
	if q = strings.TrimSpace(q); q != "" {
		s.Query = q
	}
	r.emit(Event{Kind: EventRewriting, Step: StepRewrite, Route: s.Route, Attempt: s.Rewrites, Max: r.budgets.MaxRewrites, Query: s.Query})
	return retrievalStep(s.Route), nil
}
