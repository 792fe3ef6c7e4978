package sqlite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
)

// Feedback keeps chat answers and people's votes on them.
type Feedback struct {
	db *DB
}

var _ bot.FeedbackStore = (*Feedback)(nil)

// NewFeedback returns a Feedback stored in db.
func NewFeedback(db *DB) *Feedback { return &Feedback{db: db} }

// SaveAnswer stores an answer that people may vote on.
func (f *Feedback) SaveAnswer(ctx context.Context, a bot.Answer) error {
	sources, err := json.Marshal(nonNil(a.Sources))
	if err != nil {
		return fmt.Errorf("sqlite: save answer: %w", err)
	}
	_, err = f.db.db.ExecContext(ctx, `INSERT INTO answers (id, thread, user_id, question, answer, route, sources, created)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		a.ID, a.Thread, a.User, a.Question, a.Answer, string(a.Route), string(sources), a.At.UnixMilli())
	if err != nil {
		return fmt.Errorf("sqlite: save answer %q: %w", a.ID, err)
	}
	return nil
}

// ErrUnknownAnswer is returned for a vote on an answer that was never saved.
var ErrUnknownAnswer = errors.New("unknown answer")

// SaveVote stores user's vote on an answer, replacing an earlier one.
func (f *Feedback) SaveVote(ctx context.Context, answerID, user string, vote int) error {
	res, err := f.db.db.ExecContext(ctx, `INSERT INTO votes (answer_id, user_id, vote, created)
		SELECT id, ?, ?, ? FROM answers WHERE id = ?
		ON CONFLICT (answer_id, user_id) DO UPDATE SET vote = excluded.vote, created = excluded.created`,
		user, vote, f.db.now().UnixMilli(), answerID)
	if err != nil {
		return fmt.Errorf("sqlite: save vote on %q: %w", answerID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("sqlite: save vote on %q: %w", answerID, ErrUnknownAnswer)
	}
	return nil
}

// Voted is an answer with a vote, as exported for evaluation.
type Voted struct {
	bot.Answer
	Vote  int
	Voter string
}

// Votes returns every vote with its answer, oldest first.
func (f *Feedback) Votes(ctx context.Context) ([]Voted, error) {
	rows, err := f.db.db.QueryContext(ctx, `SELECT a.id, a.thread, a.user_id, a.question, a.answer, a.route, a.sources, a.created, v.vote, v.user_id
		FROM votes v JOIN answers a ON a.id = v.answer_id ORDER BY v.created, a.id`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list votes: %w", err)
	}
	defer rows.Close()
	var out []Voted
	for rows.Next() {
		var v Voted
		var route, sources string
		var created int64
		if err := rows.Scan(&v.ID, &v.Thread, &v.User, &v.Question, &v.Answer.Answer, &route, &sources, &created, &v.Vote, &v.Voter); err != nil {
			return nil, fmt.Errorf("sqlite: list votes: %w", err)
		}
		v.Route, v.At = agent.Route(route), time.UnixMilli(created)
		if err := json.Unmarshal([]byte(sources), &v.Sources); err != nil {
			return nil, fmt.Errorf("sqlite: list votes: answer %q sources: %w", v.ID, err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func nonNil(s []agent.Source) []agent.Source {
	if s == nil {
		return []agent.Source{}
	}
	return s
}
