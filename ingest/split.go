package ingest

import (
	"strings"
	"unicode/utf8"

	"github.com/switchboard/switchboard/internal/markdown"
	"github.com/switchboard/switchboard/internal/text"
	"github.com/switchboard/switchboard/kb"
)

// SplitOptions sizes the chunks Split makes. Sizes count characters (runes),
// not bytes, so that non-Latin text gets chunks of the same reading length.
// The zero value gives the defaults.
type SplitOptions struct {
	// Size is the target length of a chunk: paragraphs are packed into a
	// chunk while it stays within Size. Default 1000.
	Size int
	// Overlap is how much text from the end of a chunk is repeated at the
	// start of the next chunk of the same section, cut at a sentence or word
	// boundary, so that a fact straddling two chunks is whole in one of
	// them. Zero means 15% of Size (150 by default); negative means none.
	// It is capped at Size/2.
	Overlap int
	// Max is the hard limit: a fenced code block up to Max stays whole in
	// one chunk even when it is longer than Size; only a longer block is cut
	// (at line boundaries, each piece fenced again). Default 2×Size; never
	// below Size.
	Max int
}

// Default split sizes; see SplitOptions.
const (
	DefaultChunkSize = 1000
	DefaultOverlap   = 150
)

func (o SplitOptions) withDefaults() SplitOptions {
	if o.Size <= 0 {
		o.Size = DefaultChunkSize
	}
	switch {
	case o.Overlap < 0:
		o.Overlap = 0
	case o.Overlap == 0:
		o.Overlap = o.Size * 15 / 100
	}
	if o.Overlap > o.Size/2 {
		o.Overlap = o.Size / 2
	}
	if o.Max <= 0 {
		o.Max = 2 * o.Size
	}
	if o.Max < o.Size {
		o.Max = o.Size
	}
	return o
}

// Split cuts Markdown or plain text into chunks for embedding. It splits at
// headings first, so that no chunk mixes two sections, then packs the
// section's paragraphs into chunks of about opts.Size characters. A
// paragraph longer than Size is cut at sentence boundaries, then at word
// boundaries; a fenced code block is never cut unless it alone exceeds
// opts.Max. Consecutive chunks of one section share opts.Overlap characters.
// Each chunk carries the nearest heading above it, and the heading lines
// themselves stay in the text so that a chunk read alone says what it is
// about.
//
// Split is deterministic and returns nil for text with no visible content.
func Split(text string, opts SplitOptions) []kb.Chunk {
	return splitUnder(text, "", opts)
}

// splitUnder is Split for text that sits under heading: chunks before the
// text's own first heading carry heading. The pipeline uses it to re-split a
// chunk a caller handed over whole.
func splitUnder(text, heading string, opts SplitOptions) []kb.Chunk {
	opts = opts.withDefaults()
	var chunks []kb.Chunk
	for _, sec := range parseSections(normalizeNewlines(text), heading) {
		for _, content := range packSection(sec.blocks, opts) {
			chunks = append(chunks, kb.Chunk{Index: len(chunks), Heading: sec.heading, Content: content})
		}
	}
	return chunks
}

