package offline

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/kb/words"
	"github.com/switchboard/switchboard/lexicon"
)

// relevantShare is the share of the question's keyword weight a document
// must contain to be relevant, chatty words counting half.
const relevantShare = 0.4

// specificShare is the share of the question's specific (non-generic)
// keywords a text document must contain more than: a document that names
// only one of "parental" and "leave" (someone "leaves") is about something
// else. A synonym counts three quarters, as in the generator.
const specificShare = 0.5

// Grade judges a document by the words it shares with the question.
//
// A text document is relevant when it holds relevantShare of the weight of
// the question's topic keywords (in any of their forms or as related words:
// matchIn), one of them not chatty, and with one or two specific words,
// more than half of them (specificShare). The words that shape the question
// rather than name its topic ("how long", "limit", "allowed", numbers) do
// not count. (That the words also meet in one passage of a few sentences
// answered no more questions, and hedged one more.) A graph document is
// already the answer to a query about the question's entities, so any
// shared keyword or any mentioned entity is enough.
func (b *Brain) Grade(ctx context.Context, question string, doc agent.Document) (agent.Grade, error) {
	if err := ctx.Err(); err != nil {
		return agent.Grade{}, err
	}
	kws := keywords(clip(question, maxQuestion))
	text := docText(doc)
	m := matchKeywords(kws, docStemSet(text))

	if doc.Route == agent.RouteGraph {
		if len(m.matched) > 0 {
			return agent.Grade{Relevant: true, Reason: "mentions " + listWords(m.matched)}, nil
		}
		ents, err := b.entities(ctx, question)
		if err != nil {
			return agent.Grade{}, err
		}
		if name := nameIn(text, ents); name != "" {
			return agent.Grade{Relevant: true, Reason: "mentions " + name}, nil
		}
		return agent.Grade{Reason: "mentions none of the question's keywords or entities"}, nil
	}

	if len(kws) == 0 {
		return agent.Grade{Reason: "the question has no keywords to compare"}, nil
	}
	g := m.grade()
	if q := quotedIn(question, text); !g.Relevant && q != "" {
		// The words a question quotes are what it asks about ("what does
		// 'standby' mean?"): a document that has them is relevant, whatever
		// else the question says.
		return agent.Grade{Relevant: true, Reason: "mentions “" + q + "”, as quoted"}, nil
	}
	return g, nil
}

// keywordMatch is what a text holds of a question's keywords.
type keywordMatch struct {
	jargon                     bool     // a specific word found is one no dictionary has: a name, a code, jargon
	matched                    []string // as written, "refund (as reimbursement)" for a synonym
	got, total                 float64  // keyword weight found, of all
	specificGot, specificTotal float64  // the same for the specific words; a synonym counts synonymShare
	specific, allGeneric       bool     // a specific word was found; the question has only generic ones
}

// matchKeywords matches the question's topic keywords (not its frame
// words) against a stem set.
func matchKeywords(kws []keyword, set map[string]bool) keywordMatch {
	m := keywordMatch{allGeneric: true}
	for _, k := range kws {
		if k.frame {
			continue // "how long", "limit", "allowed", "ten": they ask, the topic is elsewhere
		}
		share, via := matchShare(k, set)
		m.total += k.weight
		countsSpecific := k.weight == 1
		if countsSpecific {
			m.specificTotal++
		}
		m.allGeneric = m.allGeneric && k.weight < 1
		if share == 0 {
			continue
		}
		m.got += k.weight // a synonym is as good a sign of the topic as the word
		m.specific = m.specific || k.weight == 1
		if countsSpecific {
			m.specificGot += share
			m.jargon = m.jargon || via == "" && !lexicon.Known(k.Lower) && !strings.Contains(k.Lower, " ")
		}
		if via != "" {
			m.matched = append(m.matched, fmt.Sprintf("%s (as %s)", k.Lower, via))
		} else {
			m.matched = append(m.matched, k.Lower)
		}
	}
	return m
}

// grade applies the rules of Grade to a text document's match.
func (m keywordMatch) grade() agent.Grade {
	switch {
	case len(m.matched) == 0:
		return agent.Grade{Reason: "shares no keywords with the question"}
	case m.specificTotal > 0 && m.specificTotal <= 2 && !m.enoughSpecific():
		return agent.Grade{Reason: "mentions only " + listWords(m.matched) + ", too few of the question's specific words"}
	case m.got >= relevantShare*m.total && (m.specific || m.allGeneric):
		return agent.Grade{Relevant: true, Reason: "mentions " + listWords(m.matched)}
	}
	return agent.Grade{Reason: "mentions only " + listWords(m.matched)}
}

// docText is what is compared with a question: title and content, clipped.
func docText(d agent.Document) string {
	return clip(d.Title, 500) + "\n" + clip(d.Content, maxDocText)
}

// listWords lists up to six words for a reason; reasons are one line.
func listWords(ws []string) string {
	if len(ws) > 6 {
		return strings.Join(ws[:6], ", ") + fmt.Sprintf(" and %d more", len(ws)-6)
	}
	return joinList(ws, "and")
}

// enoughSpecific reports whether a text holds more than specificShare of
// the question's specific words, or exactly that share when a word it
// holds is one no dictionary has: "wilco" or "gotestjsonbuildtext" names
// the topic more surely than "bridge" or "parental" does.
func (m keywordMatch) enoughSpecific() bool {
	if m.jargon {
		return m.specificGot >= specificShare*m.specificTotal
	}
	return m.specificGot > specificShare*m.specificTotal
}

// quoted matches a span a question quotes: 'standby', "span of control",
// `GOMAXPROCS`. The quote must open after a space or the start and close
// before a space or punctuation, so that apostrophes ("don't", "the IC's")
// are not quotes.
var quoted = regexp.MustCompile("(?:^|\\s)['\"‘“`]([^'\"‘’“”`\\n]{2,60})['\"’”`](?:\\s|[?.,!:;]|$)")

// quotedIn returns the first span the question quotes that text holds, in
// the same words, or "".
func quotedIn(question, text string) string {
	for _, m := range quoted.FindAllStringSubmatch(clip(question, maxQuestion), 3) {
		want := words.Tokens(m[1])
		stems := make([]string, len(want))
		for i, t := range want {
			stems[i] = t.Stem
		}
		if len(want) <= 5 && allIn(docStemSet(text), stems) {
			return strings.TrimSpace(m[1])
		}
	}
	return ""
}
