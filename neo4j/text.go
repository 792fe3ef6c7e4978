package neo4j

import (
	"strings"
	"unicode"
)

// The text helpers below are the ones package sqlite uses, so that the two
// graph stores match entities and parse questions the same way and a
// question gets the same walk from either backend.

// tokens splits s into lowercased runs of letters, digits and combining
// marks, stopping after max tokens so that a pasted 10 kB question costs no
// more than a short one. Every token holds at least one letter or digit.
func tokens(s string, max int) []string {
	var out []string
	var b strings.Builder
	alnum := false
	flush := func() {
		if b.Len() > 0 && alnum {
			out = append(out, b.String())
		}
		b.Reset()
		alnum = false
	}
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
			alnum = true
		case unicode.IsMark(r) && b.Len() > 0:
			b.WriteRune(r)
		default:
			flush()
			if len(out) >= max {
				return out
			}
		}
	}
	flush()
	if len(out) > max {
		out = out[:max]
	}
	return out
}

// normName is the form names are matched in: tokens joined by one space,
// so "Acme Corp." and "acme  corp" are the same entity.
func normName(s string) string {
	return strings.Join(tokens(s, 64), " ")
}

// maxQueryTokens bounds the words of a question that are examined.
const maxQueryTokens = 512

// stopwords never start a match on their own: they occur in every question.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be been but by can could did do does for from
		had has have how i if in into is it its me my no not of on or our should so that the their them
		then there these they this those to us was we were what when where which who whom why will with
		would you your about any all some show list tell give please vs per than`) {
		m[w] = true
	}
	return m
}()

// singular is a rough English singular, enough to map "customers" to the
// label Customer and "companies" to Company.
func singular(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"),
		strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") &&
		!strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:len(w)-1]
	}
	return w
}

// clip shortens s to at most n runes, marking the cut with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
