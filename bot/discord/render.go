package discord

import (
	"fmt"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/internal/markdown"
	"github.com/switchboard/switchboard/internal/text"
)

// Discord's limits on one message. They are counted in characters, which
// Discord measures as UTF-16 code units; units does the same.
const (
	maxContent     = 2000
	maxTitle       = 256
	maxDescription = 4096
	maxFields      = 25
	maxFieldName   = 256
	maxFieldValue  = 1024
	maxFooter      = 2048
	maxEmbedTotal  = 6000 // all embeds of one message together
	maxEmbeds      = 10
)

// Budgets this renderer keeps within the limits.
const (
	statusLine   = 300  // one progress line
	sourceBudget = 3000 // the whole source list; the rest is counted, not listed
	cypherMax    = 300  // Cypher shown in a source
)

// Embed colours, by state and confidence.
const (
	colorProgress = 0x5865F2 // Discord blurple
	colorFailed   = 0xED4245
	colorHigh     = 0x57F287
	colorMedium   = 0xFEE75C
	colorLow      = 0xED4245
	colorGeneral  = 0x99AAB5
	colorNone     = 0x2C2F33
)

// Message is one Discord message of a rendered view: what a create or edit
// request carries.
type Message struct {
	Content    string                       `json:"content,omitempty"` // plain text, at most 2000 characters
	Embeds     []*discordgo.MessageEmbed    `json:"embeds"`            // at most 10, 6000 characters together
	Components []discordgo.MessageComponent `json:"components"`        // the feedback buttons, on the last message
}

// Embeds renders v as Discord messages. A view in progress, or a failed
// one, is one message. A finished answer is one message or more: the
// answer cut at paragraph and line breaks (never inside a code fence) into
// embed descriptions, then the numbered sources, the route, any claims the
// check could not verify and the confidence badge, and on the last message
// the 👍/👎 buttons. The first message replaces the placeholder; the
// others follow it. Every message keeps within Discord's limits.
func Embeds(v bot.View) []Message {
	switch {
	case !v.Done:
		return []Message{progress(v)}
	case v.Final == nil:
		failed := v.Failed
		if failed == "" {
			failed = bot.FailedMessage
		}
		e := &discordgo.MessageEmbed{Title: title(v.Question), Description: clip(bot.FailedEmoji+" "+failed, maxDescription), Color: colorFailed}
		return []Message{{Embeds: []*discordgo.MessageEmbed{e}, Components: []discordgo.MessageComponent{}}}
	}
	return final(v)
}

// progress shows that the question is being worked on, with the latest
// progress line.
func progress(v bot.View) Message {
	line := v.Progress
	if line == "" {
		line = bot.ThinkingLine
	}
	status := bot.ProgressEmoji + " " + clip(text.OneLine(line), statusLine)
	e := &discordgo.MessageEmbed{Title: title(v.Question), Description: escape(status), Color: colorProgress}
	if draft := strings.TrimSpace(v.Draft); draft != "" {
		// The draft as the answer will read, with the progress line and
		// the note that it is not checked yet under it (a footer is
		// plain text: no escaping).
		e.Description = clip(draft, maxDescription)
		e.Footer = &discordgo.MessageEmbedFooter{Text: status + " · " + bot.DraftNote}
	}
	return Message{Embeds: []*discordgo.MessageEmbed{e}, Components: []discordgo.MessageComponent{}}
}

func final(v bot.View) []Message {
	f := v.Final
	color := levelColor(f.Badge.Level)
	// The brackets go outside the link: in Discord's Markdown a "[" of the
	// answer before it could take a link text holding brackets as the
	// start of its own ("[Reset your password [1]" would link those words).
	answer := f.Text.Link(f.Links, func(label, url string) string {
		return "\\[[" + label[1:len(label)-1] + "](" + linkURL(url) + ")\\]"
	})
	parts := splitUnits(answer, maxDescription)
	if len(parts) == 0 {
		parts = []string{"_" + bot.EmptyAnswerLabel + "_"}
	}
	var embeds []*discordgo.MessageEmbed
	for _, p := range parts {
		embeds = append(embeds, &discordgo.MessageEmbed{Description: p, Color: color})
	}
	embeds[0].Title = title(v.Question)

	// The details go under the last part of the answer when they fit
	// there, else into an embed of their own.
	fields := details(f)
	footer := &discordgo.MessageEmbedFooter{Text: clip(f.Badge.String(), maxFooter)}
	last := embeds[len(embeds)-1]
	tail := &discordgo.MessageEmbed{Color: color, Fields: fields, Footer: footer}
	if size(last)+size(tail) <= maxEmbedTotal && len(fields) <= maxFields {
		last.Fields, last.Footer = fields, footer
	} else {
		embeds = append(embeds, tail)
	}

	msgs := pack(embeds)
	msgs[len(msgs)-1].Components = feedbackButtons(v.AnswerID, f.AskExpert)
	return msgs
}

