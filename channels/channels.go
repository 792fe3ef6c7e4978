// Package channels holds what a workspace decides channel by channel
// (issue 26): which sources a channel's answers may cite, which messages
// in it are questions, whether answers go to the asker alone, and whom to
// ask when the bot cannot answer. It holds only types and their rules, so
// that the stores (sqlite, postgres), the adapters that read the settings
// and the command line that changes them need not import each other, as
// package feedback does for votes.
package channels

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
)

// Replies says which messages in a channel are questions for the bot.
type Replies string

// The modes of Settings.Replies.
const (
	// RepliesMention: only messages that mention the bot (or /ask).
	RepliesMention Replies = "mention"
	// RepliesAsker: also the replies, in a thread the bot answered in, of
	// the people it answered there (the default, as before issue 26).
	RepliesAsker Replies = "asker"
	// RepliesAnyone: also anyone's replies in a thread the bot answered in.
	RepliesAnyone Replies = "anyone"
	// RepliesAll: a help channel; every question in the channel (a
	// message ending in "?" or addressed to no one) is answered in its
	// thread, besides what RepliesAnyone answers.
	RepliesAll Replies = "all"
)

// The source names of Settings.Sources that are not ingest key prefixes.
const (
	SourceGraph = "graph" // the knowledge graph
	SourceWeb   = "web"   // web search
)

// Settings are one channel's settings. The zero value (apart from
// Channel) is what a channel without settings gets: everything the asker
// may read, RepliesAsker, answers in the channel, no experts.
type Settings struct {
	Channel string // the platform's channel id (Slack "C…", a Discord snowflake)
	// Sources are the ingest key prefixes ("handbook/docs/hr/",
	// "slack:C42") and source names (SourceGraph, SourceWeb) the
	// channel's answers may cite; empty: every source. The access rules
	// apply on top.
	Sources []string
	Replies Replies // "" means RepliesAsker
	Private bool    // answers go to the asker alone, with a share button
	// Experts are the platform's user or group ids to ask when the bot
	// cannot answer (Slack "U…"/"S…", Discord user or role ids).
	Experts []string
	// ChangedBy and ChangedAt say who changed the settings last, and when
	// ("cli:<os user>" from the command line).
	ChangedBy string
	ChangedAt time.Time
}

// ReplyMode returns s.Replies, or RepliesAsker when unset.
func (s Settings) ReplyMode() Replies {
	if s.Replies == "" {
		return RepliesAsker
	}
	return s.Replies
}

// Cites reports whether the channel's answers may cite a source: a
// document by its stored key (as agent.Document.Key, "[workspace/]key";
// chat history is keyed "slack:C42:…" or "discord:…", ingest/chat), or the names
// SourceGraph and SourceWeb. With no Sources set, every source may be
// cited.
func (s Settings) Cites(key string) bool {
	if len(s.Sources) == 0 {
		return true
	}
	for _, p := range s.Sources {
		if key == p || (p != SourceGraph && p != SourceWeb && strings.HasPrefix(key, p)) {
			return true
		}
	}
	return false
}

// Check returns an error that names the first setting that is not valid.
func (s Settings) Check() error {
	if strings.TrimSpace(s.Channel) == "" {
		return errors.New("channels: a channel id is needed")
	}
	switch s.Replies {
	case "", RepliesMention, RepliesAsker, RepliesAnyone, RepliesAll:
	default:
		return fmt.Errorf("channels: replies must be %s, %s, %s or %s, not %q", RepliesMention, RepliesAsker, RepliesAnyone, RepliesAll, s.Replies)
	}
	for _, p := range s.Sources {
		if strings.TrimSpace(p) == "" {
			return errors.New("channels: an empty source prefix would match every source")
		}
	}
	if slices.Contains(s.Experts, "") {
		return errors.New("channels: an empty expert id")
	}
	return nil
}

// Store keeps channel settings and the log of their changes. Both stores
// implement it.
type Store interface {
	// Settings returns the channel's settings; a channel never set gets
	// Settings{Channel: channel} and no error.
	Settings(ctx context.Context, channel string) (Settings, error)
	// SetSettings replaces the channel's settings (after Check) and adds
	// them to the log of changes, with ChangedBy and ChangedAt as given.
	SetSettings(ctx context.Context, s Settings) error
	// AllSettings returns the settings of every channel that has any,
	// ordered by channel id.
	AllSettings(ctx context.Context) ([]Settings, error)
	// SettingsLog returns the channel's changes, oldest first.
	SettingsLog(ctx context.Context, channel string) ([]Settings, error)
}

// ParseList reads a list as people type it in a command or a form: ids or
// prefixes separated by commas, spaces or new lines; empty items dropped,
// each once, in the order given. nil for none.
func ParseList(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// ParseReplies reads a reply mode by its name; "mention-only", the name
// SLACK_THREAD_REPLIES has for it, is RepliesMention, and "" is "".
func ParseReplies(s string) (Replies, error) {
	r := Replies(strings.ToLower(strings.TrimSpace(s)))
	if r == "mention-only" {
		r = RepliesMention
	}
	switch r {
	case "", RepliesMention, RepliesAsker, RepliesAnyone, RepliesAll:
		return r, nil
	}
	return "", fmt.Errorf("channels: replies must be %s, %s, %s or %s, not %q", RepliesMention, RepliesAsker, RepliesAnyone, RepliesAll, s)
}
