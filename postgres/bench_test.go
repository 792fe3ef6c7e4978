package postgres

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/internal/retrieval"
	"github.com/switchboard/switchboard/internal/testenv"
	"github.com/switchboard/switchboard/kb"
)

var (
	benchChunks  = flag.Int("store.chunks", 100_000, "chunks BenchmarkStore loads")
	benchQueries = flag.Int("store.queries", 200, "hybrid queries BenchmarkStore times")
	benchSchema  = flag.String("store.schema", "", "schema BenchmarkStore loads and keeps instead of a fresh one; "+
		"a later run finding it loaded reuses it and measures the queries only (for iterating on them)")
)

// Shape of BenchmarkStore's synthetic knowledge base.
const (
	benchDim       = 384 // as all-MiniLM-L6-v2 and other small embedders
	benchPerDoc    = 10  // chunks per document
	benchBatchDocs = 200 // documents per UpsertDocuments call
	benchLoaders   = 2   // concurrent UpsertDocuments calls: one per core
	benchClusters  = 200 // topics; each has a centroid and its own words
	benchTopicWds  = 20  // words per topic
	benchVocab     = 5000
	benchWords     = 80  // words per chunk
	benchNoise     = 0.8 // norm of a vector's offset from its topic's centroid
	benchK         = 10  // for recall@k
)

// benchCorpus generates the knowledge base deterministically: documents of
// one topic each, whose chunk vectors scatter around the topic's centroid
// (cosine ≈ 0.78 to it, ≈ 0.6 between chunks of a topic, ≈ 0 across
// topics) and whose text mixes the topic's words with common words drawn
// from a Zipf distribution, as in prose.
type benchCorpus struct {
	centroids [][]float32
	rnd       *rand.Rand
	zipf      *rand.Zipf
}

func newBenchCorpus() *benchCorpus {
	rnd := rand.New(rand.NewPCG(42, 42))
	c := &benchCorpus{rnd: rnd, zipf: rand.NewZipf(rnd, 1.1, 2, benchVocab-1)}
	for range benchClusters {
		c.centroids = append(c.centroids, c.around(nil, 1))
	}
	return c
}

// around returns a unit vector: center plus a random offset of norm about
// noise (a random direction when center is nil).
func (c *benchCorpus) around(center []float32, noise float64) []float32 {
	v := make([]float32, benchDim)
	sd := noise / math.Sqrt(benchDim)
	var n float64
	for i := range v {
		x := sd * c.rnd.NormFloat64()
		if center != nil {
			x += float64(center[i])
		}
		v[i] = float32(x)
		n += x * x
	}
	n = math.Sqrt(n)
	for i := range v {
		v[i] /= float32(n)
	}
	return v
}

var syllables = strings.Fields("ka lo mi ne ru ta vo zi pe su da fe gu hi jo la mo ni po ri")

// word spells word i of the vocabulary in syllables, so that the English
// stemmer leaves the words distinct.
func word(i int) string {
	var b strings.Builder
	for {
		b.WriteString(syllables[i%len(syllables)])
		i /= len(syllables)
		if i == 0 {
			break
		}
	}
	b.WriteString("x")
	return b.String()
}

// topicWord returns word j of topic k, outside the common vocabulary.
func topicWord(k, j int) string { return word(benchVocab + k*benchTopicWds + j) }

func (c *benchCorpus) text(topic int) string {
	ws := make([]string, benchWords)
	for i := range ws {
		if c.rnd.IntN(10) < 3 {
			ws[i] = topicWord(topic, c.rnd.IntN(benchTopicWds))
		} else {
			ws[i] = word(int(c.zipf.Uint64()))
		}
	}
	return strings.Join(ws, " ")
}