func normalizeNewlines(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// block is a paragraph, a heading line or a fenced code block.
type block struct {
	text string
	code bool
	// For code blocks, the parts needed to cut the block and fence each
	// piece again.
	open, close string
	lines       []string
}

// section is the text under one heading. Its first heads blocks are
// heading lines: its own and those of empty sections folded into it.
type section struct {
	heading string
	blocks  []block
	heads   int
}

// parseSections splits text at ATX headings ("## Title") and single-line
// setext headings ("Title" over "-----"), outside fenced code blocks. A
// section holding nothing but its heading is folded into the next one, so
// that "# Policy" directly above "## Scope" does not become a chunk of its
// own.
func parseSections(text, heading string) []section {
	lines := strings.Split(text, "\n")
	var secs []section
	cur := section{heading: heading}
	var para []string

	flushPara := func() {
		if len(para) > 0 {
			cur.blocks = append(cur.blocks, block{text: strings.TrimSpace(strings.Join(para, "\n"))})
			para = nil
		}
	}
	path := headingPath{top: topHeading(lines)}
	startSection := func(level int, title, line string) {
		flushPara()
		var carried []block
		if len(cur.blocks) > cur.heads {
			secs = append(secs, cur)
		} else {
			carried = cur.blocks // only heading lines: fold them into the next section
		}
		blocks := append(carried, block{text: line})
		cur = section{heading: path.enter(level, title), blocks: blocks, heads: len(blocks)}
	}

	var fences markdown.Scanner
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if fences.Line(line) == markdown.Open {
			flushPara()
			fence, _ := fences.Fence()
			j := i + 1
			for j < len(lines) && fences.Line(lines[j]) == markdown.Code {
				j++
			}
			body := lines[i+1 : j]
			end := fence.Marker // an unclosed block runs to the end: close it
			if j < len(lines) {
				end = strings.TrimSpace(lines[j])
			} else {
				for len(body) > 0 && strings.TrimSpace(body[len(body)-1]) == "" {
					body = body[:len(body)-1]
				}
			}
			cur.blocks = append(cur.blocks, codeBlock(strings.TrimRight(line, " \t"), body, end))
			i = j
			continue
		}
		if title, ok := atxHeading(line); ok {
			startSection(atxLevel(line), title, strings.TrimSpace(line))
			continue
		}
		if len(para) == 1 && isSetextUnderline(line) {
			title := strings.TrimSpace(para[0])
			para = nil
			startSection(setextLevel(line), title, title+"\n"+strings.TrimSpace(line))
			continue
		}
		if strings.TrimSpace(line) == "" {
			flushPara()
			continue
		}
		para = append(para, line)
	}
	flushPara()
	if len(cur.blocks) > 0 {
		secs = append(secs, cur)
	}
	return secs
}

// headingPath follows the headings above a line, so that a section is
// named by its path: "Default GODEBUG Values › Go 1.21". A top heading (the
// one level-1 heading a document opens with, which names the document and
// is its title) is left out of the paths below it.
type headingPath struct {
	top    int // line index of the top heading, or -1
	seen   int // headings entered
	levels []int
	titles []string
}

// pathSep joins the headings of a path.
const pathSep = " › "

// enter records a heading and returns the path of its section.
func (p *headingPath) enter(level int, title string) string {
	p.seen++
	for len(p.levels) > 0 && p.levels[len(p.levels)-1] >= level {
		p.levels, p.titles = p.levels[:len(p.levels)-1], p.titles[:len(p.titles)-1]
	}
	isTop := p.seen == 1 && p.top >= 0
	names := p.titles
	if !isTop {
		p.levels, p.titles = append(p.levels, level), append(p.titles, title)
	}
	if title == "" {
		return strings.Join(names, pathSep)
	}
	return strings.Join(append(append([]string(nil), names...), title), pathSep)
}

// topHeading returns the index of the line of the document's top heading:
// its first heading when that is of level 1 and the only one of level 1,
// else -1. Code blocks are skipped.
func topHeading(lines []string) int {
	var fences markdown.Scanner
	first, ones := -1, 0
	for i, line := range lines {
		if fences.Line(line) != markdown.Text {
			continue
		}
		level := 0
		if _, ok := atxHeading(line); ok {
			level = atxLevel(line)
		} else if i > 0 && isSetextUnderline(line) && strings.TrimSpace(lines[i-1]) != "" {
			level = setextLevel(line)
		}
		if level == 0 {
			continue
		}
		if first < 0 {
			if level != 1 {
				return -1
			}
			first = i
		}
		if level == 1 {
			ones++
		}
	}
	if ones != 1 {
		return -1
	}
	return first
}

// atxLevel is the level of an ATX heading line: its count of '#'.
func atxLevel(line string) int {
	s, _ := indentOK(line)
	return len(s) - len(strings.TrimLeft(s, "#"))
}

// setextLevel is the level of a setext heading by its underline: 1 for
// "===", 2 for "---".
func setextLevel(underline string) int {
	if strings.TrimSpace(underline)[0] == '=' {
		return 1
	}
	return 2
}

