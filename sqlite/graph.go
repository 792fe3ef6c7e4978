package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/switchboard/switchboard/graphwalk"
	"github.com/switchboard/switchboard/kb"
	"github.com/switchboard/switchboard/kb/words"
)

// GraphStore holds the knowledge graph: nodes and the typed edges between
// them. It keeps the node names, and the whole graph unless it is larger
// than maxCachedGraph, in memory for MatchEntities and the walk, and
// reloads them only when the graph's version in the meta table has moved,
// so a graph written by another process (ingest while serve runs) is
// noticed at the cost of one tiny query per call. It implements
// graphwalk.Store, which is how GraphRetriever reads it; the Props of the
// nodes and facts it returns are shared with its cache, to be read only.
type GraphStore struct {
	db    *DB
	names graphwalk.IndexCache      // entity names, for MatchEntities and the walk
	cache versioned[*graphSnapshot] // the graph, for the walk; nil: too large to hold
}

var _ graphwalk.Store = (*GraphStore)(nil)

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
			// name_norm keeps the schema's column filled for queries by
			// hand; matching normalises names itself, in graphwalk.Index.
			if _, err := stmt.ExecContext(ctx, n.ID, strings.TrimSpace(n.Label), name, words.Norm(name), props, n.Source); err != nil {
				return fmt.Errorf("node %q: %w", n.ID, err)
			}
		}
		// The triggers of migration 006 move the graph's version, which
		// tells every GraphStore, in any process, that its caches are stale.
		return nil
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

// MatchEntities returns the names of nodes mentioned in text, as
// graphwalk.Index.Match finds them: compared case-insensitively on whole
// words ("Acme Corp." matches "acme corp", not "Acmeville"), the longest
// of overlapping names winning, longest first, then by position, at most
// 10. Names made only of stopwords or of one character ("IT", "A") are
// never matched: they occur in ordinary prose.
func (g *GraphStore) MatchEntities(ctx context.Context, text string) ([]string, error) {
	idx, err := g.EntityIndex(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqlite: match entities: %w", err)
	}
	return idx.MatchNames(text), nil
}

// EntityIndex returns the index of node names and labels, reloading it
// when the graph version in the meta table has moved since it was built.
func (g *GraphStore) EntityIndex(ctx context.Context) (*graphwalk.Index, error) {
	version, err := g.db.version(ctx, metaGraphVersion)
	if err != nil {
		return nil, err
	}
	return g.names.Get(ctx, version, g.indexEntries)
}

