package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/switchboard/switchboard/channels"
)

var _ channels.Store = (*Channels)(nil)

// Channels keeps channel settings and the log of their changes in the
// embedded file (migration 009): every change is a row, and a channel's
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
	rows, err := c.db.db.QueryContext(ctx, `SELECT `+settingsColumns+` FROM channel_settings
		WHERE channel = ? ORDER BY seq DESC LIMIT 1`, channel)
	got, err := scanSettings(rows, err)
	if err != nil {
		return channels.Settings{}, fmt.Errorf("sqlite: settings of channel %q: %w", channel, err)
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
	sources, err := json.Marshal(nonNil(s.Sources))
	if err != nil {
		return fmt.Errorf("sqlite: set settings of channel %q: %w", s.Channel, err)
	}
	experts, err := json.Marshal(nonNil(s.Experts))
	if err != nil {
		return fmt.Errorf("sqlite: set settings of channel %q: %w", s.Channel, err)
	}
	_, err = c.db.db.ExecContext(ctx, `INSERT INTO channel_settings (`+settingsColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		s.Channel, string(sources), string(s.Replies), s.Private, string(experts), s.ChangedBy, s.ChangedAt.UnixMicro())
	if err != nil {
		return fmt.Errorf("sqlite: set settings of channel %q: %w", s.Channel, err)
	}
	return nil
}

// AllSettings implements channels.Store.
func (c *Channels) AllSettings(ctx context.Context) ([]channels.Settings, error) {
	rows, err := c.db.db.QueryContext(ctx, `SELECT `+settingsColumns+` FROM channel_settings
		WHERE seq IN (SELECT max(seq) FROM channel_settings GROUP BY channel) ORDER BY channel`)
	got, err := scanSettings(rows, err)
	if err != nil {
		return nil, fmt.Errorf("sqlite: settings of every channel: %w", err)
	}
	return got, nil
}

// SettingsLog implements channels.Store.
func (c *Channels) SettingsLog(ctx context.Context, channel string) ([]channels.Settings, error) {
	rows, err := c.db.db.QueryContext(ctx, `SELECT `+settingsColumns+` FROM channel_settings
		WHERE channel = ? ORDER BY seq`, channel)
	got, err := scanSettings(rows, err)
	if err != nil {
		return nil, fmt.Errorf("sqlite: settings log of channel %q: %w", channel, err)
	}
	return got, nil
}

// scanSettings reads rows of settingsColumns, closing them; err is the
// query's.
func scanSettings(rows *sql.Rows, err error) ([]channels.Settings, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []channels.Settings
	for rows.Next() {
		var (
			s                channels.Settings
			sources, experts string
			changed          int64
		)
		if err := rows.Scan(&s.Channel, &sources, &s.Replies, &s.Private, &experts, &s.ChangedBy, &changed); err != nil {
			return nil, err
		}
		if s.Sources, err = stringList(sources); err != nil {
			return nil, fmt.Errorf("sources of %q: %w", s.Channel, err)
		}
		if s.Experts, err = stringList(experts); err != nil {
			return nil, fmt.Errorf("experts of %q: %w", s.Channel, err)
		}
		s.ChangedAt = time.UnixMicro(changed).UTC()
		out = append(out, s)
	}
	return out, rows.Err()
}

// stringList reads a JSON array of strings; nil for an empty one, as
// Settings are given.
func stringList(s string) ([]string, error) {
	var out []string
	if err := json.Unmarshal([]byte(s), &out); err != nil || len(out) == 0 {
		return nil, err
	}
	return out, nil
}
