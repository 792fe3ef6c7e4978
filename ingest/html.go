package ingest

import (
	"html"
	"regexp"
	"strconv"
	"strings"

	"github.com/switchboard/switchboard/internal/markdown"
)

// extractHTML turns an HTML page into Markdown-ish text: headings become
// "#" lines, list items "- " or "1. " lines, <pre> a fenced block, block
// elements paragraph breaks; scripts, styles and other non-text elements are
// dropped and entities decoded. It also returns the <title>.
//
// It is a small tokenizer rather than a full HTML5 parser: it needs no
// dependency, never fails, and what it may get wrong on broken markup is
// whitespace, not content.
func extractHTML(src string) (text, title string) {
	var w htmlWriter
	for i := 0; i < len(src); {
		lt := strings.IndexByte(src[i:], '<')
		if lt < 0 {
			w.text(html.UnescapeString(src[i:]))
			break
		}
		if lt > 0 {
			w.text(html.UnescapeString(src[i : i+lt]))
		}
		i += lt
		rest := src[i:]
		switch {
		case strings.HasPrefix(rest, "<!--"):
			end := strings.Index(rest[4:], "-->")
			if end < 0 {
				i = len(src)
			} else {
				i += 4 + end + 3
			}
		case strings.HasPrefix(rest, "<![CDATA["):
			end := strings.Index(rest, "]]>")
			if end < 0 {
				w.text(rest[9:])
				i = len(src)
			} else {
				w.text(rest[9:end])
				i += end + 3
			}
		case strings.HasPrefix(rest, "<!") || strings.HasPrefix(rest, "<?"):
			i += skipTag(rest)
		case len(rest) > 1 && (isASCIILetter(rest[1]) || rest[1] == '/' && len(rest) > 2 && isASCIILetter(rest[2])):
			name, end, closing, selfClosing := parseTag(rest)
			i += end
			if closing {
				w.closeTag(name)
				continue
			}
			if content, n, ok := rawElement(name, src[i:], selfClosing); ok {
				i += n
				switch name {
				case "title":
					if title == "" {
						title = strings.Join(strings.Fields(html.UnescapeString(content)), " ")
					}
				case "textarea":
					w.text(html.UnescapeString(content))
				}
				continue
			}
			w.openTag(name, selfClosing)
		default:
			w.text("<")
			i++
		}
	}
	return w.finish(), title
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// skipTag returns the length of a tag-like construct up to its '>', or of
// all of s when it has none.
func skipTag(s string) int {
	if end := strings.IndexByte(s, '>'); end >= 0 {
		return end + 1
	}
	return len(s)
}

// parseTag reads "<name attr='v' ...>" or "</name>" at the start of s and
// returns the lower-case name and the length of the tag. Quoted attribute
// values may contain '>'.
func parseTag(s string) (name string, n int, closing, selfClosing bool) {
	i := 1
	if s[i] == '/' {
		closing = true
		i++
	}
	start := i
	for i < len(s) && (isASCIILetter(s[i]) || s[i] >= '0' && s[i] <= '9' || s[i] == '-' || s[i] == ':') {
		i++
	}
	name = strings.ToLower(s[start:i])
	var quote byte
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			selfClosing = i > 0 && s[i-1] == '/'
			return name, i + 1, closing, selfClosing
		}
	}
	return name, len(s), closing, false
}

// rawElement handles elements whose content is not markup to render: raw
// text (script, style), elements with no readable text (svg, template, ...)
// and escapable raw text (title, textarea). For those it returns the
// content and how much of s to skip, up to and including the end tag.
func rawElement(name, s string, selfClosing bool) (content string, n int, ok bool) {
	switch name {
	case "script", "style", "noscript", "template", "svg", "math", "iframe", "object", "canvas", "title", "textarea":
	default:
		return "", 0, false
	}
	if selfClosing {
		return "", 0, true
	}
	end := indexFold(s, "</"+name)
	if end < 0 {
		return s, len(s), true
	}
	return s[:end], end + skipTag(s[end:]), true
}

// indexFold is strings.Index ignoring ASCII case in s; sub is lower case.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i] == '<' && strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// Elements that start and end a paragraph, and those that start a line.
var (
	paragraphTags = setOf("address", "article", "aside", "blockquote", "body", "caption", "center",
		"details", "dialog", "div", "dl", "fieldset", "figcaption", "figure", "footer", "form",
		"header", "hgroup", "hr", "html", "main", "menu", "nav", "ol", "p", "section", "summary",
		"table", "tbody", "tfoot", "thead", "ul")
	lineTags = setOf("br", "dd", "dt", "li", "tr")
)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// list is an open <ul> or <ol>; n counts the items of an <ol>.
type list struct {
	ordered bool
	n       int
}

// htmlWriter collects text, collapsing whitespace the way a browser does and
// placing line breaks where block elements begin and end.
type htmlWriter struct {
	b           strings.Builder
	brk         int    // pending line breaks before the next text: 0, 1 or 2
	space       bool   // a space is pending before the next text
	prefix      string // written at the start of the next line of text: "## ", "- "
	heading     int    // depth inside h1..h6
	lists       []list
	cells       int              // cells seen in the current table row
	pre         int              // depth inside <pre>
	preText     *strings.Builder // the <pre> content, fenced when it ends
	wroteAnyOut bool
}

