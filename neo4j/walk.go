package neo4j

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"

	"github.com/switchboard/switchboard/agent"
)

// This file is the entity-neighbourhood walk: the graph route without a
// language model, and its fallback when generated Cypher finds nothing.
// It is package sqlite's GraphRetriever over Neo4j, step for step, so the
// two backends give the same documents for the same graph; only the
// queries differ. See GraphRetriever for what it does.

// Bounds of the graph walk, as in package sqlite.
const (
	defaultHops     = 2
	defaultMaxEdges = 40   // facts in one document
	nodeFanout      = 15   // edges read per node, so one hub cannot fill a document alone
	maxLabelNodes   = 25   // entities listed for a label ("customers")
	maxRankedNodes  = 5000 // nodes of one label read to rank them
	defaultTopN     = 5    // "top customers" without a number
	maxTopN         = 50
	maxNeighbours   = 20 // related entities whose properties are listed
	maxPropsShown   = 8  // properties printed per node or edge
	defaultLimit    = 6  // documents when the request sets no limit
)

// node is a stored node as the walk reads it.
type node struct {
	ID    string
	Label string
	Name  string
	Props map[string]string
}

// nodeFromDB converts a driver node: its own label is the first one other
// than Entity, and id, name and source are fields, not props.
func nodeFromDB(n dbtype.Node) node {
	out := node{Props: map[string]string{}}
	labels := append([]string(nil), n.Labels...)
	sort.Strings(labels)
	for _, l := range labels {
		if l != entityLabel {
			out.Label = l
			break
		}
	}
	for k, v := range n.Props {
		switch k {
		case "id":
			out.ID = propString(v)
		case "name":
			out.Name = propString(v)
		case "source":
		default:
			out.Props[k] = propString(v)
		}
	}
	if out.Name == "" {
		out.Name = out.ID
	}
	return out
}

// ref is how a node is written in a fact: "Acme Corp (Supplier)".
func (n node) ref() string {
	if n.Label == "" {
		return n.Name
	}
	return n.Name + " (" + n.Label + ")"
}

// fact is one relationship with both ends.
type fact struct {
	id       string // element id
	src, dst node
	typ      string
	props    map[string]string
	origin   string
}

// String writes the fact as a line of a document.
func (f fact) String() string {
	s := f.src.ref() + " -[" + f.typ + "]-> " + f.dst.ref()
	if p := formatProps(f.props, maxPropsShown); p != "" {
		s += " " + p
	}
	return s
}

// readNodes runs a query returning one node per record.
func (g *Graph) readNodes(ctx context.Context, cypher string, params map[string]any) ([]node, error) {
	recs, err := g.read(ctx, cypher, params)
	if err != nil {
		return nil, err
	}
	out := make([]node, 0, len(recs))
	for _, r := range recs {
		if n, ok := r.Values[0].(dbtype.Node); ok {
			out = append(out, nodeFromDB(n))
		}
	}
	return out, nil
}

