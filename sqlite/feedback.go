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
	result, err := jsonOrEmpty(a.Result)
	if err != nil {
		return fmt.Errorf("sqlite: save answer: %w", err)
	}
	human, err := jsonOrEmpty(a.Human)
	if err != nil {
		return fmt.Errorf("sqlite: save answer: %w", err)
	}
	_, err = f.db.db.ExecContext(ctx, `INSERT INTO answers (id, thread, user_id, question, answer, route, sources, created, result, human)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		a.ID, a.Thread, a.User, a.Question, a.Answer, string(a.Route), string(sources), a.At.UnixMilli(), result, human)
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
// of every time it was answered, and the thread voted on last.
func (f *Feedback) Liked(ctx context.Context, prefix string, n int) ([]feedback.Liked, error) {
	// SQLite takes the bare a.thread from the row of max(v.created).
	rows, err := f.db.db.QueryContext(ctx, `SELECT a.question, a.thread, max(v.created) FROM votes v JOIN answers a ON a.id = v.answer_id
		WHERE substr(a.thread, 1, length(?1)) = ?1 AND a.question <> ''
		GROUP BY a.question HAVING sum(v.vote) > 0
		ORDER BY sum(v.vote) DESC, max(v.created) DESC, a.question LIMIT ?2`, prefix, max(n, 0))
	if err != nil {
		return nil, fmt.Errorf("sqlite: liked questions: %w", err)
	}
	defer rows.Close()
	var out []feedback.Liked
	for rows.Next() {
		var l feedback.Liked
		var at int64
		if err := rows.Scan(&l.Question, &l.Thread, &at); err != nil {
			return nil, fmt.Errorf("sqlite: liked questions: %w", err)
		}
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: liked questions: %w", err)
	}
	return out, nil
}

// answerColumns are the columns scanAnswer reads, in its order.
const answerColumns = `id, thread, user_id, question, answer, route, sources, created, result, human`

// scanAnswer reads a row of answerColumns.
func scanAnswer(scan func(...any) error) (feedback.Answer, error) {
	var a feedback.Answer
	var route, sources, result, human string
	var created int64
	if err := scan(&a.ID, &a.Thread, &a.User, &a.Question, &a.Answer, &route, &sources, &created, &result, &human); err != nil {
		return a, err
	}
	a.Route, a.At = agent.Route(route), time.UnixMilli(created)
	if err := json.Unmarshal([]byte(sources), &a.Sources); err != nil {
		return a, fmt.Errorf("answer %q sources: %w", a.ID, err)
	}
	if result != "" {
		if err := json.Unmarshal([]byte(result), &a.Result); err != nil {
			return a, fmt.Errorf("answer %q result: %w", a.ID, err)
		}
	}
	if human != "" {
		if err := json.Unmarshal([]byte(human), &a.Human); err != nil {
			return a, fmt.Errorf("answer %q human: %w", a.ID, err)
		}
	}
	return a, nil
}

// jsonOrEmpty is v as JSON, "" for nil (a column's "not kept").
func jsonOrEmpty[T any](v *T) (string, error) {
	if v == nil {
		return "", nil
	}
	b, err := json.Marshal(v)
	return string(b), err
}

// Answer returns the saved answer id.
func (f *Feedback) Answer(ctx context.Context, id string) (feedback.Answer, error) {
	a, err := scanAnswer(f.db.db.QueryRowContext(ctx, `SELECT `+answerColumns+` FROM answers WHERE id = ?`, id).Scan)
	if errors.Is(err, sql.ErrNoRows) {
		err = feedback.ErrUnknownAnswer
	}
	if err != nil {
		return feedback.Answer{}, fmt.Errorf("sqlite: answer %q: %w", id, err)
	}
	return a, nil
}

// HumanAnswers returns the people's replies saved as answers, oldest first.
func (f *Feedback) HumanAnswers(ctx context.Context) ([]feedback.Answer, error) {
	rows, err := f.db.db.QueryContext(ctx, `SELECT `+answerColumns+` FROM answers WHERE human <> '' ORDER BY created, id`)
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
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: human answers: %w", err)
	}
	return out, nil
}

// Share marks the answer id shared, or no longer, reporting whether that
// changed anything.
func (f *Feedback) Share(ctx context.Context, id string, shared bool) (bool, error) {
	return f.mark(ctx, "shared", id, shared)
}

// Escalate marks the answer id escalated, or no longer, reporting whether
// that changed anything.
func (f *Feedback) Escalate(ctx context.Context, id string, escalated bool) (bool, error) {
	return f.mark(ctx, "escalated", id, escalated)
}

// mark sets the answer's time column (shared, escalated) to now if it is
// not set (on), or clears it if it is: one statement, so that of two
// replicas only one changes it.
func (f *Feedback) mark(ctx context.Context, column, id string, on bool) (bool, error) {
	q := `UPDATE answers SET ` + column + ` = ? WHERE id = ? AND ` + column + ` IS NULL`
	var at any = f.db.now().UnixMilli()
	if !on {
		q, at = `UPDATE answers SET `+column+` = ? WHERE id = ? AND `+column+` IS NOT NULL`, nil
	}
	res, err := f.db.db.ExecContext(ctx, q, at, id)
	if err != nil {
		return false, fmt.Errorf("sqlite: mark answer %q %s: %w", id, column, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
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

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
