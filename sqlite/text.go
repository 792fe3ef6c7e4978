package sqlite

import (
	"strings"

	"github.com/switchboard/switchboard/kb/words"
)

// Bounds on the full-text query built from a question.
const (
	maxQueryTokens = 512 // read at most this many words of the question
	maxQueryTerms  = 32  // OR at most this many distinct terms
)

// ftsTerms picks the words of free text to search for: distinct,
// lowercased, without stopwords unless nothing else is left, at most
// maxQueryTerms of them.
func ftsTerms(text string) []string {
	toks := words.Split(text, maxQueryTokens)
	var terms []string
	seen := map[string]bool{}
	for _, skipStop := range []bool{true, false} {
		for _, t := range toks {
			if len(terms) == maxQueryTerms {
				return terms
			}
			if (skipStop && words.IsStop(t)) || seen[t] {
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
		// correct if words.Split ever changes.
		quoted[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return strings.Join(quoted, " OR ")
}
