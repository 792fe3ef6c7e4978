package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard/switchboard/agent"
)

var _ agent.Checkpointer = (*Checkpointer)(nil)

// Checkpointer stores each conversation's agent.Thread as JSON, so that
// follow-up questions survive a restart and reach whichever replica
// receives them.
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
	var state []byte
	err := c.db.pool.QueryRow(ctx, `SELECT state FROM threads WHERE id = $1`, id).Scan(&state)
	if errors.Is(err, pgx.ErrNoRows) {
		return agent.Thread{ID: id}, nil
	}
	if err != nil {
		return agent.Thread{}, fmt.Errorf("postgres: load thread %q: %w", id, err)
	}
	var t agent.Thread
	if err := json.Unmarshal(state, &t); err != nil {
		return agent.Thread{}, fmt.Errorf("postgres: load thread %q: %w", id, err)
	}
	t.ID = id
	return t, nil
}

// Save stores t under t.ID, replacing what was there. The row is stamped
// with the time of saving, which is what Prune compares: a thread is idle
// from its last save, whatever its turns say.
func (c *Checkpointer) Save(ctx context.Context, t agent.Thread) error {
	if t.ID == "" {
		return errors.New("postgres: save thread: empty id")
	}
	state, err := marshalJSONB(t)
	if err != nil {
		return fmt.Errorf("postgres: save thread %q: %w", t.ID, err)
	}
	_, err = c.db.pool.Exec(ctx, `INSERT INTO threads (id, state, updated) VALUES ($1, $2, $3)
		ON CONFLICT (id) DO UPDATE SET state = excluded.state, updated = excluded.updated`,
		t.ID, string(state), c.db.now())
	if err != nil {
		return fmt.Errorf("postgres: save thread %q: %w", t.ID, err)
	}
	return nil
}

// Prune deletes the threads last saved before olderThan and returns how
// many it deleted, so that the table does not grow with every conversation
// ever held.
func (c *Checkpointer) Prune(ctx context.Context, olderThan time.Time) (int, error) {
	tag, err := c.db.pool.Exec(ctx, `DELETE FROM threads WHERE updated < $1`, olderThan)
	if err != nil {
		return 0, fmt.Errorf("postgres: prune threads: %w", err)
	}
	return int(tag.RowsAffected()), nil
}