// pack puts consecutive embeds into messages, as many as one holds.
func pack(embeds []*discordgo.MessageEmbed) []Message {
	var msgs []Message
	var cur []*discordgo.MessageEmbed
	total := 0
	for _, e := range embeds {
		n := size(e)
		if len(cur) > 0 && (total+n > maxEmbedTotal || len(cur) == maxEmbeds) {
			msgs = append(msgs, Message{Embeds: cur, Components: []discordgo.MessageComponent{}})
			cur, total = nil, 0
		}
		cur = append(cur, e)
		total += n
	}
	return append(msgs, Message{Embeds: cur, Components: []discordgo.MessageComponent{}})
}

// details are the fields under an answer: sources, where it came from
// and, for a low confidence answer, the claims the check could not find.
func details(f *bot.Final) []*discordgo.MessageEmbedField {
	var fields []*discordgo.MessageEmbedField
	name := bot.SourcesLabel
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			fields = append(fields, &discordgo.MessageEmbedField{Name: name, Value: cur.String()})
			name = bot.SourcesMoreLabel
			cur.Reset()
		}
	}
	used := 0
	for i, s := range f.Sources {
		line := sourceLine(s)
		n := units(line)
		if used+n > sourceBudget {
			flush()
			cur.WriteString(bot.MoreSources(len(f.Sources) - i))
			break
		}
		if cur.Len() > 0 && units(cur.String())+1+n > maxFieldValue {
			flush()
		}
		if cur.Len() > 0 {
			cur.WriteByte('\n')
		}
		cur.WriteString(line)
		used += n
	}
	flush()

	from := "**" + escape(f.Place) + "**"
	if f.Why != "" {
		from += " — " + escape(f.Why)
	}
	if f.Understood != "" {
		from += "\n" + bot.UnderstoodAs(escape(f.Understood))
	}
	fields = append(fields, &discordgo.MessageEmbedField{Name: bot.AnsweredFromLabel, Value: clip(from, maxFieldValue)})

	if len(f.Unverified) > 0 {
		var b strings.Builder
		for i, c := range f.Unverified {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString("• " + escape(c))
		}
		fields = append(fields, &discordgo.MessageEmbedField{Name: bot.UnverifiedLabel, Value: clip(b.String(), maxFieldValue)})
	}
	return fields
}

// sourceLine is one numbered source: its title linked when there is a
// link, the section in italics, a file's path as code, the Cypher of a
// graph answer as a code block.
func sourceLine(s bot.SourceLine) string {
	// The number's brackets are escaped: in Discord's Markdown a "[" may
	// start a link whose text runs on past its "]" to a "](" of the title.
	line := fmt.Sprintf("**\\[%d\\]** ", s.N)
	if s.URL != "" {
		line += "[" + clip(escape(linkText(s.Title)), 200) + "](" + linkURL(s.URL) + ")"
	} else {
		line += clip(escape(s.Title), 150)
	}
	if s.Section != "" {
		line += " · _" + clip(escape(s.Section), 150) + "_"
	}
	switch {
	case s.Query != "":
		code := strings.ReplaceAll(clip(s.Query, cypherMax), "```", "` ` `")
		line += "\n```cypher\n" + code + "\n```"
	case s.Where != "" && s.Where != s.Title:
		line += " — `" + clip(strings.ReplaceAll(s.Where, "`", "'"), 200) + "`"
	}
	return line
}

// linkText keeps a title from ending a Markdown link early, or from
// holding a link of its own: Discord reads "](" as the end of the link's
// text even when the "]" is escaped, so brackets become parentheses.
func linkText(s string) string {
	return strings.NewReplacer("[", "(", "]", ")").Replace(s)
}

// linkURL keeps a URL from ending a Markdown link early.
func linkURL(u string) string {
	return strings.NewReplacer("(", "%28", ")", "%29", "<", "%3C", ">", "%3E").Replace(u)
}

