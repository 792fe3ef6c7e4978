package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/switchboard/switchboard/kb"
)

// GraphStore holds the knowledge graph: nodes and the typed edges between
// them. It keeps the node names in memory for MatchEntities and reloads
// them only when the graph's version in the meta table has moved, so a
// graph written by another process (ingest while serve runs) is noticed
// at the cost of one tiny query per match.
type GraphStore struct {
	db *DB

	mu      sync.Mutex
	index   *entityIndex // nil until first needed
	version string       // graph version index was loaded at
}

// NewGraphStore returns the graph stored in db.
func NewGraphStore(db *DB) *GraphStore {
	return &GraphStore{db: db}
}

// UpsertNodes inserts nodes or updates them by ID, in one transaction.
// Updating merges Props into the stored ones and keeps the stored Label
// and Source when the new ones are empty, so facts extracted from several
// documents accumulate. A node without a Name is named by its ID.
func (g *GraphStore) UpsertNodes(ctx context.Context, nodes []kb.Node) error {
	if len(nodes) == 0 {
		return nil
	}
	err := g.db.withTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO nodes (id, label, name, name_norm, props, source)
			VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET
				label     = CASE WHEN excluded.label <> '' THEN excluded.label ELSE label END,
				name      = excluded.name,
				name_norm = excluded.name_norm,
				props     = json_patch(props, excluded.props),
				source    = CASE WHEN excluded.source <> '' THEN excluded.source ELSE source END`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, n := range nodes {
			if strings.TrimSpace(n.ID) == "" {
				return fmt.Errorf("node %q: empty id", n.Name)
			}
			name := strings.TrimSpace(n.Name)
			if name == "" {
				name = n.ID
			}
			props, err := propsJSON(n.Props)
			if err != nil {
				return fmt.Errorf("node %q: %w", n.ID, err)
			}
			if _, err := stmt.ExecContext(ctx, n.ID, strings.TrimSpace(n.Label), name, normName(name), props, n.Source); err != nil {
				return fmt.Errorf("node %q: %w", n.ID, err)
			}
		}
		// Names may have changed: tell every GraphStore, in any process,
		// that its entity index is stale.
		_, err = tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, '1')
			ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`, metaGraphVersion)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: upsert nodes: %w", err)
	}
	return nil
}

