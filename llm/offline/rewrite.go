package offline

import (
	"context"
	"slices"
	"strings"
	"unicode"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/kb/words"
)

// maxQueryTerms bounds a rewritten query; search backends gain nothing from
// more.
const maxQueryTerms = 16

// Rewrite proposes a new search after one found nothing relevant: first
// where to look (see rewriteRoute), then a query never sent there before.
//
// The queries for a route are tried in this order, starting after as many
// as that route has already been asked, and skipping any already searched
// there:
//
//  0. the question itself, for a route that has not seen it (a switch);
//  1. the keywords alone, without the question's filler words;
//  2. the keywords plus their related words from WordNet (retain →
//     retention, car → automobile; see related.go), for documents that use
//     other words;
//  3. only the two or three most specific keywords, for documents that
//     mention the topic without the rest of the question's words;
//  4. the keywords' stems ("moonlight" for "moonlighting").
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
	done := 0
	for _, t := range req.Tried {
		if t.Route == route {
			done++
		}
	}
	for i := range ideas {
		q := ideas[(done+i)%len(ideas)]
		if !agent.Searched(req.Tried, q, route) {
			return agent.Rewrite{Query: q, Route: route, Reason: reason}, nil
		}
	}
	return agent.Rewrite{Query: ideas[min(1, len(ideas)-1)], Route: route}, nil
}

