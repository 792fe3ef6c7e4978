// Package markdown reads the one piece of Markdown structure that several
// parts of Switchboard must agree on: fenced code blocks. The bot splits
// long answers without cutting inside one, the Slack adapter leaves their
// content untranslated, the agent closes one its shortening left open, and
// ingestion keeps them whole in a chunk and finds no headings in them. If
// these disagreed, a line one of them took for code another would rewrite
// as prose.
//
// The rules are CommonMark's, for fences outside containers (block quotes
// and list items are not parsed): an opening fence is a run of at least
// three backticks or three tildes, indented by at most three spaces, and
// then an info string, usually a language; after backticks the info string
// may hold no backtick, so that "```a```" on a line of its own is inline
// code, not a fence. A closing fence is a run of the same character, at
// least as long, indented by at most three spaces, and then only white
// space. A block that is never closed runs to the end of the text. A fence
// indented four spaces or more is an indented code line, never a fence.
package markdown

import "strings"

// Kind is what a line is to fenced code blocks.
type Kind int

// The kinds of line.
const (
	Text  Kind = iota // outside every code block
	Open              // the opening fence of a code block
	Code              // inside a code block
	Close             // the closing fence of a code block
)

// Fence is the opening fence of a code block.
type Fence struct {
	// Marker is the run of backticks or tildes, such as "```" or "~~~~":
	// what closes the block, and what to open it again with.
	Marker string
	// Info is the info string after the marker, trimmed: a language such
	// as "go", or "".
	Info string
	// Indent is how many spaces the marker was indented, 0 to 3. The lines
	// of the block are as written: Scanner does not remove the indent.
	Indent int
}

// Scanner follows the code blocks of a text one line at a time. A line's
// kind depends only on the lines before it, so a text can be classified
// as it is read. The zero Scanner is at the start of a text.
type Scanner struct {
	fence Fence
	in    bool
}

// Line reads the next line of the text, without its line ending, and
// returns its kind.
func (s *Scanner) Line(line string) Kind {
	if s.in {
		if s.fence.closedBy(line) {
			s.in = false
			return Close
		}
		return Code
	}
	if f, ok := opening(line); ok {
		s.fence, s.in = f, true
		return Open
	}
	return Text
}

// Fence returns the fence of the code block that the lines read so far
// leave open: the block of the last line read, unless that line closed it.
func (s *Scanner) Fence() (Fence, bool) {
	return s.fence, s.in
}

// FenceFor returns a backtick marker that no line of code can close: one
// backtick longer than the longest run of backticks in it, and at least
// three. Written as marker+"\n"+code+"\n"+marker, the block holds code.
func FenceFor(code string) string {
	longest, run := 0, 0
	for i := 0; i < len(code); i++ {
		if code[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// opening returns the fence that line opens a code block with, if it does.
func opening(line string) (Fence, bool) {
	indent, s := indentation(line)
	if indent > 3 || len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return Fence{}, false
	}
	n := run(s)
	if n < 3 {
		return Fence{}, false
	}
	info := s[n:]
	if s[0] == '`' && strings.Contains(info, "`") {
		return Fence{}, false
	}
	return Fence{Marker: s[:n], Info: strings.TrimSpace(info), Indent: indent}, true
}

// closedBy reports whether line closes a block that f opened.
func (f Fence) closedBy(line string) bool {
	indent, s := indentation(line)
	if indent > 3 || s == "" || s[0] != f.Marker[0] {
		return false
	}
	n := run(s)
	return n >= len(f.Marker) && strings.TrimRight(s[n:], " \t\r") == ""
}

// indentation splits line into its leading spaces, counted, and the rest.
// A tab indents to the next multiple of four columns, which is always too
// far for a fence, so it is not counted as indentation here and ends it.
func indentation(line string) (int, string) {
	n := 0
	for n < len(line) && line[n] == ' ' {
		n++
	}
	return n, line[n:]
}

// run is the length of the run of s[0] that s starts with.
func run(s string) int {
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	return n
}
