package slack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/slack-go/slack/slackevents"

	"github.com/switchboard/switchboard/bot"
)

// platform names Slack in bot.Incoming, thread keys and dedupe keys.
const platform = "slack"

// emptyQuestionHint answers a bare mention privately, rather than posting a
// failed answer in the channel.
const emptyQuestionHint = "Ask me a question after the mention, for example: @Switchboard what is our refund policy?"

// messageEvent is the part of an app_mention or message event that
// Switchboard reads. It is decoded by hand rather than with slackevents'
// inner event types so that one small parser serves HTTP and Socket Mode,
// and unknown fields or subtypes can never fail a delivery.
type messageEvent struct {
	Type        string `json:"type"`
	Subtype     string `json:"subtype"`
	User        string `json:"user"`
	BotID       string `json:"bot_id"`
	Text        string `json:"text"`
	TS          string `json:"ts"`
	ThreadTS    string `json:"thread_ts"`
	Channel     string `json:"channel"`
	ChannelType string `json:"channel_type"`
}

// parseEvent reads an Events API event_callback and returns the question it
// carries. ok is false for events that are not questions to Switchboard:
// other event types, edits and other message subtypes, messages of bots
// (including its own), and channel messages that do not mention it.
func parseEvent(payload []byte, me identity) (in bot.Incoming, ok bool, err error) {
	var outer slackevents.EventsAPICallbackEvent
	if err := json.Unmarshal(payload, &outer); err != nil {
		return bot.Incoming{}, false, fmt.Errorf("slack: decode event: %w", err)
	}
	if outer.Type != slackevents.CallbackEvent || outer.InnerEvent == nil {
		return bot.Incoming{}, false, nil
	}
	var e messageEvent
	if err := json.Unmarshal(*outer.InnerEvent, &e); err != nil {
		return bot.Incoming{}, false, fmt.Errorf("slack: decode %s event %s: %w", outer.Type, outer.EventID, err)
	}
	switch {
	case e.Type == "app_mention":
	case e.Type == "message" && e.ChannelType == "im":
		// Direct messages need no mention. Channel messages arrive only
		// as app_mention, which also covers mentions in threads.
	default:
		return bot.Incoming{}, false, nil
	}
	if e.Subtype != "" || e.BotID != "" || e.User == "" || e.Channel == "" || e.TS == "" {
		return bot.Incoming{}, false, nil // edits, joins, bots and anything without an asker
	}
	if e.User == me.UserID {
		return bot.Incoming{}, false, nil // its own messages, should Slack ever send them without bot_id
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
		User:      e.User,
		Text:      question(e.Text, me.UserID),
	}, true, nil
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
func (a *Adapter) onEvent(ctx context.Context, payload []byte) {
	if a.cfg.Ingest != nil {
		a.onChannelEvent(ctx, payload) // keeps ingested channels up to date
	}
	in, ok, err := parseEvent(payload, a.self())
	if err != nil {
		a.log.Warn("ignoring an event Slack sent", "err", err)
		return
	}
	if !ok {
		return
	}
	r := a.replier(in.Channel, in.Thread, in.User)
	if in.Text == "" {
		a.tell(ctx, r, emptyQuestionHint)
		return
	}
	if since, ok := ingestCommand(in.Text); ok && a.cfg.Ingest != nil {
		a.ingestChannel(ctx, in, since, r)
		return
	}
	err = a.d.Submit(ctx, in, r)
	switch {
	case err == nil:
	case errors.Is(err, bot.ErrDuplicate):
		a.log.Debug("duplicate delivery ignored", "event", in.EventID, "ts", in.MessageID)
	case errors.Is(err, bot.ErrBusy):
		a.tell(ctx, r, bot.BusyMessage)
	case errors.Is(err, bot.ErrStopping):
		a.tell(ctx, r, bot.StoppingMessage)
	case errors.As(err, new(*bot.LimitError)):
		a.tell(ctx, r, err.Error()) // says when to ask again
	default:
		a.log.Error("could not queue a question", "err", err)
		a.tell(ctx, r, "Something went wrong while taking your question; please ask again.")
	}
}

// tell sends the asker a private line, logging a failure: there is no one
// else to tell.
func (a *Adapter) tell(ctx context.Context, r bot.Replier, text string) {
	if err := r.Private(ctx, text); err != nil {
		a.log.Error("could not tell the asker", "err", err)
	}
}
