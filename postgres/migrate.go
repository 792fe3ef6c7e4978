package postgres

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/switchboard/switchboard/migrations"
)

// migrateLock is the first key of the advisory lock that serialises
// Migrate. The second is a hash of the schema, so that schemas sharing a
// database (tests, say) migrate independently.
const migrateLock = 0x53574244 // "SWBD"

// unlockSQL releases the migration lock and restores the session's
// statement timeout. Two statements run only without arguments, hence the
// literal key.
var unlockSQL = fmt.Sprintf(`SELECT pg_advisory_unlock(%d, hashtext(coalesce(current_schema(), ''))); RESET statement_timeout`, migrateLock)

// Settings for building the HNSW index. The build is much faster when the
// graph fits in maintenance_work_mem (100k 384-dimensional vectors need
// about 250 MB), and pgvector builds in parallel since 0.6.
const (
	indexWorkMem = "1GB"
	indexWorkers = 1 // in addition to the leader
)

// Migrate brings the schema up to date: it applies the numbered files of
// migrations.Postgres that have not been applied yet, in name order, each
// in its own transaction together with the schema_migrations row that
// records it, so a failed file leaves nothing behind. Then it gives the
// chunk embedding column the configured dimension and builds its HNSW
// index.
//
// Several replicas may call Migrate at once: a session advisory lock makes
// them take turns, and the later ones find everything applied.
//
// Migrate returns an *EmbeddingMismatchError, naming both dimensions, when
// the column already holds vectors of another dimension than
// Options.EmbeddingDim. A column without vectors is given the new
// dimension.
func (db *DB) Migrate(ctx context.Context) error {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("postgres: migrate: %w", err)
	}
	created, err := db.migrate(ctx, conn)
	conn.Release()
	if created {
		// Connections opened before the extension existed do not know its
		// types; new ones learn them in AfterConnect.
		db.pool.Reset()
	}
	return err
}

// migrate runs Migrate on conn, holding the lock; created reports that it
// created the vector extension.
func (db *DB) migrate(ctx context.Context, conn *pgxpool.Conn) (created bool, err error) {
	// Index builds and a wait for another replica's migration may well take
	// longer than the pool's statement timeout.
	if _, err := conn.Exec(ctx, `SET statement_timeout = 0`); err != nil {
		return false, fmt.Errorf("postgres: migrate: %w", err)
	}
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1, hashtext(coalesce(current_schema(), '')))`, migrateLock); err != nil {
		closeConn(ctx, conn)
		return false, fmt.Errorf("postgres: migrate: take the migration lock: %w", err)
	}
	defer func() {
		// The lock and the setting belong to the session, which returns to
		// the pool: release them even when ctx has ended, and close the
		// connection if that fails, which releases them too.
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_, uerr := conn.Exec(uctx, unlockSQL)
		if uerr != nil {
			closeConn(ctx, conn)
		}
	}()

	var hadVector bool
	if err := conn.QueryRow(ctx, `SELECT to_regtype('vector') IS NOT NULL`).Scan(&hadVector); err != nil {
		return false, fmt.Errorf("postgres: migrate: %w", err)
	}
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		name       text PRIMARY KEY,
		applied_at timestamptz NOT NULL
	)`); err != nil {
		return false, fmt.Errorf("postgres: migrate: create schema_migrations: %w", err)
	}
	names, err := fs.Glob(migrations.Postgres, "*.sql")
	if err != nil {
		return false, fmt.Errorf("postgres: migrate: %w", err)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := db.applyFile(ctx, conn, name); err != nil {
			return false, err
		}
	}
	var hasVector bool
	if err := conn.QueryRow(ctx, `SELECT to_regtype('vector') IS NOT NULL`).Scan(&hasVector); err != nil {
		return false, fmt.Errorf("postgres: migrate: %w", err)
	}
	created = hasVector && !hadVector
	if err := db.setEmbeddingDim(ctx, conn); err != nil {
		return created, err
	}
	return created, nil
}

// closeConn closes a pooled connection whose session state is unknown,
// even when ctx has ended; the pool discards it on release.
func closeConn(ctx context.Context, conn *pgxpool.Conn) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	conn.Conn().Close(ctx)
}

// applyFile applies one migration file unless schema_migrations records it.
func (db *DB) applyFile(ctx context.Context, conn *pgxpool.Conn, name string) error {
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		var done bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE name = $1)`, name).Scan(&done); err != nil {
			return err
		}
		if done {
			return nil
		}
		body, err := fs.ReadFile(migrations.Postgres, name)
		if err != nil {
			return err
		}
		// Without arguments pgx uses the simple protocol, which runs a
		// file of several statements.
		if _, err := tx.Exec(ctx, string(body)); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO schema_migrations (name, applied_at) VALUES ($1, $2)`, name, db.now())
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: migrate %s: %w", name, err)
	}
	return nil
}

// setEmbeddingDim gives the chunk embedding column the configured
// dimension, unless it already holds vectors of another one, and makes
// sure the HNSW index exists.
func (db *DB) setEmbeddingDim(ctx context.Context, conn *pgxpool.Conn) error {
	want := db.opts.EmbeddingDim
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		dim, err := columnDim(ctx, tx)
		if err != nil {
			return err
		}
		if dim != want {
			var stored bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM chunks WHERE embedding IS NOT NULL)`).Scan(&stored); err != nil {
				return err
			}
			if stored {
				name, err := storedEmbedder(ctx, tx)
				if err != nil {
					return err
				}
				return &EmbeddingMismatchError{StoredName: name, StoredDim: dim, Name: db.opts.Embedder, Dim: want}
			}
			// No vectors: the store is set up afresh for this embedder.
			if _, err := tx.Exec(ctx, fmt.Sprintf(`ALTER TABLE chunks ALTER COLUMN embedding TYPE vector(%d)`, want)); err != nil {
				return fmt.Errorf("set the embedding column's dimension: %w", err)
			}
			if _, err := tx.Exec(ctx, `DELETE FROM meta WHERE key = $1`, metaEmbedder); err != nil {
				return err
			}
		}
		return buildVectorIndex(ctx, tx)
	})
	var mm *EmbeddingMismatchError
	if errors.As(err, &mm) {
		return err
	}
	if err != nil {
		return fmt.Errorf("postgres: migrate: embedding column: %w", err)
	}
	return nil
}

// buildVectorIndex creates the HNSW cosine index on the chunk embeddings
// unless it exists. On an empty table that is instant; after a bulk load it
// takes a while, which is still faster than maintaining the index row by
// row during the load.
func buildVectorIndex(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, fmt.Sprintf(`SET LOCAL maintenance_work_mem = '%s';
		SET LOCAL max_parallel_maintenance_workers = %d;
		SET LOCAL statement_timeout = 0`, indexWorkMem, indexWorkers)); err != nil {
		return fmt.Errorf("build the vector index: %w", err)
	}
	if _, err := tx.Exec(ctx, `CREATE INDEX IF NOT EXISTS chunks_embedding ON chunks
		USING hnsw (embedding vector_cosine_ops)`); err != nil {
		return fmt.Errorf("build the vector index: %w", err)
	}
	return nil
}
