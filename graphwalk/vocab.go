package graphwalk

import (
	"slices"
	"strings"
	"unicode"

	"github.com/switchboard/switchboard/kb/words"
	"github.com/switchboard/switchboard/lexicon"
)

// The graph's vocabulary is what its schema names: node labels,
// relationship types and property keys (Customer, SUPPLIES, unitPrice).
// A question that uses one of those words in its own form ("supplier",
// "bought", "cost", "kind") asks about something the graph keeps, which is
// evidence the router can take from the graph itself rather than from a
// list of words written for one graph. Words are matched through WordNet
// (package lexicon): a question word matches a name's word when they share
// a base form, one is derived from the other ("supplier" of "supply"),
// they are synonyms in their most frequent sense ("cost" of "price", "client"
// of "customer"), or the question word is a narrower term of it ("kind" of
// "category").

// maxTermWords bounds the words taken from one name ("ACCOUNT_MANAGER_OF").
const maxTermWords = 8

// addTerms records the words of name, their base forms, the forms derived
// from those and their closest synonyms, as naming name. A label's words
// are taken without derived forms: "produce" is something done, not a
// Product.
func (idx *Index) addTerms(name string, label bool) {
	for _, w := range nameWords(name) {
		bases := baseForms(w)
		forms := slices.Clone(bases)
		for _, b := range bases {
			if !label {
				forms = append(forms, lexicon.Derived(b)...)
			}
			forms = append(forms, lexicon.Closest(b)...)
		}
		for _, k := range forms {
			if _, ok := idx.terms[k]; !ok {
				idx.terms[k] = name
			}
		}
	}
}

// baseForms returns the word, its singular and its base forms in WordNet.
// A word that is itself a noun of WordNet is its own base form: "customer"
// is not a form of "custom".
func baseForms(w string) []string {
	if lexicon.Usually(w) == lexicon.Noun {
		return []string{w, words.Singular(w)}
	}
	return append([]string{w, words.Singular(w)}, lexicon.Lemmas(w)...)
}

// Term returns the label, relationship type or property key of the graph
// that the lowercase question word names, and whether there is one. The
// word or one of its base forms names one when it is among the forms
// addTerms recorded for it; a form derived from it names a relationship
// type or property key ("supplier" names SUPPLIES), not a label; and a
// noun names one that is the nearest broader term of its usual sense
// (lexicon.Broader: "kind" names Category). Synonyms are taken on the
// graph's side only, so that two words are not matched through a third
// ("bill" and "quantity" through "measure"). Stop words name nothing. A
// nil Index names nothing.
func (idx *Index) Term(word string) (string, bool) {
	if idx == nil || len(idx.terms) == 0 || words.IsStop(word) || len([]rune(word)) < 3 {
		return "", false
	}
	bases := baseForms(word)
	for _, k := range bases {
		if n, ok := idx.terms[k]; ok {
			return n, true
		}
	}
	for _, b := range bases {
		for _, d := range lexicon.Derived(b) {
			if n, ok := idx.terms[d]; ok && !idx.isLabel(n) {
				return n, true
			}
		}
		// Only a noun's, and only the nearest: a verb's are other actions
		// ("bill" is to "account"), and further ones are vaguer.
		if up := lexicon.Broader(b); len(up) > 0 && lexicon.Usually(b) == lexicon.Noun {
			if n, ok := idx.terms[up[0]]; ok {
				return n, true
			}
		}
	}
	return "", false
}

func (idx *Index) isLabel(name string) bool {
	l, ok := idx.labels[strings.ToLower(name)]
	return ok && l == name
}

// nameWords splits a schema name into its lowercase words, leaving out
// stop words: "unitPrice" → unit price, "ACCOUNT_MANAGER_OF" → account
// manager, "units_in_stock" → units stock.
func nameWords(name string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if w := strings.ToLower(string(cur)); len(w) >= 3 && !words.IsStop(w) && len(out) < maxTermWords {
			out = append(out, w)
		}
		cur = cur[:0]
	}
	rs := []rune(name)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r):
			flush()
			continue
		case unicode.IsUpper(r) && i > 0 && unicode.IsLower(rs[i-1]): // unit|Price
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	return out
}
