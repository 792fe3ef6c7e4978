package slack

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/slack-go/slack"
)

// Lines the voter sees, privately, after pressing a feedback button.
const (
	thanksMessage     = "Thanks for the feedback!"
	voteFailedMessage = "Sorry, I couldn't record your feedback. Please try again later."
)

// vote is one press of a feedback button.
type vote struct {
	AnswerID string
	User     string
	Value    int // +1 or -1
	Channel  string
	Thread   string // where the answer is, for the private thank-you
}

// parseInteraction reads a block_actions payload and returns the feedback
// vote it carries; ok is false for any other interaction.
func parseInteraction(payload []byte) (v vote, ok bool, err error) {
	var ic slack.InteractionCallback
	if err := json.Unmarshal(payload, &ic); err != nil {
		return vote{}, false, fmt.Errorf("slack: decode interaction: %w", err)
	}
	if ic.Type != slack.InteractionTypeBlockActions || ic.User.ID == "" {
		return vote{}, false, nil
	}
	for _, act := range ic.ActionCallback.BlockActions {
		if act == nil || act.Value == "" {
			continue
		}
		switch act.ActionID {
		case ActionFeedbackUp:
			v.Value = 1
		case ActionFeedbackDown:
			v.Value = -1
		default:
			continue
		}
		v.AnswerID, v.User = act.Value, ic.User.ID
		v.Channel = ic.Container.ChannelID
		if v.Channel == "" {
			v.Channel = ic.Channel.ID
		}
		// The answer sits in a thread; a message that is its own thread
		// root (a DM answered at top level) has no thread_ts.
		v.Thread = ic.Container.ThreadTs
		if v.Thread == "" {
			v.Thread = ic.Message.ThreadTimestamp
		}
		return v, true, nil
	}
	return vote{}, false, nil
}

// onInteraction handles an acknowledged interaction: a feedback vote goes
// to the dispatcher and the voter is thanked privately.
func (a *Adapter) onInteraction(ctx context.Context, payload []byte) {
	v, ok, err := parseInteraction(payload)
	if err != nil {
		a.log.Warn("ignoring an interaction Slack sent", "err", err)
		return
	}
	if !ok {
		return
	}
	reply := thanksMessage
	if err := a.d.Vote(ctx, v.AnswerID, v.User, v.Value); err != nil {
		a.log.Error("could not record a vote", "answer", v.AnswerID, "err", err)
		reply = voteFailedMessage
	}
	if v.Channel == "" {
		return
	}
	a.tell(ctx, a.replier(v.Channel, v.Thread, v.User), reply)
}
