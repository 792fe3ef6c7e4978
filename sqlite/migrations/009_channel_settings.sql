-- 009_channel_settings: what a workspace decided for each channel (package
-- channels, issue 26). The table is the log of changes: each change is a
-- row, and a channel's settings are its newest row, so that "who changed
-- it, and when" is never lost. sources and experts are JSON arrays of
-- strings; changed is Unix microseconds.
CREATE TABLE channel_settings (
	seq        INTEGER PRIMARY KEY AUTOINCREMENT, -- the order of changes
	channel    TEXT    NOT NULL,
	sources    TEXT    NOT NULL DEFAULT '[]',
	replies    TEXT    NOT NULL DEFAULT '',
	private    INTEGER NOT NULL DEFAULT 0,
	experts    TEXT    NOT NULL DEFAULT '[]',
	changed_by TEXT    NOT NULL DEFAULT '',
	changed    INTEGER NOT NULL
);
CREATE INDEX channel_settings_channel ON channel_settings (channel, seq);
