package postgres

import (
	"context"
	"fmt"
	"time"
)

// Events de-duplicates incoming chat events across replicas. Slack retries
// an event it thinks was missed, and with several replicas behind a load
// balancer, or several Socket Mode connections, the retry may reach
// another replica than the original did: the database decides which one
// handles it.
type Events struct {
	db *DB
}

// NewEvents returns an Events recording in db.
func NewEvents(db *DB) *Events {
	return &Events{db: db}
}

// MarkProcessed records that the event with eventID on platform ("slack",
// "discord") is being handled. first is true for exactly one caller per
// event, however many replicas race: that caller handles it, the others
// drop it.
func (e *Events) MarkProcessed(ctx context.Context, platform, eventID string) (first bool, err error) {
	tag, err := e.db.pool.Exec(ctx, `INSERT INTO processed_events (platform, event_id, received_at)
		VALUES ($1, $2, $3) ON CONFLICT (platform, event_id) DO NOTHING`, platform, eventID, e.db.now())
	if err != nil {
		return false, fmt.Errorf("postgres: mark event %s/%s processed: %w", platform, eventID, err)
	}
	return tag.RowsAffected() == 1, nil
}

// FirstSeen implements bot.Deduper: key is a chat delivery's key, made
// unique across platforms by the dispatcher.
func (e *Events) FirstSeen(ctx context.Context, key string) (bool, error) {
	return e.MarkProcessed(ctx, "chat", key)
}

// Prune forgets the events received before olderThan and returns how many
// it forgot. Platforms stop retrying within hours, so a day's memory is
// plenty.
func (e *Events) Prune(ctx context.Context, olderThan time.Time) (int, error) {
	tag, err := e.db.pool.Exec(ctx, `DELETE FROM processed_events WHERE received_at < $1`, olderThan)
	if err != nil {
		return 0, fmt.Errorf("postgres: prune events: %w", err)
	}
	return int(tag.RowsAffected()), nil
}
