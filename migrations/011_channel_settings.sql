-- 011_channel_settings: what a workspace decided for each channel (package
-- channels, issue 26; postgres/channels.go). The table is the log of
-- changes: each change is a row, and a channel's settings are its newest
-- row, so that "who changed it, and when" is never lost.
CREATE TABLE channel_settings (
	seq        bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	channel    text        NOT NULL,
	sources    text[]      NOT NULL DEFAULT '{}',
	replies    text        NOT NULL DEFAULT '',
	private    boolean     NOT NULL DEFAULT false,
	experts    text[]      NOT NULL DEFAULT '{}',
	changed_by text        NOT NULL DEFAULT '',
	changed    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX channel_settings_channel ON channel_settings (channel, seq DESC);
