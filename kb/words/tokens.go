package words

import (
	"maps"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Token is one word of a text: as written, lowercased, and stemmed.
type Token struct {
	Text  string // as written, e.g. "Suppliers"
	Lower string // "suppliers"
	Stem  string // "supplier" (see Stem)
}

var apostrophes = strings.NewReplacer("'", "", "’", "")

// Tokens splits s into words of letters and digits, skipping URLs. An
// apostrophe inside a word is dropped ("don't" is "dont") and a trailing
// "'s" removed ("Acme's" is "acme"), so possessives match the bare name.
func Tokens(s string) []Token {
	var out []Token
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
		st := Stem(lower)
		if isAcronymPlural(w) {
			st = lower[:len(lower)-1] // "CVs" is CV, "APIs" API
		}
		out = append(out, Token{Text: w, Lower: lower, Stem: st})
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

// Stem strips the commonest English suffixes so that "policies", "policy",
// "supplied" and "supplies" meet. It is deliberately naive: stems are only
// compared with other stems, never shown, so "stor" for store/storing/stored
// is fine. Words of three letters or fewer, and numbers, are left alone.
func Stem(w string) string {
	if len(w) <= 3 || IsDigits(w) {
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

// IsDigits reports whether s is a non-empty run of ASCII digits.
func IsDigits(s string) bool {
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

// fillers carry no topic: the stores' stopwords, so that the offline
// engine never weighs a word the stores skip, and more. The stores keep
// theirs short because it also decides which words reach full-text search
// and which entity names can match, where a word wrongly dropped loses a
// match. The offline engine has no model to tell topic from talk: whatever word it
// keeps counts as the question's topic, so it also drops pronouns,
// contractions, greetings, number words and the filler of chat questions
// ("can you tell me"). Keys are lowercase words as written; contractions
// appear without their apostrophe.
var fillers = func() map[string]bool {
	m := setOf(`above after again against also am arent because before being below between both cant couldnt didnt
doesnt doing dont down during each else ever every few further get gets getting got hadnt hasnt
havent having he hed hell hes her here heres hers herself him himself his hows id ill im ive isnt
itself just know let lets like might more most much must mustnt myself need needs nor now off once
only other ought ours ourselves out over own pls really same say says shall shant she shed shell
shes shouldnt such thank thanks thats theirs themselves theres theyd theyll theyre theyve through
since till too under until up very want wasnt wed well werent weve whats whens wheres while whos whose whys
wont wouldnt yes yet youd youll youre youve yours yourself yourselves hi hello hey ok okay one two
three four five six seven eight nine ten anything something everything many someone somebody anyone
anybody`)
	maps.Copy(m, stopwords)
	return m
}()

// IsFiller reports whether w, a word lowercased as Tokens returns it,
// carries no topic in a chat question: it is a stopword (IsStop) or one of
// the pronouns, contractions, greetings, number words and chat filler that
// the offline engine and the local embedder also drop.
func IsFiller(w string) bool {
	return fillers[w]
}
