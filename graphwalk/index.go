package graphwalk

import (
	"context"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/switchboard/switchboard/kb/words"
)

// Bounds on entity matching.
const (
	maxMatchWords = 4096 // words of the text examined
	maxMatches    = 10   // names returned
)

// Entry is one node as an Index is built from it.
type Entry struct {
	ID     string   // the node's id, as Store.NodesByIDs takes it
	Name   string   // "" names the node by its ID
	Labels []string // the node's labels, without store bookkeeping labels
}

// Entity is one normalised name and the nodes that carry it.
type Entity struct {
	Name   string   // the smallest spelling stored, for display
	IDs    []string // sorted
	Labels []string // distinct labels of those nodes, sorted

	norm string
	toks []string
}

// Index holds every distinct entity name, tokenised and keyed by its
// first word, so that matching a text costs one map lookup per word, and
// every label, so that "customers" is known to mean Customer. It is held
// whole in memory: a few dozen bytes per node, which is fine for the
// graphs a company assistant holds, and it lets every store match names
// the same way whatever its query language can express.
type Index struct {
	byFirst  map[string][]*Entity // matchable names, longest first
	all      []*Entity            // every name, in norm order, for fragment search
	labels   map[string]string    // lower-case label and its singular → label
	prefixes map[string][]*Entity // the first words of longer names → their entities, for Mentions
	terms    map[string]string    // words naming a label, relationship type or property key → it (vocab.go)
}

