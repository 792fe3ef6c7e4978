// Package postgres is Switchboard's production store, on PostgreSQL with
// pgvector: documents with their chunks, an HNSW vector index and a
// full-text index (the vector route); the agent's per-thread state; and
// what lets several bot replicas share one database: chat event
// de-duplication, ingest cursors and answer feedback.
//
// It offers the same services as package sqlite, so that cmd/bot can
// swap one for the other: DocumentStore, Retriever, Checkpointer, plus
// Events, Cursors and Feedback. Open a pool with Open, apply the schema
// with DB.Migrate, check the embedder with DB.CheckEmbedding, then build
// the services on the DB.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	pgxvec "github.com/pgvector/pgvector-go/pgx"
)

// Options configures a DB. EmbeddingDim is required; zero values of the
// others give the defaults.
type Options struct {
	// EmbeddingDim is the length of the configured embedder's vectors, which
	// Migrate gives to the chunk embedding column. 1..MaxEmbeddingDim.
	EmbeddingDim int
	// Embedder names the model that produces the vectors. It is recorded
	// with the first vectors written, so that a different model is refused
	// later (see CheckEmbedding).
	Embedder string

	// MaxConns bounds the pool. Default 10.
	MaxConns int32
	// ConnectTimeout bounds dialling and authenticating one connection.
	// Default 5s.
	ConnectTimeout time.Duration
	// StatementTimeout makes the server cancel a statement that runs
	// longer, so that a runaway query cannot hold a connection forever.
	// Default 30s. Migrate and index builds are exempt.
	StatementTimeout time.Duration
	// EfSearch is the HNSW candidate list size of a vector search; larger is
	// slower and finds more of the true nearest neighbours. Default 100;
	// a search asking for more candidates than this uses that number.
	EfSearch int

	// Logger hears about degraded operation, such as a query answered by
	// keyword search alone because it could not be embedded. Nil discards.
	Logger *slog.Logger
}

// MaxEmbeddingDim is the largest dimension pgvector's HNSW index accepts
// for the vector type.
const MaxEmbeddingDim = 2000

// Defaults for Options.
const (
	DefaultMaxConns         = 10
	DefaultConnectTimeout   = 5 * time.Second
	DefaultStatementTimeout = 30 * time.Second
	DefaultEfSearch         = 100
	// idleInTransaction bounds how long a transaction may wait on its
	// client between statements.
	idleInTransaction = 10 * time.Second
)

// DB is a pool of connections to one PostgreSQL database (and, through the
// URL's search_path, one schema). It is safe for concurrent use, and by
// several processes at once.
type DB struct {
	pool *pgxpool.Pool
	opts Options

	// Now returns the current time, stamped on rows as they are written.
	// Tests replace it; nil means time.Now.
	Now func() time.Time
}

// Open connects to the database at url (a postgres:// URL or a key=value
// DSN) and checks that it answers. It does not change the schema: call
// Migrate for that.
func Open(ctx context.Context, url string, opts Options) (*DB, error) {
	if opts.EmbeddingDim < 1 || opts.EmbeddingDim > MaxEmbeddingDim {
		return nil, fmt.Errorf("postgres: open: embedding dimension %d is outside 1..%d, what pgvector's HNSW index accepts "+
			"(OpenAI's text-embedding-3 models can be asked for fewer dimensions)", opts.EmbeddingDim, MaxEmbeddingDim)
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = DefaultMaxConns
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = DefaultConnectTimeout
	}
	if opts.StatementTimeout <= 0 {
		opts.StatementTimeout = DefaultStatementTimeout
	}
	if opts.EfSearch <= 0 {
		opts.EfSearch = DefaultEfSearch
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}

	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// The error may quote the URL, password included; say only what
		// kind of problem it is.
		return nil, errors.New("postgres: open: the database URL cannot be parsed")
	}
	cfg.MaxConns = opts.MaxConns
	cfg.MaxConnIdleTime = 5 * time.Minute
	cfg.MaxConnLifetime = time.Hour
	cfg.HealthCheckPeriod = 30 * time.Second
	cfg.ConnConfig.ConnectTimeout = opts.ConnectTimeout
	if _, ok := cfg.ConnConfig.RuntimeParams["statement_timeout"]; !ok {
		cfg.ConnConfig.RuntimeParams["statement_timeout"] = fmt.Sprint(opts.StatementTimeout.Milliseconds())
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["idle_in_transaction_session_timeout"]; !ok {
		// A replica frozen or cut off inside a transaction (a claim holds
		// row and advisory locks) would hold its locks until it came
		// back; the server ends such a transaction instead.
		cfg.ConnConfig.RuntimeParams["idle_in_transaction_session_timeout"] = fmt.Sprint(idleInTransaction.Milliseconds())
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["application_name"]; !ok {
		cfg.ConnConfig.RuntimeParams["application_name"] = "switchboard"
	}
	cfg.AfterConnect = registerVector

	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	return &DB{pool: pool, opts: opts}, nil
}

// registerVector teaches a new connection pgvector's types, so that
// vectors travel in binary. A database without the extension yet is not
// an error: Migrate creates it, then resets the pool.
func registerVector(ctx context.Context, conn *pgx.Conn) error {
	var present bool
	if err := conn.QueryRow(ctx, `SELECT to_regtype('vector') IS NOT NULL`).Scan(&present); err != nil {
		return fmt.Errorf("look up the vector type: %w", err)
	}
	if !present {
		return nil
	}
	if err := pgxvec.RegisterTypes(ctx, conn); err != nil {
		return fmt.Errorf("register pgvector types: %w", err)
	}
	return nil
}

// Close waits for the connections in use to be returned, then closes them
// all.
func (db *DB) Close() { db.pool.Close() }

// Ping checks that the database answers, for health checks.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.pool.Ping(ctx); err != nil {
		return fmt.Errorf("postgres: ping: %w", err)
	}
	return nil
}

