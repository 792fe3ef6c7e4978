package postgres

import (
	"context"
	"errors"
	"hash/fnv"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/internal/testenv"
	"github.com/switchboard/switchboard/kb"
	"github.com/switchboard/switchboard/kb/words"
)

const testDim = 64

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

// bowEmbedder is a deterministic bag-of-words embedder: each word adds 1
// to the dimension its FNV hash picks. Texts sharing words are similar.
type bowEmbedder struct {
	dim int
	err error // returned by every call when set
}

func (e bowEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if e.err != nil {
		return nil, e.err
	}
	dim := e.dim
	if dim == 0 {
		dim = testDim
	}
	out := make([][]float32, len(texts))
	for i, s := range texts {
		v := make([]float32, dim)
		for _, w := range words.Split(s, 1<<20) {
			if stopwords[w] {
				continue
			}
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%uint32(dim)]++
		}
		out[i] = v
	}
	return out, nil
}

var errEmbed = errors.New("embedder down")

// testDoc builds a document with one embedded chunk per text.
func testDoc(t testing.TB, ws, key, title string, texts ...string) kb.Document {
	t.Helper()
	vs, err := bowEmbedder{}.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	doc := kb.Document{Key: key, Title: title, Location: "files/" + key, Workspace: ws,
		Metadata: map[string]string{"author": "test"}}
	for i, s := range texts {
		doc.Chunks = append(doc.Chunks, kb.Chunk{Index: i, Content: s, Embedding: vs[i]})
	}
	return doc
}

func mustUpsert(t testing.TB, s *DocumentStore, docs ...kb.Document) {
	t.Helper()
	for _, d := range docs {
		if _, err := s.UpsertDocument(context.Background(), d); err != nil {
			t.Fatal(err)
		}
	}
}

// mustCount calls one of the Count methods.
func mustCount(t testing.TB, count func(context.Context) (int, error)) int {
	t.Helper()
	n, err := count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
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
