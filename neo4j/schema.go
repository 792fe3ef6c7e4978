package neo4j

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"

	neo4jdrv "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/switchboard/switchboard/internal/text"
	"github.com/switchboard/switchboard/kb/words"
)

// Schema is the shape of the graph as the Cypher writer needs it: the
// labels with their properties, and which relationship types join which
// labels. It is read from the live database, so a graph imported with new
// labels is described without code changes.
type Schema struct {
	Labels []LabelInfo // by name
	Rels   []RelInfo   // by type, then most frequent pattern first
}

// LabelInfo is one node label. Props leaves out id, name and source,
// which every node has.
type LabelInfo struct {
	Name  string
	Count int64
	Props []PropInfo
}

// RelInfo is one relationship pattern (:From)-[:Type]->(:To), as seen in
// a sample of the type's relationships. Props are the type's, without
// origin, which every relationship has.
type RelInfo struct {
	From, Type, To string
	Props          []PropInfo
}

// PropInfo is a property key seen on a sample of nodes or relationships.
type PropInfo struct {
	Key     string
	Type    string // STRING, INTEGER, FLOAT, BOOLEAN, LIST<STRING>, …; "A|B" when mixed
	Example string // one value as Cypher would write it ("$1.2M" quoted), "" for non-scalars
}

// schemaSample bounds what introspection reads per label and per type:
// the schema must not cost a full scan of a large graph.
const schemaSample = 1000

// maxQuestionWords bounds the words of a question that are examined.
const maxQuestionWords = 512

// Schema returns the graph's schema. It is cached for Config.CacheTTL
// and refreshed sooner when the graph's version moves (any write through
// a Graph), so that a new import is described at once.
func (g *Graph) Schema(ctx context.Context) (*Schema, error) {
	version, err := g.version(ctx)
	if err != nil {
		return nil, fmt.Errorf("neo4j: schema: %w", err)
	}
	g.mu.Lock()
	s, at, v := g.schema, g.schemaAt, g.schemaVer
	g.mu.Unlock()
	if s != nil && v == version && g.now().Sub(at) < g.cfg.CacheTTL {
		return s, nil
	}
	s, err = g.introspect(ctx)
	if err != nil {
		return nil, fmt.Errorf("neo4j: schema: %w", err)
	}
	g.mu.Lock()
	g.schema, g.schemaAt, g.schemaVer = s, g.now(), version
	g.mu.Unlock()
	return s, nil
}

