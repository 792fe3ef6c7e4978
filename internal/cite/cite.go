// Package cite reads and writes the citation markers of answers: [n], and
// [1, 2] and [1][2] as models also write them. The agent renumbers them,
// the offline engine's checker ties each sentence to the documents it
// cites; both read them with Parse, so that what one counts as a citation
// the other does too, whoever wrote the answer.
package cite

import (
	"strconv"
	"strings"
)

// maxCitation bounds the digits of a citation number; documents are few.
const maxCitation = 3

// Parse reads a citation group starting at s[i] == '[': numbers of one to
// maxCitation digits separated by commas or spaces, then ']', within 30
// bytes. It returns the index after the closing bracket and the numbers
// inside; ok is false when s[i:] starts no citation ("[x]", "[]", "[1234]",
// "[1" at the end). A Markdown link's text "[1](…)" is a citation here:
// callers that read Markdown check what follows end.
func Parse(s string, i int) (end int, refs []int, ok bool) {
	if i >= len(s) || s[i] != '[' {
		return i, nil, false
	}
	j := i + 1
	digits := 0
	for j < len(s) && j-i <= 30 {
		c := s[j]
		switch {
		case c >= '0' && c <= '9':
			digits++
			if digits > maxCitation {
				return i, nil, false
			}
		case c == ',' || c == ' ':
			if digits > 0 {
				n, _ := strconv.Atoi(s[j-digits : j])
				refs = append(refs, n)
			}
			digits = 0
		case c == ']':
			if digits > 0 {
				n, _ := strconv.Atoi(s[j-digits : j])
				refs = append(refs, n)
			}
			return j + 1, refs, len(refs) > 0
		default:
			return i, nil, false
		}
		j++
	}
	return i, nil, false
}

// Move puts citations written after a sentence's full stop
// ("…30 days. [1] Items…") before it ("…30 days [1]. Items…"), so that
// splitting into sentences keeps each citation with its own sentence.
func Move(line string) string {
	if !strings.Contains(line, "[") {
		return line
	}
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c != '.' && c != '!' && c != '?' {
			b.WriteByte(c)
			continue
		}
		j := i + 1
		for j < len(line) && line[j] == ' ' {
			j++
		}
		var groups []string
		for j < len(line) && line[j] == '[' {
			end, _, ok := Parse(line, j)
			if !ok {
				break
			}
			groups = append(groups, line[j:end])
			j = end
			for j < len(line) && line[j] == ' ' && j+1 < len(line) && line[j+1] == '[' {
				j++
			}
		}
		if len(groups) == 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteString(" " + strings.Join(groups, "") + string(c))
		i = j - 1
	}
	return b.String()
}

// Strip removes citation groups from s and returns the remaining
// text, tidied, and the cited numbers.
func Strip(s string) (string, []int) {
	if !strings.Contains(s, "[") {
		return strings.TrimSpace(s), nil
	}
	var b strings.Builder
	var refs []int
	for i := 0; i < len(s); i++ {
		if s[i] == '[' {
			if end, r, ok := Parse(s, i); ok {
				refs = append(refs, r...)
				i = end - 1
				continue
			}
		}
		b.WriteByte(s[i])
	}
	out := strings.Join(strings.Fields(b.String()), " ")
	for _, p := range []string{".", ",", ";", ":", "!", "?"} {
		out = strings.ReplaceAll(out, " "+p, p)
	}
	return out, refs
}

// Format writes a citation of the numbers: "[1]", "[1, 3]".
func Format(nums []int) string {
	parts := make([]string, len(nums))
	for i, n := range nums {
		parts[i] = strconv.Itoa(n)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
