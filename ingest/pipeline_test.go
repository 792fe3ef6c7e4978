package ingest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard/switchboard/kb"
)

// fakeStore is a DocumentStore made of functions; memStore fills them with
// an in-memory map.
type fakeStore struct {
	DocumentHashFn   func(ctx context.Context, workspace, key string) (string, bool, error)
	UpsertDocumentFn func(ctx context.Context, doc kb.Document) (bool, error)
}

var _ DocumentStore = (*fakeStore)(nil)

func (s *fakeStore) DocumentHash(ctx context.Context, workspace, key string) (string, bool, error) {
	return s.DocumentHashFn(ctx, workspace, key)
}

func (s *fakeStore) UpsertDocument(ctx context.Context, doc kb.Document) (bool, error) {
	return s.UpsertDocumentFn(ctx, doc)
}

// memStore is an in-memory store that counts writes.
type memStore struct {
	fakeStore
	mu      sync.Mutex
	docs    map[string]kb.Document
	upserts int
}

func newMemStore() *memStore {
	m := &memStore{docs: map[string]kb.Document{}}
	m.DocumentHashFn = func(_ context.Context, ws, key string) (string, bool, error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		d, ok := m.docs[ws+"/"+key]
		return d.Hash, ok, nil
	}
	m.UpsertDocumentFn = func(_ context.Context, doc kb.Document) (bool, error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		_, existed := m.docs[doc.Workspace+"/"+doc.Key]
		m.docs[doc.Workspace+"/"+doc.Key] = doc
		m.upserts++
		return !existed, nil
	}
	return m
}

// fakeEmbedder is an Embedder made of a function.
type fakeEmbedder struct {
	EmbedFn func(ctx context.Context, texts []string) ([][]float32, error)
}

var _ Embedder = (*fakeEmbedder)(nil)

func (e *fakeEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return e.EmbedFn(ctx, texts)
}

// countingEmbedder returns a vector per text and counts texts embedded.
func countingEmbedder(n *atomic.Int64) *fakeEmbedder {
	return &fakeEmbedder{EmbedFn: func(_ context.Context, texts []string) ([][]float32, error) {
		n.Add(int64(len(texts)))
		out := make([][]float32, len(texts))
		for i, s := range texts {
			out[i] = []float32{float32(len(s)), 1}
		}
		return out, nil
	}}
}

func doc(key, text string) kb.Document {
	return kb.Document{Key: key, Title: "T", Hash: kb.Hash(text), Chunks: []kb.Chunk{{Content: text}}}
}

func TestIngestIsIdempotent(t *testing.T) {
	ctx := context.Background()
	store := newMemStore()
	var embedded atomic.Int64
	p := &Pipeline{Store: store, Embedder: countingEmbedder(&embedded), Split: SplitOptions{Size: 200}}
	text := "# Refunds\n\n" + prose(20)

	res, err := p.Ingest(ctx, doc("refunds.md", text))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusAdded || res.Chunks < 2 {
		t.Fatalf("first ingest = %+v, want added with several chunks", res)
	}
	stored := store.docs["/refunds.md"]
	if len(stored.Chunks) != res.Chunks || embedded.Load() != int64(res.Chunks) {
		t.Fatalf("stored %d chunks, embedded %d texts, result says %d", len(stored.Chunks), embedded.Load(), res.Chunks)
	}
	for i, c := range stored.Chunks {
		if c.Index != i || len(c.Embedding) == 0 || c.Heading != "Refunds" {
			t.Errorf("chunk %d = index %d, heading %q, %d dims", i, c.Index, c.Heading, len(c.Embedding))
		}
	}

	res, err = p.Ingest(ctx, doc("refunds.md", text))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusUnchanged || store.upserts != 1 || embedded.Load() != int64(len(stored.Chunks)) {
		t.Errorf("second ingest = %+v, upserts %d, embedded %d: want unchanged with no new work", res, store.upserts, embedded.Load())
	}

	res, err = p.Ingest(ctx, doc("refunds.md", text+" One more sentence."))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusUpdated || store.upserts != 2 {
		t.Errorf("changed ingest = %+v, upserts %d, want updated", res, store.upserts)
	}
}

func TestIngestFailedBatchWritesNothing(t *testing.T) {
	store := newMemStore()
	var calls atomic.Int64
	emb := &fakeEmbedder{EmbedFn: func(_ context.Context, texts []string) ([][]float32, error) {
		calls.Add(1)
		for _, s := range texts {
			if strings.Contains(s, "Sentence 17 ") {
				return nil, errors.New("rate limited")
			}
		}
		out := make([][]float32, len(texts))
		for i := range out {
			out[i] = []float32{1}
		}
		return out, nil
	}}
	p := &Pipeline{Store: store, Embedder: emb, BatchSize: 2, Concurrency: 1, Split: SplitOptions{Size: 120, Overlap: -1}, retryDelay: time.Millisecond}

	_, err := p.Ingest(context.Background(), doc("big.md", prose(30)))
	if err == nil || !strings.Contains(err.Error(), "rate limited") || !strings.Contains(err.Error(), "after 3 attempts") {
		t.Fatalf("err = %v, want the embedder's error after 3 attempts", err)
	}
	if !strings.HasPrefix(err.Error(), "ingest: big.md: embed chunks ") {
		t.Errorf("err = %q, want it to name the document and the chunks", err)
	}
	if store.upserts != 0 || len(store.docs) != 0 {
		t.Errorf("store written %d times after a failed batch", store.upserts)
	}
}

