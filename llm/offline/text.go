package offline

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/switchboard/switchboard/internal/text"
	"github.com/switchboard/switchboard/kb/words"
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
	maxEntities  = 20    // entity names taken from the graph's index
)

// clip returns at most n bytes of s, cut at a rune boundary: the prefix
// the limits above allow. It is text.ClipBytes under a short name, as the
// package has many variables called text.
func clip(s string, n int) string { return text.ClipBytes(s, n) }

// token is one word of a text: as written, lowercased, and stemmed.
type token struct {
	text  string // as written, e.g. "Suppliers"
	lower string // "suppliers"
	stem  string // "supplier"
}

var apostrophes = strings.NewReplacer("'", "", "’", "")

// tokens splits s into words of letters and digits, skipping URLs. An
// apostrophe inside a word is dropped ("don't" is "dont") and a trailing
// "'s" removed ("Acme's" is "acme"), so possessives match the bare name.
func tokens(s string) []token {
	var out []token
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := strings.Trim(s[start:end], "'’")
		start = -1
		if w == "" {
			return
		}
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		lower := strings.ToLower(w)
		if strings.ContainsAny(lower, "'’") {
			lower = apostrophes.Replace(lower)
		}
		if lower == "" {
			return
		}
		st := stem(lower)
		if isAcronymPlural(w) {
			st = lower[:len(lower)-1] // "CVs" is CV, "APIs" API
		}
		out = append(out, token{text: w, lower: lower, stem: st})
	}
	for i := 0; i < len(s); {
		if start < 0 && (strings.HasPrefix(s[i:], "http://") || strings.HasPrefix(s[i:], "https://")) {
			// A URL is an address, not words: "…/employees/apply" must
			// not make a sentence about employees.
			end := strings.IndexAny(s[i:], " \t\n)>]\"")
			if end < 0 {
				break
			}
			i += end
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’' {
			if start < 0 {
				start = i
			}
		} else {
			flush(i)
		}
		i += n
	}
	flush(len(s))
	return out
}

// isAcronymPlural reports whether w is an acronym with a plural s: two or
// more capitals and a lowercase s ("CVs", "KPIs").
func isAcronymPlural(w string) bool {
	if len(w) < 3 || w[len(w)-1] != 's' {
		return false
	}
	for i := 0; i < len(w)-1; i++ {
		if w[i] < 'A' || w[i] > 'Z' {
			return false
		}
	}
	return true
}

// stem strips the commonest English suffixes so that "policies", "policy",
// "supplied" and "supplies" meet. It is deliberately naive: stems are only
// compared with other stems, never shown, so "stor" for store/storing/stored
// is fine. Words of three letters or fewer, and numbers, are left alone.
func stem(w string) string {
	if len(w) <= 3 || isDigits(w) {
		return w
	}
	verbal := false // -ing or -ed was cut, leaving no doubled letter
	switch {
	case (strings.HasSuffix(w, "ies") || strings.HasSuffix(w, "ied")) && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "zes") ||
		strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ing") && len(w) >= 6:
		base := w[:len(w)-3]
		w = undouble(base)
		verbal = w == base
	case strings.HasSuffix(w, "ed") && len(w) >= 5:
		base := w[:len(w)-2]
		w = undouble(base)
		verbal = w == base
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") &&
		!strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	switch {
	case keepFinalE[w]:
		return w // "plane" is not "plan"
	case verbal && keepFinalE[w+"e"]:
		return w + "e" // "noted" is "note"
	}
	// A final e comes and goes with suffixes (store, storing), so drop it.
	if len(w) > 3 && w[len(w)-1] == 'e' {
		w = w[:len(w)-1]
	}
	return w
}

// keepFinalE are the words whose final e stem keeps, because without it
// they are another common word: plane and plan, site and sit, care and car.
var keepFinalE = setOf(`plane site note hope care fare bare`)

