package offline

import (
	"regexp"
	"slices"
	"strings"

	"github.com/switchboard/switchboard/kb/words"
	"github.com/switchboard/switchboard/lexicon"
)

// The answering check: grounding asks whether every sentence of an answer
// is in its sources, this whether they say what was asked ("Do we get
// paid leave for jury duty?" is not answered by every sentence about paid
// leave). A question asks for an attribute of an entity. The entity is its
// names (capitalised words, acronyms), which must occur in the documents,
// and its topic words (needs). The attribute is the kind of answer asked
// for, read with WordNet rather than word lists: an amount, a measure (an
// amount with a unit), a time or a person. The supported sentences answer
// when one place (a sentence or two that follow each other) holds every
// topic word and answerShare of the needed words (termsOK), every number
// the question states, and the kind asked for; a yes/no question is not
// answered when a topic word is in no document. This is lexical, so an
// offline answer is never high (agent/result.go).

// answerShare is the share of the topic weight one place must cover.
const answerShare = 2.0 / 3

// questionFocus is what a question asks.
type questionFocus struct {
	terms   []keyword     // topic words, lemmas; chat marks a word the answer need not repeat
	pos     []int         // where each term was written (token index), for Missing
	names   []words.Token // capitalised words and acronyms
	numbers []string      // the numbers the asking part states, canonical
	numText []string      // the same as written, for Missing
	kind    string        // the kind of answer asked for as Missing names it: "how many", "how long", "when", "who", or ""
	polar   bool          // a yes/no question
}

// yesNoOpeners open a yes/no question.
var yesNoOpeners = setOf(`do does did is are was were can could will would should may might must has have shall am`)

// howDegrees follow "how" in a question that asks for an amount or a
// measure; "how many" and "how much" ask for an amount alone.
var howDegrees = setOf(`many much long often far soon old big large high low fast quickly early late`)

// focusOf reads the focus of a question. The asking parts give it its
// words, the scene's names still locate the answer ("I'm in
// Massachusetts. How long is paid leave?"). When the asking part names no
// topic of its own ("'span of control' — what does that refer to?"), the
// quoted words or the scene are what it asks about.
func focusOf(question string) questionFocus {
	all, asks := asking(question)
	f := focusIn(all, asks)
	if f.hasTopic() || len(asks) == len(all) {
		return f
	}
	if m := quoted.FindStringSubmatch(clip(question, maxQuestion)); m != nil {
		q := focusIn([]string{m[1]}, []string{m[1]})
		q.kind, q.polar = f.kind, f.polar
		return q
	}
	return focusIn(all, all)
}

func (f questionFocus) hasTopic() bool { return slices.ContainsFunc(f.terms, f.topical) }

// topical reports whether a term is a topic word, which an answering place
// must hold: not chatty, not a name.
func (f questionFocus) topical(k keyword) bool { return !k.chat && !f.isName(k) }

// missesTopic reports whether a place that misses the terms missing lacks
// a topic word.
func (f questionFocus) missesTopic(missing []int) bool {
	return slices.ContainsFunc(missing, func(i int) bool { return f.topical(f.terms[i]) })
}

