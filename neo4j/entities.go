package neo4j

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Bounds on entity matching.
const (
	maxMatchTokens = 4096 // words of the text examined
	maxMatches     = 10   // names returned
)

// entityIndex is every distinct node name, tokenised, keyed by its first
// token, so that matching a text costs one map lookup per word. It is
// loaded whole into memory, as package sqlite's is: a few dozen bytes per
// node, which is fine for the graphs a company assistant holds.
type entityIndex struct {
	byFirst map[string][]*entityName // matchable names, longest first
	all     []*entityName            // every name, for fragment search
	labels  map[string]string        // lower-case label and its singular → label
}

// entityName is one normalised name and the nodes that carry it.
type entityName struct {
	name   string // as stored (the smallest spelling), for display
	norm   string
	toks   []string
	ids    []string // sorted
	labels []string // distinct labels of those nodes, sorted
}

// MatchEntities returns the names of nodes mentioned in text, compared
// case-insensitively on whole words ("Acme Corp." matches "acme corp", not
// "Acmeville"), exactly as sqlite.GraphStore.MatchEntities does: the
// longest of overlapping names wins, results are ordered longest first,
// then by position, at most 10 are returned, and names made only of
// stopwords or of one character ("IT", "A") are never matched.
//
// The names are cached; a write through any Graph changes the graph's
// version, and the cache is reloaded when it has moved.
func (g *Graph) MatchEntities(ctx context.Context, text string) ([]string, error) {
	idx, err := g.entities(ctx)
	if err != nil {
		return nil, fmt.Errorf("neo4j: match entities: %w", err)
	}
	found := idx.match(text)
	names := make([]string, len(found))
	for i, e := range found {
		names[i] = e.name
	}
	return names, nil
}

// match implements MatchEntities.
func (idx *entityIndex) match(text string) []*entityName {
	toks := tokens(text, maxMatchTokens)
	var found []*entityName // in order of first mention
	seen := map[string]bool{}
	for i := 0; i < len(toks); {
		n := 1
		for _, e := range idx.byFirst[toks[i]] {
			if hasPrefix(toks[i:], e.toks) {
				if !seen[e.norm] {
					seen[e.norm] = true
					found = append(found, e)
				}
				n = len(e.toks) // a name inside a longer one is not mentioned
				break
			}
		}
		i += n
	}
	sort.SliceStable(found, func(i, j int) bool { return len(found[i].toks) > len(found[j].toks) })
	if len(found) > maxMatches {
		found = found[:maxMatches]
	}
	return found
}

func hasPrefix(toks, prefix []string) bool {
	if len(prefix) > len(toks) {
		return false
	}
	for i, t := range prefix {
		if toks[i] != t {
			return false
		}
	}
	return true
}

// entities returns the entity index, reloading it when the graph's
// version has changed since it was built.
func (g *Graph) entities(ctx context.Context) (*entityIndex, error) {
	version, err := g.version(ctx)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	idx, v := g.index, g.indexVersion
	g.mu.Unlock()
	if idx != nil && v == version {
		return idx, nil
	}
	// Loading happens outside the lock so that a slow load does not stall
	// matches; two concurrent loads only waste one of them.
	idx, err = g.loadIndex(ctx)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	g.index, g.indexVersion = idx, version
	g.mu.Unlock()
	return idx, nil
}

func (g *Graph) loadIndex(ctx context.Context) (*entityIndex, error) {
	recs, err := g.read(ctx, `MATCH (n:Entity)
		RETURN n.id AS id, toString(n.name) AS name, [l IN labels(n) WHERE l <> 'Entity'] AS labels`, nil)
	if err != nil {
		return nil, fmt.Errorf("load names: %w", err)
	}
	idx := &entityIndex{byFirst: map[string][]*entityName{}, labels: map[string]string{}}
	byNorm := map[string]*entityName{}
	labelSets := map[*entityName]map[string]bool{}
	for _, r := range recs {
		id, _ := r.Values[0].(string)
		name, _ := r.Values[1].(string)
		if name == "" {
			name = id
		}
		norm := normName(name)
		if norm == "" {
			continue
		}
		e := byNorm[norm]
		if e == nil {
			e = &entityName{name: name, norm: norm, toks: strings.Fields(norm)}
			byNorm[norm] = e
			labelSets[e] = map[string]bool{}
			idx.all = append(idx.all, e)
		}
		if name < e.name {
			e.name = name
		}
		e.ids = append(e.ids, id)
		ls, _ := r.Values[2].([]any)
		for _, l := range ls {
			if l, _ := l.(string); l != "" && !strings.HasPrefix(l, "_") {
				labelSets[e][l] = true
				k := strings.ToLower(l)
				idx.labels[k] = l
				idx.labels[singular(k)] = l
			}
		}
	}
	for _, e := range idx.all {
		sort.Strings(e.ids)
		for l := range labelSets[e] {
			e.labels = append(e.labels, l)
		}
		sort.Strings(e.labels)
		if matchable(e.toks) {
			idx.byFirst[e.toks[0]] = append(idx.byFirst[e.toks[0]], e)
		}
	}
	for _, es := range idx.byFirst {
		sort.Slice(es, func(i, j int) bool {
			if len(es[i].toks) != len(es[j].toks) {
				return len(es[i].toks) > len(es[j].toks)
			}
			return es[i].norm < es[j].norm
		})
	}
	sort.Slice(idx.all, func(i, j int) bool { return idx.all[i].norm < idx.all[j].norm })
	return idx, nil
}

// matchable reports whether a name is distinctive enough to look for in
// prose.
func matchable(toks []string) bool {
	if len(toks) == 0 || (len(toks) == 1 && len([]rune(toks[0])) < 2) {
		return false
	}
	for _, t := range toks {
		if !stopwords[t] {
			return true
		}
	}
	return false
}
