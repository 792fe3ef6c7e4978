package offline

import (
	"context"
	"slices"
	"strings"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/kb/words"
)

// maxQueryTerms bounds a rewritten query; search backends gain nothing from
// more.
const maxQueryTerms = 16

// Rewrite proposes a new search after one found nothing relevant: first
// where to look (see rewriteRoute), then a query never sent there before.
//
// The queries (queryIdeas) are tried in order, starting after as many as
// that route has already been asked, and skipping any already searched
// there: the question itself, for a route that has not seen it (a switch);
// then its keywords plus their related words from WordNet (retain →
// retention, car → automobile; see related.go), for documents that use
// other words. The keywords alone, their stems and the most specific of
// them were tried as well, and found no answer the others did not.
//
// It always returns a non-empty query. Only when every idea has been
// searched on the route is it one already tried, which tells the agent that
// rewriting has nothing left to offer.
func (b *Brain) Rewrite(ctx context.Context, req agent.RewriteRequest) (agent.Rewrite, error) {
	if err := ctx.Err(); err != nil {
		return agent.Rewrite{}, err
	}
	question := clip(req.Question, maxQuestion)
	route, reason, err := b.rewriteRoute(ctx, question, req)
	if err != nil {
		return agent.Rewrite{}, err
	}
	ideas := queryIdeas(question, req.Tried)
	done := triedOn(req.Tried, route)
	for i := range ideas {
		q := ideas[(done+i)%len(ideas)]
		if !agent.Searched(req.Tried, q, route) {
			return agent.Rewrite{Query: q, Route: route, Reason: reason}, nil
		}
	}
	return agent.Rewrite{Query: ideas[min(1, len(ideas)-1)], Route: route}, nil
}

// triedOn counts the searches tried on route r.
func triedOn(tried []agent.Tried, r agent.Route) int {
	n := 0
	for _, t := range tried {
		if t.Route == r {
			n++
		}
	}
	return n
}

// queryIdeas are the candidate queries of Rewrite, in order: the question
// itself, the words it quotes, then its keywords with their related words
// (those of the last query tried when the question has none). None is empty and there is at
// least one.
func queryIdeas(question string, tried []agent.Tried) []string {
	var ideas []string
	var quote string // the words the question quotes, which it is about ('standby')
	if m := quoted.FindStringSubmatch(question); m != nil {
		quote = strings.Join(strings.Fields(m[1]), " ")
	}
	for _, q := range []string{strings.Join(strings.Fields(clip(question, 1000)), " "), quote, expandedQuery(keywords(question))} {
		if q != "" && !slices.Contains(ideas, q) {
			ideas = append(ideas, q)
		}
	}
	if len(ideas) == 0 && len(tried) > 0 {
		ideas = append(ideas, strings.Join(strings.Fields(clip(tried[len(tried)-1].Query, 1000)), " "))
	}
	if len(ideas) == 0 || ideas[0] == "" {
		ideas = []string{"help"}
	}
	return ideas
}

// rewriteRoute decides where the next search goes. The router judged the
// question from its words; a search that found nothing is new evidence:
//
//   - the documents had nothing, and the question names an entity of the
//     knowledge graph ("Who makes Geitost?") → the graph, once;
//   - the graph had nothing, the question names no entity of it and
//     speaks of documents ("eligible", "policy", "how") → the documents,
//     once;
//   - the web had nothing, and the question names an entity → the graph;
//     or it is about the company's own things ("our", "policy") → the
//     documents;
//   - otherwise the same route.
//
// Only routes the agent offers (req.Routes) are chosen. The web is never
// chosen: the agent's web fallback asks it when the rewrites are spent.
func (b *Brain) rewriteRoute(ctx context.Context, question string, req agent.RewriteRequest) (agent.Route, string, error) {
	// can reports whether r is another route the agent offers, not yet asked.
	can := func(r agent.Route) bool {
		return r != req.Route && slices.Contains(req.Routes, r) && triedOn(req.Tried, r) == 0
	}
	names, err := b.entities(ctx, question)
	if err != nil {
		return "", "", err
	}
	switch req.Route {
	case agent.RouteVector, agent.RouteWeb:
		if len(names) > 0 && can(agent.RouteGraph) {
			what := names[0].Name // "Geitost (a product)"
			if len(names[0].Labels) > 0 {
				what += " (" + article(strings.ToLower(names[0].Labels[0])) + ")"
			}
			return agent.RouteGraph, what + " is in the knowledge graph", nil
		}
		if req.Route == agent.RouteWeb && can(agent.RouteVector) {
			if hasAny(padded(words.Tokens(question)), internalWords) {
				return agent.RouteVector, "the web had nothing; it may be in our documents", nil
			}
		}
	case agent.RouteGraph:
		if can(agent.RouteVector) && len(names) == 0 && aboutDocuments(question) {
			return agent.RouteVector, "the knowledge graph had nothing relevant", nil
		}
	}
	return req.Route, "", nil
}

// docWords mark a question about a document even when it has a graph's
// form: "Which customers are eligible for refunds?" wants the policy.
var docWords = setOf(`policy policies procedure process handbook guide guideline eligible
eligibility rule rules allowed document documentation how`)

// aboutDocuments reports whether a question speaks of what documents say
// (a policy, a procedure, who is eligible or allowed, how something is
// done): words that make a graph-shaped question ("Which customers are
// eligible for refunds?") a question for the documents too. A question with
// only the graph's shape ("Who supplies Globex?") stays with the graph,
// which knows who supplies whom even when it does not know Globex.
func aboutDocuments(question string) bool {
	for _, t := range words.Tokens(question) {
		if docWords[t.Lower] {
			return true
		}
	}
	return false
}

// article puts "a" or "an" before a noun.
func article(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}

// expandedQuery is the keywords followed by their related words (WordNet's
// derived forms and synonyms, see relatedTo): the first of each keyword's,
// then the second of each, and so on, so that every keyword is represented
// before the query is full. Frame words ("how long", "limit") get none:
// they are not what the documents are about.
func expandedQuery(kws []keyword) string {
	var ws []string
	seen := make(map[string]bool)
	add := func(w string) {
		if len(ws) < maxQueryTerms && !seen[strings.ToLower(w)] {
			seen[strings.ToLower(w)] = true
			ws = append(ws, w)
		}
	}
	for _, k := range kws {
		add(k.Lower)
	}
	for r, more := 0, true; more && len(ws) < maxQueryTerms; r++ {
		more = false
		for _, k := range kws {
			if rel := relatedTo(k.Lower); r < len(rel) && !k.frame {
				add(rel[r].text)
				more = true
			}
		}
	}
	return strings.Join(ws, " ")
}
