package offline

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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

// clip returns at most n bytes of s, cut at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

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
		out = append(out, token{text: w, lower: lower, stem: stem(lower)})
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

// stem strips the commonest English suffixes so that "policies", "policy",
// "supplied" and "supplies" meet. It is deliberately naive: stems are only
// compared with other stems, never shown, so "stor" for store/storing/stored
// is fine. Words of three letters or fewer, and numbers, are left alone.
func stem(w string) string {
	if len(w) <= 3 || isDigits(w) {
		return w
	}
	switch {
	case (strings.HasSuffix(w, "ies") || strings.HasSuffix(w, "ied")) && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "zes") ||
		strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ing") && len(w) >= 6:
		w = undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ed") && len(w) >= 5:
		w = undouble(w[:len(w)-2])
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") &&
		!strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	// A final e comes and goes with suffixes (store, storing), so drop it.
	if len(w) > 3 && w[len(w)-1] == 'e' {
		w = w[:len(w)-1]
	}
	return w
}

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

// stopwords carry no topic: function words, question words, pronouns and
// the filler of chat questions ("can you tell me"). Keys are lowercase words
// as written; contractions appear without their apostrophe.
var stopwords = setOf(`a about above after again against all also am an and any are arent as at
be because been before being below between both but by can cant could couldnt
did didnt do does doesnt doing dont down during each else ever every few for from further
get gets getting got had hadnt has hasnt have havent having he hed hell hes her here heres hers
herself him himself his how hows i id ill im ive if in into is isnt it its itself just
know let lets like me might more most much must mustnt my myself need needs no nor not now of off
on once only or other ought our ours ourselves out over own please pls really same say says shall
shant she shed shell shes should shouldnt show so some such tell than thank thanks that thats the
their theirs them themselves then there theres these they theyd theyll theyre theyve this those
through to too under until up us very want was wasnt we wed well were werent weve what whats when
whens where wheres which while who whom whos whose why whys will with wont would wouldnt yes yet you
youd youll youre youve your yours yourself yourselves hi hello hey ok okay
one two three four five six seven eight nine ten anything something everything many`)

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

// keyword is one distinct topic word of a text.
type keyword struct {
	token
	weight float64 // 1, or 0.5 for generic words
}

// keywords returns the distinct topic words of s in order of first
// appearance: stopwords, one-character words and single digits are dropped,
// and words with the same stem count once. At most maxKeywords are kept.
func keywords(s string) []keyword {
	var out []keyword
	seen := make(map[string]bool)
	for _, t := range tokens(s) {
		if len(out) >= maxKeywords {
			break
		}
		if stopwords[t.lower] || len(t.lower) < 2 || seen[t.stem] {
			continue
		}
		seen[t.stem] = true
		w := 1.0
		if generic[t.lower] || generic[t.stem] {
			w = 0.5
		}
		out = append(out, keyword{token: t, weight: w})
	}
	return out
}

// stemSet returns the stems of every word of s, stopwords included (the
// synonym "time off" needs "off").
func stemSet(s string) map[string]bool {
	m := make(map[string]bool)
	for _, t := range tokens(s) {
		m[t.stem] = true
	}
	return m
}

// synonyms maps a stem to words that often stand for it in documents. The
// rewriter adds them to a query; the grader and generator accept them as a
// match for the word. Keep the table small and unsurprising.
var synonyms = func() map[string][]string {
	table := map[string][]string{
		"refund":     {"return", "reimbursement"},
		"retention":  {"keep", "delete", "storage"},
		"customer":   {"client"},
		"client":     {"customer"},
		"employee":   {"staff"},
		"staff":      {"employee"},
		"vacation":   {"leave", "time off", "PTO", "holiday"},
		"holiday":    {"vacation", "leave"},
		"leave":      {"vacation", "time off"},
		"price":      {"cost", "fee"},
		"cost":       {"price", "expense"},
		"security":   {"password", "access"},
		"password":   {"credential", "login"},
		"supplier":   {"vendor", "supply"},
		"vendor":     {"supplier"},
		"salary":     {"pay", "compensation"},
		"pay":        {"salary", "compensation"},
		"expense":    {"reimbursement", "cost"},
		"onboarding": {"orientation", "new hire"},
		"laptop":     {"computer", "device"},
		"computer":   {"laptop", "device"},
		"remote":     {"work from home", "hybrid"},
		"sick":       {"illness", "medical leave"},
		"contract":   {"agreement"},
		"delete":     {"remove", "erase"},
		"bug":        {"defect", "issue"},
		"outage":     {"incident", "downtime"},
		"incident":   {"outage"},
		"manager":    {"lead", "supervisor"},
		"boss":       {"manager"},
		"policy":     {"guideline", "rule"},
		"travel":     {"trip"},
		"benefit":    {"perk", "insurance"},
		"hire":       {"recruit"},
		"fire":       {"terminate", "dismiss"},
		"quit":       {"resign", "severance"},
		"phone":      {"mobile", "device"},
	}
	m := make(map[string][]string, len(table))
	for k, v := range table {
		m[stem(k)] = v
	}
	return m
}()

// synonymStems holds the stems of each synonym, word by word, so that
// matching does not tokenise the table again for every sentence.
var synonymStems = func() map[string][][]string {
	m := make(map[string][][]string, len(synonyms))
	for k, syns := range synonyms {
		for _, syn := range syns {
			var stems []string
			for _, t := range tokens(syn) {
				stems = append(stems, t.stem)
			}
			m[k] = append(m[k], stems)
		}
	}
	return m
}()

// matchIn reports whether keyword k occurs in the stem set, directly or
// through one of its synonyms; via is the synonym that matched, if any. A
// synonym of several words matches when all of them occur.
func matchIn(k keyword, set map[string]bool) (ok bool, via string) {
	if set[k.stem] {
		return true, ""
	}
	for i, stems := range synonymStems[k.stem] {
		all := len(stems) > 0
		for _, st := range stems {
			all = all && set[st]
		}
		if all {
			return true, synonyms[k.stem][i]
		}
	}
	return false, ""
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
