package slack

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/switchboard/switchboard/bot"
)

// ingestCommandRE is "ingest this channel", optionally "since 2024-01-31".
var ingestCommandRE = regexp.MustCompile(`(?i)^ingest\s+(?:this\s+)?channel(?:\s+since\s+(\d{4}-\d{2}-\d{2}))?[.!]*$`)

// ingestCommand reports whether a question is the ingest command, and the
// day it asks to start from (zero: the whole history).
func ingestCommand(text string) (since time.Time, ok bool) {
	m := ingestCommandRE.FindStringSubmatch(strings.TrimSpace(text))
	if m == nil {
		return time.Time{}, false
	}
	if m[1] != "" {
		t, err := time.Parse("2006-01-02", m[1])
		if err != nil {
			return time.Time{}, false
		}
		since = t
	}
	return since, true
}

// ingestChannel hands an ingest command to the ingester; its progress is
// one message in the command's thread, edited as the run goes. Refusals
// go only to the asker.
func (a *Adapter) ingestChannel(ctx context.Context, in bot.Incoming, since time.Time, r bot.Replier) {
	st := &ingestStatus{a: a, channel: in.Channel, thread: in.Thread}
	err := a.cfg.Ingest.IngestChannel(ctx, bot.IngestRequest{
		Platform: platform, Workspace: in.Workspace, Channel: in.Channel, User: in.User, Since: since,
	}, st)
	switch {
	case err == nil:
	case errors.Is(err, bot.ErrNotAdmin):
		a.log.Info("ingest refused: not an admin", "user", in.User, "channel", in.Channel)
		a.tell(ctx, r, bot.NotAdminMessage)
	case errors.Is(err, bot.ErrIngestRunning):
		a.tell(ctx, r, bot.IngestRunningMessage)
	default:
		a.log.Error("could not start an ingest", "channel", in.Channel, "err", err)
		a.tell(ctx, r, "I couldn't start ingesting this channel; the details are in my log.")
	}
}

// ingestStatus is an ingest's progress message in a thread.
type ingestStatus struct {
	a       *Adapter
	channel string
	thread  string

	mu sync.Mutex
	ts string // the message, once posted
}

// Show posts the status the first time and edits it afterwards.
func (s *ingestStatus) Show(ctx context.Context, text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	opts := []slack.MsgOption{slack.MsgOptionText(escape(text), false)}
	if s.ts == "" {
		return s.a.retry(ctx, "chat.postMessage", func() (err error) {
			_, s.ts, err = s.a.api.PostMessageContext(ctx, s.channel, append(opts, slack.MsgOptionTS(s.thread))...)
			return err
		})
	}
	return s.a.retry(ctx, "chat.update", func() error {
		_, _, _, err := s.a.api.UpdateMessageContext(ctx, s.channel, s.ts, opts...)
		return err
	})
}

// ignoredSubtypes are message events that change no content people wrote.
var ignoredSubtypes = map[string]bool{
	"channel_join": true, "channel_leave": true, "channel_topic": true, "channel_purpose": true,
	"channel_name": true, "group_join": true, "group_leave": true, "message_replied": true,
	"pinned_item": true, "unpinned_item": true, "bot_add": true, "bot_remove": true,
}

// parseChannelEvent reads a message event of a channel (public or
// private; not direct messages) as a change; ok is false for other events
// and for the bot's own messages, whose every edit would otherwise echo
// back.
func parseChannelEvent(payload []byte, me identity) (bot.ChannelChange, bool) {
	c, err := decodeCallback(payload)
	if err != nil {
		return bot.ChannelChange{}, false
	}
	return channelChange(c, me)
}

// channelChange is parseChannelEvent of a decoded callback.
func channelChange(outer eventCallback, me identity) (bot.ChannelChange, bool) {
	if outer.Type != slackevents.CallbackEvent || outer.Event.slackEvent == nil {
		return bot.ChannelChange{}, false
	}
	e := outer.Event.slackEvent
	if e.Type != "message" || e.Channel == "" {
		return bot.ChannelChange{}, false
	}
	if e.ChannelType != "channel" && e.ChannelType != "group" {
		return bot.ChannelChange{}, false
	}
	if ignoredSubtypes[e.Subtype] {
		return bot.ChannelChange{}, false
	}
	team := outer.TeamID
	if team == "" {
		team = me.TeamID
	}
	c := bot.ChannelChange{Platform: platform, Workspace: team, Channel: e.Channel}
	// The bot's own messages carry its user id, whatever their bot_id.
	mine := func(user, _ string) bool { return me.UserID != "" && user == me.UserID }
	switch e.Subtype {
	case "message_changed":
		if e.Message == nil || mine(e.Message.User, e.Message.BotID) {
			return bot.ChannelChange{}, false
		}
		c.Message, c.Thread = e.Message.TS, e.Message.ThreadTS
	case "message_deleted":
		c.Message, c.Deleted = e.DeletedTS, true
		if e.Previous != nil {
			if mine(e.Previous.User, e.Previous.BotID) {
				return bot.ChannelChange{}, false
			}
			c.Thread = e.Previous.ThreadTS
		}
	default:
		if mine(e.User, e.BotID) {
			return bot.ChannelChange{}, false
		}
		c.Message, c.Thread = e.TS, e.ThreadTS
	}
	if c.Message == "" {
		return bot.ChannelChange{}, false
	}
	c.Time = tsTime(c.Message)
	return c, true
}

// onChannelEvent applies a channel's message event to the knowledge base.
func (a *Adapter) onChannelEvent(ctx context.Context, cb eventCallback) {
	c, ok := channelChange(cb, a.self())
	if !ok {
		return
	}
	if err := a.cfg.Ingest.ChannelChanged(ctx, c); err != nil {
		a.log.Warn("could not apply a message change to the knowledge base", "channel", c.Channel, "ts", c.Message, "err", err)
	}
}

// tsTime reads a Slack ts ("1700000000.000100"); zero for anything else.
func tsTime(ts string) time.Time {
	sec, frac, _ := strings.Cut(ts, ".")
	var s, us int64
	for _, c := range sec {
		if c < '0' || c > '9' {
			return time.Time{}
		}
		s = s*10 + int64(c-'0')
	}
	frac = (frac + "000000")[:6]
	for _, c := range frac {
		if c < '0' || c > '9' {
			return time.Time{}
		}
		us = us*10 + int64(c-'0')
	}
	return time.Unix(s, us*1000).UTC()
}
