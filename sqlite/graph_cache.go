package sqlite

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/switchboard/switchboard/graphwalk"
)

// maxCachedGraph bounds the graph GraphStore holds in memory, in nodes
// plus edges (a few hundred bytes each). A larger graph is read with a
// query per call instead. A variable so that tests can lower it.
var maxCachedGraph = 100_000

// graphSnapshot is the whole graph as the walk reads it. A graph question
// makes a dozen calls of graphwalk.Store, each an SQL query costing far
// more, in the pure-Go driver, than the few rows it returns; the graph is
// small and read-mostly, so it is read whole once per version and the
// calls are answered from memory, in the order the queries gave.
//
// It is never modified once built: the nodes and facts it hands out share
// their Props maps and their slices' arrays (capped, so that an append
// copies) with it, and graphwalk.Store's callers only read them.
type graphSnapshot struct {
	nodes  map[string]graphwalk.Node
	byID   map[string][]graphwalk.Node // by label, folded as NOCASE folds it; in id order
	byName map[string][]graphwalk.Node // the same, in name, then id order
	edges  map[string][]graphwalk.Fact // by node: the edges touching it, by type, then id
}

// snapshot returns the graph as of its current version, or nil when it is
// larger than maxCachedGraph and must be queried.
func (g *GraphStore) snapshot(ctx context.Context) (*graphSnapshot, error) {
	version, err := g.db.version(ctx, metaGraphVersion)
	if err != nil {
		return nil, err
	}
	return g.cache.get(ctx, version, g.loadSnapshot)
}

// loadSnapshot reads the whole graph; nil when it is too large to hold.
func (g *GraphStore) loadSnapshot(ctx context.Context) (*graphSnapshot, error) {
	nodes, err := g.queryNodes(ctx, `SELECT id, label, name, props FROM nodes LIMIT ?`, maxCachedGraph+1)
	if err != nil || len(nodes) > maxCachedGraph {
		return nil, err
	}
	s := &graphSnapshot{
		nodes:  make(map[string]graphwalk.Node, len(nodes)),
		byID:   map[string][]graphwalk.Node{},
		byName: map[string][]graphwalk.Node{},
		edges:  map[string][]graphwalk.Fact{},
	}
	for _, n := range nodes {
		s.nodes[n.ID] = n
		l := foldNoCase(n.Label)
		s.byID[l] = append(s.byID[l], n)
	}
	for l, ns := range s.byID {
		slices.SortFunc(ns, func(a, b graphwalk.Node) int { return strings.Compare(a.ID, b.ID) })
		byName := slices.Clone(ns)
		slices.SortStableFunc(byName, func(a, b graphwalk.Node) int { return strings.Compare(a.Name, b.Name) })
		s.byName[l] = byName
	}

	// In the order EdgesOf's query gives each node's edges, so that each
	// node's list comes out in that order too.
	rows, err := g.db.db.QueryContext(ctx, `SELECT id, type, props, origin, source, target
		FROM edges ORDER BY type, id LIMIT ?`, maxCachedGraph-len(nodes)+1)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	n := len(nodes)
	for rows.Next() {
		if n++; n > maxCachedGraph {
			return nil, nil
		}
		var f graphwalk.Fact
		var id int64
		var props, src, dst string
		if err := rows.Scan(&id, &f.Type, &props, &f.Origin, &src, &dst); err != nil {
			return nil, err
		}
		var ok1, ok2 bool
		f.Src, ok1 = s.nodes[src]
		f.Dst, ok2 = s.nodes[dst]
		if !ok1 || !ok2 { // as the query's inner joins leave it out
			continue
		}
		f.ID, f.Props = strconv.FormatInt(id, 10), scanProps(props)
		s.edges[src] = append(s.edges[src], f)
		if dst != src {
			s.edges[dst] = append(s.edges[dst], f)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// foldNoCase folds s as SQLite's NOCASE collation compares it: only the
// ASCII letters.
func foldNoCase(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// head returns the first limit elements of xs (all of them for a negative
// limit, as SQL's LIMIT), nil for none, capped so that an append copies.
func head[T any](xs []T, limit int) []T {
	if limit >= 0 && len(xs) > limit {
		xs = xs[:limit]
	}
	if len(xs) == 0 {
		return nil
	}
	return xs[:len(xs):len(xs)]
}

func (s *graphSnapshot) nodesByIDs(ids []string) []graphwalk.Node {
	var out []graphwalk.Node
	for _, id := range ids {
		if n, ok := s.nodes[id]; ok {
			out = append(out, n)
		}
	}
	return out
}

func (s *graphSnapshot) nodesOfLabel(label string, order graphwalk.Order, limit int) []graphwalk.Node {
	if order == graphwalk.ByName {
		return head(s.byName[foldNoCase(label)], limit)
	}
	return head(s.byID[foldNoCase(label)], limit)
}

func (s *graphSnapshot) edgesOf(ids []string, limit int) [][]graphwalk.Fact {
	out := make([][]graphwalk.Fact, len(ids))
	for i, id := range ids {
		out[i] = head(s.edges[id], limit)
	}
	return out
}
