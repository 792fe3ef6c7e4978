package slack

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/slack-go/slack"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/internal/cite"
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
// code block), then where it came from, the numbered sources, any claims
// the check could not verify, the confidence badge and the feedback
// buttons. When that is more than one message holds, the first replaces
// the placeholder and the rest are posted as further replies in the
// thread.
func FinalMessages(v bot.View) [][]slack.Block {
	if v.Final == nil {
		failed := v.Failed
		if failed == "" {
			failed = bot.FailedMessage
		}
		return [][]slack.Block{{section(bot.FailedEmoji + " " + escape(failed))}}
	}
	f := v.Final
	answer := mrkdwn(f.Text, f.Links)
	var body []slack.Block
	for _, part := range markdown.Split(answer, sectionLimit) {
		body = append(body, section(part))
	}
	if len(body) == 0 {
		body = append(body, section("_"+bot.EmptyAnswerLabel+"_"))
	}
	return pack(body, append(trailer(f), feedbackButtons(v.AnswerID, f.AskExpert)))
}

// trailer is what follows an answer: where it came from, the numbered
// sources, any claims the check could not verify and the confidence badge.
func trailer(f *bot.Final) []slack.Block {
	var blocks []slack.Block
	blocks = append(blocks, contextBlock(escape(placeLine(f))))
	if len(f.Sources) > 0 {
		for _, part := range markdown.Split("*"+bot.SourcesLabel+"*\n"+sourceLines(f.Sources), sectionLimit) {
			blocks = append(blocks, section(part))
		}
	}
	if len(f.Unverified) > 0 {
		var b strings.Builder
		b.WriteString("*" + bot.UnverifiedLabel + ":*")
		for _, c := range f.Unverified {
			b.WriteString("\n• " + escape(c))
		}
		for _, part := range markdown.Split(b.String(), sectionLimit) {
			blocks = append(blocks, section(part))
		}
	}
	return append(blocks, contextBlock(escape(f.Badge.String())))
}

// placeLine says where the answer came from, why, and how the question
// was understood when that changed it.
func placeLine(f *bot.Final) string {
	line := bot.AnsweredFromLabel + " " + f.Place
	if f.Why != "" {
		line += " — " + f.Why
	}
	if f.Understood != "" {
		line += " · " + bot.UnderstoodAs(f.Understood)
	}
	return line
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
		msg := append(all[:n:n], contextBlock("_"+bot.ContinuedLabel+"_"))
		msgs = append(msgs, msg)
		all = all[n:]
	}
	return append(msgs, all)
}

// maxDraftSections bounds the sections of a draft in progress; the rest of
// it waits for the finished answer, which FinalMessages splits into as
// many messages as it needs.
const maxDraftSections = 3

// progressBlocks shows that the question is being worked on, with the
// latest progress line; while a draft is written and checked, the draft
// with the progress line under it, marked as not yet checked.
func progressBlocks(v bot.View) []slack.Block {
	line := v.Progress
	if line == "" {
		line = bot.ThinkingLine
	}
	line = bot.ProgressEmoji + " " + escape(text.Clip(text.OneLine(line), contextLimit))
	if strings.TrimSpace(v.Draft) == "" {
		return []slack.Block{section(line)}
	}
	var blocks []slack.Block
	parts := markdown.Split(mrkdwn(cite.Read(v.Draft), nil), sectionLimit)
	for _, part := range parts[:min(len(parts), maxDraftSections)] {
		blocks = append(blocks, section(part))
	}
	if len(parts) > maxDraftSections {
		blocks = append(blocks, contextBlock("…"))
	}
	return append(blocks, contextBlock(line+" · _"+bot.DraftNote+"_"))
}

// fallback is the notification text of a view: plain words, since Slack
// shows it without formatting.
func fallback(v bot.View) string {
	switch {
	case !v.Done:
		return escape(bot.WorkingOnLabel + text.Clip(text.OneLine(v.Question), fallbackLimit))
	case v.Final == nil:
		return escape(v.Failed)
	default:
		return escape(text.Clip(v.Final.Summary, fallbackLimit))
	}
}

