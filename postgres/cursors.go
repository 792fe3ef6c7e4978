package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Cursors remembers how far the history ingest has read each channel of
// each source, so that the next run, on whichever replica, starts there.
type Cursors struct {
	db *DB
}

// NewCursors returns a Cursors stored in db.
func NewCursors(db *DB) *Cursors {
	return &Cursors{db: db}
}

// Get returns the cursor stored for source ("slack:T123", say) and
// channel; ok is false when none is.
func (c *Cursors) Get(ctx context.Context, source, channel string) (cursor string, ok bool, err error) {
	err = c.db.pool.QueryRow(ctx, `SELECT cursor FROM ingest_cursors WHERE source = $1 AND channel = $2`,
		source, channel).Scan(&cursor)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("postgres: get cursor %s/%s: %w", source, channel, err)
	}
	return cursor, true, nil
}

// Set stores cursor for source and channel, replacing the previous one.
func (c *Cursors) Set(ctx context.Context, source, channel, cursor string) error {
	_, err := c.db.pool.Exec(ctx, `INSERT INTO ingest_cursors (source, channel, cursor, updated) VALUES ($1, $2, $3, $4)
		ON CONFLICT (source, channel) DO UPDATE SET cursor = excluded.cursor, updated = excluded.updated`,
		source, channel, cursor, c.db.now())
	if err != nil {
		return fmt.Errorf("postgres: set cursor %s/%s: %w", source, channel, err)
	}
	return nil
}
