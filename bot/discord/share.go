package discord

import (
	"context"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/switchboard/switchboard/bot"
)

// maxShelf bounds the private answers kept for their Share button.
const maxShelf = 1000

// shelf keeps the finished private answers given by this process, by
// answer id, so that Share posts the whole answer however many messages
// it took. An answer not on the shelf (given by another replica, or
// before a restart) is shared from the message whose button was pressed,
// which Discord sends with the press: the whole answer, unless it was
// long enough to take several messages.
type shelf struct {
	mu    sync.Mutex
	views map[string]bot.View
	order []string
	n     int
}

func newShelf(n int) *shelf { return &shelf{views: map[string]bot.View{}, n: n} }

func (s *shelf) put(v bot.View) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.views[v.AnswerID]; !ok {
		s.order = append(s.order, v.AnswerID)
	}
	s.views[v.AnswerID] = v
	if len(s.order) > s.n {
		delete(s.views, s.order[0])
		s.order = s.order[1:]
	}
}

func (s *shelf) get(id string) (bot.View, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.views[id]
	return v, ok
}

// shareTimeout bounds the posting of a shared answer, which follows the
// press's response and may outlive the request that brought it.
const shareTimeout = 30 * time.Second

// share posts a private answer in its channel, as the bot, saying who
// asked: only the asker sees the answer, so the presser is the asker.
// An answer is shared once, however often and wherever its button is
// pressed (Config.Shares); the asker's copy then shows it as shared. The
// post is a public follow-up of the press, which works wherever /ask
// does: in a server's channel, a DM or, for a user-installed bot, a
// channel the bot cannot post in with its own token.
func (a *Adapter) share(ctx context.Context, ia *discordgo.Interaction, respond responder, answerID string) {
	log := a.log.With("interaction", ia.ID, "answer", answerID)
	user := userID(ia)
	var msgs []Message
	if v, ok := a.shelf.get(answerID); ok {
		msgs = Shared(v, "<@"+user+">")
	} else if ia.Message != nil && len(ia.Message.Embeds) > 0 {
		msgs = []Message{{Content: bot.Asked("<@"+user+">", ""), Embeds: ia.Message.Embeds, Components: feedbackButtons(answerID, false)}}
	}
	tell := func(text string) {
		if err := respond(ephemeral(text)); err != nil {
			log.Warn("could not answer the share button", "err", err)
		}
	}
	if msgs == nil || user == "" || ia.Token == "" {
		tell(bot.ShareGoneLabel)
		return
	}
	// The response is due within three seconds.
	sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	first, err := a.cfg.Shares.FirstSeen(sctx, "discord:share:"+answerID)
	cancel()
	switch {
	case err != nil:
		log.Error("could not check whether the answer was shared", "err", err)
		tell(bot.ShareFailedLabel)
		return
	case !first:
		tell(bot.AlreadySharedLabel)
		return
	}
	// The asker's copy shows the answer as it was, its Share button
	// disabled; without the message (never from Discord) it is left as is.
	resp := &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate}
	if ia.Message != nil {
		resp = &discordgo.InteractionResponse{Type: discordgo.InteractionResponseUpdateMessage, Data: &discordgo.InteractionResponseData{
			Content: ia.Message.Content, Embeds: ia.Message.Embeds, Components: answerButtons(answerID, sharedButton, false),
			AllowedMentions: noMentions(),
		}}
	}
	if err := respond(resp); err != nil {
		log.Error("could not acknowledge the share button", "err", err)
		return
	}
	if ia.AppID == "" {
		ia.AppID = a.cfg.AppID
	}
	// The post goes as follow-ups of the press, waiting for Discord to
	// record the response as an answer's do (reply.webhook), and to the
	// channel with the bot token should the press's token be gone. The
	// response shows the asker's message already: Private must not
	// delete it.
	r := &reply{a: a, channel: ia.ChannelID, guild: ia.GuildID, user: user, ia: ia, acked: time.Now(), shown: true}
	ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), shareTimeout)
	defer cancel()
	for _, m := range msgs {
		if err := r.more(ctx, m); err != nil {
			log.Error("could not share the answer", "err", err)
			if err := r.Private(ctx, bot.ShareFailedLabel); err != nil {
				log.Warn("could not tell the asker", "err", err)
			}
			return
		}
	}
	log.Info("answer shared in the channel", "channel", ia.ChannelID)
}
