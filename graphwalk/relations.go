package graphwalk

import (
	"strings"

	"github.com/switchboard/switchboard/kb/words"
)

// maxTypedFanout bounds the edges read per node when the question names a
// relationship: a hub's many edges of other types (ordered before the one
// asked about) must not cut the edge the question is about.
const maxTypedFanout = 200

// irregular maps verb forms that stemming cannot join to their base.
var irregular = map[string]string{
	"bought": "buy", "sold": "sell", "made": "make", "built": "build", "led": "lead",
	"paid": "pay", "sent": "send", "owned": "own", "held": "hold", "taught": "teach",
	"wrote": "write", "written": "write", "ran": "run", "run": "run",
}

// stem reduces a word to a rough stem so that "supplies", "supplier",
// "supplied" and "supply" meet ("suppli"), as do "manages" and "manager".
func stem(w string) string {
	w = strings.ToLower(w)
	if b, ok := irregular[w]; ok {
		w = b
	}
	w = words.Singular(w)
	for _, suf := range []string{"ing", "ers", "er", "ed", "es", "s"} {
		if len(w)-len(suf) >= 3 && strings.HasSuffix(w, suf) {
			w = w[:len(w)-len(suf)]
			break
		}
	}
	switch {
	case strings.HasSuffix(w, "y"):
		w = w[:len(w)-1] + "i"
	case len(w) > 3 && strings.HasSuffix(w, "e"):
		w = w[:len(w)-1]
	}
	return w
}

// relMatcher tells whether an edge type is one the question names. Its
// zero value matches nothing.
type relMatcher struct {
	stems map[string]bool // stems of the question's words, stopwords left out
	cache map[string]bool // type → matches
}

// relationSynonyms are the words a question may use for a relation whose
// edges are named otherwise: "Who makes Geitost?" and "Which company is
// behind Ikura?" ask for SUPPLIES, "What kind of food is Konbu filed
// under?" for PART_OF (or IN_CATEGORY, BELONGS_TO), "Who is paying us
// for Insight Analytics?" for BUYS. Keyed and valued by stem.
var relationSynonyms = func() map[string][]string {
	m := map[string][]string{}
	add := func(targets string, ws string) {
		var ts []string
		for _, t := range strings.Fields(targets) {
			ts = append(ts, stem(t))
		}
		for _, w := range strings.Fields(ws) {
			m[stem(w)] = append(m[stem(w)], ts...)
		}
	}
	add("supply", "make maker manufacture manufacturer produce producer build builder behind host provide provider source sell vendor")
	add("part category belong", "kind type sort category categorised categorized filed class classified fall")
	add("buy purchase", "pay paying")
	return m
}()

// newRelMatcher returns the matcher of the question words qtoks.
func newRelMatcher(qtoks []string) relMatcher {
	m := relMatcher{stems: map[string]bool{}, cache: map[string]bool{}}
	for _, t := range qtoks {
		if words.IsStop(t) || len([]rune(t)) < 3 {
			continue
		}
		s := stem(t)
		m.stems[s] = true
		for _, syn := range relationSynonyms[s] {
			m.stems[syn] = true
		}
	}
	return m
}

func (m relMatcher) active() bool { return len(m.stems) > 0 }

// matches reports whether the question mentions a word of typ, split on
// '_' and spaces ("ACCOUNT_MANAGER_OF" is named by "manages").
func (m relMatcher) matches(typ string) bool {
	if !m.active() {
		return false
	}
	if v, ok := m.cache[typ]; ok {
		return v
	}
	v := false
	for _, w := range words.Split(strings.ReplaceAll(typ, "_", " "), 16) {
		if words.IsStop(w) || len([]rune(w)) < 3 {
			continue
		}
		if m.stems[stem(w)] {
			v = true
			break
		}
	}
	m.cache[typ] = v
	return v
}

// relationsFirst moves the facts whose types m matches before the others,
// keeping the order within each group.
func relationsFirst(facts []Fact, m relMatcher) []Fact {
	if !m.active() {
		return facts
	}
	out := make([]Fact, 0, len(facts))
	for _, f := range facts {
		if m.matches(f.Type) {
			out = append(out, f)
		}
	}
	if len(out) == 0 || len(out) == len(facts) {
		return facts
	}
	for _, f := range facts {
		if !m.matches(f.Type) {
			out = append(out, f)
		}
	}
	return out
}
