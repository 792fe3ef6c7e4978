package words

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// abbreviations end with a full stop that does not end a sentence.
var abbreviations = setOf(`e.g i.e etc mr mrs ms dr prof st vs inc ltd co corp no approx dept est fig jr sr`)

// Sentences splits one line of text into sentences, after . ! or ?
// followed by white space, except after abbreviations and initials ("U.S.",
// "J. Smith"). At most limit sentences are returned; the rest of the line is
// dropped.
func Sentences(line string, limit int) []string {
	var out []string
	start := 0
	for i := 0; i < len(line) && len(out) < limit; i++ {
		c := line[i]
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		// Swallow runs like "?!" and "..." and a closing quote or bracket.
		j := i + 1
		for j < len(line) && strings.IndexByte(".!?\"')”’", line[j]) >= 0 {
			j++
		}
		if j < len(line) && line[j] != ' ' && line[j] != '\t' {
			i = j - 1
			continue
		}
		if c == '.' && j == i+1 && isAbbreviation(line[start:i]) {
			continue
		}
		if s := strings.TrimSpace(line[start:j]); s != "" {
			out = append(out, s)
		}
		start = j
		i = j - 1
	}
	if len(out) < limit {
		if s := strings.TrimSpace(line[start:]); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// isAbbreviation reports whether the text before a full stop ends with an
// abbreviation or a single letter (an initial).
func isAbbreviation(before string) bool {
	k := strings.LastIndexAny(before, " \t(\"")
	last := strings.ToLower(before[k+1:])
	if last == "" {
		return false
	}
	if utf8.RuneCountInString(last) == 1 {
		r, _ := utf8.DecodeRuneInString(last)
		return unicode.IsLetter(r)
	}
	return abbreviations[last] || initials(last)
}

// initials reports whether s is single letters joined by full stops, as
// in "U.S", "e.g" or "a.m": the full stop after it ends no sentence.
func initials(s string) bool {
	parts := strings.Split(s, ".")
	for _, p := range parts {
		if utf8.RuneCountInString(p) != 1 {
			return false
		}
	}
	return len(parts) > 1
}

// StripBullet removes a list marker ("- ", "* ", "• ", "1. ", "2) ", "> ")
// from the start of a line.
func StripBullet(line string) string {
	line = strings.TrimSpace(line)
	for range 3 { // "> - item" has two markers; three is plenty
		switch {
		case strings.HasPrefix(line, "- "), strings.HasPrefix(line, "* "), strings.HasPrefix(line, "+ "),
			strings.HasPrefix(line, "> "):
			line = strings.TrimSpace(line[2:])
		case strings.HasPrefix(line, "• "):
			line = strings.TrimSpace(line[len("• "):])
		default:
			i := 0
			for i < len(line) && i < 4 && isDigit(line[i]) {
				i++
			}
			if i > 0 && i+1 < len(line) && (line[i] == '.' || line[i] == ')') && line[i+1] == ' ' {
				line = strings.TrimSpace(line[i+2:])
				continue
			}
			return line
		}
	}
	return line
}
