package postgres

import (
	"context"
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
	err := s.db.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM documents
		WHERE workspace = '' AND NOT starts_with(key, 'file:') AND NOT starts_with(key, 'examples/'))`).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("postgres: legacy file documents: %w", err)
	}
	return ok, nil
}

// LegacyFileDocuments returns the file documents stored under the keys of
// earlier versions (the path as typed) whose file name is base: their Key
// and Hash. Demo documents ("examples/…") are not among them.
func (s *DocumentStore) LegacyFileDocuments(ctx context.Context, base string) ([]kb.Document, error) {
	rows, err := s.db.pool.Query(ctx, `SELECT key, hash FROM documents
		WHERE workspace = '' AND NOT starts_with(key, $1) AND NOT starts_with(key, 'examples/')
		AND (key = $2 OR key LIKE '%/' || $3 ESCAPE '\') ORDER BY key`,
		ingest.KeyPrefix, base, escapeLike(base))
	if err != nil {
		return nil, fmt.Errorf("postgres: legacy file documents %q: %w", base, err)
	}
	defer rows.Close()
	var docs []kb.Document
	for rows.Next() {
		var d kb.Document
		if err := rows.Scan(&d.Key, &d.Hash); err != nil {
			return nil, fmt.Errorf("postgres: legacy file documents %q: %w", base, err)
		}
		docs = append(docs, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: legacy file documents %q: %w", base, err)
	}
	return docs, nil
}

// RenameDocument gives the document stored under from the key to and
// location, keeping its chunks and hash. It does nothing when to is taken
// or from does not exist.
func (s *DocumentStore) RenameDocument(ctx context.Context, workspace, from, to, location string) error {
	if to == "" || strings.TrimSpace(from) == "" {
		return fmt.Errorf("postgres: rename document %q to %q: empty key", from, to)
	}
	_, err := s.db.pool.Exec(ctx, `UPDATE documents SET key = $3, location = $4
		WHERE workspace = $1 AND key = $2
		AND NOT EXISTS (SELECT 1 FROM documents WHERE workspace = $1 AND key = $3)`,
		workspace, from, cleanText(to), cleanText(location))
	if err != nil {
		if strings.Contains(err.Error(), "documents_workspace_key_key") {
			return nil // taken meanwhile by a concurrent ingest
		}
		return fmt.Errorf("postgres: rename document %q to %q: %w", from, to, err)
	}
	return nil
}
