// Package sqlite is Switchboard's embedded default store: documents with
// their chunks, a full-text index and embeddings; the knowledge graph; and
// the agent's per-thread state, all in one SQLite file. It uses
// modernc.org/sqlite, a pure-Go driver, so the bot needs no C toolchain and
// no server to answer from its own knowledge base.
//
// Open a file with Open, then build the services on it: DocumentStore and
// Retriever (the vector route), GraphStore and GraphRetriever (the graph
// route) and Checkpointer (thread state).
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Memory is the path that opens a private in-memory database, for tools
// and tests that want no file. It lives on a single connection, so every
// use of it is serialised, and it disappears on Close.
const Memory = ":memory:"

// pragmas are applied to every pooled connection. WAL lets readers run
// while one writer writes; synchronous=NORMAL is durable enough under WAL
// and much faster for ingest; busy_timeout makes a second writer wait
// instead of failing; mmap lets the vector scan read pages without a
// system call each; foreign keys are off by default in SQLite.
// _txlock=immediate makes every transaction take the write lock when it
// begins: our transactions all write, and a deferred one that reads first
// could fail with SQLITE_BUSY when it upgrades, which busy_timeout cannot
// retry.
const pragmas = "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)" +
	"&_pragma=mmap_size(268435456)&_pragma=foreign_keys(1)&_txlock=immediate"

// DB is one open store file. It is safe for concurrent use, and by several
// processes at once (serve and ingest, say): SQLite's locks serialise the
// writers.
type DB struct {
	db   *sql.DB
	path string

	// Now returns the current time, stamped on rows as they are written.
	// Tests replace it; nil means time.Now.
	Now func() time.Time

	stmtMu sync.Mutex
	stmts  map[string]*sql.Stmt // by query text; see prepared

	chunks versioned[*chunkSet] // the chunks' scopes and vectors, for the Retriever; nil: too large to hold
}

// Open opens the store at path, creating the file and its parent directory
// if needed, and applies any migrations it has not seen yet. Pass Memory
// for a throw-away in-memory store.
func Open(ctx context.Context, path string) (*DB, error) {
	if path == "" {
		return nil, errors.New("sqlite: open: empty path")
	}
	// The driver splits the DSN at the first '?', so such a path would lose
	// its tail and open a different file.
	if strings.ContainsRune(path, '?') {
		return nil, fmt.Errorf("sqlite: open %q: path may not contain '?'", path)
	}
	if path != Memory {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("sqlite: open %q: %w", path, err)
		}
	}
	sdb, err := sql.Open("sqlite", path+pragmas)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %q: %w", path, err)
	}
	if path == Memory {
		// Each connection to ":memory:" is a separate, empty database.
		sdb.SetMaxOpenConns(1)
	}
	db := &DB{db: sdb, path: path}
	if err := sdb.PingContext(ctx); err != nil {
		sdb.Close()
		return nil, fmt.Errorf("sqlite: open %q: %w", path, err)
	}
	if err := db.migrate(ctx); err != nil {
		sdb.Close()
		return nil, err
	}
	return db, nil
}

// Path returns the path the store was opened with.
func (db *DB) Path() string { return db.path }

// Close closes the store.
func (db *DB) Close() error {
	db.stmtMu.Lock()
	for _, st := range db.stmts {
		st.Close()
	}
	db.stmts = nil
	db.stmtMu.Unlock()
	if err := db.db.Close(); err != nil {
		return fmt.Errorf("sqlite: close %q: %w", db.path, err)
	}
	return nil
}

func (db *DB) now() time.Time {
	if db.Now != nil {
		return db.Now()
	}
	return time.Now()
}

