package offline

import (
	"github.com/switchboard/switchboard/kb/words"
	"github.com/switchboard/switchboard/lexicon"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// The answering check. Grounding asks whether every sentence of an answer
// is in its sources; this asks whether those sentences are about what was
// asked. An extractive answer can quote its sources faithfully and still
// miss: "Do we get paid leave for jury duty?" finds every sentence about
// paid leave, and none of them says a word about jury duty.
//
// Offline, "about" can only mean "in the same words". The check reads the
// question's focus (focusOf): its topic words without the words that only
// shape the question ("is there", "allowed", "how many"), the names it
// mentions, the numbers it states and the kind of answer it asks for (an
// amount, a time, a person). The answer's supported sentences answer the
// question when (answersFocus):
//
//   - every name of the question (a capitalised word inside it, an
//     acronym) occurs in the sentences or in the documents;
//   - one place in the answer — a sentence or two that follow each other;
//     all the rows of a graph answer — covers at least answerShare of the
//     weight of the other focus words and numbers, directly or through a
//     synonym; with one or two specific words, all of them; and any
//     superlative ("the highest level");
//   - that place states the kind of answer asked for: a number or an
//     amount word for how many, how much, how long or a cap; a date, a
//     time or a span for when; a name or a role other than the question's
//     own for who; for graph rows, the relation asked about ("sells" is
//     answered by SUPPLIES, not by BUYS);
//   - for a yes/no question, every specific focus word occurs somewhere
//     in the documents: if none mentions jury duty, no sentence of theirs
//     can say whether it is paid.
//
// This is weaker than a model's reading in both directions: a paraphrase
// that shares no word with the question ("rolls over" for "carry over")
// fails, and a sentence that merely repeats the question's words passes.
// So the agent never gives an offline answer the high badge
// (agent/result.go, offlineHigh); this check decides between medium and
// partial.

// answerShare is the share of the focus weight the answer must cover.
// Two thirds: "How long do I have to wait before long-term disability
// starts paying?" is answered by "a 90 day waiting period for Long Term
// Disability" (wait, long, term, disability: 4 of 6 words), while "paid
// leave" alone answers half of "paid leave for jury duty".
const answerShare = 2.0 / 3

// questionFrameWords shape a question without naming its topic: they say what
// kind of answer is wanted ("allowed", "possible"), or are verbs so
// general that an answer need not repeat them. They are left out of the
// focus, as stopwords are.
var questionFrameWords = setOf(`allowed allow able possible okay special anything exist exists available
kind kinds type types sort happen happens happened need needed required require requires supposed
expected mean means exactly actually usually currently ok right correct true false
there whats apply applies may`)

// questionNumberWords are the number words a question may state a number in;
// "one" is left out ("which one").
var questionNumberWords = map[string]string{
	"two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
	"nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "twenty": "20", "thirty": "30",
	"forty": "40", "fifty": "50", "sixty": "60", "ninety": "90", "hundred": "100",
}

// yesNoOpeners open a yes/no question.
var yesNoOpeners = setOf(`do does did is are was were can could will would should may might must has have
shall am`)

// capWords ask for a cap: the answer must state an amount ("up to
// $3,000 per week", "only a few hours a week").
var capWords = setOf(`limit limits limited cap caps capped ceiling maximum max minimum min`)

// quantityAnswerWords state an amount without digits. Number words count
// only before a word that is not a stopword ("ten days", "a few hours"):
// "a loved one, you can" states no amount.
var quantityAnswerWords = setOf(`one two three four five six seven eight nine ten eleven twelve
thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy
eighty ninety hundred thousand million half quarter dozen few several`)

// answerAmountWords state an amount on their own.
var answerAmountWords = setOf(`once twice percent unlimited maximum max minimum capped`)

// focusSuperlatives are the point of a question that has one: "the highest
// title level" is not answered by a sentence about levels. A focus word
// among them must be covered.
var focusSuperlatives = setOf(`highest lowest biggest largest smallest fastest slowest earliest latest oldest
newest longest shortest cheapest best worst top most least first last maximum minimum`)

// focus is what a question asks about.
type questionFocus struct {
	terms    []keyword     // topic words, stemmed; generic ones weigh half
	spans    []focusSpan   // where each term was written in the question, for Missing
	names    []words.Token // capitalised words and acronyms of the question
	numbers  []string      // the numbers it states, canonical
	numText  []string      // the same as written, for Missing
	quantity bool          // asks how many, how much, how long, or for a cap
	when     bool          // asks when
	who      bool          // asks who
	polar    bool          // a yes/no question: "Do we …?", "Is there …?"
	how      string        // the "how many" words as written, for Missing
}

// focusSpan is one focus term as written in the question.
type focusSpan struct {
	pos  int // token index in the question
	text string
}

// focusOf reads the focus of a question. Only the asking parts give the
// focus its words; the scene's names still locate the answer ("I'm in
// Massachusetts. How long is paid leave?" asks about Massachusetts). When
// the asking part names no topic of its own ("… 'span of control' — what
// does that refer to?"), the scene is what it asks about.
func focusOf(question string) questionFocus {
	all, asks := asking(question)
	f := focusIn(all, asks)
	for _, k := range f.terms {
		if !k.chat && !f.isNameTerm(k) {
			return f
		}
	}
	if len(asks) < len(all) {
		if m := quoted.FindStringSubmatch(clip(question, maxQuestion)); m != nil {
			// "someone said 'wilco' on the bridge, what's that mean?":
			// "that" is the quoted word, not the bridge.
			q := focusIn([]string{m[1]}, []string{m[1]})
			q.quantity, q.when, q.who, q.polar, q.how = f.quantity, f.when, f.who, f.polar, f.how
			return q
		}
		f = focusIn(all, all)
	}
	return f
}

// focusIn reads the focus of a question split into parts, of which asks
// are the asking ones.
func focusIn(all, asks []string) questionFocus {
	var f questionFocus
	var toks []words.Token
	var starts []bool // toks[i] starts a sentence of the question
	for _, sent := range all {
		ask := slices.Contains(asks, sent)
		for k, t := range words.Tokens(sent) {
			if ask || isQuestionName(t, k == 0) {
				toks = append(toks, t)
				starts = append(starts, k == 0)
			}
		}
	}
	for _, t := range toks {
		if n, ok := questionNumberWords[t.Lower]; ok {
			f.numbers = append(f.numbers, n) // "six weeks" asks about 6
			f.numText = append(f.numText, t.Text)
		}
	}
	for _, n := range words.Numbers(codes.ReplaceAllString(strings.Join(asks, " "), " ")) { // not the scene's ("five years now"), nor a code's ("EDNS0")
		f.numbers = append(f.numbers, n)
		f.numText = append(f.numText, n)
	}
	if len(toks) > 0 && yesNoOpeners[toks[0].Lower] {
		f.polar = true
	}
	seen := make(map[string]bool)
	for i, t := range toks {
		next := ""
		if i+1 < len(toks) && !starts[i+1] {
			next = toks[i+1].Lower
		}
		switch {
		case t.Lower == "how":
			switch next {
			case "many", "much", "long", "often", "far", "soon", "old", "big", "large", "high", "low", "fast", "quickly", "early", "late":
				f.quantity = true
				f.how = "how " + next
			}
		case t.Lower == "when" && starts[i] && (next == "" || yesNoOpeners[next]):
			// "When is …?", "when do …?" ask for a time; "when a
			// build fails, does it …?" sets a condition.
			f.when = true
		case t.Lower == "what" || t.Lower == "which":
			switch next {
			case "time", "date", "day", "month", "year", "deadline":
				f.when = true
			case "percentage", "percent", "share", "amount", "number", "rate", "price", "cost":
				f.quantity = true
			}
		case (t.Lower == "who" || t.Lower == "whom" || t.Lower == "whose") && starts[i]:
			f.who = true
		case capWords[t.Lower]:
			f.quantity = true
		case t.Lower == "deadline" || t.Lower == "due":
			f.when = true
		case i > 0 && toks[i-1].Lower == "in" && !words.IsFiller(t.Lower) && isA(t.Lower, "unit of measurement", "time unit"):
			f.quantity = true // "the delivery SLA, in seconds?" asks for a number
			f.how = "how many " + t.Lower
		}
		if isQuestionName(t, starts[i]) {
			f.names = append(f.names, t)
		}
		if words.IsFiller(t.Lower) || questionFrameWords[t.Lower] || capWords[t.Lower] || len(t.Lower) < 2 || words.IsDigits(t.Lower) || seen[t.Stem] {
			continue
		}
		if i > 0 && !starts[i] {
			switch prev := toks[i-1].Lower; {
			case prev == "how":
				continue // "how long": the kind of answer, not its topic
			case (prev == "what" || prev == "which") && (f.when || f.quantity):
				continue // "what time", "what share": the kind of answer
			}
		}
		seen[t.Stem] = true
		w := 1.0
		if vague(t.Lower) {
			w = 0.5
		}
		t.Stem = lemma(t)
		f.terms = append(f.terms, keyword{Token: t, weight: w, chat: chattyAt(toks, i)})
		f.spans = append(f.spans, focusSpan{pos: i, text: t.Text})
		if len(f.terms) >= maxKeywords {
			break
		}
	}
	return f
}

// leadInEnd matches where a chatty lead-in ends: a dash, a colon, or a
// sentence end ("I'm on a compressed schedule — can I earn credit
// hours?", "we're expecting a baby! how much leave do I get?").
var leadInEnd = regexp.MustCompile(`\s[—–-]+\s|:\s|[.!?]\s`)

// asking splits a question into parts and returns them with those that
// ask: the parts that end in a question mark, or all of them if none does. The others set the scene
// ("I've been here five years now") and the answer need not repeat them;
// the question's words still find the documents.
func asking(question string) (parts, asks []string) {
	for _, line := range strings.Split(clip(question, maxQuestion), "\n") {
		rest := line
		for range maxSentences {
			loc := leadInEnd.FindStringIndex(rest)
			if loc == nil {
				break
			}
			parts = append(parts, rest[:loc[0]+1])
			rest = rest[loc[1]:]
		}
		// "as internal liaison, are there …?", "if a dependency sets
		// it, does it apply?": a clause before a comma that a question
		// follows sets the scene.
		if i := strings.LastIndex(rest, ", "); i > 0 && opensQuestion(rest[i+2:]) {
			parts = append(parts, rest[:i+1])
			rest = rest[i+2:]
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

// opensQuestion reports whether s starts as a question does: a question
// word or the verb of a yes/no question.
func opensQuestion(s string) bool {
	first, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(s)), " ")
	switch first {
	case "what", "whats", "what's", "which", "who", "whose", "whom", "when", "where", "why", "how":
		return true
	}
	return yesNoOpeners[first]
}

// isQuestionName reports whether a token of the question names something: an
// acronym anywhere ("FSA", "EU"), or a capitalised word that does not
// start a sentence ("Massachusetts", "Bitcoin"). "I" and stopwords are
// not names.
func isQuestionName(t words.Token, startsSentence bool) bool {
	if words.IsFiller(t.Lower) || questionFrameWords[t.Lower] || len(t.Lower) < 2 || words.IsDigits(t.Lower) {
		return false
	}
	upper, lower := 0, 0
	for _, r := range t.Text {
		switch {
		case unicode.IsUpper(r):
			upper++
		case unicode.IsLower(r):
			lower++
		}
	}
	if upper >= 2 && lower == 0 {
		return true // an acronym
	}
	if startsSentence {
		return false
	}
	r := []rune(t.Text)
	return len(r) > 0 && unicode.IsUpper(r[0])
}

// answerCoverage is what an answer's sentences cover of a focus.
type answerCoverage struct {
	answers bool
	loose   bool   // answers, with a word of the question missing: the badge is low
	missing string // what is not covered, for Verdict.Missing
}

// answerPlace is what one or two consecutive sentences of an answer hold.
type answerPlace struct {
	set   map[string]bool // stems; irregular forms also as their base's
	words map[string]bool // lowercase words
	toks  []words.Token
	nums  []string
	text  string
}

func newAnswerPlace(text string) answerPlace {
	w := answerPlace{set: make(map[string]bool), words: make(map[string]bool), toks: words.Tokens(text), nums: words.Numbers(text), text: text}
	for _, t := range w.toks {
		w.set[t.Stem] = true
		w.set[lemma(t)] = true
		for _, v := range family(t.Lower) {
			w.set[v] = true
		}
		w.words[t.Lower] = true
	}
	return w
}

// answersFocus checks the answer's supported sentences (without
// citations) against the focus of the question; docs is the text of the
// documents the answer was written from. See the rules above.
//
// The focus must be found in one place, because an answer whose first
// sentence says "paid leave" and whose last says "active duty" has said
// nothing about jury duty; graph rows are one place. Names may be found
// anywhere in the documents, since a section about Massachusetts need not
// repeat the state in every sentence.
func answersFocus(f questionFocus, sentences []string, docs string, titles map[string]bool) answerCoverage {
	in := newAnswerPlace(docs)
	var absent []int // specific words of a yes/no question that no document contains
	if f.polar {
		for i, k := range f.terms {
			if k.weight == 1 && !f.isNameTerm(k) && !f.optional(k) && !coversTerm(in, k) {
				absent = append(absent, i)
			}
		}
	}
	var names []string // names found nowhere
	for _, n := range f.names {
		if !in.set[n.Stem] && !in.words[n.Lower] && !inAnySentence(sentences, n) {
			names = append(names, n.Text)
		}
	}
	if len(sentences) == 0 {
		return answerCoverage{missing: describeMissingFocus(f, names, f.termIndexes(), f.kind(), false)}
	}

	rows := false // the answer lists graph rows
	for _, st := range sentences {
		rows = rows || strings.Contains(st, "]->") || strings.Contains(st, "<-[")
	}
	// The places: a sentence, or two that follow each other. Graph rows
	// are read as one place: the query chose them together, the lead
	// rows ("Top 3 customers by revenue") giving the others their sense.
	var places []string
	if rows {
		places = []string{strings.Join(sentences, " \n")}
	} else {
		for i := range sentences {
			for n := 1; n <= 2 && i+n <= len(sentences); n++ {
				places = append(places, strings.Join(sentences[i:i+n], " \n"))
			}
		}
	}
	var best []int        // the terms the best place misses
	var bestNums []string // and the numbers
	bestShare, bestKind := -1.0, f.kind()
	loose := false // a place answers, but without every word asked about
	for _, text := range places {
		w := newAnswerPlace(text)
		for k := range titles {
			w.set[k] = true // the title is what every sentence of the document is about
		}
		share, missing, nums := f.termsAndNumbersIn(w)
		kind := f.kindMissing(w)
		if f.termsOK(share, missing) && len(nums) == 0 && kind == "" && (!rows || f.relationsIn(w)) && len(names) == 0 && len(absent) == 0 {
			if !f.missesTopic(missing) {
				return answerCoverage{answers: true}
			}
			loose = true
		}
		if share > bestShare || (share == bestShare && kind == "" && bestKind != "") {
			best, bestShare, bestKind, bestNums = missing, share, kind, nums
		}
	}
	if loose {
		return answerCoverage{answers: true, loose: true}
	}
	var miss []int
	switch {
	case len(absent) > 0:
		miss = absent // the most telling: the documents never mention it
	case !f.termsOK(bestShare, best) || len(bestNums) > 0:
		miss = best
		names = append(names, bestNums...)
	}
	return answerCoverage{missing: describeMissingFocus(f, names, miss, bestKind, len(absent) > 0)}
}

// coversTerm reports whether keyword k, or a synonym of it, is in w.
func coversTerm(w answerPlace, k keyword) bool {
	ok, _ := matchIn(k, w.set)
	return ok
}

// statesRelation reports whether w holds a relation that answers the
// verb k ("sells": SUPPLIES).
func statesRelation(w answerPlace, k keyword) bool {
	for _, r := range answerRelations[k.Stem] {
		if w.set[r] {
			return true
		}
	}
	return false
}

// relationsIn reports whether a place of graph rows states the relation
// the question asks about: "Who sells us Ipoh Coffee?" is not answered by
// the rows of the customers who buy it, though they name Ipoh Coffee.
func (f questionFocus) relationsIn(w answerPlace) bool {
	for _, k := range f.terms {
		if _, ok := answerRelations[k.Stem]; ok && !statesRelation(w, k) {
			return false
		}
	}
	return true
}

// answerRelations maps the verbs people ask graph questions with to the
// stems of the relations that answer them.
var answerRelations = func() map[string][]string {
	table := map[string]string{
		"sell": "supply supplier", "make": "supply supplier", "provide": "supply supplier",
		"produce": "supply supplier", "supply": "supply supplier", "supplier": "supply supplier",
		"buy": "buy order purchase", "purchase": "buy order purchase",
		"order": "buy order purchase",
	}
	m := make(map[string][]string, len(table))
	for k, v := range table {
		var stems []string
		for _, w := range strings.Fields(v) {
			stems = append(stems, words.Stem(w))
		}
		m[words.Stem(k)] = stems
	}
	return m
}()

func inAnySentence(sentences []string, n words.Token) bool {
	for _, s := range sentences {
		if stemSet(s)[n.Stem] {
			return true
		}
	}
	return false
}

// termIndexes lists every focus term.
func (f questionFocus) termIndexes() []int {
	out := make([]int, len(f.terms))
	for i := range out {
		out[i] = i
	}
	return out
}

// termsAndNumbersIn returns the share of the focus weight (the words that
// are not names, and the numbers the question states) that w coversTerm,
// the words it misses, and the numbers of the question that w lacks, as
// written. A synonym counts synonymShare.
func (f questionFocus) termsAndNumbersIn(w answerPlace) (share float64, missing []int, nums []string) {
	var got, total float64
	for i, k := range f.terms {
		if f.isNameTerm(k) || f.optional(k) {
			// Names locate the answer, the other words ask: every
			// document retrieved for "Who hosts Brightline Cloud?" names
			// Brightline Cloud, and only a sentence about hosting answers.
			continue
		}
		total += k.weight
		ok, via := matchIn(k, w.set)
		if !ok && statesRelation(w, k) {
			ok = true // "sells" in the question, SUPPLIES in the row
		}
		switch {
		case !ok:
			missing = append(missing, i)
		case via != "":
			got += synonymShare * k.weight
		default:
			got += k.weight
		}
	}
	for i, n := range f.numbers {
		total++
		if hasCanonicalNumber(w.nums, n) {
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

// termsOK decides on a place's term coverage: answerShare of the weight,
// and with one or two specific words, all of them ("parental leave" is not
// answered by "leave" alone).
func (f questionFocus) termsOK(share float64, missing []int) bool {
	if share < answerShare-1e-9 {
		return false
	}
	for _, i := range missing {
		if focusSuperlatives[f.terms[i].Lower] {
			return false
		}
	}
	specific := 0
	for _, k := range f.terms {
		if k.weight == 1 && !f.isNameTerm(k) && !f.optional(k) {
			specific++
		}
	}
	if specific > 2 {
		return true
	}
	for _, i := range missing {
		if f.terms[i].weight == 1 && !f.isNameTerm(f.terms[i]) {
			return false
		}
	}
	return true
}

// missesTopic reports whether missing holds a word that names what the
// question is about (not a chatty word, a vague word or a name).
func (f questionFocus) missesTopic(missing []int) bool {
	for _, i := range missing {
		if k := f.terms[i]; !k.chat && k.weight == 1 && !f.isNameTerm(k) {
			return true
		}
	}
	return false
}

// optional reports whether a focus term need not be in the answer: a
// chatty word (a verb, adjective or adverb, or a vague word: "goes",
// "actually", "spins") when the question has other words that say what it
// is about. "Who runs the postmortem meeting?" is answered by a sentence
// that says who leads it; the thing asked about is the meeting. The
// numbers a question states are never optional ("six weeks").
func (f questionFocus) optional(k keyword) bool {
	if (f.when || f.quantity) && isA(k.Lower, "time unit", "time period") {
		// "Which day of the week?", "how many hours a day?": a unit of
		// time in a question that asks for a time or an amount names the
		// kind of answer, not its topic.
		return true
	}
	if f.polar || !k.chat || focusSuperlatives[k.Lower] {
		// A yes/no question asks whether its verb holds: "Can I carry
		// vacation over?" is not answered by a sentence about vacation.
		return false
	}
	for _, o := range f.terms {
		if !f.isNameTerm(o) && !o.chat {
			return true
		}
	}
	return false
}

// isNameTerm reports whether focus term k is one of the question's names.
func (f questionFocus) isNameTerm(k keyword) bool {
	for _, n := range f.names {
		if n.Lower == k.Lower {
			return true
		}
	}
	return false
}

// kind is the kind of answer asked for, as it is named in Missing.
func (f questionFocus) kind() string {
	switch {
	case f.quantity:
		if f.how != "" {
			return f.how
		}
		return "how much"
	case f.when:
		return "when"
	case f.who:
		return "who"
	}
	return ""
}

// kindMissing returns f.kind() when w does not state that kind of thing.
func (f questionFocus) kindMissing(w answerPlace) string {
	switch {
	case f.quantity && !answerStatesQuantity(w.toks, words.Numbers(codes.ReplaceAllString(w.text, " "))):
	case f.how == "how long" && !statesDuration(w.toks):
	case (f.how == "how big" || f.how == "how large") && !statesMeasure(w):
	case f.how == "how far" && !statesMeasure(w) && !statesDuration(w.toks): // "how far in advance"
	case f.when && !f.statesTime(w):
	case f.who && !f.statesName(w.toks):
	default:
		return ""
	}
	return f.kind()
}

// hasCanonicalNumber reports whether nums holds the canonical number n.
func hasCanonicalNumber(nums []string, n string) bool {
	for _, m := range nums {
		if m == n {
			return true
		}
	}
	return false
}

// statesDuration reports whether the text states a span of time: a number
// or an amount word before a unit or period of time ("30 days", "a full
// week", "a few hours"). "How long do we keep recordings?" is not answered by "January
// 2017".
func statesDuration(toks []words.Token) bool {
	for i, t := range toks {
		amount := words.IsDigits(strings.TrimRight(t.Lower, "+")) || quantityAnswerWords[t.Lower] || t.Lower == "a" || t.Lower == "an"
		for j := i + 1; amount && j < len(toks) && j <= i+3; j++ {
			if isA(toks[j].Lower, "time unit", "time period") {
				return true
			}
		}
	}
	return false
}

// statesMeasure reports whether the text states a size or a distance: a
// number before a unit of measurement ("8 KB", "2 miles", "1,000
// dollars"), with its unit written on ("64kb"), an amount of money or a
// percentage ("$400,000", "20%"). "How big is a goroutine's stack?" is
// not answered by "Go 1.26" or "debug=2".
func statesMeasure(w answerPlace) bool {
	if moneyOrShare.MatchString(w.text) {
		return true
	}
	toks := w.toks
	for i, t := range toks {
		digits := strings.TrimLeft(t.Lower, "0123456789.,")
		if digits == t.Lower {
			continue
		}
		if digits != "" {
			if isA(digits, "unit of measurement") {
				return true
			}
			continue
		}
		for j := i + 1; j < len(toks) && j <= i+2; j++ {
			// Not a small word: WordNet reads "a" as ampere and "in" as inch.
			if !words.IsFiller(toks[j].Lower) && isA(toks[j].Lower, "unit of measurement") {
				return true
			}
		}
	}
	return false
}

// moneyOrShare matches an amount of money or a percentage written with a
// sign.
var moneyOrShare = regexp.MustCompile(`[$€£¥]\s?\d|\d\s?%`)

// codes match identifiers that hold digits ("SEV-1", "P0", "GS-15",
// "R30", "x509"): their numbers name something, they are no amount.
var codes = regexp.MustCompile(`\b[A-Za-z]+[-_]?\d+[A-Za-z0-9]*\b`)

func answerStatesQuantity(toks []words.Token, nums []string) bool {
	if len(nums) > 0 {
		return true
	}
	for i, t := range toks {
		if answerAmountWords[t.Lower] {
			return true
		}
		if quantityAnswerWords[t.Lower] && i+1 < len(toks) && !words.IsFiller(toks[i+1].Lower) {
			return true
		}
	}
	return false
}

// answerTimeNumber matches a number that says when: a year, a clock time, a
// day of the month, or a focusSpan ("within 30 days", "after 2 years"). A
// number of another kind ("a 40-hour week") does not.
var answerTimeNumber = regexp.MustCompile(`(?i)\b(?:(?:19|20)\d\d|\d{1,2}(?::\d\d|\s?[ap]\.?m\b)|\d{1,2}(?:st|nd|rd|th)\b|\d+(?:\.\d+)?\s+(?:business\s+|working\s+|calendar\s+)?(?:minutes?|hours?|days?|weeks?|months?|years?)\b)`)

// statesWhen reports whether a word says when without digits: a month, a
// weekday, a time of day (noon, midnight), or a frequency made from a
// unit of time (daily, weekly). A period alone does not ("a holiday",
// "summer", "the work week"), nor do "during" and "before".
func statesWhen(t words.Token) bool {
	if words.IsStop(t.Lower) {
		return false // "may"
	}
	if isA(t.Lower, "time of day", "day of the week", "calendar month") {
		return true
	}
	if lexicon.Usually(t.Lower) == lexicon.Noun {
		return false
	}
	for _, d := range lexicon.Derived(t.Lower) {
		if isA(d, "time unit", "time period") {
			return true
		}
	}
	return false
}

// statesTime reports whether w says when, in words other than the
// question's own: "When are summer hours?" is not answered by "during
// summer hours".
func (f questionFocus) statesTime(w answerPlace) bool {
	for _, t := range w.toks {
		if statesWhen(t) && !f.asks(t) {
			return true
		}
	}
	return answerTimeNumber.MatchString(w.text)
}

// statesName reports whether the text names someone other than the
// names of the question: a capitalised word that does not start a
// sentence, a run of two capitalised words, an acronym, or a role ("your
// manager"). "Who hosts Brightline Cloud?" is not answered by sentences
// that only name Brightline Cloud.
func (f questionFocus) statesName(toks []words.Token) bool {
	asked := make(map[string]bool, len(f.names))
	for _, n := range f.names {
		asked[n.Lower] = true
	}
	for i, t := range toks {
		if asked[t.Lower] {
			continue
		}
		if isA(t.Lower, "person", "social group") {
			return true
		}
		if isQuestionName(t, i == 0) {
			return true
		}
		if i+1 < len(toks) && startsUpper(t.Text) && startsUpper(toks[i+1].Text) && !words.IsFiller(t.Lower) && !asked[toks[i+1].Lower] {
			return true
		}
	}
	return false
}

// asks reports whether t is one of the question's focus words.
func (f questionFocus) asks(t words.Token) bool {
	for _, k := range f.terms {
		if k.Stem == t.Stem || k.Lower == t.Lower {
			return true
		}
	}
	return false
}

func startsUpper(s string) bool {
	for _, r := range s {
		return unicode.IsUpper(r)
	}
	return false
}

// describeMissingFocus says what an answer does not cover, in words that
// complete "I found related text but nothing that says …": the names found
// nowhere, the focus words missed (with the words next to them in the
// question: "jury duty", not "jury"), and the kind of answer not given
// ("how long").
func describeMissingFocus(f questionFocus, names []string, missing []int, kind string, wide bool) string {
	var about []string
	seen := make(map[string]bool)
	add := func(s string) {
		if k := strings.ToLower(s); !seen[k] {
			seen[k] = true
			about = append(about, s)
		}
	}
	for _, n := range names {
		add(n)
	}
	for _, i := range missing {
		if len(about) >= 4 {
			break
		}
		add(f.phraseAround(i, missing, wide))
	}
	var parts []string
	if len(about) > 0 {
		parts = append(parts, "anything about "+quoteAll(about))
	}
	if kind != "" {
		parts = append(parts, kind)
	}
	return strings.Join(parts, ", or ")
}

// phraseAround returns focus term i with the terms written next to it in
// the question that are missing too, or, when wide, with every focus term
// next to it: a word no document contains is best named with its compound
// ("jury duty", "gym membership").
func (f questionFocus) phraseAround(i int, missing []int, wide bool) string {
	miss := make(map[int]bool, len(missing))
	for _, m := range missing {
		miss[m] = true
	}
	joins := func(k int) bool { return wide || miss[k] }
	lo, hi := i, i
	for lo > 0 && f.spans[lo-1].pos == f.spans[lo].pos-1 && joins(lo-1) {
		lo--
	}
	for hi+1 < len(f.spans) && f.spans[hi+1].pos == f.spans[hi].pos+1 && joins(hi+1) {
		hi++
	}
	words := make([]string, 0, hi-lo+1)
	for k := lo; k <= hi && len(words) < 4; k++ {
		words = append(words, f.spans[k].text)
	}
	return strings.Join(words, " ")
}

// quoteAll writes “a”, “b” or “c”.
func quoteAll(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = "“" + s + "”"
	}
	switch len(q) {
	case 0:
		return ""
	case 1:
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
