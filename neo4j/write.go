package neo4j

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	neo4jdrv "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/switchboard/switchboard/kb"
)

// writeBatch is how many rows go to Neo4j in one UNWIND: large enough to
// amortise round trips, small enough to keep each query's memory modest.
const writeBatch = 500

// entityLabel is on every node of the graph.
const entityLabel = "Entity"

// identifier is what a label or relationship type must look like before it
// is written into Cypher text. Labels and types cannot be parameters, so
// this check, with backtick quoting on top, is what keeps a hostile CSV
// from injecting Cypher.
var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// quote returns name as a backtick-quoted Cypher identifier. Doubling
// backticks makes any string safe; callers still validate the names they
// create with identifier, so quoting is the second line, not the first.
func quote(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// Properties that UpsertNodes and UpsertEdges set themselves; a kb prop of
// the same name is dropped rather than allowed to overwrite them.
var (
	reservedNodeProps = map[string]bool{"id": true, "name": true, "source": true}
	reservedEdgeProps = map[string]bool{"origin": true}
)

// props copies p without the reserved keys, as the map[string]any the
// driver sends.
func props(p map[string]string, reserved map[string]bool) map[string]any {
	out := make(map[string]any, len(p))
	for k, v := range p {
		if !reserved[k] && k != "" {
			out[k] = v
		}
	}
	return out
}

// nodeLabel is the stored form of a node's label: trimmed, with spaces
// and dashes as underscores ("purchase order" → purchase_order). An
// invalid label, or one this package reserves, is an error.
func nodeLabel(l string) (string, error) {
	l = strings.Join(strings.FieldsFunc(strings.TrimSpace(l), func(r rune) bool {
		return r == ' ' || r == '-' || r == '\t'
	}), "_")
	switch {
	case l == "" || l == entityLabel:
		return "", nil
	case !identifier.MatchString(l):
		return "", fmt.Errorf("label %q: use letters, digits and underscores, starting with a letter", l)
	case strings.HasPrefix(l, "_"):
		return "", fmt.Errorf("label %q: labels starting with _ are reserved", l)
	}
	return l, nil
}

// edgeType is the stored form of a relationship type, as in package
// sqlite: upper case with underscores ("supplies to" → SUPPLIES_TO), so
// the same relation extracted twice is stored once.
func edgeType(t string) string {
	return strings.ToUpper(strings.Join(strings.FieldsFunc(t, func(r rune) bool {
		return r == ' ' || r == '-' || r == '_' || r == '\t'
	}), "_"))
}

// UpsertNodes inserts nodes or updates them by ID, in one transaction:
// either all are stored or none. Updating merges Props into the stored
// ones, replaces the label when a new one is given and keeps the stored
// Source when the new one is empty, so facts extracted from several
// documents accumulate. A node without a Name is named by its ID. Props
// named id, name or source are dropped: those are the node's own fields.
//
// Labels must be letters, digits and underscores (spaces and dashes are
// turned into underscores); anything else is an error naming the node.
func (g *Graph) UpsertNodes(ctx context.Context, nodes []kb.Node) error {
	if len(nodes) == 0 {
		return nil
	}
	rows := make([]map[string]any, len(nodes))
	labels := make([]string, len(nodes))
	for i, n := range nodes {
		id := strings.TrimSpace(n.ID)
		if id == "" {
			return fmt.Errorf("neo4j: upsert nodes: node %q: empty id", n.Name)
		}
		label, err := nodeLabel(n.Label)
		if err != nil {
			return fmt.Errorf("neo4j: upsert nodes: node %q: %w", id, err)
		}
		name := strings.TrimSpace(n.Name)
		if name == "" {
			name = id
		}
		labels[i] = label
		rows[i] = map[string]any{"id": id, "name": name, "source": n.Source, "props": props(n.Props, reservedNodeProps)}
	}
	err := g.write(ctx, func(tx neo4jdrv.ManagedTransaction) error {
		for start := 0; start < len(rows); start += writeBatch {
			end := min(start+writeBatch, len(rows))
			if err := upsertNodeBatch(ctx, tx, rows[start:end], labels[start:end]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("neo4j: upsert nodes: %w", err)
	}
	return nil
}

// upsertNodeBatch writes one batch: first it takes old labels off nodes
// being relabelled, then it merges the rows one label at a time, because
// a label can only be written into the query text.
func upsertNodeBatch(ctx context.Context, tx neo4jdrv.ManagedTransaction, rows []map[string]any, labels []string) error {
	ids := make([]any, len(rows))
	newLabel := map[string]string{}
	for i, r := range rows {
		ids[i] = r["id"]
		if labels[i] != "" {
			newLabel[r["id"].(string)] = labels[i]
		}
	}
	recs, err := run(ctx, tx, `UNWIND $ids AS id MATCH (n:Entity {id: id})
		RETURN id, [l IN labels(n) WHERE l <> 'Entity'] AS labels`, map[string]any{"ids": ids})
	if err != nil {
		return fmt.Errorf("read labels: %w", err)
	}
	stale := map[string][]any{} // old label → ids losing it
	var staleOrder []string
	for _, r := range recs {
		id, _ := r.Values[0].(string)
		l, ok := newLabel[id]
		if !ok {
			continue // no new label: keep the old one
		}
		old, _ := r.Values[1].([]any)
		for _, o := range old {
			if o, _ := o.(string); o != "" && o != l {
				if _, seen := stale[o]; !seen {
					staleOrder = append(staleOrder, o)
				}
				stale[o] = append(stale[o], id)
			}
		}
	}
	for _, o := range staleOrder {
		// Old labels were read from the database, not validated by us:
		// quote alone makes them safe.
		if _, err := run(ctx, tx, `UNWIND $ids AS id MATCH (n:Entity {id: id}) REMOVE n:`+quote(o),
			map[string]any{"ids": stale[o]}); err != nil {
			return fmt.Errorf("relabel from %s: %w", o, err)
		}
	}

	groups, order := map[string][]any{}, []string{}
	for i, r := range rows {
		if _, ok := groups[labels[i]]; !ok {
			order = append(order, labels[i])
		}
		groups[labels[i]] = append(groups[labels[i]], r)
	}
	for _, label := range order {
		q := `UNWIND $rows AS row
			MERGE (n:Entity {id: row.id})
			SET n += row.props, n.name = row.name,
				n.source = CASE WHEN row.source <> '' THEN row.source ELSE n.source END`
		if label != "" {
			q += "\nSET n:" + quote(label) // validated by nodeLabel
		}
		if _, err := run(ctx, tx, q, map[string]any{"rows": groups[label]}); err != nil {
			return fmt.Errorf("merge %s nodes: %w", label, err)
		}
	}
	return nil
}

// UpsertEdges inserts edges or, for an existing Source-Type-Target, merges
// their Props, in one transaction: either all are stored or none. Type is
// normalised to upper case with underscores ("supplies to" → SUPPLIES_TO)
// and must then be letters, digits and underscores. An edge whose source
// or target node does not exist is an error naming the node. Origin is
// kept as the relationship's origin property; an empty one keeps the
// stored origin.
func (g *Graph) UpsertEdges(ctx context.Context, edges []kb.Edge) error {
	if len(edges) == 0 {
		return nil
	}
	rows := make([]map[string]any, len(edges))
	types := make([]string, len(edges))
	var ids []any
	seen := map[string]bool{}
	for i, e := range edges {
		typ := edgeType(e.Type)
		src, dst := strings.TrimSpace(e.Source), strings.TrimSpace(e.Target)
		switch {
		case typ == "":
			return fmt.Errorf("neo4j: upsert edges: edge %s -> %s: empty type", src, dst)
		case !identifier.MatchString(typ):
			return fmt.Errorf("neo4j: upsert edges: edge %s -[%s]-> %s: type must be letters, digits and underscores", src, typ, dst)
		case src == "" || dst == "":
			return fmt.Errorf("neo4j: upsert edges: edge %q -[%s]-> %q: empty node id", src, typ, dst)
		}
		for _, id := range []string{src, dst} {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
		types[i] = typ
		rows[i] = map[string]any{"source": src, "target": dst, "origin": e.Origin, "props": props(e.Props, reservedEdgeProps)}
	}
	err := g.write(ctx, func(tx neo4jdrv.ManagedTransaction) error {
		recs, err := run(ctx, tx, `UNWIND $ids AS id OPTIONAL MATCH (n:Entity {id: id})
			WITH id, n WHERE n IS NULL RETURN id`, map[string]any{"ids": ids})
		if err != nil {
			return fmt.Errorf("check nodes: %w", err)
		}
		if len(recs) > 0 {
			missing := map[string]bool{}
			for _, r := range recs {
				id, _ := r.Values[0].(string)
				missing[id] = true
			}
			for i, r := range rows {
				for _, id := range []string{r["source"].(string), r["target"].(string)} {
					if missing[id] {
						return fmt.Errorf("edge %s -[%s]-> %s: node %q does not exist", r["source"], types[i], r["target"], id)
					}
				}
			}
		}
		for start := 0; start < len(rows); start += writeBatch {
			end := min(start+writeBatch, len(rows))
			if err := upsertEdgeBatch(ctx, tx, rows[start:end], types[start:end]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("neo4j: upsert edges: %w", err)
	}
	return nil
}

// upsertEdgeBatch merges one batch, one relationship type at a time.
func upsertEdgeBatch(ctx context.Context, tx neo4jdrv.ManagedTransaction, rows []map[string]any, types []string) error {
	groups, order := map[string][]any{}, []string{}
	for i, r := range rows {
		if _, ok := groups[types[i]]; !ok {
			order = append(order, types[i])
		}
		groups[types[i]] = append(groups[types[i]], r)
	}
	for _, typ := range order {
		q := `UNWIND $rows AS row
			MATCH (a:Entity {id: row.source})
			MATCH (b:Entity {id: row.target})
			MERGE (a)-[r:` + quote(typ) + `]->(b)
			SET r += row.props,
				r.origin = CASE WHEN row.origin <> '' THEN row.origin ELSE r.origin END`
		if _, err := run(ctx, tx, q, map[string]any{"rows": groups[typ]}); err != nil {
			return fmt.Errorf("merge %s edges: %w", typ, err)
		}
	}
	return nil
}

// run runs one query in tx and collects its records.
func run(ctx context.Context, tx neo4jdrv.ManagedTransaction, cypher string, params map[string]any) ([]*neo4jdrv.Record, error) {
	res, err := tx.Run(ctx, cypher, params)
	if err != nil {
		return nil, err
	}
	return res.Collect(ctx)
}

// CountNodes returns the number of nodes of the knowledge graph (those
// labelled Entity; bookkeeping nodes are not counted).
func (g *Graph) CountNodes(ctx context.Context) (int, error) {
	return g.count(ctx, `MATCH (n:Entity) RETURN count(n)`)
}

// CountEdges returns the number of relationships. Only entities have
// relationships, so this is the count store's total, read in constant time.
func (g *Graph) CountEdges(ctx context.Context) (int, error) {
	return g.count(ctx, `MATCH ()-[r]->() RETURN count(r)`)
}

func (g *Graph) count(ctx context.Context, cypher string) (int, error) {
	recs, err := g.read(ctx, cypher, nil)
	if err != nil {
		return 0, fmt.Errorf("neo4j: count: %w", err)
	}
	if len(recs) != 1 {
		return 0, fmt.Errorf("neo4j: count: %d records", len(recs))
	}
	n, _ := recs[0].Values[0].(int64)
	return int(n), nil
}
