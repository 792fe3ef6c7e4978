package discord

import (
	"cmp"
	"context"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/channels"
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
// message to the bot (one without a guild). The channel's reply mode
// (its settings) decides the rest: a reply to one of the bot's answers
// (continues), and in a help channel a top-level question addressed to
// no one (bot.HelpQuestion). Messages of bots, the bot's own included,
// and of webhooks are ignored, so that bots never talk in loops.
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
	case m.GuildID != "" && self == "":
		return // who the bot is is not known yet
	}
	text := strings.TrimSpace(stripMention(m.Content, self))
	r := &reply{a: a, channel: m.ChannelID, guild: m.GuildID, user: m.Author.ID, replyTo: m.ID}
	ctx := a.baseContext()
	in := converse(bot.Incoming{
		Platform:  platform,
		Workspace: m.GuildID,
		Channel:   m.ChannelID,
		Thread:    m.ChannelID,
		MessageID: m.ID,
		Sent:      sent(m.ID),
		User:      m.Author.ID,
		Text:      text,
	})
	if m.GuildID != "" {
		set, ok := a.guildQuestion(ctx, m, self, text)
		if !ok {
			return
		}
		in.Sources = set.Sources
		if set.Private {
			// A message cannot be shown to one person alone: the answer
			// goes to the asker's DM with the bot (reply.place), with
			// the Share button, and the conversation is theirs alone as
			// a private /ask's.
			r.private, r.share, r.replyTo = true, true, ""
			in.Conversation += privateConversation
		}
	}
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
	a.submit(ctx, in, r)
}

// guildQuestion reports whether a message in a guild channel is a
// question for the bot, and returns the channel's settings. The settings
// are read only for a message that may be one, not for every remark.
func (a *Adapter) guildQuestion(ctx context.Context, m *discordgo.Message, self, text string) (channels.Settings, bool) {
	explicit := mentionsIn(m.Content, self)
	toBot := !explicit && repliesTo(m, self)
	help := !explicit && !toBot && m.MessageReference == nil && bot.HelpQuestion(text, addressed(m))
	if !explicit && !toBot && !help {
		return channels.Settings{}, false
	}
	set := a.channelSettings(ctx, m.GuildID, m.ChannelID)
	mode := bot.ReplyMode(set, defaultReplies)
	switch {
	case explicit:
		return set, true
	case toBot:
		return set, a.continues(ctx, m, mode)
	}
	return set, mode == channels.RepliesAll
}

// defaultReplies is the reply mode of a channel without one: anyone's
// reply to an answer is a question, as it was before channel settings (a
// reply pings the bot by default, which Discord lists as a mention).
const defaultReplies = channels.RepliesAnyone

// askerTimeout bounds the look-up of whom an answer replied to.
const askerTimeout = 2 * time.Second

// continues reports whether a reply to one of the bot's messages is a
// question in a channel of reply mode mode: never for RepliesMention,
// always for RepliesAnyone and RepliesAll, and for RepliesAsker when its
// author is the one the bot answered there: the user of the /ask the
// answer responds to, or the author of the message the answer replies to
// (read from Discord, as MESSAGE_CREATE carries one level of replies).
// An asker that cannot be told says no, logged.
func (a *Adapter) continues(ctx context.Context, m *discordgo.Message, mode channels.Replies) bool {
	switch mode {
	case channels.RepliesMention:
		return false
	case channels.RepliesAnyone, channels.RepliesAll:
		return true
	}
	answer := m.ReferencedMessage
	switch {
	case answer == nil:
		return false
	case answer.InteractionMetadata != nil && answer.InteractionMetadata.User != nil:
		return answer.InteractionMetadata.User.ID == m.Author.ID
	case answer.MessageReference == nil || answer.MessageReference.MessageID == "":
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, askerTimeout)
	defer cancel()
	var asked *discordgo.Message
	err := a.do(ctx, "read the asking message", func(opts ...discordgo.RequestOption) (err error) {
		asked, err = a.s.ChannelMessage(cmp.Or(answer.MessageReference.ChannelID, m.ChannelID), answer.MessageReference.MessageID, opts...)
		return err
	})
	if err != nil || asked.Author == nil {
		a.log.Warn("could not tell whom an answer replied to; not answering a reply to it", "message", m.ID, "err", err)
		return false
	}
	return asked.Author.ID == m.Author.ID
}

// usageMention answers a mention without a question, usageDM a direct
// message without one (a picture, a sticker).
const (
	usageMention = "Ask me a question after the mention, or use `/ask`."
	usageDM      = "Send me your question as text, or use `/ask`."
)

// mentionsIn reports whether a message's text mentions the bot.
func mentionsIn(content, self string) bool {
	return strings.Contains(content, "<@"+self+">") || strings.Contains(content, "<@!"+self+">")
}

// repliesTo reports whether m replies to one of the bot's messages: its
// referenced message is the bot's or, when Discord could not send that
// message (deleted), the reply pings the bot, which Discord lists as a
// mention without writing one.
func repliesTo(m *discordgo.Message, self string) bool {
	if m.MessageReference == nil {
		return false
	}
	if ref := m.ReferencedMessage; ref != nil {
		return ref.Author != nil && ref.Author.ID == self
	}
	for _, u := range m.Mentions {
		if u != nil && u.ID == self {
			return true
		}
	}
	return false
}

// addressed reports whether a message mentions someone: a person, a role,
// @everyone or @here. A help channel leaves those to the people.
func addressed(m *discordgo.Message) bool {
	return len(m.Mentions) > 0 || len(m.MentionRoles) > 0 || m.MentionEveryone
}

// stripMention removes the bot's mentions from a question.
func stripMention(content, self string) string {
	content = strings.ReplaceAll(content, "<@!"+self+">", "")
	content = strings.ReplaceAll(content, "<@"+self+">", "")
	return strings.TrimSpace(content)
}
