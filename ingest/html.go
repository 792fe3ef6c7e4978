package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/JohannesKaufmann/dom"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"golang.org/x/net/html"

	"github.com/switchboard/switchboard/internal/markdown"
)

// extractHTML turns an HTML page into Markdown: headings become "#" lines,
// lists "- " or "1. " items, <pre> a fenced block, a table one "- Col: val
// · Col: val" line a row (see renderTable); scripts, styles, navigation and
// images are dropped, links keep their text. It also returns the page's
// title: that of a leading JSON comment header (`<!--{"Title": "The Go
// Memory Model"}-->`, as the Go documentation has; fromHeader is then
// true, and the header's "Subtitle" opens the text), else the <title>.
//
// The conversion is html-to-markdown's, over the HTML5 parser of x/net:
// broken markup is parsed the way browsers parse it, and nothing is lost
// but whitespace. The result goes through cleanMarkdown like any Markdown
// file, so what it may leave (an anchor, a template tag) is removed the
// same way.
func extractHTML(src string) (text, title string, fromHeader bool) {
	title, subtitle := commentHeader(src)
	fromHeader = title != ""
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil { // x/net/html only fails on reader errors
		return "", title, fromHeader
	}
	if title == "" {
		if t := dom.FindFirstNode(doc, func(n *html.Node) bool { return n.Type == html.ElementNode && n.Data == "title" }); t != nil {
			title = strings.Join(strings.Fields(dom.CollectText(t)), " ")
		}
	}
	out, err := convert(func(c *converter.Converter) ([]byte, error) { return c.ConvertNode(doc) })
	if err != nil {
		// The page's text without its structure, rather than nothing.
		out = []byte(strings.Join(strings.Fields(dom.CollectText(doc)), " "))
	}
	// The converter can cut a character that follows a NUL reference
	// ("&#00" is U+FFFD) when it escapes: fuzzing found it.
	md := strings.ToValidUTF8(string(out), "\uFFFD")
	text = cleanMarkdown(nestedListGap.ReplaceAllString(md, "$1\n$2"))
	text = outsideFences(text, textEntities.Replace)
	if subtitle != "" {
		// "Language version go1.26 (Jan 12, 2026)": what the page says of
		// itself under its title, as it shows it.
		text = subtitle + "\n\n" + text
	}
	return strings.TrimSpace(manyNewlines.ReplaceAllString(text, "\n\n")), title, fromHeader
}

var (
	// The converter writes "<" and ">" of text as entities, lest they read
	// as tags; stored text is read as text.
	// A no-break space is a space to a search.
	textEntities = strings.NewReplacer("&lt;", "<", "&gt;", ">", "\u00a0", " ")
	// The converter puts a blank line before a list nested in an item,
	// which would make the nested list a paragraph of its own.
	nestedListGap = regexp.MustCompile(`(?m)^([ \t]*(?:[-*+]|\d{1,9}[.)])[ \t].*)\n[ \t]*\n([ \t]+(?:[-*+]|\d{1,9}[.)])[ \t])`)
)

// outsideFences applies fn to the text of s outside fenced code blocks.
func outsideFences(s string, fn func(string) string) string {
	lines := strings.Split(s, "\n")
	var fences markdown.Scanner
	for i, line := range lines {
		if fences.Line(line) == markdown.Text {
			lines[i] = fn(line)
		}
	}
	return strings.Join(lines, "\n")
}

// convert runs f on htmlConverter, with a panic of the converter returned
// as an error: html-to-markdown v2.5.2 indexes out of range on a heading
// of a lone "#" among invalid UTF-8 (fuzzing found it; the input is in
// testdata/fuzz/FuzzExtractHTML), and a hostile page must not take the
// ingest down.
func convert[T any](f func(*converter.Converter) (T, error)) (out T, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("html-to-markdown: %v", r)
		}
	}()
	return f(htmlConverter())
}

// htmlConverter is the converter extractHTML uses. A converter is cheap
// to build and holds no state between conversions.
func htmlConverter() *converter.Converter {
	conv := converter.NewConverter(
		// Escapes ("\_", "1\.") would be stored and searched as text.
		converter.WithEscapeMode(converter.EscapeModeDisabled),
		converter.WithPlugins(
			base.NewBasePlugin(),
			commonmark.NewCommonmarkPlugin(
				commonmark.WithListEndComment(false), // "<!--THE END-->" is markup
			),
		),
	)
	for _, tag := range []string{"nav", "img", "svg", "canvas", "picture", "video", "audio", "map", "button", "select", "input", "form"} {
		conv.Register.TagType(tag, converter.TagTypeRemove, converter.PriorityEarly)
	}
	// A link's text is what a reader reads; its target, often a relative
	// path of the site, is noise in a chunk and in a search.
	conv.Register.RendererFor("a", converter.TagTypeInline, renderChildren, converter.PriorityEarly)
	// Emphasis marks would be stored and searched, and are noise in a
	// heading and a title: the words are kept, not their stress.
	for _, tag := range []string{"b", "strong", "em", "i"} {
		conv.Register.RendererFor(tag, converter.TagTypeInline, renderChildren, converter.PriorityEarly)
	}
	conv.Register.RendererFor("table", converter.TagTypeBlock, renderTable, converter.PriorityEarly)
	return conv
}

