package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Cursors stores one opaque cursor per source and channel: the SQLite
// and PostgreSQL stores' Cursors.
type Cursors interface {
	// Get returns the cursor of source and channel; ok is false when there
	// is none, which means the channel was never ingested.
	Get(ctx context.Context, source, channel string) (cursor string, ok bool, err error)
	// Set stores the cursor of source and channel.
	Set(ctx context.Context, source, channel, cursor string) error
}

// Cursor is how far a channel has been ingested: every message posted from
// Oldest up to NewestAt is stored. Oldest moves back as a backfill goes,
// a day at a time, and only once the day's documents are stored;
// NewestAt moves forward when a run has caught up with everything newer.
// A zero Oldest means the channel's whole history.
type Cursor struct {
	Newest   string    `json:"newest,omitempty"`   // id of the newest message stored
	NewestAt time.Time `json:"newest_at,omitzero"` // its time; zero before any message
	Oldest   time.Time `json:"oldest,omitzero"`    // the backfill has stored everything since
	Started  time.Time `json:"started,omitzero"`   // when the first run began, for people
}

// Source is the cursor's source name for a channel: "slack:T123".
func (ch Channel) Source() string { return ch.Platform + ":" + ch.Workspace }

// covers reports whether the backfill has reached since (zero: the
// beginning of the channel).
func (c Cursor) covers(since time.Time) bool {
	if c.Oldest.IsZero() {
		return true
	}
	return !since.IsZero() && !c.Oldest.After(since)
}

func loadCursor(ctx context.Context, cs Cursors, ch Channel) (Cursor, bool, error) {
	raw, ok, err := cs.Get(ctx, ch.Source(), cursorChannel(ch))
	if err != nil || !ok {
		return Cursor{}, false, err
	}
	var c Cursor
	if err := json.Unmarshal([]byte(raw), &c); err != nil {
		// A cursor this code cannot read is no reason to stop: the run
		// starts over, which duplicates nothing.
		return Cursor{}, false, nil
	}
	return c, true, nil
}

func saveCursor(ctx context.Context, cs Cursors, ch Channel, c Cursor) error {
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("cursor: %w", err)
	}
	return cs.Set(ctx, ch.Source(), cursorChannel(ch), string(b))
}

// cursorChannel is the channel a cursor is kept under.
func cursorChannel(ch Channel) string { return ch.ID }
