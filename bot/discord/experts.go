package discord

import (
	"context"
	"regexp"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/switchboard/switchboard/bot"
)

// This file is issue 26 on Discord: Ask an expert, the escalation it
// posts, and Save as answer. The words and whom to ask are the
// presenter's (bot.Experts); the escalation mentions those people and
// roles in its content, and its allowed_mentions lets exactly them be
// notified. Everything else (the question, what was searched, why) is in
// an embed, which notifies nobody whatever it says.

// Experts is what the adapter needs of bot.Experts.
type Experts interface {
	Escalate(ctx context.Context, req bot.EscalateRequest) (bot.Escalation, error)
	Save(ctx context.Context, req bot.SaveRequest) (bot.Saved, error)
}

var _ Experts = (*bot.Experts)(nil)

// The custom_ids of Ask an expert (expertPrefix and the answer id, after
// expertVoted when it came with a 👎) and of Save as answer.
const (
	expertPrefix = "expert:"
	expertVoted  = "voted:"
	savePrefix   = "save:"
)

// Discord's ids: a user's or role's snowflake. An expert set as "&ID" is
// a role (the settings name roles so, as Discord's mention "<@&ID>" does).
var snowflake = regexp.MustCompile(`^[0-9]{15,21}$`)

// Mentionable reports whether an owner's name is a Discord user id the
// escalation can mention.
func Mentionable(name string) bool { return snowflake.MatchString(name) }

func askExpertButton(answerID string, voted bool) discordgo.Button {
	id := expertPrefix + answerID
	if voted {
		id = expertPrefix + expertVoted + answerID
	}
	return discordgo.Button{Label: bot.AskExpertLabel, Style: discordgo.SecondaryButton, CustomID: id,
		Emoji: &discordgo.ComponentEmoji{Name: bot.AskExpertEmoji}}
}

// parseExpert reads Ask an expert's custom_id.
func parseExpert(customID string) (answerID string, voted, ok bool) {
	rest, ok := strings.CutPrefix(customID, expertPrefix)
	if !ok {
		return "", false, false
	}
	answerID, voted = strings.CutPrefix(rest, expertVoted)
	return answerID, voted, answerID != ""
}

// Escalation renders what Ask an expert posts: the lead, which mentions
// the experts or owners (and names the asker without notifying them), in
// the content; the rest in an embed; Save as answer under it; and the
// allowed_mentions that notify exactly the experts or owners.
func Escalation(esc bot.Escalation) (Message, *discordgo.MessageAllowedMentions) {
	allowed := &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}
	var mentions []string
	for _, id := range esc.Mention {
		switch role, isRole := strings.CutPrefix(id, "&"); {
		case isRole && snowflake.MatchString(role):
			mentions = append(mentions, "<@&"+role+">")
			allowed.Roles = append(allowed.Roles, role)
		case snowflake.MatchString(id):
			mentions = append(mentions, "<@"+id+">")
			allowed.Users = append(allowed.Users, id)
		default:
			mentions = append(mentions, escapeMentions(escape(id)))
		}
	}
	asker := escapeMentions(escape(esc.Asker))
	if snowflake.MatchString(esc.Asker) {
		asker = "<@" + esc.Asker + ">" // shown as a mention, not notified: not in allowed
	}
	lead := bot.EscalationLead(strings.Join(mentions, " "), asker, esc.Owners)
	e := &discordgo.MessageEmbed{Title: clip(bot.EscalationQuestionLabel+": "+text1(esc.Question), maxTitle), Color: colorLow}
	for _, part := range esc.Parts() {
		var b strings.Builder
		for i, l := range part.Lines {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString("• " + escape(l))
		}
		e.Fields = append(e.Fields, &discordgo.MessageEmbedField{Name: part.Label, Value: clip(b.String(), maxFieldValue)})
	}
	if len(esc.Unreachable) > 0 {
		e.Fields = append(e.Fields, &discordgo.MessageEmbedField{Name: "\u200b", Value: clip(escape(bot.NotNotified(strings.Join(esc.Unreachable, ", "))), maxFieldValue)})
	}
	e.Footer = &discordgo.MessageEmbedFooter{Text: bot.SaveHintLine}
	save := discordgo.Button{Label: bot.SaveAnswerLabel, Style: discordgo.PrimaryButton, CustomID: savePrefix + clip(esc.AnswerID, 80),
		Emoji: &discordgo.ComponentEmoji{Name: bot.SaveAnswerEmoji}}
	return Message{Content: clip(lead, maxContent), Embeds: []*discordgo.MessageEmbed{e},
		Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{save}}}}, allowed
}

