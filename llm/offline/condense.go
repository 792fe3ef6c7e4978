package offline

import (
	"context"
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
// question. With no history the question is returned unchanged.
//
// The heuristic, deliberately simple and deterministic:
//
//   - The previous question is itself condensed first (over the last few
//     turns), so "and for EU customers?" then "what about contractors?"
//     keeps the original topic.
//   - A question is a follow-up when it starts with "and", "also", "what
//     about", "how about" or "same for"; or is at most three words and not
//     a question of its own ("EU customers?"); or uses a pronoun (it, they,
//     that, those, them, there, this, these) with at most two keywords of its
//     own ("Who approves it?"). Anything else is standalone and returned as is.
//   - A pronoun is replaced by the previous question's topic (its
//     keywords): "Who approves it?" after "What is the travel policy?" is
//     "Who approves the travel policy?".
//   - A phrase starting with a preposition ("for EU customers") is appended
//     to the previous question, replacing a phrase with the same
//     preposition at its end: "What is our data retention policy?" + "and
//     for EU customers?" is "What is our data retention policy for EU
//     customers?".
//   - A name ("and Globex?", "what about EU?") replaces the last name of
//     the previous question: "Who supplies Acme Corp?" + "and Globex?" is
//     "Who supplies Globex?".
//   - Any other phrase ("contractors?") replaces the object of the previous
//     question's last preposition, or is appended with "for".
func (b *Brain) Condense(ctx context.Context, history []agent.Turn, question string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if len(history) == 0 || len(question) > maxQuestion {
		return question, nil
	}
	prev := ""
	for _, t := range history[max(0, len(history)-maxHistory):] {
		q := strings.TrimSpace(clip(t.Question, maxQuestion))
		switch {
		case q == "":
		case prev == "":
			prev = q
		default:
			prev = condenseOne(prev, q)
		}
	}
	if prev == "" {
		return question, nil
	}
	return condenseOne(prev, question), nil
}

var (
	openers      = []string{"and what about", "and how about", "what about", "how about", "same for", "and also", "also", "and", "but", "or"}
	pronouns     = setOf(`it they that those them there this these its their`)
	determiners  = setOf(`that this these those its their`)
	prepositions = setOf(`for in at on with about regarding during from to under by within outside inside per`)
	questionWord = setOf(`what which who whom whose when where why how is are do does did can could should would will was were has have`)
)

// condenseOne combines a previous standalone question with a follow-up.
func condenseOne(prev, question string) string {
	q := strings.TrimSpace(question)
	rest, opened := stripOpener(q)
	rest = strings.TrimSpace(strings.TrimRight(rest, "?.! "))
	if rest == "" {
		if opened {
			return prev // "and?" asks the same again
		}
		return question
	}
	toks := words.Tokens(rest)
	if len(toks) == 0 {
		return question
	}
	if _, ok := smallTalk(toks, " "+strings.Join(lowers(toks), " ")+" "); ok {
		return question // "thanks" follows a question but asks nothing
	}
	kws := keywords(rest)
	pron := -1
	for i, t := range toks {
		if !pronouns[t.Lower] {
			continue
		}
		// "this year", "those customers": a determiner, not a pronoun.
		if determiners[t.Lower] && i+1 < len(toks) && !words.IsFiller(toks[i+1].Lower) {
			continue
		}
		pron = i
		break
	}
	startsQuestion := questionWord[toks[0].Lower]
	short := len(toks) <= 3 && !startsQuestion
	if !opened && !short && (pron < 0 || len(kws) > 2) {
		return question // standalone
	}

	base := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(prev), "?.! "))
	switch {
	case pron >= 0 && len(kws) <= 2:
		topic := topicOf(prev)
		if topic == "" {
			return question
		}
		return capitalize(replaceWord(rest, toks[pron].Text, topicPhrase(toks[pron].Lower, topic))) + "?"
	case prepositions[toks[0].Lower]:
		return replaceTail(base, toks[0].Lower, rest) + "?"
	case startsQuestion:
		return capitalize(rest) + "?" // "And who approves refunds?": whole already
	}
	if isProperNoun(toks) {
		// "and Globex?" after "Who supplies Acme Corp?": swap the names.
		if i, j := lastNameRun(base); i >= 0 {
			return base[:i] + rest + base[j:] + "?"
		}
	}
	for _, p := range []string{"for", "in", "at", "on", "about", "with", "from", "to", "during", "under"} {
		if i := lastWordIndex(base, p); i >= 0 && len(strings.Fields(base[i:])) <= 6 {
			return base[:i] + p + " " + rest + "?"
		}
	}
	return base + " for " + rest + "?"
}

