package graphwalk

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/kb/words"
)

// Bounds of the graph walk.
const (
	defaultHops     = 2
	defaultMaxEdges = 40   // facts in one document
	nodeFanout      = 15   // edges read per node, so one hub cannot fill a document alone
	maxLabelNodes   = 25   // entities listed for a label ("customers")
	maxRankedNodes  = 5000 // nodes of one label read to rank them
	defaultTopN     = 5    // "top customers" without a number
	maxTopN         = 50
	maxNeighbours   = 20  // related entities whose properties are listed
	maxQueryWords   = 512 // words of the question examined
)

// Walker is the entity-neighbourhood walk over a Store. It finds where to
// start in the query, in this order, and answers from the first step
// that finds anything:
//
//  1. Rankings. "top 3 customers", "5 largest suppliers": a ranking word
//     (top, largest, biggest, leading) near a word naming a label, with
//     an optional number (default 5). The label's nodes are ordered by a
//     numeric property: one whose name the query mentions ("by orders"),
//     else the first present of revenue, sales, turnover, spend, orders,
//     volume, amount, value, ARR, MRR, score, rank — highest first,
//     except rank and position, lowest first. Values like "$1.2M" and
//     "3,400" parse. Without such a property the question falls through
//     to step 3.
//  2. Named entities: nodes whose names the query mentions, as
//     Index.Match finds them. One document per entity.
//  3. Labels and name fragments: words that name a label ("customers" →
//     Customer) give one document listing that label's entities, and the
//     remaining words match the start of words in node names ("Globex" →
//     "Globex Corporation"), one document per entity.
//
// From the start nodes it walks Hops hops along edges in both directions,
// reading at most MaxEdges edges per document. Each document lists the
// facts as lines "Name (Label) -[TYPE]-> Name (Label) {props}", the start
// entity's properties and those of its neighbours, so the generator has
// short lines to cite. When the query also names another label than the
// start's ("suppliers connected to our top customers"), the document
// begins with the paths from the starts to entities of that label.
type Walker struct {
	// Store is the graph walked.
	Store Store

	// Hops is how far the walk goes from a named entity: 1 or 2. Zero
	// means 2. Lists and rankings walk one hop.
	Hops int
	// MaxEdges bounds the facts in one document. Zero means 40.
	MaxEdges int
}

// Retrieve returns up to limit documents describing the parts of the
// graph that query is about, best first. Finding nothing is not an error:
// it returns no documents. The documents' Score and Route are left for
// the retriever to set.
func (w Walker) Retrieve(ctx context.Context, query string, limit int) ([]agent.Document, error) {
	idx, err := w.Store.EntityIndex(ctx)
	if err != nil {
		return nil, err
	}
	qtoks := words.Split(query, maxQueryWords)

	if t, ok := parseTop(qtoks, idx); ok {
		doc, ok, err := w.ranking(ctx, idx, t, qtoks)
		if err != nil {
			return nil, err
		}
		if ok {
			return []agent.Document{doc}, nil
		}
	}

	starts, err := w.nodesOf(ctx, idx.Match(query), limit)
	if err != nil {
		return nil, err
	}
	if len(starts) > 0 {
		return w.neighbourhoods(ctx, idx, starts, qtoks)
	}

	var docs []agent.Document
	labels, rest := labelWords(qtoks, idx)
	for _, l := range labels {
		if len(docs) == limit {
			return docs, nil
		}
		doc, ok, err := w.labelList(ctx, l, qtoks)
		if err != nil {
			return nil, err
		}
		if ok {
			docs = append(docs, doc)
		}
	}
	starts, err = w.nodesOf(ctx, idx.fragments(rest, limit-len(docs)), limit-len(docs))
	if err != nil {
		return nil, err
	}
	more, err := w.neighbourhoods(ctx, idx, starts, qtoks)
	if err != nil {
		return nil, err
	}
	return append(docs, more...), nil
}

func (w Walker) hops() int {
	if w.Hops == 1 {
		return 1
	}
	return defaultHops
}

func (w Walker) maxEdges() int {
	if w.MaxEdges > 0 {
		return w.MaxEdges
	}
	return defaultMaxEdges
}

