package offline

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/kb/words"
)

// maxHistory is how many earlier turns Condense reads. A chain of
// follow-ups longer than this has usually changed topic.
const maxHistory = 6

// Condense makes a follow-up standalone by borrowing from the previous
// question, itself condensed first over the last few turns ("and for EU
// customers?" then "what about contractors?" keeps the original topic).
// With no history the question is returned unchanged.
//
// A question is a follow-up when it starts with "and", "also", "what
// about"…; or is at most three words and not a question of its own ("EU
// customers?"); or uses a pronoun with at most two keywords of its own
// ("Who approves it?"). Anything else is standalone and returned as is.
// A follow-up becomes:
//   - with a pronoun, itself with the previous question's topic in the
//     pronoun's place: "Who approves it?" after "What is the travel
//     policy?" is "Who approves the travel policy?";
//   - a name ("and Globex?"), the previous question with its last name
//     swapped: "Who supplies Acme Corp?" is "Who supplies Globex?";
//   - a phrase with a preposition ("for EU customers"), the previous
//     question with it in place of a phrase at its end that starts with the
//     same preposition, or else added: "What is our data retention policy
//     for EU customers?";
//   - any other phrase, the previous question with it added after "for".
func (b *Brain) Condense(ctx context.Context, history []agent.Turn, question string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if len(question) > maxQuestion {
		return question, nil
	}
	prev := ""
	for _, t := range history[max(0, len(history)-maxHistory):] {
		switch q := strings.TrimSpace(clip(t.Question, maxQuestion)); {
		case prev == "":
			prev = q
		case q != "":
			prev = condenseOne(prev, q)
		}
	}
	if prev == "" {
		return question, nil
	}
	return condenseOne(prev, question), nil
}

var (
	opener       = regexp.MustCompile(`(?i)^(?:and what about|and how about|what about|how about|same for|and also|also|and|but|or)(?:[^\pL\pN']|$)[ ,]*`)
	pronouns     = setOf(`it they that those them there this these its their`)
	determiners  = setOf(`that this these those its their`)
	prepositions = setOf(`for in at on with about regarding during from to under by within outside inside`)
)

// condenseOne combines a previous standalone question with a follow-up.
func condenseOne(prev, question string) string {
	q := strings.TrimSpace(question)
	rest := opener.ReplaceAllString(q, "")
	opened := rest != q
	rest = strings.TrimRight(rest, "?.! ")
	toks := words.Tokens(rest)
	if len(toks) == 0 {
		if opened {
			return prev // "and?" asks the same again
		}
		return question
	}
	if _, ok := smallTalk(toks, padded(toks)); ok {
		return question // "thanks" follows a question but asks nothing
	}
	pron := -1
	for i, t := range toks {
		// "this year", "those customers": a determiner, not a pronoun.
		if pron < 0 && pronouns[t.Lower] && (!determiners[t.Lower] || i+1 == len(toks) || words.IsFiller(toks[i+1].Lower)) {
			pron = i
		}
	}
	few := len(keywords(rest)) <= 2
	startsQuestion := opensQuestion(rest)
	if !opened && (len(toks) > 3 || startsQuestion) && (pron < 0 || !few) {
		return question // standalone
	}
	base := strings.Fields(strings.TrimRight(strings.TrimSpace(prev), "?.! "))
	switch {
	case pron >= 0 && few:
		fs := strings.Fields(rest)
		if i := slices.IndexFunc(fs, func(f string) bool { return strings.EqualFold(strings.Trim(f, ",;:"), toks[pron].Text) }); i >= 0 {
			fs[i] = topicPhrase(toks[pron].Lower, topicOf(prev))
		}
		return capitalize(strings.Join(fs, " ")) + "?"
	case startsQuestion:
		return capitalize(rest) + "?" // "And who approves refunds?": whole already
	case isProperNoun(toks):
		// "and Globex?" after "Who supplies Acme Corp?": swap the names.
		if i, j := lastNameRun(base); i > 0 {
			last := base[j-1]
			return strings.Join(slices.Concat(base[:i], []string{rest + last[len(nameEnd(last)):]}, base[j:]), " ") + "?"
		}
	}
	// A phrase takes the place of the object of the previous question's
	// last preposition near its end, the same one if it starts with one
	// ("…in London" + "in New York", "…in Stockholm" + "somewhere like
	// Lisbon"); or else it is added, after "for" if it has none.
	prep, phrase := toks[0].Lower, rest
	if !prepositions[prep] {
		prep, phrase = "", "for "+rest
	}
	for i := len(base) - 1; i > 0 && i >= len(base)-6; i-- {
		if w := strings.ToLower(base[i]); w == prep || prep == "" && prepositions[w] {
			if prep == "" {
				phrase = w + " " + rest
			}
			base = base[:i]
			break
		}
	}
	return strings.Join(append(base, phrase), " ") + "?"
}

// topicOf is the previous question's topic: its first few keywords as
// written.
func topicOf(prev string) string {
	var ws []string
	for _, k := range keywords(prev) {
		ws = append(ws, k.Text)
	}
	return strings.Join(ws[:min(4, len(ws))], " ")
}

// topicPhrase is what stands in for a pronoun: "there" becomes "in the
// Berlin office", the others "the Berlin office".
func topicPhrase(pronoun, topic string) string {
	switch pronoun {
	case "there":
		return "in the " + topic
	case "its", "their":
		return "the " + topic + "'s"
	}
	return "the " + topic
}

// isProperNoun reports whether a short phrase is a name: every word starts
// with a capital letter or a digit ("Globex", "EU", "Acme Corp", "Q3").
func isProperNoun(toks []words.Token) bool {
	return len(toks) <= 4 && !slices.ContainsFunc(toks, func(t words.Token) bool { return !startsName(t.Text, true) })
}

// startsName reports whether a word starts with a capital letter, or with
// a digit when digits may continue a name.
func startsName(w string, digits bool) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r) || digits && unicode.IsDigit(r)
}

// lastNameRun finds the last run of capitalised words among fs, not
// counting the first (capitalised because it starts the sentence) nor "I";
// a word with punctuation or a possessive at its end ends a run. It
// returns the run's range, or -1, -1.
func lastNameRun(fs []string) (start, end int) {
	start, end, open := -1, -1, false
	for i := 1; i < len(fs); i++ {
		if fs[i] == "I" || !startsName(fs[i], open) {
			open = false
			continue
		}
		if !open {
			start = i
		}
		end, open = i+1, nameEnd(fs[i]) == fs[i]
	}
	return start, end
}

// nameEnd is a word without the punctuation or possessive that ends a name.
func nameEnd(w string) string {
	return strings.TrimSuffix(strings.TrimSuffix(strings.TrimRight(w, "?.,!;:"), "'s"), "’s")
}