// NewIndex builds the index of entries and of the graph's vocabulary:
// its labels and schema, the relationship types and property keys of the
// graph (see Term). Names are compared in their words.Norm
// form; a name without any letter or digit is left out.
func NewIndex(entries []Entry, schema ...string) *Index {
	idx := &Index{byFirst: map[string][]*Entity{}, labels: map[string]string{}, prefixes: map[string][]*Entity{}, terms: map[string]string{}}
	byNorm := map[string]*Entity{}
	labelSets := map[*Entity]map[string]bool{}
	for _, en := range entries {
		// A label is known even when its nodes' names cannot be matched.
		for _, l := range en.Labels {
			if l != "" {
				k := strings.ToLower(l)
				idx.labels[k] = l
				idx.labels[words.Singular(k)] = l
			}
		}
		name := en.Name
		if name == "" {
			name = en.ID
		}
		norm := words.Norm(name)
		if norm == "" {
			continue
		}
		e := byNorm[norm]
		if e == nil {
			e = &Entity{Name: name, norm: norm, toks: strings.Fields(norm)}
			byNorm[norm] = e
			labelSets[e] = map[string]bool{}
			idx.all = append(idx.all, e)
		}
		if name < e.Name {
			e.Name = name
		}
		e.IDs = append(e.IDs, en.ID)
		for _, l := range en.Labels {
			if l != "" {
				labelSets[e][l] = true
			}
		}
	}
	for _, e := range idx.all {
		sort.Strings(e.IDs)
		for l := range labelSets[e] {
			e.Labels = append(e.Labels, l)
		}
		sort.Strings(e.Labels)
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
	labels := make([]string, 0, len(idx.labels))
	for _, l := range idx.labels {
		labels = append(labels, l)
	}
	sort.Strings(labels) // the labels first, in a fixed order, so a word names the same one every time
	for _, l := range slices.Compact(labels) {
		idx.addTerms(l, true)
	}
	for _, n := range schema {
		idx.addTerms(n, false)
	}
	sort.Slice(idx.all, func(i, j int) bool { return idx.all[i].norm < idx.all[j].norm })
	for _, e := range idx.all { // in norm order, so that a short name's owners do not depend on the entries' order
		if matchable(e.toks) {
			idx.addPrefixes(e)
		}
	}
	return idx
}

// matchable reports whether a name is distinctive enough to look for in
// prose: names made only of stopwords or of one character ("IT", "A")
// occur in ordinary sentences.
func matchable(toks []string) bool {
	if len(toks) == 0 || (len(toks) == 1 && len([]rune(toks[0])) < 2) {
		return false
	}
	for _, t := range toks {
		if !words.IsStop(t) {
			return true
		}
	}
	return false
}

// Match returns the entities whose names text mentions, compared
// case-insensitively on whole words ("Acme Corp." matches "acme corp",
// not "Acmeville"). Where names overlap the longest wins ("Acme Corp"
// rather than "Acme"); results are ordered longest first, then by
// position, and at most 10 are returned. Names made only of stopwords or
// of one character are never matched. A nil Index matches nothing.
func (idx *Index) Match(text string) []*Entity {
	if idx == nil {
		return nil
	}
	toks := words.Split(text, maxMatchWords)
	var found []*Entity // in order of first mention
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

// MatchNames returns the names of the entities Match finds, as the
// stores' MatchEntities report them.
func (idx *Index) MatchNames(text string) []string {
	found := idx.Match(text)
	names := make([]string, len(found))
	for i, e := range found {
		names[i] = e.Name
	}
	return names
}

// Bounds on short names.
const (
	maxPrefixWords  = 8 // longest short name recorded
	maxPrefixOwners = 3 // entities a short name stands for
)

// addPrefixes records the short names of e: its first two or more words,
// short of the whole name, when they are worth matching on their own and
// do not end in a stopword ("Around the" is no name).
func (idx *Index) addPrefixes(e *Entity) {
	for k := 2; k < len(e.toks) && k <= maxPrefixWords; k++ {
		p := e.toks[:k]
		if words.IsStop(p[k-1]) || !matchable(p) {
			continue
		}
		key := strings.Join(p, " ")
		if len(idx.prefixes[key]) < maxPrefixOwners {
			idx.prefixes[key] = append(idx.prefixes[key], e)
		}
	}
}

// Mentions returns the entities text mentions by their full name, as
// Match finds them, or by a short one: the first two or more words of a
// longer name ("Beacon T1" for "Beacon T1 Temperature Logger", "EU data
// region" for "EU Data Region (Frankfurt)"). A short name that starts
// several names stands for all of them, up to three. It tells whether a
// text is about the graph's entities; the walk starts only from full
// names. Results are in order of mention, at most 10. A nil Index
// mentions nothing.
func (idx *Index) Mentions(text string) []*Entity {
	if idx == nil {
		return nil
	}
	toks := words.Split(text, maxMatchWords)
	var found []*Entity
	seen := map[string]bool{}
	add := func(e *Entity) {
		if !seen[e.norm] && len(found) < maxMatches {
			seen[e.norm] = true
			found = append(found, e)
		}
	}
	for i := 0; i < len(toks); {
		n := 0
		for _, e := range idx.byFirst[toks[i]] {
			if hasPrefix(toks[i:], e.toks) {
				add(e)
				n = len(e.toks)
				break
			}
		}
		for k := min(len(toks)-i, maxPrefixWords); n == 0 && k >= 2 && len(idx.byFirst[toks[i]]) > 0; k-- {
			if es, ok := idx.prefixes[strings.Join(toks[i:i+k], " ")]; ok {
				for _, e := range es {
					add(e)
				}
				n = k
			}
		}
		i += max(n, 1)
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

// fragments returns up to limit entities with a name word starting with
// one of words ("globex" → "Globex Corporation"), shortest names first,
// skipping stopwords and words under three letters, which would match
// half the graph.
func (idx *Index) fragments(ws []string, limit int) []*Entity {
	var out []*Entity
	seen := map[string]bool{}
	for _, w := range ws {
		if len(out) >= limit {
			break
		}
		if words.IsStop(w) || len([]rune(w)) < 3 {
			continue
		}
		var hits []*Entity
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

// Empty reports whether the index holds no name and no label: the graph
// has nothing to answer from. A nil Index is empty.
func (idx *Index) Empty() bool {
	return idx == nil || len(idx.all) == 0 && len(idx.labels) == 0
}

// Label returns the label a word names, compared case-insensitively and
// in the singular: "suppliers" and "Supplier" → Supplier. A nil Index
// names no label.
func (idx *Index) Label(w string) (string, bool) {
	if idx == nil {
		return "", false
	}
	w = strings.ToLower(w)
	l, ok := idx.labels[w]
	if !ok {
		l, ok = idx.labels[words.Singular(w)]
	}
	return l, ok
}

// IndexCache keeps a store's Index for the graph version it was built at.
// A store reads its graph's version (a cheap query) before each use and
// the index is rebuilt only when the version has moved, so that a graph
// written by another process (ingest while the bot serves) is noticed
// without reading every name per question. The zero value is empty and
// ready to use; it is safe for concurrent use.
type IndexCache struct {
	mu      sync.Mutex
	idx     *Index // nil until first loaded, or after Reset
	version string // graph version idx was built at
}

// Get returns the index for version, calling load to read the entries
// and the schema's names (relationship types, property keys) when the
// cached index is of another version or there is none.
//
// Loading happens outside the lock so that a slow load does not stall
// the callers that still have a current index; two concurrent loads only
// waste one of them.
func (c *IndexCache) Get(ctx context.Context, version string, load func(context.Context) ([]Entry, []string, error)) (*Index, error) {
	c.mu.Lock()
	idx, v := c.idx, c.version
	c.mu.Unlock()
	if idx != nil && v == version {
		return idx, nil
	}
	entries, schema, err := load(ctx)
	if err != nil {
		return nil, err
	}
	idx = NewIndex(entries, schema...)
	c.mu.Lock()
	c.idx, c.version = idx, version
	c.mu.Unlock()
	return idx, nil
}

// Last returns the index last loaded, whatever its version, or nil: what
// a store that cannot read its graph's version knew of it.
func (c *IndexCache) Last() *Index {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.idx
}

// Reset drops the cached index, for a store that has just written the
// graph and knows the index is stale before its version says so.
func (c *IndexCache) Reset() {
	c.mu.Lock()
	c.idx = nil
	c.mu.Unlock()
}
