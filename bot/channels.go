package bot

import (
	"context"
	"log/slog"
	"strings"
	"time"
	"unicode"

	"github.com/switchboard/switchboard/channels"
)

// SettingsReader reads a channel's settings (issue 26); what Ask an
// expert needs of them.
type SettingsReader interface {
	Settings(ctx context.Context, channel string) (channels.Settings, error)
}

// ChannelSettings are the channels' settings as the adapters read and
// change them; the stores' channels.Store implements it.
type ChannelSettings interface {
	SettingsReader
	SetSettings(ctx context.Context, s channels.Settings) error
}

// settingsTimeout bounds a look-up of a channel's settings: it is made for
// every message of the channels the bot is in, and a slow store must not
// hold deliveries up.
const settingsTimeout = 2 * time.Second

// SettingsOf returns the channel's settings, or the defaults when cs is
// nil or cannot say (logged): a store that blinks costs a channel its
// settings for that message, not its answer. The access rules, which the
// retrievers apply, do not depend on them.
func SettingsOf(ctx context.Context, cs ChannelSettings, channel string, log *slog.Logger) channels.Settings {
	if cs == nil || channel == "" {
		return channels.Settings{Channel: channel}
	}
	ctx, cancel := context.WithTimeout(ctx, settingsTimeout)
	defer cancel()
	s, err := cs.Settings(ctx, channel)
	if err != nil {
		log.Warn("could not read the channel's settings; using the defaults", "channel", channel, "err", err)
		return channels.Settings{Channel: channel}
	}
	return s
}

// ReplyMode is the channel's reply mode, or def (the platform's setting,
// such as SLACK_THREAD_REPLIES) for a channel that has none, or
// RepliesAsker.
func ReplyMode(s channels.Settings, def channels.Replies) channels.Replies {
	switch {
	case s.Replies != "":
		return s.Replies
	case def != "":
		return def
	}
	return channels.RepliesAsker
}

// minHelpWords is the fewest words of a question in a help channel: "hi
// all?" or "really?" is chatter.
const minHelpWords = 3

// HelpQuestion reports whether a top-level message in a help channel
// (channels.RepliesAll) is a question for the bot: it ends with a
// question mark, is addressed to no one (addressed: the platform saw a
// mention of a person, a group or the channel in it), and has at least
// minHelpWords words. Greetings, remarks and messages to someone else are
// chatter, left to the people.
func HelpQuestion(text string, addressed bool) bool {
	text = strings.TrimRightFunc(text, func(r rune) bool { return unicode.IsSpace(r) || r == ')' || r == '"' || r == '”' })
	return !addressed && strings.HasSuffix(text, "?") && len(strings.Fields(text)) >= minHelpWords
}

// The words of the channel settings command (/switchboard settings).
const (
	// SettingsTitle titles the Slack modal; SettingsSubmit is its button.
	SettingsTitle  = "Channel settings"
	SettingsSubmit = "Save"
	// The fields of the settings, as the modal and Discord's options
	// name them, and their hints.
	SettingsSourcesLabel = "Sources"
	SettingsSourcesHint  = "Ingest key prefixes (handbook/docs/hr/), chat channels (slack:C42), graph or web, separated by commas. Empty: every source the asker may read."
	SettingsRepliesLabel = "Replies"
	SettingsPrivateLabel = "Private answers"
	SettingsPrivateHint  = "Answers go to the asker alone, with a button to share them."
	SettingsExpertsLabel = "Experts"
	SettingsExpertsHint  = "People or groups to ask when the bot cannot answer."
	// SettingsNotAllowed refuses a change by someone who may not make it
	// (Slack), SettingsNotAllowedDiscord on Discord.
	SettingsNotAllowed        = "Only workspace admins and owners (or the people the bot's operators named) can change this channel's settings."
	SettingsNotAllowedDiscord = "Only members who may manage this channel (Manage Channels or Administrator), or the people the bot's operators named, can change its settings."
	// SettingsFailed says a change could not be saved.
	SettingsFailed = "I couldn't save the channel's settings. Please try again in a minute."
)

// RepliesChoice is how the settings command names a reply mode.
func RepliesChoice(r channels.Replies) string {
	switch r {
	case channels.RepliesMention:
		return "Only when mentioned"
	case channels.RepliesAnyone:
		return "Anyone's replies in threads I answered in"
	case channels.RepliesAll:
		return "Every question in the channel (a help channel)"
	}
	return "The asker's replies in threads I answered in"
}

// SettingsSaved confirms a change, saying what the channel's settings are.
func SettingsSaved(s channels.Settings) string {
	return "Saved. " + SettingsSummary(s)
}

// SettingsSummary says what the channel's settings are, and who changed
// them last.
func SettingsSummary(s channels.Settings) string {
	sources := "every source the asker may read"
	if len(s.Sources) > 0 {
		sources = strings.Join(s.Sources, ", ")
	}
	experts := "none"
	if len(s.Experts) > 0 {
		experts = strings.Join(s.Experts, ", ")
	}
	private := "in the channel"
	if s.Private {
		private = "to the asker alone"
	}
	out := "Answers here cite " + sources + "; questions: " + strings.ToLower(RepliesChoice(s.ReplyMode())) +
		"; answers go " + private + "; experts: " + experts + "."
	if s.ChangedBy != "" {
		out += " Last changed by " + s.ChangedBy + "."
	}
	return out
}
