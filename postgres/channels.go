package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard/switchboard/channels"
)

var _ channels.Store = (*Channels)(nil)

// Channels keeps channel settings and the log of their changes, shared by
// every replica (migration 011): every change is a row, and a channel's
// settings are its newest.
type Channels struct {
	db *DB
}

// NewChannels returns the channel settings stored in db.
func NewChannels(db *DB) *Channels { return &Channels{db: db} }

// settingsColumns are the columns scanSettings reads, in its order.
const settingsColumns = `channel, sources, replies, private, experts, changed_by, changed`

// Settings implements channels.Store.
func (c *Channels) Settings(ctx context.Context, channel string) (channels.Settings, error) {
	got, err := c.query(ctx, `SELECT `+settingsColumns+` FROM channel_settings
		WHERE channel = $1 ORDER BY seq DESC LIMIT 1`, channel)
	if err != nil {
		return channels.Settings{}, fmt.Errorf("postgres: settings of channel %q: %w", channel, err)
	}
	if len(got) == 0 {
		return channels.Settings{Channel: channel}, nil
	}
	return got[0], nil
}

// SetSettings implements channels.Store. A change without a time is
// stamped with the store's clock.
func (c *Channels) SetSettings(ctx context.Context, s channels.Settings) error {
	if err := s.Check(); err != nil {
		return err
	}
	if s.ChangedAt.IsZero() {
		s.ChangedAt = c.db.now()
	}
	_, err := c.db.pool.Exec(ctx, `INSERT INTO channel_settings (`+settingsColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		s.Channel, textArray(s.Sources), string(s.Replies), s.Private, textArray(s.Experts), s.ChangedBy, s.ChangedAt)
	if err != nil {
		return fmt.Errorf("postgres: set settings of channel %q: %w", s.Channel, err)
	}
	return nil
}

// AllSettings implements channels.Store.
func (c *Channels) AllSettings(ctx context.Context) ([]channels.Settings, error) {
	got, err := c.query(ctx, `SELECT DISTINCT ON (channel) `+settingsColumns+` FROM channel_settings
		ORDER BY channel, seq DESC`)
	if err != nil {
		return nil, fmt.Errorf("postgres: settings of every channel: %w", err)
	}
	return got, nil
}

// SettingsLog implements channels.Store.
func (c *Channels) SettingsLog(ctx context.Context, channel string) ([]channels.Settings, error) {
	got, err := c.query(ctx, `SELECT `+settingsColumns+` FROM channel_settings
		WHERE channel = $1 ORDER BY seq`, channel)
	if err != nil {
		return nil, fmt.Errorf("postgres: settings log of channel %q: %w", channel, err)
	}
	return got, nil
}

// query reads rows of settingsColumns.
func (c *Channels) query(ctx context.Context, sql string, args ...any) ([]channels.Settings, error) {
	rows, err := c.db.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (channels.Settings, error) {
		var s channels.Settings
		err := row.Scan(&s.Channel, &s.Sources, &s.Replies, &s.Private, &s.Experts, &s.ChangedBy, &s.ChangedAt)
		if len(s.Sources) == 0 {
			s.Sources = nil
		}
		if len(s.Experts) == 0 {
			s.Experts = nil
		}
		s.ChangedAt = s.ChangedAt.UTC()
		return s, err
	})
}

// textArray is ss for a NOT NULL array column: empty, not NULL, for none.
func textArray(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}
