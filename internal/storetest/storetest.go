// Package storetest holds the checks that hold every document store to the
// same contract: a DocumentStore's upserts, hashes, deletes and counts, a
// hybrid Retriever's ranking and agent.Scope filtering, a Checkpointer's
// round trip, CheckEmbedding's refusals, and a question store's contract
// (package questionstest). Packages sqlite and postgres
// run TestStore on their real databases, so that the expectations are
// written once; what only one store has (FTS5, HNSW, SQL specifics) stays
// with that store's tests.
//
// It also holds what those tests build documents with: a deterministic
// bag-of-words embedder (BOW) and a small policy corpus (Corpus).
package storetest

import (
	"context"
	"errors"
	"hash/fnv"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/channels"
	"github.com/switchboard/switchboard/internal/retrieval"
	"github.com/switchboard/switchboard/kb"
	"github.com/switchboard/switchboard/kb/words"
	"github.com/switchboard/switchboard/questions"
)

// Dim is the dimension of the vectors the stores under test are set up for.
const Dim = 64

// Embedder is what a store's Retriever embeds queries with.
type Embedder = retrieval.Embedder

// ErrEmbed is the error a failing BOW returns.
var ErrEmbed = errors.New("embedder down")

// BOW is a deterministic bag-of-words embedder: each word that is not a
// stop word adds 1 to the dimension its FNV hash picks. Texts sharing
// words are similar.
type BOW struct {
	Dim  int               // vector length; 0 means Dim
	Err  error             // returned by every call when set
	Stop func(string) bool // words left out; nil means words.IsStop
}

