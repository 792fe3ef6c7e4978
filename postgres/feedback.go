package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/feedback"
)

// Feedback keeps chat answers and people's votes on them. A vote row
// copies its answer's question, route and sources, so that it outlives
// the answer (answers may be pruned; votes feed evaluations).
type Feedback struct {
	db *DB
}

var _ feedback.Store = (*Feedback)(nil)

// NewFeedback returns a Feedback stored in db.
func NewFeedback(db *DB) *Feedback {
	return &Feedback{db: db}
}

// SaveAnswer stores an answer posted in chat, for the votes it may get.
func (f *Feedback) SaveAnswer(ctx context.Context, a feedback.Answer) error {
	sources := a.Sources
	if sources == nil {
		sources = []agent.Source{} // stored as [], not null
	}
	js, err := marshalJSONB(sources)
	if err != nil {
		return fmt.Errorf("postgres: save answer: %w", err)
	}
	result, err := jsonbOrNull(a.Result)
	if err != nil {
		return fmt.Errorf("postgres: save answer: %w", err)
	}
	human, err := jsonbOrNull(a.Human)
	if err != nil {
		return fmt.Errorf("postgres: save answer: %w", err)
	}
	_, err = f.db.pool.Exec(ctx, `INSERT INTO answers (id, thread, user_id, question, answer, route, sources, created, result, human)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING`,
		a.ID, cleanText(a.Thread), cleanText(a.User), cleanText(a.Question), cleanText(a.Answer), string(a.Route), string(js), a.At, result, human)
	if err != nil {
		return fmt.Errorf("postgres: save answer %q: %w", a.ID, err)
	}
	return nil
}