// focusIn reads the focus of a question split into parts, of which asks
// are the asking ones.
func focusIn(all, asks []string) questionFocus {
	var f questionFocus
	var toks []words.Token
	var starts []bool // toks[i] starts a part of the question
	for _, part := range all {
		ask := slices.Contains(asks, part)
		for k, t := range words.Tokens(part) {
			if ask || isName(t, k == 0) {
				toks, starts = append(toks, t), append(starts, k == 0)
			}
		}
	}
	// The numbers of the asking parts, not the scene's ("five years now")
	// nor a code's ("EDNS0"); a number word counts ("six weeks").
	for _, n := range words.Numbers(codes.ReplaceAllString(strings.Join(asks, " "), " ")) {
		f.numbers, f.numText = append(f.numbers, n), append(f.numText, n)
	}
	f.polar = len(toks) > 0 && yesNoOpeners[toks[0].Lower]
	seen := make(map[string]bool)
	for i, t := range toks {
		w, next, prev := t.Lower, "", ""
		if i+1 < len(toks) && !starts[i+1] {
			next = toks[i+1].Lower
		}
		if i > 0 && !starts[i] {
			prev = toks[i-1].Lower
		}
		if n, ok := words.NumberWord(w); ok {
			f.numbers, f.numText = append(f.numbers, n), append(f.numText, t.Text)
		}
		kind := ""
		switch {
		case w == "how" && howDegrees[next]:
			kind = "how " + next
		case starts[i] && (w == "who" || w == "whom" || w == "whose"):
			kind = "who"
		case starts[i] && w == "when" && (next == "" || yesNoOpeners[next]):
			kind = "when" // "when is …?"; "when a build fails, does it …?" sets a condition
		case (prev == "what" || prev == "which") && (w == "time" || isA(w, "time period", "time unit", "point", "date")):
			kind = "when" // "what time", "which day"
		case (prev == "what" || prev == "which") && senseIsA(w, "magnitude", "proportion", "amount", "number", "rate", "value"):
			kind = "how much" // "what percentage", "what share"
		case asksLimit(w):
			kind = "how much"
		case prev == "in" && !words.IsFiller(w) && isA(w, "unit of measurement", "time unit"):
			kind = "how many " + w // "the delivery SLA, in seconds?"
		}
		if kind != "" {
			if f.kind == "" {
				f.kind = kind
			}
			if w != "who" && w != "when" && w != "how" {
				continue // "what time", "limit": the kind of answer, not its topic
			}
		}
		if isName(t, starts[i]) {
			f.names = append(f.names, t)
		}
		if words.IsFiller(w) || questionFrameWords[w] || len(w) < 2 || words.IsDigits(w) || seen[t.Stem] || prev == "how" {
			continue
		}
		seen[t.Stem] = true
		t.Stem = lemma(t)
		// A superlative, and an adjective that says which time ("last
		// year"), is the point of the question, not talk.
		when := next != "" && lexicon.Has(w, lexicon.Adj) && isA(next, "time period", "time unit")
		f.terms = append(f.terms, keyword{Token: t, weight: 1, chat: chattyAt(toks, i) && !superlative(w) && !when})
		f.pos = append(f.pos, i)
		if len(f.terms) >= maxKeywords {
			break
		}
	}
	return f
}

// asksLimit reports whether a word asks for a bound: a limit, a maximum
// or a minimum, as WordNet classes them, or a cap or ceiling, whose first
// senses WordNet gives to hats and rooms, and their abbreviations.
func asksLimit(w string) bool {
	return isA(w, "limit") || usually(w, lexicon.Adj) && isA(w, "large indefinite quantity", "small indefinite quantity") ||
		w == "cap" || w == "caps" || w == "ceiling" || w == "max" || w == "min"
}

// senseIsA reports whether the word or one of its synonyms is a kind of
// one of kinds: a question's "what share" asks for a proportion in a
// sense of "share" that is not its first.
func senseIsA(w string, kinds ...string) bool {
	return slices.ContainsFunc(append(lexicon.Synonyms(w), w), func(s string) bool { return isA(s, kinds...) })
}

// superlative reports whether a word is an adjective's superlative
// ("highest", "latest"): the point of a question that has one, which an
// answer must state.
func superlative(w string) bool {
	return strings.HasSuffix(w, "est") && slices.ContainsFunc(lexicon.Lemmas(w), func(b string) bool {
		return b != w && lexicon.Has(b, lexicon.Adj)
	})
}

// leadInEnd matches where a chatty lead-in ends: a dash, a colon, or a
// sentence end ("I'm on a compressed schedule — can I earn credit
// hours?").
var leadInEnd = regexp.MustCompile(`\s[—–-]+\s|:\s|[.!?]\s`)

// asking splits a question into parts and returns them with those that
// ask: the parts that end in a question mark, or all of them if none
// does. The others set the scene ("I've been here five years now").
func asking(question string) (parts, asks []string) {
	for _, line := range strings.Split(clip(question, maxQuestion), "\n") {
		rest := line
		for range maxSentences {
			loc := leadInEnd.FindStringIndex(rest)
			if loc == nil {
				break
			}
			parts, rest = append(parts, rest[:loc[0]+1]), rest[loc[1]:]
		}
		// "if a dependency sets it, does it apply?": a clause before a
		// comma that a question follows sets the scene.
		if i := strings.LastIndex(rest, ", "); i > 0 && opensQuestion(rest[i+2:]) {
			parts, rest = append(parts, rest[:i+1]), rest[i+2:]
		}
		parts = append(parts, rest)
	}
	for _, p := range parts {
		if strings.HasSuffix(strings.TrimSpace(p), "?") {
			asks = append(asks, p)
		}
	}
	if len(asks) == 0 {
		asks = parts
	}
	return parts, asks
}

// opensQuestion reports whether s starts as a question does.
func opensQuestion(s string) bool {
	first, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(s)), " ")
	switch first {
	case "what", "whats", "what's", "which", "who", "whose", "whom", "when", "where", "why", "how":
		return true
	}
	return yesNoOpeners[first]
}