func TestIngestRetriesTransientFailures(t *testing.T) {
	store := newMemStore()
	var calls atomic.Int64
	emb := &fakeEmbedder{EmbedFn: func(_ context.Context, texts []string) ([][]float32, error) {
		switch calls.Add(1) {
		case 1:
			return nil, errors.New("503")
		case 2:
			return [][]float32{{1}, {1}, {1}}, nil // wrong count: retried too
		}
		out := make([][]float32, len(texts))
		for i := range out {
			out[i] = []float32{1, 2}
		}
		return out, nil
	}}
	p := &Pipeline{Store: store, Embedder: emb, retryDelay: time.Millisecond}
	res, err := p.Ingest(context.Background(), doc("a.md", "One.\n\nTwo."))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusAdded || calls.Load() != 3 {
		t.Errorf("result %+v after %d calls, want added after 3", res, calls.Load())
	}
}

func TestIngestBoundsConcurrency(t *testing.T) {
	var inFlight, peak, batches atomic.Int64
	// Every call waits until two are in flight (once), so that the bound
	// is seen to be used without counting on the scheduler; an embed of one
	// batch at a time gives up waiting and fails below.
	two, twoOnce := make(chan struct{}), sync.Once{}
	emb := &fakeEmbedder{EmbedFn: func(_ context.Context, texts []string) ([][]float32, error) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		batches.Add(1)
		if n >= 2 {
			twoOnce.Do(func() { close(two) })
		}
		select {
		case <-two:
		case <-time.After(20 * time.Second):
		}
		time.Sleep(time.Millisecond) // a window for a third call, were the bound broken
		out := make([][]float32, len(texts))
		for i := range out {
			out[i] = []float32{1}
		}
		return out, nil
	}}
	p := &Pipeline{Store: newMemStore(), Embedder: emb, BatchSize: 3, Concurrency: 2, Split: SplitOptions{Size: 100, Overlap: -1}}
	res, err := p.Ingest(context.Background(), doc("a.md", prose(40)))
	if err != nil {
		t.Fatal(err)
	}
	wantBatches := int64((res.Chunks + 2) / 3)
	if batches.Load() != wantBatches || peak.Load() != 2 {
		t.Errorf("%d batches with at most %d in flight; want %d batches, 2 (Concurrency) in flight", batches.Load(), peak.Load(), wantBatches)
	}
}

