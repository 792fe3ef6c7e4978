package agent

import (
	"strings"
	"unicode/utf8"
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
	const fence = "\n```"
	room := max - utf8.RuneCountInString(ShortenedNote) - len("\n\n") - len(fence)
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
	if strings.Count(out, "```")%2 == 1 {
		out += fence
	}
	return out + "\n\n" + ShortenedNote
}

// paragraphBreak returns the byte offset of the last blank line in s that
// is outside a code block, or -1.
func paragraphBreak(s string) int {
	best := -1
	for i := 0; ; {
		j := strings.Index(s[i:], "\n\n")
		if j < 0 {
			return best
		}
		at := i + j
		if strings.Count(s[:at], "```")%2 == 0 {
			best = at
		}
		i = at + 1
	}
}