// text1 is text on one line.
func text1(s string) string { return strings.Join(strings.Fields(s), " ") }

// escapeMentions keeps text in a message's content from reading as a
// mention at all, even one allowed_mentions would silence: "@everyone"
// and "<@…>" get a zero-width space after the "@".
func escapeMentions(s string) string { return strings.ReplaceAll(s, "@", "@\u200b") }

// pressTimeout bounds the work of a press answered at once: Discord waits
// three seconds for the response.
const pressTimeout = 2 * time.Second

// askExpert posts the escalation of an answer as the press's response, in
// the channel, once.
func (a *Adapter) askExpert(ctx context.Context, ia *discordgo.Interaction, respond responder, answerID string, voted bool) {
	tell := func(text string) {
		if err := respond(ephemeral(text)); err != nil {
			a.log.Warn("could not answer Ask an expert", "err", err)
		}
	}
	if a.cfg.Experts == nil {
		tell(bot.EscalateFailedLabel)
		return
	}
	ectx, cancel := context.WithTimeout(ctx, pressTimeout)
	esc, err := a.cfg.Experts.Escalate(ectx, bot.EscalateRequest{AnswerID: answerID, Channel: ia.ChannelID, User: userID(ia),
		Voted: voted, Mentionable: Mentionable})
	cancel()
	if err != nil {
		tell(a.refusal(err, answerID, bot.EscalateFailedLabel))
		return
	}
	m, allowed := Escalation(esc)
	if err := respond(&discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: m.Content, Embeds: m.Embeds, Components: m.Components, AllowedMentions: allowed}}); err != nil {
		a.log.Error("could not ask the experts", "answer", answerID, "err", err)
		if err := esc.Release(ctx); err != nil {
			a.log.Error("could not let the experts be asked again", "answer", answerID, "err", err)
		}
		return
	}
	a.log.Info("experts asked", "answer", answerID, "channel", ia.ChannelID, "mentioned", len(esc.Mention))
}

// refusal is what the presser is told of err: their words, or failed.
func (a *Adapter) refusal(err error, answerID, failed string) string {
	if msg, ok := bot.Refused(err); ok {
		return msg
	}
	a.log.Error("could not handle a press", "answer", answerID, "err", err)
	return failed
}

