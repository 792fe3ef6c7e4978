package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"time"

	"github.com/switchboard/switchboard/internal/retry"
	"github.com/switchboard/switchboard/kb"
)

// DocumentStore is what the pipeline needs from a document store (SQLite,
// PostgreSQL).
type DocumentStore interface {
	// DocumentHash returns the Hash stored for the document with key in
	// workspace; ok is false when there is none.
	DocumentHash(ctx context.Context, workspace, key string) (hash string, ok bool, err error)
	// UpsertDocument stores doc and its chunks, replacing whatever was
	// stored under its workspace and key, in one transaction: readers see
	// the old document or the new one, never a mix. changed is false when
	// the stored document already had doc's hash.
	UpsertDocument(ctx context.Context, doc kb.Document) (changed bool, err error)
}

// Embedder turns texts into vectors, one per text, in order, all of the
// same length. Implementations: the OpenAI-compatible client and the
// offline hashing embedder.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Pipeline splits documents, embeds their chunks and stores them, skipping
// documents whose content has not changed since they were last stored.
// Set the fields before first use; zero values give the defaults.
type Pipeline struct {
	// Store receives the documents; required.
	Store DocumentStore
	// Embedder may be nil: chunks are then stored without vectors, for a
	// store searched by full text only.
	Embedder Embedder
	// Split sizes the chunks; see SplitOptions.
	Split SplitOptions
	// BatchSize is how many chunks go into one Embed call. Default 64.
	BatchSize int
	// Concurrency bounds the Embed calls in flight for one document.
	// Default 2: embedding APIs rate-limit, and two calls already hide
	// most of the latency.
	Concurrency int

	// Legacy, when set, lets IngestFiles take over documents that earlier
	// versions stored under the path as typed (see LegacyFiles).
	Legacy LegacyFiles

	// DocsBaseURL, when set, links the files IngestFiles loads to the pages
	// people read them on: DocsBaseURL followed by the file's path from the
	// top of its Git checkout, or from the folder named when it is in none,
	// percent-encoded (DOCS_BASE_URL: "https://github.com/acme/handbook/blob/main/"
	// links "handbook/docs/a b.md" to ".../blob/main/docs/a%20b.md"). A
	// "url:" in a file's front matter wins. The link is stored with the
	// document (Metadata["url"]), so changing the base re-stores the files
	// at their next ingest.
	DocsBaseURL string

	// Tidy, when set, runs after an IngestFiles or IngestFS run that wrote
	// documents: the embedded store merges its full-text index, which
	// every write adds a segment to and every search reads
	// (sqlite.DB.Optimize).
	Tidy func(context.Context) error

	retryDelay time.Duration // before the first retry of a failed batch; tests shorten it
}

// Defaults for Pipeline.
const (
	DefaultBatchSize   = 64
	DefaultConcurrency = 2
	embedRetries       = 2 // a failed batch is tried this many more times
	defaultRetryDelay  = 500 * time.Millisecond
)

// Status says what Ingest did with a document.
type Status string

// The outcomes of Ingest.
const (
	StatusAdded     Status = "added"     // the document was new
	StatusUpdated   Status = "updated"   // its content had changed and was replaced
	StatusUnchanged Status = "unchanged" // its stored hash matched: nothing was done
)

// Result is the outcome of ingesting one document.
type Result struct {
	Status Status
	Chunks int // chunks written; 0 when unchanged
}

