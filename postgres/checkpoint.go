package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/switchboard/switchboard/internal/threadstore"
)

// NewCheckpointer returns the agent.Checkpointer storing threads in db, so
// that follow-up questions reach whichever replica receives them.
func NewCheckpointer(db *DB) *threadstore.Checkpointer {
	return threadstore.New("postgres", threadRows{db})
}

// threadRows is the threads table (threadstore.Rows).
type threadRows struct{ db *DB }

func (r threadRows) Get(ctx context.Context, id string) ([]byte, bool, error) {
	var state []byte
	err := r.db.pool.QueryRow(ctx, `SELECT state FROM threads WHERE id = $1`, id).Scan(&state)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	return state, err == nil, err
}

// Put drops NUL characters from state, which jsonb cannot hold: the
// thread loses a NUL rather than its turns.
func (r threadRows) Put(ctx context.Context, id string, state []byte) error {
	_, err := r.db.pool.Exec(ctx, `INSERT INTO threads (id, state, updated) VALUES ($1, $2, $3)
		ON CONFLICT (id) DO UPDATE SET state = excluded.state, updated = excluded.updated`,
		id, string(stripNULEscapes(state)), r.db.now())
	return err
}

// Swap compares the rows as jsonb: old is the state as Get returned it.
func (r threadRows) Swap(ctx context.Context, id string, old []byte, found bool, state []byte) (bool, error) {
	var (
		tag pgconn.CommandTag
		err error
	)
	if found {
		tag, err = r.db.pool.Exec(ctx, `UPDATE threads SET state = $3, updated = $4 WHERE id = $1 AND state = $2::jsonb`,
			id, string(old), string(stripNULEscapes(state)), r.db.now())
	} else {
		tag, err = r.db.pool.Exec(ctx, `INSERT INTO threads (id, state, updated) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING`,
			id, string(stripNULEscapes(state)), r.db.now())
	}
	return err == nil && tag.RowsAffected() == 1, err
}

func (r threadRows) Prune(ctx context.Context, olderThan time.Time) (int, error) {
	tag, err := r.db.pool.Exec(ctx, `DELETE FROM threads WHERE updated < $1`, olderThan)
	return int(tag.RowsAffected()), err
}
