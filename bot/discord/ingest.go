package discord

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/switchboard/switchboard/bot"
)

// The /ingest command and its option.
const (
	ingestName  = "ingest"
	sinceOption = "since"
)

// ingestCommand is /ingest [since:YYYY-MM-DD]: ingest this channel's
// history. Only ingest admins may use it; the adapter says so to others.
func ingestCommand() *discordgo.ApplicationCommand {
	return guildCommand(ingestName, "Load this channel's history into Switchboard's knowledge base (ingest admins only)",
		discordgo.ApplicationCommandOption{Name: sinceOption, Description: "Only messages from this day on, e.g. 2024-01-31 (default: the whole history)"})
}

// Replies of /ingest.
const (
	ingestStarted  = "Ingesting this channel; the progress is shown below."
	ingestBadSince = "`since` must be a day such as 2024-01-31."
	ingestFailed   = "I couldn't start ingesting this channel; the details are in my log."
)

// ingest answers /ingest: refused (privately) for everyone but ingest
// admins; for them the ingest starts and its progress is one channel
// message, edited as the run goes (an interaction's own message would
// expire after 15 minutes, and a backfill can take longer).
func (a *Adapter) ingest(ctx context.Context, ia *discordgo.Interaction, respond responder) {
	log := a.log.With("interaction", ia.ID, "channel", ia.ChannelID)
	user := userID(ia)
	var since time.Time
	if data, ok := ia.Data.(discordgo.ApplicationCommandInteractionData); ok {
		for _, o := range data.Options {
			if o == nil || o.Name != sinceOption {
				continue
			}
			s, _ := o.Value.(string)
			t, err := time.Parse("2006-01-02", strings.TrimSpace(s))
			if err != nil {
				if err := respond(ephemeral(ingestBadSince)); err != nil {
					log.Warn("could not answer /ingest", "err", err)
				}
				return
			}
			since = t
		}
	}
	if ia.ChannelID == "" || ia.GuildID == "" || user == "" {
		if err := respond(ephemeral(ingestFailed)); err != nil {
			log.Warn("could not answer /ingest", "err", err)
		}
		return
	}
	st := &ingestStatus{a: a, channel: ia.ChannelID}
	err := a.cfg.Ingest.IngestChannel(a.baseContext(), bot.IngestRequest{
		Platform: platform, Workspace: ia.GuildID, Channel: ia.ChannelID, User: user, Since: since,
	}, st)
	var reply *discordgo.InteractionResponse
	switch {
	case err == nil:
		reply = &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: ingestStarted, AllowedMentions: noMentions()}}
	case errors.Is(err, bot.ErrNotAdmin):
		log.Info("ingest refused: not an admin", "user", user)
		reply = ephemeral(bot.NotAdminMessage)
	case errors.Is(err, bot.ErrIngestRunning):
		reply = ephemeral(bot.IngestRunningMessage)
	default:
		log.Error("could not start an ingest", "err", err)
		reply = ephemeral(ingestFailed)
	}
	if err := respond(reply); err != nil {
		log.Warn("could not answer /ingest", "err", err)
	}
}

// ingestStatus is an ingest's progress message in a channel.
type ingestStatus struct {
	a       *Adapter
	channel string

	mu sync.Mutex
	id string // the message, once posted
}

// Show posts the status the first time and edits it afterwards.
func (s *ingestStatus) Show(ctx context.Context, text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	text = clip(text, maxContent)
	if s.id == "" {
		id, err := s.a.send(ctx, s.channel, &discordgo.MessageSend{Content: text, AllowedMentions: noMentions()})
		s.id = id
		return err
	}
	return s.a.edit(ctx, s.channel, s.id, Message{Content: text})
}

// liveTimeout bounds the handling of one message event.
const liveTimeout = time.Minute

// onMessageUpdate handles MESSAGE_UPDATE: an edited message.
func (a *Adapter) onMessageUpdate(_ *discordgo.Session, mu *discordgo.MessageUpdate) {
	if mu == nil || mu.Message == nil {
		return
	}
	a.messageChanged(mu.GuildID, mu.ChannelID, mu.ID, mu.Author, false)
}

// onMessageDelete handles MESSAGE_DELETE: a deleted message.
func (a *Adapter) onMessageDelete(_ *discordgo.Session, md *discordgo.MessageDelete) {
	if md == nil || md.Message == nil {
		return
	}
	a.messageChanged(md.GuildID, md.ChannelID, md.ID, nil, true)
}

// messageChanged hands a message event of a guild channel to the
// ingester, unless it is about the bot's own messages, whose every edit
// would otherwise echo back. discordgo runs each handler in a goroutine
// of its own, so the wait here holds up no other event.
func (a *Adapter) messageChanged(guild, channel, id string, author *discordgo.User, deleted bool) {
	if a.cfg.Ingest == nil || guild == "" || channel == "" || id == "" {
		return
	}
	if author != nil && author.ID == a.selfID() {
		return
	}
	ctx, cancel := context.WithTimeout(a.baseContext(), liveTimeout)
	defer cancel()
	c := bot.ChannelChange{Platform: platform, Workspace: guild, Channel: channel, Message: id,
		Time: snowflakeTime(id), Deleted: deleted}
	if err := a.cfg.Ingest.ChannelChanged(ctx, c); err != nil {
		a.log.Warn("could not apply a message change to the knowledge base", "channel", channel, "message", id, "err", err)
	}
}

// snowflakeTime is the time a Discord id was made; zero if it is not one.
func snowflakeTime(id string) time.Time {
	var n int64
	for _, c := range id {
		if c < '0' || c > '9' || n > (1<<62)/10 {
			return time.Time{}
		}
		n = n*10 + int64(c-'0')
	}
	return time.UnixMilli(n>>22 + 1420070400000).UTC()
}
