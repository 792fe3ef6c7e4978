// Package words splits the knowledge base's text (questions, entity
// names, property keys) into the words that the stores search and match
// on. It is one package, not a helper per store, because the stores must
// agree: a question has to find the same entities and terms whichever
// backend holds the knowledge base.
package words

import (
	"strconv"
	"strings"
	"unicode"
)

// Split splits s into lowercased runs of letters, digits and combining
// marks, stopping after limit words so that a pasted 10 kB question costs
// no more than a short one. Every word holds at least one letter or
// digit, so a word never carries punctuation that a query language could
// read as syntax.
func Split(s string, limit int) []string {
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
			if len(out) >= limit {
				return out
			}
		}
	}
	flush()
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// Norm is the form entity names are compared in: their words joined by
// one space, so that "Acme Corp." and "acme  corp" are the same entity.
func Norm(name string) string {
	return strings.Join(Split(name, 64), " ")
}

// stopwords match nearly every text, so they are dropped from search
// terms and never make a name worth matching on their own.
var stopwords = setOf(`a an and are as at be been but by can could did do does for from
	had has have how i if in into is it its me my no not of on or our should so that the their them
	then there these they this those to us was we were what when where which who whom why will with
	would you your about any all some show list tell give please vs per than`)

// IsStop reports whether w, a word as Split returns it, is a stopword.
func IsStop(w string) bool {
	return stopwords[w]
}

// setOf makes a set of the words of a space-separated list.
func setOf(list string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(list) {
		m[w] = true
	}
	return m
}

// Singular is a rough English singular, enough to map "customers" to the
// label Customer and "companies" to Company.
func Singular(w string) string {
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

// Plural writes a count of things as people read it: "1 hop", "3 hops".
// It only appends "s", which is enough for the words the stores count.
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