// Answered reports whether an answer was saved in thread for user, or for
// anyone when user is "": whether the bot answered them there.
func (f *Feedback) Answered(ctx context.Context, thread, user string) (bool, error) {
	var found bool
	err := f.db.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM answers WHERE thread = $1 AND ($2 = '' OR user_id = $2))`,
		cleanText(thread), cleanText(user)).Scan(&found)
	if err != nil {
		return false, fmt.Errorf("postgres: answered in %q: %w", thread, err)
	}
	return found, nil
}

// SaveVote records voter's vote on a saved answer, with the answer's
// question, route and sources; a later vote by the same person replaces
// the earlier one.
func (f *Feedback) SaveVote(ctx context.Context, answerID, voter string, vote int) error {
	if vote != 1 && vote != -1 {
		return fmt.Errorf("postgres: save vote: vote %d is neither +1 nor -1", vote)
	}
	tag, err := f.db.pool.Exec(ctx, `INSERT INTO feedback (answer_id, thread, question, answer, route, sources, vote, user_id, created)
		SELECT id, thread, question, answer, route, sources, $2, $3, $4 FROM answers WHERE id = $1
		ON CONFLICT (answer_id, user_id) WHERE answer_id IS NOT NULL
		DO UPDATE SET vote = excluded.vote, created = excluded.created`,
		answerID, vote, cleanText(voter), f.db.now())
	if err != nil {
		return fmt.Errorf("postgres: save vote on %q: %w", answerID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres: save vote on %q: %w", answerID, feedback.ErrUnknownAnswer)
	}
	return nil
}

// Liked returns up to n questions voted up in threads under prefix,
// most liked first. A question asked again counts once, with the votes
// of every time it was answered, and the thread voted on last; votes
// outlive their answers' rows, and count still.
func (f *Feedback) Liked(ctx context.Context, prefix string, n int) ([]feedback.Liked, error) {
	rows, err := f.db.pool.Query(ctx, `SELECT question, (array_agg(thread ORDER BY created DESC, id DESC))[1] FROM feedback
		WHERE starts_with(thread, $1) AND question <> ''
		GROUP BY question HAVING sum(vote) > 0
		ORDER BY sum(vote) DESC, max(created) DESC, question LIMIT $2`, cleanText(prefix), max(n, 0))
	if err != nil {
		return nil, fmt.Errorf("postgres: liked questions: %w", err)
	}
	liked, err := pgx.CollectRows(rows, pgx.RowToStructByPos[feedback.Liked])
	if err != nil {
		return nil, fmt.Errorf("postgres: liked questions: %w", err)
	}
	return liked, nil
}

// jsonbOrNull is v as a jsonb parameter, NULL (not kept) for nil.
func jsonbOrNull[T any](v *T) (any, error) {
	if v == nil {
		return nil, nil
	}
	b, err := marshalJSONB(v)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

// answerColumns are the columns scanAnswer reads, in its order.
const answerColumns = `id, thread, user_id, question, answer, route, sources, created, result, human`

// scanAnswer reads a row of answerColumns.
func scanAnswer(scan func(...any) error) (feedback.Answer, error) {
	var a feedback.Answer
	var route string
	var sources, result, human []byte
	if err := scan(&a.ID, &a.Thread, &a.User, &a.Question, &a.Answer, &route, &sources, &a.At, &result, &human); err != nil {
		return a, err
	}
	a.Route = agent.Route(route)
	if err := json.Unmarshal(sources, &a.Sources); err != nil {
		return a, fmt.Errorf("answer %q sources: %w", a.ID, err)
	}
	if result != nil {
		if err := json.Unmarshal(result, &a.Result); err != nil {
			return a, fmt.Errorf("answer %q result: %w", a.ID, err)
		}
	}
	if human != nil {
		if err := json.Unmarshal(human, &a.Human); err != nil {
			return a, fmt.Errorf("answer %q human: %w", a.ID, err)
		}
	}
	return a, nil
}

// Answer returns the saved answer id.
func (f *Feedback) Answer(ctx context.Context, id string) (feedback.Answer, error) {
	a, err := scanAnswer(f.db.pool.QueryRow(ctx, `SELECT `+answerColumns+` FROM answers WHERE id = $1`, cleanText(id)).Scan)
	if errors.Is(err, pgx.ErrNoRows) {
		err = feedback.ErrUnknownAnswer
	}
	if err != nil {
		return feedback.Answer{}, fmt.Errorf("postgres: answer %q: %w", id, err)
	}
	return a, nil
}

// HumanAnswers returns the people's replies saved as answers, oldest first.
func (f *Feedback) HumanAnswers(ctx context.Context) ([]feedback.Answer, error) {
	rows, err := f.db.pool.Query(ctx, `SELECT `+answerColumns+` FROM answers WHERE human IS NOT NULL ORDER BY created, id`)
	if err != nil {
		return nil, fmt.Errorf("postgres: human answers: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (feedback.Answer, error) { return scanAnswer(r.Scan) })
	if err != nil {
		return nil, fmt.Errorf("postgres: human answers: %w", err)
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
	q := `UPDATE answers SET ` + column + ` = $2 WHERE id = $1 AND ` + column + ` IS NULL`
	var at any = f.db.now()
	if !on {
		q, at = `UPDATE answers SET `+column+` = $2 WHERE id = $1 AND `+column+` IS NOT NULL`, nil
	}
	tag, err := f.db.pool.Exec(ctx, q, cleanText(id), at)
	if err != nil {
		return false, fmt.Errorf("postgres: mark answer %q %s: %w", id, column, err)
	}
	return tag.RowsAffected() > 0, nil
}

// Votes returns every vote with its answer, oldest first. A vote whose
// answer row is gone keeps what it copied; its answer time is then the
// vote's.
func (f *Feedback) Votes(ctx context.Context) ([]feedback.Vote, error) {
	rows, err := f.db.pool.Query(ctx, `SELECT coalesce(v.answer_id, ''), v.thread, coalesce(a.user_id, ''), v.question, v.answer,
			v.route, v.sources, coalesce(a.created, v.created), v.vote, v.user_id, v.created
		FROM feedback v LEFT JOIN answers a ON a.id = v.answer_id ORDER BY v.created, v.id`)
	if err != nil {
		return nil, fmt.Errorf("postgres: list votes: %w", err)
	}
	defer rows.Close()
	var out []feedback.Vote
	for rows.Next() {
		var v feedback.Vote
		var route string
		var sources []byte
		if err := rows.Scan(&v.ID, &v.Thread, &v.User, &v.Question, &v.Answer.Answer, &route, &sources, &v.At,
			&v.Vote, &v.Voter, &v.VotedAt); err != nil {
			return nil, fmt.Errorf("postgres: list votes: %w", err)
		}
		v.Route = agent.Route(route)
		if err := json.Unmarshal(sources, &v.Sources); err != nil {
			return nil, fmt.Errorf("postgres: list votes: answer %q sources: %w", v.ID, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: list votes: %w", err)
	}
	return out, nil
}
