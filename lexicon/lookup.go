package lexicon

import (
	"slices"
	"sort"
	"strings"
)

// find returns the lemma's number, or -1.
func (t *table) find(word string) int {
	if word == "" || len(word) > t.longest {
		return -1
	}
	if i := sort.SearchStrings(t.names, word); i < len(t.names) && t.names[i] == word {
		return i
	}
	return -1
}

// sensesOf returns the lemma's senses, most frequent first across parts of
// speech: SemCor tag count, then WordNet's rank, then n, v, a, r (the order
// the generator uses for Derived).
func (t *table) sensesOf(lemma int) []sense {
	ss := slices.Clone(t.senses[t.lemmaSenses[lemma]:t.lemmaSenses[lemma+1]])
	slices.SortStableFunc(ss, func(a, b sense) int {
		if a.cnt != b.cnt {
			return int(b.cnt) - int(a.cnt)
		}
		return int(a.rank) - int(b.rank)
	})
	return ss
}

// words appends the lemmas of a synset other than skip, members most tagged
// in it first, then those for whom it is a more frequent sense.
func (t *table) words(out []string, seen map[int32]bool, syn int32) []string {
	ms := slices.Clone(t.members[t.synMembers[syn]:t.synMembers[syn+1]])
	slices.SortStableFunc(ms, func(a, b int32) int {
		sa, sb := t.senses[a], t.senses[b]
		if sa.cnt != sb.cnt {
			return int(sb.cnt) - int(sa.cnt)
		}
		return int(sa.rank) - int(sb.rank)
	})
	for _, m := range ms {
		if l := t.senses[m].lemma; !seen[l] {
			seen[l] = true
			out = append(out, t.names[l])
		}
	}
	return out
}

func (t *table) hasPOS(word string, pos POS) bool {
	i := t.find(word)
	if i < 0 {
		return false
	}
	for _, s := range t.senses[t.lemmaSenses[i]:t.lemmaSenses[i+1]] {
		if s.pos == pos {
			return true
		}
	}
	return false
}