func codeBlock(open string, lines []string, end string) block {
	body := strings.Join(lines, "\n")
	text := open + "\n" + body + "\n" + end
	if len(lines) == 0 {
		text = open + "\n" + end
	}
	return block{text: text, code: true, open: open, close: end, lines: lines}
}

// indentOK strips up to three leading spaces; four or more make an indented
// code line, which is never a heading.
func indentOK(line string) (string, bool) {
	n := 0
	for n < len(line) && line[n] == ' ' {
		n++
	}
	return line[n:], n <= 3
}

// atxHeading returns the text of an ATX heading line: one to six '#', then
// a space or the end of the line.
func atxHeading(line string) (string, bool) {
	s, ok := indentOK(line)
	if !ok {
		return "", false
	}
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(s) && s[n] != ' ' && s[n] != '\t') {
		return "", false
	}
	title := strings.TrimSpace(s[n:])
	// An optional closing run of '#' preceded by a space is not part of the title.
	if t := strings.TrimRight(title, "#"); t != title && (t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t")) {
		title = strings.TrimSpace(t)
	}
	return title, true
}

func isSetextUnderline(line string) bool {
	s, ok := indentOK(line)
	if !ok {
		return false
	}
	s = strings.TrimRight(s, " \t")
	if s == "" || (s[0] != '=' && s[0] != '-') {
		return false
	}
	return strings.Trim(s, s[:1]) == ""
}

// firstHeading returns the heading that names a Markdown text, outside
// code blocks: its first level-1 heading, else its first heading when no
// prose comes before it, else "". A document that opens with prose and
// then has "## Purpose" is not about "Purpose": its sections are.
func firstHeading(text string) string {
	lines := strings.Split(normalizeNewlines(text), "\n")
	var fences markdown.Scanner
	first, prose := "", false
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if fences.Line(line) != markdown.Text {
			continue
		}
		title, level := "", 0
		trimmed := strings.TrimSpace(line)
		if t, ok := atxHeading(line); ok {
			title, level = t, atxLevel(line)
		} else if trimmed != "" && i+1 < len(lines) && isSetextUnderline(lines[i+1]) && (i == 0 || strings.TrimSpace(lines[i-1]) == "") {
			title, level = trimmed, setextLevel(lines[i+1])
			i++ // the underline
		} else if trimmed != "" {
			prose = true
			continue
		}
		switch {
		case title == "":
		case level == 1:
			return title
		case first == "" && !prose:
			first = title
		}
	}
	return first
}

// unit is an indivisible piece for packing: a paragraph, a sentence, a run
// of words or a code block. sep is what joins it to the unit before it.
type unit struct {
	text string
	sep  string
	code bool
	item bool // a list item or a table row, kept whole
}

// packSection turns a section's blocks into chunk texts.
func packSection(blocks []block, o SplitOptions) []string {
	var units []unit
	for _, b := range blocks {
		units = append(units, blockUnits(b, o)...)
	}

	var out []string
	var cur []unit
	curLen, fresh := 0, 0 // fresh counts units that are not overlap
	emit := func() {
		var sb strings.Builder
		for i, u := range cur {
			if i > 0 {
				sb.WriteString(u.sep)
			}
			sb.WriteString(u.text)
		}
		if s := strings.TrimSpace(sb.String()); s != "" {
			out = append(out, s)
		}
	}
	for _, u := range units {
		n := runes(u.text)
		if fresh > 0 && curLen+runes(u.sep)+n > o.Size {
			emit()
			ov := overlapOf(cur, o.Overlap, o.Size/2)
			cur, curLen, fresh = nil, 0, 0
			if ov != "" && runes(ov)+runes(u.sep)+n <= o.Max {
				cur = []unit{{text: ov}}
				curLen = runes(ov)
			}
		}
		if len(cur) == 0 {
			u.sep = ""
		}
		cur = append(cur, u)
		curLen += runes(u.sep) + n
		fresh++
	}
	if fresh > 0 {
		emit()
	}
	return out
}

