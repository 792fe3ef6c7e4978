package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/switchboard/switchboard/ingest"
	"github.com/switchboard/switchboard/kb"
)

var _ ingest.LegacyFiles = (*DocumentStore)(nil)

// HasLegacyFiles reports whether any file document is stored under a key
// of an earlier version.
func (s *DocumentStore) HasLegacyFiles(ctx context.Context) (bool, error) {
	var ok bool
	err := s.db.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM documents
		WHERE workspace = '' AND key NOT LIKE 'file:%' AND key NOT LIKE 'examples/%')`).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("sqlite: legacy file documents: %w", err)
	}
	return ok, nil
}

// LegacyFileDocuments returns the file documents stored under the keys of
// earlier versions (the path as typed) whose file name is base: their Key
// and Hash. Demo documents ("examples/…") are not among them.
func (s *DocumentStore) LegacyFileDocuments(ctx context.Context, base string) ([]kb.Document, error) {
	rows, err := s.db.db.QueryContext(ctx, `SELECT key, hash FROM documents
		WHERE workspace = '' AND key NOT LIKE 'file:%' AND key NOT LIKE 'examples/%'
		AND (key = ? OR key LIKE '%/' || ? ESCAPE '\') ORDER BY key`, base, escapeLike(base))
	if err != nil {
		return nil, fmt.Errorf("sqlite: legacy file documents %q: %w", base, err)
	}
	defer rows.Close()
	var docs []kb.Document
	for rows.Next() {
		var d kb.Document
		if err := rows.Scan(&d.Key, &d.Hash); err != nil {
			return nil, fmt.Errorf("sqlite: legacy file documents %q: %w", base, err)
		}
		// LIKE ignores the case of ASCII letters.
		if (d.Key == base || strings.HasSuffix(d.Key, "/"+base)) && !strings.HasPrefix(d.Key, ingest.KeyPrefix) {
			docs = append(docs, d)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: legacy file documents %q: %w", base, err)
	}
	return docs, nil
}

// RenameDocument gives the document stored under from the key to and
// location, keeping its chunks and hash. It does nothing when to is taken
// or from does not exist.
func (s *DocumentStore) RenameDocument(ctx context.Context, workspace, from, to, location string) error {
	if to == "" || strings.TrimSpace(from) == "" {
		return fmt.Errorf("sqlite: rename document %q to %q: empty key", from, to)
	}
	err := s.db.withTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE documents SET key = ?, location = ?
			WHERE workspace = ? AND key = ?
			AND NOT EXISTS (SELECT 1 FROM documents WHERE workspace = ? AND key = ?)`,
			to, location, workspace, from, workspace, to)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: rename document %q to %q: %w", from, to, err)
	}
	return nil
}
