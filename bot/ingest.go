package bot

import (
	"context"
	"errors"
	"time"
)

// ChannelIngester loads a channel's history into the knowledge base when an
// ingest admin asks for it in chat, and keeps the channels that were
// ingested up to date as their messages are posted, edited and deleted.
// The adapters only translate commands and events into these calls;
// cmd/bot implements it on package ingest/chat.
type ChannelIngester interface {
	// IngestChannel starts ingesting req's channel and returns at once;
	// the run's progress and its summary are shown through status, from
	// another goroutine. It returns ErrNotAdmin when req.User may not
	// ingest, and ErrIngestRunning when the channel is being ingested.
	IngestChannel(ctx context.Context, req IngestRequest, status IngestStatus) error
	// ChannelChanged updates the knowledge base after a message was
	// posted, edited or deleted; changes in channels that were never
	// ingested are ignored. Adapters call it after acknowledging the
	// event: it reads the message's thread or day again.
	ChannelChanged(ctx context.Context, c ChannelChange) error
}

// IngestRequest is an ingest command: who asked, in which channel.
type IngestRequest struct {
	Platform  string // "slack", "discord"
	Workspace string
	Channel   string
	User      string
	Since     time.Time // the oldest day to read; zero for the whole history
}

// ChannelChange is a message posted, edited or deleted in a channel.
type ChannelChange struct {
	Platform  string
	Workspace string
	Channel   string // on Discord, maybe a thread
	Message   string // the message's id (Slack ts, Discord snowflake)
	Thread    string // Slack's thread_ts, when the message is in a thread
	Time      time.Time
	Deleted   bool
}

// IngestStatus shows an ingest's progress where it was asked for.
type IngestStatus interface {
	// Show replaces what the status shows with text; the first call posts
	// it.
	Show(ctx context.Context, text string) error
}

// Errors of IngestChannel.
var (
	ErrNotAdmin      = errors.New("bot: not an ingest admin")
	ErrIngestRunning = errors.New("bot: the channel is being ingested already")
)

// Replies to ingest commands that were not started.
const (
	NotAdminMessage      = "Sorry, only ingest admins can ingest channels. An admin can add your user id to INGEST_ADMINS."
	IngestRunningMessage = "This channel is being ingested already; the progress is shown where that was asked for."
)
