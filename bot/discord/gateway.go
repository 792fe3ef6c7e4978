package discord

import (
	"context"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/switchboard/switchboard/bot"
)

// respondTimeout bounds the callback of an interaction in gateway mode:
// Discord discards an acknowledgement later than three seconds.
const respondTimeout = 3 * time.Second

// onReady learns the bot's own id (again, after a reconnect).
func (a *Adapter) onReady(_ *discordgo.Session, r *discordgo.Ready) {
	if r == nil || r.User == nil {
		return
	}
	a.mu.Lock()
	a.self = r.User.ID
	a.mu.Unlock()
}

// onInteraction handles INTERACTION_CREATE: the callback goes over REST.
func (a *Adapter) onInteraction(s *discordgo.Session, ic *discordgo.InteractionCreate) {
	if ic == nil || ic.Interaction == nil {
		return
	}
	ia := ic.Interaction
	ctx := a.baseContext()
	a.interact(ctx, ia, func(resp *discordgo.InteractionResponse) error {
		rctx, cancel := context.WithTimeout(ctx, respondTimeout)
		defer cancel()
		return a.do(rctx, "respond to an interaction", func(opts ...discordgo.RequestOption) error {
			return s.InteractionRespond(ia, resp, opts...)
		})
	})
}

// onMessage handles MESSAGE_CREATE: a message in a guild channel that
// mentions the bot is a question, and so is every message of a direct
// message to the bot (one without a guild). Messages of bots, the bot's
// own included, and of webhooks are ignored, so that bots never talk in
// loops.
func (a *Adapter) onMessage(_ *discordgo.Session, mc *discordgo.MessageCreate) {
	if mc == nil || mc.Message == nil {
		return
	}
	m := mc.Message
	self := a.selfID()
	// Keeps ingested channels up to date, after a question in the
	// message was queued: reading the day again should not delay it.
	defer a.messageChanged(m.GuildID, m.ChannelID, m.ID, m.Author, false)
	switch {
	case m.Author == nil || m.Author.Bot || m.Author.ID == self || m.WebhookID != "":
		return
	case m.Type != discordgo.MessageTypeDefault && m.Type != discordgo.MessageTypeReply:
		return
	case m.GuildID != "" && (self == "" || !mentions(m, self)):
		return
	}
	text := m.Content
	if self != "" {
		text = stripMention(text, self)
	}
	text = strings.TrimSpace(text)
	r := &reply{a: a, channel: m.ChannelID, guild: m.GuildID, user: m.Author.ID, replyTo: m.ID}
	ctx := a.baseContext()
	if text == "" {
		usage := usageMention
		if m.GuildID == "" {
			usage = usageDM
		}
		if err := r.Private(ctx, usage); err != nil {
			a.log.Warn("could not answer an empty mention", "err", err)
		}
		return
	}
	a.submit(ctx, converse(bot.Incoming{
		Platform:  platform,
		Workspace: m.GuildID,
		Channel:   m.ChannelID,
		Thread:    m.ChannelID,
		MessageID: m.ID,
		Sent:      sent(m.ID),
		User:      m.Author.ID,
		Text:      text,
	}), r)
}

// usageMention answers a mention without a question, usageDM a direct
// message without one (a picture, a sticker).
const (
	usageMention = "Ask me a question after the mention, or use `/ask`."
	usageDM      = "Send me your question as text, or use `/ask`."
)

// mentions reports whether m addresses the bot: by an explicit mention, or
// by replying to one of its messages (which Discord lists as a mention).
func mentions(m *discordgo.Message, self string) bool {
	for _, u := range m.Mentions {
		if u != nil && u.ID == self {
			return true
		}
	}
	return strings.Contains(m.Content, "<@"+self+">") || strings.Contains(m.Content, "<@!"+self+">")
}

// stripMention removes the bot's mentions from a question.
func stripMention(content, self string) string {
	content = strings.ReplaceAll(content, "<@!"+self+">", "")
	content = strings.ReplaceAll(content, "<@"+self+">", "")
	return strings.TrimSpace(content)
}
