package offline

import (
	"slices"
	"strings"
	"sync"

	"github.com/switchboard/switchboard/kb/words"
	"github.com/switchboard/switchboard/lexicon"
)

// Related words come from WordNet (package lexicon), a general English
// lexical database, not from a list written for some documents: people ask
// in their own words and documents answer in theirs ("How long do we
// retain logs?" is answered by "log retention is 30 days").
//
// A word's related words are its base forms' derived forms ("retain" →
// "retention") and the synonyms of their most frequent sense only ("car" →
// "automobile"). Other senses' synonyms are left out: "closed", as a Go
// channel is, is not "deactivated", though one sense of "close" is, and a
// "CV" is not 105.
const (
	maxRelated = 12
	// A word with this many senses says little about a topic on its own
	// ("thing" has 12, "take" 44): it counts half, and a place need not
	// contain it. Verbs have more senses than nouns of the same use.
	vagueNoun = 12
	vagueVerb = 25
)

// memo keeps a function's answers for the texts looked up, so that a
// document's sentences are not sent to WordNet again for every question.
// It is emptied when full, so it never holds more than max texts.
type memo[V any] struct {
	max int
	mu  sync.Mutex
	m   map[string]V
}

func (c *memo[V]) get(w string, compute func(string) V) V {
	c.mu.Lock()
	v, ok := c.m[w]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = compute(w)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= c.max {
		c.m = make(map[string]V)
	}
	c.m[strings.Clone(w)] = v // not a slice of a whole document
	c.mu.Unlock()
	return v
}

var (
	relatedMemo = memo[[]relatedWord]{max: 20000}
	familyMemo  = memo[[]string]{max: 20000}
)

// relatedWord is a word or phrase related to another, with the lemmas of
// its words (see lemma), which is how it is looked for in a stem set.
type relatedWord struct {
	text  string
	stems []string
}

// relatedTo returns the words and phrases a document may use for the
// lowercase word or phrase w, nearest first.
func relatedTo(w string) []relatedWord { return relatedMemo.get(w, related) }

func related(w string) []relatedWord {
	var out []relatedWord
	seen := map[string]bool{w: true}
	add := func(list []string) {
		for _, s := range list {
			if len(out) < maxRelated && !seen[s] && !strings.ContainsAny(s, "-'0123456789") {
				seen[s] = true
				r := relatedWord{text: s}
				for _, t := range words.Tokens(s) {
					r.stems = append(r.stems, lemma(t))
				}
				out = append(out, r)
			}
		}
	}
	for _, base := range lexicon.Lemmas(w) {
		if base != w {
			seen[base] = true
		}
		add(lexicon.Derived(base))
		add(lexicon.Closest(base))
	}
	return out
}

// baseOf returns the base form WordNet gives an irregular form: "paid" →
// "pay", "went" → "go", "children" → "child"; or "" when the word is
// regular (its stem already meets its base's) or unknown.
func baseOf(w string) string {
	st := words.Stem(w)
	for _, b := range lexicon.Lemmas(w) {
		if b != w && !strings.Contains(b, " ") && words.Stem(b) != st && !strings.HasPrefix(w, b) {
			return b
		}
	}
	return ""
}

// vague reports whether a word says little about a topic on its own: a
// word of many senses ("take", "way", "thing").
func vague(w string) bool {
	for _, b := range lexicon.Lemmas(w) {
		switch p := lexicon.Usually(b); {
		case p == lexicon.Noun && lexicon.SensesAs(b, p) >= vagueNoun,
			p != lexicon.Noun && lexicon.Senses(b) >= vagueVerb:
			return true
		}
	}
	return false
}

// nounMarkers come before a verb's form used as a noun: "new hires", "the
// purchase", "our supply".
var nounMarkers = setOf(`a an the new our my your their his her its this these those any every each
some no`)