// blockUnits cuts one block into units no longer than o.Size, except for a
// code block up to o.Max, which stays whole.
func blockUnits(b block, o SplitOptions) []unit {
	const para = "\n\n"
	if b.code {
		if runes(b.text) <= o.Max {
			return []unit{{text: b.text, sep: para, code: true}}
		}
		var us []unit
		for _, piece := range cutCode(b, o.Size) {
			us = append(us, unit{text: piece, sep: para, code: true})
		}
		return us
	}
	if runes(b.text) <= o.Size {
		return []unit{{text: b.text, sep: para}}
	}
	var us []unit
	if indentedCode(b.text) { // its lines are code: cut between them
		for i, line := range strings.Split(b.text, "\n") {
			sep := "\n"
			if i == 0 {
				sep = para
			}
			for j, w := range cutRunes(line, o.Size) {
				if j > 0 {
					sep = ""
				}
				us = append(us, unit{text: w, sep: sep, code: true})
			}
		}
		return us
	}
	for i, g := range lineGroups(b.text) {
		sep := "\n"
		if i == 0 {
			sep = para
		}
		if g.item && runes(g.text) <= o.Size {
			// A list item or a table row stays whole, on its line.
			us = append(us, unit{text: g.text, sep: sep, item: true})
			continue
		}
		// Prose is cut between sentences, its hard line breaks being
		// only wrapping; so is an item too long for a chunk.
		for j, s := range sentences(unwrap(g.text)) {
			if j > 0 {
				sep = " "
			}
			if runes(s.text) <= o.Size {
				us = append(us, unit{text: s.text, sep: sep})
				continue
			}
			for k, w := range packWords(s.text, o.Size) {
				if k > 0 {
					sep = " "
				}
				us = append(us, unit{text: w, sep: sep})
			}
		}
	}
	return us
}

// lineGroup is a list item (with its continuation lines) or a run of
// prose lines of a paragraph.
type lineGroup struct {
	text string
	item bool
}

// lineGroups cuts a paragraph into its list items, table rows ("- Col:
// val") among them, and the runs of prose between them. A line that is
// not an item's start continues the group before it.
func lineGroups(p string) []lineGroup {
	var out []lineGroup
	for _, line := range strings.Split(p, "\n") {
		start := listMarker(strings.TrimLeft(line, " \t")) > 0
		if n := len(out); n > 0 && !start {
			out[n-1].text += "\n" + line
			continue
		}
		out = append(out, lineGroup{text: line, item: start})
	}
	return out
}

// indentedCode reports whether every line of a paragraph is indented as
// code is (a tab or four spaces).
func indentedCode(p string) bool {
	for _, line := range strings.Split(p, "\n") {
		if !strings.HasPrefix(line, "\t") && !strings.HasPrefix(line, "    ") {
			return false
		}
	}
	return true
}

// unwrap joins the lines of prose into one line.
func unwrap(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// cutCode cuts an over-long code block at line boundaries into pieces of
// about size characters, each fenced again so that it still renders as code.
func cutCode(b block, size int) []string {
	budget := size - runes(b.open) - runes(b.close) - 2
	if budget < 1 {
		budget = 1
	}
	var pieces []string
	var cur []string
	curLen := 0
	flush := func() {
		if len(cur) > 0 {
			pieces = append(pieces, b.open+"\n"+strings.Join(cur, "\n")+"\n"+b.close)
			cur, curLen = nil, 0
		}
	}
	for _, line := range b.lines {
		for _, part := range cutRunes(line, budget) {
			n := runes(part)
			if len(cur) > 0 && curLen+1+n > budget {
				flush()
			}
			if len(cur) > 0 {
				curLen++
			}
			cur = append(cur, part)
			curLen += n
		}
	}
	flush()
	if len(pieces) == 0 { // no body: only the fences, which cannot be cut
		return []string{b.text}
	}
	return pieces
}

// sentence is one sentence (or line) of a paragraph and the separator that
// preceded it: "\n" when a line break did, else " ".
type sentence struct {
	text, sep string
}

// sentences splits a paragraph after sentence-ending punctuation followed
// by space, after CJK full stops, and at line breaks (which keeps list items
// whole).
func sentences(p string) []sentence {
	var out []sentence
	start, sep := 0, " "
	add := func(end int, nextSep string) {
		if s := strings.TrimSpace(p[start:end]); s != "" {
			out = append(out, sentence{text: s, sep: sep})
			sep = nextSep
		} else if nextSep == "\n" {
			sep = "\n"
		}
		start = end
	}
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRuneInString(p[i:])
		i += size
		switch {
		case r == '\n':
			add(i, "\n")
		case r == '。' || r == '！' || r == '？':
			add(i, "")
		case r == '.' || r == '!' || r == '?':
			j := i
			for j < len(p) && strings.IndexByte(`.!?"')]`, p[j]) >= 0 {
				j++
			}
			if j == len(p) || p[j] == ' ' || p[j] == '\t' {
				add(j, " ")
				i = j
			}
		}
	}
	add(len(p), " ")
	return out
}

