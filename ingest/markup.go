package ingest

import (
	"regexp"
	"strings"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"

	"github.com/switchboard/switchboard/internal/markdown"
)

// cleanMarkdown turns the markup a Markdown file may carry besides
// Markdown into text, outside fenced code blocks, which stay as written:
//
//   - template tags of Liquid and Jinja ("{% include x %}", "{{ page.x }}")
//     are removed, and a link left without a target is its text; a Slack channel tag ("{% slack_channel "ops" %}") is
//     its channel, "#ops";
//   - HTML comments are removed, and blocks of raw HTML (a <table>, a
//     <div>) are converted as HTML pages are (see extractHTML);
//   - a pipe table becomes a row a line, "- Col: val · Col: val", as
//     HTML tables do (see renderTable);
//   - heading attributes ("## Defaults {#default}", "{: .note}"), attribute
//     lists after links ("{:target="_blank"}"), images and the HTML tags
//     left in text ("<br>", "<code>") are removed;
//   - an admonition ("!!! warning "Title"" over an indented body) is its
//     title in bold, then its body unindented.
//
// Answers quote stored text, so none of this may reach them.
func cleanMarkdown(s string) string {
	lines := strings.Split(normalizeNewlines(s), "\n")
	var out, text []string
	flush := func() {
		if len(text) > 0 {
			out = append(out, cleanText(strings.Join(text, "\n")))
			text = nil
		}
	}
	var fences markdown.Scanner
	for _, line := range lines {
		if fences.Line(line) == markdown.Text {
			text = append(text, line)
			continue
		}
		flush()
		out = append(out, line)
	}
	flush()
	return strings.Join(out, "\n")
}

var (
	manyNewlines = regexp.MustCompile(`\n{3,}`)
	htmlComment  = regexp.MustCompile(`(?s)<!--.*?(-->|$)`)
	// Template tags, bounded in length so that a lone "{%" cannot make a
	// tag of the rest of the file.
	slackChannelTag = regexp.MustCompile(`\{%-?\s*slack_channel\s+["']#?([\w.-]{1,80})["']\s*-?%\}`)
	templateTag     = regexp.MustCompile(`(?s)\{%.{0,1000}?%\}|\{\{.{0,1000}?\}\}|\{#[^\n]{0,1000}?#\}`)
	// A link whose target was a template tag ("[leave]({% page … %})")
	// has no target left: it is its text, or an answer would quote
	// "[leave]()".
	emptyLink = regexp.MustCompile(`!?\[([^\[\]]{1,500})\]\(\s*\)`)
	// Heading attributes of kramdown, Pandoc and Markdown extensions:
	// "{#id}", "{#id .class}", "{: .class}", "{.class}".
	headingAttrs = regexp.MustCompile(`[ \t]*\{[ \t]*(:[^{}\n]*|[#.][\w.:-][^{}\n]*)\}[ \t]*$`)
	// A line that is nothing but an attribute list: kramdown's "{: .note}".
	attrLine = regexp.MustCompile(`^[ \t]*\{:[^{}\n]*\}[ \t]*$`)
	// An attribute list after a link or a word, as kramdown and
	// Python-Markdown's attr_list write them: "[x](u){:target="_blank"}".
	inlineAttrs = regexp.MustCompile(`\{:[^{}\n]{0,200}\}`)
	// A Markdown image: a picture, which answers cannot show, as HTML
	// images are dropped too (see extractHTML).
	mdImage = regexp.MustCompile(`!\[[^\]\n]{0,500}\]\([^()\n]{0,1000}\)`)
	// An admonition of Python-Markdown and MkDocs ("!!! warning "Title"",
	// "??? note" when collapsible); its body is the indented lines below.
	admonition = regexp.MustCompile(`^[ \t]*(?:!!!|\?\?\?\+?)[ \t]*([\w-]+)(?:[ \t]+"([^"\n]*)")?[ \t]*$`)
	// A container of Docusaurus, VuePress and markdown-it (":::tip Title",
	// ":::tip[Title]"), which ":::" closes, and a GitHub alert ("> [!NOTE]").
	container      = regexp.MustCompile(`^[ \t]*:::+[ \t]*([A-Za-z][\w-]*)(?:\[([^\]\n]*)\]|[ \t]+([^\n]*?))?[ \t]*$`)
	containerClose = regexp.MustCompile(`^[ \t]*:::+[ \t]*$`)
	githubAlert    = regexp.MustCompile(`^([ \t]*>[ \t]*)\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\][ \t]*$`)
)

