package slack

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/slack-go/slack"
)

// Lines the voter sees, privately, after pressing a feedback button.
const (
	thanksMessage     = "Thanks for the feedback!"
	voteFailedMessage = "Sorry, I couldn't record your feedback. Please try again later."
)

// press is one press of a button of the bot's: a feedback vote, or the
// share button under a private answer.
type press struct {
	AnswerID string
	User     string
	Value    int  // +1 or -1, for a vote
	Share    bool // the share button
	Channel  string
	Thread   string // where the answer is, for the private thank-you
	// ResponseURL replaces or answers the message pressed on.
	ResponseURL string
}

// parseInteraction reads a block_actions payload and returns the press it
// carries: of the classic 👍/👎 buttons, the native feedback_buttons, or
// the share button; ok is false for any other interaction.
func parseInteraction(payload []byte) (p press, ok bool, err error) {
	var ic slack.InteractionCallback
	if err := json.Unmarshal(payload, &ic); err != nil {
		return press{}, false, fmt.Errorf("slack: decode interaction: %w", err)
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
		case ActionFeedback:
			if id, up := strings.CutPrefix(act.Value, feedbackUp); up {
				p.AnswerID, p.Value = id, 1
			} else if id, down := strings.CutPrefix(act.Value, feedbackDown); down {
				p.AnswerID, p.Value = id, -1
			}
		}
		if p.AnswerID == "" || (p.Value == 0 && !p.Share) {
			p = press{}
			continue
		}
		p.User, p.ResponseURL = ic.User.ID, ic.ResponseURL
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

// onInteraction handles an acknowledged interaction: a feedback vote goes
// to the dispatcher and the voter is thanked privately; a share posts the
// private answer in the channel.
func (a *Adapter) onInteraction(ctx context.Context, payload []byte) {
	p, ok, err := parseInteraction(payload)
	if err != nil {
		a.log.Warn("ignoring an interaction Slack sent", "err", err)
		return
	}
	if !ok {
		return
	}
	if p.Share {
		a.onShare(ctx, p.AnswerID, p.User, p.ResponseURL)
		return
	}
	reply := thanksMessage
	if err := a.d.Vote(ctx, p.AnswerID, p.User, p.Value); err != nil {
		a.log.Error("could not record a vote", "answer", p.AnswerID, "err", err)
		reply = voteFailedMessage
	}
	if p.Channel == "" {
		return
	}
	a.tell(ctx, a.replier(p.Channel, p.Thread, p.User), reply)
}