// undouble turns "shipp" (from shipping) into "ship", but keeps the double
// letters English keeps at the end of a word (bill, pass, buzz).
func undouble(w string) string {
	n := len(w)
	if n >= 3 && w[n-1] == w[n-2] && !strings.ContainsRune("lsz", rune(w[n-1])) && isLetterASCII(w[n-1]) {
		return w[:n-1]
	}
	return w
}

func isLetterASCII(c byte) bool { return c >= 'a' && c <= 'z' }

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// stopwords carry no topic: the stores' stopwords (kb/words), so that the
// engine never weighs a word the stores skip, and more. The stores keep
// theirs short because it also decides which words reach full-text search
// and which entity names can match, where a word wrongly dropped loses a
// match. This engine has no model to tell topic from talk: whatever word it
// keeps counts as the question's topic, so it also drops pronouns,
// contractions, greetings, number words and the filler of chat questions
// ("can you tell me"). Keys are lowercase words as written; contractions
// appear without their apostrophe.
var stopwords = setOf(strings.Join(words.Stopwords(), " ") + `
above after again against also am arent because before being below between both cant couldnt didnt
doesnt doing dont down during each else ever every few further get gets getting got hadnt hasnt
havent having he hed hell hes her here heres hers herself him himself his hows id ill im ive isnt
itself just know let lets like might more most much must mustnt myself need needs nor now off once
only other ought ours ourselves out over own pls really same say says shall shant she shed shell
shes shouldnt such thank thanks thats theirs themselves theres theyd theyll theyre theyve through
too under until up very want wasnt wed well werent weve whats whens wheres while whos whose whys
wont wouldnt yes yet youd youll youre youve yours yourself yourselves hi hello hey ok okay one two
three four five six seven eight nine ten anything something everything many someone somebody anyone
anybody`)

// generic words are topic words so common in a company's documents that a
// match on them alone says little ("policy", "customer"). They count half.
var generic = setOf(`policy policies process procedure document documents doc docs information info
detail details company team teams rule rules guide guideline guidelines people thing things way ways
use used new current latest question questions overview summary general customer customers employee
employees work time day days`)