// doc builds document d, spread over four workspaces and the shared files,
// twenty channels, and one in seven of them private; every topic has
// documents in each workspace.
func (c *benchCorpus) doc(d int) kb.Document {
	topic := d % benchClusters
	n := d / benchClusters
	doc := kb.Document{
		Key:       fmt.Sprintf("doc-%06d", d),
		Title:     fmt.Sprintf("Document %d: %s %s", d, topicWord(topic, 0), topicWord(topic, 1)),
		Location:  fmt.Sprintf("files/doc-%06d.md", d),
		Workspace: []string{"", "T1", "T2", "T3", "T4"}[n%5],
		Channel:   fmt.Sprintf("C%d", n%20),
		Private:   n%7 == 0,
		Metadata:  map[string]string{"topic": fmt.Sprint(topic)},
	}
	for i := range benchPerDoc {
		doc.Chunks = append(doc.Chunks, kb.Chunk{
			Index:     i,
			Heading:   fmt.Sprintf("Section %d %s", i, topicWord(topic, 2+i)),
			Content:   c.text(topic),
			Embedding: c.around(c.centroids[topic], benchNoise),
		})
	}
	return doc
}

// benchQuery is one question: its text, its vector, its scope and the
// topic it is about.
type benchQuery struct {
	text  string
	vec   []float32
	scope agent.Scope
	topic int
}

func (c *benchCorpus) query(q int) benchQuery {
	topic := c.rnd.IntN(benchClusters)
	text := fmt.Sprintf("What do we know about %s and %s, regarding %s %s?",
		topicWord(topic, c.rnd.IntN(benchTopicWds)), topicWord(topic, c.rnd.IntN(benchTopicWds)),
		word(c.rnd.IntN(10)), word(100+c.rnd.IntN(1000))) // a common word, a rarer one
	return benchQuery{
		text:  text,
		vec:   c.around(c.centroids[topic], benchNoise),
		scope: agent.Scope{Workspace: fmt.Sprintf("T%d", 1+q%4), Channel: fmt.Sprintf("C%d", q%20)},
		topic: topic,
	}
}

// mapEmbedder embeds the benchmark's queries with their precomputed
// vectors, so that timings are the store's alone.
type mapEmbedder map[string][]float32

func (m mapEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, ok := m[t]
		if !ok {
			return nil, fmt.Errorf("no vector for %q", t)
		}
		out[i] = v
	}
	return out, nil
}

