package neo4j

import (
	"context"
	"fmt"

	neo4jdrv "github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// ForgetOrigins deletes the relationships whose origin is one of origins,
// then the entities whose source is one of them and that have no
// relationship left, in one transaction, and returns how many
// relationships went. Chat ingestion calls it before it extracts a changed
// message's facts again, and for a deleted message, so that a fact
// nobody states any more leaves the graph.
func (g *Graph) ForgetOrigins(ctx context.Context, origins []string) (int, error) {
	if len(origins) == 0 {
		return 0, nil
	}
	list := make([]any, len(origins))
	for i, o := range origins {
		list[i] = o
	}
	var deleted int64
	err := g.write(ctx, func(tx neo4jdrv.ManagedTransaction) error {
		recs, err := run(ctx, tx, `MATCH (:Entity)-[r]->(:Entity) WHERE r.origin IN $origins
			DELETE r RETURN count(r)`, map[string]any{"origins": list})
		if err != nil {
			return err
		}
		if len(recs) == 1 {
			deleted, _ = recs[0].Values[0].(int64)
		}
		_, err = run(ctx, tx, `MATCH (n:Entity) WHERE n.source IN $origins AND NOT (n)--()
			DELETE n`, map[string]any{"origins": list})
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("neo4j: forget facts of %d origins: %w", len(origins), err)
	}
	return int(deleted), nil
}
