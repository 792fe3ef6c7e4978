package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/feedback"
)

// Feedback keeps chat answers and people's votes on them.
type Feedback struct {
	db *DB
}

var _ feedback.Store = (*Feedback)(nil)

// NewFeedback returns a Feedback stored in db.
func NewFeedback(db *DB) *Feedback { return &Feedback{db: db} }

// SaveAnswer stores an answer that people may vote on.
func (f *Feedback) SaveAnswer(ctx context.Context, a feedback.Answer) error {
	sources, err := json.Marshal(nonNil(a.Sources))
	if err != nil {
		return fmt.Errorf("sqlite: save answer: %w", err)
	}
	detail, err := json.Marshal(a.Detail)
	if err != nil {
		return fmt.Errorf("sqlite: save answer: %w", err)
	}
	_, err = f.db.db.ExecContext(ctx, `INSERT INTO answers (id, thread, user_id, question, answer, route, sources, created, detail)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		a.ID, a.Thread, a.User, a.Question, a.Answer, string(a.Route), string(sources), a.At.UnixMilli(), string(detail))
	if err != nil {
		return fmt.Errorf("sqlite: save answer %q: %w", a.ID, err)
	}
	return nil
}

// Answered reports whether an answer was saved in thread for user, or for
// anyone when user is "": whether the bot answered them there.
func (f *Feedback) Answered(ctx context.Context, thread, user string) (bool, error) {
	var found bool
	err := f.db.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM answers WHERE thread = ? AND (? = '' OR user_id = ?))`,
		thread, user, user).Scan(&found)
	if err != nil {
		return false, fmt.Errorf("sqlite: answered in %q: %w", thread, err)
	}
	return found, nil
}

// Liked returns up to n questions voted up in threads under prefix,
// most liked first. A question asked again counts once, with the votes
// of every time it was answered.
func (f *Feedback) Liked(ctx context.Context, prefix string, n int) ([]string, error) {
	rows, err := f.db.db.QueryContext(ctx, `SELECT a.question FROM votes v JOIN answers a ON a.id = v.answer_id
		WHERE substr(a.thread, 1, length(?1)) = ?1 AND a.question <> ''
		GROUP BY a.question HAVING sum(v.vote) > 0
		ORDER BY sum(v.vote) DESC, max(v.created) DESC, a.question LIMIT ?2`, prefix, max(n, 0))
	out, err := scanStrings(rows, err)
	if err != nil {
		return nil, fmt.Errorf("sqlite: liked questions: %w", err)
	}
	return out, nil
}

// scanStrings reads rows of one text column, closing them; err is the
// query's.
func scanStrings(rows *sql.Rows, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// SaveVote stores voter's vote on an answer, replacing an earlier one.
func (f *Feedback) SaveVote(ctx context.Context, answerID, voter string, vote int) error {
	if vote != 1 && vote != -1 {
		return fmt.Errorf("sqlite: save vote: vote %d is neither +1 nor -1", vote)
	}
	res, err := f.db.db.ExecContext(ctx, `INSERT INTO votes (answer_id, user_id, vote, created)
		SELECT id, ?, ?, ? FROM answers WHERE id = ?
		ON CONFLICT (answer_id, user_id) DO UPDATE SET vote = excluded.vote, created = excluded.created`,
		voter, vote, f.db.now().UnixMilli(), answerID)
	if err != nil {
		return fmt.Errorf("sqlite: save vote on %q: %w", answerID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("sqlite: save vote on %q: %w", answerID, feedback.ErrUnknownAnswer)
	}
	return nil
}

// Votes returns every vote with its answer, oldest first.
func (f *Feedback) Votes(ctx context.Context) ([]feedback.Vote, error) {
	rows, err := f.db.db.QueryContext(ctx, `SELECT a.id, a.thread, a.user_id, a.question, a.answer, a.route, a.sources, a.created, v.vote, v.user_id, v.created
		FROM votes v JOIN answers a ON a.id = v.answer_id ORDER BY v.created, a.id`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list votes: %w", err)
	}
	defer rows.Close()
	var out []feedback.Vote
	for rows.Next() {
		var v feedback.Vote
		var route, sources string
		var created, voted int64
		if err := rows.Scan(&v.ID, &v.Thread, &v.User, &v.Question, &v.Answer.Answer, &route, &sources, &created, &v.Vote, &v.Voter, &voted); err != nil {
			return nil, fmt.Errorf("sqlite: list votes: %w", err)
		}
		v.Route, v.At, v.VotedAt = agent.Route(route), time.UnixMilli(created), time.UnixMilli(voted)
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

// answerColumns are the columns scanAnswer reads, in its order.
const answerColumns = `id, thread, user_id, question, answer, route, sources, created, detail`

// scanAnswer reads a row of answerColumns.
func scanAnswer(scan func(...any) error) (feedback.Answer, error) {
	var a feedback.Answer
	var route, sources, detail string
	var created int64
	if err := scan(&a.ID, &a.Thread, &a.User, &a.Question, &a.Answer, &route, &sources, &created, &detail); err != nil {
		return a, err
	}
	a.Route, a.At = agent.Route(route), time.UnixMilli(created)
	if err := json.Unmarshal([]byte(sources), &a.Sources); err != nil {
		return a, fmt.Errorf("answer %q sources: %w", a.ID, err)
	}
	if err := json.Unmarshal([]byte(detail), &a.Detail); err != nil {
		return a, fmt.Errorf("answer %q detail: %w", a.ID, err)
	}
	return a, nil
}

// Answer returns the saved answer id.
func (f *Feedback) Answer(ctx context.Context, id string) (feedback.Answer, error) {
	a, err := scanAnswer(f.db.db.QueryRowContext(ctx, `SELECT `+answerColumns+` FROM answers WHERE id = ?`, id).Scan)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return a, fmt.Errorf("sqlite: answer %q: %w", id, feedback.ErrUnknownAnswer)
	case err != nil:
		return a, fmt.Errorf("sqlite: answer %q: %w", id, err)
	}
	return a, nil
}

// HumanAnswers returns the people's replies saved as answers, oldest first.
func (f *Feedback) HumanAnswers(ctx context.Context) ([]feedback.Answer, error) {
	rows, err := f.db.db.QueryContext(ctx, `SELECT `+answerColumns+` FROM answers
		WHERE json_type(detail, '$.human') = 'object' ORDER BY created, id`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: human answers: %w", err)
	}
	defer rows.Close()
	var out []feedback.Answer
	for rows.Next() {
		a, err := scanAnswer(rows.Scan)
		if err != nil {
			return nil, fmt.Errorf("sqlite: human answers: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}