// cleanText is cleanMarkdown for a run of lines outside code blocks.
func cleanText(s string) string {
	s = outsideCodeSpans(s, func(t string) string {
		t = slackChannelTag.ReplaceAllString(t, "#$1")
		t = templateTag.ReplaceAllString(t, "")
		t = inlineAttrs.ReplaceAllString(t, "")
		t = mdImage.ReplaceAllString(t, "")
		t = emptyLink.ReplaceAllString(t, "$1")
		return htmlComment.ReplaceAllString(t, "")
	})
	lines := convertHTMLBlocks(admonitions(strings.Split(s, "\n")))
	lines = pipeTables(lines)
	for i, line := range lines {
		if attrLine.MatchString(line) {
			lines[i] = ""
			continue
		}
		if _, ok := atxHeading(line); ok {
			line = strings.TrimRight(headingAttrs.ReplaceAllString(line, ""), " \t")
		}
		lines[i] = stripInlineTags(line)
	}
	return strings.Join(lines, "\n")
}

// admonitions turns each admonition into text: its title (or its kind,
// "Warning") as a line of its own, then its body without the indentation
// that would read as a code block. An admonition is a note the page
// wants read ("!!! warning "Can someone..."" over the advice itself). The
// containers of Docusaurus and VuePress (":::tip Title" … ":::") and
// GitHub's alerts ("> [!NOTE]") become the same bold title.
func admonitions(lines []string) []string {
	out := make([]string, 0, len(lines))
	kind := func(k string) string { return strings.ToUpper(k[:1]) + strings.ToLower(k[1:]) }
	for i := 0; i < len(lines); i++ {
		if m := githubAlert.FindStringSubmatch(lines[i]); m != nil {
			out = append(out, m[1]+"**"+kind(m[2])+"**")
			continue
		}
		if containerClose.MatchString(lines[i]) {
			out = append(out, "")
			continue
		}
		if m := container.FindStringSubmatch(lines[i]); m != nil {
			title := strings.TrimSpace(m[2] + m[3])
			if title == "" {
				title = kind(m[1])
			}
			out = append(out, "**"+title+"**", "")
			continue
		}
		m := admonition.FindStringSubmatch(lines[i])
		if m == nil {
			out = append(out, lines[i])
			continue
		}
		title := strings.TrimSpace(m[2])
		if title == "" {
			title = kind(m[1])
		}
		out = append(out, "**"+title+"**", "")
		for i+1 < len(lines) {
			next := lines[i+1]
			body, ok := strings.CutPrefix(next, "    ")
			if !ok {
				body, ok = strings.CutPrefix(next, "\t")
			}
			if !ok && strings.TrimSpace(next) != "" {
				break
			}
			out = append(out, body)
			i++
		}
	}
	return out
}

// outsideCodeSpans applies fn to the text of each paragraph of s that is
// outside `code spans`, which show code as written ("`{{.Name}}`"). A
// paragraph whose backticks do not pair has no code span to keep.
func outsideCodeSpans(s string, fn func(string) string) string {
	paras := strings.Split(s, "\n\n")
	for i, p := range paras {
		parts := strings.Split(p, "`")
		if len(parts)%2 == 0 {
			paras[i] = fn(p)
			continue
		}
		for j := 0; j < len(parts); j += 2 {
			parts[j] = fn(parts[j])
		}
		paras[i] = strings.Join(parts, "`")
	}
	return strings.Join(paras, "\n\n")
}

