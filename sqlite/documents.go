package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/switchboard/switchboard/kb"
)

// DocumentStore writes ingested documents and their chunks. Searching is the
// Retriever's job.
type DocumentStore struct {
	db       *DB
	embedder string
}

// NewDocumentStore returns a store writing to db. embedder names the model
// that produced the chunks' vectors; it is recorded with their dimension by
// the first document stored with vectors, so that DB.CheckEmbedding can
// later refuse a different model.
func NewDocumentStore(db *DB, embedder string) *DocumentStore {
	return &DocumentStore{db: db, embedder: embedder}
}

// UpsertDocument stores doc, replacing any document with the same Workspace
// and Key. It is idempotent: when the stored document has the same Hash
// nothing is written and changed is false. Otherwise the document row and
// all its chunks are replaced in one transaction, so searches never see a
// half-written document. A doc without a Hash is hashed from its title and
// chunks.
//
// It fails when Key is empty, when a private document names no channel
// (nobody could ever see it), when chunks carry vectors of different
// lengths, or with an *EmbeddingMismatchError when the vectors do not match
// those already stored.
func (s *DocumentStore) UpsertDocument(ctx context.Context, doc kb.Document) (changed bool, err error) {
	if doc.Key == "" {
		return false, errors.New("sqlite: upsert document: empty key")
	}
	if doc.Private && doc.Channel == "" {
		return false, fmt.Errorf("sqlite: upsert document %q: private document without a channel", doc.Key)
	}
	dim, err := doc.EmbeddingDim()
	if err != nil {
		return false, fmt.Errorf("sqlite: upsert document %q: %w", doc.Key, err)
	}
	if doc.Hash == "" {
		doc.Hash = doc.ContentHash()
	}
	meta, err := json.Marshal(doc.Metadata)
	if err != nil {
		return false, fmt.Errorf("sqlite: upsert document %q: metadata: %w", doc.Key, err)
	}
	if doc.Metadata == nil {
		meta = []byte("{}")
	}

	err = s.db.withTx(ctx, func(tx *sql.Tx) error {
		var id int64
		var hash string
		err := tx.QueryRowContext(ctx, `SELECT id, hash FROM documents WHERE workspace = ? AND key = ?`,
			doc.Workspace, doc.Key).Scan(&id, &hash)
		found := err == nil
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if found && hash == doc.Hash {
			return nil
		}
		if dim > 0 {
			if err := s.recordEmbedding(ctx, tx, dim); err != nil {
				return err
			}
		}
		updated := s.db.now().UnixMilli()
		if found {
			// The row is updated before the new chunks are inserted: their
			// trigger copies its title into the full-text index.
			if _, err := tx.ExecContext(ctx, `DELETE FROM chunks WHERE document_id = ?`, id); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE documents SET channel = ?, private = ?, title = ?,
				location = ?, hash = ?, metadata = ?, updated = ? WHERE id = ?`,
				doc.Channel, doc.Private, doc.Title, doc.Location, doc.Hash, string(meta), updated, id); err != nil {
				return err
			}
		} else {
			res, err := tx.ExecContext(ctx, `INSERT INTO documents
				(workspace, key, channel, private, title, location, hash, metadata, updated)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				doc.Workspace, doc.Key, doc.Channel, doc.Private, doc.Title, doc.Location, doc.Hash, string(meta), updated)
			if err != nil {
				return err
			}
			if id, err = res.LastInsertId(); err != nil {
				return err
			}
		}
		if err := insertChunks(ctx, tx, id, doc.Chunks); err != nil {
			return err
		}
		changed = true
		return nil
	})
	if err != nil {
		var mm *EmbeddingMismatchError
		if errors.As(err, &mm) {
			return false, err
		}
		if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
			// database/sql closes a cancelled transaction's statements, and
			// one then fails with "statement is closed": the cause is the
			// cancellation, which the caller must be able to tell.
			err = fmt.Errorf("%w (%v)", cerr, err)
		}
		return false, fmt.Errorf("sqlite: upsert document %q: %w", doc.Key, err)
	}
	return changed, nil
}

// chunksPerInsert bounds the rows of one INSERT of insertChunks: seven
// parameters each, well under SQLite's 32766.
const chunksPerInsert = 256

