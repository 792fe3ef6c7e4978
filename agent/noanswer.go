package agent

import "context"

// KnowledgeBase is what the no_answer node asks of the document store:
// whether anything has been ingested at all, so that an empty store is
// named as the reason rather than left for the asker to guess.
type KnowledgeBase interface {
	// Empty reports whether the store holds no documents.
	Empty(ctx context.Context) (bool, error)
}

// noAnswer ends a run that found nothing relevant. The presenter says
// what was searched (s.Attempts), so that the asker can judge where else
// to look, or that there is nothing to search yet.
func (r *run) noAnswer(ctx context.Context, s *State) error {
	s.NoAnswer, s.Outcome = true, OutcomeNotFound
	if !s.WebTried {
		// Rewriting ended with no web fallback to run, since the web
		// would have been searched were it configured (graph.go).
		s.Attempts = append(s.Attempts, Attempt{Route: RouteWeb, Skipped: SkipNoWebFallback})
	}
	// Only document searches say so: a graph question may find an empty
	// document store but a full graph (PostgreSQL with Neo4j), and a web
	// question has its own reason (web search not configured).
	if r.knowledge != nil && s.Route == RouteVector {
		if empty, err := r.knowledge.Empty(ctx); err == nil && empty {
			s.Outcome = OutcomeEmptyKnowledgeBase
		}
	}
	return nil
}
