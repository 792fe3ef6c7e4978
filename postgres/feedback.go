package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/switchboard/switchboard/agent"
)

// FeedbackRecord is one person's vote on one answer, with what was asked
// and answered, so that evaluations can replay it.
type FeedbackRecord struct {
	ID       int64 // assigned by Record
	Thread   string
	Question string
	Answer   string
	Route    agent.Route
	Sources  []agent.Source
	Vote     int // +1 helpful, -1 not
	User     string
	Created  time.Time // set by Record
}

// Feedback stores votes on answers.
type Feedback struct {
	db *DB
}

// NewFeedback returns a Feedback stored in db.
func NewFeedback(db *DB) *Feedback {
	return &Feedback{db: db}
}

// Record stores r and returns its id. Vote must be +1 or -1.
func (f *Feedback) Record(ctx context.Context, r FeedbackRecord) (int64, error) {
	if r.Vote != 1 && r.Vote != -1 {
		return 0, fmt.Errorf("postgres: record feedback: vote %d is neither +1 nor -1", r.Vote)
	}
	sources := r.Sources
	if sources == nil {
		sources = []agent.Source{} // stored as [], not null
	}
	js, err := marshalJSONB(sources)
	if err != nil {
		return 0, fmt.Errorf("postgres: record feedback: %w", err)
	}
	var id int64
	err = f.db.pool.QueryRow(ctx, `INSERT INTO feedback (thread, question, answer, route, sources, vote, user_id, created)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
		cleanText(r.Thread), cleanText(r.Question), cleanText(r.Answer), string(r.Route), string(js), r.Vote,
		cleanText(r.User), f.db.now()).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("postgres: record feedback: %w", err)
	}
	return id, nil
}

// List returns every record, oldest first.
func (f *Feedback) List(ctx context.Context) ([]FeedbackRecord, error) {
	rows, err := f.db.pool.Query(ctx, `SELECT id, thread, question, answer, route, sources, vote, user_id, created
		FROM feedback ORDER BY created, id`)
	if err != nil {
		return nil, fmt.Errorf("postgres: list feedback: %w", err)
	}
	defer rows.Close()
	var out []FeedbackRecord
	for rows.Next() {
		var r FeedbackRecord
		var route string
		var sources []byte
		if err := rows.Scan(&r.ID, &r.Thread, &r.Question, &r.Answer, &route, &sources, &r.Vote, &r.User, &r.Created); err != nil {
			return nil, fmt.Errorf("postgres: list feedback: %w", err)
		}
		r.Route = agent.Route(route)
		if err := json.Unmarshal(sources, &r.Sources); err != nil {
			return nil, fmt.Errorf("postgres: list feedback %d: sources: %w", r.ID, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: list feedback: %w", err)
	}
	return out, nil
}