// Private renders v for the asker alone (a private /ask): as Embeds, and
// with share, a finished answer's last message has a Share button by the
// votes, which posts the answer in the channel (Shared).
func Private(v bot.View, share bool) []Message {
	msgs := Embeds(v)
	if v.Final != nil && v.Done && share {
		msgs[len(msgs)-1].Components = answerButtons(v.AnswerID, shareButton, v.Final.AskExpert)
	}
	return msgs
}

// Shared renders a finished answer that its asker shared in the channel:
// as Embeds shows it, led by who asked (asker: their mention, which
// allowed_mentions keeps from pinging them).
func Shared(v bot.View, asker string) []Message {
	msgs := Embeds(v)
	msgs[0].Content = bot.Asked(asker, v.Question)
	return msgs
}

// The states of an answer's Share button.
const (
	noShareButton = iota
	shareButton
	sharedButton // pressed: shown disabled
)

func feedbackButtons(answerID string, ask bool) []discordgo.MessageComponent {
	return answerButtons(answerID, noShareButton, ask)
}

// answerButtons are the 👍/👎 buttons of an answer, Ask an expert when
// the presenter offers it (bot.Final.AskExpert) and, for an answer given
// privately, its Share button.
func answerButtons(answerID string, share int, ask bool) []discordgo.MessageComponent {
	id := clip(answerID, 80) // custom_id holds 100
	row := []discordgo.MessageComponent{
		discordgo.Button{Label: bot.HelpfulLabel, Style: discordgo.SecondaryButton, CustomID: voteUp + id, Emoji: &discordgo.ComponentEmoji{Name: bot.HelpfulEmoji}},
		discordgo.Button{Label: bot.NotHelpfulLabel, Style: discordgo.SecondaryButton, CustomID: voteDown + id, Emoji: &discordgo.ComponentEmoji{Name: bot.NotHelpfulEmoji}},
	}
	if ask {
		row = append(row, askExpertButton(id, false))
	}
	switch share {
	case shareButton:
		row = append(row, discordgo.Button{Label: bot.ShareLabel, Style: discordgo.PrimaryButton, CustomID: sharePrefix + id, Emoji: &discordgo.ComponentEmoji{Name: bot.ShareEmoji}})
	case sharedButton:
		row = append(row, discordgo.Button{Label: bot.SharedLabel, Style: discordgo.SecondaryButton, CustomID: sharedPrefix + id, Emoji: &discordgo.ComponentEmoji{Name: bot.ShareEmoji}, Disabled: true})
	}
	return []discordgo.MessageComponent{discordgo.ActionsRow{Components: row}}
}

func levelColor(l bot.Level) int {
	switch l {
	case bot.LevelHigh:
		return colorHigh
	case bot.LevelMedium:
		return colorMedium
	case bot.LevelLow:
		return colorLow
	case bot.LevelGeneral:
		return colorGeneral
	}
	return colorNone
}

// title is the question as an embed title, on one line.
func title(q string) string {
	return clip(text.OneLine(q), maxTitle)
}

// size is what an embed counts towards maxEmbedTotal.
func size(e *discordgo.MessageEmbed) int {
	n := units(e.Title) + units(e.Description)
	for _, f := range e.Fields {
		n += units(f.Name) + units(f.Value)
	}
	if e.Footer != nil {
		n += units(e.Footer.Text)
	}
	if e.Author != nil {
		n += units(e.Author.Name)
	}
	return n
}

// splitUnits is markdown.Split measured in UTF-16 units: a part that is short
// enough in runes but not in units (emoji, some CJK) is cut again, finer.
func splitUnits(text string, limit int) []string {
	return splitFiner(text, limit, limit)
}

func splitFiner(text string, runes, limit int) []string {
	var out []string
	for _, p := range markdown.Split(text, runes) {
		switch n := units(p); {
		case n <= limit:
			out = append(out, p)
		case runes <= 20: // markdown.Split's floor; only reachable with tiny limits
			out = append(out, clip(p, limit))
		default:
			out = append(out, splitFiner(p, max(20, runes*limit/n-1), limit)...)
		}
	}
	return out
}

// units counts UTF-16 code units, as Discord does.
func units(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r > 0xFFFF {
			n++
		}
	}
	return n
}

// clip shortens s to at most n UTF-16 code units, ending with "…" if cut:
// Discord counts its limits in those units, and rejects a message over one.
func clip(s string, n int) string { return text.ClipUTF16(s, n) }

// escape keeps text from other people (titles, reasons, claims) from
// turning into Markdown.
func escape(s string) string { return mdEscaper.Replace(s) }

var mdEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "~", `\~`, "`", "\\`", "|", `\|`, "[", `\[`, "]", `\]`, ">", `\>`)
