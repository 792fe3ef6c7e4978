package viewtest

import (
	"fmt"
	"html"
	"strings"
	"unicode/utf8"
)

// Picture draws a chat message as an SVG image, for the README: the text
// the renderers produce, laid out roughly as the clients show it. It is a
// sketch (fixed character widths, no emoji fonts), not a client.
type Picture struct {
	Width int
	y     float64
	body  strings.Builder
}

// Run is a piece of text with one style.
type Run struct {
	Text                     string
	Bold, Italic, Code, Link bool
	Grey                     bool
	Size                     float64 // 0: 14
}

const (
	lineGap = 1.45
	margin  = 16.0
)

// NewPicture starts a picture of the given width.
func NewPicture(width int) *Picture { return &Picture{Width: width, y: margin} }

// Space moves down by px.
func (p *Picture) Space(px float64) { p.y += px }

// Rect draws a filled rectangle from the current line, height h.
func (p *Picture) Rect(x, w, h float64, fill string) {
	fmt.Fprintf(&p.body, `<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" rx="3" fill="%s"/>`+"\n", x, p.y, w, h, fill)
}

// Button draws a button at x on the current line and returns its width.
func (p *Picture) Button(x float64, label string) float64 {
	w := float64(utf8.RuneCountInString(label))*7.6 + 24
	fmt.Fprintf(&p.body, `<rect x="%.0f" y="%.0f" width="%.0f" height="28" rx="4" fill="#fff" stroke="#bbb"/>`+"\n", x, p.y, w)
	fmt.Fprintf(&p.body, `<text x="%.0f" y="%.0f" font-size="13" fill="#1d1c1d">%s</text>`+"\n", x+12, p.y+19, html.EscapeString(label))
	return w
}

// Text lays runs out from x, wrapped at the picture's right margin less
// right, and moves below them.
func (p *Picture) Text(x, right float64, runs []Run) {
	maxX := float64(p.Width) - margin - right
	size := 14.0
	if len(runs) > 0 && runs[0].Size > 0 {
		size = runs[0].Size
	}
	lineH := size * lineGap
	cx := x
	p.y += size
	var line strings.Builder
	flush := func() {
		if line.Len() > 0 {
			fmt.Fprintf(&p.body, `<text x="%.0f" y="%.0f" font-size="%.0f" xml:space="preserve">%s</text>`+"\n", x, p.y, size, line.String())
			line.Reset()
		}
	}
	for _, r := range runs {
		paras := strings.Split(r.Text, "\n")
		for pi, para := range paras {
			if pi > 0 {
				flush()
				p.y += lineH
				cx = x
			}
			for wi, word := range strings.Split(para, " ") {
				if wi > 0 {
					word = " " + word
				}
				w := width(word, r, size)
				if cx+w > maxX && cx > x {
					flush()
					p.y += lineH
					cx = x
					word = strings.TrimLeft(word, " ")
					w = width(word, r, size)
				}
				line.WriteString(tspan(word, r))
				cx += w
			}
		}
	}
	flush()
	p.y += lineH - size
}

func width(s string, r Run, size float64) float64 {
	per := 0.52
	switch {
	case r.Code:
		per = 0.6
	case r.Bold:
		per = 0.56
	}
	return float64(utf8.RuneCountInString(s)) * size * per
}

func tspan(s string, r Run) string {
	var attrs []string
	switch {
	case r.Code:
		attrs = append(attrs, `font-family="monospace"`, `fill="#c01343"`)
	case r.Link:
		attrs = append(attrs, `fill="#1264a3"`)
	case r.Grey:
		attrs = append(attrs, `fill="#616061"`)
	default:
		attrs = append(attrs, `fill="#1d1c1d"`)
	}
	if r.Bold {
		attrs = append(attrs, `font-weight="bold"`)
	}
	if r.Italic {
		attrs = append(attrs, `font-style="italic"`)
	}
	return "<tspan " + strings.Join(attrs, " ") + ">" + html.EscapeString(s) + "</tspan>"
}

// Y is the current height.
func (p *Picture) Y() float64 { return p.y }

// SVG is the finished picture, with background bg.
func (p *Picture) SVG(bg string) []byte {
	h := p.y + margin
	return []byte(fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%.0f" viewBox="0 0 %d %.0f" font-family="Helvetica, Arial, sans-serif">
<rect width="100%%" height="100%%" fill="%s"/>
%s</svg>
`, p.Width, h, p.Width, h, bg, p.body.String()))
}

// Runs reads the inline markup both platforms share into runs: *bold*
// (Slack) or **bold** (Discord), _italic_, `code`, and links — Slack's
// <url|label> or Markdown's [label](url) — shown by their label.
func Runs(s string, markdownBold bool) []Run {
	var out []Run
	cur := Run{}
	var b strings.Builder
	emit := func() {
		if b.Len() > 0 {
			r := cur
			r.Text = b.String()
			out = append(out, r)
			b.Reset()
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case markdownBold && strings.HasPrefix(s[i:], "**"):
			emit()
			cur.Bold = !cur.Bold
			i += 2
		case !markdownBold && c == '*':
			emit()
			cur.Bold = !cur.Bold
			i++
		case c == '_' && (i == 0 || s[i-1] == ' ' || cur.Italic):
			emit()
			cur.Italic = !cur.Italic
			i++
		case c == '`':
			emit()
			cur.Code = !cur.Code
			i++
		case c == '\\' && i+1 < len(s):
			b.WriteByte(s[i+1])
			i += 2
		case !markdownBold && c == '<':
			end := strings.IndexByte(s[i:], '>')
			if end < 0 {
				b.WriteByte(c)
				i++
				continue
			}
			emit()
			inner := s[i+1 : i+end]
			label := inner
			if _, l, ok := strings.Cut(inner, "|"); ok {
				label = l
			}
			out = append(out, Run{Text: html.UnescapeString(label), Link: true, Bold: cur.Bold})
			i += end + 1
		case markdownBold && c == '[':
			close := closing(s[i:])
			end := strings.IndexByte(s[i:], ')')
			if close < 0 || close+1 >= len(s[i:]) || s[i+close+1] != '(' || end < close {
				b.WriteByte(c)
				i++
				continue
			}
			emit()
			label := strings.NewReplacer(`\[`, "[", `\]`, "]").Replace(s[i+1 : i+close])
			out = append(out, Run{Text: label, Link: true, Bold: cur.Bold})
			i += end + 1
		default:
			b.WriteByte(c)
			i++
		}
	}
	emit()
	for i := range out {
		if !markdownBold {
			out[i].Text = html.UnescapeString(out[i].Text)
		}
	}
	return out
}

// Mark is a place in the drawing, for Under.
func (p *Picture) Mark() int { return p.body.Len() }

// Under adds SVG markup at mark, beneath what was drawn since.
func (p *Picture) Under(mark int, svg string) {
	s := p.body.String()
	p.body.Reset()
	p.body.WriteString(s[:mark] + svg + s[mark:])
}

// closing is the index of the "]" that ends the link text opening s, past
// escaped brackets and balanced ones ("[[1]](url)"); -1 if none.
func closing(s string) int {
	depth := 0
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			depth++
		case ']':
			if depth == 0 {
				return i
			}
			depth--
		case '\n':
			return -1
		}
	}
	return -1
}