// isName reports whether a token names something: an acronym ("FSA"), or
// a capitalised word that does not start a sentence ("Massachusetts").
func isName(t words.Token, startsSentence bool) bool {
	if words.IsFiller(t.Lower) || questionFrameWords[t.Lower] || len(t.Lower) < 2 || words.IsDigits(t.Lower) {
		return false
	}
	if t.Text == strings.ToUpper(t.Text) && strings.ToLower(t.Text) != t.Text {
		return true // an acronym
	}
	return !startsSentence && startsName(t.Text, false)
}

// isName reports whether focus term k is one of the question's names.
func (f questionFocus) isName(k keyword) bool {
	return slices.ContainsFunc(f.names, func(n words.Token) bool { return n.Lower == k.Lower })
}

// answerPlace is what one or two consecutive sentences of an answer hold.
type answerPlace struct {
	set  map[string]bool // stems, lemmas and WordNet family of its words
	toks []words.Token
	text string
}

func newAnswerPlace(text string) answerPlace {
	w := answerPlace{toks: words.Tokens(text), text: text}
	w.set = stemsOf(w.toks, nil)
	for _, t := range w.toks {
		w.set[t.Lower] = true // the question's names are looked up as written
	}
	return w
}

// answerCoverage is what an answer's sentences cover of a focus.
type answerCoverage struct {
	answers bool
	missing string // what is not covered, for Verdict.Missing
}

// answersFocus checks the answer's supported sentences (without
// citations) against the focus; docs is the text of the documents the
// answer was written from, titles the stems of their titles and headings.
func answersFocus(f questionFocus, sentences []string, docs string, titles map[string]bool) answerCoverage {
	in := newAnswerPlace(docs)
	var names []string // names found nowhere
	for _, n := range f.names {
		if !in.set[n.Stem] && !in.set[n.Lower] && !slices.ContainsFunc(sentences, func(s string) bool { return stemSet(s)[n.Stem] }) {
			names = append(names, n.Text)
		}
	}
	var absent []int // topic words of a yes/no question no document has
	for i, k := range f.terms {
		if f.polar && f.needs(k) && !vague(k.Lower) {
			if ok, _ := matchIn(k, in.set); !ok {
				absent = append(absent, i)
			}
		}
	}
	if len(sentences) == 0 {
		return answerCoverage{missing: f.describe(names, f.needed(), f.kind, false)}
	}
	// A place is a sentence or two that follow each other; graph rows
	// are one place, as the query chose them together.
	var places []string
	if rows := strings.Join(sentences, " \n"); strings.Contains(rows, "]->") || strings.Contains(rows, "<-[") {
		places = []string{rows}
	} else {
		for i := range sentences {
			places = append(places, sentences[i])
			if i+1 < len(sentences) {
				places = append(places, sentences[i]+" \n"+sentences[i+1])
			}
		}
	}
	best, bestShare, bestKind := []int(nil), -1.0, f.kind
	var bestNums []string
	for _, text := range places {
		w := newAnswerPlace(text)
		for k := range titles {
			w.set[k] = true // the title is what every sentence of the document is about
		}
		share, missing, nums := f.coverage(w)
		kind := ""
		if !f.states(w) {
			kind = f.kind
		}
		if f.termsOK(share, missing) && len(nums) == 0 && kind == "" && len(names) == 0 && len(absent) == 0 && !f.missesTopic(missing) {
			return answerCoverage{answers: true}
		}
		if share > bestShare || share == bestShare && kind == "" && bestKind != "" {
			best, bestShare, bestKind, bestNums = missing, share, kind, nums
		}
	}
	var miss []int
	switch {
	case len(absent) > 0:
		miss = absent // the most telling: the documents never mention it
	case !f.termsOK(bestShare, best) || len(bestNums) > 0 || f.missesTopic(best):
		miss, names = best, append(names, bestNums...)
	}
	return answerCoverage{missing: f.describe(names, miss, bestKind, len(absent) > 0)}
}

// needs reports whether focus term k must be covered: names locate the
// answer, the other words ask ("Who hosts Brightline Cloud?" is answered
// by a sentence about hosting). A chatty word need not be, when the
// question has topic words, except in a yes/no question ("Can I carry
// vacation over?"). A unit of time in a question that asks for a time or
// an amount ("which day of the week?") names the kind of answer.
func (f questionFocus) needs(k keyword) bool {
	switch {
	case f.isName(k), f.kind != "" && f.kind != "who" && isA(k.Lower, "time unit", "time period"):
		return false
	case k.chat && !f.polar:
		return !f.hasTopic()
	}
	return true
}

