package agent

import (
	"context"
	"fmt"
	"strings"
)

// KnowledgeBase is what the no_answer node asks of the document store:
// whether anything has been ingested at all, so that an empty store is
// named as the reason rather than left for the asker to guess.
type KnowledgeBase interface {
	// Empty reports whether the store holds no documents.
	Empty(ctx context.Context) (bool, error)
}

// emptyKnowledgeBase is the answer when nothing has been ingested.
const emptyKnowledgeBase = "I couldn't find an answer: the knowledge base is empty, nothing has been ingested yet. " +
	"Load documents with `switchboard ingest PATH…` (files and folders), a chat channel with " +
	"`switchboard ingest slack|discord --channel ID`, or a graph with `switchboard graph import NODES.csv EDGES.csv`; " +
	"in chat, an ingest admin can say \"@Switchboard ingest this channel\"."

// noAnswer ends a run that found nothing relevant, saying what was
// searched so that the asker can judge where else to look, or that there
// is nothing to search yet.
func (r *run) noAnswer(ctx context.Context, s *State) error {
	s.NoAnswer = true
	if !s.WebTried {
		// Rewriting ended with no web fallback to run, since the web
		// would have been searched were it configured (graph.go).
		s.Attempts = append(s.Attempts, Attempt{Route: RouteWeb, Note: "no web fallback: " + webNotSetUp})
	}
	// Only document searches say so: a graph question may find an empty
	// document store but a full graph (PostgreSQL with Neo4j), and a web
	// question has its own reason (web search not configured).
	if r.knowledge != nil && s.Route == RouteVector {
		if empty, err := r.knowledge.Empty(ctx); err == nil && empty {
			s.Answer = emptyKnowledgeBase
			return nil
		}
	}
	var b strings.Builder
	b.WriteString("I couldn't find an answer to that.")
	if len(s.Attempts) > 0 {
		b.WriteString(" Here is what I tried:")
		for _, a := range s.Attempts {
			b.WriteString("\n• ")
			switch {
			case a.Note != "" && a.Query == "":
				b.WriteString(a.Note)
			case a.Note != "":
				fmt.Fprintf(&b, "%s, for “%s”: %s", capital(a.Route.Place()), a.Query, a.Note)
			case a.Found == 0:
				fmt.Fprintf(&b, "%s, for “%s”: nothing found", capital(a.Route.Place()), a.Query)
			case a.Relevant == 0:
				fmt.Fprintf(&b, "%s, for “%s”: %d found, none relevant", capital(a.Route.Place()), a.Query, a.Found)
			default:
				fmt.Fprintf(&b, "%s, for “%s”: %d found, %d relevant", capital(a.Route.Place()), a.Query, a.Found, a.Relevant)
			}
		}
	}
	s.Answer = b.String()
	return nil
}

// capital starts s with a capital letter (the places are lower case, for
// use inside sentences).
func capital(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
