package sqlite

import (
	"context"
	"errors"
	"hash/fnv"
	"path/filepath"
	"testing"

	"github.com/switchboard/switchboard/kb"
	"github.com/switchboard/switchboard/kb/words"
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

// bowEmbedder is a deterministic bag-of-words embedder: each word adds 1
// to the dimension its FNV hash picks. Texts sharing words are similar.
type bowEmbedder struct {
	dim int
	err error // returned by every call when set
}

const testDim = 64

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
			if words.IsStop(w) {
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
