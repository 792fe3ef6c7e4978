package slack

import (
	"regexp"
	"strings"

	"github.com/slack-go/slack"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/internal/text"
)

// This file renders issue 26's shapes: the Ask an expert button, the
// escalation it posts, with its Save as answer button. The words are the
// presenter's. Nothing in them mentions anyone but the experts or owners
// the presenter chose: every other text is escaped, so that a document
// or a model that writes "<!channel>" or "<@U999>" pings nobody.

// Action ids of Ask an expert (its value is the answer id, after
// votedDown when it came with a 👎) and of Save as answer (its value is
// the answer id the escalation is about), and the callback id of the
// Save as answer message shortcut (slack-app-manifest.yml).
const (
	ActionAskExpert    = "ask_expert"
	ActionSaveAnswer   = "save_answer"
	CallbackSaveAnswer = "save_answer"
	votedDown          = "voted:"
)

// askExpertButton is the Ask an expert button of an answer.
func askExpertButton(answerID string, voted bool) *slack.ButtonBlockElement {
	value := answerID
	if voted {
		value = votedDown + answerID
	}
	return slack.NewButtonBlockElement(ActionAskExpert, value,
		slack.NewTextBlockObject(slack.PlainTextType, bot.AskExpertEmoji+" "+bot.AskExpertLabel, true, false))
}

// VotedDown is the thanks for a 👎, to the voter alone, with Ask an
// expert.
func VotedDown(answerID, thanks string) []slack.Block {
	return []slack.Block{section(escape(thanks)), slack.NewActionBlock("expert", askExpertButton(answerID, true))}
}

// Slack's ids of people (U…, W…) and user groups (S…).
var (
	slackUserID  = regexp.MustCompile(`^[UW][A-Z0-9]{2,20}$`)
	slackGroupID = regexp.MustCompile(`^S[A-Z0-9]{2,20}$`)
)

// Mentionable reports whether an owner's name is a Slack account the
// escalation can mention: a user or user group id.
func Mentionable(name string) bool {
	return slackUserID.MatchString(name) || slackGroupID.MatchString(name)
}

// slackMention is id as Slack mentions it: a user, or a user group.
func slackMention(id string) string {
	if slackGroupID.MatchString(id) {
		return "<!subteam^" + id + ">"
	}
	return "<@" + id + ">"
}

// slackMentions are the ids Slack can mention, mentioned, and the others
// (never a configured expert's typo made markup) escaped as text.
func slackMentions(ids []string) string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if Mentionable(id) {
			out = append(out, slackMention(id))
		} else {
			out = append(out, escape(id))
		}
	}
	return strings.Join(out, " ")
}

// EscalationMessage renders what Ask an expert posts in the answer's
// thread, and its notification text: whom it asks, the question, what
// was searched, why the answer was not good enough, the owners who could
// not be notified, and Save as answer.
func EscalationMessage(esc bot.Escalation) ([]slack.Block, string) {
	asker := escape(esc.Asker)
	if slackUserID.MatchString(esc.Asker) {
		asker = slackMention(esc.Asker)
	}
	lead := bot.EscalationLead(slackMentions(esc.Mention), asker, esc.Owners)
	blocks := []slack.Block{
		section(text.Clip(lead, sectionLimit)),
		section(text.Clip("*"+bot.EscalationQuestionLabel+"*\n> "+escape(esc.Question), sectionLimit)),
	}
	for _, part := range esc.Parts() {
		var b strings.Builder
		b.WriteString("*" + part.Label + "*")
		for _, l := range part.Lines {
			b.WriteString("\n• " + escape(l))
		}
		blocks = append(blocks, section(text.Clip(b.String(), sectionLimit)))
	}
	if len(esc.Unreachable) > 0 {
		blocks = append(blocks, contextBlock(escape(bot.NotNotified(strings.Join(esc.Unreachable, ", ")))))
	}
	save := slack.NewButtonBlockElement(ActionSaveAnswer, esc.AnswerID,
		slack.NewTextBlockObject(slack.PlainTextType, bot.SaveAnswerEmoji+" "+bot.SaveAnswerLabel, true, false))
	blocks = append(blocks, contextBlock(escape(bot.SaveHintLine)), slack.NewActionBlock("escalation", save))
	// The notification carries the mentions, as the message does.
	return blocks, text.Clip(lead, fallbackLimit)
}

// escalationAnswer returns the answer id of an escalation's Save as
// answer button in blocks as conversations.replies returns them, "" when
// the message is no escalation.
func escalationAnswer(blocks slack.Blocks) string {
	for _, b := range blocks.BlockSet {
		ab, ok := b.(*slack.ActionBlock)
		if !ok || ab.Elements == nil {
			continue
		}
		for _, el := range ab.Elements.ElementSet {
			if btn, ok := el.(*slack.ButtonBlockElement); ok && btn.ActionID == ActionSaveAnswer && btn.Value != "" {
				return btn.Value
			}
		}
	}
	return ""
}
