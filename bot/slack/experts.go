package slack

import (
	"context"
	"strings"

	"github.com/slack-go/slack"

	"github.com/switchboard/switchboard/bot"
)

// Experts is what the adapter needs of bot.Experts.
type Experts interface {
	Escalate(ctx context.Context, req bot.EscalateRequest) (bot.Escalation, error)
	Save(ctx context.Context, req bot.SaveRequest) (bot.Saved, error)
}

var _ Experts = (*bot.Experts)(nil)

// onAskExpert posts the escalation of an answer in its thread, once.
func (a *Adapter) onAskExpert(ctx context.Context, p press) {
	if a.cfg.Experts == nil || p.Channel == "" {
		a.pressed(ctx, p, bot.EscalateFailedLabel)
		return
	}
	esc, err := a.cfg.Experts.Escalate(ctx, bot.EscalateRequest{AnswerID: p.AnswerID, Channel: p.Channel, User: p.User,
		Voted: p.Voted, Mentionable: Mentionable})
	if err != nil {
		a.refused(ctx, p, err, bot.EscalateFailedLabel)
		return
	}
	thread := p.Thread
	if thread == "" {
		thread = threadOf(esc.Thread)
	}
	// A private answer (/ask's, ephemeral) is in no thread: the escalation
	// starts one in its channel, for all there to see and answer, since
	// its asker chose to ask (README, "Ask an expert").
	r := a.replier(p.Channel, thread, p.User)
	r.answerID = esc.AnswerID // marks the post, so that a retry finds it
	blocks, text := EscalationMessage(esc)
	var unsure bool
	if _, err := r.post(ctx, a.policy, r.marker("x"), blocks, text, &unsure); err != nil {
		a.log.Error("could not ask the experts", "answer", esc.AnswerID, "err", err)
		if err := esc.Release(ctx); err != nil {
			a.log.Error("could not let the experts be asked again", "answer", esc.AnswerID, "err", err)
		}
		a.pressed(ctx, p, bot.EscalateFailedLabel)
		return
	}
	a.log.Info("experts asked", "answer", esc.AnswerID, "channel", p.Channel, "mentioned", len(esc.Mention))
}

// threadOf is the thread ts of a Slack conversation key
// (bot.Incoming.ThreadKey: "slack:T:C:ts"), "" for another platform's
// and for a private /ask's conversation, which is in no thread.
func threadOf(key string) string {
	_, conv := bot.ThreadPlace(key, "slack")
	if strings.HasPrefix(conv, askPrefix) {
		return ""
	}
	return conv
}

// onSaveAnswer saves a person's reply in an escalation's thread as the
// answer: the latest reply after the escalation whose Save as answer was
// pressed, or the reply the message shortcut was used on.
func (a *Adapter) onSaveAnswer(ctx context.Context, p press) {
	if a.cfg.Experts == nil || p.Channel == "" {
		a.pressed(ctx, p, bot.SaveFailedLabel)
		return
	}
	if p.Thread == "" && p.Save {
		p.Thread = p.Message // an escalation at the top of its channel is its thread's root
	}
	if p.Thread == "" {
		a.pressed(ctx, p, bot.NotEscalatedLabel)
		return
	}
	answerID, reply, err := a.escalated(ctx, p)
	switch {
	case err != nil:
		a.log.Error("could not read the escalation's thread", "channel", p.Channel, "thread", p.Thread, "err", err)
		a.pressed(ctx, p, bot.SaveFailedLabel)
		return
	case answerID == "":
		a.pressed(ctx, p, bot.NotEscalatedLabel)
		return
	case reply.ID == "" || reply.Author == "":
		a.pressed(ctx, p, bot.NoReplyLabel)
		return
	}
	var link *string
	if err := a.retry(ctx, "chat.getPermalink", func() error {
		l, err := a.api.GetPermalinkContext(ctx, &slack.PermalinkParameters{Channel: p.Channel, Ts: reply.ID})
		link = &l
		return err
	}); err != nil {
		a.log.Error("could not link the reply", "channel", p.Channel, "ts", reply.ID, "err", err)
		a.pressed(ctx, p, bot.SaveFailedLabel)
		return
	}
	reply.Link = *link
	team := p.Team
	if team == "" {
		team = a.self().TeamID
	}
	saved, err := a.cfg.Experts.Save(ctx, bot.SaveRequest{AnswerID: answerID, Platform: "slack", Workspace: team,
		Channel: p.Channel, Private: a.private(ctx, p.Channel), User: p.User, Reply: reply})
	if err != nil {
		a.refused(ctx, p, err, bot.SaveFailedLabel)
		return
	}
	a.log.Info("reply saved as an answer", "answer", answerID, "channel", p.Channel, "reply", reply.ID)
	// To the presser alone: mentions there notify nobody.
	r := a.replier(p.Channel, p.Thread, p.User)
	confirm := bot.SavedAnswer(slackMention(saved.Author), escape(saved.Question), slackMention(p.User))
	if err := r.privateBlocks(ctx, []slack.Block{section(confirm)}, bot.SavedAnswer(saved.Author, saved.Question, p.User)); err != nil {
		a.log.Warn("could not confirm the saved answer", "err", err)
	}
}