// saveAnswer saves the latest person's message after the escalation
// pressed on as the answer. The press is deferred, privately: reading
// the channel and storing the reply may take longer than Discord waits.
func (a *Adapter) saveAnswer(ctx context.Context, ia *discordgo.Interaction, respond responder, answerID string) {
	log := a.log.With("interaction", ia.ID, "answer", answerID)
	if err := respond(&discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Flags: discordgo.MessageFlagsEphemeral}}); err != nil {
		log.Error("could not acknowledge Save as answer", "err", err)
		return
	}
	if ia.AppID == "" {
		ia.AppID = a.cfg.AppID
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shareTimeout)
	defer cancel()
	// The deferral may not be recorded yet (in http mode it is still on
	// its way back): the reply's webhook waits for it.
	r := &reply{a: a, channel: ia.ChannelID, guild: ia.GuildID, user: userID(ia), ia: ia, acked: time.Now()}
	tell := func(text string) {
		m := Message{Content: clip(text, maxContent), Embeds: []*discordgo.MessageEmbed{}, Components: []discordgo.MessageComponent{}}
		if err := r.webhook(ctx, func() error { return a.editOriginal(ctx, ia, m) }); err != nil {
			log.Warn("could not answer Save as answer", "err", err)
		}
	}
	if a.cfg.Experts == nil || ia.Message == nil {
		tell(bot.SaveFailedLabel)
		return
	}
	reply, err := a.latestReply(ctx, ia.ChannelID, ia.Message.ID)
	if err != nil {
		log.Error("could not read the replies", "err", err)
		tell(bot.SaveFailedLabel)
		return
	}
	saved, err := a.cfg.Experts.Save(ctx, bot.SaveRequest{AnswerID: answerID, Platform: "discord", Workspace: ia.GuildID,
		Channel: ia.ChannelID, Private: a.private(ctx, ia), User: userID(ia), Reply: reply})
	if err != nil {
		tell(a.refusal(err, answerID, bot.SaveFailedLabel))
		return
	}
	log.Info("reply saved as an answer", "channel", ia.ChannelID, "reply", reply.ID)
	tell(bot.SavedAnswer("<@"+saved.Author+">", escape(saved.Question), "<@"+userID(ia)+">"))
}

// latestReply is the latest message by a person after the message after
// (the escalation) in channel, with its link; none when there is none.
func (a *Adapter) latestReply(ctx context.Context, channel, after string) (bot.Reply, error) {
	var msgs []*discordgo.Message
	err := a.do(ctx, "read the replies", func(opts ...discordgo.RequestOption) (err error) {
		msgs, err = a.s.ChannelMessages(channel, 100, "", after, "", opts...)
		return err
	})
	if err != nil {
		return bot.Reply{}, err
	}
	me := a.selfID()
	var best *discordgo.Message
	for _, m := range msgs { // newest first, as Discord sends them; the order is not relied on
		if m == nil || m.Author == nil || m.Author.Bot || m.Author.ID == me || strings.TrimSpace(m.Content) == "" {
			continue
		}
		if best == nil || lessID(best.ID, m.ID) {
			best = m
		}
	}
	if best == nil {
		return bot.Reply{}, nil
	}
	return bot.Reply{ID: best.ID, Author: best.Author.ID, Text: best.Content, At: sent(best.ID),
		Link: messageLink(best.GuildID, channel, best.ID)}, nil
}

// lessID compares snowflakes.
func lessID(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// messageLink is a message's URL, as Discord's "Copy Message Link" makes
// it ("@me" for a DM).
func messageLink(guild, channel, id string) string {
	if guild == "" {
		guild = "@me"
	}
	return "https://discord.com/channels/" + guild + "/" + channel + "/" + id
}

// private reports whether what is saved from the interaction's channel
// is for that channel alone: a DM or a private thread, as its history is
// (ingest/chat). When Discord does not say, it is taken to be private.
func (a *Adapter) private(ctx context.Context, ia *discordgo.Interaction) bool {
	if ia.GuildID == "" {
		return true
	}
	var ch *discordgo.Channel
	err := a.do(ctx, "read the channel", func(opts ...discordgo.RequestOption) (err error) {
		ch, err = a.s.Channel(ia.ChannelID, opts...)
		return err
	})
	if err != nil || ch == nil {
		a.log.Warn("cannot tell whether the channel is private; keeping the saved answer to it", "channel", ia.ChannelID, "err", err)
		return true
	}
	return ch.Type == discordgo.ChannelTypeGuildPrivateThread
}

// votedDown thanks a 👎 voter, privately, offering Ask an expert.
func votedDown(answerID, thanks string) *discordgo.InteractionResponse {
	resp := ephemeral(thanks)
	resp.Data.Components = []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		askExpertButton(clip(answerID, 80), true)}}}
	return resp
}
