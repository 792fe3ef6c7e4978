package sqlite

import (
	"strings"
	"unicode"
)

// tokens splits s into lowercased runs of letters, digits and combining
// marks, stopping after limit tokens so that a pasted 10 kB question costs
// no more than a short one. Every token holds at least one letter or digit.
func tokens(s string, limit int) []string {
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

// normName is the form names are matched in: tokens joined by one space,
// so "Acme Corp." and "acme  corp" are the same entity.
func normName(s string) string {
	return strings.Join(tokens(s, 64), " ")
}

// stopwords are dropped from search terms: they match nearly every chunk,
// so OR-ing them in only adds work and noise to the full-text ranking.
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

// Bounds on the full-text query built from a question.
const (
	maxQueryTokens = 512 // read at most this many words of the question
	maxQueryTerms  = 32  // OR at most this many distinct terms
)

// ftsTerms picks the words of free text to search for: distinct,
// lowercased, without stopwords unless nothing else is left, at most
// maxQueryTerms of them.
func ftsTerms(text string) []string {
	toks := tokens(text, maxQueryTokens)
	var terms []string
	seen := map[string]bool{}
	for _, skipStop := range []bool{true, false} {
		for _, t := range toks {
			if len(terms) == maxQueryTerms {
				return terms
			}
			if (skipStop && stopwords[t]) || seen[t] {
				continue
			}
			seen[t] = true
			terms = append(terms, t)
		}
		if len(terms) > 0 {
			break
		}
	}
	return terms
}

// matchExpr builds an FTS5 MATCH expression that cannot be a syntax
// error: each term becomes a quoted string and the strings are OR'ed, so
// quotes, '*', "AND(", NEAR and column filters in the user's words are only
// ever words. It returns "" for no terms.
func matchExpr(terms []string) string {
	quoted := make([]string, len(terms))
	for i, t := range terms {
		// Terms hold no quotes; doubling them anyway keeps the quoting
		// correct if tokens ever changes.
		quoted[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return strings.Join(quoted, " OR ")
}

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