// Embed implements Embedder.
func (e BOW) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if e.Err != nil {
		return nil, e.Err
	}
	dim := e.Dim
	if dim == 0 {
		dim = Dim
	}
	stop := e.Stop
	if stop == nil {
		stop = words.IsStop
	}
	out := make([][]float32, len(texts))
	for i, s := range texts {
		v := make([]float32, dim)
		for _, w := range words.Split(s, 1<<20) {
			if stop(w) {
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

// Failing returns e failing every call with ErrEmbed.
func (e BOW) Failing() BOW { e.Err = ErrEmbed; return e }

// WithDim returns e embedding into dim dimensions.
func (e BOW) WithDim(dim int) BOW { e.Dim = dim; return e }

// Doc builds a document in workspace ws with one chunk per text, embedded
// by e, located at files/key and with author metadata.
func (e BOW) Doc(t testing.TB, ws, key, title string, texts ...string) kb.Document {
	t.Helper()
	vs, err := e.Embed(context.Background(), texts)
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

// Upserter is the write side of a document store.
type Upserter interface {
	UpsertDocument(ctx context.Context, doc kb.Document) (changed bool, err error)
}

// MustUpsert writes docs to s, failing t on an error.
func MustUpsert(t testing.TB, s Upserter, docs ...kb.Document) {
	t.Helper()
	for _, d := range docs {
		if _, err := s.UpsertDocument(context.Background(), d); err != nil {
			t.Fatal(err)
		}
	}
}

// MustCount calls one of the Count methods.
func MustCount(t testing.TB, count func(context.Context) (int, error)) int {
	t.Helper()
	n, err := count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Req asks about q, as both the query and the question.
func Req(q string) agent.Request {
	return agent.Request{Query: q, Question: q}
}

// Corpus is three policy documents of two chunks each, with headings.
var Corpus = []kb.Document{
	{Key: "leave.md", Title: "Leave policy", Chunks: []kb.Chunk{
		{Heading: "Vacation", Content: "Full-time employees receive 25 days of paid vacation each year."},
		{Heading: "Sick leave", Content: "Sick days do not count against vacation; a doctor's note is needed after three days."},
	}},
	{Key: "expenses.md", Title: "Expense policy", Chunks: []kb.Chunk{
		{Heading: "Travel", Content: "Book flights in economy class. Hotels up to 150 euros per night."},
		{Heading: "Meals", Content: "Meals while travelling are reimbursed up to 40 euros per day with receipts."},
	}},
	{Key: "security.md", Title: "Security handbook", Chunks: []kb.Chunk{
		{Heading: "Passwords", Content: "Use a password manager. Passwords must be at least 14 characters."},
		{Heading: "Laptops", Content: "Laptops must use full-disk encryption and lock after five minutes."},
	}},
}

// SeedCorpus stores Corpus in workspace ws, each chunk embedded by e from
// its heading and content.
func SeedCorpus(t testing.TB, e BOW, s Upserter, ws string) {
	t.Helper()
	for _, d := range Corpus {
		texts := make([]string, len(d.Chunks))
		for i, c := range d.Chunks {
			texts[i] = c.Heading + " " + c.Content
		}
		doc := e.Doc(t, ws, d.Key, d.Title, texts...)
		for i := range doc.Chunks {
			doc.Chunks[i].Heading = d.Chunks[i].Heading
			doc.Chunks[i].Content = d.Chunks[i].Content
		}
		MustUpsert(t, s, doc)
	}
}

// Documents is a store's DocumentStore, as the checks use it.
type Documents interface {
	Upserter
	DocumentHash(ctx context.Context, workspace, key string) (string, bool, error)
	DeleteDocument(ctx context.Context, workspace, key string) error
	DocumentsByPrefix(ctx context.Context, workspace, prefix string) ([]kb.Document, error)
	Titles(ctx context.Context, workspace string, n int) ([]string, error)
	CountDocuments(ctx context.Context) (int, error)
	CountChunks(ctx context.Context) (int, error)
	Empty(ctx context.Context) (bool, error)
}

// Checkpointer is a store's agent thread store.
type Checkpointer interface {
	Load(ctx context.Context, id string) (agent.Thread, error)
	Save(ctx context.Context, t agent.Thread) error
	Update(ctx context.Context, id string, change func(*agent.Thread)) error
	Prune(ctx context.Context, olderThan time.Time) (int, error)
}

// Mismatch has the fields of the stores' EmbeddingMismatchError, which
// converts to it.
type Mismatch struct {
	StoredName string
	StoredDim  int
	Name       string
	Dim        int
}

// mismatchError is a store's EmbeddingMismatchError.
type mismatchError interface {
	~struct {
		StoredName string
		StoredDim  int
		Name       string
		Dim        int
	}
}

// AsMismatch unwraps a store's *E, its EmbeddingMismatchError, from err.
func AsMismatch[E mismatchError, P interface {
	*E
	error
}](err error) (Mismatch, bool) {
	var mm P
	if !errors.As(err, &mm) {
		return Mismatch{}, false
	}
	return Mismatch(*mm), true
}

// Store is one new, empty store, migrated for Dim-dimensional vectors
// written by the embedder named "bow", and the pieces of it the checks use.
type Store struct {
	// BOW is the embedder the store's documents and queries are embedded
	// with; its stop words are those the store's full-text index ignores.
	BOW BOW
	// Docs is the store's DocumentStore, recording "bow" as the embedder.
	Docs Documents
	// DocsAs returns a DocumentStore on the same store that records
	// embedder as the one writing vectors.
	DocsAs func(t *testing.T, embedder string) Documents
	// Retriever returns the store's hybrid retriever embedding queries
	// with emb; nil leaves the keyword ranking alone.
	Retriever func(emb Embedder) agent.Retriever
	// Checkpointer is the store's thread store, and Now the store's clock
	// (its DB.Now), which the checks set.
	Checkpointer Checkpointer
	Now          *func() time.Time
	// Questions is the store's question store, on the same clock.
	Questions questions.Store
	// Channels is the store's channel settings, on the same clock.
	Channels channels.Store
	// CheckEmbedding is the store's DB.CheckEmbedding, and AsMismatch
	// unwraps the store's *EmbeddingMismatchError from an error (see the
	// function AsMismatch).
	CheckEmbedding func(ctx context.Context, name string, dim int) error
	AsMismatch     func(err error) (Mismatch, bool)
	// Rows counts the rows of one of the store's tables.
	Rows func(table string) (int, error)
	// FullTextTable names the table that indexes chunk text with a row per
	// chunk apart from the chunks themselves; "" when there is none.
	FullTextTable string
}
