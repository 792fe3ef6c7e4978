package postgres

import (
	"strings"

	"github.com/switchboard/switchboard/kb/words"
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
// many days of vacation do we get?"), and ts_rank still ranks passages
// with more of the words higher. Every word is a run of letters, digits and
// combining marks, so quotes, '&', '!', ':*' or parentheses in the question
// are only ever separators. Stop words need no filtering here: the
// 'english' configuration drops them.
func queryWords(text string) string {
	var terms []string
	seen := map[string]bool{}
	for _, t := range words.Split(text, maxQueryTokens) {
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