// queryIdeas are the candidate queries of Rewrite, in order; none is empty
// and there is at least one.
func queryIdeas(question string, tried []agent.Tried) []string {
	var ideas []string
	add := func(q string) {
		if q = strings.TrimSpace(q); q != "" && !slices.Contains(ideas, q) {
			ideas = append(ideas, q) // one idea once: a word may have no related words
		}
	}
	add(strings.Join(strings.Fields(clip(question, 1000)), " "))
	kws := keywords(question)
	if len(kws) == 0 && len(tried) > 0 {
		kws = keywords(clip(tried[len(tried)-1].Query, maxQuestion))
	}
	if len(kws) > 0 {
		add(plainQuery(kws))
		add(expandedQuery(kws))
		add(specificQuery(kws))
		add(stemQuery(kws))
	} else {
		// Nothing but stopwords: the words themselves are all there is.
		add(strings.ToLower(strings.Join(strings.Fields(clip(question, 300)), " ")))
		if len(tried) > 0 {
			add(strings.Join(strings.Fields(clip(tried[len(tried)-1].Query, 300)), " "))
		}
	}
	if len(ideas) == 0 {
		ideas = append(ideas, "help")
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
	asked := func(r agent.Route) int {
		n := 0
		for _, t := range req.Tried {
			if t.Route == r {
				n++
			}
		}
		return n
	}
	can := func(r agent.Route) bool { return r != req.Route && slices.Contains(req.Routes, r) }
	names, err := b.graphNames(ctx, question)
	if err != nil {
		return "", "", err
	}
	switch req.Route {
	case agent.RouteVector, agent.RouteWeb:
		if len(names) > 0 && can(agent.RouteGraph) && asked(agent.RouteGraph) == 0 {
			return agent.RouteGraph, names[0].what + " is in the knowledge graph", nil
		}
		if req.Route == agent.RouteWeb && can(agent.RouteVector) && asked(agent.RouteVector) == 0 {
			toks := words.Tokens(question)
			if hasAny(" "+strings.Join(lowers(toks), " ")+" ", internalWords) {
				return agent.RouteVector, "the web had nothing; it may be in our documents", nil
			}
		}
	case agent.RouteGraph:
		if can(agent.RouteVector) && asked(agent.RouteVector) == 0 && len(names) == 0 && aboutDocuments(question) {
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

// graphName is an entity of the knowledge graph that a question names.
type graphName struct {
	name string
	what string // for a reason: "Geitost (a product)"
}

// graphNames returns the graph entities the question names as names: with
// a capital letter where the question has any ("Who makes Geitost?"), so
// that an entity called Produce does not send "How do I produce a
// report?" to the graph. An all-lowercase question is taken at its word.
//
// This is the rewriter's one hook into the graph: the entity index of the
// offline Brain (b.index), as the router uses it.
func (b *Brain) graphNames(ctx context.Context, question string) ([]graphName, error) {
	idx, err := b.index(ctx)
	if err != nil || idx == nil {
		return nil, err
	}
	toks := words.Tokens(question)
	cased := question != strings.ToLower(question)
	var out []graphName
	for _, e := range idx.Match(question) {
		if cased && !writtenAsName(toks, e.Name) {
			continue
		}
		what := e.Name
		if len(e.Labels) > 0 {
			what += " (" + article(strings.ToLower(e.Labels[0])) + ")"
		}
		out = append(out, graphName{name: e.Name, what: what})
	}
	return out, nil
}

// writtenAsName reports whether the words of name occur in toks with a
// capital letter among them. A name the tokens cannot find (other
// punctuation than the index's) counts as written as a name.
func writtenAsName(toks []words.Token, name string) bool {
	want := words.Tokens(name)
	if len(want) == 0 {
		return false
	}
	for i := 0; i+len(want) <= len(toks); i++ {
		match, upper := true, false
		for j, w := range want {
			if toks[i+j].Lower != w.Lower {
				match = false
				break
			}
			upper = upper || strings.IndexFunc(toks[i+j].Text, unicode.IsUpper) >= 0
		}
		if match {
			return upper
		}
	}
	return true
}

// article puts "a" or "an" before a noun.
func article(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}

// plainQuery is the keywords, lowercased, in the question's order.
func plainQuery(kws []keyword) string {
	var ws []string
	for _, k := range kws[:min(len(kws), maxQueryTerms)] {
		ws = append(ws, k.Lower)
	}
	return strings.Join(ws, " ")
}

// stemQuery is the keywords' stems, which match more forms of each word
// in backends that match by prefix.
func stemQuery(kws []keyword) string {
	var ws []string
	for _, k := range kws[:min(len(kws), maxQueryTerms)] {
		ws = append(ws, k.Stem)
	}
	return strings.Join(ws, " ")
}

// expandedQuery is the keywords followed by their related words (WordNet's
// derived forms and synonyms, see relatedTo): the first
// synonym of each specific keyword, then of each generic one, then the
// second of each, and so on, so that every keyword is represented before
// the query is full. Frame words ("how long", "limit") get none: they are
// not what the documents are about.
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
	var specific, rest [][]string
	for _, k := range kws {
		var syns []string
		for _, r := range relatedTo(k.Lower) {
			syns = append(syns, r.text)
		}
		switch {
		case len(syns) == 0 || k.frame:
		case k.weight == 1:
			specific = append(specific, syns)
		default:
			rest = append(rest, syns)
		}
	}
	for _, group := range [][][]string{specific, rest} {
		for r := 0; len(ws) < maxQueryTerms; r++ {
			more := false
			for _, syns := range group {
				if r < len(syns) {
					add(syns[r])
					more = true
				}
			}
			if !more {
				break
			}
		}
	}
	return strings.Join(ws, " ")
}

// specificQuery keeps the most specific keywords: specific before generic,
// then longer before shorter (long words are rarer), at most three and
// always one fewer than the question has, so that it differs from the
// plain query. They stay in the question's order.
func specificQuery(kws []keyword) string {
	n := 3
	if len(kws) <= 3 {
		n = max(len(kws)-1, 1)
	}
	idx := make([]int, len(kws))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		ka, kb := kws[a], kws[b]
		if ka.weight != kb.weight {
			if ka.weight > kb.weight {
				return -1
			}
			return 1
		}
		return len(kb.Lower) - len(ka.Lower)
	})
	idx = idx[:n]
	slices.Sort(idx)
	ws := make([]string, 0, n)
	for _, i := range idx {
		ws = append(ws, kws[i].Lower)
	}
	return strings.Join(ws, " ")
}