func setOf(words string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// lightWords are verbs and particles so common in questions that they say
// little about the topic ("take", "look", "back"). They count half, and as
// frame words: a document is not relevant for containing them.
var lightWords = setOf(`take takes taking took look looks looking see make makes making go goes going
come comes coming send give put find try bring back hit last person`)

// keyword is one distinct topic word, or phrase, of a text.
type keyword struct {
	token
	weight float64 // 1, or 0.5 for generic and light words
	// frame marks a word that shapes the question rather than naming its
	// topic: the word after "how" ("how long"), a cap ("limit"), a word
	// such as "allowed" or a light word ("take"). A document need not
	// contain it, and is not relevant for containing it.
	frame bool
	// number marks a number word of the question, its stem the digits
	// ("ten" is 10). It is a frame word for the grader; the generator
	// counts it as a topic word, since a sentence with the number the
	// question states is likely about it.
	number bool
}

// keywords returns the distinct topic words of s in order of first
// appearance: stopwords, one-character words and single digits are dropped,
// and words with the same stem count once. A phrase of the thesaurus
// ("sign up", "time off") is one keyword, its stem the stems of its words.
// At most maxKeywords are kept.
func keywords(s string) []keyword {
	var out []keyword
	seen := make(map[string]bool)
	toks := tokens(s)
	for i := 0; i < len(toks) && len(out) < maxKeywords; i++ {
		if n, key := phraseAt(toks, i); n > 0 {
			if !seen[key] {
				seen[key] = true
				ph := toks[i : i+n]
				texts, lows := make([]string, n), make([]string, n)
				for j, t := range ph {
					texts[j], lows[j] = t.text, t.lower
					seen[t.stem] = true
				}
				tok := token{text: strings.Join(texts, " "), lower: strings.Join(lows, " "), stem: key}
				out = append(out, keyword{token: tok, weight: 1})
			}
			i += n - 1
			continue
		}
		t := toks[i]
		if n, ok := questionNumberWords[t.lower]; ok {
			// "ten years" may be written "10 years" or "10th
			// anniversary": a number counts where the document has it.
			if !seen[n] {
				seen[n] = true
				t.stem = n
				out = append(out, keyword{token: t, weight: 0.5, frame: true, number: true})
			}
			continue
		}
		if stopwords[t.lower] || len(t.lower) < 2 || seen[t.stem] {
			continue
		}
		seen[t.stem] = true
		w := 1.0
		if generic[t.lower] || generic[t.stem] || lightWords[t.lower] {
			w = 0.5
		}
		frame := (i > 0 && toks[i-1].lower == "how") || capWords[t.lower] || questionFrameWords[t.lower] || lightWords[t.lower]
		out = append(out, keyword{token: t, weight: w, frame: frame})
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

// phraseAt returns the length and key of the longest thesaurus phrase
// starting at toks[i], or 0.
func phraseAt(toks []token, i int) (int, string) {
	if !phraseFirst[lemma(toks[i])] {
		return 0, ""
	}
	for n := min(maxPhraseWords, len(toks)-i); n >= 2; n-- {
		keys := make([]string, n)
		for j := range n {
			keys[j] = lemma(toks[i+j])
		}
		if key := strings.Join(keys, " "); phraseKeys[key] {
			return n, key
		}
	}
	return 0, ""
}

// stemSet returns the stems of every word of s, stopwords included (the
// synonym "time off" needs "off"), and their variant stems (see
// appendVariants).
func stemSet(s string) map[string]bool {
	m := make(map[string]bool)
	var buf [4]string
	for _, t := range tokens(s) {
		m[t.stem] = true
		for _, v := range appendVariants(buf[:0], t) {
			m[v] = true
		}
	}
	return m
}

// maxCorpusStems bounds the texts corpusStems holds: a few megabytes of
// sentences and their sets.
const maxCorpusStems = 5000

// corpusStems keeps the stem sets of documents' texts (titles, headings,
// sentences): the grader, the generator and the checker of a question read
// the same documents, as do the next questions; a question's own words
// never go in. The sets are shared: callers only read them. When full it
// is emptied, so it never holds more than maxCorpusStems texts.
var corpusStems = struct {
	sync.Mutex
	m map[string]map[string]bool
}{m: map[string]map[string]bool{}}

// docStemSet is stemSet for the text of a document.
func docStemSet(s string) map[string]bool {
	corpusStems.Lock()
	set, ok := corpusStems.m[s]
	corpusStems.Unlock()
	if ok {
		return set
	}
	set = stemSet(s)
	corpusStems.Lock()
	if len(corpusStems.m) >= maxCorpusStems {
		clear(corpusStems.m)
	}
	corpusStems.m[strings.Clone(s)] = set // not a slice of the whole document
	corpusStems.Unlock()
	return set
}

// synonymStems holds the keys of each synonym's words (see lemma), so
// that matching does not tokenise the table again for every sentence.
var synonymStems = func() map[string][][]string {
	m := make(map[string][][]string, len(synonyms))
	for k, syns := range synonyms {
		for _, syn := range syns {
			var stems []string
			for _, t := range tokens(syn) {
				stems = append(stems, lemma(t))
			}
			m[k] = append(m[k], stems)
		}
	}
	return m
}()

// keyOf is a keyword's key in the synonym table: a phrase's stems, or a
// word's lemma.
func keyOf(k keyword) string {
	if strings.Contains(k.stem, " ") {
		return k.stem
	}
	return lemma(k.token)
}

// synonymsOf returns the thesaurus' synonyms of a keyword.
func synonymsOf(k keyword) []string {
	return synonyms[keyOf(k)]
}

// matchIn reports whether keyword k occurs in the stem set, directly (in
// one of its forms: "lost" for "losing", "deletion" for "deleted") or
// through one of its synonyms; via is the synonym that matched, if any. A
// phrase, and a synonym of several words, matches when all its words
// occur.
func matchIn(k keyword, set map[string]bool) (ok bool, via string) {
	if set[k.stem] {
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
		for _, v := range appendVariants(buf[:0], k.token) {
			if set[v] {
				return true, ""
			}
		}
	}
	for i, stems := range synonymStems[key] {
		if allIn(set, stems) {
			return true, synonyms[key][i]
		}
	}
	return false, ""
}

// matchShare is how much of keyword k the stem set holds: 1 for the word
// itself, synonymShare for a synonym, and for a phrase that is not there
// whole, the share of its words that are ("public holidays" in a sentence
// about local holidays: half), as if they had been asked one by one; via
// names the synonym or the words found, and part says it is a phrase's
// words.
func matchShare(k keyword, set map[string]bool) (share float64, via string, part bool) {
	if ok, via := matchIn(k, set); ok {
		if via == "" {
			return 1, "", false
		}
		return synonymShare, via, false
	}
	if !strings.Contains(k.stem, " ") {
		return 0, "", false
	}
	words := tokens(k.lower)
	var found []string
	n := 0
	for _, t := range words {
		if stopwords[t.lower] || lightWords[t.lower] {
			continue
		}
		n++
		if set[t.stem] || set[lemma(t)] {
			found = append(found, t.lower)
		}
	}
	if n < 2 || len(found) == 0 {
		return 0, "", false // "time off" is not "time"
	}
	return float64(len(found)) / float64(n), strings.Join(found, " "), true
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
// the lemma of an irregular form ("kept" is keep), the verb of a noun in
// -ion or -ment ("deletion" is delete, "payment" pay), the word a
// derivation is made from ("delivery" is deliver, "monthly" month; see
// derivations), the number of an ordinal or a number word ("10th" and
// "ten" are 10) and the singular of a three-letter plural ("ups" in
// "meet-ups"). Stem sets hold them too, so the forms meet either way.
func appendVariants(dst []string, t token) []string {
	if _, ok := irregularForms[t.lower]; ok {
		if l := lemma(t); l != t.stem {
			dst = append(dst, l)
		}
	}
	if v := verbOf(t.lower); v != "" {
		dst = append(dst, stem(v))
	}
	for _, d := range derivations {
		if base, ok := strings.CutSuffix(t.lower, d.suffix); ok && len(base) >= d.min {
			dst = append(dst, stem(base+d.add))
		}
	}
	if n := ordinalNumber(t.lower); n != "" {
		dst = append(dst, n)
	}
	if len(t.lower) == 3 && t.lower[2] == 's' && !stopwords[t.lower] {
		dst = append(dst, t.lower[:2]) // a short plural stem leaves whole: "meet-ups", "IDs"
	}
	if n, ok := questionNumberWords[t.lower]; ok {
		dst = append(dst, n)
	}
	return dst
}

// derivations are the suffixes that make nouns, adjectives and adverbs of
// other words, cut to find the word they are made from: "delivery" is
// deliver, "illness" ill, "monthly" month, "political" politics. Cutting
// may leave a stem no word has ("business" gives "busi"), which matches
// nothing. Suffixes that too
// often leave a word of another meaning are not cut: -er ("offer",
// "customer"), -al other than -ical ("personal", "internal") and -ance
// ("allowance").
var derivations = []struct {
	suffix, add string
	min         int // shortest base
}{
	{"ly", "", 4},
	{"ery", "er", 4},
	{"ical", "ic", 3},
	{"ness", "", 3},
}

// ordinalNumber returns the digits of an ordinal written in digits ("10th",
// "2nd"), or "".
func ordinalNumber(w string) string {
	if len(w) < 3 {
		return ""
	}
	switch w[len(w)-2:] {
	case "st", "nd", "rd", "th":
		if d := w[:len(w)-2]; isDigits(d) {
			return d
		}
	}
	return ""
}

// numbers returns the numbers written in s, canonicalised so that "1,000",
// "1000" and "1000.0" compare equal. Only digits count: "thirty" is a word.
func numbers(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		if !isDigit(s[i]) {
			i++
			continue
		}
		j := i
		var b strings.Builder
		dot := false
		for j < len(s) {
			c := s[j]
			switch {
			case isDigit(c):
				b.WriteByte(c)
				j++
				continue
			case c == ',' && allDigits(s, j+1, 3) && (j+4 >= len(s) || !isDigit(s[j+4])):
				// A thousands separator: exactly three digits follow.
				j++
				continue
			case c == '.' && !dot && j+1 < len(s) && isDigit(s[j+1]):
				dot = true
				b.WriteByte(c)
				j++
				continue
			}
			break
		}
		out = append(out, canonicalNumber(b.String()))
		i = j
	}
	return out
}

func allDigits(s string, from, n int) bool {
	if from+n > len(s) {
		return false
	}
	for k := from; k < from+n; k++ {
		if !isDigit(s[k]) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// canonicalNumber writes a digit string in its shortest form ("007" is "7",
// "30.50" is "30.5"). Strings too long to be a float stay as they are.
func canonicalNumber(s string) string {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || len(s) > 20 {
		return s
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// abbreviations end with a full stop that does not end a sentence.
var abbreviations = setOf(`e.g i.e etc mr mrs ms dr prof st vs inc ltd co corp no approx dept est fig jr sr`)

// splitSentences splits one line of text into sentences, after . ! or ?
// followed by white space, except after abbreviations and initials ("U.S.",
// "J. Smith"). At most limit sentences are returned; the rest of the line is
// dropped.
func splitSentences(line string, limit int) []string {
	var out []string
	start := 0
	for i := 0; i < len(line) && len(out) < limit; i++ {
		c := line[i]
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		// Swallow runs like "?!" and "..." and a closing quote or bracket.
		j := i + 1
		for j < len(line) && strings.IndexByte(".!?\"')”’", line[j]) >= 0 {
			j++
		}
		if j < len(line) && line[j] != ' ' && line[j] != '\t' {
			i = j - 1
			continue
		}
		if c == '.' && j == i+1 && isAbbreviation(line[start:i]) {
			continue
		}
		if s := strings.TrimSpace(line[start:j]); s != "" {
			out = append(out, s)
		}
		start = j
		i = j - 1
	}
	if len(out) < limit {
		if s := strings.TrimSpace(line[start:]); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// isAbbreviation reports whether the text before a full stop ends with an
// abbreviation or a single letter (an initial).
func isAbbreviation(before string) bool {
	k := strings.LastIndexAny(before, " \t(\"")
	last := strings.ToLower(before[k+1:])
	if last == "" {
		return false
	}
	if utf8.RuneCountInString(last) == 1 {
		r, _ := utf8.DecodeRuneInString(last)
		return unicode.IsLetter(r)
	}
	return abbreviations[last]
}

// stripBullet removes a list marker ("- ", "* ", "• ", "1. ", "2) ", "> ")
// from the start of a line.
func stripBullet(line string) string {
	line = strings.TrimSpace(line)
	for range 3 { // "> - item" has two markers; three is plenty
		switch {
		case strings.HasPrefix(line, "- "), strings.HasPrefix(line, "* "), strings.HasPrefix(line, "+ "),
			strings.HasPrefix(line, "> "):
			line = strings.TrimSpace(line[2:])
		case strings.HasPrefix(line, "• "):
			line = strings.TrimSpace(line[len("• "):])
		default:
			i := 0
			for i < len(line) && i < 4 && isDigit(line[i]) {
				i++
			}
			if i > 0 && i+1 < len(line) && (line[i] == '.' || line[i] == ')') && line[i+1] == ' ' {
				line = strings.TrimSpace(line[i+2:])
				continue
			}
			return line
		}
	}
	return line
}

// joinList writes words as "a, b and c".
func joinList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// capitalize upper-cases the first letter of s.
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