// stripOpener removes a leading "and", "what about"… and reports whether
// there was one.
func stripOpener(q string) (string, bool) {
	for _, o := range openers {
		if len(q) >= len(o) && strings.EqualFold(q[:len(o)], o) && (len(q) == len(o) || !isWordByte(q[len(o)])) {
			return strings.TrimLeft(q[len(o):], " ,"), true
		}
	}
	return q, false
}

func isWordByte(c byte) bool {
	return isDigit(c) || isLetterASCII(c) || c >= 0x80 || c == '\''
}

// topicOf is the previous question's topic: its first few keywords as
// written.
func topicOf(prev string) string {
	var ws []string
	for _, k := range keywords(prev) {
		if len(ws) == 4 {
			break
		}
		ws = append(ws, k.Text)
	}
	return strings.Join(ws, " ")
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

// replaceTail appends "prep rest" to base, replacing an ending phrase that
// starts with the same preposition ("…for US customers" → "…for EU
// customers").
func replaceTail(base, prep, rest string) string {
	if i := lastWordIndex(base, prep); i >= 0 && len(strings.Fields(base[i:])) <= 6 {
		return base[:i] + rest
	}
	return base + " " + rest
}

// lastWordIndex is the byte index of the last whole-word, case-insensitive
// occurrence of w in s, not at its start, or -1. It compares in place
// rather than lowercasing s, whose byte offsets lowercasing can change.
func lastWordIndex(s, w string) int {
	for i := len(s) - len(w); i > 0; i-- {
		if !strings.EqualFold(s[i:i+len(w)], w) {
			continue
		}
		before := !isWordByte(s[i-1])
		after := i+len(w) == len(s) || !isWordByte(s[i+len(w)])
		if before && after {
			return i
		}
	}
	return -1
}

// replaceWord replaces the first whole-word occurrence of w in s.
func replaceWord(s, w, with string) string {
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], w)
		if i < 0 {
			break
		}
		i += from
		before := i == 0 || !isWordByte(s[i-1])
		after := i+len(w) == len(s) || !isWordByte(s[i+len(w)])
		if before && after {
			return s[:i] + with + s[i+len(w):]
		}
		from = i + len(w)
	}
	return s
}

// isProperNoun reports whether a short phrase is a name: every word starts
// with a capital letter or a digit ("Globex", "EU", "Acme Corp", "Q3").
func isProperNoun(toks []words.Token) bool {
	if len(toks) == 0 || len(toks) > 4 {
		return false
	}
	for _, t := range toks {
		r, _ := utf8.DecodeRuneInString(t.Text)
		if !unicode.IsUpper(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// lastNameRun finds the last run of capitalised words in s, not counting
// the first word (capitalised because it starts the sentence) nor "I". It
// returns the byte range of the run, or -1, -1.
func lastNameRun(s string) (int, int) {
	start, end := -1, -1
	runStart, runEnd := -1, -1
	first := true
	for i := 0; i < len(s); {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		j := i
		for j < len(s) && s[j] != ' ' {
			j++
		}
		if i == j {
			break
		}
		word := strings.TrimRight(s[i:j], "?.,!;:")
		word = strings.TrimSuffix(strings.TrimSuffix(word, "'s"), "’s")
		r, _ := utf8.DecodeRuneInString(word)
		capital := !first && word != "I" && (unicode.IsUpper(r) || (runStart >= 0 && unicode.IsDigit(r)))
		first = false
		switch {
		case capital && runStart < 0:
			runStart, runEnd = i, i+len(word)
		case capital:
			runEnd = i + len(word)
		case runStart >= 0:
			start, end = runStart, runEnd
			runStart = -1
		}
		if capital && j-i != len(word) {
			// Punctuation or a possessive ends the name: "Acme's".
			start, end = runStart, runEnd
			runStart = -1
		}
		i = j
	}
	if runStart >= 0 {
		start, end = runStart, runEnd
	}
	return start, end
}