// nodesByIDs returns the nodes with the given ids, in the order of ids.
func (g *Graph) nodesByIDs(ctx context.Context, ids []string) ([]node, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return g.readNodes(ctx, `UNWIND range(0, size($ids) - 1) AS i
		MATCH (n:Entity {id: $ids[i]})
		RETURN n ORDER BY i`, map[string]any{"ids": anys(ids)})
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// nodesByNames returns the nodes called by each of names (as the entity
// index found them), in the order of names, at most limit.
func (g *Graph) nodesByNames(ctx context.Context, names []*entityName, limit int) ([]node, error) {
	var ids []string
	for _, e := range names {
		for _, id := range e.ids {
			if len(ids) < limit {
				ids = append(ids, id)
			}
		}
	}
	return g.nodesByIDs(ctx, ids)
}

// edgesOf returns, for each id, up to n relationships touching that node
// in either direction, ordered by type so that a node's relations of one
// kind are listed together. One query serves a whole frontier of the walk.
func (g *Graph) edgesOf(ctx context.Context, ids []string, n int) ([][]fact, error) {
	out := make([][]fact, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	recs, err := g.read(ctx, `UNWIND range(0, size($ids) - 1) AS i
		CALL (i) {
			MATCH (:Entity {id: $ids[i]})-[r]-(:Entity)
			WITH DISTINCT r
			ORDER BY type(r), elementId(r)
			LIMIT $n
			RETURN r
		}
		RETURN i, r, startNode(r) AS s, endNode(r) AS t
		ORDER BY i, type(r), elementId(r)`, map[string]any{"ids": anys(ids), "n": n})
	if err != nil {
		return nil, err
	}
	for _, rec := range recs {
		i, _ := rec.Values[0].(int64)
		r, ok1 := rec.Values[1].(dbtype.Relationship)
		s, ok2 := rec.Values[2].(dbtype.Node)
		t, ok3 := rec.Values[3].(dbtype.Node)
		if !ok1 || !ok2 || !ok3 || i < 0 || int(i) >= len(ids) {
			continue
		}
		f := fact{id: r.ElementId, typ: r.Type, src: nodeFromDB(s), dst: nodeFromDB(t), props: map[string]string{}}
		for k, v := range r.Props {
			if k == "origin" {
				f.origin = propString(v)
			} else {
				f.props[k] = propString(v)
			}
		}
		out[i] = append(out[i], f)
	}
	return out, nil
}

// walk reads the edges around starts breadth first, up to hops hops and
// limit edges, and returns them nearest first with the number of hops that
// found anything. Each node of a hop gets an equal share of the edges
// left, at least two, so that one hub cannot crowd out its siblings.
func (r *GraphRetriever) walk(ctx context.Context, starts []node, hops, limit int) ([]fact, int, error) {
	var facts []fact
	reached := 0
	seenEdge := map[string]bool{}
	seenNode := map[string]bool{}
	var frontier []string
	for _, n := range starts {
		seenNode[n.ID] = true
		frontier = append(frontier, n.ID)
	}
	for hop := 1; hop <= hops && len(frontier) > 0 && len(facts) < limit; hop++ {
		share := max(2, (limit-len(facts))/len(frontier))
		// One query reads the whole frontier. Reading more than the share
		// leaves room for the edges already listed, which come back from
		// their other end.
		all, err := r.g.edgesOf(ctx, frontier, nodeFanout)
		if err != nil {
			return nil, 0, fmt.Errorf("walk hop %d from %d nodes: %w", hop, len(frontier), err)
		}
		var next []string
		for _, fs := range all {
			if len(facts) >= limit {
				return facts, reached, nil
			}
			added := 0
			for _, f := range fs {
				if added == share || len(facts) == limit {
					break
				}
				if seenEdge[f.id] {
					continue
				}
				seenEdge[f.id] = true
				facts = append(facts, f)
				added++
				reached = hop
				for _, other := range []string{f.src.ID, f.dst.ID} {
					if !seenNode[other] {
						seenNode[other] = true
						next = append(next, other)
					}
				}
			}
		}
		frontier = next
	}
	return facts, reached, nil
}

// walkRetrieve is the walk of GraphRetriever: rankings, then named
// entities, then labels and name fragments.
func (r *GraphRetriever) walkRetrieve(ctx context.Context, query string, limit int) ([]agent.Document, error) {
	idx, err := r.g.entities(ctx)
	if err != nil {
		return nil, err
	}
	qtoks := tokens(query, maxQueryTokens)

	if t, ok := parseTop(qtoks, idx.labels); ok {
		doc, ok, err := r.ranking(ctx, t, qtoks)
		if err != nil {
			return nil, err
		}
		if ok {
			return []agent.Document{doc}, nil
		}
	}

	starts, err := r.g.nodesByNames(ctx, idx.match(query), limit)
	if err != nil {
		return nil, err
	}
	if len(starts) > 0 {
		return r.neighbourhoods(ctx, starts, query)
	}

	var docs []agent.Document
	labels, rest := labelWords(qtoks, idx.labels)
	for _, l := range labels {
		if len(docs) == limit {
			return docs, nil
		}
		doc, ok, err := r.labelList(ctx, l)
		if err != nil {
			return nil, err
		}
		if ok {
			docs = append(docs, doc)
		}
	}
	starts, err = r.g.nodesByNames(ctx, idx.fragments(rest, limit-len(docs)), limit-len(docs))
	if err != nil {
		return nil, err
	}
	more, err := r.neighbourhoods(ctx, starts, query)
	if err != nil {
		return nil, err
	}
	return append(docs, more...), nil
}

func (r *GraphRetriever) hops() int {
	if r.Hops == 1 {
		return 1
	}
	return defaultHops
}

func (r *GraphRetriever) maxEdges() int {
	if r.MaxEdges > 0 {
		return r.MaxEdges
	}
	return defaultMaxEdges
}

// neighbourhoods returns one document per start node.
func (r *GraphRetriever) neighbourhoods(ctx context.Context, starts []node, query string) ([]agent.Document, error) {
	var docs []agent.Document
	for _, n := range starts {
		facts, reached, err := r.walk(ctx, []node{n}, r.hops(), r.maxEdges())
		if err != nil {
			return nil, err
		}
		var b strings.Builder
		b.WriteString("Entity: " + nodeLine(n) + "\n")
		where := fmt.Sprintf("graph: neighbourhood of %s (%s)", n.Name, plural(reached, "hop"))
		if len(facts) == 0 {
			b.WriteString("\nNo relations recorded.\n")
			where = fmt.Sprintf("graph: entity %s (no relations)", n.Name)
		} else {
			if err := r.writeConnections(ctx, &b, []node{n}, tokens(query, maxQueryTokens), n.Label); err != nil {
				return nil, err
			}
			writeFacts(&b, "Relations", facts)
			writeNeighbours(&b, facts, map[string]bool{n.ID: true})
		}
		md := factMetadata(facts)
		md["node"], md["label"], md["hops"] = n.ID, n.Label, strconv.Itoa(reached)
		docs = append(docs, agent.Document{
			ID:       "graph:" + n.ID,
			Title:    "Knowledge graph: neighbourhood of " + n.Name,
			Location: where,
			Content:  strings.TrimRight(b.String(), "\n"),
			Metadata: md,
		})
	}
	return docs, nil
}

// labelList returns one document listing the entities of a label and
// their direct relations; ok is false when the label has no nodes.
func (r *GraphRetriever) labelList(ctx context.Context, label string) (agent.Document, bool, error) {
	total, err := r.g.count(ctx, `MATCH (n:Entity:`+quote(label)+`) RETURN count(n)`)
	if err != nil {
		return agent.Document{}, false, err
	}
	nodes, err := r.g.readNodes(ctx, `MATCH (n:Entity:`+quote(label)+`)
		RETURN n ORDER BY n.name, n.id LIMIT $n`, map[string]any{"n": maxLabelNodes})
	if err != nil || len(nodes) == 0 {
		return agent.Document{}, false, err
	}
	facts, _, err := r.walk(ctx, nodes, 1, r.maxEdges())
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
	return agent.Document{
		ID:       "graph:label:" + label,
		Title:    "Knowledge graph: " + label + " entities",
		Location: fmt.Sprintf("graph: %s entities (%d of %d) and their relations (1 hop)", label, len(nodes), total),
		Content:  strings.TrimRight(b.String(), "\n"),
		Metadata: md,
	}, true, nil
}

// fragments returns up to limit names with a word starting with one of
// words ("globex" → "Globex Corporation"), shortest names first, skipping
// stopwords and words under three letters.
func (idx *entityIndex) fragments(words []string, limit int) []*entityName {
	var out []*entityName
	seen := map[string]bool{}
	for _, w := range words {
		if len(out) >= limit {
			break
		}
		if stopwords[w] || len([]rune(w)) < 3 {
			continue
		}
		var hits []*entityName
		for _, e := range idx.all {
			if strings.HasPrefix(e.norm, w) || strings.Contains(e.norm, " "+w) {
				hits = append(hits, e)
			}
		}
		sort.SliceStable(hits, func(i, j int) bool { return len(hits[i].norm) < len(hits[j].norm) })
		for _, e := range hits {
			if !seen[e.norm] && len(out) < limit {
				seen[e.norm] = true
				out = append(out, e)
			}
		}
	}
	return out
}

// labelWords splits query words into the labels they name ("suppliers" →
// Supplier), in order of mention, and the other words.
func labelWords(toks []string, labels map[string]string) (found []string, rest []string) {
	seen := map[string]bool{}
	for _, t := range toks {
		l, ok := labels[t]
		if !ok {
			l, ok = labels[singular(t)]
		}
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
func parseTop(toks []string, labels map[string]string) (topQuery, bool) {
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
			l, ok := labels[toks[k]]
			if !ok {
				l, ok = labels[singular(toks[k])]
			}
			if ok {
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
// they are read and ranked here rather than by ORDER BY.
func (r *GraphRetriever) ranking(ctx context.Context, t topQuery, qtoks []string) (agent.Document, bool, error) {
	nodes, err := r.g.readNodes(ctx, `MATCH (n:Entity:`+quote(t.label)+`)
		RETURN n ORDER BY n.id LIMIT $n`, map[string]any{"n": maxRankedNodes})
	if err != nil || len(nodes) == 0 {
		return agent.Document{}, false, err
	}
	key, asc := rankKey(nodes, qtoks)
	if key == "" {
		return agent.Document{}, false, nil
	}
	type ranked struct {
		n node
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
	top := make([]node, len(rs))
	for i, x := range rs {
		top[i] = x.n
		fmt.Fprintf(&b, "%d. %s\n", i+1, nodeLine(x.n))
	}
	facts, _, err := r.walk(ctx, top, 1, r.maxEdges())
	if err != nil {
		return agent.Document{}, false, err
	}
	if err := r.writeConnections(ctx, &b, top, qtoks, t.label); err != nil {
		return agent.Document{}, false, err
	}
	writeFacts(&b, "Relations of these entities", facts)
	md := factMetadata(facts)
	md["label"], md["ranked_by"], md["top"] = t.label, key, strconv.Itoa(len(rs))
	return agent.Document{
		ID:       fmt.Sprintf("graph:top:%s:%s:%d", t.label, key, len(rs)),
		Title:    fmt.Sprintf("Knowledge graph: top %d %s by %s", len(rs), t.label, key),
		Location: fmt.Sprintf("graph: %s entities ranked by %s (top %d of %d)", t.label, key, len(rs), withKey),
		Content:  strings.TrimRight(b.String(), "\n"),
		Metadata: md,
	}, true, nil
}

// rankKey picks the numeric property to rank nodes by: one the query
// names, else the first of rankKeys that some node has. Property names are
// compared on their words, so "orders" finds "order_count".
func rankKey(nodes []node, qtoks []string) (key string, asc bool) {
	numeric := map[string][]string{} // property → its words
	for _, n := range nodes {
		for k, v := range n.Props {
			if _, ok := numeric[k]; !ok {
				if _, ok := parseNumber(v); ok {
					numeric[k] = tokens(k, 8)
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
			if kw == w || singular(kw) == singular(w) {
				return true
			}
		}
		return false
	}
	for _, q := range qtoks {
		if stopwords[q] {
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

// parseNumber reads amounts as people write them: "1200", "3,400",
// "$1.2M", "EUR 5k", "12%".
func parseNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	for _, p := range []string{"usd", "eur", "gbp", "$", "€", "£", "¥"} {
		if len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
			s = strings.TrimSpace(s[len(p):])
		}
	}
	s = strings.NewReplacer(",", "", "_", "", " ", "", "%", "").Replace(s)
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

// nodeLine is a node with its properties: "Globex (Customer) {revenue: 5}".
func nodeLine(n node) string {
	if p := formatProps(n.Props, maxPropsShown); p != "" {
		return n.ref() + " " + p
	}
	return n.ref()
}

// formatProps renders properties as "{k: v, ...}" in key order, at most
// max of them, each value cut to a readable length.
func formatProps(p map[string]string, max int) string {
	if len(p) == 0 {
		return ""
	}
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) > max {
		keys = keys[:max]
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + clip(p[k], 80)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func writeFacts(b *strings.Builder, heading string, facts []fact) {
	if len(facts) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s:\n", heading)
	for _, f := range facts {
		b.WriteString(f.String() + "\n")
	}
}

// writeNeighbours lists the properties of the entities the facts reach,
// other than skip, so that "Globex's revenue" is in the document too.
func writeNeighbours(b *strings.Builder, facts []fact, skip map[string]bool) {
	var lines []string
	for _, f := range facts {
		for _, n := range []node{f.src, f.dst} {
			if skip[n.ID] || len(n.Props) == 0 || len(lines) == maxNeighbours {
				continue
			}
			skip[n.ID] = true
			lines = append(lines, nodeLine(n))
		}
	}
	if len(lines) == 0 {
		return
	}
	b.WriteString("\nRelated entities:\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
}

// factMetadata records how many facts a document holds and where they came
// from, for the presenter's source list.
func factMetadata(facts []fact) map[string]string {
	md := map[string]string{"facts": strconv.Itoa(len(facts))}
	var origins []string
	seen := map[string]bool{}
	for _, f := range facts {
		if f.origin != "" && !seen[f.origin] && len(origins) < 5 {
			seen[f.origin] = true
			origins = append(origins, f.origin)
		}
	}
	if len(origins) > 0 {
		md["origins"] = strings.Join(origins, ", ")
	}
	return md
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
