package markdown

import (
	"strings"
	"unicode/utf8"

	"github.com/switchboard/switchboard/internal/text"
)

// Split cuts text into parts of at most limit characters (runes) for
// platforms that cap a message or block: at paragraph breaks where
// possible, else at line breaks, else at spaces. A code fence is never cut
// in the middle: a block too long for one part is closed at the cut and
// reopened, with its language, in the next part.
func Split(text string, limit int) []string {
	if limit < 20 {
		limit = 20 // room for fence markers; platform limits are far larger
	}
	text = strings.TrimSpace(text)
	if utf8.RuneCountInString(text) <= limit {
		if text == "" {
			return nil
		}
		return []string{text}
	}
	var parts []string
	var cur strings.Builder
	curLen := 0
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			parts = append(parts, s)
		}
		cur.Reset()
		curLen = 0
	}
	add := func(piece string) {
		n := utf8.RuneCountInString(piece)
		if curLen > 0 && curLen+n > limit {
			flush()
		}
		cur.WriteString(piece)
		curLen += n
	}
	for _, b := range blocks(text) {
		if utf8.RuneCountInString(b.text)+2 <= limit {
			add(b.text + "\n\n")
			continue
		}
		if !b.code {
			for _, piece := range cutLines(b.text, limit) {
				add(piece + "\n")
			}
			add("\n")
			continue
		}
		// A fenced block longer than a part: cut between its lines and
		// fence each piece.
		open, body := reopenFence(b.fence, b.body, limit)
		close := b.fence.Marker
		room := limit - utf8.RuneCountInString(open) - len(close) - 2
		for _, piece := range cutLines(body, room) {
			flush()
			add(open + "\n" + piece + "\n" + close + "\n\n")
		}
	}
	flush()
	return parts
}

// maxLangRunes is the longest info string kept on a reopened fence: a
// language name is short, and anything longer is text a model wrote on the
// fence line.
const maxLangRunes = 20

// reopenFence returns the fence line to open each piece of a long code
// block with, and the body to cut. The info string is repeated on every
// piece only when it is a short language name that leaves at least half of
// the part for code; otherwise it becomes the body's first line, so that a
// fence line longer than a part (a model's code written on it) is cut like
// any other line instead of leaving no room at all.
func reopenFence(f Fence, body string, limit int) (string, string) {
	info := f.Info
	n := utf8.RuneCountInString(info)
	if n == 0 {
		return f.Marker, body
	}
	if n <= maxLangRunes && !strings.ContainsAny(info, " \t`") && len(f.Marker)+n+len(f.Marker)+2 <= limit/2 {
		return f.Marker + info, body
	}
	if body == "" {
		return f.Marker, info
	}
	return f.Marker, info + "\n" + body
}

// block is a paragraph or a fenced code block.
type block struct {
	text  string // as written
	code  bool   // a fenced code block
	fence Fence  // its opening fence
	body  string // its content between the fences
}

// blocks splits text into paragraphs and fenced code blocks.
func blocks(text string) []block {
	var out []block
	var para []string
	flushPara := func() {
		if len(para) > 0 {
			out = append(out, block{text: strings.Join(para, "\n")})
			para = nil
		}
	}
	lines := strings.Split(text, "\n")
	var fences Scanner
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if fences.Line(line) == Open {
			flushPara()
			f, _ := fences.Fence()
			j := i + 1
			for j < len(lines) && fences.Line(lines[j]) == Code {
				j++
			}
			end := min(j, len(lines)-1)
			body := strings.Join(lines[i+1:min(j, len(lines))], "\n")
			out = append(out, block{text: strings.Join(lines[i:end+1], "\n"), code: true, fence: f, body: body})
			if j >= len(lines) { // unclosed fence: close it so rendering stays sane
				out[len(out)-1].text += "\n" + f.Marker
			}
			i = end
			continue
		}
		if strings.TrimSpace(line) == "" {
			flushPara()
			continue
		}
		para = append(para, line)
	}
	flushPara()
	return out
}

// cutLines cuts text into pieces of at most limit runes at line breaks,
// and lines longer than limit at spaces (or anywhere, for unbroken text).
func cutLines(s string, limit int) []string {
	var segs []string
	for _, line := range strings.Split(s, "\n") {
		segs = append(segs, cutWords(line, limit)...)
	}
	return text.Pack(segs, "\n", limit)
}

// cutWords cuts one line into pieces of at most limit runes, at a space
// in the second half of a piece where there is one.
func cutWords(line string, limit int) []string {
	limit = max(limit, 1) // callers subtract markup from a part's size
	r := []rune(line)
	var out []string
	for len(r) > limit {
		cut := limit
		for cut > limit/2 && r[cut] != ' ' {
			cut--
		}
		if r[cut] != ' ' {
			cut = limit
		}
		out = append(out, strings.TrimRight(string(r[:cut]), " "))
		r = r[cut:]
		for len(r) > 0 && r[0] == ' ' {
			r = r[1:]
		}
	}
	return append(out, string(r))
}