// blockTags are the HTML elements that start a block of raw HTML in
// Markdown (CommonMark's HTML blocks of kind 6, and <pre>).
var blockTags = setOf("address", "article", "aside", "blockquote", "center", "details", "dialog",
	"dd", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2",
	"h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section",
	"summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
	// and elements with no text to keep, which the converter drops
	"audio", "embed", "iframe", "object", "script", "style", "video")

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// htmlBlockTag returns the element a line of raw HTML starts with ("table"
// for "<table class=x>") and whether it is a closing tag, or "".
func htmlBlockTag(line string) (name string, closing bool) {
	s, ok := indentOK(line)
	if !ok || !strings.HasPrefix(s, "<") {
		return "", false
	}
	s = s[1:]
	if strings.HasPrefix(s, "/") {
		closing, s = true, s[1:]
	}
	n := 0
	for n < len(s) && (isASCIILetter(s[n]) || n > 0 && s[n] >= '0' && s[n] <= '9') {
		n++
	}
	name = strings.ToLower(s[:n])
	if !blockTags[name] || n < len(s) && s[n] != ' ' && s[n] != '>' && s[n] != '/' && s[n] != '\t' {
		return "", false
	}
	return name, closing
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// maxHTMLBlockLines bounds how far a raw HTML block is looked for its end.
const maxHTMLBlockLines = 5000

// convertHTMLBlocks replaces each block of raw HTML in lines by its
// Markdown. A block starts at a line opening a block element; it ends at
// the line that closes that element (blank lines inside a <table> do not
// end it, as they do in CommonMark, since MkDocs pages rely on that), or
// at a blank line when it never closes.
func convertHTMLBlocks(lines []string) []string {
	var out []string
	for i := 0; i < len(lines); i++ {
		name, closing := htmlBlockTag(lines[i])
		if name == "" {
			out = append(out, lines[i])
			continue
		}
		end := blockEnd(lines, i, name, closing)
		md, _ := convert(func(c *converter.Converter) (string, error) { return c.ConvertString(strings.Join(lines[i:end], "\n")) })
		md = strings.ToValidUTF8(md, "\uFFFD") // see extractHTML
		out = append(out, "")
		out = append(out, strings.Split(md, "\n")...)
		out = append(out, "")
		i = end - 1
	}
	return out
}

// blockEnd returns the index after the last line of the HTML block that
// starts at lines[start] with element name.
func blockEnd(lines []string, start int, name string, closing bool) int {
	limit := min(len(lines), start+maxHTMLBlockLines)
	open := regexp.MustCompile(`(?i)<` + name + `[\s>/]|<` + name + `$`)
	shut := regexp.MustCompile(`(?i)</` + name + `\s*>`)
	depth := 0
	if !closing {
		for i := start; i < limit; i++ {
			depth += len(open.FindAllStringIndex(lines[i], -1)) - len(shut.FindAllStringIndex(lines[i], -1))
			if depth <= 0 {
				return i + 1
			}
		}
	}
	for i := start + 1; i < len(lines); i++ { // never closed: CommonMark's end
		if strings.TrimSpace(lines[i]) == "" {
			return i
		}
	}
	return len(lines)
}

// pipeTables replaces each GFM pipe table in lines (a header row, a
// delimiter row "| --- | :-: |", then rows up to a blank line) by its
// rows, "- Col: val · Col: val", as renderTable writes HTML tables.
func pipeTables(lines []string) []string {
	var out []string
	for i := 0; i < len(lines); i++ {
		if i+1 >= len(lines) || !strings.Contains(lines[i], "|") || !isDelimiterRow(lines[i+1]) {
			out = append(out, lines[i])
			continue
		}
		names := tableCells(lines[i])
		if len(names) != len(tableCells(lines[i+1])) {
			out = append(out, lines[i])
			continue
		}
		for j := range names {
			names[j] = stripInlineTags(names[j])
		}
		out = append(out, "")
		j := i + 2
		for ; j < len(lines) && strings.TrimSpace(lines[j]) != "" && strings.Contains(lines[j], "|"); j++ {
			if row := tableRow(names, tableCells(lines[j])); row != "" {
				out = append(out, row)
			}
		}
		out = append(out, "")
		i = j - 1
	}
	return out
}

var delimiterRow = regexp.MustCompile(`^[ \t]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$`)

// isDelimiterRow reports whether line is a pipe table's delimiter row;
// one with no pipe at all ("---") is a rule or a setext underline.
func isDelimiterRow(line string) bool {
	return strings.Contains(line, "|") && delimiterRow.MatchString(line)
}

// tableCells splits a pipe table row at its unescaped pipes, without the
// pipes that open and close it, and trims each cell.
func tableCells(line string) []string {
	s := strings.TrimSpace(line)
	s = strings.TrimPrefix(s, "|")
	if strings.HasSuffix(s, "|") && !strings.HasSuffix(s, `\|`) {
		s = s[:len(s)-1]
	}
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '|':
			cur.WriteByte('|')
			i++
		case s[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(s[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// inlineTag matches an HTML tag or end tag of an element that appears in
// text (and the block ones a converter or an author may leave in a line).
var inlineTag = regexp.MustCompile(`(?i)</?(a|abbr|b|big|blockquote|br|center|cite|code|dd|del|details|dfn|div|dl|dt|em|font|h[1-6]|hr|i|iframe|img|ins|kbd|li|mark|nobr|ol|p|pre|q|s|samp|section|small|span|strike|strong|sub|summary|sup|table|tbody|td|tfoot|th|thead|time|tr|tt|u|ul|var|wbr)(\s[^<>]{0,1000})?/?>`)

// stripInlineTags removes HTML tags from a line of text, outside code
// spans; a line break becomes a space.
func stripInlineTags(line string) string {
	if !strings.Contains(line, "<") {
		return line
	}
	parts := strings.Split(line, "`")
	for i := 0; i < len(parts); i += 2 { // even parts are outside code spans
		parts[i] = inlineTag.ReplaceAllStringFunc(parts[i], func(tag string) string {
			if strings.HasPrefix(strings.ToLower(tag), "<br") {
				return " "
			}
			return ""
		})
	}
	return strings.Join(parts, "`")
}
