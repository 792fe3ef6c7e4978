package postgres

import (
	"strings"
	"unicode"
)

// Bounds on the full-text query built from a question.
const (
	maxQueryTokens = 512 // read at most this many words of the question
	maxQueryTerms  = 32  // OR at most this many distinct terms
)

// queryWords picks the words of free text for the full-text query: the
// distinct ones, lowercased, at most maxQueryTerms of them, separated by
// spaces. It returns "" when the text has no words.
//
// hybridSQL OR's them rather than using websearch_to_tsquery's AND: a
// question's words rarely all occur in the passage that answers it ("How
// many days of vacation do we get?"), and ts_rank_cd still ranks passages
// with more of the words higher. Every word is a run of letters, digits and
// combining marks, so quotes, '&', '!', ':*' or parentheses in the question
// are only ever separators. Stop words need no filtering here: the
// 'english' configuration drops them.
func queryWords(text string) string {
	var terms []string
	seen := map[string]bool{}
	for _, t := range tokens(text, maxQueryTokens) {
		if len(terms) == maxQueryTerms {
			break
		}
		if !seen[t] {
			seen[t] = true
			terms = append(terms, t)
		}
	}
	return strings.Join(terms, " ")
}

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
