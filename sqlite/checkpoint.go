package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard/switchboard/agent"
)

var _ agent.Checkpointer = (*Checkpointer)(nil)

// Checkpointer stores each conversation's agent.Thread as JSON, so that
// follow-up questions survive a restart.
type Checkpointer struct {
	db *DB
}

// NewCheckpointer returns a Checkpointer storing threads in db.
func NewCheckpointer(db *DB) *Checkpointer {
	return &Checkpointer{db: db}
}

// Load returns the thread stored under id, or an empty Thread with that ID
// when there is none.
func (c *Checkpointer) Load(ctx context.Context, id string) (agent.Thread, error) {
	var state string
	err := c.db.db.QueryRowContext(ctx, `SELECT state FROM threads WHERE id = ?`, id).Scan(&state)
	if errors.Is(err, sql.ErrNoRows) {
		return agent.Thread{ID: id}, nil
	}
	if err != nil {
		return agent.Thread{}, fmt.Errorf("sqlite: load thread %q: %w", id, err)
	}
	var t agent.Thread
	if err := json.Unmarshal([]byte(state), &t); err != nil {
		return agent.Thread{}, fmt.Errorf("sqlite: load thread %q: %w", id, err)
	}
	t.ID = id
	return t, nil
}

// Save stores t under t.ID, replacing what was there. The row is stamped
// with the time of saving, which is what Prune compares: a thread is idle
// from its last save, whatever its turns say.
func (c *Checkpointer) Save(ctx context.Context, t agent.Thread) error {
	if t.ID == "" {
		return errors.New("sqlite: save thread: empty id")
	}
	state, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("sqlite: save thread %q: %w", t.ID, err)
	}
	_, err = c.db.db.ExecContext(ctx, `INSERT INTO threads (id, state, updated) VALUES (?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET state = excluded.state, updated = excluded.updated`,
		t.ID, string(state), c.db.now().UnixMilli())
	if err != nil {
		return fmt.Errorf("sqlite: save thread %q: %w", t.ID, err)
	}
	return nil
}

// Prune deletes the threads last saved before olderThan and returns how
// many it deleted, so that the file does not grow with every conversation
// ever held.
func (c *Checkpointer) Prune(ctx context.Context, olderThan time.Time) (int, error) {
	res, err := c.db.db.ExecContext(ctx, `DELETE FROM threads WHERE updated < ?`, olderThan.UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("sqlite: prune threads: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("sqlite: prune threads: %w", err)
	}
	return int(n), nil
}
