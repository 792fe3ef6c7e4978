package slack

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/slack-go/slack/slackevents"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/channels"
)

// platform names Slack in bot.Incoming, thread keys and dedupe keys.
const platform = "slack"

// emptyQuestionHint answers a bare mention privately, rather than posting a
// failed answer in the channel.
const emptyQuestionHint = "Ask me a question after the mention, for example: @Switchboard what is our refund policy?"

// eventCallback is an Events API request as Switchboard reads it, decoded
// once (decodeCallback) for every reader: the URL check, the question
// (readEvent) and a channel's live update (channelChange). It is decoded
// by hand rather than with slackevents' types so that one small parser
// serves HTTP and Socket Mode, and unknown fields or subtypes can never
// fail a delivery.
type eventCallback struct {
	Type      string `json:"type"`
	Challenge string `json:"challenge"` // of a url_verification
	TeamID    string `json:"team_id"`
	EventID   string `json:"event_id"`
	Event     inner  `json:"event"`
}

// inner is a callback's event, decoded with it. An event that does not
// decode fails only itself, not the request: Slack would retry a request
// refused, and the question readers log the event and move on.
type inner struct {
	*slackEvent
	err error // why the event did not decode
}

func (in *inner) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var e slackEvent
	if err := json.Unmarshal(b, &e); err != nil {
		in.err = err
		return nil
	}
	in.slackEvent = &e
	return nil
}

// slackEvent is the part of an app_mention or message event that
// Switchboard reads: a question, and for live updates of an ingested
// channel, the message a message_changed or message_deleted concerns.
type slackEvent struct {
	Type        string          `json:"type"`
	Subtype     string          `json:"subtype"`
	User        string          `json:"user"`
	BotID       string          `json:"bot_id"`
	Text        string          `json:"text"`
	TS          string          `json:"ts"`
	ThreadTS    string          `json:"thread_ts"`
	Channel     string          `json:"channel"`
	ChannelType string          `json:"channel_type"`
	DeletedTS   string          `json:"deleted_ts"`
	Message     *changedMessage `json:"message"`
	Previous    *changedMessage `json:"previous_message"`
	// Assistant is the thread of an assistant_thread_started or
	// assistant_thread_context_changed event.
	Assistant *assistantThread `json:"assistant_thread"`
}

type changedMessage struct {
	TS       string `json:"ts"`
	ThreadTS string `json:"thread_ts"`
	User     string `json:"user"`
	BotID    string `json:"bot_id"`
}

// decodeCallback decodes an Events API request, once.
func decodeCallback(payload []byte) (eventCallback, error) {
	var c eventCallback
	if err := json.Unmarshal(payload, &c); err != nil {
		return eventCallback{}, fmt.Errorf("slack: decode event: %w", err)
	}
	return c, nil
}

// parseEvent reads an Events API event_callback and returns the question it
// carries. ok is false for events that are not questions to Switchboard:
// other event types, edits and other message subtypes, messages of bots
// (including its own), and channel messages that do not mention it.
func parseEvent(payload []byte, me identity) (in bot.Incoming, ok bool, err error) {
	c, err := decodeCallback(payload)
	if err != nil {
		return bot.Incoming{}, false, err
	}
	if c.Event.err != nil {
		return bot.Incoming{}, false, fmt.Errorf("slack: decode %s event %s: %w", c.Type, c.EventID, c.Event.err)
	}
	in, kind := readEvent(c, me)
	return in, kind == eventQuestion, nil
}

// eventKind is what an event is to Switchboard.
type eventKind int

const (
	eventIgnored eventKind = iota
	eventQuestion
	// eventThreadReply is a reply in a thread that does not mention the
	// bot: a question only if it continues a conversation the bot had
	// there (see Adapter.continues).
	eventThreadReply
	// eventChannelMessage is a top-level message in a channel that does
	// not mention the bot: a question only in a help channel, when it
	// reads as one (bot.HelpQuestion).
	eventChannelMessage
)