// UpsertEdges inserts edges or, for an existing Source-Type-Target, merges
// their Props, in one transaction: either all are stored or none. Type is
// normalised to upper case with underscores ("supplies to" → SUPPLIES_TO)
// so that the same relation extracted twice is stored once. An edge whose
// source or target node does not exist is an error naming the node.
func (g *GraphStore) UpsertEdges(ctx context.Context, edges []kb.Edge) error {
	if len(edges) == 0 {
		return nil
	}
	err := g.db.withTx(ctx, func(tx *sql.Tx) error {
		exists, err := tx.PrepareContext(ctx, `SELECT count(*) FROM nodes WHERE id = ?`)
		if err != nil {
			return err
		}
		defer exists.Close()
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO edges (source, type, target, props, origin)
			VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (source, type, target) DO UPDATE SET
				props  = json_patch(props, excluded.props),
				origin = CASE WHEN excluded.origin <> '' THEN excluded.origin ELSE origin END`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, e := range edges {
			typ := edgeType(e.Type)
			if typ == "" {
				return fmt.Errorf("edge %s -> %s: empty type", e.Source, e.Target)
			}
			for _, id := range []string{e.Source, e.Target} {
				var n int
				if err := exists.QueryRowContext(ctx, id).Scan(&n); err != nil {
					return err
				}
				if n == 0 {
					return fmt.Errorf("edge %s -[%s]-> %s: node %q does not exist", e.Source, typ, e.Target, id)
				}
			}
			props, err := propsJSON(e.Props)
			if err != nil {
				return fmt.Errorf("edge %s -[%s]-> %s: %w", e.Source, typ, e.Target, err)
			}
			if _, err := stmt.ExecContext(ctx, e.Source, typ, e.Target, props, e.Origin); err != nil {
				return fmt.Errorf("edge %s -[%s]-> %s: %w", e.Source, typ, e.Target, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: upsert edges: %w", err)
	}
	return nil
}

// edgeType is the stored form of a relationship type.
func edgeType(t string) string {
	return strings.ToUpper(strings.Join(strings.FieldsFunc(t, func(r rune) bool {
		return r == ' ' || r == '-' || r == '_' || r == '\t'
	}), "_"))
}

func propsJSON(p map[string]string) (string, error) {
	if len(p) == 0 {
		return "{}", nil
	}
	b, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("props: %w", err)
	}
	return string(b), nil
}

// CountNodes returns the number of nodes.
func (g *GraphStore) CountNodes(ctx context.Context) (int, error) {
	return count(ctx, g.db, "nodes")
}

// CountEdges returns the number of edges.
func (g *GraphStore) CountEdges(ctx context.Context) (int, error) {
	return count(ctx, g.db, "edges")
}

// Bounds on entity matching.
const (
	maxMatchTokens = 4096 // words of the text examined
	maxMatches     = 10   // names returned
)

// entityIndex is every distinct node name, tokenised, keyed by its first
// token, so that matching a text costs one map lookup per word.
type entityIndex struct {
	byFirst map[string][]entityName // longest names first
	labels  map[string]string       // lower-case label and its singular → label
}

type entityName struct {
	name string // as stored, for display
	norm string
	toks []string
}

// MatchEntities returns the names of nodes mentioned in text, compared
// case-insensitively on whole words ("Acme Corp." matches "acme corp", not
// "Acmeville"). Where names overlap the longest wins ("Acme Corp" rather
// than "Acme"); results are ordered longest first, then by position, and
// at most 10 are returned. Names made only of stopwords or of one
// character ("IT", "A") are never matched: they occur in ordinary prose.
func (g *GraphStore) MatchEntities(ctx context.Context, text string) ([]string, error) {
	idx, err := g.entities(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqlite: match entities: %w", err)
	}
	return idx.match(text), nil
}

// match implements MatchEntities.
func (idx *entityIndex) match(text string) []string {
	toks := tokens(text, maxMatchTokens)
	var found []entityName // in order of first mention
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
	names := make([]string, len(found))
	for i, e := range found {
		names[i] = e.name
	}
	return names
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

// entities returns the entity index, reloading it when the graph version
// has changed since it was built.
func (g *GraphStore) entities(ctx context.Context) (*entityIndex, error) {
	version, _, err := getMeta(ctx, g.db.db, metaGraphVersion)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.index != nil && g.version == version {
		return g.index, nil
	}
	idx, err := g.loadIndex(ctx)
	if err != nil {
		return nil, err
	}
	g.index, g.version = idx, version
	return idx, nil
}

func (g *GraphStore) loadIndex(ctx context.Context) (*entityIndex, error) {
	idx := &entityIndex{byFirst: map[string][]entityName{}, labels: map[string]string{}}
	rows, err := g.db.db.QueryContext(ctx, `SELECT name_norm, min(name) FROM nodes GROUP BY name_norm`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var e entityName
		if err := rows.Scan(&e.norm, &e.name); err != nil {
			return nil, err
		}
		e.toks = strings.Fields(e.norm)
		if !matchable(e.toks) {
			continue
		}
		idx.byFirst[e.toks[0]] = append(idx.byFirst[e.toks[0]], e)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, es := range idx.byFirst {
		sort.Slice(es, func(i, j int) bool { return len(es[i].toks) > len(es[j].toks) })
	}

	lrows, err := g.db.db.QueryContext(ctx, `SELECT DISTINCT label FROM nodes WHERE label <> ''`)
	if err != nil {
		return nil, err
	}
	defer lrows.Close()
	for lrows.Next() {
		var l string
		if err := lrows.Scan(&l); err != nil {
			return nil, err
		}
		k := strings.ToLower(l)
		idx.labels[k] = l
		idx.labels[singular(k)] = l
	}
	return idx, lrows.Err()
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

// node is a stored node as the graph retriever reads it.
type node struct {
	ID    string
	Label string
	Name  string
	Props map[string]string
}

// ref is how a node is written in a fact: "Acme Corp (Supplier)".
func (n node) ref() string {
	if n.Label == "" {
		return n.Name
	}
	return n.Name + " (" + n.Label + ")"
}

func scanProps(s string) map[string]string {
	p := map[string]string{}
	// Props are written by propsJSON and json_patch; anything else (a
	// value edited by hand into a non-string) is shown without its props
	// rather than failing the retrieval.
	if err := json.Unmarshal([]byte(s), &p); err != nil || p == nil {
		return map[string]string{}
	}
	return p
}

// queryNodes runs a query selecting id, label, name, props.
func (g *GraphStore) queryNodes(ctx context.Context, query string, args ...any) ([]node, error) {
	rows, err := g.db.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []node
	for rows.Next() {
		var n node
		var props string
		if err := rows.Scan(&n.ID, &n.Label, &n.Name, &props); err != nil {
			return nil, err
		}
		n.Props = scanProps(props)
		out = append(out, n)
	}
	return out, rows.Err()
}

// nodesByNames returns the nodes called by each of names (as MatchEntities
// returns them), in the order of names.
func (g *GraphStore) nodesByNames(ctx context.Context, names []string, limit int) ([]node, error) {
	var out []node
	for _, name := range names {
		ns, err := g.queryNodes(ctx, `SELECT id, label, name, props FROM nodes
			WHERE name_norm = ? ORDER BY id LIMIT ?`, normName(name), limit)
		if err != nil {
			return nil, err
		}
		out = append(out, ns...)
		if len(out) >= limit {
			return out[:limit], nil
		}
	}
	return out, nil
}

// fact is one edge with both ends.
type fact struct {
	id       int64
	src, dst node
	typ      string
	props    map[string]string
	origin   string
}

func (f fact) String() string {
	s := f.src.ref() + " -[" + f.typ + "]-> " + f.dst.ref()
	if p := formatProps(f.props, maxPropsShown); p != "" {
		s += " " + p
	}
	return s
}

// edgesOf returns up to n edges touching node id, in either direction,
// ordered by type so a node's relations of one kind are listed together.
func (g *GraphStore) edgesOf(ctx context.Context, id string, n int) ([]fact, error) {
	rows, err := g.db.db.QueryContext(ctx, `SELECT e.id, e.type, e.props, e.origin,
			s.id, s.label, s.name, s.props, t.id, t.label, t.name, t.props
		FROM edges e
		JOIN nodes s ON s.id = e.source
		JOIN nodes t ON t.id = e.target
		WHERE e.source = :id OR e.target = :id
		ORDER BY e.type, e.id
		LIMIT :n`, sql.Named("id", id), sql.Named("n", n))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []fact
	for rows.Next() {
		var f fact
		var props, sprops, tprops string
		if err := rows.Scan(&f.id, &f.typ, &props, &f.origin,
			&f.src.ID, &f.src.Label, &f.src.Name, &sprops,
			&f.dst.ID, &f.dst.Label, &f.dst.Name, &tprops); err != nil {
			return nil, err
		}
		f.props, f.src.Props, f.dst.Props = scanProps(props), scanProps(sprops), scanProps(tprops)
		out = append(out, f)
	}
	return out, rows.Err()
}

// maxPropsShown bounds the properties printed per node or edge.
const maxPropsShown = 8

// formatProps renders properties as "{k: v, ...}" in key order, at most
// n of them, each value cut to a readable length.
func formatProps(p map[string]string, n int) string {
	if len(p) == 0 {
		return ""
	}
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) > n {
		keys = keys[:n]
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + clip(p[k], 80)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
