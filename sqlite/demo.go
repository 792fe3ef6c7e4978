package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// metaDemo marks a store holding only the demo knowledge base.
const metaDemo = "demo"

// MarkDemo records that the store holds the demo knowledge base and
// nothing else, so that RemoveDemo takes it out before the first document
// of the user's own is stored.
func (db *DB) MarkDemo(ctx context.Context) error {
	if err := setMeta(ctx, db.db, metaDemo, "1"); err != nil {
		return fmt.Errorf("sqlite: mark demo: %w", err)
	}
	return nil
}

// HasDemo reports whether the store is marked as holding the demo.
func (db *DB) HasDemo(ctx context.Context) (bool, error) {
	_, ok, err := getMeta(ctx, db.db, metaDemo)
	if err != nil {
		return false, fmt.Errorf("sqlite: demo: %w", err)
	}
	return ok, nil
}

// RemoveDemo deletes the demo knowledge base when the store is marked as
// holding it: the documents (workspace "") whose key starts with
// docPrefix, and the graph's edges and nodes whose origin or source is
// one of origins, in one transaction with the mark. removed is false when
// there was no mark, and then nothing is deleted.
func (db *DB) RemoveDemo(ctx context.Context, docPrefix string, origins []string) (removed bool, err error) {
	err = db.withTx(ctx, func(tx *sql.Tx) error {
		if _, ok, err := getMeta(ctx, tx, metaDemo); err != nil || !ok {
			return err
		}
		like := escapeLike(docPrefix) + "%"
		if _, err := tx.ExecContext(ctx, `DELETE FROM chunks WHERE document_id IN
			(SELECT id FROM documents WHERE workspace = '' AND key LIKE ? ESCAPE '\')`, like); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM documents WHERE workspace = '' AND key LIKE ? ESCAPE '\'`, like); err != nil {
			return err
		}
		for _, o := range origins {
			if _, err := tx.ExecContext(ctx, `DELETE FROM edges WHERE origin = ?`, o); err != nil {
				return err
			}
		}
		for _, o := range origins {
			if _, err := tx.ExecContext(ctx, `DELETE FROM nodes WHERE source = ?
				AND NOT EXISTS (SELECT 1 FROM edges e WHERE e.source = nodes.id OR e.target = nodes.id)`, o); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM meta WHERE key = ?`, metaDemo); err != nil {
			return err
		}
		removed = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("sqlite: remove the demo: %w", err)
	}
	return removed, nil
}