// introspect reads the schema in one read transaction. Labels and types
// come from db.labels and db.relationshipTypes; properties and patterns
// from a sample of each, which unlike db.schema.nodeTypeProperties does
// not scan the whole store and also yields an example value per property
// (the writer needs to see that revenue is text like "$1.2M" to know it
// cannot sort on it).
//
// It is an explicit transaction, not ExecuteRead, for the reason given at
// Graph.read: reach bounds its retries.
func (g *Graph) introspect(ctx context.Context) (*Schema, error) {
	var s *Schema
	err := g.reach(ctx, true, func(ctx context.Context) error {
		sess := g.session(ctx, neo4jdrv.AccessModeRead)
		defer sess.Close(ctx)
		tx, err := sess.BeginTransaction(ctx, neo4jdrv.WithTxTimeout(g.cfg.QueryTimeout))
		if err != nil {
			return err
		}
		defer tx.Close(ctx) // rolls back: nothing was written
		s, err = introspectIn(ctx, tx)
		return err
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(s.Labels, func(i, j int) bool { return s.Labels[i].Name < s.Labels[j].Name })
	sort.SliceStable(s.Rels, func(i, j int) bool { return s.Rels[i].Type < s.Rels[j].Type })
	return s, nil
}

// introspectIn reads the schema in tx.
func introspectIn(ctx context.Context, tx neo4jdrv.ManagedTransaction) (*Schema, error) {
	s := &Schema{}
	labels, err := names(ctx, tx, `CALL db.labels() YIELD label RETURN label`)
	if err != nil {
		return nil, fmt.Errorf("labels: %w", err)
	}
	for _, l := range labels {
		if l == entityLabel || strings.HasPrefix(l, "_") {
			continue
		}
		info := LabelInfo{Name: l}
		recs, err := run(ctx, tx, `MATCH (n:`+quote(l)+`) RETURN count(n)`, nil)
		if err != nil {
			return nil, fmt.Errorf("count %s: %w", l, err)
		}
		if len(recs) == 1 {
			info.Count, _ = recs[0].Values[0].(int64)
		}
		if info.Count == 0 {
			continue
		}
		if info.Props, err = propInfo(ctx, tx, `MATCH (x:`+quote(l)+`)`, reservedNodeProps); err != nil {
			return nil, fmt.Errorf("properties of %s: %w", l, err)
		}
		s.Labels = append(s.Labels, info)
	}
	types, err := names(ctx, tx, `CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType`)
	if err != nil {
		return nil, fmt.Errorf("relationship types: %w", err)
	}
	for _, t := range types {
		rels, err := patterns(ctx, tx, t)
		if err != nil {
			return nil, fmt.Errorf("patterns of %s: %w", t, err)
		}
		if len(rels) == 0 {
			continue
		}
		props, err := propInfo(ctx, tx, `MATCH ()-[x:`+quote(t)+`]->()`, reservedEdgeProps)
		if err != nil {
			return nil, fmt.Errorf("properties of %s: %w", t, err)
		}
		for i := range rels {
			rels[i].Props = props
		}
		s.Rels = append(s.Rels, rels...)
	}
	return s, nil
}

// names runs a query returning one string per record.
func names(ctx context.Context, tx neo4jdrv.ManagedTransaction, cypher string) ([]string, error) {
	recs, err := run(ctx, tx, cypher, nil)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(recs))
	for _, r := range recs {
		if s, ok := r.Values[0].(string); ok {
			out = append(out, s)
		}
	}
	return out, nil
}

// patterns returns the (from)-[typ]->(to) label pairs of a sample of
// typ's relationships, most frequent first. A node with no label but
// Entity shows as Entity.
func patterns(ctx context.Context, tx neo4jdrv.ManagedTransaction, typ string) ([]RelInfo, error) {
	recs, err := run(ctx, tx, `MATCH (a)-[:`+quote(typ)+`]->(b)
		WITH a, b LIMIT $sample
		WITH [l IN labels(a) WHERE l <> 'Entity'] AS from, [l IN labels(b) WHERE l <> 'Entity'] AS to
		RETURN from, to, count(*) AS n
		ORDER BY n DESC`, map[string]any{"sample": schemaSample})
	if err != nil {
		return nil, err
	}
	var out []RelInfo
	seen := map[[2]string]bool{}
	for _, r := range recs {
		for _, from := range labelList(r.Values[0]) {
			for _, to := range labelList(r.Values[1]) {
				if k := [2]string{from, to}; !seen[k] {
					seen[k] = true
					out = append(out, RelInfo{From: from, Type: typ, To: to})
				}
			}
		}
	}
	return out, nil
}

func labelList(v any) []string {
	var out []string
	ls, _ := v.([]any)
	for _, l := range ls {
		if s, ok := l.(string); ok && !strings.HasPrefix(s, "_") {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		return []string{entityLabel}
	}
	return out
}

// propInfo returns the property keys of a sample of what match binds to
// x, with their types and an example value, leaving out skip.
func propInfo(ctx context.Context, tx neo4jdrv.ManagedTransaction, match string, skip map[string]bool) ([]PropInfo, error) {
	recs, err := run(ctx, tx, match+` WITH x LIMIT $sample
		UNWIND keys(x) AS k
		WITH k, x[k] AS v
		RETURN k, collect(DISTINCT valueType(v))[..3] AS types, head(collect(v)) AS example
		ORDER BY k`, map[string]any{"sample": schemaSample})
	if err != nil {
		return nil, err
	}
	var out []PropInfo
	for _, r := range recs {
		k, _ := r.Values[0].(string)
		if k == "" || skip[k] {
			continue
		}
		var types []string
		ts, _ := r.Values[1].([]any)
		for _, t := range ts {
			if t, ok := t.(string); ok {
				types = append(types, strings.TrimSuffix(t, " NOT NULL"))
			}
		}
		sort.Strings(types)
		out = append(out, PropInfo{Key: k, Type: strings.Join(types, "|"), Example: example(r.Values[2])})
	}
	return out, nil
}

// example writes a scalar property value as a Cypher literal, short and on
// one line; other values get no example.
func example(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(text.Clip(x, 40))
	case int64, float64, bool:
		return formatValue(x)
	}
	return ""
}

// Text renders the schema compactly for a prompt, trimmed to the labels
// the question mentions when there are more than maxLabels. See SchemaText.
func (s *Schema) Text(question string, maxLabels int) string {
	return s.text(question, maxLabels, nil)
}

// text renders the schema; also names labels to keep when trimming (the
// labels of entities the question names).
func (s *Schema) text(question string, maxLabels int, also []string) string {
	labels, rels := s.Labels, s.Rels
	trimmed := false
	if maxLabels > 0 && len(labels) > maxLabels {
		keep := s.relevant(question, maxLabels, also)
		labels, rels = nil, nil
		for _, l := range s.Labels {
			if keep[l.Name] {
				labels = append(labels, l)
			}
		}
		for _, r := range s.Rels {
			if keep[r.From] && keep[r.To] {
				rels = append(rels, r)
			}
		}
		trimmed = true
	}
	var b strings.Builder
	b.WriteString("Node labels. Every node also has the label :Entity and the properties id, name (what people call it) and source (where the fact came from).\n")
	if len(labels) == 0 {
		b.WriteString("(the graph is empty)\n")
	}
	for _, l := range labels {
		fmt.Fprintf(&b, "(:%s%s) %s\n", l.Name, propsText(l.Props), words.Plural(int(l.Count), "node"))
	}
	if trimmed {
		fmt.Fprintf(&b, "(%d of %d labels shown: those the question mentions and their neighbours)\n", len(labels), len(s.Labels))
	}
	b.WriteString("\nRelationship patterns. Every relationship also has the property origin (where the fact came from).\n")
	if len(rels) == 0 {
		b.WriteString("(none)\n")
	}
	for _, r := range rels {
		fmt.Fprintf(&b, "(:%s)-[:%s%s]->(:%s)\n", r.From, r.Type, propsText(r.Props), r.To)
	}
	return strings.TrimRight(b.String(), "\n")
}

func propsText(ps []PropInfo) string {
	if len(ps) == 0 {
		return ""
	}
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.Key + ": " + p.Type
		if p.Example != "" {
			parts[i] += " e.g. " + p.Example
		}
	}
	return " {" + strings.Join(parts, ", ") + "}"
}