// indexEntries reads every node's id, name and label for the index, and
// the schema's other names: the relationship types and the property keys
// of nodes and edges.
func (g *GraphStore) indexEntries(ctx context.Context) ([]graphwalk.Entry, []string, error) {
	rows, err := g.db.db.QueryContext(ctx, `SELECT id, name, label FROM nodes`)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var out []graphwalk.Entry
	for rows.Next() {
		var e graphwalk.Entry
		var label string
		if err := rows.Scan(&e.ID, &e.Name, &label); err != nil {
			return nil, nil, err
		}
		if label != "" {
			e.Labels = []string{label}
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	schema, err := g.schemaNames(ctx)
	return out, schema, err
}

// schemaNames returns the distinct relationship types and property keys.
func (g *GraphStore) schemaNames(ctx context.Context) ([]string, error) {
	rows, err := g.db.db.QueryContext(ctx, `SELECT DISTINCT type FROM edges
		UNION SELECT DISTINCT j.key FROM nodes, json_each(nodes.props) AS j
		UNION SELECT DISTINCT j.key FROM edges, json_each(edges.props) AS j`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
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
func (g *GraphStore) queryNodes(ctx context.Context, query string, args ...any) ([]graphwalk.Node, error) {
	rows, err := g.db.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []graphwalk.Node
	for rows.Next() {
		var n graphwalk.Node
		var props string
		if err := rows.Scan(&n.ID, &n.Label, &n.Name, &props); err != nil {
			return nil, err
		}
		n.Props = scanProps(props)
		out = append(out, n)
	}
	return out, rows.Err()
}

// NodesByIDs returns the nodes with the given ids, in the order of ids.
// The ids travel as one JSON array, so that any number of them is one
// statement with one parameter.
func (g *GraphStore) NodesByIDs(ctx context.Context, ids []string) ([]graphwalk.Node, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	if s, err := g.snapshot(ctx); err != nil || s != nil {
		if err != nil {
			return nil, err
		}
		return s.nodesByIDs(ids), nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	return g.queryNodes(ctx, `SELECT n.id, n.label, n.name, n.props
		FROM json_each(?) j JOIN nodes n ON n.id = j.value
		ORDER BY j.key`, string(list))
}

// NodesOfLabel returns up to limit nodes labelled label, compared without
// regard to case, in order.
func (g *GraphStore) NodesOfLabel(ctx context.Context, label string, order graphwalk.Order, limit int) ([]graphwalk.Node, error) {
	if s, err := g.snapshot(ctx); err != nil || s != nil {
		if err != nil {
			return nil, err
		}
		return s.nodesOfLabel(label, order, limit), nil
	}
	by := "id"
	if order == graphwalk.ByName {
		by = "name, id"
	}
	return g.queryNodes(ctx, `SELECT id, label, name, props FROM nodes
		WHERE label = ? COLLATE NOCASE ORDER BY `+by+` LIMIT ?`, label, limit)
}

// CountLabel returns the number of nodes labelled label, compared without
// regard to case, as NodesOfLabel compares it.
func (g *GraphStore) CountLabel(ctx context.Context, label string) (int, error) {
	if s, err := g.snapshot(ctx); err != nil || s != nil {
		if err != nil {
			return 0, err
		}
		return len(s.byID[foldNoCase(label)]), nil
	}
	var n int
	err := g.db.db.QueryRowContext(ctx, `SELECT count(*) FROM nodes WHERE label = ? COLLATE NOCASE`, label).Scan(&n)
	return n, err
}

// EdgesOf returns, for each of ids, up to limit edges touching that node
// in either direction, ordered by type, then by when they were stored.
// A graph too large to hold in memory is read with a query per node.
func (g *GraphStore) EdgesOf(ctx context.Context, ids []string, limit int) ([][]graphwalk.Fact, error) {
	if s, err := g.snapshot(ctx); err != nil || s != nil {
		if err != nil {
			return nil, err
		}
		return s.edgesOf(ids, limit), nil
	}
	stmt, err := g.db.db.PrepareContext(ctx, `SELECT e.id, e.type, e.props, e.origin,
			s.id, s.label, s.name, s.props, t.id, t.label, t.name, t.props
		FROM edges e
		JOIN nodes s ON s.id = e.source
		JOIN nodes t ON t.id = e.target
		WHERE e.source = :id OR e.target = :id
		ORDER BY e.type, e.id
		LIMIT :n`)
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	out := make([][]graphwalk.Fact, len(ids))
	for i, id := range ids {
		if out[i], err = scanFacts(stmt.QueryContext(ctx, sql.Named("id", id), sql.Named("n", limit))); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// scanFacts reads the rows of EdgesOf's query.
func scanFacts(rows *sql.Rows, err error) ([]graphwalk.Fact, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []graphwalk.Fact
	for rows.Next() {
		var f graphwalk.Fact
		var id int64
		var props, sprops, tprops string
		if err := rows.Scan(&id, &f.Type, &props, &f.Origin,
			&f.Src.ID, &f.Src.Label, &f.Src.Name, &sprops,
			&f.Dst.ID, &f.Dst.Label, &f.Dst.Name, &tprops); err != nil {
			return nil, err
		}
		f.ID = strconv.FormatInt(id, 10)
		f.Props, f.Src.Props, f.Dst.Props = scanProps(props), scanProps(sprops), scanProps(tprops)
		out = append(out, f)
	}
	return out, rows.Err()
}
