package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
)

var _ bot.FeedbackStore = (*Feedback)(nil)

// SaveAnswer stores an answer posted in chat, for the votes it may get.
func (f *Feedback) SaveAnswer(ctx context.Context, a bot.Answer) error {
	sources := a.Sources
	if sources == nil {
		sources = []agent.Source{}
	}
	js, err := marshalJSONB(sources)
	if err != nil {
		return fmt.Errorf("postgres: save answer: %w", err)
	}
	_, err = f.db.pool.Exec(ctx, `INSERT INTO answers (id, thread, user_id, question, answer, route, sources, created)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING`,
		a.ID, cleanText(a.Thread), cleanText(a.User), cleanText(a.Question), cleanText(a.Answer), string(a.Route), string(js), a.At)
	if err != nil {
		return fmt.Errorf("postgres: save answer %q: %w", a.ID, err)
	}
	return nil
}

// ErrUnknownAnswer is returned for a vote on an answer that was never saved.
var ErrUnknownAnswer = errors.New("unknown answer")

// SaveVote records user's vote on a saved answer as a FeedbackRecord with
// the answer's question, route and sources; a later vote by the same user
// replaces the earlier one.
func (f *Feedback) SaveVote(ctx context.Context, answerID, user string, vote int) error {
	if vote != 1 && vote != -1 {
		return fmt.Errorf("postgres: save vote: vote %d is neither +1 nor -1", vote)
	}
	tag, err := f.db.pool.Exec(ctx, `INSERT INTO feedback (answer_id, thread, question, answer, route, sources, vote, user_id, created)
		SELECT id, thread, question, answer, route, sources, $2, $3, $4 FROM answers WHERE id = $1
		ON CONFLICT (answer_id, user_id) WHERE answer_id IS NOT NULL
		DO UPDATE SET vote = excluded.vote, created = excluded.created`,
		answerID, vote, cleanText(user), f.db.now())
	if err != nil {
		return fmt.Errorf("postgres: save vote on %q: %w", answerID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres: save vote on %q: %w", answerID, ErrUnknownAnswer)
	}
	return nil
}