// BenchmarkStore loads a synthetic knowledge base of -store.chunks chunks
// (100,000 by default) with 384-dimensional vectors into a fresh schema
// and reports:
//
//   - load_chunks/s: bulk ingest with two concurrent UpsertDocuments
//     streams, before the HNSW index exists (the full-text index is
//     maintained throughout);
//   - index_build_s: building the HNSW index over the loaded vectors;
//   - reingest_chunks/s: replacing 2,000 chunks with the index in place;
//   - p50_ms, p95_ms: Retriever.Retrieve latency (hybrid, one round
//     trip, scoped to a workspace and channel) over -store.queries queries;
//   - topic_hit@1: how often the first result is about the query's topic;
//   - recall@10: the HNSW search's (scoped, as Retrieve runs it) top ten
//     against an exact search by sequential scan; recall@10_unscoped the
//     same without the scope filter.
//
// Run it once:
//
//	go test ./postgres -run '^$' -bench Store -benchtime 1x
//
// The load takes a few minutes on two cores. To iterate on the queries,
// add -store.schema NAME: the first run loads into that schema and keeps
// it, later ones reuse it and report only the query figures. Drop the
// schema when done; figures for the record come from fresh runs.
func BenchmarkStore(b *testing.B) {
	ctx := context.Background()
	url := testenv.PostgresURL(b)
	if *benchSchema != "" {
		url = keptSchemaURL(b, *benchSchema)
	}
	db := openURL(b, url, Options{EmbeddingDim: benchDim, Embedder: "synthetic", MaxConns: 4}, true)
	s := NewDocumentStore(db)
	corpus := newBenchCorpus()
	docs := *benchChunks / benchPerDoc
	if *benchSchema != "" && mustCount(b, s.CountChunks) > 0 {
		benchQueriesOnly(b, db, corpus, docs)
		return
	}

	// Loading without the HNSW index and building it afterwards is several
	// times faster than maintaining it row by row.
	if _, err := db.pool.Exec(ctx, `DROP INDEX chunks_embedding`); err != nil {
		b.Fatal(err)
	}
	// One goroutine generates batches while benchLoaders write them, as an
	// ingest run with concurrent writers would; the channel bounds what is
	// held in memory.
	start := time.Now()
	batches := make(chan []kb.Document, benchLoaders)
	go func() {
		defer close(batches)
		for d := 0; d < docs; d += benchBatchDocs {
			batch := make([]kb.Document, 0, benchBatchDocs)
			for i := d; i < min(d+benchBatchDocs, docs); i++ {
				batch = append(batch, corpus.doc(i))
			}
			batches <- batch
		}
	}()
	errs := make(chan error, benchLoaders)
	for range benchLoaders {
		go func() {
			var err error
			for batch := range batches {
				if err == nil {
					_, err = s.UpsertDocuments(ctx, batch)
				}
			}
			errs <- err
		}()
	}
	for range benchLoaders {
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
	}
	load := time.Since(start)
	chunks := mustCount(b, s.CountChunks)
	if chunks != docs*benchPerDoc {
		b.Fatalf("loaded %d chunks, want %d", chunks, docs*benchPerDoc)
	}
	start = time.Now()
	if err := db.withTx(ctx, func(tx pgx.Tx) error { return buildVectorIndex(ctx, tx) }); err != nil {
		b.Fatal(err)
	}
	build := time.Since(start)
	if _, err := db.pool.Exec(ctx, `VACUUM ANALYZE chunks, documents`); err != nil {
		b.Fatal(err)
	}
	b.Logf("loaded %d chunks in %v, built the HNSW index in %v", chunks, load.Round(time.Millisecond), build.Round(time.Millisecond))

	// Replace some documents while the index is live.
	start = time.Now()
	var replaced int
	for d := 0; d < min(200, docs); d += 100 {
		batch := make([]kb.Document, 0, 100)
		for i := d; i < min(d+100, docs); i++ {
			doc := corpus.doc(i)
			doc.Hash = "v2"
			batch = append(batch, doc)
			replaced += len(doc.Chunks)
		}
		if _, err := s.UpsertDocuments(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	reingest := time.Since(start)

	timeQueries(b, db, corpus)
	// After timeQueries: its ResetTimer deletes the metrics reported so far.
	b.ReportMetric(float64(chunks)/load.Seconds(), "load_chunks/s")
	b.ReportMetric(build.Seconds(), "index_build_s")
	b.ReportMetric(float64(replaced)/reingest.Seconds(), "reingest_chunks/s")
}

// benchQueriesOnly is BenchmarkStore on a schema loaded by an earlier run
// (-store.schema): the corpus is generated again but not written, so that
// the queries, drawn from the same random stream, are the same.
func benchQueriesOnly(b *testing.B, db *DB, corpus *benchCorpus, docs int) {
	if n := mustCount(b, NewDocumentStore(db).CountChunks); n != docs*benchPerDoc {
		b.Fatalf("schema %s holds %d chunks, want %d: drop it or pass its -store.chunks", *benchSchema, n, docs*benchPerDoc)
	}
	for i := range docs {
		corpus.doc(i)
	}
	for i := range min(200, docs) { // the reingested documents
		corpus.doc(i)
	}
	b.Logf("reusing the %d chunks of schema %s", docs*benchPerDoc, *benchSchema)
	timeQueries(b, db, corpus)
}

// timeQueries times the hybrid queries and reports their latency and
// quality.
func timeQueries(b *testing.B, db *DB, corpus *benchCorpus) {
	ctx := context.Background()
	queries := make([]benchQuery, *benchQueries)
	emb := mapEmbedder{}
	for i := range queries {
		queries[i] = corpus.query(i)
		emb[queries[i].text] = queries[i].vec
	}
	r := NewRetriever(db, emb)
	b.Logf("plan of a hybrid query:\n%s", explainHybrid(b, db, queries[0]))
	for _, q := range queries[:min(20, len(queries))] { // warm the caches and statements
		if _, err := r.Retrieve(ctx, agent.Request{Query: q.text, Scope: q.scope}); err != nil {
			b.Fatal(err)
		}
	}

	b.ResetTimer()
	var lat []time.Duration
	var hits int
	for range b.N {
		lat, hits = lat[:0], 0
		for _, q := range queries {
			t0 := time.Now()
			got, err := r.Retrieve(ctx, agent.Request{Query: q.text, Scope: q.scope})
			lat = append(lat, time.Since(t0))
			if err != nil {
				b.Fatal(err)
			}
			if len(got) > 0 && got[0].Metadata["topic"] == fmt.Sprint(q.topic) {
				hits++
			}
		}
	}
	b.StopTimer()

	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50_ms")
	b.ReportMetric(pct(0.95), "p95_ms")
	b.ReportMetric(float64(hits)/float64(len(queries)), "topic_hit@1")
	b.ReportMetric(recall(b, db, queries, true), "recall@10")
	b.ReportMetric(recall(b, db, queries, false), "recall@10_unscoped")
}

// keptSchemaURL is testenv.PostgresURL for a schema of the given name,
// created unless it exists, and not dropped.
func keptSchemaURL(b *testing.B, schema string) string {
	u, err := url.Parse(os.Getenv("TEST_DATABASE_URL"))
	if err != nil {
		b.Fatal("TEST_DATABASE_URL is not a URL")
	}
	conn, err := pgx.Connect(context.Background(), u.String())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), `CREATE SCHEMA IF NOT EXISTS `+pgx.Identifier{schema}.Sanitize()); err != nil {
		b.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema+",public")
	u.RawQuery = q.Encode()
	return u.String()
}