// detach is WordNet's morphy suffix rules, by part of speech.
var detach = [...][][2]string{
	Noun: {{"s", ""}, {"ses", "s"}, {"ves", "f"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"}},
	Verb: {{"s", ""}, {"ies", "y"}, {"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""}},
	Adj:  {{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"}},
	Adv:  {},
}

// Lemmas returns the word's base forms in WordNet, as morphy finds them: for
// each part of speech (noun, verb, adjective, adverb) the word itself if it is
// a lemma of that part of speech, and the forms its exception list gives, or
// if it has none, those its suffix rules give that are lemmas of that part of
// speech. "went" gives [go], "closed" [close closed]; nil when none is known.
func Lemmas(word string) []string { return get().lemmas(word) }

func (t *table) lemmas(word string) []string {
	if word == "" || len(word) > t.longest+3 { // no suffix rule takes off more than 3 bytes
		return nil
	}
	var out []string
	for pos := Noun; pos <= Adv; pos++ {
		forms := []string{word}
		if bases, ok := t.exc[posLetters[pos]+word]; ok {
			forms = append(forms, bases...)
		} else {
			for _, r := range detach[pos] {
				if stem, ok := strings.CutSuffix(word, r[0]); ok {
					forms = append(forms, stem+r[1])
				}
			}
		}
		for _, f := range forms {
			if !slices.Contains(out, f) && t.hasPOS(f, pos) {
				out = append(out, f)
			}
		}
	}
	return out
}

// Known reports whether the word or one of its base forms is in WordNet.
func Known(word string) bool { return len(get().lemmas(word)) > 0 }

// Senses returns the number of synsets the lemma belongs to, over all parts
// of speech: 1 means its synonyms are safe to use, more means they depend on
// the sense. The word must be a lemma (see Lemmas); 0 when it is not.
func Senses(word string) int { return get().count(word) }

func (t *table) count(word string) int {
	i := t.find(word)
	if i < 0 {
		return 0
	}
	return int(t.lemmaSenses[i+1] - t.lemmaSenses[i])
}

// Synonyms returns the other lemmas of the synsets of the lemma, over all
// parts of speech, the synsets of its most frequent senses first; nil when the
// word is not a lemma or has no synonym.
func Synonyms(word string) []string { return get().synonyms(word) }

func (t *table) synonyms(word string) []string {
	i := t.find(word)
	if i < 0 {
		return nil
	}
	var out []string
	seen := map[int32]bool{int32(i): true}
	for _, s := range t.sensesOf(i) {
		out = t.words(out, seen, s.syn)
	}
	return out
}

// Derived returns the lemmas WordNet relates to the lemma by derivation or,
// for adjectives and adverbs, as pertainyms ("retain" gives "retention",
// "quickly" gives "quick"), those of its most frequent senses first; nil when
// there are none.
func Derived(word string) []string { return get().related(word) }

func (t *table) related(word string) []string {
	i := t.find(word)
	if i < 0 {
		return nil
	}
	var out []string
	for _, d := range t.derived[t.derivStart[i]:t.derivStart[i+1]] {
		out = append(out, t.names[d])
	}
	return out
}

// Broader returns the lemmas of the direct hypernyms (including instance
// hypernyms: "paris" gives "national capital") of the lemma's first sense in
// each of its parts of speech, the most frequent of those senses first. Other
// senses are left out: their hypernyms are mostly about another meaning.
func Broader(word string) []string { return get().broader(word) }

func (t *table) broader(word string) []string {
	i := t.find(word)
	if i < 0 {
		return nil
	}
	var out []string
	seen := map[int32]bool{int32(i): true}
	for _, s := range t.sensesOf(i) {
		if s.rank == 1 {
			for _, h := range t.hyper[t.hyperStart[s.syn]:t.hyperStart[s.syn+1]] {
				out = t.words(out, seen, h)
			}
		}
	}
	return out
}

// Usually returns the lemma's most frequent part of speech: the one whose
// senses are tagged most often in SemCor, or, if none is tagged more, the one
// with the most senses (then n, v, a, r). None when the word is not a lemma.
func Usually(word string) POS { return get().usually(word) }

func (t *table) usually(word string) POS {
	i := t.find(word)
	if i < 0 {
		return None
	}
	var cnt, n [Adv + 1]int
	for _, s := range t.senses[t.lemmaSenses[i]:t.lemmaSenses[i+1]] {
		cnt[s.pos] += int(s.cnt)
		n[s.pos]++
	}
	best := None
	for p := Noun; p <= Adv; p++ {
		if cnt[p] > cnt[best] || cnt[p] == cnt[best] && n[p] > n[best] {
			best = p
		}
	}
	return best
}

// Closest returns the other lemmas of the lemma's most frequent synset only:
// the synonyms that are safe to use without knowing which sense is meant.
// "closed" as a Go channel is not "deactivated", though one sense of "close"
// is; the most frequent sense is the likeliest reading of a word in any text.
func Closest(word string) []string { return get().closest(word) }

func (t *table) closest(word string) []string {
	i := t.find(word)
	if i < 0 {
		return nil
	}
	ss := t.sensesOf(i)
	if len(ss) == 0 {
		return nil
	}
	return t.words(nil, map[int32]bool{int32(i): true}, ss[0].syn)
}

// maxIsA bounds the synsets IsA visits; WordNet's noun hierarchy is at
// most about 20 levels deep.
const maxIsA = 256

// IsA reports whether the lemma's most frequent noun sense is, through its
// hypernyms, a kind of the most frequent noun sense of kind: IsA("manager",
// "person") and IsA("tuesday", "time period") hold, IsA("channel",
// "person") does not. The climb follows synsets, not words, so that it
// stays in one meaning.
func IsA(word, kind string) bool { return get().isA(word, kind) }

func (t *table) firstNoun(word string) int32 {
	if i := t.find(word); i >= 0 {
		for _, s := range t.senses[t.lemmaSenses[i]:t.lemmaSenses[i+1]] {
			if s.pos == Noun && s.rank == 1 {
				return s.syn
			}
		}
	}
	return -1
}

func (t *table) isA(word, kind string) bool {
	from, to := t.firstNoun(word), t.firstNoun(kind)
	if from < 0 || to < 0 {
		return false
	}
	queue := []int32{from}
	seen := map[int32]bool{from: true}
	for len(queue) > 0 && len(seen) < maxIsA {
		syn := queue[0]
		queue = queue[1:]
		if syn == to {
			return true
		}
		for _, h := range t.hyper[t.hyperStart[syn]:t.hyperStart[syn+1]] {
			if !seen[h] {
				seen[h] = true
				queue = append(queue, h)
			}
		}
	}
	return false
}

// Has reports whether the lemma has senses as the part of speech pos: "leave"
// is a verb usually, and a noun too.
func Has(word string, pos POS) bool { return get().hasPOS(word, pos) }

// SensesAs returns the number of senses the lemma has as the part of speech
// pos: "cloud" has 6 as a noun, 12 in all.
func SensesAs(word string, pos POS) int { return get().countAs(word, pos) }

func (t *table) countAs(word string, pos POS) int {
	i := t.find(word)
	if i < 0 {
		return 0
	}
	n := 0
	for _, s := range t.senses[t.lemmaSenses[i]:t.lemmaSenses[i+1]] {
		if s.pos == pos {
			n++
		}
	}
	return n
}
