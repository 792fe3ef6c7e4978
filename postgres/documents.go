package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/switchboard/switchboard/kb"
)

// DocumentStore writes ingested documents and their chunks. Searching is the
// Retriever's job.
type DocumentStore struct {
	db *DB
}

// NewDocumentStore returns a store writing to db. The vectors it writes
// must have db's Options.EmbeddingDim; the first ones record
// Options.Embedder, so that DB.CheckEmbedding can later refuse a different
// model.
func NewDocumentStore(db *DB) *DocumentStore {
	return &DocumentStore{db: db}
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
// the store's dimension or embedder.
func (s *DocumentStore) UpsertDocument(ctx context.Context, doc kb.Document) (changed bool, err error) {
	n, err := s.upsert(ctx, []kb.Document{doc})
	return n == 1, err
}

// UpsertDocuments is UpsertDocument for many documents in one transaction:
// readers see all of them or none, and the chunks of all go to the server
// in a single COPY, which makes it the fast way to load a knowledge base.
// It returns how many documents changed. A Workspace and Key may appear
// only once.
func (s *DocumentStore) UpsertDocuments(ctx context.Context, docs []kb.Document) (changed int, err error) {
	return s.upsert(ctx, docs)
}

// upsertSQL inserts or updates a document row unless its hash is
// unchanged. It returns the document's id when it changed and no row when
// it did not. The row is locked either way, so concurrent writers of one
// document take turns. (Deleting the old chunks in the same statement
// would be wrong: its snapshot predates the commit of a writer it waited
// for, whose chunks it would not see.)
const upsertSQL = `INSERT INTO documents (workspace, key, channel, private, title, location, hash, metadata, updated)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
	ON CONFLICT (workspace, key) DO UPDATE SET
		channel = excluded.channel, private = excluded.private, title = excluded.title,
		location = excluded.location, hash = excluded.hash, metadata = excluded.metadata,
		updated = excluded.updated
	WHERE documents.hash <> excluded.hash
	RETURNING id`

// recordEmbedderSQL records the embedder's name unless one is recorded,
// and returns the recorded name. It returns no row when another
// transaction recorded one after this statement began; the name is then
// read again.
const recordEmbedderSQL = `WITH ins AS (
	INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING RETURNING value
)
SELECT value FROM ins UNION ALL SELECT value FROM meta WHERE key = $1 LIMIT 1`

// chunkColumns are the columns UpsertDocuments copies.
var chunkColumns = []string{"document_id", "idx", "workspace", "channel", "private", "title", "heading", "content", "embedding", "location", "metadata"}

func (s *DocumentStore) upsert(ctx context.Context, docs []kb.Document) (int, error) {
	if len(docs) == 0 {
		return 0, nil
	}
	docs, vectors, err := s.prepare(docs)
	if err != nil {
		return 0, err
	}
	now := s.db.now()
	changed := 0
	err = s.db.withTx(ctx, func(tx pgx.Tx) error {
		var b pgx.Batch
		stored, recorded := "", false
		if vectors && s.db.opts.Embedder != "" {
			b.Queue(recordEmbedderSQL, metaEmbedder, s.db.opts.Embedder).QueryRow(func(row pgx.Row) error {
				err := row.Scan(&stored)
				if errors.Is(err, pgx.ErrNoRows) {
					return nil
				}
				recorded = err == nil
				return err
			})
		}
		var ids []int64
		var rows [][]any
		for _, doc := range docs {
			b.Queue(upsertSQL, doc.Workspace, doc.Key, doc.Channel, doc.Private, doc.Title, doc.Location,
				doc.Hash, doc.Metadata, now).QueryRow(func(row pgx.Row) error {
				var id int64
				err := row.Scan(&id)
				if errors.Is(err, pgx.ErrNoRows) {
					return nil // unchanged
				}
				if err != nil {
					return fmt.Errorf("document %q: %w", doc.Key, err)
				}
				ids = append(ids, id)
				for _, c := range doc.Chunks {
					var emb any // NULL when the chunk has no vector
					if len(c.Embedding) > 0 {
						emb = pgvector.NewVector(c.Embedding)
					}
					md := c.Metadata
					if md == nil {
						md = map[string]string{} // stored as {}, not null
					}
					rows = append(rows, []any{id, c.Index, doc.Workspace, doc.Channel, doc.Private,
						doc.Title, c.Heading, c.Content, emb, c.Location, md})
				}
				return nil
			})
		}
		if err := tx.SendBatch(ctx, &b).Close(); err != nil {
			return err
		}
		if vectors && s.db.opts.Embedder != "" {
			if !recorded {
				var err error
				if stored, err = storedEmbedder(ctx, tx); err != nil {
					return err
				}
			}
			if stored != s.db.opts.Embedder {
				return &EmbeddingMismatchError{StoredName: stored, StoredDim: s.db.opts.EmbeddingDim,
					Name: s.db.opts.Embedder, Dim: s.db.opts.EmbeddingDim}
			}
		}
		changed = len(ids)
		if changed == 0 {
			return nil
		}
		// The document rows are locked: nobody else writes their chunks now.
		if _, err := tx.Exec(ctx, `DELETE FROM chunks WHERE document_id = ANY($1)`, ids); err != nil {
			return fmt.Errorf("delete old chunks: %w", err)
		}
		if len(rows) == 0 {
			return nil
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"chunks"}, chunkColumns, pgx.CopyFromRows(rows)); err != nil {
			return fmt.Errorf("copy %d chunks: %w", len(rows), err)
		}
		return nil
	})
	if err != nil {
		var mm *EmbeddingMismatchError
		if errors.As(err, &mm) {
			return 0, err
		}
		if len(docs) == 1 {
			return 0, fmt.Errorf("postgres: upsert document %q: %w", docs[0].Key, err)
		}
		return 0, fmt.Errorf("postgres: upsert %d documents: %w", len(docs), err)
	}
	return changed, nil
}