// sourceLines lists the sources, one numbered entry each: the title linked
// when there is a link, the section in italics, a file's path as code, and
// the Cypher of a graph answer as a code block.
func sourceLines(sources []bot.SourceLine) string {
	var b strings.Builder
	for i, s := range sources {
		if i > 0 {
			b.WriteByte('\n')
		}
		title := escape(s.Title)
		fmt.Fprintf(&b, "*[%d]* ", s.N)
		if s.URL != "" {
			fmt.Fprintf(&b, "<%s|%s>", linkURL(s.URL), strings.ReplaceAll(title, "|", "¦"))
		} else {
			b.WriteString(title)
		}
		if s.Section != "" {
			b.WriteString(" · _" + escape(s.Section) + "_")
		}
		switch {
		case s.Query != "":
			// Fences on lines of their own, so that markdown.Split sees them.
			b.WriteString("\n```\n" + escape(strings.ReplaceAll(s.Query, "```", "` ` `")) + "\n```")
		case s.Where != "" && s.Where != s.Title:
			b.WriteString(" — `" + escape(strings.ReplaceAll(s.Where, "`", "'")) + "`")
		}
	}
	return b.String()
}

// linkURL makes a URL safe inside <url|title>: Slack's control characters
// are escaped and a bar, which would end the URL, is percent-encoded.
func linkURL(u string) string {
	return strings.ReplaceAll(escape(u), "|", "%7C")
}

// feedbackButtons are the 👍/👎 under an answer and, when the presenter
// offers it (bot.Final.AskExpert), Ask an expert by them.
func feedbackButtons(answerID string, ask bool) slack.Block {
	up := slack.NewButtonBlockElement(ActionFeedbackUp, answerID, slack.NewTextBlockObject(slack.PlainTextType, bot.HelpfulEmoji+" "+bot.HelpfulLabel, true, false))
	down := slack.NewButtonBlockElement(ActionFeedbackDown, answerID, slack.NewTextBlockObject(slack.PlainTextType, bot.NotHelpfulEmoji+" "+bot.NotHelpfulLabel, true, false))
	if ask {
		return slack.NewActionBlock("feedback", up, down, askExpertButton(answerID, false))
	}
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
	mdBold   = regexp.MustCompile(`\*\*([^*\n]+)\*\*|__([^_\n]+)__`)
	mdItalic = regexp.MustCompile(`(^|[^*\w])\*([^*\s][^*\n]*?)\*([^*\w]|$)`)
	mdStrike = regexp.MustCompile(`~~([^~\n]+)~~`)
	mdHead   = regexp.MustCompile(`^#{1,6}\s+(.+?)\s*#*$`)
	mdBullet = regexp.MustCompile(`^(\s*)[-*+]\s+`)
	mdCode   = regexp.MustCompile("`[^`\n]*`")
)

// mrkdwn translates the presenter's Markdown, read (see bot.Final.Text),
// into Slack's mrkdwn: bold, italics, strike-through, headings and bullets
// change syntax; code keeps its text; and Slack's control characters are
// escaped everywhere, so that no link is made of it (the presenter has
// shown every link's host as text) but the bot's own: the citations with
// a URL in urls.
// Fences become plain ``` lines: mrkdwn would show a language tag as
// text, and knows no ~~~ fences.
func mrkdwn(md cite.Text, urls map[int]string) string {
	lines := make([]string, len(md.Lines))
	for i, line := range md.Lines {
		switch line.Kind {
		case markdown.Open, markdown.Close:
			lines[i] = "```"
		case markdown.Code:
			lines[i] = escape(line.String())
		default:
			lines[i] = mrkdwnLine(line, urls)
		}
	}
	return strings.Join(lines, "\n")
}

// citeMark holds a citation's place while its line is translated, so that
// its link is not escaped with the line: a control character, which the
// presenter removes from what it shows (a line that holds one anyway gets
// no links).
const citeMark = "\x1a"

// mrkdwnLine translates one line outside code blocks, leaving inline code
// spans alone but for escaping, and links its citations with a URL in
// urls.
func mrkdwnLine(line cite.Line, urls map[int]string) string {
	var links []string
	s := line.String()
	if len(urls) > 0 && !strings.Contains(s, citeMark) {
		s = line.Link(urls, func(label, url string) string {
			links = append(links, "<"+linkURL(url)+"|"+label+">")
			return citeMark
		})
	}
	if m := mdHead.FindStringSubmatch(s); m != nil {
		s = "**" + m[1] + "**"
	}
	s = mdBullet.ReplaceAllString(s, "$1• ")
	var b strings.Builder
	last := 0
	for _, loc := range mdCode.FindAllStringIndex(s, -1) {
		b.WriteString(emphasis(escape(s[last:loc[0]])))
		b.WriteString(escape(s[loc[0]:loc[1]]))
		last = loc[1]
	}
	b.WriteString(emphasis(escape(s[last:])))
	out := b.String()
	for _, link := range links {
		out = strings.Replace(out, citeMark, link, 1)
	}
	return out
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
