package slack

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/slack-go/slack"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/internal/markdown"
	"github.com/switchboard/switchboard/internal/text"
)

// Slack's limits on one message, and the margin this renderer keeps.
const (
	// maxBlocks is the number of blocks Slack accepts in one message.
	maxBlocks = 50
	// sectionLimit is where section text is cut. Slack allows 3000
	// characters but counts some (emoji, escapes it expands) differently
	// from runes, so parts are cut a little short.
	sectionLimit = 2900
	// contextLimit bounds one line of grey context text (status lines,
	// the route, the standalone question): they are meant to be glanced at.
	contextLimit = 300
	// fallbackLimit bounds the plain text sent with the blocks; Slack shows
	// it in notifications only.
	fallbackLimit = 300
)

// Action ids of the feedback buttons; the button value is the answer id.
const (
	ActionFeedbackUp   = "feedback_up"
	ActionFeedbackDown = "feedback_down"
)

// Blocks renders v as one message and returns its blocks and the plain
// text Slack shows in notifications. A view in progress shows the latest
// status lines; a finished view shows the first message of FinalMessages,
// which is what replaces the placeholder.
func Blocks(v bot.View) ([]slack.Block, string) {
	if v.Done {
		return FinalMessages(v)[0], fallback(v)
	}
	return progressBlocks(v), fallback(v)
}

// FinalMessages renders a finished view as one or more messages: the
// answer, cut into sections at paragraph and line breaks (never inside a
// code block), followed by the route, the numbered sources, any claims the
// check could not verify, the confidence badge and the feedback buttons.
// When that is more than one message holds, the first replaces the
// placeholder and the rest are posted as further replies in the thread.
func FinalMessages(v bot.View) [][]slack.Block {
	if v.Result == nil {
		failed := v.Failed
		if failed == "" {
			failed = "I couldn't answer this one."
		}
		return [][]slack.Block{{section("⚠️ " + escape(failed))}}
	}
	r := v.Result
	var body []slack.Block
	for _, part := range bot.Split(mrkdwn(r.Answer), sectionLimit) {
		body = append(body, section(part))
	}
	if len(body) == 0 {
		body = append(body, section("_(empty answer)_"))
	}
	var trailer []slack.Block
	route := escape(bot.RouteLine(*r))
	if r.Standalone != "" && r.Standalone != r.Question {
		route += " · understood as “" + escape(r.Standalone) + "”"
	}
	trailer = append(trailer, contextBlock(route))
	if len(r.Sources) > 0 {
		for _, part := range bot.Split("*Sources*\n"+sourceLines(r.Sources), sectionLimit) {
			trailer = append(trailer, section(part))
		}
	}
	if r.Confidence == agent.ConfidenceLow && len(r.Unsupported) > 0 {
		var b strings.Builder
		b.WriteString("*Not verified against the sources:*")
		for _, c := range r.Unsupported {
			b.WriteString("\n• " + escape(text.OneLine(c)))
		}
		for _, part := range bot.Split(b.String(), sectionLimit) {
			trailer = append(trailer, section(part))
		}
	}
	trailer = append(trailer, contextBlock(escape(bot.Badge(*r))), feedbackButtons(v.AnswerID))
	return pack(body, trailer)
}

// pack cuts the blocks into messages of at most maxBlocks. Every message
// but the last ends with a pointer to the next, and the trailer (route,
// sources, badge, buttons) is kept together in the last message whenever it
// fits in one.
func pack(body, trailer []slack.Block) [][]slack.Block {
	all := append(body, trailer...)
	var msgs [][]slack.Block
	for len(all) > maxBlocks {
		n := maxBlocks - 1 // room for the "continued" line
		if len(trailer) < maxBlocks && len(all)-n < len(trailer) {
			n = len(all) - len(trailer)
		}
		msg := append(all[:n:n], contextBlock("_continued below ↓_"))
		msgs = append(msgs, msg)
		all = all[n:]
	}
	return append(msgs, all)
}

// progressBlocks shows that the question is being worked on, with the
// latest status lines.
func progressBlocks(v bot.View) []slack.Block {
	blocks := []slack.Block{section("⏳ *Working on it…*")}
	if len(v.Status) > 0 {
		lines := make([]string, len(v.Status))
		for i, s := range v.Status {
			lines[i] = "› " + escape(text.Clip(text.OneLine(s), contextLimit))
		}
		blocks = append(blocks, slack.NewContextBlock("", slack.NewTextBlockObject(slack.MarkdownType, strings.Join(lines, "\n"), false, false)))
	}
	return blocks
}

// fallback is the notification text of a view.
func fallback(v bot.View) string {
	switch {
	case !v.Done:
		return escape("Working on: " + text.Clip(text.OneLine(v.Question), fallbackLimit))
	case v.Result == nil:
		return escape(v.Failed)
	default:
		return text.Clip(text.OneLine(mrkdwn(v.Result.Answer)), fallbackLimit)
	}
}

