package discord

import (
	"context"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/switchboard/switchboard/bot"
)

// Interaction token timing. A token may be used for 15 minutes; past
// tokenLife the adapter posts in the channel instead of trying. Right
// after a deferral Discord may not have recorded the acknowledgement yet
// (in http mode the response is still on its way back), so a webhook that
// looks gone within ackGrace is retried a few times before giving up on it.
const (
	tokenLife  = 15*time.Minute - 30*time.Second
	ackGrace   = 3 * time.Second
	ackRetries = 4
)

// reply is the bot.Replier of one question. An /ask is shown in the
// interaction's original response and its follow-ups; a mention, a direct
// message, or an /ask whose token has expired, in channel messages posted
// with the bot token. A private /ask is shown to its asker alone:
// ephemeral, and past its token in the asker's DM with the bot, never in
// the channel.
type reply struct {
	a       *Adapter
	channel string
	guild   string
	user    string
	ia      *discordgo.Interaction // the /ask; nil for a mention
	acked   time.Time              // when the /ask was deferred
	replyTo string                 // the asking message of a mention
	private bool                   // the asker alone sees the answer
	share   bool                   // a private answer has a Share button

	// The dispatcher calls one method at a time, but the adapter may call
	// Private while a question is rejected; mu keeps the state consistent.
	mu     sync.Mutex
	shown  bool   // the original response shows a view (it is no longer "thinking")
	gone   bool   // the interaction token can no longer be used
	posted string // the channel message showing the view, once posted
	dm     string // the asker's DM channel, where a private answer goes past its token
}

var _ bot.Replier = (*reply)(nil)

// Start implements bot.Replier.
func (r *reply) Start(ctx context.Context, v bot.View) error {
	return r.Update(ctx, v)
}

// Update implements bot.Replier.
func (r *reply) Update(ctx context.Context, v bot.View) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.show(ctx, r.render(v)[0])
}

// render is v as the asker and the channel see it.
func (r *reply) render(v bot.View) []Message {
	if r.private {
		return Private(v, r.share)
	}
	return Embeds(v)
}

// Finish implements bot.Replier: the first message replaces the view, the
// rest of a long answer follows as further messages.
func (r *reply) Finish(ctx context.Context, v bot.View) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	msgs := r.render(v)
	if err := r.show(ctx, msgs[0]); err != nil {
		return err
	}
	for _, m := range msgs[1:] {
		if err := r.more(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// Private implements bot.Replier. For an /ask it is an ephemeral
// follow-up. A plain message cannot be ephemeral in Discord, so a
// mention's asker (and an /ask's whose token has expired) gets a reply
// that mentions them: visible to the channel, but addressed to them
// alone and kept short.
func (r *reply) Private(ctx context.Context, text string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	text = clip(text, maxContent-len("<@> ")-len(r.user))
	if r.usable() {
		if !r.shown {
			// The first follow-up of a deferral takes the place of the
			// public "thinking" message and its visibility, so that
			// message goes first; then the follow-up is truly ephemeral.
			if err := r.webhook(ctx, func() error { return r.a.deleteOriginal(ctx, r.ia) }); err != nil && !r.gone {
				return err
			}
			r.shown = true
		}
		if !r.gone {
			err := r.webhook(ctx, func() error {
				return r.a.followup(ctx, r.ia, Message{Content: text}, discordgo.MessageFlagsEphemeral)
			})
			if err == nil || !r.gone {
				return err
			}
		}
	}
	channel, err := r.place(ctx)
	if err != nil {
		return err
	}
	m := &discordgo.MessageSend{
		Content:         "<@" + r.user + "> " + text,
		AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}, Users: []string{r.user}},
	}
	if r.replyTo != "" {
		m.Content = text
		m.Reference = r.reference()
		m.AllowedMentions = &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}, RepliedUser: true}
	}
	_, err = r.a.send(ctx, channel, m)
	return err
}

// place is the channel where the view goes when the interaction's
// webhook cannot be used: the question's, or for a private answer the
// asker's DM with the bot, opened the first time.
func (r *reply) place(ctx context.Context) (string, error) {
	if !r.private {
		return r.channel, nil
	}
	if r.dm == "" {
		err := r.a.do(ctx, "open a DM", func(opts ...discordgo.RequestOption) error {
			ch, err := r.a.s.UserChannelCreate(r.user, opts...)
			if err == nil && ch != nil {
				r.dm = ch.ID
			}
			return err
		})
		if err != nil {
			return "", err
		}
	}
	return r.dm, nil
}

// show puts m where the view is: the original response while the token
// works, else a channel message, posted once and then edited.
func (r *reply) show(ctx context.Context, m Message) error {
	if r.usable() {
		err := r.webhook(ctx, func() error { return r.a.editOriginal(ctx, r.ia, m) })
		if err == nil {
			r.shown = true
			return nil
		}
		if !r.gone {
			return err
		}
	}
	channel, err := r.place(ctx)
	if err != nil {
		return err
	}
	if r.posted == "" {
		id, err := r.a.send(ctx, channel, r.first(m))
		if err != nil {
			return err
		}
		r.posted = id
		return nil
	}
	return r.a.edit(ctx, channel, r.posted, m)
}

// more posts one more message of a long answer.
func (r *reply) more(ctx context.Context, m Message) error {
	if r.usable() {
		var flags discordgo.MessageFlags
		if r.private {
			flags = discordgo.MessageFlagsEphemeral
		}
		err := r.webhook(ctx, func() error { return r.a.followup(ctx, r.ia, m, flags) })
		if err == nil || !r.gone {
			return err
		}
	}
	channel, err := r.place(ctx)
	if err != nil {
		return err
	}
	_, err = r.a.send(ctx, channel, &discordgo.MessageSend{
		Content: m.Content, Embeds: m.Embeds, Components: m.Components, AllowedMentions: noMentions(),
	})
	return err
}

// usable reports whether the interaction's webhook may still be used.
func (r *reply) usable() bool {
	if r.ia == nil || r.gone {
		return false
	}
	if time.Since(r.acked) > tokenLife {
		r.expired("the token is about to expire")
		return false
	}
	return true
}

// webhook runs a call on the interaction's webhook. If Discord says the
// webhook is gone, it marks the token unusable (so that callers fall back
// to the channel), except just after the deferral, when it waits a little
// for Discord to catch up and tries again.
func (r *reply) webhook(ctx context.Context, call func() error) error {
	wait := 100 * time.Millisecond
	for try := 0; ; try++ {
		err := call()
		if err == nil || !isGone(err) {
			return err
		}
		if try >= ackRetries || time.Since(r.acked) > ackGrace {
			r.expired(err.Error())
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return err
		}
		wait *= 2
	}
}

func (r *reply) expired(why string) {
	r.gone = true
	r.a.log.Info("interaction token unusable; answering in the channel", "channel", r.channel, "why", why)
}

// first makes the message that starts a view in the channel: for a
// mention, a reply to the asking message that does not ping the asker.
func (r *reply) first(m Message) *discordgo.MessageSend {
	s := &discordgo.MessageSend{
		Content: m.Content, Embeds: m.Embeds, Components: m.Components, AllowedMentions: noMentions(),
	}
	if r.replyTo != "" {
		s.Reference = r.reference()
	}
	return s
}

func (r *reply) reference() *discordgo.MessageReference {
	no := false // the question may have been deleted; answer anyway
	return &discordgo.MessageReference{MessageID: r.replyTo, ChannelID: r.channel, GuildID: r.guild, FailIfNotExists: &no}
}
