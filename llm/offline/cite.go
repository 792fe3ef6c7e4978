package offline

import (
	"strconv"
	"strings"
)

// Citations are written [n], and models also write [1, 2] and [1][2]. These
// helpers find them so that Check can tie each sentence to the documents it
// cites, whoever wrote the answer.

// maxCitation bounds the digits of a citation number; documents are few.
const maxCitation = 3

// parseCitation reads a citation group starting at s[i] == '['. It returns
// the index after the closing bracket and the numbers inside.
func parseCitation(s string, i int) (end int, refs []int, ok bool) {
	if i >= len(s) || s[i] != '[' {
		return i, nil, false
	}
	j := i + 1
	digits := 0
	for j < len(s) && j-i <= 30 {
		c := s[j]
		switch {
		case isDigit(c):
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

// moveCitations puts citations written after a sentence's full stop
// ("…30 days. [1] Items…") before it ("…30 days [1]. Items…"), so that
// splitting into sentences keeps each citation with its own sentence.
func moveCitations(line string) string {
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
			end, _, ok := parseCitation(line, j)
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

// stripCitations removes citation groups from s and returns the remaining
// text, tidied, and the cited numbers.
func stripCitations(s string) (string, []int) {
	if !strings.Contains(s, "[") {
		return strings.TrimSpace(s), nil
	}
	var b strings.Builder
	var refs []int
	for i := 0; i < len(s); i++ {
		if s[i] == '[' {
			if end, r, ok := parseCitation(s, i); ok {
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

// citeAll writes [1][2]… for documents 1..n, at most five.
func citeAll(n int) string {
	var b strings.Builder
	for i := 1; i <= min(n, 5); i++ {
		b.WriteString("[" + strconv.Itoa(i) + "]")
	}
	return b.String()
}
