package agent

import (
	"strings"
	"unicode/utf8"

	"github.com/switchboard/switchboard/internal/markdown"
)

// ShortenedNote ends an answer that was cut to Budgets.MaxAnswerChars.
const ShortenedNote = "… (answer shortened)"

// shorten cuts an answer longer than max runes, at the last paragraph
// break that is not inside a code block (else a line break, else a
// space), and says so. A code block left open by the cut is closed, so
// the rest of the message does not render as code. The result, note
// included, is at most max runes.
func shorten(text string, max int) string {
	if max <= 0 || utf8.RuneCountInString(text) <= max {
		return text
	}
	// Room for the note, and for a line that closes the longest fence
	// the cut could leave open.
	closing := 1 + longestFence(text)
	room := max - utf8.RuneCountInString(ShortenedNote) - len("\n\n") - closing
	if room < 1 {
		return string([]rune(text)[:max]) // a limit too small for the note
	}
	head := string([]rune(text)[:room])
	cut := paragraphBreak(head)
	if cut < len(head)/2 {
		// No paragraph break in the second half: a long paragraph is
		// better cut at a line or a word than shortened to half.
		if i := strings.LastIndexAny(head, "\n"); i >= len(head)/2 {
			cut = i
		} else if i := strings.LastIndex(head, " "); i > 0 {
			cut = i
		} else {
			cut = len(head)
		}
	}
	out := strings.TrimRight(head[:cut], " \t\n")
	if f, open := openFence(out); open {
		out += "\n" + f.Marker
	}
	return out + "\n\n" + ShortenedNote
}

// paragraphBreak returns the byte offset of the last blank line in s that
// is outside a code block, or -1: the offset of the line break before it.
func paragraphBreak(s string) int {
	best := -1
	var fences markdown.Scanner
	at := 0
	lines := strings.Split(s, "\n")
	for _, line := range lines[:len(lines)-1] { // the last has no line break: s was cut there
		if fences.Line(line) == markdown.Text && strings.TrimSpace(line) == "" && at > 0 {
			best = at - 1
		}
		at += len(line) + 1
	}
	return best
}

// openFence returns the fence of the code block s leaves open, if any.
func openFence(s string) (markdown.Fence, bool) {
	var fences markdown.Scanner
	for _, line := range strings.Split(s, "\n") {
		fences.Line(line)
	}
	return fences.Fence()
}

// longestFence is the length of the longest fence marker in s, and at
// least three, the length of the usual "```".
func longestFence(s string) int {
	n := 3
	var fences markdown.Scanner
	for _, line := range strings.Split(s, "\n") {
		if fences.Line(line) == markdown.Open {
			f, _ := fences.Fence()
			n = max(n, len(f.Marker))
		}
	}
	return n
}
