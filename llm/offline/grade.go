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

// Grade judges a document by the words it shares with the question.
//
// A text document is relevant when the question keywords it contains (a
// synonym counts: "reimbursement" for "refund") carry at least 40% of the
// question's keyword weight, and at least one of them is not a generic word.
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
	for _, k := range kws {
		total += k.weight
		allGeneric = allGeneric && k.weight < 1
		ok, via := matchIn(k, set)
		if !ok {
			continue
		}
		got += k.weight
		specific = specific || k.weight == 1
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
