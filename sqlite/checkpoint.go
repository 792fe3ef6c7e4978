package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/switchboard/switchboard/internal/threadstore"
)

// NewCheckpointer returns the agent.Checkpointer storing threads in db.
func NewCheckpointer(db *DB) *threadstore.Checkpointer {
	return threadstore.New("sqlite", threadRows{db})
}

// threadRows is the threads table (threadstore.Rows); updated is in Unix
// milliseconds.
type threadRows struct{ db *DB }

func (r threadRows) Get(ctx context.Context, id string) ([]byte, bool, error) {
	var state string
	err := r.db.db.QueryRowContext(ctx, `SELECT state FROM threads WHERE id = ?`, id).Scan(&state)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	return []byte(state), err == nil, err
}

func (r threadRows) Put(ctx context.Context, id string, state []byte) error {
	_, err := r.db.db.ExecContext(ctx, `INSERT INTO threads (id, state, updated) VALUES (?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET state = excluded.state, updated = excluded.updated`,
		id, string(state), r.db.now().UnixMilli())
	return err
}

func (r threadRows) Swap(ctx context.Context, id string, old []byte, found bool, state []byte) (bool, error) {
	var (
		res sql.Result
		err error
	)
	if found {
		res, err = r.db.db.ExecContext(ctx, `UPDATE threads SET state = ?, updated = ? WHERE id = ? AND state = ?`,
			string(state), r.db.now().UnixMilli(), id, string(old))
	} else {
		res, err = r.db.db.ExecContext(ctx, `INSERT INTO threads (id, state, updated) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING`,
			id, string(state), r.db.now().UnixMilli())
	}
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (r threadRows) Prune(ctx context.Context, olderThan time.Time) (int, error) {
	res, err := r.db.db.ExecContext(ctx, `DELETE FROM threads WHERE updated < ?`, olderThan.UnixMilli())
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}
