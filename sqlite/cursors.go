package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Cursors remembers how far the history ingest has read each channel of
// each source, so that the next run starts there. It has the same methods
// as postgres.Cursors.
type Cursors struct {
	db *DB
}

// NewCursors returns the Cursors stored in db.
func NewCursors(db *DB) *Cursors {
	return &Cursors{db: db}
}

// Get returns the cursor stored for source ("slack:T123", say) and
// channel; ok is false when none is.
func (c *Cursors) Get(ctx context.Context, source, channel string) (cursor string, ok bool, err error) {
	err = c.db.db.QueryRowContext(ctx, `SELECT cursor FROM ingest_cursors WHERE source = ? AND channel = ?`,
		source, channel).Scan(&cursor)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("sqlite: get cursor %s/%s: %w", source, channel, err)
	}
	return cursor, true, nil
}

// Set stores cursor for source and channel, replacing the previous one.
func (c *Cursors) Set(ctx context.Context, source, channel, cursor string) error {
	_, err := c.db.db.ExecContext(ctx, `INSERT INTO ingest_cursors (source, channel, cursor, updated) VALUES (?, ?, ?, ?)
		ON CONFLICT (source, channel) DO UPDATE SET cursor = excluded.cursor, updated = excluded.updated`,
		source, channel, cursor, c.db.now().UnixMilli())
	if err != nil {
		return fmt.Errorf("sqlite: set cursor %s/%s: %w", source, channel, err)
	}
	return nil
}