// nodesOf returns the nodes carrying the names of es, in the order of es
// (each name's nodes in id order), at most limit.
func (w Walker) nodesOf(ctx context.Context, es []*Entity, limit int) ([]Node, error) {
	var ids []string
	for _, e := range es {
		for _, id := range e.IDs {
			if len(ids) < limit {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	return w.Store.NodesByIDs(ctx, ids)
}

// walk reads the edges around starts breadth first, up to hops hops and
// limit edges, and returns them nearest first with the number of hops that
// found anything. Edges of the types the question names (rel) are taken
// first, from every node of a hop, and listed first; then each node of the
// hop gets an equal share of the edges left, at least two, so that one hub
// cannot crowd out its siblings.
func (w Walker) walk(ctx context.Context, starts []Node, hops, limit int, rel relMatcher) ([]Fact, int, error) {
	var facts []Fact
	reached := 0
	seenEdge := map[string]bool{}
	seenNode := map[string]bool{}
	var frontier []string
	for _, n := range starts {
		seenNode[n.ID] = true
		frontier = append(frontier, n.ID)
	}
	var next []string
	take := func(f Fact, hop int) {
		seenEdge[f.ID] = true
		facts = append(facts, f)
		reached = hop
		for _, other := range []string{f.Src.ID, f.Dst.ID} {
			if !seenNode[other] {
				seenNode[other] = true
				next = append(next, other)
			}
		}
	}
	for hop := 1; hop <= hops && len(frontier) > 0 && len(facts) < limit; hop++ {
		// Reading more than the share leaves room for the edges already
		// listed, which come back from their other end.
		all, err := w.edgesOf(ctx, frontier, rel)
		if err != nil {
			return nil, 0, fmt.Errorf("walk hop %d from %d nodes: %w", hop, len(frontier), err)
		}
		next = nil
		// The relations the question names come first, before the share.
		for i, fs := range all {
			var rest []Fact
			for _, f := range fs {
				if !rel.matches(f.Type) {
					if len(rest) < nodeFanout {
						rest = append(rest, f)
					}
					continue
				}
				if len(facts) < limit && !seenEdge[f.ID] {
					take(f, hop)
				}
			}
			if len(fs) > nodeFanout {
				all[i] = rest
			}
		}
		share := max(2, (limit-len(facts))/len(frontier))
		for _, fs := range all {
			if len(facts) >= limit {
				return relationsFirst(facts, rel), reached, nil
			}
			added := 0
			for _, f := range fs {
				if added == share || len(facts) == limit {
					break
				}
				if seenEdge[f.ID] {
					continue
				}
				take(f, hop)
				added++
			}
		}
		frontier = next
	}
	return relationsFirst(facts, rel), reached, nil
}

// edgesOf reads the edges of ids as walk takes them: nodeFanout per node,
// and when the question may name a relation, more of the nodes whose
// edges that bound cut, so that the edge asked about is not among those
// cut. A node's list is longer than nodeFanout only when it was read again.
func (w Walker) edgesOf(ctx context.Context, ids []string, rel relMatcher) ([][]Fact, error) {
	all, err := w.Store.EdgesOf(ctx, ids, nodeFanout)
	if err != nil || !rel.active() {
		return all, err
	}
	var cut []string
	var at []int
	for i, fs := range all {
		if len(fs) >= nodeFanout {
			cut = append(cut, ids[i])
			at = append(at, i)
		}
	}
	if len(cut) == 0 {
		return all, nil
	}
	more, err := w.Store.EdgesOf(ctx, cut, maxTypedFanout)
	if err != nil {
		return nil, err
	}
	for j, i := range at {
		if j < len(more) && len(more[j]) > nodeFanout {
			// Keep the first read's edges first, so that the share taken
			// from them is the same as without the question's relations.
			fs := append([]Fact(nil), all[i]...)
			seen := map[string]bool{}
			for _, f := range fs {
				seen[f.ID] = true
			}
			for _, f := range more[j] {
				if !seen[f.ID] {
					fs = append(fs, f)
				}
			}
			all[i] = fs
		}
	}
	return all, nil
}

// neighbourhoods returns one document per start node.
func (w Walker) neighbourhoods(ctx context.Context, idx *Index, starts []Node, qtoks []string) ([]agent.Document, error) {
	var docs []agent.Document
	for _, n := range starts {
		facts, reached, err := w.walk(ctx, []Node{n}, w.hops(), w.maxEdges(), newRelMatcher(qtoks))
		if err != nil {
			return nil, err
		}
		var b strings.Builder
		b.WriteString("Entity: " + nodeLine(n) + "\n")
		walk := fmt.Sprintf("neighbourhood of %s (%s)", n.Name, words.Plural(reached, "hop"))
		if len(facts) == 0 {
			b.WriteString("\nNo relations recorded.\n")
			walk = fmt.Sprintf("entity %s (no relations)", n.Name)
		} else {
			if err := w.writeConnections(ctx, &b, idx, []Node{n}, qtoks, n.Label); err != nil {
				return nil, err
			}
			writeFacts(&b, "Relations", facts)
			writeNeighbours(&b, facts, map[string]bool{n.ID: true})
		}
		md := factMetadata(facts)
		md["node"], md["label"], md["hops"] = n.ID, n.Label, strconv.Itoa(reached)
		doc := walked(agent.Document{
			ID:       "graph:" + n.ID,
			Title:    "Knowledge graph: neighbourhood of " + n.Name,
			Content:  strings.TrimRight(b.String(), "\n"),
			Metadata: md,
		}, walk)
		if link := soleLink(facts); link != "" { // one message states them all (sources.go)
			doc.Location, doc.Walk = link, ""
		}
		docs = append(docs, doc)
	}
	return docs, nil
}

// walked is d as a walk's result: of KindGraph, the walk in words in Walk
// (which the presenter shows), and in Location as the model reads it
// among the sources, "graph: …".
func walked(d agent.Document, walk string) agent.Document {
	d.Kind, d.Walk, d.Location = agent.KindGraph, walk, "graph: "+walk
	return d
}

// labelList returns one document listing the entities of a label and
// their direct relations; ok is false when the label has no nodes.
func (w Walker) labelList(ctx context.Context, label string, qtoks []string) (agent.Document, bool, error) {
	total, err := w.Store.CountLabel(ctx, label)
	if err != nil {
		return agent.Document{}, false, err
	}
	nodes, err := w.Store.NodesOfLabel(ctx, label, ByName, maxLabelNodes)
	if err != nil || len(nodes) == 0 {
		return agent.Document{}, false, err
	}
	facts, _, err := w.walk(ctx, nodes, 1, w.maxEdges(), newRelMatcher(qtoks))
	if err != nil {
		return agent.Document{}, false, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s entities (%d of %d):\n", label, len(nodes), total)
	for _, n := range nodes {
		b.WriteString(nodeLine(n) + "\n")
	}
	writeFacts(&b, "Relations", facts)
	md := factMetadata(facts)
	md["label"] = label
	return walked(agent.Document{
		ID:       "graph:label:" + label,
		Title:    "Knowledge graph: " + label + " entities",
		Content:  strings.TrimRight(b.String(), "\n"),
		Metadata: md,
	}, fmt.Sprintf("%s entities (%d of %d) and their relations (1 hop)", label, len(nodes), total)), true, nil
}

// labelWords splits query words into the labels they name ("suppliers" →
// Supplier), in order of mention, and the other words.
func labelWords(toks []string, idx *Index) (found []string, rest []string) {
	seen := map[string]bool{}
	for _, t := range toks {
		l, ok := idx.Label(t)
		switch {
		case !ok:
			rest = append(rest, t)
		case !seen[l]:
			seen[l] = true
			found = append(found, l)
		}
	}
	return found, rest
}

// topQuery is a parsed "top N <label>" question.
type topQuery struct {
	n     int
	label string
}

var rankWords = map[string]bool{"top": true, "largest": true, "biggest": true, "leading": true}

var numberWords = map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
	"six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "twenty": 20}

func countWord(t string) (int, bool) {
	if n, ok := numberWords[t]; ok {
		return n, true
	}
	n, err := strconv.Atoi(t)
	return n, err == nil && n > 0
}

// parseTop recognises "top 3 customers", "top customers", "5 largest
// suppliers", "the three biggest customers by revenue": a ranking word, a
// count just before or after it, and a label within the next three words.
func parseTop(toks []string, idx *Index) (topQuery, bool) {
	for i, t := range toks {
		if !rankWords[t] {
			continue
		}
		n, j := 0, i+1
		if j < len(toks) {
			if c, ok := countWord(toks[j]); ok {
				n, j = c, j+1
			}
		}
		if n == 0 && i > 0 {
			n, _ = countWord(toks[i-1])
		}
		for k := j; k < len(toks) && k < j+3; k++ {
			if l, ok := idx.Label(toks[k]); ok {
				if n <= 0 {
					n = defaultTopN
				}
				return topQuery{n: min(n, maxTopN), label: l}, true
			}
		}
	}
	return topQuery{}, false
}

// rankKeys are the properties a ranking uses when the question names none,
// in order of preference; ascending ones rank 1 first.
var (
	rankKeys  = []string{"revenue", "sales", "turnover", "spend", "orders", "volume", "amount", "value", "arr", "mrr", "score", "rank", "ranking", "position"}
	ascending = map[string]bool{"rank": true, "ranking": true, "position": true}
)

// ranking answers a topQuery; ok is false when the label's nodes have no
// numeric property to rank by. Values are stored as text ("$1.2M"), so
// they are read and ranked here rather than by the store.
func (w Walker) ranking(ctx context.Context, idx *Index, t topQuery, qtoks []string) (agent.Document, bool, error) {
	nodes, err := w.Store.NodesOfLabel(ctx, t.label, ByID, maxRankedNodes)
	if err != nil || len(nodes) == 0 {
		return agent.Document{}, false, err
	}
	key, asc := rankKey(nodes, qtoks)
	if key == "" {
		return agent.Document{}, false, nil
	}
	type ranked struct {
		n Node
		v float64
	}
	var rs []ranked
	for _, n := range nodes {
		if v, ok := parseNumber(n.Props[key]); ok {
			rs = append(rs, ranked{n, v})
		}
	}
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].v != rs[j].v {
			return (rs[i].v < rs[j].v) == asc
		}
		return rs[i].n.Name < rs[j].n.Name
	})
	withKey := len(rs)
	if len(rs) > t.n {
		rs = rs[:t.n]
	}
	order := "highest first"
	if asc {
		order = "lowest first"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Top %d %s by %s (%s, of %d %s entities with a %s):\n",
		len(rs), t.label, key, order, withKey, t.label, key)
	top := make([]Node, len(rs))
	for i, x := range rs {
		top[i] = x.n
		fmt.Fprintf(&b, "%d. %s\n", i+1, nodeLine(x.n))
	}
	facts, _, err := w.walk(ctx, top, 1, w.maxEdges(), newRelMatcher(qtoks))
	if err != nil {
		return agent.Document{}, false, err
	}
	if err := w.writeConnections(ctx, &b, idx, top, qtoks, t.label); err != nil {
		return agent.Document{}, false, err
	}
	writeFacts(&b, "Relations of these entities", facts)
	md := factMetadata(facts)
	md["label"], md["ranked_by"], md["top"] = t.label, key, strconv.Itoa(len(rs))
	return walked(agent.Document{
		ID:       fmt.Sprintf("graph:top:%s:%s:%d", t.label, key, len(rs)),
		Title:    fmt.Sprintf("Knowledge graph: top %d %s by %s", len(rs), t.label, key),
		Content:  strings.TrimRight(b.String(), "\n"),
		Metadata: md,
	}, fmt.Sprintf("%s entities ranked by %s (top %d of %d)", t.label, key, len(rs), withKey)), true, nil
}

// rankKey picks the numeric property to rank nodes by: one the query
// names, else the first of rankKeys that some node has. Property names are
// compared on their words, so "orders" finds "order_count".
func rankKey(nodes []Node, qtoks []string) (key string, asc bool) {
	numeric := map[string][]string{} // property → its words
	for _, n := range nodes {
		for k, v := range n.Props {
			if _, ok := numeric[k]; !ok {
				if _, ok := parseNumber(v); ok {
					numeric[k] = words.Split(k, 8)
				}
			}
		}
	}
	keys := make([]string, 0, len(numeric))
	for k := range numeric {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	isAsc := func(k string) bool {
		for _, w := range numeric[k] {
			if ascending[w] {
				return true
			}
		}
		return false
	}
	has := func(k, w string) bool {
		for _, kw := range numeric[k] {
			if kw == w || words.Singular(kw) == words.Singular(w) {
				return true
			}
		}
		return false
	}
	for _, q := range qtoks {
		if words.IsStop(q) {
			continue
		}
		for _, k := range keys {
			if has(k, q) {
				return k, isAsc(k)
			}
		}
	}
	for _, w := range rankKeys {
		for _, k := range keys {
			if has(k, w) {
				return k, isAsc(k)
			}
		}
	}
	return "", false
}

// numberNoise is what parseNumber strips from a number. A Replacer builds
// its tables on first use, so it is made once: rankings parse every
// property of every node of a label.
var numberNoise = strings.NewReplacer(",", "", "_", "", " ", "", "%", "")

// parseNumber reads amounts as people write them: "1200", "3,400",
// "$1.2M", "EUR 5k", "12%".
func parseNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	for _, p := range []string{"usd", "eur", "gbp", "$", "€", "£", "¥"} {
		if len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
			s = strings.TrimSpace(s[len(p):])
		}
	}
	s = numberNoise.Replace(s)
	mult := 1.0
	low := strings.ToLower(s)
	for _, u := range []struct {
		suffix string
		m      float64
	}{{"bn", 1e9}, {"mn", 1e6}, {"k", 1e3}, {"m", 1e6}, {"b", 1e9}} {
		if strings.HasSuffix(low, u.suffix) {
			s, mult = s[:len(s)-len(u.suffix)], u.m
			break
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v * mult, true
}