// readEvent reads an Events API event_callback as parseEvent does, and
// also tells thread replies without a mention apart, which are questions
// only in threads the bot answered in.
func readEvent(outer eventCallback, me identity) (in bot.Incoming, kind eventKind) {
	if outer.Type != slackevents.CallbackEvent || outer.Event.slackEvent == nil {
		return bot.Incoming{}, eventIgnored
	}
	e := outer.Event.slackEvent
	kind = eventQuestion
	switch {
	case e.Type == "app_mention":
	case e.Type == "message" && e.ChannelType == "im":
		// Direct messages need no mention.
	case e.Type == "message" && (e.ChannelType == "channel" || e.ChannelType == "group") &&
		e.ThreadTS != "" && e.ThreadTS != e.TS && !mentions(e.Text, me.UserID):
		// A reply in a thread. One that mentions the bot is left to its
		// app_mention event, so that it is answered once.
		kind = eventThreadReply
	case e.Type == "message" && (e.ChannelType == "channel" || e.ChannelType == "group") &&
		(e.ThreadTS == "" || e.ThreadTS == e.TS) && !mentions(e.Text, me.UserID):
		kind = eventChannelMessage
	default:
		return bot.Incoming{}, eventIgnored
	}
	// A reply also sent to the channel is still a reply; other subtypes
	// are edits, deletions, joins and bots.
	subtypeOK := e.Subtype == "" || (kind == eventThreadReply && e.Subtype == "thread_broadcast")
	if !subtypeOK || e.BotID != "" || e.User == "" || e.Channel == "" || e.TS == "" {
		return bot.Incoming{}, eventIgnored // edits, joins, bots and anything without an asker
	}
	if e.User == me.UserID {
		return bot.Incoming{}, eventIgnored // its own messages, should Slack ever send them without bot_id
	}
	team := outer.TeamID
	if team == "" {
		team = me.TeamID
	}
	thread := e.ThreadTS
	if thread == "" {
		thread = e.TS // a top-level question starts a thread under itself
	}
	return bot.Incoming{
		Platform:  platform,
		EventID:   outer.EventID,
		Workspace: team,
		Channel:   e.Channel,
		Thread:    thread,
		MessageID: e.TS,
		Sent:      tsTime(e.TS),
		User:      e.User,
		Text:      question(e.Text, me.UserID),
	}, kind
}

// mentions reports whether Slack text mentions the bot user.
func mentions(text, botUserID string) bool {
	if botUserID == "" {
		return false
	}
	for _, sub := range mention.FindAllStringSubmatch(text, -1) {
		if sub[1] == botUserID {
			return true
		}
	}
	return false
}

var (
	mention = regexp.MustCompile(`<@([A-Z0-9]+)(?:\|[^>]*)?>`)
	link    = regexp.MustCompile(`<((?:https?|mailto):[^|>]+)(?:\|([^>]*))?>`)
	channel = regexp.MustCompile(`<#[A-Z0-9]+\|([^>]*)>`)
)

var unescaper = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&")

// question turns the text of a Slack message into the question as the
// asker wrote it: the bot's mention removed, links and channel names as
// shown in Slack, and Slack's escapes undone.
func question(text, botUserID string) string {
	text = mention.ReplaceAllStringFunc(text, func(m string) string {
		if sub := mention.FindStringSubmatch(m); botUserID != "" && sub[1] == botUserID {
			return ""
		}
		return m // other people stay mentioned: the question may be about them
	})
	text = link.ReplaceAllStringFunc(text, func(m string) string {
		sub := link.FindStringSubmatch(m)
		if sub[2] != "" {
			return sub[2]
		}
		return strings.TrimPrefix(sub[1], "mailto:")
	})
	text = channel.ReplaceAllString(text, "#$1")
	return strings.TrimSpace(unescaper.Replace(strings.Join(strings.Fields(text), " ")))
}