// chattyAt reports whether the question's word toks[i] is one a document
// need not repeat for a sentence to answer it: a verb, adjective or adverb
// in its usual use ("goes", "spins", "actually"), or a vague word. The
// nouns and the words WordNet does not know (names, jargon, codes) are
// what a question is about; so is a word used as a noun, after a
// determiner or another topic word ("our leave policy", "paid leave"), and
// an adjective that says what kind of thing ("parental leave").
func chattyAt(toks []words.Token, i int) bool {
	w := toks[i].Lower
	switch {
	case vague(w):
		return true
	case !lexicon.Known(w) || usually(w, lexicon.Noun) || relational(w):
		return false
	case i == 0 || !can(w, lexicon.Noun) || usually(w, lexicon.Adj, lexicon.Adv):
		return true
	}
	// A verb after a determiner or an adjective is used as a noun ("our
	// leave policy", "paid leave"), unless it is a participle ("a botched
	// campaign"); after a noun it is more likely its verb ("which agency
	// came up with").
	prev := toks[i-1].Lower
	participle := (strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "ing")) && !slices.Contains(lexicon.Lemmas(w), w)
	return participle || !nounMarkers[prev] && !relational(prev) && !usually(prev, lexicon.Adj)
}

// usually reports whether one of the word's base forms is usually one of
// the parts of speech ps.
func usually(w string, ps ...lexicon.POS) bool {
	return slices.ContainsFunc(lexicon.Lemmas(w), func(b string) bool { return slices.Contains(ps, lexicon.Usually(b)) })
}

// can reports whether one of the word's base forms has senses as pos.
func can(w string, pos lexicon.POS) bool {
	return slices.ContainsFunc(lexicon.Lemmas(w), func(b string) bool { return lexicon.Has(b, pos) })
}

// isA reports whether one of the word's base forms is a kind of one of
// kinds ("seconds" of "time unit", "week" of "time period").
func isA(w string, kinds ...string) bool {
	return slices.ContainsFunc(lexicon.Lemmas(w), func(b string) bool {
		return slices.ContainsFunc(kinds, func(k string) bool { return lexicon.IsA(b, k) })
	})
}

// relational reports whether an adjective says what a thing is of, as
// "parental" (of parents) does: it is made from a shorter noun it starts
// like (WordNet's derivations and pertainyms).
func relational(w string) bool {
	for _, b := range lexicon.Lemmas(w) {
		if lexicon.Usually(b) != lexicon.Adj {
			continue
		}
		for _, d := range lexicon.Derived(b) {
			if len(d) >= 4 && len(d) < len(b) && strings.HasPrefix(b, d[:4]) && lexicon.Usually(d) == lexicon.Noun {
				return true
			}
		}
	}
	return false
}

// maxPhraseWords is the longest phrase read as one keyword.
const maxPhraseWords = 3

// phraseAt returns the length of the longest phrase WordNet knows that
// starts at toks[i] ("time off", "credit card", "sign up"), or 0. A phrase
// starts with a word that is not a stopword.
func phraseAt(toks []words.Token, i int) int {
	if words.IsStop(toks[i].Lower) || words.IsDigits(toks[i].Lower) {
		return 0
	}
	for n := min(maxPhraseWords, len(toks)-i); n >= 2; n-- {
		parts := make([]string, n)
		for j := range n {
			parts[j] = toks[i+j].Lower
		}
		if lexicon.Known(strings.Join(parts, " ")) {
			return n
		}
	}
	return 0
}

// family returns the stems of the words WordNet derives from the word's
// base forms or them from it, that start like it: "deletion" gives delete,
// "payment" pay, "monthly" month, "severe" severity. It replaces cutting
// suffixes by hand, which took "lion" for a verb.
func family(w string) []string { return familyMemo.get(w, familyOf) }

func familyOf(w string) []string {
	var out []string
	for _, b := range lexicon.Lemmas(w) {
		for _, d := range lexicon.Derived(b) {
			if len(d) >= 3 && len(w) >= 3 && d[:3] == w[:3] && !strings.Contains(d, " ") {
				out = append(out, words.Stem(d))
			}
		}
	}
	return out
}
