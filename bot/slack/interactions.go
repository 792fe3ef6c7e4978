package slack

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/slack-go/slack"

	"github.com/switchboard/switchboard/bot"
)

// Lines the voter sees, privately, after pressing a feedback button.
const (
	thanksMessage     = "Thanks for the feedback!"
	voteFailedMessage = "Sorry, I couldn't record your feedback. Please try again later."
)

// press is one press of a button of the bot's: a feedback vote, the
// share button under a private answer, Ask an expert, Save as answer, or
// the Save as answer message shortcut.
type press struct {
	AnswerID string // "" for the shortcut, which names a message instead
	User     string
	Value    int  // +1 or -1, for a vote
	Share    bool // the share button
	// Expert is Ask an expert, Voted when it came with a 👎; Save is
	// Save as answer on the escalation whose ts is Message.
	Expert, Voted, Save bool
	// Shortcut is the message shortcut on the reply Reply (its ts, author
	// and text), in Thread.
	Shortcut bool
	Reply    bot.Reply
	Message  string // the ts of the message pressed on
	Team     string
	Channel  string
	Thread   string // where the answer is, for the private thank-you
	// ResponseURL replaces or answers the message pressed on.
	ResponseURL string
}

// parseInteraction reads a block_actions payload and returns the press it
// carries: of the classic 👍/👎 buttons, the native feedback_buttons, the
// share button, Ask an expert or Save as answer; or a message_action
// payload of the Save as answer shortcut. ok is false for any other
// interaction.
func parseInteraction(payload []byte) (p press, ok bool, err error) {
	var ic slack.InteractionCallback
	if err := json.Unmarshal(payload, &ic); err != nil {
		return press{}, false, fmt.Errorf("slack: decode interaction: %w", err)
	}
	if ic.Type == slack.InteractionTypeMessageAction {
		p, ok = parseShortcut(&ic)
		return p, ok, nil
	}
	if ic.Type != slack.InteractionTypeBlockActions || ic.User.ID == "" {
		return press{}, false, nil
	}
	for _, act := range ic.ActionCallback.BlockActions {
		if act == nil || act.Value == "" {
			continue
		}
		p.AnswerID = act.Value
		switch act.ActionID {
		case ActionFeedbackUp:
			p.Value = 1
		case ActionFeedbackDown:
			p.Value = -1
		case ActionShare:
			p.Share = true
		case ActionAskExpert:
			p.Expert = true
			p.AnswerID, p.Voted = strings.CutPrefix(act.Value, votedDown)
		case ActionSaveAnswer:
			p.Save = true
		case ActionFeedback:
			if id, up := strings.CutPrefix(act.Value, feedbackUp); up {
				p.AnswerID, p.Value = id, 1
			} else if id, down := strings.CutPrefix(act.Value, feedbackDown); down {
				p.AnswerID, p.Value = id, -1
			}
		}
		if p.AnswerID == "" || (p.Value == 0 && !p.Share && !p.Expert && !p.Save) {
			p = press{}
			continue
		}
		p.User, p.ResponseURL, p.Team = ic.User.ID, ic.ResponseURL, ic.Team.ID
		p.Message = ic.Container.MessageTs
		p.Channel = ic.Container.ChannelID
		if p.Channel == "" {
			p.Channel = ic.Channel.ID
		}
		// The answer sits in a thread; a message that is its own thread
		// root (a DM answered at top level) has no thread_ts.
		p.Thread = ic.Container.ThreadTs
		if p.Thread == "" {
			p.Thread = ic.Message.ThreadTimestamp
		}
		return p, true, nil
	}
	return press{}, false, nil
}

// parseShortcut reads the Save as answer message shortcut: the reply it
// was used on must be a person's message in a thread.
func parseShortcut(ic *slack.InteractionCallback) (press, bool) {
	m := ic.Message
	if ic.CallbackID != CallbackSaveAnswer || ic.User.ID == "" || ic.Channel.ID == "" || m.Timestamp == "" {
		return press{}, false
	}
	p := press{Shortcut: true, User: ic.User.ID, Team: ic.Team.ID, Channel: ic.Channel.ID, Thread: m.ThreadTimestamp,
		Message: m.Timestamp, ResponseURL: ic.ResponseURL,
		Reply: bot.Reply{ID: m.Timestamp, Author: m.User, Text: m.Text, At: tsTime(m.Timestamp)}}
	if m.BotID != "" || m.SubType != "" {
		p.Reply.Author = "" // a bot's message is no person's answer
	}
	return p, true
}

// onInteraction handles an acknowledged interaction: a feedback vote goes
// to the dispatcher and the voter is thanked privately (after a 👎, with
// Ask an expert); a share posts the private answer in the channel; Ask an
// expert and Save as answer go to experts.go.
func (a *Adapter) onInteraction(ctx context.Context, payload []byte) {
	p, ok, err := parseInteraction(payload)
	if err != nil {
		a.log.Warn("ignoring an interaction Slack sent", "err", err)
		return
	}
	if !ok {
		return
	}
	switch {
	case p.Share:
		a.onShare(ctx, p.AnswerID, p.User, p.ResponseURL)
		return
	case p.Expert:
		a.onAskExpert(ctx, p)
		return
	case p.Save, p.Shortcut:
		a.onSaveAnswer(ctx, p)
		return
	}
	reply := thanksMessage
	err = a.d.Vote(ctx, p.AnswerID, p.User, p.Value)
	if err != nil {
		a.log.Error("could not record a vote", "answer", p.AnswerID, "err", err)
		reply = voteFailedMessage
	}
	if p.Channel == "" {
		return
	}
	r := a.replier(p.Channel, p.Thread, p.User)
	if p.Value < 0 && err == nil && a.cfg.Experts != nil {
		// Not helpful: a person may be.
		if err := r.privateBlocks(ctx, VotedDown(p.AnswerID, reply), reply); err != nil {
			a.log.Error("could not thank the voter", "err", err)
		}
		return
	}
	a.tell(ctx, r, reply)
}