// insertChunks inserts the chunks of document id with as few statements
// as it can. FTS5 writes what it holds in memory to a new segment of the
// index whenever a statement of the transaction begins (its xSavepoint),
// so a statement per chunk made a segment per chunk: the demo knowledge
// base's 39 chunks left 9 segments after FTS5's merging, and every search
// seeks each of its terms in every segment. One statement per document
// makes one segment, and the merging less work too.
func insertChunks(ctx context.Context, tx *sql.Tx, id int64, chunks []kb.Chunk) error {
	for start := 0; start < len(chunks); start += chunksPerInsert {
		part := chunks[start:min(start+chunksPerInsert, len(chunks))]
		args := make([]any, 0, 7*len(part))
		for _, c := range part {
			var emb []byte // NULL when the chunk has no vector
			if len(c.Embedding) > 0 {
				emb = encodeVector(c.Embedding)
			}
			cmeta, err := chunkMetadata(c.Metadata)
			if err != nil {
				return fmt.Errorf("chunk %d: metadata: %w", c.Index, err)
			}
			args = append(args, id, c.Index, c.Heading, c.Content, emb, c.Location, cmeta)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO chunks (document_id, idx, heading, content, embedding, location, metadata)
			VALUES `+strings.Repeat("(?, ?, ?, ?, ?, ?, ?), ", len(part)-1)+`(?, ?, ?, ?, ?, ?, ?)`, args...); err != nil {
			return fmt.Errorf("chunks %d to %d: %w", part[0].Index, part[len(part)-1].Index, err)
		}
	}
	return nil
}

// chunkMetadata is a chunk's metadata as stored: a JSON object, "{}" for
// none.
func chunkMetadata(md map[string]string) (string, error) {
	if len(md) == 0 {
		return "{}", nil
	}
	b, err := json.Marshal(md)
	return string(b), err
}

// recordEmbedding records the embedder and dimension on the first write
// with vectors, and refuses vectors that do not match later on.
func (s *DocumentStore) recordEmbedding(ctx context.Context, tx *sql.Tx, dim int) error {
	name, storedDim, ok, err := storedEmbedding(ctx, tx)
	if err != nil {
		return err
	}
	if !ok {
		if err := setMeta(ctx, tx, metaEmbeddingDim, strconv.Itoa(dim)); err != nil {
			return err
		}
		return setMeta(ctx, tx, metaEmbedder, s.embedder)
	}
	if storedDim != dim || (name != "" && s.embedder != "" && name != s.embedder) {
		return &EmbeddingMismatchError{StoredName: name, StoredDim: storedDim, Name: s.embedder, Dim: dim}
	}
	return nil
}

// encodeVector stores v as little-endian float32s, the layout the
// Retriever's scan decodes without allocating.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// DocumentHash returns the stored hash of a document, and whether the
// document exists, so that ingest can skip unchanged sources before
// splitting and embedding them.
func (s *DocumentStore) DocumentHash(ctx context.Context, workspace, key string) (string, bool, error) {
	var hash string
	err := s.db.db.QueryRowContext(ctx, `SELECT hash FROM documents WHERE workspace = ? AND key = ?`,
		workspace, key).Scan(&hash)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("sqlite: document hash %q: %w", key, err)
	}
	return hash, true, nil
}

// DeleteDocument removes a document and its chunks. Deleting a document
// that does not exist is not an error.
func (s *DocumentStore) DeleteDocument(ctx context.Context, workspace, key string) error {
	err := s.db.withTx(ctx, func(tx *sql.Tx) error {
		// Chunks are deleted explicitly, not by cascade, so that their FTS
		// trigger runs whatever the foreign-key setting of the connection.
		if _, err := tx.ExecContext(ctx, `DELETE FROM chunks WHERE document_id IN
			(SELECT id FROM documents WHERE workspace = ? AND key = ?)`, workspace, key); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM documents WHERE workspace = ? AND key = ?`, workspace, key)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: delete document %q: %w", key, err)
	}
	return nil
}

// DocumentsByPrefix returns the documents of workspace whose key starts
// with prefix, in key order: their Key, Location and Hash, without
// chunks.
func (s *DocumentStore) DocumentsByPrefix(ctx context.Context, workspace, prefix string) ([]kb.Document, error) {
	rows, err := s.db.db.QueryContext(ctx, `SELECT key, location, hash FROM documents
		WHERE workspace = ? AND key LIKE ? || '%' ESCAPE '\' ORDER BY key`, workspace, escapeLike(prefix))
	if err != nil {
		return nil, fmt.Errorf("sqlite: documents by prefix %q: %w", prefix, err)
	}
	defer rows.Close()
	var docs []kb.Document
	for rows.Next() {
		d := kb.Document{Workspace: workspace}
		if err := rows.Scan(&d.Key, &d.Location, &d.Hash); err != nil {
			return nil, fmt.Errorf("sqlite: documents by prefix %q: %w", prefix, err)
		}
		// SQLite's LIKE ignores the case of ASCII letters.
		if strings.HasPrefix(d.Key, prefix) {
			docs = append(docs, d)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: documents by prefix %q: %w", prefix, err)
	}
	return docs, nil
}

// Titles returns up to n titles of the documents workspace may see
// wherever it is asked (its own and the shared files, none of a private
// channel), each once, the most recently updated first.
func (s *DocumentStore) Titles(ctx context.Context, workspace string, n int) ([]string, error) {
	rows, err := s.db.db.QueryContext(ctx, `SELECT title FROM documents
		WHERE workspace IN (?, '') AND private = 0 AND title <> ''
		GROUP BY title ORDER BY max(updated) DESC, title LIMIT ?`, workspace, max(n, 0))
	titles, err := column[string](rows, err)
	if err != nil {
		return nil, fmt.Errorf("sqlite: titles: %w", err)
	}
	return titles, nil
}

// escapeLike escapes the wildcards of a LIKE pattern, with \ as the escape.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// CountDocuments returns the number of stored documents.
func (s *DocumentStore) CountDocuments(ctx context.Context) (int, error) {
	return count(ctx, s.db, "documents")
}

// CountChunks returns the number of stored chunks.
func (s *DocumentStore) CountChunks(ctx context.Context) (int, error) {
	return count(ctx, s.db, "chunks")
}

// Empty reports whether the store holds no documents and no graph nodes,
// which is when the bot loads its demo knowledge base.
func (s *DocumentStore) Empty(ctx context.Context) (bool, error) {
	var n int
	err := s.db.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM documents) OR EXISTS (SELECT 1 FROM nodes)`).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("sqlite: empty: %w", err)
	}
	return n == 0, nil
}

// count returns the rows of a table; table is always a constant.
func count(ctx context.Context, db *DB, table string) (int, error) {
	var n int
	if err := db.db.QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlite: count %s: %w", table, err)
	}
	return n, nil
}
