package agent

import (
	"context"
	"strings"
)

// Condenser is the port of the condense node.
type Condenser interface {
	// Condense turns a follow-up ("and for EU customers?") into a
	// standalone question, using the thread's earlier turns (history,
	// oldest first) to resolve what it refers to. The result is for
	// routing and retrieval only: the answer is still for the user's
	// words.
	//
	// The agent calls it only when history is not empty; with no history
	// it must return question unchanged. A blank result keeps question.
	Condense(ctx context.Context, history []Turn, question string) (string, error)
}

// condense makes a follow-up self-contained ("and for EU customers?" →
// "What is our data retention policy for EU customers?") so that routing
// and retrieval see the whole question. The user's words stay in
// s.Question; only the standalone form and the search query change.
func (r *run) condense(ctx context.Context, s *State, p port[Condenser]) error {
	s.Standalone = s.Question
	if len(s.Thread.Turns) > 0 {
		var q string
		err := p.ask(r, ctx, s, func(c Condenser) (err error) {
			q, err = c.Condense(ctx, s.Thread.Turns, s.Question)
			return err
		})
		if err != nil {
			return err
		}
		if q = strings.TrimSpace(q); q != "" {
			s.Standalone = q
		}
		if s.Standalone != s.Question {
			r.emit(Event{Kind: EventCondensed, Step: StepCondense, Query: s.Standalone})
		}
	}
	s.Query = s.Standalone
	return nil
}
