package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// ForgetOrigins deletes the edges whose origin is one of origins, then the
// nodes whose source is one of them and that have no edge left, in one
// transaction, and returns how many edges went. Chat ingestion calls it
// before it extracts a changed message's facts again, and for a deleted
// message, so that a fact nobody states any more leaves the graph.
func (g *GraphStore) ForgetOrigins(ctx context.Context, origins []string) (int, error) {
	if len(origins) == 0 {
		return 0, nil
	}
	var deleted int64
	err := g.db.withTx(ctx, func(tx *sql.Tx) error {
		// SQLite binds up to 32766 parameters; origins come a document at
		// a time, far fewer.
		for start := 0; start < len(origins); start += 500 {
			part := origins[start:min(start+500, len(origins))]
			in := "(?" + strings.Repeat(", ?", len(part)-1) + ")"
			args := make([]any, len(part))
			for i, o := range part {
				args[i] = o
			}
			res, err := tx.ExecContext(ctx, `DELETE FROM edges WHERE origin IN `+in, args...)
			if err != nil {
				return err
			}
			n, _ := res.RowsAffected()
			deleted += n
			if _, err := tx.ExecContext(ctx, `DELETE FROM nodes WHERE source IN `+in+`
				AND NOT EXISTS (SELECT 1 FROM edges e WHERE e.source = nodes.id OR e.target = nodes.id)`, args...); err != nil {
				return err
			}
		}
		// The deletes move the graph's version (migration 006).
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite: forget facts of %d origins: %w", len(origins), err)
	}
	return int(deleted), nil
}