// relevant picks at most max labels for a question: those it names
// ("customers" → Customer, "purchase orders" → PurchaseOrder), those of
// the entities it names, the ends of relationship types it names
// ("supplies" → SUPPLIES); then their neighbours, most numerous first.
// A question that names nothing gets the most numerous labels.
func (s *Schema) relevant(question string, max int, also []string) map[string]bool {
	qtoks := words.Split(question, maxQuestionWords)
	said := map[string]bool{}
	for _, t := range qtoks {
		said[t], said[words.Singular(t)] = true, true
	}
	phrase := " " + strings.Join(qtoks, " ") + " "
	mentions := func(name string) bool {
		ws := nameWords(name)
		if len(ws) == 1 {
			return said[ws[0]] || said[words.Singular(ws[0])]
		}
		joined := strings.Join(ws, " ")
		return strings.Contains(phrase, " "+joined+" ") || strings.Contains(phrase, " "+joined+"s ")
	}
	count := map[string]int64{}
	for _, l := range s.Labels {
		count[l.Name] = l.Count
	}
	keep := map[string]bool{}
	add := func(l string) {
		if _, ok := count[l]; ok && len(keep) < max {
			keep[l] = true
		}
	}
	for _, l := range also {
		add(l)
	}
	for _, l := range s.Labels {
		if mentions(l.Name) {
			add(l.Name)
		}
	}
	for _, r := range s.Rels {
		if mentions(r.Type) {
			add(r.From)
			add(r.To)
		}
	}
	// Neighbours, then everything else, most numerous first.
	byCount := append([]LabelInfo(nil), s.Labels...)
	sort.SliceStable(byCount, func(i, j int) bool { return byCount[i].Count > byCount[j].Count })
	if len(keep) > 0 {
		var near []string
		for _, r := range s.Rels {
			if keep[r.From] && !keep[r.To] {
				near = append(near, r.To)
			}
			if keep[r.To] && !keep[r.From] {
				near = append(near, r.From)
			}
		}
		sort.SliceStable(near, func(i, j int) bool { return count[near[i]] > count[near[j]] })
		for _, l := range near {
			add(l)
		}
		return keep
	}
	for _, l := range byCount {
		add(l.Name)
	}
	return keep
}

// nameWords splits a label or type into lower-case words: PurchaseOrder
// and PURCHASE_ORDER both give [purchase order].
func nameWords(name string) []string {
	var words []string
	var cur []rune
	rs := []rune(name)
	for i, r := range rs {
		boundary := r == '_' ||
			(i > 0 && unicode.IsUpper(r) && (unicode.IsLower(rs[i-1]) ||
				(i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1]))))
		if boundary && len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = nil
		}
		if r != '_' {
			cur = append(cur, r)
		}
	}
	if len(cur) > 0 {
		words = append(words, strings.ToLower(string(cur)))
	}
	return words
}

// SchemaText is the schema as the Cypher writer sees it for question: the
// labels, properties and relationship patterns (trimmed to what the
// question is about when there are more than Config.MaxSchemaLabels
// labels), followed by the names in the question that are nodes, with
// their labels, so that the writer can match them exactly.
func (g *Graph) SchemaText(ctx context.Context, question string) (string, error) {
	s, err := g.Schema(ctx)
	if err != nil {
		return "", err
	}
	idx, err := g.EntityIndex(ctx)
	if err != nil {
		return "", fmt.Errorf("neo4j: schema: %w", err)
	}
	named := idx.Match(question)
	var also, refs []string
	for _, e := range named {
		also = append(also, e.Labels...)
		ref := strconv.Quote(e.Name)
		if len(e.Labels) > 0 {
			ref += " (:" + strings.Join(e.Labels, ", :") + ")"
		}
		refs = append(refs, ref)
	}
	text := s.text(question, g.cfg.MaxSchemaLabels, also)
	if len(refs) > 0 {
		text += "\n\nNames in the question that are nodes (property name): " + strings.Join(refs, "; ")
	}
	return text, nil
}