func (f questionFocus) needed() []int {
	var out []int
	for i, k := range f.terms {
		if f.needs(k) {
			out = append(out, i)
		}
	}
	return out
}

// coverage returns the share of the focus weight w covers (the needed
// terms, a chatty one at half weight and a synonym at synonymShare, and
// the numbers the question states), the terms it misses and the numbers
// it lacks, as written.
func (f questionFocus) coverage(w answerPlace) (share float64, missing []int, nums []string) {
	var got, total float64
	for i, k := range f.terms {
		if !f.needs(k) {
			continue
		}
		weight := 1.0
		if vague(k.Lower) {
			weight = 0.5
		}
		total += weight
		ok, via := matchIn(k, w.set)
		if !ok {
			ok = f.relation(w, k) // "sells" in the question, SUPPLIES in the row
		}
		switch {
		case !ok:
			missing = append(missing, i)
		case via != "":
			got += synonymShare * weight
		default:
			got += weight
		}
	}
	have := words.Numbers(w.text)
	for i, n := range f.numbers {
		total++
		if slices.Contains(have, n) {
			got++
		} else {
			nums = append(nums, f.numText[i])
		}
	}
	if total == 0 {
		return 1, nil, nil
	}
	return got / total, missing, nums
}

// termsOK decides on a place's coverage: answerShare of the weight, any
// superlative, and with one or two specific words, all of them ("parental
// leave" is not answered by "leave" alone).
func (f questionFocus) termsOK(share float64, missing []int) bool {
	specific := 0
	for _, k := range f.terms {
		if f.needs(k) && !vague(k.Lower) {
			specific++
		}
	}
	return share >= answerShare-1e-9 && !slices.ContainsFunc(missing, func(i int) bool {
		k := f.terms[i]
		return superlative(k.Lower) || specific <= 2 && !vague(k.Lower)
	})
}

// relation reports whether w is graph rows that state the relation a
// verb of the question asks for ("sells": SUPPLIES), and holds for a
// word that names no relation. "Who sells us Ipoh Coffee?" is not
// answered by the rows of the customers who buy it.
func (f questionFocus) relation(w answerPlace, k keyword) bool {
	rels, ok := answerRelations[k.Stem]
	return ok && slices.ContainsFunc(rels, func(r string) bool { return w.set[r] })
}

// answerRelations maps the verbs people ask graph questions with to the
// stems of the relations that answer them.
var answerRelations = func() map[string][]string {
	m := make(map[string][]string)
	for _, group := range strings.Split("sell make provide produce supply supplier: supply supplier|buy purchase order: buy order purchase", "|") {
		verbs, rels, _ := strings.Cut(group, ":")
		for _, v := range strings.Fields(verbs) {
			for _, r := range strings.Fields(rels) {
				m[words.Stem(v)] = append(m[words.Stem(v)], words.Stem(r))
			}
		}
	}
	return m
}()

// states reports whether w states the kind of answer asked for.
func (f questionFocus) states(w answerPlace) bool {
	switch f.kind {
	case "":
		return true
	case "when":
		return answerTimeNumber.MatchString(w.text) || slices.ContainsFunc(w.toks, func(t words.Token) bool {
			return statesWhen(t) && !f.asks(t) // "during summer hours" does not say when summer hours are
		})
	case "who":
		return f.statesName(w.toks)
	}
	nums := words.Numbers(codes.ReplaceAllString(w.text, " ")) // "SEV-1" is no amount
	amount := len(nums) > 0
	for i := range w.toks {
		amount = amount || amountAt(w.toks, i)
	}
	if f.kind == "how many" || f.kind == "how much" || !amount {
		return amount
	}
	// "How long", "how big": an amount of something, with a unit.
	if moneyOrShare.MatchString(w.text) {
		return true
	}
	for i, t := range w.toks {
		if unit := strings.TrimLeft(t.Lower, "0123456789.,"); unit != t.Lower && unit != "" {
			if isA(unit, "unit of measurement") {
				return true // "64kb"
			}
			continue
		}
		if !words.IsDigits(t.Lower) && !amountAt(w.toks, i) && t.Lower != "a" && t.Lower != "an" {
			continue
		}
		for _, u := range w.toks[i+1 : min(len(w.toks), i+4)] {
			// Not a small word: WordNet reads "a" as ampere and "in" as inch.
			if !words.IsFiller(u.Lower) && isA(u.Lower, "unit of measurement", "time unit", "time period") {
				return true
			}
		}
	}
	return false
}