// prepare checks docs and returns copies ready to write, sorted by
// workspace and key so that concurrent batches lock documents in the same
// order and cannot deadlock. vectors reports whether any chunk has one.
func (s *DocumentStore) prepare(in []kb.Document) (docs []kb.Document, vectors bool, err error) {
	docs = make([]kb.Document, len(in))
	for i, doc := range in {
		if doc.Key == "" {
			return nil, false, errors.New("postgres: upsert document: empty key")
		}
		if doc.Private && doc.Channel == "" {
			return nil, false, fmt.Errorf("postgres: upsert document %q: private document without a channel", doc.Key)
		}
		dim, err := doc.EmbeddingDim()
		if err != nil {
			return nil, false, fmt.Errorf("postgres: upsert document %q: %w", doc.Key, err)
		}
		if dim > 0 && dim != s.db.opts.EmbeddingDim {
			return nil, false, &EmbeddingMismatchError{StoredName: s.db.opts.Embedder, StoredDim: s.db.opts.EmbeddingDim,
				Name: s.db.opts.Embedder, Dim: dim}
		}
		vectors = vectors || dim > 0
		if doc.Hash == "" {
			doc.Hash = doc.ContentHash()
		}
		docs[i] = sanitize(doc)
	}
	slices.SortFunc(docs, func(a, b kb.Document) int {
		return cmp.Or(strings.Compare(a.Workspace, b.Workspace), strings.Compare(a.Key, b.Key))
	})
	for i := 1; i < len(docs); i++ {
		if docs[i].Workspace == docs[i-1].Workspace && docs[i].Key == docs[i-1].Key {
			return nil, false, fmt.Errorf("postgres: upsert documents: %q appears twice in workspace %q", docs[i].Key, docs[i].Workspace)
		}
	}
	return docs, vectors, nil
}

// sanitize returns doc with the text PostgreSQL refuses made storable:
// text columns hold neither NUL nor invalid UTF-8, which files and chat
// exports occasionally contain, and a whole document should not fail to
// ingest for one stray byte. Identities (workspace, key, channel) are
// left alone: changing them would change what they name. Metadata is
// never nil, so that it is stored as {}.
func sanitize(doc kb.Document) kb.Document {
	doc.Title, doc.Location = cleanText(doc.Title), cleanText(doc.Location)
	md := make(map[string]string, len(doc.Metadata))
	for k, v := range doc.Metadata {
		md[cleanText(k)] = cleanText(v)
	}
	doc.Metadata = md
	chunks := make([]kb.Chunk, len(doc.Chunks))
	for i, c := range doc.Chunks {
		c.Heading, c.Content, c.Location = cleanText(c.Heading), cleanText(c.Content), cleanText(c.Location)
		if len(c.Metadata) > 0 {
			cmd := make(map[string]string, len(c.Metadata))
			for k, v := range c.Metadata {
				cmd[cleanText(k)] = cleanText(v)
			}
			c.Metadata = cmd
		}
		chunks[i] = c
	}
	doc.Chunks = chunks
	return doc
}