// migrate applies the embedded migrations in name order. Each runs in its
// own transaction together with the row that records it, so a failed
// migration leaves nothing behind and a concurrent Open of the same file
// waits for the write lock, then sees the migration applied and skips it.
func (db *DB) migrate(ctx context.Context) error {
	if _, err := db.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS migrations (
		name    TEXT PRIMARY KEY,
		applied INTEGER NOT NULL
	)`); err != nil {
		return fmt.Errorf("sqlite: migrate: create migrations table: %w", err)
	}
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("sqlite: migrate: %w", err)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := db.migrateFile(ctx, name); err != nil {
			return err
		}
	}
	return nil
}

func (db *DB) migrateFile(ctx context.Context, name string) error {
	base := filepath.Base(name)
	err := db.withTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM migrations WHERE name = ?`, base).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
		body, err := fs.ReadFile(migrationFS, name)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO migrations (name, applied) VALUES (?, ?)`, base, db.now().UnixMilli())
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: migrate %s: %w", base, err)
	}
	return nil
}

// withTx runs fn in a transaction, committing when fn returns nil. Callers
// add the operation to the error, whether it came from fn, begin or commit.
func (db *DB) withTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// Optimize tidies the store after a bulk write such as an ingest run: it
// merges the full-text index's segments, which every write transaction
// adds to and every search reads, and refreshes the query planner's
// statistics. Searches are correct without it, only slower.
func (db *DB) Optimize(ctx context.Context) error {
	if _, err := db.db.ExecContext(ctx, `INSERT INTO chunks_fts (chunks_fts) VALUES ('optimize')`); err != nil {
		return fmt.Errorf("sqlite: optimize full-text index: %w", err)
	}
	if _, err := db.db.ExecContext(ctx, `PRAGMA optimize`); err != nil {
		return fmt.Errorf("sqlite: optimize: %w", err)
	}
	return nil
}

// prepared returns query as a statement prepared once for db, for the
// queries the retrievers run on every question. modernc.org/sqlite parses
// an unprepared query on every call, and SQLite (3.54) plans it a second
// time once its parameters are bound: about 120 µs for a one-row lookup,
// against 20 µs prepared. database/sql prepares the statement again by
// itself on each pooled connection that runs it. query must be one of the
// package's constant texts, which bounds the map; the statements are
// closed with db.
func (db *DB) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	db.stmtMu.Lock()
	defer db.stmtMu.Unlock()
	if st, ok := db.stmts[query]; ok {
		return st, nil
	}
	st, err := db.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if db.stmts == nil {
		db.stmts = map[string]*sql.Stmt{}
	}
	db.stmts[query] = st
	return st, nil
}

// version returns the counter of key (metaDocsVersion, metaGraphVersion)
// that the triggers of migration 006 move on every write, "" when unset.
// It is read before every use of what is cached under it.
func (db *DB) version(ctx context.Context, key string) (string, error) {
	st, err := db.prepared(ctx, `SELECT value FROM meta WHERE key = ?`)
	if err != nil {
		return "", err
	}
	var v string
	if err := st.QueryRowContext(ctx, key).Scan(&v); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", err
	}
	return v, nil
}

// versioned keeps one value loaded from the store for the version it was
// loaded at (see version): the chunks' vectors, the graph.
type versioned[T any] struct {
	mu      sync.Mutex
	ok      bool
	version string
	v       T
}

// get returns the value for version, loading it when the one kept is of
// another. The value is read after the version: a write in between makes
// it newer than its version says, never older, and the next call reloads
// it.
func (c *versioned[T]) get(ctx context.Context, version string, load func(context.Context) (T, error)) (T, error) {
	c.mu.Lock()
	ok, kept, v := c.ok, c.version, c.v
	c.mu.Unlock()
	if ok && kept == version {
		return v, nil
	}
	v, err := load(ctx)
	if err != nil {
		var zero T
		return zero, err
	}
	c.mu.Lock()
	c.ok, c.version, c.v = true, version, v
	c.mu.Unlock()
	return v, nil
}

// querier is what both *sql.DB and *sql.Tx offer, so that helpers run
// inside or outside a transaction.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Keys of the meta table.
const (
	metaEmbedder     = "embedder"
	metaEmbeddingDim = "embedding_dim"
	metaGraphVersion = "graph_version" // moved by triggers: see version
	metaDocsVersion  = "docs_version"  // moved by triggers: see version
)

// getMeta returns the value stored under key, and whether there is one.
func getMeta(ctx context.Context, q querier, key string) (string, bool, error) {
	var v string
	err := q.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return v, true, nil
}

func setMeta(ctx context.Context, q querier, key, value string) error {
	_, err := q.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
	return err
}

// EmbeddingMismatchError reports that the store's vectors were written by a
// different embedder, or with a different dimension, than the one
// configured. Vectors from two models cannot be compared, so the store must
// be re-ingested or the original embedder configured again.
type EmbeddingMismatchError struct {
	StoredName string // embedder that wrote the stored vectors ("" if not recorded)
	StoredDim  int    // their dimension
	Name       string // embedder configured now
	Dim        int    // its dimension
}

// Error names both embedders and says how to resolve the mismatch.
func (e *EmbeddingMismatchError) Error() string {
	return fmt.Sprintf("sqlite: embedding mismatch: the store holds vectors from embedder %q with dimension %d, "+
		"but embedder %q with dimension %d is configured; configure the original embedder or re-ingest into a new store file",
		e.StoredName, e.StoredDim, e.Name, e.Dim)
}

// storedEmbedding returns the embedder name and dimension recorded by the
// first document written with vectors; ok is false before that.
func storedEmbedding(ctx context.Context, q querier) (name string, dim int, ok bool, err error) {
	d, ok, err := getMeta(ctx, q, metaEmbeddingDim)
	if err != nil || !ok {
		return "", 0, false, err
	}
	dim, err = strconv.Atoi(d)
	if err != nil {
		return "", 0, false, fmt.Errorf("meta %s=%q: %w", metaEmbeddingDim, d, err)
	}
	name, _, err = getMeta(ctx, q, metaEmbedder)
	if err != nil {
		return "", 0, false, err
	}
	return name, dim, true, nil
}

// CheckEmbedding verifies that the configured embedder (name and vector
// dimension) is the one that wrote the stored vectors. It returns nil when
// no vectors are stored yet, and an *EmbeddingMismatchError naming both
// when they differ. An empty name on either side is not compared, so a
// store written without a recorded name is checked on dimension alone.
func (db *DB) CheckEmbedding(ctx context.Context, name string, dim int) error {
	storedName, storedDim, ok, err := storedEmbedding(ctx, db.db)
	if err != nil {
		return fmt.Errorf("sqlite: check embedding: %w", err)
	}
	if !ok {
		return nil
	}
	if storedDim != dim || (storedName != "" && name != "" && storedName != name) {
		return &EmbeddingMismatchError{StoredName: storedName, StoredDim: storedDim, Name: name, Dim: dim}
	}
	return nil
}
