package cite

import (
	"slices"
	"strings"

	"github.com/switchboard/switchboard/internal/markdown"
)

// Text is an answer's Markdown read once: its lines, each with its place
// in the fenced code blocks, and the citations of the lines outside code
// blocks and inline code. The agent counts and renumbers an answer's
// citations on it; the presenter hands it, read, to the renderers, which
// translate it line by line and link its citations without scanning the
// answer again for either.
type Text struct {
	Lines []Line
}

// Line is one line of a Text: a fence or a line of a code block, where
// "[1]" is text, or a line outside code (markdown.Text), cut into text and
// citations.
type Line struct {
	Kind  markdown.Kind
	Parts []Part
}

// Part is a piece of a line: text (inline code included), or a citation
// as written and its numbers.
type Part struct {
	Text string
	Nums []int // nil for text
}

// Read reads md: code blocks with markdown.Scanner; inline code is a
// backtick span within one line, which is how answers write it; a
// citation is what Parse reads, unless "(" follows it, since "[1](…)" is
// the text of a Markdown link.
func Read(md string) Text {
	raw := strings.Split(md, "\n")
	t := Text{Lines: make([]Line, len(raw))}
	var fences markdown.Scanner
	for i, line := range raw {
		kind := fences.Line(line)
		switch {
		case kind == markdown.Text && strings.Contains(line, "["):
			t.Lines[i] = Line{Parts: parts(line)}
		default:
			t.Lines[i] = Line{Kind: kind, Parts: []Part{{Text: line}}}
		}
	}
	return t
}

// String is the Markdown t was read from, or what Renumber made of it.
func (t Text) String() string {
	return t.Link(nil, nil)
}

// String is the line as written.
func (l Line) String() string {
	return l.Link(nil, nil)
}

// Each calls f with the numbers of each citation, in order.
func (t Text) Each(f func(nums []int)) {
	for _, l := range t.Lines {
		for _, p := range l.Parts {
			if p.Nums != nil {
				f(p.Nums)
			}
		}
	}
}

// Renumber returns t with the numbers of each citation replaced by what
// renumber returns for them. A citation that is unchanged is written as
// it was. Where renumbering makes a citation repeat a number of the
// citations right before it (nothing but spaces and commas between), the
// repeat is dropped, and a citation left with no number goes with the
// separator before it: "[1], [1]." becomes "[1].".
func (t Text) Renumber(renumber func([]int) []int) Text {
	out := Text{Lines: make([]Line, len(t.Lines))}
	for i, l := range t.Lines {
		out.Lines[i] = l
		if l.Kind == markdown.Text && slices.ContainsFunc(l.Parts, func(p Part) bool { return p.Nums != nil }) {
			out.Lines[i] = Line{Parts: renumberLine(l.Parts, renumber)}
		}
	}
	return out
}

func renumberLine(parts []Part, renumber func([]int) []int) []Part {
	var out []Part
	var run []int     // the numbers of the citations just written, side by side
	var pending *Part // a separator after them, held until the next citation is known
	flush := func() {
		if pending != nil {
			out = append(out, *pending)
			pending = nil
		}
	}
	for _, p := range parts {
		if p.Nums == nil {
			if run != nil && strings.Trim(p.Text, ", ") == "" {
				pending = &Part{Text: p.Text} // a citation may follow; text would have ended the part
				continue
			}
			flush()
			out = append(out, p)
			run = nil
			continue
		}
		var nums []int
		for _, n := range renumber(p.Nums) {
			if !slices.Contains(run, n) && !slices.Contains(nums, n) {
				nums = append(nums, n)
			}
		}
		if len(nums) == 0 {
			pending = nil // the whole citation repeats the ones before it
			continue
		}
		flush()
		if slices.Equal(nums, p.Nums) {
			out = append(out, p)
		} else {
			out = append(out, Part{Text: Format(nums), Nums: nums})
		}
		run = append(run, nums...)
	}
	flush()
	return out
}

// Link writes t with each citation of one number written as "[n]" that
// has a URL in urls as link("[n]", url), for the platforms where a
// citation can be a link.
func (t Text) Link(urls map[int]string, link func(label, url string) string) string {
	var b strings.Builder
	for i, l := range t.Lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		l.write(&b, urls, link)
	}
	return b.String()
}

// Link is Text.Link of one line, for a renderer that translates an answer
// line by line.
func (l Line) Link(urls map[int]string, link func(label, url string) string) string {
	if len(l.Parts) == 1 && l.Parts[0].Nums == nil {
		return l.Parts[0].Text // most lines: no copy
	}
	var b strings.Builder
	l.write(&b, urls, link)
	return b.String()
}

func (l Line) write(b *strings.Builder, urls map[int]string, link func(label, url string) string) {
	for _, p := range l.Parts {
		if n := single(p); n > 0 {
			if u, ok := urls[n]; ok {
				b.WriteString(link(p.Text, u))
				continue
			}
		}
		b.WriteString(p.Text)
	}
}

// single is the number of a citation written "[n]", 0 for any other part.
func single(p Part) int {
	if len(p.Nums) != 1 || len(p.Text) < 3 || len(p.Text) > 2+maxCitation ||
		strings.Trim(p.Text[1:len(p.Text)-1], "0123456789") != "" {
		return 0
	}
	return p.Nums[0]
}

// parts cuts line into text and citations, text and inline code merged
// into text parts, so that two citations are never separated by an empty
// text part.
func parts(line string) []Part {
	var ps []Part
	start := 0 // of the text not yet in ps
	for i := 0; i < len(line); {
		switch line[i] {
		case '`':
			i = codeSpanEnd(line, i)
		case '[':
			end, nums, ok := Parse(line, i)
			if !ok || strings.HasPrefix(line[end:], "(") {
				i++
				continue
			}
			if start < i {
				ps = append(ps, Part{Text: line[start:i]})
			}
			ps = append(ps, Part{Text: line[i:end], Nums: nums})
			i, start = end, end
		default:
			i++
		}
	}
	if start < len(line) || len(ps) == 0 {
		ps = append(ps, Part{Text: line[start:]})
	}
	return ps
}

// codeSpanEnd returns the index after the inline code span opened by the
// backticks at line[i], or after those backticks when no run of the same
// length closes them on this line: then they are literal backticks.
func codeSpanEnd(line string, i int) int {
	n := 0
	for i+n < len(line) && line[i+n] == '`' {
		n++
	}
	for j := i + n; j < len(line); {
		if line[j] != '`' {
			j++
			continue
		}
		m := 0
		for j+m < len(line) && line[j+m] == '`' {
			m++
		}
		if m == n {
			return j + m
		}
		j += m
	}
	return i + n
}
