package offline

import (
	"context"
	"fmt"
	"strings"

	"github.com/switchboard/switchboard/agent"
)

// relevantShare is the share of the question's keyword weight a document
// must contain to be relevant. With generic words ("policy", "customer")
// counting half, 40% lets "data retention policy for EU customers" match a
// retention document (data, retention, policy) but not a refund policy that
// merely mentions customers.
const relevantShare = 0.4

// specificShare is the share of the question's specific (non-generic)
// keywords a text document must contain more than: a document that names
// only one of "parental" and "leave" (someone "leaves") is about something
// else. A synonym counts three quarters, as in the generator.
const specificShare = 0.5

// Grade judges a document by the words it shares with the question.
//
// A text document is relevant when the question keywords it contains (a
// synonym counts: "reimbursement" for "refund") carry at least 40% of the
// question's keyword weight, and at least one of them is not a generic word.
// A question with one or two specific (non-generic) topic words must find
// more than half of them: "parental leave" is not answered by a document
// where someone merely "leaves". Words after "how" ("how long") ask for the
// kind of answer and are not counted as topic words there.
// A graph document is already the answer to a query about the question's
// entities, so any shared keyword or any mentioned entity is enough.
func (b *Brain) Grade(ctx context.Context, question string, doc agent.Document) (agent.Grade, error) {
	if err := ctx.Err(); err != nil {
		return agent.Grade{}, err
	}
	kws := keywords(clip(question, maxQuestion))
	text := docText(doc)
	set := stemSet(text)

	var matched []string
	var got, total float64
	specific, allGeneric := false, true
	var specificGot, specificTotal float64
	asks := howWords(question)
	for _, k := range kws {
		total += k.weight
		countsSpecific := k.weight == 1 && !asks[k.lower]
		if countsSpecific {
			specificTotal++
		}
		allGeneric = allGeneric && k.weight < 1
		ok, via := matchIn(k, set)
		if !ok {
			if countsSpecific && reverseSynonymIn(k, set) {
				specificGot += synonymShare // "reimbursement" in a refund document
			}
			continue
		}
		got += k.weight
		specific = specific || k.weight == 1
		if countsSpecific {
			if via == "" {
				specificGot++
			} else {
				specificGot += synonymShare
			}
		}
		if via != "" {
			matched = append(matched, fmt.Sprintf("%s (as %s)", k.lower, via))
		} else {
			matched = append(matched, k.lower)
		}
	}

	if doc.Route == agent.RouteGraph {
		if len(matched) > 0 {
			return agent.Grade{Relevant: true, Reason: "mentions " + listWords(matched)}, nil
		}
		ents, err := b.matchEntities(ctx, question)
		if err != nil {
			return agent.Grade{}, err
		}
		lower := strings.ToLower(text)
		for _, e := range ents {
			if strings.Contains(lower, strings.ToLower(e)) {
				return agent.Grade{Relevant: true, Reason: "mentions " + e}, nil
			}
		}
		return agent.Grade{Reason: "mentions none of the question's keywords or entities"}, nil
	}

	switch {
	case len(kws) == 0:
		return agent.Grade{Reason: "the question has no keywords to compare"}, nil
	case len(matched) == 0:
		return agent.Grade{Reason: "shares no keywords with the question"}, nil
	case specificTotal > 0 && specificTotal <= 2 && specificGot <= specificShare*specificTotal:
		return agent.Grade{Reason: "mentions only " + listWords(matched) + ", too few of the question's specific words"}, nil
	case got >= relevantShare*total && (specific || allGeneric):
		return agent.Grade{Relevant: true, Reason: "mentions " + listWords(matched)}, nil
	}
	return agent.Grade{Reason: "mentions only " + listWords(matched)}, nil
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
	return joinList(ws)
}

// howWords returns the words that follow "how" in a question ("how long",
// "how soon"): they ask for the kind of answer, not for a topic, so the
// specific-share test leaves them out.
func howWords(question string) map[string]bool {
	m := make(map[string]bool)
	toks := tokens(clip(question, maxQuestion))
	for i := 0; i+1 < len(toks); i++ {
		if toks[i].lower == "how" {
			m[toks[i+1].lower] = true
		}
	}
	return m
}

// reverseSynonyms maps the stem of a one-word synonym to the stems of the
// words it stands for: "reimbursement" to "refund" and "expense".
var reverseSynonyms = func() map[string][]string {
	m := make(map[string][]string)
	for k, stems := range synonymStems {
		for _, st := range stems {
			if len(st) == 1 {
				m[st[0]] = append(m[st[0]], k)
			}
		}
	}
	return m
}()

// reverseSynonymIn reports whether the stem set holds a word that k is a
// synonym of. The specific-share test uses it, so that a question in the
// document's less usual words still finds its topics.
func reverseSynonymIn(k keyword, set map[string]bool) bool {
	for _, w := range reverseSynonyms[k.stem] {
		if set[w] {
			return true
		}
	}
	return false
}
