package slack

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/internal/cite"
	"github.com/switchboard/switchboard/internal/markdown"
	"github.com/switchboard/switchboard/internal/text"
)

// This file renders views for Slack's AI-app surface: the status line of
// a thread, streamed text, the blocks that end a stream, a private answer
// with its share button and the shared answer. The words are the
// presenter's; only the shapes are Slack's.

// Action ids of the native feedback buttons (a context_actions block of
// feedback_buttons, whose values are feedbackUp or feedbackDown and the
// answer id) and of the share button under a private answer (its value is
// the answer id).
const (
	ActionFeedback = "feedback"
	ActionShare    = "share_answer"
	feedbackUp     = "up:"
	feedbackDown   = "down:"
)

// streamLimit is where streamed text is cut into calls: Slack takes
// 12,000 characters of markdown_text at a time.
const streamLimit = 11000

// StatusLine is the thread status that shows v's progress.
func StatusLine(v bot.View) string {
	line := v.Progress
	if line == "" {
		line = bot.ThinkingLine
	}
	return text.Clip(text.OneLine(line), contextLimit)
}

// StreamDraft is a draft as streamed markdown: Slack's control characters
// escaped, so that nothing in it mentions or links.
//
// Slack's reference for chat.*Stream's markdown_text says only that it is
// markdown (as the markdown block's text). Slack still reads its <…>
// tokens there, and shows &lt; &gt; &amp; as the characters without
// reading them again as tokens; it does not decode a link's destination,
// so URLs are given raw (markdownText). That is PostHog's measurement on
// a real workspace (github.com/PostHog/posthog pull 95054), and what the
// mrkdwn rules say (docs.slack.dev/messaging/formatting-message-text).
func StreamDraft(draft string) string { return escape(strings.TrimSpace(draft)) }

// StreamFinal renders a finished view for the end of a stream: the answer
// as markdown, its citations linked, and the blocks chat.stopStream puts
// under it (where it came from, the sources, the claims not verified, the
// badge and the feedback buttons). A failed view is its line alone.
func StreamFinal(v bot.View) (answer string, blocks []slack.Block) {
	if v.Final == nil {
		failed := v.Failed
		if failed == "" {
			failed = bot.FailedMessage
		}
		return bot.FailedEmoji + " " + escape(failed), nil
	}
	f := v.Final
	answer = markdownText(f.Text, f.Links)
	if strings.TrimSpace(answer) == "" {
		answer = "_" + bot.EmptyAnswerLabel + "_"
	}
	blocks = trailer(f)
	buttons := []slack.Block{nativeFeedback(v.AnswerID)}
	if f.AskExpert {
		// A context_actions block holds only feedback and icon buttons.
		buttons = append(buttons, slack.NewActionBlock("expert", askExpertButton(v.AnswerID, false)))
	}
	if len(blocks)+len(buttons) > maxBlocks {
		// Sources past Slack's limit give way to the badge.
		blocks = append(blocks[:maxBlocks-len(buttons)-1], blocks[len(blocks)-1])
	}
	return answer, append(blocks, buttons...)
}

// markdownText is the presenter's Markdown, read, as streamed markdown:
// escaped as StreamDraft is, its citations linked to urls.
func markdownText(t cite.Text, urls map[int]string) string {
	lines := make([]string, len(t.Lines))
	for i, line := range t.Lines {
		s := line.String()
		var links []string
		if len(urls) > 0 && line.Kind == markdown.Text && !strings.Contains(s, citeMark) {
			s = line.Link(urls, func(label, url string) string {
				links = append(links, "["+label+"]("+markdownURL.Replace(url)+")")
				return citeMark
			})
		}
		s = escape(s)
		for _, l := range links {
			s = strings.Replace(s, citeMark, l, 1)
		}
		lines[i] = s
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// markdownURL keeps a URL whole inside a Markdown link.
var markdownURL = strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E")

// streamParts cuts streamed text into pieces Slack takes in one call, at
// line breaks where it can.
func streamParts(s string) []string {
	var parts []string
	for utf8.RuneCountInString(s) > streamLimit {
		cut := len(text.ClipBytes(s, streamLimit)) // ≤ streamLimit bytes, so ≤ as many characters
		if k := strings.LastIndexByte(s[:cut], '\n'); k > cut/2 {
			cut = k + 1
		}
		parts = append(parts, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		parts = append(parts, s)
	}
	return parts
}

// nativeFeedback is the 👍/👎 of Slack's AI-app surface.
func nativeFeedback(answerID string) slack.Block {
	button := func(emoji, label, value string) *slack.FeedbackButton {
		b := slack.NewFeedbackButton(slack.NewTextBlockObject(slack.PlainTextType, emoji+" "+label, true, false), value)
		return b.WithAccessibilityLabel(label)
	}
	return slack.NewContextActionsBlock("", slack.NewFeedbackButtonsBlockElement(ActionFeedback,
		button(bot.HelpfulEmoji, bot.HelpfulLabel, feedbackUp+answerID),
		button(bot.NotHelpfulEmoji, bot.NotHelpfulLabel, feedbackDown+answerID)))
}

// PrivateAnswer renders a finished view for its asker alone, as one
// message: the answer with the 👍/👎 and a button that shares it in the
// channel. A view in progress is its progress blocks.
func PrivateAnswer(v bot.View) []slack.Block {
	if !v.Done {
		return progressBlocks(v)
	}
	var blocks []slack.Block
	for _, msg := range FinalMessages(v) {
		blocks = append(blocks, msg...)
	}
	if v.Final == nil {
		return blocks
	}
	share := slack.NewButtonBlockElement(ActionShare, v.AnswerID,
		slack.NewTextBlockObject(slack.PlainTextType, bot.ShareLabel, false, false))
	share.Style = slack.StylePrimary
	return append(blocks[:min(len(blocks), maxBlocks-1)], slack.NewActionBlock("share", share))
}

// SharedNote replaces a private answer's share button once pressed.
func SharedNote(v bot.View) []slack.Block {
	blocks := PrivateAnswer(v)
	return append(blocks[:len(blocks)-1], contextBlock(escape(bot.SharedLabel)))
}

var userID = regexp.MustCompile(`^[UW][A-Z0-9]+$`)

// SharedMessages renders an answer shared in the channel by its asker:
// who asked what, then the answer as FinalMessages shows it.
func SharedMessages(v bot.View, asker string) [][]slack.Block {
	who := escape(asker)
	if userID.MatchString(asker) {
		who = "<@" + asker + ">"
	}
	asked := contextBlock(bot.Asked(who, escape(v.Question)))
	msgs := FinalMessages(v)
	if len(msgs[0]) < maxBlocks {
		msgs[0] = append([]slack.Block{asked}, msgs[0]...)
		return msgs
	}
	return append([][]slack.Block{{asked}}, msgs...)
}
