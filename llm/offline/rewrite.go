package offline

import (
	"context"
	"slices"
	"strings"
)

// maxQueryTerms bounds a rewritten query; search backends gain nothing from
// more.
const maxQueryTerms = 16

// Rewrite makes a new search query from the question's keywords. Each
// attempt tries a different idea:
//
//  1. the keywords alone, without the question's filler words;
//  2. the keywords plus synonyms from a small table (refund → return,
//     reimbursement), for documents that use other words;
//  3. only the two or three most specific keywords, for documents that
//     mention the topic without the rest of the question's words.
//
// If an attempt's query equals the previous one it tries the next idea, then
// the keywords' stems, so the query changes whenever it can. It always returns a non-empty query.
func (b *Brain) Rewrite(ctx context.Context, question, query string, attempt int) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	kws := keywords(clip(question, maxQuestion))
	if len(kws) == 0 {
		kws = keywords(clip(query, maxQuestion))
	}
	if len(kws) == 0 {
		// Nothing but stopwords: the words themselves are all there is.
		if q := strings.Join(strings.Fields(clip(question, 300)), " "); q != "" {
			return q, nil
		}
		if q := strings.Join(strings.Fields(clip(query, 300)), " "); q != "" {
			return q, nil
		}
		return "help", nil
	}
	ideas := []func([]keyword) string{plainQuery, expandedQuery, specificQuery}
	first := min(max(attempt, 1), len(ideas)) - 1
	prev := normaliseQuery(query)
	for i := range ideas {
		q := ideas[(first+i)%len(ideas)](kws)
		if q != "" && normaliseQuery(q) != prev {
			return q, nil
		}
	}
	// A one-word question gives the same query every time; its stems
	// ("moonlight" for "moonlighting") are the last idea left.
	if q := stemQuery(kws); normaliseQuery(q) != prev {
		return q, nil
	}
	return plainQuery(kws), nil
}

func normaliseQuery(q string) string {
	return strings.Join(strings.Fields(strings.ToLower(q)), " ")
}

// plainQuery is the keywords, lowercased, in the question's order.
func plainQuery(kws []keyword) string {
	var ws []string
	for _, k := range kws[:min(len(kws), maxQueryTerms)] {
		ws = append(ws, k.lower)
	}
	return strings.Join(ws, " ")
}

// stemQuery is the keywords' stems, which match more forms of each word
// in backends that match by prefix.
func stemQuery(kws []keyword) string {
	var ws []string
	for _, k := range kws[:min(len(kws), maxQueryTerms)] {
		ws = append(ws, k.stem)
	}
	return strings.Join(ws, " ")
}

// expandedQuery is the keywords, each followed by its synonyms.
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
		add(k.lower)
		for _, s := range synonyms[k.stem] {
			add(s)
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
		return len(kb.lower) - len(ka.lower)
	})
	idx = idx[:n]
	slices.Sort(idx)
	ws := make([]string, 0, n)
	for _, i := range idx {
		ws = append(ws, kws[i].lower)
	}
	return strings.Join(ws, " ")
}
