package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/hashembed"
	"github.com/switchboard/switchboard/ingest"
	"github.com/switchboard/switchboard/internal/testenv"
	"github.com/switchboard/switchboard/postgres"
	"github.com/switchboard/switchboard/sqlite"
)

// Shape of the generated corpus: documents of one topic each, whose prose
// mixes the topic's words with common words drawn from a Zipf
// distribution, as real prose does.
const (
	corpusTopics   = 40
	topicWords     = 12
	vocabulary     = 3000
	sectionsPerDoc = 5
	wordsPerPara   = 70
	parasPerSect   = 2
)

// corpus writes n Markdown files into a new folder and returns it with
// queries that each name a topic.
func corpus(tb testing.TB, n, queries int) (dir string, qs []string) {
	tb.Helper()
	rnd := rand.New(rand.NewPCG(11, 11))
	zipf := rand.NewZipf(rnd, 1.1, 2, vocabulary-1)
	syll := []string{"ka", "lo", "mi", "ren", "ta", "vos", "ul", "pe", "dor", "si", "na", "gre", "bu", "fal", "te", "qui"}
	word := func(i uint64) string { // a pronounceable word per number
		var b strings.Builder
		for k := 0; k < 2+int(i%3); k++ {
			b.WriteString(syll[(i>>(4*k))%uint64(len(syll))])
		}
		return fmt.Sprintf("%s%d", b.String(), i%97)
	}
	topic := func(t, k int) string { return fmt.Sprintf("topic%dterm%d", t, k) }
	dir = tb.TempDir()
	for i := range n {
		t := i % corpusTopics
		var b strings.Builder
		fmt.Fprintf(&b, "# Document %d about %s and %s\n\n", i, topic(t, 0), topic(t, 1))
		for s := range sectionsPerDoc {
			fmt.Fprintf(&b, "## Section %d: %s\n\n", s+1, topic(t, 2+s))
			for range parasPerSect {
				for w := range wordsPerPara {
					if w%9 == 4 {
						b.WriteString(topic(t, rnd.IntN(topicWords)))
					} else {
						b.WriteString(word(zipf.Uint64()))
					}
					if w%14 == 13 {
						b.WriteString(". ")
					} else {
						b.WriteString(" ")
					}
				}
				b.WriteString("\n\n")
			}
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("doc-%04d.md", i)), []byte(b.String()), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	for i := range queries {
		t := i % corpusTopics
		qs = append(qs, fmt.Sprintf("What does the policy say about %s and %s?", topic(t, rnd.IntN(topicWords)), word(zipf.Uint64())))
	}
	return dir, qs
}

// storeRun ingests dir into a store and times retrievals.
func storeRun(tb testing.TB, backend string, store ingest.DocumentStore, r agent.Retriever, optimize func(context.Context) error, dir string, qs []string) Store {
	ctx := context.Background()
	p := &ingest.Pipeline{Store: store, Embedder: hashembed.New(384)}
	start := time.Now()
	rep, err := p.IngestFiles(ctx, []string{dir})
	if err == nil {
		err = rep.Err()
	}
	if err != nil {
		tb.Fatalf("%s: ingest: %v", backend, err)
	}
	took := time.Since(start)
	row := Store{Backend: backend, Files: rep.Added, Chunks: rep.Chunks, IngestS: took.Seconds(),
		FilesPerS: float64(rep.Added) / took.Seconds(), ChunksPerS: float64(rep.Chunks) / took.Seconds()}
	start = time.Now()
	if again, err := p.IngestFiles(ctx, []string{dir}); err != nil || again.Unchanged != rep.Added {
		tb.Fatalf("%s: re-ingest: %v, %d unchanged of %d", backend, err, again.Unchanged, rep.Added)
	}
	row.ReingestS = time.Since(start).Seconds()
	if optimize != nil {
		if err := optimize(ctx); err != nil {
			tb.Fatal(err)
		}
	}
	var lat []time.Duration
	for i, q := range qs {
		t0 := time.Now()
		docs, err := r.Retrieve(ctx, agent.Request{Query: q, Question: q, Limit: 6})
		if i > 0 || len(qs) == 1 { // the first query warms caches
			lat = append(lat, time.Since(t0))
		}
		if err != nil || len(docs) == 0 {
			tb.Fatalf("%s: retrieve %q: %d documents, %v", backend, q, len(docs), err)
		}
	}
	row.Queries, row.QueryP50MS, row.QueryP95MS = len(lat), ms(pct(lat, 0.50)), ms(pct(lat, 0.95))
	return row
}

// stores runs the same corpus through SQLite and, when TEST_DATABASE_URL
// is set, PostgreSQL.
func stores(tb testing.TB, p params) []Store {
	dir, qs := corpus(tb, p.files, p.queries)
	ctx := context.Background()
	emb := hashembed.New(384)

	db, err := sqlite.Open(ctx, filepath.Join(tb.TempDir(), "store.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	rows := []Store{storeRun(tb, "sqlite", sqlite.NewDocumentStore(db, "local-hash-384"), sqlite.NewRetriever(db, emb), db.Optimize, dir, qs)}

	// testenv skips (or fails under CI) without the variable; a benchmark
	// run should report the missing backend and go on.
	if os.Getenv("TEST_DATABASE_URL") == "" {
		return append(rows, Store{Backend: "postgres", Skipped: "TEST_DATABASE_URL not set (scripts/services.sh)"})
	}
	pg, err := postgres.Open(ctx, testenv.PostgresURL(tb), postgres.Options{EmbeddingDim: 384, Embedder: "local-hash-384"})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(pg.Close)
	if err := pg.Migrate(ctx); err != nil {
		tb.Fatal(err)
	}
	return append(rows, storeRun(tb, "postgres", postgres.NewDocumentStore(pg), postgres.NewRetriever(pg, emb), nil, dir, qs))
}

// BenchmarkStores: see the package documentation, item 4.
func BenchmarkStores(b *testing.B) {
	p := paramsFor(testing.Short())
	for b.Loop() {
		rows := stores(b, p)
		collect(func(r *Report) { r.Stores = rows })
		for _, s := range rows {
			if s.Skipped == "" {
				b.ReportMetric(s.ChunksPerS, "ingest-chunks/s-"+s.Backend)
				b.ReportMetric(s.QueryP95MS, "query-p95-ms-"+s.Backend)
			}
		}
	}
}