// amountAt reports whether toks[i] states an amount without digits: a
// word of frequency or bound ("twice", "the minimum", "unlimited"), or a
// number ("ten", "a dozen", "a few") before a word that is not a stopword:
// "ten days" does, "a loved one, you can" does not.
func amountAt(toks []words.Token, i int) bool {
	w := toks[i].Lower
	switch {
	case w == "once" || w == "twice" || w == "unlimited" || asksLimit(w) || isA(w, "proportion"):
		return true
	case words.IsDigits(w) || !isA(w, "integer", "fraction") && w != "few" && w != "several":
		return false
	}
	return i+1 < len(toks) && !words.IsFiller(toks[i+1].Lower)
}

// moneyOrShare matches an amount of money or a percentage.
var moneyOrShare = regexp.MustCompile(`[$€£¥]\s?\d|\d\s?%`)

// codes match identifiers that hold digits ("SEV-1", "P0", "x509"): their
// numbers name something, they are no amount.
var codes = regexp.MustCompile(`\b[A-Za-z]+[-_]?\d+[A-Za-z0-9]*\b`)

// answerTimeNumber matches a number that says when or how long: a year, a
// clock time, a day of the month, a span ("within 30 days").
var answerTimeNumber = regexp.MustCompile(`(?i)\b(?:(?:19|20)\d\d|\d{1,2}(?::\d\d|\s?[ap]\.?m\b)|\d{1,2}(?:st|nd|rd|th)\b|\d+(?:\.\d+)?\s+(?:business\s+|working\s+|calendar\s+)?(?:minutes?|hours?|days?|weeks?|months?|years?)\b)`)

// statesWhen reports whether a word says when without digits: a month, a
// weekday, a time of day, or a frequency made from a unit of time
// ("nightly"). A period alone ("a holiday", "summer") does not.
func statesWhen(t words.Token) bool {
	switch {
	case words.IsStop(t.Lower):
		return false // "may"
	case isA(t.Lower, "time of day", "day of the week", "calendar month"):
		return true
	case lexicon.Usually(t.Lower) == lexicon.Noun:
		return false
	}
	return slices.ContainsFunc(lexicon.Derived(t.Lower), func(d string) bool { return isA(d, "time unit", "time period") })
}

// statesName reports whether the tokens name someone other than the
// question's names: a person or group as WordNet knows them ("your
// manager"), a name, or a run of two capitalised words.
func (f questionFocus) statesName(toks []words.Token) bool {
	asked := func(t words.Token) bool {
		return slices.ContainsFunc(f.names, func(n words.Token) bool { return n.Lower == t.Lower })
	}
	for i, t := range toks {
		switch {
		case asked(t):
		case isA(t.Lower, "person", "social group"), isName(t, i == 0):
			return true
		case i+1 < len(toks) && startsName(t.Text, false) && startsName(toks[i+1].Text, false) && !words.IsFiller(t.Lower) && !asked(toks[i+1]):
			return true
		}
	}
	return false
}

// asks reports whether t is one of the question's focus words.
func (f questionFocus) asks(t words.Token) bool {
	return slices.ContainsFunc(f.terms, func(k keyword) bool { return k.Stem == t.Stem || k.Lower == t.Lower })
}

// describe says what an answer does not cover, completing "I found
// related text but nothing that says …": the names found nowhere, the
// terms missed with the terms written next to them that are missing too
// (or, when wide, any: "jury duty"), and the kind of answer not given.
func (f questionFocus) describe(names []string, missing []int, kind string, wide bool) string {
	var about []string
	add := func(s string) {
		if !slices.ContainsFunc(about, func(a string) bool { return strings.EqualFold(a, s) }) && len(about) < 4 {
			about = append(about, s)
		}
	}
	for _, n := range names {
		add(n)
	}
	joins := func(k int) bool { return wide || slices.Contains(missing, k) }
	done := -1 // the last term named, with its neighbours
	for _, i := range missing {
		if i <= done {
			continue
		}
		lo, hi := i, i
		for lo > done+1 && f.pos[lo-1] == f.pos[lo]-1 && joins(lo-1) {
			lo--
		}
		for hi+1 < len(f.pos) && f.pos[hi+1] == f.pos[hi]+1 && joins(hi+1) && hi-lo < 3 {
			hi++
		}
		done = hi
		var ws []string
		for _, k := range f.terms[lo : hi+1] {
			ws = append(ws, k.Text)
		}
		add(strings.Join(ws, " "))
	}
	var parts []string
	if len(about) > 0 {
		for i := range about {
			about[i] = "“" + about[i] + "”"
		}
		parts = append(parts, "anything about "+joinList(about, "or"))
	}
	if kind != "" {
		parts = append(parts, kind)
	}
	return strings.Join(parts, ", or ")
}
