package offline

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/switchboard/switchboard/internal/text"
	"github.com/switchboard/switchboard/kb/words"
	"github.com/switchboard/switchboard/lexicon"
)

// Limits. Inputs come from chat users and from stores, so their size is not
// ours to choose; the engine looks only at a prefix of each, which keeps every
// call cheap and bounded. A question's first few thousand characters say what
// it is about.
const (
	maxQuestion  = 4000  // bytes of a question (or history question) analysed
	maxDocText   = 20000 // bytes of one document's title and content analysed
	maxDocs      = 50    // documents Generate and Check look at
	maxAnswer    = 16000 // bytes of an answer Check reads
	maxKeywords  = 32    // distinct keywords kept from one text
	maxSentences = 400   // sentences taken from one document or answer
)

// clip returns at most n bytes of s, cut at a rune boundary: the prefix
// the limits above allow. It is text.ClipBytes under a short name, as the
// package has many variables called text.
func clip(s string, n int) string { return text.ClipBytes(s, n) }

func setOf(list string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(list) {
		m[w] = true
	}
	return m
}

// keyword is one distinct topic word, or phrase, of a text.
type keyword struct {
	words.Token
	weight float64 // 1, or 0.5 for chatty words (see chatty)
	// frame marks a word that shapes the question rather than naming its
	// topic: the word after "how" ("how long"), a cap ("limit"), a word
	// such as "allowed" or a vague verb ("take"). A document need not
	// contain it, and is not relevant for containing it.
	frame bool
	// chat marks a word a document need not repeat: a verb, adjective
	// or adverb as used here, or a vague word (see chattyAt).
	chat bool
	// number marks a number word of the question, its stem the digits
	// ("ten" is 10). It is a frame word for the grader; the generator
	// counts it as a topic word, since a sentence with the number the
	// question states is likely about it.
	number bool
}

// questionFrameWords shape a question without naming its topic: they say
// what kind of answer is wanted ("allowed", "possible"), or are verbs so
// general that a document need not repeat them.
var questionFrameWords = setOf(`allowed allow able possible okay special anything exist exists available
kind kinds type types sort happen happens happened need needed required require requires supposed
expected mean means exactly actually usually currently ok right correct true false
there whats apply applies may`)

// keywords returns the distinct topic words of s in order of first
// appearance: stopwords, one-character words and single digits are dropped,
// and words with the same stem count once. A phrase WordNet knows ("sign
// up", "time off") is one keyword, its stem the stems of its words.
// At most maxKeywords are kept.
func keywords(s string) []keyword {
	var out []keyword
	seen := make(map[string]bool)
	toks := words.Tokens(s)
	for i := 0; i < len(toks) && len(out) < maxKeywords; i++ {
		if n := phraseAt(toks, i); n > 0 {
			if key := phraseKey(toks[i : i+n]); !seen[key] {
				seen[key] = true
				ph := toks[i : i+n]
				texts, lows := make([]string, n), make([]string, n)
				for j, t := range ph {
					texts[j], lows[j] = t.Text, t.Lower
					seen[t.Stem] = true
				}
				tok := words.Token{Text: strings.Join(texts, " "), Lower: strings.Join(lows, " "), Stem: key}
				out = append(out, keyword{Token: tok, weight: 1})
			}
			i += n - 1
			continue
		}
		t := toks[i]
		if n, ok := words.NumberWord(t.Lower); ok {
			// "ten years" may be written "10 years" or "10th
			// anniversary": a number counts where the document has it.
			if !seen[n] {
				seen[n] = true
				t.Stem = n
				out = append(out, keyword{Token: t, weight: 0.5, frame: true, number: true})
			}
			continue
		}
		if words.IsFiller(t.Lower) || len(t.Lower) < 2 || seen[t.Stem] {
			continue
		}
		seen[t.Stem] = true
		w := 1.0
		chat := chattyAt(toks, i)
		if chat {
			w = 0.5 // a verb or adjective, or a vague word: the topic is elsewhere
		}
		frame := (i > 0 && toks[i-1].Lower == "how") || asksLimit(t.Lower) || questionFrameWords[t.Lower]
		out = append(out, keyword{Token: t, weight: w, frame: frame, chat: chat})
	}
	framed := true
	for _, k := range out {
		framed = framed && k.frame
	}
	if framed {
		// Nothing but frame words ("What are the limits?"): they are
		// the topic after all.
		for i := range out {
			out[i].frame = false
		}
	}
	return out
}

// phraseKey is the key of a phrase: its words' lemmas joined by spaces.
func phraseKey(toks []words.Token) string {
	keys := make([]string, len(toks))
	for j, t := range toks {
		keys[j] = lemma(t)
	}
	return strings.Join(keys, " ")
}

// lemma is the stem of a token's base form: "paid" is "pay", "went" "go".
func lemma(t words.Token) string {
	if b := baseOf(t.Lower); b != "" {
		return words.Stem(b)
	}
	return t.Stem
}

// stemSet returns the stems of every word of s, stopwords included (the
// phrase "time off" needs "off"), and their variant stems (see
// appendVariants).
func stemSet(s string) map[string]bool { return stemsOf(words.Tokens(s), nil) }

// stemsOf is stemSet for tokens, leaving out those skip says to.
func stemsOf(toks []words.Token, skip func(i int) bool) map[string]bool {
	m := make(map[string]bool)
	var buf [4]string
	for i, t := range toks {
		if skip != nil && skip(i) {
			continue
		}
		m[t.Stem] = true
		for _, v := range appendVariants(buf[:0], t) {
			m[v] = true
		}
	}
	return m
}