// sourceLines lists the sources, one numbered entry each. Links show their
// title linked to the URL or Slack permalink; files show their path as
// code; Cypher, which is the evidence of a graph answer, shows as a code
// block.
func sourceLines(sources []agent.Source) string {
	var b strings.Builder
	for i, s := range sources {
		if i > 0 {
			b.WriteByte('\n')
		}
		title := escape(text.OneLine(s.Title))
		loc := strings.TrimSpace(s.Location)
		fmt.Fprintf(&b, "*[%d]* ", s.N)
		switch {
		case isURL(loc):
			if title == "" {
				title = escape(loc)
			}
			fmt.Fprintf(&b, "<%s|%s>", linkURL(loc), strings.ReplaceAll(title, "|", "¦"))
		case loc == "":
			b.WriteString(title)
		case isCypher(s):
			// Fences on lines of their own, so that bot.Split sees them.
			b.WriteString(title + "\n```\n" + escape(strings.ReplaceAll(loc, "```", "` ` `")) + "\n```")
		case s.Route == agent.RouteGraph:
			b.WriteString(title + " — _" + escape(text.OneLine(loc)) + "_")
		default:
			b.WriteString(title + " — `" + escape(strings.ReplaceAll(text.OneLine(loc), "`", "'")) + "`")
		}
	}
	return b.String()
}

func isURL(s string) bool {
	return (strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")) && !strings.ContainsAny(s, " \n\t")
}

// isCypher reports whether a graph source's location is the query that
// ran; graph walks describe themselves with a "graph:" line instead.
func isCypher(s agent.Source) bool {
	return s.Route == agent.RouteGraph && !strings.HasPrefix(s.Location, "graph:")
}

// linkURL makes a URL safe inside <url|title>: Slack's control characters
// are escaped and a bar, which would end the URL, is percent-encoded.
func linkURL(u string) string {
	return strings.ReplaceAll(escape(u), "|", "%7C")
}

func feedbackButtons(answerID string) slack.Block {
	up := slack.NewButtonBlockElement(ActionFeedbackUp, answerID, slack.NewTextBlockObject(slack.PlainTextType, "👍 Helpful", true, false))
	down := slack.NewButtonBlockElement(ActionFeedbackDown, answerID, slack.NewTextBlockObject(slack.PlainTextType, "👎 Not helpful", true, false))
	return slack.NewActionBlock("feedback", up, down)
}

func section(text string) slack.Block {
	return slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, text, false, false), nil, nil)
}

func contextBlock(s string) slack.Block {
	return slack.NewContextBlock("", slack.NewTextBlockObject(slack.MarkdownType, text.Clip(s, contextLimit*2), false, false))
}

// escape replaces the three characters Slack treats as markup.
var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func escape(s string) string { return escaper.Replace(s) }

var (
	mdLink   = regexp.MustCompile(`\[([^\[\]\n]+)\]\((https?://[^\s()]+)\)`)
	mdBold   = regexp.MustCompile(`\*\*([^*\n]+)\*\*|__([^_\n]+)__`)
	mdItalic = regexp.MustCompile(`(^|[^*\w])\*([^*\s][^*\n]*?)\*([^*\w]|$)`)
	mdStrike = regexp.MustCompile(`~~([^~\n]+)~~`)
	mdHead   = regexp.MustCompile(`^#{1,6}\s+(.+?)\s*#*$`)
	mdBullet = regexp.MustCompile(`^(\s*)[-*+]\s+`)
	mdCode   = regexp.MustCompile("`[^`\n]*`")
)

// mrkdwn translates the Markdown a model writes into Slack's mrkdwn: bold,
// italics, strike-through, headings, bullets and links change syntax; code
// keeps its text; and Slack's control characters are escaped everywhere.
// Fences become plain ``` lines: mrkdwn would show a language tag as
// text, and knows no ~~~ fences.
func mrkdwn(md string) string {
	lines := strings.Split(md, "\n")
	var fences markdown.Scanner
	for i, line := range lines {
		switch fences.Line(line) {
		case markdown.Open, markdown.Close:
			lines[i] = "```"
		case markdown.Code:
			lines[i] = escape(line)
		default:
			lines[i] = mrkdwnLine(line)
		}
	}
	return strings.Join(lines, "\n")
}

// mrkdwnLine translates one line outside code blocks, leaving inline code
// spans alone but for escaping.
func mrkdwnLine(line string) string {
	if m := mdHead.FindStringSubmatch(line); m != nil {
		line = "**" + m[1] + "**"
	}
	line = mdBullet.ReplaceAllString(line, "$1• ")
	var b strings.Builder
	last := 0
	for _, loc := range mdCode.FindAllStringIndex(line, -1) {
		b.WriteString(mrkdwnText(line[last:loc[0]]))
		b.WriteString(escape(line[loc[0]:loc[1]]))
		last = loc[1]
	}
	b.WriteString(mrkdwnText(line[last:]))
	return b.String()
}

// mrkdwnText translates prose. Links are cut out first so that their URLs
// are not read as emphasis.
func mrkdwnText(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range mdLink.FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(emphasis(escape(s[last:m[0]])))
		text, url := s[m[2]:m[3]], s[m[4]:m[5]]
		fmt.Fprintf(&b, "<%s|%s>", linkURL(url), emphasis(escape(text)))
		last = m[1]
	}
	b.WriteString(emphasis(escape(s[last:])))
	return b.String()
}

// emphasis swaps Markdown's *italic* and **bold** for mrkdwn's _italic_ and
// *bold*. Bold goes through a placeholder so the italic rule cannot see it.
func emphasis(s string) string {
	if !strings.ContainsAny(s, "*_~") {
		return s // most prose: spare the regular expressions
	}
	const mark = "\x00"
	s = mdBold.ReplaceAllString(s, mark+"$1$2"+mark)
	s = mdItalic.ReplaceAllString(s, "${1}_${2}_${3}")
	s = mdStrike.ReplaceAllString(s, "~$1~")
	return strings.ReplaceAll(s, mark, "*")
}
