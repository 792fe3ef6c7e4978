package neo4j

import (
	"context"
	"fmt"
	"strings"

	"github.com/switchboard/switchboard/graphwalk"
)

// MatchEntities returns the names of nodes mentioned in text, as
// graphwalk.Index.Match finds them, exactly as
// sqlite.GraphStore.MatchEntities does: compared case-insensitively on
// whole words ("Acme Corp." matches "acme corp", not "Acmeville"), the
// longest of overlapping names winning, longest first, then by position,
// at most 10, and names made only of stopwords or of one character ("IT",
// "A") are never matched.
//
// The names are cached; a write through any Graph changes the graph's
// version, and the cache is reloaded when it has moved.
func (g *Graph) MatchEntities(ctx context.Context, text string) ([]string, error) {
	idx, err := g.EntityIndex(ctx)
	if err != nil {
		return nil, fmt.Errorf("neo4j: match entities: %w", err)
	}
	return idx.MatchNames(text), nil
}

// EntityIndex returns the index of entity names and labels, reloading it
// when the graph's version has changed since it was built. While the
// graph cannot be reached it returns the index last loaded, if any: the
// router still knows the graph's names and words, so a question about
// the graph goes there and its asker is told the graph is unavailable,
// instead of being answered from documents that do not hold it.
func (g *Graph) EntityIndex(ctx context.Context) (*graphwalk.Index, error) {
	version, err := g.version(ctx)
	if err != nil {
		if last := g.names.Last(); last != nil && ctx.Err() == nil {
			return last, nil
		}
		return nil, err
	}
	return g.names.Get(ctx, version, g.indexEntries)
}

// indexEntries reads every entity's id, name and labels for the index,
// leaving out Entity and the labels this package reserves ("_…"), and the
// schema's other names: the relationship types between entities and the
// property keys of entities and their relationships, without those this
// package sets itself.
func (g *Graph) indexEntries(ctx context.Context) ([]graphwalk.Entry, []string, error) {
	recs, err := g.read(ctx, `MATCH (n:Entity)
		RETURN n.id AS id, toString(n.name) AS name, [l IN labels(n) WHERE l <> 'Entity'] AS labels`, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("load names: %w", err)
	}
	out := make([]graphwalk.Entry, 0, len(recs))
	for _, r := range recs {
		e := graphwalk.Entry{}
		e.ID, _ = r.Values[0].(string)
		e.Name, _ = r.Values[1].(string)
		ls, _ := r.Values[2].([]any)
		for _, l := range ls {
			if l, _ := l.(string); l != "" && !strings.HasPrefix(l, "_") {
				e.Labels = append(e.Labels, l)
			}
		}
		out = append(out, e)
	}
	schema, err := g.schemaNames(ctx)
	return out, schema, err
}

// schemaNames returns the distinct relationship types and property keys
// of the entities and their relationships.
func (g *Graph) schemaNames(ctx context.Context) ([]string, error) {
	recs, err := g.read(ctx, `MATCH (n:Entity) UNWIND keys(n) AS k RETURN DISTINCT k
		UNION MATCH (:Entity)-[r]->(:Entity) UNWIND [type(r)] + keys(r) AS k RETURN DISTINCT k`, nil)
	if err != nil {
		return nil, fmt.Errorf("load schema: %w", err)
	}
	var out []string
	for _, r := range recs {
		if k, _ := r.Values[0].(string); k != "" && !reservedNodeProps[k] && !reservedEdgeProps[k] {
			out = append(out, k)
		}
	}
	return out, nil
}