// Ingest stores doc unless the store already holds the same content.
//
// doc.Chunks is the text to index: the whole text in one chunk, as Files
// hands it over, or pieces of it (messages of a thread, say). Each chunk is
// split with p.Split, the pieces numbered anew, embedded and the document
// written with UpsertDocument. When doc.Hash is empty it is computed from the
// chunks' text.
//
// A document whose stored hash equals doc.Hash is skipped before any
// embedding is done. If embedding fails (after retries) or ctx ends, nothing
// is written: a document is never stored half-embedded.
func (p *Pipeline) Ingest(ctx context.Context, doc kb.Document) (Result, error) {
	if p.Store == nil {
		return Result{}, errors.New("ingest: pipeline has no store")
	}
	if doc.Key == "" {
		return Result{}, errors.New("ingest: document has no key")
	}
	if doc.Hash == "" {
		doc.Hash = hashChunks(doc.Chunks)
	}
	name := strings.TrimPrefix(doc.Key, KeyPrefix) // for errors: "docs/a.md", not "file:docs/a.md"
	stored, ok, err := p.Store.DocumentHash(ctx, doc.Workspace, doc.Key)
	if err != nil {
		return Result{}, fmt.Errorf("ingest: %s: read stored hash: %w", name, err)
	}
	if ok && stored == doc.Hash {
		return Result{Status: StatusUnchanged}, nil
	}

	doc.Chunks = p.split(doc.Chunks)
	if p.Embedder != nil && len(doc.Chunks) > 0 {
		texts := make([]string, len(doc.Chunks))
		for i, c := range doc.Chunks {
			texts[i] = embedText(doc.Title, c)
		}
		vecs, err := p.embed(ctx, texts)
		if err != nil {
			return Result{}, fmt.Errorf("ingest: %s: %w", name, err)
		}
		for i := range doc.Chunks {
			doc.Chunks[i].Embedding = vecs[i]
		}
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("ingest: %s: %w", name, err)
	}
	if _, err := p.Store.UpsertDocument(ctx, doc); err != nil {
		return Result{}, fmt.Errorf("ingest: %s: store: %w", name, err)
	}
	// Whether the document was new is known from the hash lookup above;
	// stores report only whether they wrote anything.
	res := Result{Status: StatusAdded, Chunks: len(doc.Chunks)}
	if ok {
		res.Status = StatusUpdated
	}
	return res, nil
}

// IngestFiles loads paths with Files and ingests each document. A document
// that fails is recorded in Report.Errors and the run goes on; the error
// returned is for ctx ending, and the report then covers what was done.
// Documents are ingested one after another, each with up to Concurrency
// embedding calls.
//
// A file not yet stored under its canonical Key takes over, when p.Legacy
// is set, the document an earlier version stored for it under the path as
// typed: it is renamed, so a file whose text has not changed is
// "unchanged", and other copies of it under other spellings are deleted.
func (p *Pipeline) IngestFiles(ctx context.Context, paths []string) (Report, error) {
	legacy := p.Legacy != nil
	if legacy {
		var err error
		if legacy, err = p.Legacy.HasLegacyFiles(ctx); err != nil {
			return Report{}, fmt.Errorf("ingest: look for documents stored under older keys: %w", err)
		}
	}
	return p.ingestAll(ctx, func(fn func(kb.Document) error) (Report, error) {
		return files(ctx, paths, p.DocsBaseURL, func(doc kb.Document, id *sourceID) error {
			if id != nil && legacy {
				if err := p.adoptLegacy(ctx, doc, *id); err != nil {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					return fmt.Errorf("take over the document stored under an older key: %w", err)
				}
			}
			return fn(doc)
		})
	})
}

// IngestFS is IngestFiles over fsys; see FilesFS for prefix. The embedded
// default uses it to load the example documents.
func (p *Pipeline) IngestFS(ctx context.Context, fsys fs.FS, prefix string, paths []string) (Report, error) {
	return p.ingestAll(ctx, func(fn func(kb.Document) error) (Report, error) {
		return FilesFS(ctx, fsys, prefix, paths, fn)
	})
}

func (p *Pipeline) ingestAll(ctx context.Context, load func(func(kb.Document) error) (Report, error)) (Report, error) {
	var done Report
	rep, err := load(func(doc kb.Document) error {
		res, err := p.Ingest(ctx, doc)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			done.Errors = append(done.Errors, err)
			return nil
		}
		switch res.Status {
		case StatusAdded:
			done.Added++
		case StatusUpdated:
			done.Updated++
		case StatusUnchanged:
			done.Unchanged++
		}
		done.Chunks += res.Chunks
		return nil
	})
	rep.Added, rep.Updated, rep.Unchanged, rep.Chunks = done.Added, done.Updated, done.Unchanged, done.Chunks
	rep.Errors = append(rep.Errors, done.Errors...)
	if p.Tidy != nil && rep.Added+rep.Updated > 0 {
		if terr := p.Tidy(ctx); terr != nil {
			rep.Errors = append(rep.Errors, fmt.Errorf("ingest: tidy the store after writing (searches are slower, not wrong): %w", terr))
		}
	}
	return rep, err
}

