package discord

import (
	"fmt"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
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
	statusLine    = 300  // one progress line
	sourceBudget  = 3000 // the whole source list; the rest is counted, not listed
	sourceLineMax = 400  // one source, Cypher included
	cypherMax     = 300  // Cypher shown in a source
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
	case v.Result == nil:
		failed := v.Failed
		if failed == "" {
			failed = "I couldn't answer this one."
		}
		e := &discordgo.MessageEmbed{Title: title(v.Question), Description: clip("⚠️ "+failed, maxDescription), Color: colorFailed}
		return []Message{{Embeds: []*discordgo.MessageEmbed{e}, Components: []discordgo.MessageComponent{}}}
	}
	return final(v)
}

// progress shows that the question is being worked on, with the latest
// status lines.
func progress(v bot.View) Message {
	var b strings.Builder
	b.WriteString("⏳ **Working on it…**")
	for _, s := range v.Status {
		b.WriteString("\n› " + escape(clip(text.OneLine(s), statusLine)))
	}
	e := &discordgo.MessageEmbed{Title: title(v.Question), Description: clip(b.String(), maxDescription), Color: colorProgress}
	return Message{Embeds: []*discordgo.MessageEmbed{e}, Components: []discordgo.MessageComponent{}}
}

func final(v bot.View) []Message {
	r := v.Result
	color := confidenceColor(r.Confidence)
	parts := splitUnits(r.Answer, maxDescription)
	if len(parts) == 0 {
		parts = []string{"_(empty answer)_"}
	}
	var embeds []*discordgo.MessageEmbed
	for _, p := range parts {
		embeds = append(embeds, &discordgo.MessageEmbed{Description: p, Color: color})
	}
	embeds[0].Title = title(v.Question)

	// The details go under the last part of the answer when they fit
	// there, else into an embed of their own.
	fields := details(r)
	footer := &discordgo.MessageEmbedFooter{Text: clip(bot.Badge(*r), maxFooter)}
	last := embeds[len(embeds)-1]
	tail := &discordgo.MessageEmbed{Color: color, Fields: fields, Footer: footer}
	if size(last)+size(tail) <= maxEmbedTotal && len(fields) <= maxFields {
		last.Fields, last.Footer = fields, footer
	} else {
		embeds = append(embeds, tail)
	}

	msgs := pack(embeds)
	msgs[len(msgs)-1].Components = feedbackButtons(v.AnswerID)
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

// details are the fields under an answer: sources, route and, for a low
// confidence answer, the claims the check could not verify.
func details(r *agent.Result) []*discordgo.MessageEmbedField {
	var fields []*discordgo.MessageEmbedField
	name := "Sources"
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			fields = append(fields, &discordgo.MessageEmbedField{Name: name, Value: cur.String()})
			name = "Sources (continued)"
			cur.Reset()
		}
	}
	used := 0
	for i, s := range r.Sources {
		line := sourceLine(s)
		n := units(line)
		if used+n > sourceBudget {
			flush()
			cur.WriteString(fmt.Sprintf("…and %d more", len(r.Sources)-i))
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

	route := fmt.Sprintf("`%s`", r.Route)
	if r.RouteReason != "" {
		route += " — " + escape(text.OneLine(r.RouteReason))
	}
	if r.Standalone != "" && r.Standalone != r.Question {
		route += "\nunderstood as “" + escape(text.OneLine(r.Standalone)) + "”"
	}
	fields = append(fields, &discordgo.MessageEmbedField{Name: "Route", Value: clip(route, maxFieldValue)})

	if r.Confidence == agent.ConfidenceLow && len(r.Unsupported) > 0 {
		var b strings.Builder
		for i, c := range r.Unsupported {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString("• " + escape(text.OneLine(c)))
		}
		fields = append(fields, &discordgo.MessageEmbedField{Name: "Not verified against the sources", Value: clip(b.String(), maxFieldValue)})
	}
	return fields
}

// sourceLine is one numbered source. URLs and permalinks link their
// title; file paths show as code; Cypher, the evidence of a graph answer,
// as a code block; a graph walk by its description.
func sourceLine(s agent.Source) string {
	title := escape(text.OneLine(s.Title))
	loc := strings.TrimSpace(s.Location)
	head := fmt.Sprintf("**[%d]** ", s.N)
	switch {
	case isURL(loc):
		if title == "" {
			title = escape(loc)
		}
		return head + "[" + clip(title, 200) + "](" + linkURL(loc) + ")"
	case loc == "":
		return head + clip(title, sourceLineMax-10)
	case isCypher(s):
		code := strings.ReplaceAll(clip(loc, cypherMax), "```", "` ` `")
		return head + clip(title, 80) + "\n```cypher\n" + code + "\n```"
	case s.Route == agent.RouteGraph:
		return head + clip(title, 150) + " — _" + clip(escape(text.OneLine(loc)), 200) + "_"
	default:
		return head + clip(title, 150) + " — `" + clip(strings.ReplaceAll(text.OneLine(loc), "`", "'"), 200) + "`"
	}
}

func isURL(s string) bool {
	return (strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")) && !strings.ContainsAny(s, " \n\t")
}

// isCypher reports whether a graph source's location is the query that
// ran; graph walks describe themselves with a "graph:" line instead.
func isCypher(s agent.Source) bool {
	return s.Route == agent.RouteGraph && !strings.HasPrefix(s.Location, "graph:")
}

// linkURL keeps a URL from ending a Markdown link early.
func linkURL(u string) string {
	return strings.NewReplacer("(", "%28", ")", "%29", "<", "%3C", ">", "%3E").Replace(u)
}

func feedbackButtons(answerID string) []discordgo.MessageComponent {
	id := clip(answerID, 80) // custom_id holds 100
	return []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Label: "Helpful", Style: discordgo.SecondaryButton, CustomID: voteUp + id, Emoji: &discordgo.ComponentEmoji{Name: "👍"}},
		discordgo.Button{Label: "Not helpful", Style: discordgo.SecondaryButton, CustomID: voteDown + id, Emoji: &discordgo.ComponentEmoji{Name: "👎"}},
	}}}
}

func confidenceColor(c agent.Confidence) int {
	switch c {
	case agent.ConfidenceHigh:
		return colorHigh
	case agent.ConfidenceMedium:
		return colorMedium
	case agent.ConfidenceLow:
		return colorLow
	case agent.ConfidenceGeneral:
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

// splitUnits is bot.Split measured in UTF-16 units: a part that is short
// enough in runes but not in units (emoji, some CJK) is cut again, finer.
func splitUnits(text string, limit int) []string {
	return splitFiner(text, limit, limit)
}

func splitFiner(text string, runes, limit int) []string {
	var out []string
	for _, p := range bot.Split(text, runes) {
		switch n := units(p); {
		case n <= limit:
			out = append(out, p)
		case runes <= 20: // bot.Split's floor; only reachable with tiny limits
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