// escalated reads the escalation's thread: the answer its Save as answer
// button is about and the reply to save. For the button, the reply is
// the latest person's message after the escalation pressed on; for the
// shortcut, the message it was used on, and the escalation the latest
// before it.
func (a *Adapter) escalated(ctx context.Context, p press) (answerID string, reply bot.Reply, err error) {
	me := a.self().UserID
	if p.Shortcut {
		reply = p.Reply
	}
	_, err = a.eachReply(ctx, p.Channel, p.Thread, func(m slack.Message) {
		mine := m.BotID != "" || (me != "" && m.User == me)
		switch {
		case p.Save && m.Timestamp > p.Message && !mine && m.SubType == "" && m.User != "" && strings.TrimSpace(m.Text) != "":
			reply = bot.Reply{ID: m.Timestamp, Author: m.User, Text: m.Text, At: tsTime(m.Timestamp)}
		case p.Save && m.Timestamp == p.Message && mine:
			answerID = escalationAnswer(m.Blocks)
		case p.Shortcut && mine && m.Timestamp < p.Message:
			if id := escalationAnswer(m.Blocks); id != "" {
				answerID = id
			}
		}
	})
	if p.Save && answerID == "" {
		answerID = p.AnswerID // the button's own value, should the thread not show the message
	}
	return answerID, reply, err
}

// private reports whether a channel's saved answers are for it alone: a
// private channel or a DM, as its history is (ingest/chat). When Slack
// does not say, it is taken to be private.
func (a *Adapter) private(ctx context.Context, channel string) bool {
	var info *slack.Channel
	err := a.retry(ctx, "conversations.info", func() (err error) {
		info, err = a.api.GetConversationInfoContext(ctx, &slack.GetConversationInfoInput{ChannelID: channel})
		return err
	})
	if err != nil || info == nil {
		a.log.Warn("cannot tell whether the channel is private; keeping the saved answer to it", "channel", channel, "err", err)
		return true
	}
	return info.IsPrivate || info.IsIM || info.IsMpIM
}

// refused tells the presser why their press did nothing: their words
// (bot.Refused), or failed when the error is ours.
func (a *Adapter) refused(ctx context.Context, p press, err error, failed string) {
	msg, ok := bot.Refused(err)
	if !ok {
		a.log.Error("could not handle a press", "answer", p.AnswerID, "err", err)
		msg = failed
	}
	a.pressed(ctx, p, msg)
}

// pressed tells the presser alone, in the thread pressed in.
func (a *Adapter) pressed(ctx context.Context, p press, text string) {
	if p.Channel == "" {
		if p.ResponseURL != "" {
			if err := respond(ctx, a, p.ResponseURL, false, nil, escape(text)); err != nil {
				a.log.Warn("could not answer a press", "err", err)
			}
		}
		return
	}
	a.tell(ctx, a.replier(p.Channel, p.Thread, p.User), text)
}