func (db *DB) now() time.Time {
	if db.Now != nil {
		return db.Now()
	}
	return time.Now()
}

// withTx runs fn in a transaction, committing when fn returns nil. Callers
// add the operation to the error, whether it came from fn, begin or commit.
func (db *DB) withTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, db.pool, fn)
}

// EmbeddingMismatchError reports that the store's vectors were written by a
// different embedder, or have a different dimension, than the one
// configured. Vectors from two models cannot be compared, so the store must
// be re-ingested or the original embedder configured again.
type EmbeddingMismatchError struct {
	StoredName string // "" when no vectors have been written yet
	StoredDim  int    // the dimension of the embedding column
	Name       string
	Dim        int
}

func (e *EmbeddingMismatchError) Error() string {
	return fmt.Sprintf("postgres: embedding mismatch: the store holds vectors from embedder %q with dimension %d, "+
		"but embedder %q with dimension %d is configured; configure the original embedder or re-ingest into an empty schema",
		e.StoredName, e.StoredDim, e.Name, e.Dim)
}

// Keys of the meta table.
const metaEmbedder = "embedder"

// columnDim returns the dimension of the chunk embedding column, 0 when it
// has none yet.
func columnDim(ctx context.Context, q pgx.Tx) (int, error) {
	var typmod int
	err := q.QueryRow(ctx, `SELECT atttypmod FROM pg_attribute
		WHERE attrelid = 'chunks'::regclass AND attname = 'embedding' AND NOT attisdropped`).Scan(&typmod)
	if err != nil {
		return 0, fmt.Errorf("read the embedding column's dimension: %w", err)
	}
	return max(typmod, 0), nil
}

// storedEmbedder returns the embedder name recorded with the first
// vectors, "" when none is.
func storedEmbedder(ctx context.Context, q pgx.Tx) (string, error) {
	var name string
	err := q.QueryRow(ctx, `SELECT value FROM meta WHERE key = $1`, metaEmbedder).Scan(&name)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the recorded embedder: %w", err)
	}
	return name, nil
}

// CheckEmbedding verifies that the configured embedder (name and vector
// dimension) is the one the store is set up for: dim must equal the
// dimension of the chunk embedding column, and name the embedder recorded
// with the first vectors written. It returns an *EmbeddingMismatchError
// naming both sides when they differ. An empty name on either side is not
// compared, so a store written without a recorded name is checked on
// dimension alone. Call it after Migrate.
func (db *DB) CheckEmbedding(ctx context.Context, name string, dim int) error {
	var storedName string
	var storedDim int
	err := pgx.BeginTxFunc(ctx, db.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var err error
		if storedDim, err = columnDim(ctx, tx); err != nil {
			return err
		}
		storedName, err = storedEmbedder(ctx, tx)
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: check embedding: %w", err)
	}
	if storedDim != dim || (storedName != "" && name != "" && storedName != name) {
		return &EmbeddingMismatchError{StoredName: storedName, StoredDim: storedDim, Name: name, Dim: dim}
	}
	return nil
}