func TestIngestCancelled(t *testing.T) {
	store := newMemStore()
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	emb := &fakeEmbedder{EmbedFn: func(ctx context.Context, _ []string) ([][]float32, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	p := &Pipeline{Store: store, Embedder: emb, Concurrency: 1}
	go func() {
		<-started
		cancel()
	}()
	_, err := p.Ingest(ctx, doc("a.md", "text"))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if store.upserts != 0 {
		t.Error("document written after cancellation")
	}
}

func TestIngestFiles(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"docs/a.md":     "# A\n\n" + prose(5),
		"docs/b.html":   "<h1>B</h1><p>Bee.</p>",
		"docs/bin.txt":  "\x00\x01",
		"docs/skip.png": "\x89PNG",
		".git/HEAD":     "ref: refs/heads/main\n", // a checkout: keys are paths in it
	})
	t.Chdir(dir)
	store := newMemStore()
	var embedded atomic.Int64
	p := &Pipeline{Store: store, Embedder: countingEmbedder(&embedded)}
	ctx := context.Background()

	rep, err := p.IngestFiles(ctx, []string{"docs", "docs/missing.md"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Files != 2 || rep.Added != 2 || rep.Chunks != 2 || rep.Unsupported != 1 || len(rep.Skipped) != 1 || len(rep.Errors) != 1 {
		t.Errorf("first run: %s", rep)
	}

	writeFiles(t, dir, map[string]string{"docs/b.html": "<h1>B</h1><p>Bee, changed.</p>"})
	rep, err = p.IngestFiles(ctx, []string{"docs"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Unchanged != 1 || rep.Updated != 1 || rep.Added != 0 || rep.Chunks != 1 {
		t.Errorf("second run: %s", rep)
	}
	if got := store.docs["/"+KeyPrefix+filepath.Base(dir)+"/docs/b.html"].Chunks[0].Content; got != "# B\n\nBee, changed." {
		t.Errorf("stored %q", got)
	}
}

// The store is tidied once after a run that wrote documents, not after
// one that changed nothing; a failure to tidy is reported, not fatal.
func TestTidyAfterARunThatWrote(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.md": "# A\n\n" + prose(3), "b.md": "# B\n\n" + prose(2), ".git/HEAD": "x"})
	t.Chdir(dir)
	var tidied int
	tidyErr := error(nil)
	p := &Pipeline{Store: newMemStore(), Tidy: func(context.Context) error { tidied++; return tidyErr }}
	ctx := context.Background()
	if _, err := p.IngestFiles(ctx, []string{"."}); err != nil || tidied != 1 {
		t.Fatalf("first run: %v, tidied %d times, want once", err, tidied)
	}
	if _, err := p.IngestFiles(ctx, []string{"."}); err != nil || tidied != 1 {
		t.Fatalf("unchanged run: %v, tidied %d times in all, want still once", err, tidied)
	}
	writeFiles(t, dir, map[string]string{"b.md": "# B\n\nchanged"})
	tidyErr = errors.New("disk full")
	rep, err := p.IngestFiles(ctx, []string{"."})
	if err != nil || tidied != 2 || rep.Updated != 1 || len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0].Error(), "disk full") {
		t.Fatalf("run with a failed tidy: %v, %s, tidied %d", err, rep, tidied)
	}
}

func TestIngestFilesGoesOnAfterAFailedDocument(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.md": "# A", "b.md": "# B", "c.md": "# C", ".git/HEAD": "x"})
	t.Chdir(dir)
	store := newMemStore()
	hash := store.DocumentHashFn
	store.DocumentHashFn = func(ctx context.Context, ws, key string) (string, bool, error) {
		if strings.HasSuffix(key, "/b.md") {
			return "", false, errors.New("database is locked")
		}
		return hash(ctx, ws, key)
	}
	p := &Pipeline{Store: store}
	rep, err := p.IngestFiles(context.Background(), []string{"."})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added != 2 || len(rep.Errors) != 1 || rep.Errors[0].Error() != "ingest: "+filepath.Base(dir)+"/b.md: read stored hash: database is locked" {
		t.Errorf("report: %s", rep)
	}
	// Without an Embedder chunks are stored without vectors.
	if c := store.docs["/"+KeyPrefix+filepath.Base(dir)+"/a.md"].Chunks; len(c) != 1 || c[0].Embedding != nil {
		t.Errorf("chunks = %+v", c)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.IngestFiles(ctx, []string{"."}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: err = %v", err)
	}
}

func TestIngestRejectsBadInput(t *testing.T) {
	if _, err := (&Pipeline{}).Ingest(context.Background(), doc("a", "x")); err == nil {
		t.Error("no error without a store")
	}
	if _, err := (&Pipeline{Store: newMemStore()}).Ingest(context.Background(), doc("", "x")); err == nil {
		t.Error("no error without a key")
	}
	// A missing hash is computed, so the second ingest is still skipped.
	p := &Pipeline{Store: newMemStore()}
	d := doc("k", "x")
	d.Hash = ""
	for i, want := range []Status{StatusAdded, StatusUnchanged} {
		if res, err := p.Ingest(context.Background(), d); err != nil || res.Status != want {
			t.Errorf("ingest %d = %+v, %v; want %s", i, res, err, want)
		}
	}
}

func TestIngestRejectsMixedDimensions(t *testing.T) {
	var n atomic.Int64
	emb := &fakeEmbedder{EmbedFn: func(_ context.Context, texts []string) ([][]float32, error) {
		dims := 2 + int(n.Add(1)) // each batch a different size
		out := make([][]float32, len(texts))
		for i := range out {
			out[i] = make([]float32, dims)
		}
		return out, nil
	}}
	store := newMemStore()
	p := &Pipeline{Store: store, Embedder: emb, BatchSize: 1, Split: SplitOptions{Size: 100, Overlap: -1}}
	if _, err := p.Ingest(context.Background(), doc("a", prose(10))); err == nil || !strings.Contains(err.Error(), "dimensions") {
		t.Errorf("err = %v, want a dimension mismatch", err)
	}
	if store.upserts != 0 {
		t.Error("document written with mixed dimensions")
	}
}

func TestEmbedText(t *testing.T) {
	tests := []struct {
		title string
		chunk kb.Chunk
		want  string
	}{
		{"Refund policy", kb.Chunk{Heading: "Annual plans", Content: "Prorated."}, "Refund policy — Annual plans\n\nProrated."},
		{"Refund policy", kb.Chunk{Heading: "Annual plans", Content: "## Annual plans\n\nProrated."}, "Refund policy\n\n## Annual plans\n\nProrated."},
		{"", kb.Chunk{Content: "Bare."}, "Bare."},
		{"Same", kb.Chunk{Heading: "Same", Content: "x"}, "Same\n\nx"},
	}
	for i, tt := range tests {
		if got := embedText(tt.title, tt.chunk); got != tt.want {
			t.Errorf("%d: embedText = %q, want %q", i, got, tt.want)
		}
	}
}

func ExampleReport_String() {
	rep := Report{Files: 3, Added: 1, Unchanged: 2, Chunks: 4, Skipped: []Skip{{Path: "docs/logo.md", Reason: "binary file (contains NUL bytes)"}}}
	fmt.Println(rep)
	// Output:
	// 3 files: 1 added, 0 updated, 2 unchanged; 4 chunks written
	// skipped docs/logo.md: binary file (contains NUL bytes)
}