// explainHybrid returns the executed plan of q's hybrid query, and fails
// the benchmark unless both indexes are used: otherwise it measures
// something else than production does.
func explainHybrid(b *testing.B, db *DB, q benchQuery) string {
	ctx := context.Background()
	var plan strings.Builder
	err := db.withTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, searchSettings, fmt.Sprint(db.opts.EfSearch)); err != nil {
			return err
		}
		return explain(ctx, tx, &plan, `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) `+hybridSQL, pgvector.NewVector(q.vec),
			queryWords(q.text), q.scope.Workspace, q.scope.Channel, retrieval.MinPool, retrieval.DefaultLimit, "")
	})
	if err != nil {
		b.Fatal(err)
	}
	if !strings.Contains(plan.String(), "chunks_embedding") || !strings.Contains(plan.String(), "chunks_tsv") {
		b.Fatalf("the hybrid query does not use both indexes:\n%s", plan.String())
	}
	return plan.String()
}

// recall returns the mean recall@10 of the HNSW search, run as Retrieve
// runs it, against an exact search with index scans disabled.
func recall(b *testing.B, db *DB, queries []benchQuery, scoped bool) float64 {
	ctx := context.Background()
	where, params := "true", func(q benchQuery) []any { return []any{pgvector.NewVector(q.vec)} }
	if scoped {
		// scopeSQL's $3 and $4 become $2 and $3 here.
		where = strings.NewReplacer("$3", "$2", "$4", "$3").Replace(scopeSQL)
		params = func(q benchQuery) []any {
			return []any{pgvector.NewVector(q.vec), q.scope.Workspace, q.scope.Channel}
		}
	}
	sql := `WITH v AS MATERIALIZED (
		SELECT id, embedding <=> $1::vector AS dist FROM chunks WHERE ` + where + `
		ORDER BY embedding <=> $1::vector LIMIT ` + fmt.Sprint(benchK) + `
	) SELECT id FROM v ORDER BY dist, id`
	search := func(q benchQuery, settings string, args ...any) map[int64]bool {
		ids := map[int64]bool{}
		err := db.withTx(ctx, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, settings, args...); err != nil {
				return err
			}
			rows, err := tx.Query(ctx, sql, params(q)...)
			if err != nil {
				return err
			}
			for rows.Next() {
				var id int64
				if err := rows.Scan(&id); err != nil {
					return err
				}
				ids[id] = true
			}
			return rows.Err()
		})
		if err != nil {
			b.Fatal(err)
		}
		return ids
	}
	var sum float64
	for _, q := range queries {
		approx := search(q, searchSettings, fmt.Sprint(db.opts.EfSearch))
		exact := search(q, `SELECT set_config('enable_indexscan', 'off', true), set_config('enable_bitmapscan', 'off', true)`)
		found := 0
		for id := range exact {
			if approx[id] {
				found++
			}
		}
		sum += float64(found) / float64(len(exact))
	}
	return sum / float64(len(queries))
}