// renderChildren renders an element as its content alone.
func renderChildren(ctx converter.Context, w converter.Writer, n *html.Node) converter.RenderStatus {
	ctx.RenderChildNodes(ctx, w, n)
	return converter.RenderSuccess
}

// commentHeader returns the "Title" and "Subtitle" of a JSON object in a
// comment that opens the page (after white space), or "".
func commentHeader(src string) (title, subtitle string) {
	s := strings.TrimLeft(src, " \t\r\n\uFEFF")
	body, ok := strings.CutPrefix(s, "<!--")
	if !ok {
		return "", ""
	}
	end := strings.Index(body, "-->")
	if end < 0 {
		return "", ""
	}
	body = strings.TrimSpace(body[:end])
	if !strings.HasPrefix(body, "{") {
		return "", ""
	}
	var header struct{ Title, Subtitle string }
	if json.Unmarshal([]byte(body), &header) != nil {
		return "", ""
	}
	return strings.Join(strings.Fields(header.Title), " "), strings.Join(strings.Fields(header.Subtitle), " ")
}

// maxTableCells bounds the cells of one table read, whatever its markup.
const maxTableCells = 100_000

// renderTable writes a table as one list item a row, each cell named by
// its column: "- Severity: SEV-1 · Response: page the IC". A row read
// alone, in a chunk or an answer, still says what each value is. Column
// names come from the table's first row when it is a header (<th> cells
// only, or inside <thead>); a table without one gives its cells unnamed.
// A cell's own structure (a paragraph and a list) is flattened into one
// line, so that a row is never cut.
func renderTable(ctx converter.Context, w converter.Writer, n *html.Node) converter.RenderStatus {
	var rows [][]string
	notes := map[int]bool{} // rows of one cell across the table
	header := -1
	cells := 0
	for _, tr := range tableRows(n) {
		var row []string
		allTH, spans := true, false
		for c := tr.FirstChild; c != nil && cells < maxTableCells; c = c.NextSibling {
			if c.Type != html.ElementNode || (c.Data != "td" && c.Data != "th") {
				continue
			}
			cells++
			allTH = allTH && c.Data == "th"
			spans = spans || dom.GetAttributeOr(c, "colspan", "1") != "1"
			var buf bytes.Buffer
			ctx.RenderChildNodes(ctx, &buf, c)
			row = append(row, oneLine(buf.String()))
		}
		if len(row) == 0 {
			continue
		}
		if len(rows) == 0 && (allTH || tr.Parent != nil && tr.Parent.Data == "thead") {
			header = 0
		}
		if len(row) == 1 && spans {
			// One cell across the table is a note on the rows, not a
			// value of the first column.
			notes[len(rows)] = true
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return converter.RenderSuccess
	}
	var names []string
	if header == 0 {
		names = rows[0]
	}
	w.WriteString("\n\n")
	for i, row := range rows[header+1:] {
		cols := names
		if notes[header+1+i] {
			cols = nil
		}
		if line := tableRow(cols, row); line != "" {
			w.WriteString(line + "\n")
		}
	}
	w.WriteString("\n\n")
	return converter.RenderSuccess
}

// tableRows returns the rows of table n, not those of tables nested in
// its cells (which render as part of their cell).
func tableRows(n *html.Node) []*html.Node {
	var rows []*html.Node
	var walk func(*html.Node, int)
	walk = func(p *html.Node, depth int) {
		for c := p.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.Data {
			case "tr":
				rows = append(rows, c)
			case "thead", "tbody", "tfoot":
				if depth < 2 {
					walk(c, depth+1)
				}
			}
		}
	}
	walk(n, 0)
	return rows
}

// tableRow is one row's line: "- Name: value · Name: value", empty cells
// left out; cells past the named columns, or of a table with no header,
// stand alone.
func tableRow(names, cells []string) string {
	var parts []string
	for i, c := range cells {
		switch {
		case c == "":
		case i < len(names) && names[i] != "":
			parts = append(parts, names[i]+": "+c)
		default:
			parts = append(parts, c)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "- " + strings.Join(parts, " · ")
}

// oneLine flattens a cell's Markdown into one line: its paragraphs and
// list items joined, after a sentence's end by a space, else by "; ".
func oneLine(s string) string {
	var out strings.Builder
	for _, line := range strings.Split(s, "\n") {
		line = strings.Join(strings.Fields(stripListMarker(line)), " ")
		if line == "" || isFenceLine(line) {
			continue
		}
		if out.Len() > 0 {
			if prev := out.String(); strings.ContainsAny(prev[len(prev)-1:], ".!?:;") {
				out.WriteString(" ")
			} else {
				out.WriteString("; ")
			}
		}
		out.WriteString(line)
	}
	return out.String()
}

// stripListMarker removes a list item's marker ("- ", "* ", "+ ", "1. ")
// from the start of line, after its indentation.
func stripListMarker(line string) string {
	s := strings.TrimLeft(line, " \t")
	if m := listMarker(s); m > 0 {
		return s[m:]
	}
	return line
}

// listMarker returns the length of the list item marker and the space
// after it at the start of s, or 0.
func listMarker(s string) int {
	if len(s) >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && (s[1] == ' ' || s[1] == '\t') {
		return 2
	}
	i := 0
	for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(s) && (s[i] == '.' || s[i] == ')') && (s[i+1] == ' ' || s[i+1] == '\t') {
		return i + 2
	}
	return 0
}

func isFenceLine(line string) bool {
	return strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~")
}