func cleanText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// DocumentHash returns the stored hash of a document, and whether the
// document exists, so that ingest can skip unchanged sources before
// splitting and embedding them.
func (s *DocumentStore) DocumentHash(ctx context.Context, workspace, key string) (string, bool, error) {
	var hash string
	err := s.db.pool.QueryRow(ctx, `SELECT hash FROM documents WHERE workspace = $1 AND key = $2`,
		workspace, key).Scan(&hash)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("postgres: document hash %q: %w", key, err)
	}
	return hash, true, nil
}

// DeleteDocument removes a document and, by cascade, its chunks. Deleting a
// document that does not exist is not an error.
func (s *DocumentStore) DeleteDocument(ctx context.Context, workspace, key string) error {
	if _, err := s.db.pool.Exec(ctx, `DELETE FROM documents WHERE workspace = $1 AND key = $2`, workspace, key); err != nil {
		return fmt.Errorf("postgres: delete document %q: %w", key, err)
	}
	return nil
}

// DocumentsByPrefix returns the documents of workspace whose key starts
// with prefix, in key order: their Key, Location and Hash, without
// chunks.
func (s *DocumentStore) DocumentsByPrefix(ctx context.Context, workspace, prefix string) ([]kb.Document, error) {
	rows, err := s.db.pool.Query(ctx, `SELECT key, location, hash FROM documents
		WHERE workspace = $1 AND key LIKE $2 || '%' ESCAPE '\' ORDER BY key`, workspace, escapeLike(prefix))
	if err != nil {
		return nil, fmt.Errorf("postgres: documents by prefix %q: %w", prefix, err)
	}
	defer rows.Close()
	var docs []kb.Document
	for rows.Next() {
		d := kb.Document{Workspace: workspace}
		if err := rows.Scan(&d.Key, &d.Location, &d.Hash); err != nil {
			return nil, fmt.Errorf("postgres: documents by prefix %q: %w", prefix, err)
		}
		docs = append(docs, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: documents by prefix %q: %w", prefix, err)
	}
	return docs, nil
}

// escapeLike escapes the wildcards of a LIKE pattern, with \ as the escape.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// Titles returns up to n titles of the documents workspace may see
// wherever it is asked (its own and the shared files, none of a private
// channel), each once, the most recently updated first.
func (s *DocumentStore) Titles(ctx context.Context, workspace string, n int) ([]string, error) {
	rows, err := s.db.pool.Query(ctx, `SELECT title FROM documents
		WHERE workspace IN ($1, '') AND NOT private AND title <> ''
		GROUP BY title ORDER BY max(updated) DESC, title LIMIT $2`, cleanText(workspace), max(n, 0))
	if err != nil {
		return nil, fmt.Errorf("postgres: titles: %w", err)
	}
	titles, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("postgres: titles: %w", err)
	}
	return titles, nil
}

// CountDocuments returns the number of stored documents.
func (s *DocumentStore) CountDocuments(ctx context.Context) (int, error) {
	return s.count(ctx, "documents")
}

// CountChunks returns the number of stored chunks.
func (s *DocumentStore) CountChunks(ctx context.Context) (int, error) {
	return s.count(ctx, "chunks")
}

// Empty reports whether the store holds no documents, which is when the
// bot loads its demo knowledge base. (The knowledge graph lives in Neo4j
// and is not consulted.)
func (s *DocumentStore) Empty(ctx context.Context) (bool, error) {
	var empty bool
	if err := s.db.pool.QueryRow(ctx, `SELECT NOT EXISTS (SELECT 1 FROM documents)`).Scan(&empty); err != nil {
		return false, fmt.Errorf("postgres: empty: %w", err)
	}
	return empty, nil
}

// count returns the rows of a table; table is always a constant.
func (s *DocumentStore) count(ctx context.Context, table string) (int, error) {
	var n int
	if err := s.db.pool.QueryRow(ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: count %s: %w", table, err)
	}
	return n, nil
}