// corpusStems keeps the stem sets of documents' texts (titles, headings,
// sentences): the grader, the generator and the checker of a question read
// the same documents, as do the next questions; a question's own words
// never go in. The sets are shared: callers only read them. 5000 texts are
// a few megabytes of sentences and their sets.
var corpusStems = memo[map[string]bool]{max: 5000}

// docStemSet is stemSet for the text of a document.
func docStemSet(s string) map[string]bool { return corpusStems.get(s, stemSet) }

// keyOf is a keyword's key: a phrase's stems, or a word's lemma.
func keyOf(k keyword) string {
	if strings.Contains(k.Stem, " ") {
		return k.Stem
	}
	return lemma(k.Token)
}

// matchIn reports whether keyword k occurs in the stem set, directly (in
// one of its forms: "lost" for "losing", "deletion" for "deleted") or
// through one of its synonyms; via is the synonym that matched, if any. A
// phrase, and a synonym of several words, matches when all its words
// occur.
func matchIn(k keyword, set map[string]bool) (ok bool, via string) {
	if set[k.Stem] {
		return true, ""
	}
	key := keyOf(k)
	if strings.Contains(key, " ") {
		if allIn(set, strings.Fields(key)) {
			return true, ""
		}
	} else {
		if set[key] {
			return true, ""
		}
		var buf [4]string
		for _, v := range appendVariants(buf[:0], k.Token) {
			if set[v] {
				return true, ""
			}
		}
	}
	for _, r := range relatedTo(k.Lower) {
		if allIn(set, r.stems) {
			return true, r.text
		}
	}
	for _, w := range spellingsOf(k.Lower) {
		if set[words.Stem(w)] {
			return true, ""
		}
	}
	if abbreviates(k.Lower, set) {
		return true, ""
	}
	return false, ""
}

// abbreviates reports whether w, a short word WordNet does not know, is
// the abbreviation of a longer word in the set, as chat writes them
// ("ack": acknowledge, "env": environment, "asm": assembler): the longer
// word starts with w's first two letters and holds the rest in order.
func abbreviates(w string, set map[string]bool) bool {
	if len(w) < 3 || len(w) > 4 || lexicon.Known(w) {
		return false
	}
	for i := range len(w) {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	for s := range set {
		if len(s) < len(w)+3 || !strings.HasPrefix(s, w[:2]) || !lexicon.Known(s) && len(lexicon.Lemmas(s)) == 0 {
			continue
		}
		rest, j := w[2:], 2
		for j < len(s) && rest != "" {
			if s[j] == rest[0] {
				rest = rest[1:]
			}
			j++
		}
		if rest == "" {
			return true
		}
	}
	return false
}

var spellingMemo = memo[[]string]{max: 5000}

// spellingsOf returns the words WordNet knows that a word it does not know
// is one slip of the keyboard from ("requried": required): two letters
// swapped, one left out, one too many or one wrong. Chat questions are
// typed fast; a name or jargon rarely lies one slip from a dictionary word
// the same documents use. Words under five letters are too short to tell.
func spellingsOf(w string) []string { return spellingMemo.get(w, spellings) }

func spellings(w string) []string {
	if len(w) < 5 || len(w) > 30 || lexicon.Known(w) {
		return nil
	}
	for i := range len(w) {
		if w[i] < 'a' || w[i] > 'z' {
			return nil
		}
	}
	var out []string
	seen := map[string]bool{w: true}
	try := func(c string) {
		if !seen[c] {
			seen[c] = true
			if lexicon.Known(c) {
				out = append(out, c)
			}
		}
	}
	for i := range len(w) {
		try(w[:i] + w[i+1:]) // one too many
		if i+1 < len(w) {
			try(w[:i] + string(w[i+1]) + string(w[i]) + w[i+2:]) // two swapped
		}
		for c := byte('a'); c <= 'z'; c++ {
			try(w[:i] + string(c) + w[i+1:]) // one wrong
		}
	}
	for i := range len(w) + 1 {
		for c := byte('a'); c <= 'z'; c++ {
			try(w[:i] + string(c) + w[i:]) // one left out
		}
	}
	return out
}

// matchShare is how much of keyword k the stem set holds: 1 for the word
// itself (a phrase's words all), synonymShare for a synonym (via names
// it), 0 for neither.
func matchShare(k keyword, set map[string]bool) (share float64, via string) {
	ok, via := matchIn(k, set)
	switch {
	case !ok:
		return 0, ""
	case via != "":
		return synonymShare, via
	}
	return 1, ""
}

// allIn reports whether every stem is in the set (and there is one).
func allIn(set map[string]bool, stems []string) bool {
	for _, st := range stems {
		if !set[st] {
			return false
		}
	}
	return len(stems) > 0
}

// appendVariants appends to dst the other stems a word is found under:
// the lemma of an irregular form ("kept" is keep), the words of its family
// in WordNet ("deletion" is delete, "monthly" month; see family), the
// number of an ordinal or a number word ("10th" and "ten" are 10). Stem
// sets hold them too, so the forms meet either way.
func appendVariants(dst []string, t words.Token) []string {
	if b := baseOf(t.Lower); b != "" {
		dst = append(dst, words.Stem(b))
	}
	dst = append(dst, family(t.Lower)...)
	if n := words.Ordinal(t.Lower); n != "" {
		dst = append(dst, n)
	}
	if n, ok := words.NumberWord(t.Lower); ok {
		dst = append(dst, n)
	}
	return dst
}

// joinList writes words as "a, b and c" (or "a, b or c": conj).
func joinList(items []string, conj string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}

// capitalize upper-cases the first letter of s.
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
