package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/internal/storetest"
)

// openTest opens a fresh store file in a temporary directory.
func openTest(t testing.TB) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "kb", "switchboard.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

const testDim = storetest.Dim

// bow embeds test documents and queries; its stop words are the ones
// ftsTerms leaves out (words.IsStop).
var bow = storetest.BOW{}

var (
	testDoc    = bow.Doc
	mustUpsert = storetest.MustUpsert
	mustCount  = storetest.MustCount
	reqFor     = storetest.Req
)

// TestDocumentStore holds the store to the contract package postgres is
// held to, on a real SQLite file.
func TestDocumentStore(t *testing.T) {
	storetest.TestStore(t, func(t *testing.T) storetest.Store {
		db := openTest(t)
		return storetest.Store{
			BOW:  bow,
			Docs: NewDocumentStore(db, "bow"),
			DocsAs: func(_ *testing.T, embedder string) storetest.Documents {
				return NewDocumentStore(db, embedder)
			},
			Retriever:      func(emb storetest.Embedder) agent.Retriever { return NewRetriever(db, emb) },
			Checkpointer:   NewCheckpointer(db),
			Now:            &db.Now,
			Questions:      NewQuestions(db),
			Channels:       NewChannels(db),
			CheckEmbedding: db.CheckEmbedding,
			AsMismatch:     storetest.AsMismatch[EmbeddingMismatchError],
			Rows: func(table string) (n int, err error) {
				err = db.db.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n)
				return n, err
			},
			FullTextTable: "chunks_fts",
		}
	})
}
