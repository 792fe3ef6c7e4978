// Package chat ingests the history of chat channels (Slack, Discord) into
// the knowledge base and keeps it up to date as messages are posted,
// edited and deleted.
//
// A channel becomes documents the way people read it: every thread is one
// document (its messages in order, "Author: text", packed into chunks of
// about a thousand characters), and the channel's other messages are one
// document per day (UTC). Every message is in exactly one document. Each
// chunk links to the first message in it (its permalink) and records its
// author and time, and each document carries the channel's workspace,
// channel id and whether the channel is private, which is what the
// retrievers filter answers by. Attached files that are text, Markdown,
// HTML or PDF become documents of their own.
//
// The platforms are behind Source (packages slackhist and discordhist).
// An Ingester reads a channel newest first, a day at a time, and stores a
// day's documents before it moves its cursor past that day, so a run that
// is interrupted is resumed by the next one without gaps, and, because
// documents have stable keys and content hashes, without duplicates.
package chat

import (
	"context"
	"errors"
	"time"
)

// Channel describes a chat channel.
type Channel struct {
	Platform  string // "slack", "discord"
	Workspace string // Slack team id, Discord guild id
	ID        string
	Name      string // without the leading '#'
	// Private channels are visible only to their members: their documents
	// are only ever used for answers in the same channel, and no graph
	// facts are extracted from them (the graph has no scopes).
	Private bool
	// Created is when the channel was made; zero if unknown. A backfill
	// without a lower bound stops there, and progress is measured from it.
	Created time.Time
	// Parent is, for a Discord thread (which is a channel of its own), the
	// channel it belongs to; "" for other channels.
	Parent string
}

// Message is one chat message, translated by a Source.
type Message struct {
	ID       string // Slack ts, Discord snowflake: unique in the channel, ordered like Time
	Thread   string // the thread it is part of (Slack thread_ts, Discord thread id); "" if none
	Author   string // as people see it
	AuthorID string
	Text     string // plain text: mentions, links and escapes resolved
	Time     time.Time
	// Permalink opens the message in the chat client.
	Permalink string
	// Replies is, for a Slack thread's first message, how many replies the
	// thread has. A message with replies is read as part of its thread.
	Replies int
	Files   []File
}

// InThread reports whether m belongs to a thread document rather than to
// its day's: it is a reply, or the first message of a thread with replies.
func (m Message) InThread() bool {
	return (m.Thread != "" && m.Thread != m.ID) || m.Replies > 0
}

// Thread is a conversation within a channel: a Slack message with its
// replies, or a Discord thread.
type Thread struct {
	ID      string    // Slack: the first message's ts; Discord: the thread's channel id
	Name    string    // Discord's thread name; "" on Slack
	Started time.Time // places the thread on a day of the channel
	// Private is true for a Discord private thread; a thread of a private
	// channel is private anyway.
	Private bool
	// Permalink opens the thread; "" to use its first message's.
	Permalink string
}

// File is a file attached to a message.
type File struct {
	ID        string
	Name      string
	MIME      string // as the platform reports it; may be ""
	Size      int64  // bytes; 0 if unknown
	URL       string // where Source.Download fetches it
	Permalink string // where people open it; may be ""
	Updated   time.Time
}

// ErrNotFound means a thread or message is not there (any more): it was
// deleted, or the bot cannot see it.
var ErrNotFound = errors.New("chat: not found")

// Source reads a chat platform. Implementations apply the platform's
// timeouts and wait out its rate limits, within ctx.
type Source interface {
	// Platform names it: "slack", "discord".
	Platform() string
	// Channel describes a channel (or, on Discord, a thread channel, with
	// Parent set).
	Channel(ctx context.Context, id string) (Channel, error)
	// History calls fn with the channel's messages posted in [oldest,
	// latest), a page at a time, newest first. Replies in threads are
	// left out (Slack thread roots are included, with Replies set).
	// A zero oldest means from the beginning. It stops at fn's first
	// error and returns it.
	History(ctx context.Context, ch Channel, oldest, latest time.Time, fn func([]Message) error) error
	// Threads returns the threads of ch started in [oldest, latest) that
	// are not found through History: Discord's threads. Slack's threads
	// start at messages History returns, and its Threads returns none.
	Threads(ctx context.Context, ch Channel, oldest, latest time.Time) ([]Thread, error)
	// Replies returns a thread with all its messages, oldest first, or
	// ErrNotFound when it no longer exists.
	Replies(ctx context.Context, ch Channel, thread string) (Thread, []Message, error)
	// Download returns a file's content, or an error if it is larger than
	// max bytes.
	Download(ctx context.Context, f File, max int64) ([]byte, error)
	// Link returns the permalink of a message of ch (in thread, if it is
	// in one), whether or not it still exists: the origin of the graph
	// facts a deleted message stated.
	Link(ctx context.Context, ch Channel, thread, message string) string
}