func (w *htmlWriter) text(s string) {
	if w.pre > 0 {
		w.preText.WriteString(s)
		return
	}
	fields := strings.Fields(s)
	if len(fields) == 0 {
		if s != "" {
			w.space = true
		}
		return
	}
	if startsWithSpace(s) {
		w.space = true
	}
	w.flushBreak()
	if w.prefix != "" {
		w.b.WriteString(w.prefix)
		w.prefix = ""
		w.space = false
	}
	if w.space && w.wroteAnyOut {
		w.b.WriteByte(' ')
	}
	w.b.WriteString(strings.Join(fields, " "))
	w.wroteAnyOut = true
	w.space = endsWithSpace(s)
}

func startsWithSpace(s string) bool {
	return strings.TrimLeft(s, " \t\n\r\f\u00a0") != s
}

func endsWithSpace(s string) bool {
	return strings.TrimRight(s, " \t\n\r\f\u00a0") != s
}

// flushBreak writes the pending line breaks, if any text came before them.
func (w *htmlWriter) flushBreak() {
	if w.brk > 0 && w.b.Len() > 0 {
		w.b.WriteString(strings.Repeat("\n", w.brk))
		w.wroteAnyOut = false
		w.space = false
	}
	w.brk = 0
}

// lineBreak asks for n line breaks (1: new line, 2: new paragraph) before
// the next text. Inside a heading a break is a space, so the heading stays
// on one line.
func (w *htmlWriter) lineBreak(n int) {
	if w.heading > 0 {
		w.space = true
		return
	}
	w.brk = max(w.brk, n)
}

func (w *htmlWriter) openTag(name string, selfClosing bool) {
	if w.pre > 0 {
		if name == "br" {
			w.preText.WriteString("\n")
		}
		if name == "pre" && !selfClosing {
			w.pre++
		}
		return
	}
	switch {
	case len(name) == 2 && name[0] == 'h' && name[1] >= '1' && name[1] <= '6':
		w.lineBreak(2)
		w.heading++
		w.prefix = strings.Repeat("#", int(name[1]-'0')) + " "
	case name == "pre":
		if selfClosing {
			return
		}
		w.lineBreak(2)
		w.pre = 1
		w.preText = new(strings.Builder)
	case name == "ul" || name == "ol":
		w.lineBreak(listBreak(len(w.lists)))
		if !selfClosing {
			w.lists = append(w.lists, list{ordered: name == "ol"})
		}
	case name == "li":
		w.lineBreak(1)
		marker := "- "
		if n := len(w.lists); n > 0 && w.lists[n-1].ordered {
			w.lists[n-1].n++
			marker = strconv.Itoa(w.lists[n-1].n) + ". "
		}
		w.prefix = strings.Repeat("  ", max(len(w.lists)-1, 0)) + marker
	case name == "tr":
		w.lineBreak(1)
		w.cells = 0
	case name == "td" || name == "th":
		if w.cells > 0 {
			w.text(" | ")
			w.space = true
		}
		w.cells++
	case paragraphTags[name]:
		w.lineBreak(2)
	case lineTags[name]:
		w.lineBreak(1)
	case name == "img":
		// Images carry no text we can trust to be useful; skip.
	}
}

func (w *htmlWriter) closeTag(name string) {
	if w.pre > 0 {
		if name != "pre" {
			return
		}
		if w.pre--; w.pre > 0 {
			return
		}
		w.writePre()
		return
	}
	switch {
	case len(name) == 2 && name[0] == 'h' && name[1] >= '1' && name[1] <= '6':
		if w.heading > 0 {
			w.heading--
		}
		w.prefix = "" // an empty heading writes nothing
		w.lineBreak(2)
	case name == "ul" || name == "ol":
		if n := len(w.lists); n > 0 {
			w.lists = w.lists[:n-1]
		}
		w.lineBreak(listBreak(len(w.lists)))
	case paragraphTags[name]:
		w.lineBreak(2)
	case lineTags[name]:
		w.lineBreak(1)
	}
}

// listBreak is the break around a list: a paragraph break at the top
// level, a line break for a list nested in an item.
func listBreak(depth int) int {
	if depth == 0 {
		return 2
	}
	return 1
}

// writePre writes a finished <pre> as a fenced block, with a fence that
// no line of it can close.
func (w *htmlWriter) writePre() {
	body := strings.TrimPrefix(w.preText.String(), "\n")
	body = strings.TrimRight(body, " \t\n")
	w.preText = nil
	if strings.TrimSpace(body) == "" {
		return
	}
	fence := markdown.FenceFor(body)
	w.lineBreak(2)
	w.flushBreak()
	w.b.WriteString(fence + "\n" + body + "\n" + fence)
	w.wroteAnyOut = true
	w.lineBreak(2)
}

var manyNewlines = regexp.MustCompile(`\n{3,}`)

func (w *htmlWriter) finish() string {
	if w.pre > 0 { // unclosed <pre>: keep what it held
		w.pre = 0
		w.writePre()
	}
	lines := strings.Split(w.b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.TrimSpace(manyNewlines.ReplaceAllString(strings.Join(lines, "\n"), "\n\n"))
}
