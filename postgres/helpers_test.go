package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/internal/storetest"
	"github.com/switchboard/switchboard/internal/testenv"
)

const testDim = storetest.Dim

// openTest opens a migrated store in a schema of its own, closed and
// dropped when the test ends.
func openTest(t testing.TB) *DB {
	t.Helper()
	return openURL(t, testenv.PostgresURL(t), Options{EmbeddingDim: testDim, Embedder: "bow"}, true)
}

// openURL opens a store at url, migrated when migrate is set.
func openURL(t testing.TB, url string, opts Options, migrate bool) *DB {
	t.Helper()
	db, err := Open(context.Background(), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	if migrate {
		if err := db.Migrate(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// stopwords are left out of bowEmbedder's vectors, as the 'english'
// text-search configuration leaves them out of the full-text index.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be but by can do does for from had has have how i if in
		into is it its many much must my no not of on or our per so that the their them then there these they
		this to us was we were what when where which who why will with would you your get`) {
		stopwords[w] = true
	}
}

// bow embeds test documents and queries, leaving out the words the
// 'english' text-search configuration leaves out of the full-text index.
var bow = storetest.BOW{Stop: func(w string) bool { return stopwords[w] }}

var (
	testDoc    = bow.Doc
	mustUpsert = storetest.MustUpsert
	mustCount  = storetest.MustCount
	reqFor     = storetest.Req
)

// TestDocumentStore holds the store to the contract package sqlite is
// held to, on the real PostgreSQL.
func TestDocumentStore(t *testing.T) {
	t.Parallel()
	storetest.TestStore(t, func(t *testing.T) storetest.Store {
		db := openTest(t)
		return storetest.Store{
			BOW:  bow,
			Docs: NewDocumentStore(db),
			DocsAs: func(t *testing.T, embedder string) storetest.Documents {
				other := openURL(t, db.pool.Config().ConnString(), Options{EmbeddingDim: testDim, Embedder: embedder}, false)
				return NewDocumentStore(other)
			},
			Retriever:      func(emb storetest.Embedder) agent.Retriever { return NewRetriever(db, emb) },
			Checkpointer:   NewCheckpointer(db),
			Now:            &db.Now,
			Questions:      NewQuestions(db),
			Channels:       NewChannels(db),
			CheckEmbedding: db.CheckEmbedding,
			AsMismatch:     storetest.AsMismatch[EmbeddingMismatchError],
			Rows: func(table string) (n int, err error) {
				err = db.pool.QueryRow(context.Background(), `SELECT count(*) FROM `+pgx.Identifier{table}.Sanitize()).Scan(&n)
				return n, err
			},
		}
	})
}

// queryInt runs a query returning one integer.
func queryInt(t testing.TB, db *DB, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := db.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// explain writes to plan the lines of an EXPLAIN statement run in tx.
func explain(ctx context.Context, tx pgx.Tx, plan *strings.Builder, query string, args ...any) error {
	rows, err := tx.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		plan.WriteString(line + "\n")
	}
	return rows.Err()
}