// split re-splits the chunks a caller handed over and numbers the pieces.
// Each piece keeps its chunk's Location and Metadata: they describe where
// the text came from, which cutting it does not change.
func (p *Pipeline) split(in []kb.Chunk) []kb.Chunk {
	var out []kb.Chunk
	for _, c := range in {
		for _, piece := range splitUnder(c.Content, c.Heading, p.Split) {
			piece.Index = len(out)
			piece.Location, piece.Metadata = c.Location, c.Metadata
			out = append(out, piece)
		}
	}
	return out
}

func hashChunks(chunks []kb.Chunk) string {
	parts := make([]string, len(chunks))
	for i, c := range chunks {
		parts[i] = c.Content
	}
	return kb.Hash(strings.Join(parts, "\n\n"))
}

// embedText is what is embedded for a chunk: its text under the document's
// title and the chunk's heading. A chunk read alone often lacks its subject
// ("within 30 days" says nothing of refunds); the title and heading put it
// back, which makes the vector findable by questions about that subject.
// The stored Content stays the chunk's own text.
func embedText(title string, c kb.Chunk) string {
	var head []string
	if title != "" {
		head = append(head, title)
	}
	if c.Heading != "" && c.Heading != title && !strings.Contains(c.Content, c.Heading) {
		head = append(head, c.Heading)
	}
	if len(head) == 0 {
		return c.Content
	}
	return strings.Join(head, " — ") + "\n\n" + c.Content
}

// embed embeds texts in batches, at most Concurrency at a time. The first
// batch to fail for good cancels the others and its error is returned.
func (p *Pipeline) embed(ctx context.Context, texts []string) ([][]float32, error) {
	size := p.BatchSize
	if size <= 0 {
		size = DefaultBatchSize
	}
	workers := p.Concurrency
	if workers <= 0 {
		workers = DefaultConcurrency
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	out := make([][]float32, len(texts))
	sem := make(chan struct{}, workers)
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	fail := func(err error) {
		once.Do(func() {
			firstErr = err
			cancel()
		})
	}
batches:
	for start := 0; start < len(texts); start += size {
		end := min(start+size, len(texts))
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			break batches
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			vecs, err := p.embedBatch(ctx, texts[start:end])
			if err != nil {
				fail(fmt.Errorf("embed chunks %d-%d: %w", start, end-1, err))
				return
			}
			copy(out[start:end], vecs) // disjoint ranges: no lock needed
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Every batch must agree on the dimension, or the store's index breaks.
	for i, v := range out {
		if len(v) != len(out[0]) {
			return nil, fmt.Errorf("embed: chunk %d has %d dimensions, chunk 0 has %d", i, len(v), len(out[0]))
		}
	}
	return out, nil
}

// embedBatch calls the embedder, retrying a failed or malformed answer
// embedRetries times after a pause that doubles from retryDelay, part of
// it random so that the batches of one document do not retry together;
// ctx ending stops it at once.
func (p *Pipeline) embedBatch(ctx context.Context, batch []string) ([][]float32, error) {
	delay := p.retryDelay
	if delay <= 0 {
		delay = defaultRetryDelay
	}
	var vecs [][]float32
	attempts := 0
	err := retry.Do(ctx, retry.Policy{Attempts: embedRetries + 1, Backoff: delay}, func(attempt int) retry.Outcome {
		attempts = attempt
		var err error
		vecs, err = p.Embedder.Embed(ctx, batch)
		if err == nil {
			err = checkVectors(vecs, len(batch))
		}
		if err == nil {
			return retry.Stop(nil)
		}
		return retry.Again(err)
	})
	switch {
	case err == nil:
		return vecs, nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	}
	return nil, fmt.Errorf("%w (gave up after %d attempts)", err, attempts)
}

func checkVectors(vecs [][]float32, want int) error {
	if len(vecs) != want {
		return fmt.Errorf("embedder returned %d vectors for %d texts", len(vecs), want)
	}
	for i, v := range vecs {
		if len(v) == 0 {
			return fmt.Errorf("embedder returned an empty vector for text %d", i)
		}
	}
	return nil
}
