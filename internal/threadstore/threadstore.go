// Package threadstore holds the agent.Checkpointer the SQL stores (sqlite,
// postgres) share: a thread is kept as its JSON under its ID, in a row
// stamped when it was saved. What a thread becomes in a row and back, and
// what an unknown or unnamed thread is, is decided here once; a store only
// reads, writes and deletes rows.
package threadstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard/switchboard/agent"
)

// Rows is a store's table of threads: one JSON state per thread ID.
type Rows interface {
	// Get returns the state saved under id; found is false when there is
	// none.
	Get(ctx context.Context, id string) (state []byte, found bool, err error)
	// Put saves state under id, replacing what was there, and stamps the
	// row with the time of saving.
	Put(ctx context.Context, id string, state []byte) error
	// Swap saves state under id, and stamps the row, only if the row is
	// still as Get returned it: old, or none when found is false.
	// swapped is false when another save came between.
	Swap(ctx context.Context, id string, old []byte, found bool, state []byte) (swapped bool, err error)
	// Prune deletes the rows stamped before olderThan and returns how many
	// it deleted.
	Prune(ctx context.Context, olderThan time.Time) (int, error)
}

// Checkpointer stores each conversation's agent.Thread as JSON in Rows,
// so that follow-up questions survive a restart (and, with a shared
// database, reach whichever replica receives them).
type Checkpointer struct {
	store string // the store's name, which starts its errors: "postgres"
	rows  Rows
}

var _ agent.Checkpointer = (*Checkpointer)(nil)

// New returns the Checkpointer keeping threads in rows; store names the
// store in errors.
func New(store string, rows Rows) *Checkpointer {
	return &Checkpointer{store: store, rows: rows}
}

// Load returns the thread stored under id, or an empty Thread with that ID
// when there is none.
func (c *Checkpointer) Load(ctx context.Context, id string) (agent.Thread, error) {
	state, found, err := c.rows.Get(ctx, id)
	if err != nil {
		return agent.Thread{}, fmt.Errorf("%s: load thread %q: %w", c.store, id, err)
	}
	t, err := decode(id, state, found)
	if err != nil {
		return agent.Thread{}, fmt.Errorf("%s: load thread %q: %w", c.store, id, err)
	}
	return t, nil
}

// decode is the thread id saved as state; an empty one when none is
// (found false).
func decode(id string, state []byte, found bool) (agent.Thread, error) {
	var t agent.Thread
	if found {
		if err := json.Unmarshal(state, &t); err != nil {
			return agent.Thread{}, err
		}
	}
	t.ID = id
	return t, nil
}

// updateAttempts bounds the reads of one Update. Another read is needed
// only when another save came between the read and the write; a thread's
// questions are answered one at a time, so that is a replica that lost
// its claim storing its turn late, not a stream of saves.
const updateAttempts = 10

// Update implements agent.Checkpointer: the thread is read, changed and
// written back only if no other save came between (Rows.Swap), else read
// again.
func (c *Checkpointer) Update(ctx context.Context, id string, change func(*agent.Thread)) error {
	if id == "" {
		return errors.New(c.store + ": update thread: empty id")
	}
	for range updateAttempts {
		old, found, err := c.rows.Get(ctx, id)
		if err != nil {
			return fmt.Errorf("%s: update thread %q: %w", c.store, id, err)
		}
		t, err := decode(id, old, found)
		if err != nil {
			return fmt.Errorf("%s: update thread %q: %w", c.store, id, err)
		}
		change(&t)
		t.ID = id
		state, err := json.Marshal(t)
		if err != nil {
			return fmt.Errorf("%s: update thread %q: %w", c.store, id, err)
		}
		swapped, err := c.rows.Swap(ctx, id, old, found, state)
		if err != nil {
			return fmt.Errorf("%s: update thread %q: %w", c.store, id, err)
		}
		if swapped {
			return nil
		}
	}
	return fmt.Errorf("%s: update thread %q: saved by others between each of %d reads", c.store, id, updateAttempts)
}

// Save stores t under t.ID, replacing what was there. The row is stamped
// with the time of saving, which is what Prune compares: a thread is idle
// from its last save, whatever its turns say.
func (c *Checkpointer) Save(ctx context.Context, t agent.Thread) error {
	if t.ID == "" {
		return errors.New(c.store + ": save thread: empty id")
	}
	state, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("%s: save thread %q: %w", c.store, t.ID, err)
	}
	if err := c.rows.Put(ctx, t.ID, state); err != nil {
		return fmt.Errorf("%s: save thread %q: %w", c.store, t.ID, err)
	}
	return nil
}

// Prune deletes the threads last saved before olderThan and returns how
// many it deleted, so that the store does not grow with every
// conversation ever held.
func (c *Checkpointer) Prune(ctx context.Context, olderThan time.Time) (int, error) {
	n, err := c.rows.Prune(ctx, olderThan)
	if err != nil {
		return 0, fmt.Errorf("%s: prune threads: %w", c.store, err)
	}
	return n, nil
}