// onEvent handles an acknowledged event_callback: a question goes to the
// dispatcher, whose refusals are told to the asker.
func (a *Adapter) onEvent(ctx context.Context, c eventCallback) {
	if a.cfg.Ingest != nil {
		a.onChannelEvent(ctx, c) // keeps ingested channels up to date
	}
	if c.Event.err != nil {
		a.log.Warn("ignoring an event Slack sent", "type", c.Type, "event", c.EventID, "err", c.Event.err)
		return
	}
	if c.Event.slackEvent != nil && a.onAssistantEvent(ctx, cmp.Or(c.TeamID, a.self().TeamID), c.Event.slackEvent) {
		return
	}
	in, kind := readEvent(c, a.self())
	if kind == eventIgnored {
		return
	}
	set := a.settings(ctx, in)
	switch {
	case kind == eventThreadReply && (in.Text == "" || !a.continues(ctx, in, set)):
		// Nobody asked the bot anything: no hint, no ingest command.
		return
	case kind == eventChannelMessage && (a.replyMode(set) != channels.RepliesAll || !bot.HelpQuestion(in.Text, addressed(in.Text))):
		return // chatter, or a channel that is not a help channel
	}
	in.Sources = set.Sources
	r := a.replierFor(in)
	if set.Private { // never in a direct message: it has no settings
		// Each asker's conversation is their own: the others never saw it.
		in.Conversation = bot.PrivateConversation(in.User, in.Thread)
		r = a.privateReplier(in.Workspace, in.Channel, in.Thread, in.User, "")
	}
	if in.Text == "" {
		a.tell(ctx, r, emptyQuestionHint)
		return
	}
	if since, ok := ingestCommand(in.Text); ok && a.cfg.Ingest != nil {
		a.ingestChannel(ctx, in, since, r)
		return
	}
	assistant := inAssistantThread(in)
	if assistant {
		in.Viewing = a.viewing.get(in.Channel + "/" + in.Thread)
	}
	err := a.d.Submit(ctx, in, r)
	if err == nil && assistant {
		a.background(func(ctx context.Context) { a.titleThread(ctx, in) })
	}
	if errors.Is(err, bot.ErrDuplicate) {
		a.log.Debug("duplicate delivery ignored", "event", in.EventID, "ts", in.MessageID)
	}
	if text, tell := bot.Refusal(err); tell {
		a.log.Info("question not taken", "err", err)
		a.tell(ctx, r, text)
	}
}

// settings returns the settings of the channel a question was asked in;
// a direct message has none.
func (a *Adapter) settings(ctx context.Context, in bot.Incoming) channels.Settings {
	if isIM(in.Channel) {
		return channels.Settings{Channel: in.Channel}
	}
	return bot.SettingsOf(ctx, a.cfg.Channels, in.Channel, a.log)
}

// replyMode is the channel's reply mode, SLACK_THREAD_REPLIES for a
// channel without one.
func (a *Adapter) replyMode(s channels.Settings) channels.Replies {
	def, _ := channels.ParseReplies(a.cfg.ThreadReplies) // checked by New
	return bot.ReplyMode(s, def)
}

// isIM reports whether a channel id is a direct message's.
func isIM(channel string) bool { return strings.HasPrefix(channel, "D") }

// addressed reports whether a message (as question leaves it) mentions
// someone: a person or the bot's fellow apps (<@U…>), a group
// (<!subteam^…>), or the channel (<!here>, <!channel>).
func addressed(text string) bool {
	return strings.Contains(text, "<@") || strings.Contains(text, "<!")
}

// answeredTimeout bounds the look-up of whether a thread reply continues a
// conversation: it runs for every reply in every thread of the bot's
// channels, and a store that is slow must not hold deliveries up.
const answeredTimeout = 2 * time.Second

// continues reports whether a thread reply without a mention is a question:
// by default, when the bot answered its author in that thread (see
// Config.ThreadReplies, or the channel's reply mode). A failed look-up
// says no, logged: the replier can still mention the bot, and answering a
// stranger's aside would be worse.
func (a *Adapter) continues(ctx context.Context, in bot.Incoming, set channels.Settings) bool {
	user := in.User
	switch a.replyMode(set) {
	case channels.RepliesMention:
		return false
	case channels.RepliesAnyone, channels.RepliesAll:
		user = ""
	}
	if a.cfg.Conversations == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, answeredTimeout)
	defer cancel()
	ok, err := a.cfg.Conversations.Answered(ctx, in.ThreadKey(), user)
	if err != nil {
		a.log.Warn("could not tell whether a thread reply continues a conversation; not answering it",
			"thread", in.ThreadKey(), "ts", in.MessageID, "err", err)
		return false
	}
	return ok
}

// tell sends the asker a private line, logging a failure: there is no one
// else to tell.
func (a *Adapter) tell(ctx context.Context, r bot.Replier, text string) {
	if err := r.Private(ctx, text); err != nil {
		a.log.Error("could not tell the asker", "err", err)
	}
}