// packWords packs the words of an over-long sentence into pieces of at most
// size characters; a single word longer than that is cut.
func packWords(s string, size int) []string {
	var parts []string
	for _, w := range strings.Fields(s) {
		parts = append(parts, cutRunes(w, size)...)
	}
	return text.Pack(parts, " ", size)
}

// cutRunes cuts s into pieces of at most n runes.
func cutRunes(s string, n int) []string {
	if runes(s) <= n {
		return []string{s}
	}
	var out []string
	count, start := 0, 0
	for i := range s {
		if count == n {
			out = append(out, s[start:i])
			start, count = i, 0
		}
		count++
	}
	return append(out, s[start:])
}

// overlapOf returns the text to repeat at the start of the next chunk: the
// chunk's last sentence (or list item, or table row) whole, so that a
// definition cut from the sentence completing it ("…sets the timeout." |
// "The default is 30 s.") is whole in the next chunk; then the sentences
// before it while they fit in n. A last sentence longer than n, or than
// Size/2 (maxSentence), gives its last n characters from a word boundary,
// and a list item or table row that long gives none.
// Code is never used: half a code block is worse than none.
func overlapOf(units []unit, n, maxSentence int) string {
	if n <= 0 || len(units) == 0 || units[len(units)-1].code {
		return ""
	}
	last := units[len(units)-1]
	if indentedCode(last.text) {
		return ""
	}
	var tail []sentence
	if last.item {
		tail = []sentence{{text: last.text}}
	} else {
		tail = sentences(unwrap(last.text))
	}
	if len(tail) == 0 {
		return ""
	}
	out := tail[len(tail)-1].text
	if runes(out) > max(n, maxSentence) {
		if last.item {
			return "" // part of a row would read as a row
		}
		return tailAtBoundary(out, n)
	}
	for i := len(tail) - 2; i >= 0; i-- {
		more := tail[i].text + tail[i+1].sep + out
		if runes(more) > n {
			break
		}
		out = more
	}
	return out
}

// tailAtBoundary returns at most n runes from the end of s, starting at a
// sentence or word boundary; "" when s ends in one word longer than n.
func tailAtBoundary(s string, n int) string {
	total := runes(s)
	if total <= n {
		return strings.TrimSpace(s)
	}
	// Byte offset where the last n runes begin.
	start, skip := 0, total-n
	for i := range s {
		if skip == 0 {
			start = i
			break
		}
		skip--
	}
	window := s[start:]
	// A sentence boundary: punctuation then space, or a line break.
	for i := 0; i < len(window); i++ {
		c := window[i]
		boundary := c == '\n' ||
			((c == '.' || c == '!' || c == '?') && i+1 < len(window) && (window[i+1] == ' ' || window[i+1] == '\n'))
		if !boundary {
			continue
		}
		rest := strings.TrimSpace(window[i+1:])
		if rest != "" && runes(rest) >= n/3 {
			return rest
		}
		break
	}
	// At start, s[start-1] tells whether the window already begins on a word.
	if start > 0 && (s[start-1] == ' ' || s[start-1] == '\n' || s[start-1] == '\t') {
		return strings.TrimSpace(window)
	}
	if i := strings.IndexAny(window, " \n\t"); i >= 0 {
		return strings.TrimSpace(window[i:])
	}
	return ""
}

func runes(s string) int { return utf8.RuneCountInString(s) }
