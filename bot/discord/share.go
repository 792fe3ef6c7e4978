package discord

import (
	"context"
	"log/slog"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/switchboard/switchboard/bot"
)

// shareTimeout bounds the posting of a shared answer, which follows the
// press's response and may outlive the request that brought it.
const shareTimeout = 30 * time.Second

// claimTimeout bounds reading and marking the answer in the store: the
// press's response is due within three seconds.
const claimTimeout = 2 * time.Second

// share posts a private answer in its channel, as the bot, saying who
// asked. The answer is the feedback store's (Config.Answers), as the
// asker was shown it, so the button works after a restart and on any
// replica; only its asker may share it, and once, however often the
// button is pressed. The asker's copy then shows it as shared. The post
// is a public follow-up of the press, which works wherever /ask does: in
// a server's channel, a DM or, for a user-installed bot, a channel the
// bot cannot post in with its own token; an answer delivered to the
// asker's DM is posted in its channel with the bot token.
func (a *Adapter) share(ctx context.Context, ia *discordgo.Interaction, respond responder, answerID string) {
	log := a.log.With("interaction", ia.ID, "answer", answerID)
	user := userID(ia)
	tell := func(text string) {
		if err := respond(ephemeral(text)); err != nil {
			log.Warn("could not answer the share button", "err", err)
		}
	}
	if user == "" || ia.Token == "" {
		tell(bot.ShareGoneLabel)
		return
	}
	cctx, cancel := context.WithTimeout(ctx, claimTimeout)
	claim, refused, err := bot.ClaimShare(cctx, a.cfg.Answers, platform, answerID, user)
	cancel()
	if refused != "" {
		if err != nil {
			log.Warn("answer not shared", "err", err)
		}
		tell(refused)
		return
	}
	// The asker's copy shows the answer as it was, its Share button
	// disabled; without the message (never from Discord) it is left as is.
	resp := &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate}
	if ia.Message != nil {
		resp = &discordgo.InteractionResponse{Type: discordgo.InteractionResponseUpdateMessage, Data: &discordgo.InteractionResponseData{
			Content: ia.Message.Content, Embeds: ia.Message.Embeds, Components: answerButtons(answerID, sharedButton, claim.View.Final.AskExpert),
			AllowedMentions: noMentions(),
		}}
	}
	ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), shareTimeout)
	defer cancel()
	if err := respond(resp); err != nil {
		log.Error("could not acknowledge the share button", "err", err)
		a.unclaim(ctx, claim, log)
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
	r := &reply{a: a, channel: claim.Channel, guild: ia.GuildID, user: user, ia: ia, acked: time.Now(), shown: true}
	if ia.ChannelID != claim.Channel {
		// Pressed in the asker's DM, where a private channel's answer to a
		// message went (onMessage): the press's follow-ups would show in
		// the DM, so the post goes to the channel with the bot token.
		r.ia = nil
	}
	for i, m := range Shared(claim.View, "<@"+user+">") {
		if err := r.more(ctx, m); err != nil {
			log.Error("could not share the answer", "err", err)
			if i == 0 {
				// Nothing of it shows: the asker may press again.
				a.unclaim(ctx, claim, log)
				if ia.Message != nil {
					again := Message{Content: ia.Message.Content, Embeds: ia.Message.Embeds, Components: answerButtons(answerID, shareButton, claim.View.Final.AskExpert)}
					if err := r.webhook(ctx, func() error { return a.editOriginal(ctx, ia, again) }); err != nil {
						log.Warn("could not give the asker the Share button again", "err", err)
					}
				}
			}
			if err := r.Private(ctx, bot.ShareFailedLabel); err != nil {
				log.Warn("could not tell the asker", "err", err)
			}
			return
		}
	}
	log.Info("answer shared in the channel", "channel", claim.Channel)
}

// unclaim makes an answer whose share failed shareable again.
func (a *Adapter) unclaim(ctx context.Context, claim bot.ShareClaim, log *slog.Logger) {
	if err := claim.Release(ctx); err != nil {
		log.Error("could not make the answer shareable again", "err", err)
	}
}
