package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/internal/retrieval"
	"github.com/switchboard/switchboard/internal/storetest"
	"github.com/switchboard/switchboard/internal/testenv"
	"github.com/switchboard/switchboard/kb"
)

func TestQueryWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"What is the refund policy? the REFUND", "what is the refund policy"},
		{`"quoted" AND( title:x* <-> !no & | 'a' \`, "quoted and title x no a"},
		{"*** () :* !", ""},
		{"Café naïve 東京", "café naïve 東京"},
	} {
		if got := queryWords(tc.in); got != tc.want {
			t.Errorf("queryWords(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	var many strings.Builder
	for i := range 100 {
		fmt.Fprintf(&many, "w%d w%d ", i, i)
	}
	if n := len(strings.Fields(queryWords(many.String()))); n != maxQueryTerms {
		t.Errorf("%d words, want %d", n, maxQueryTerms)
	}
}

// fixedEmbedder embeds every text as the same vector.
type fixedEmbedder []float32

func (f fixedEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = f
	}
	return out, nil
}

// near returns a unit-ish vector close to axis 0, noise away from it.
func near(rnd *rand.Rand, noise float32) []float32 {
	v := make([]float32, testDim)
	v[0] = 1
	for i := range v {
		v[i] += noise * float32(rnd.NormFloat64())
	}
	return v
}

// A scope that excludes every nearest neighbour must not starve the
// vector ranking: the HNSW scan goes on (iterative scan) until enough
// chunks in scope are found. A plain scan returns only ef_search
// candidates, all out of scope.
func TestVectorSearchIsNotStarvedByScope(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// At this size a sequential scan is cheaper, and the planner would
	// rightly choose one; the index path is what a large store takes, and
	// what this test is about.
	db := openURL(t, testenv.PostgresURL(t)+"&enable_seqscan=off", Options{EmbeddingDim: testDim, Embedder: "bow"}, true)
	s := NewDocumentStore(db)
	rnd := rand.New(rand.NewPCG(3, 4))
	var docs []kb.Document
	add := func(ws string, n int, noise float32) {
		for i := range n {
			d := kb.Document{Workspace: ws, Key: fmt.Sprintf("%s-%d", ws, i), Title: "Note"}
			d.Chunks = []kb.Chunk{{Content: "lorem ipsum", Embedding: near(rnd, noise)}}
			docs = append(docs, d)
		}
	}
	add("big", 1000, 0.05) // the nearest neighbours, out of scope
	add("small", 30, 0.2)  // in scope, further away
	if _, err := s.UpsertDocuments(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if _, err := db.pool.Exec(ctx, `ANALYZE chunks`); err != nil {
		t.Fatal(err)
	}
	q := make([]float32, testDim)
	q[0] = 1
	scope := agent.Scope{Workspace: "small"}
	const limit = 10
	pool := max(4*limit, retrieval.MinPool)

	// The query plan scans the HNSW index; otherwise this test proves nothing.
	var plan strings.Builder
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		return explain(ctx, tx, &plan, `EXPLAIN `+hybridSQL, pgvector.NewVector(q), nil, scope.Workspace, scope.Channel, pool, limit, "")
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan.String(), "chunks_embedding") {
		t.Fatalf("the vector search does not use the HNSW index:\n%s", plan.String())
	}

	// Without iterative scan the filter starves the ranking.
	var plain int
	err = pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL hnsw.iterative_scan = off; SET LOCAL hnsw.ef_search = 100`); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT count(*) FROM (SELECT id FROM chunks WHERE `+
			strings.NewReplacer("$3", "'small'", "$4", "''").Replace(scopeSQL)+
			` ORDER BY embedding <=> $1 LIMIT 40) x`, pgvector.NewVector(q)).Scan(&plain)
	})
	if err != nil {
		t.Fatal(err)
	}
	if plain >= limit {
		t.Fatalf("a plain HNSW scan found %d in scope: the setup does not starve it", plain)
	}

	got, err := NewRetriever(db, fixedEmbedder(q)).Retrieve(ctx, agent.Request{Query: "zzz", Scope: scope, Limit: limit})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != limit {
		t.Fatalf("retrieved %d, want %d (a plain scan finds %d)", len(got), limit, plain)
	}
	for _, d := range got {
		if !strings.HasPrefix(d.ID, "small/") {
			t.Errorf("out of scope: %s", d.ID)
		}
	}
}

// Words in most chunks are left out of the full-text ranking once the
// table's statistics know them, unless nothing else is left.
func TestCommonWordsAreDropped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openTest(t)
	s := NewDocumentStore(db)
	var docs []kb.Document
	for i := range 300 {
		docs = append(docs, testDoc(t, "", fmt.Sprintf("d%d", i), "Doc", fmt.Sprintf("policy policy policy text number %d", i)))
	}
	docs = append(docs, testDoc(t, "", "rare", "Rare", "policy on sabbaticals"))
	if _, err := s.UpsertDocuments(ctx, docs); err != nil {
		t.Fatal(err)
	}
	r := NewRetriever(db, nil)
	// Before ANALYZE every word counts: the chunks that repeat "policy"
	// outrank the one about sabbaticals.
	got, err := r.Retrieve(ctx, agent.Request{Query: "sabbaticals policy", Limit: 3})
	if err != nil || len(got) != 3 {
		t.Fatalf("retrieve before ANALYZE = %+v, %v", got, err)
	}
	if _, err := db.pool.Exec(ctx, `ANALYZE chunks`); err != nil {
		t.Fatal(err)
	}
	got, err = r.Retrieve(ctx, agent.Request{Query: "sabbaticals policy", Limit: 3})
	if err != nil || len(got) != 1 || got[0].Title != "Rare" {
		t.Errorf("retrieve = %+v, %v; want only the rare chunk", got, err)
	}
	if got, _ := r.Retrieve(ctx, agent.Request{Query: "policy", Limit: 3}); len(got) != 3 {
		t.Errorf("a common word alone found %d, want 3", len(got))
	}
}

// A failed embedding is logged and the keyword ranking answers; a failed
// query leaves the pool usable.
func TestRetrieveDegradesAndRecovers(t *testing.T) {
	t.Parallel()
	var logged strings.Builder
	db := openURL(t, testenv.PostgresURL(t), Options{EmbeddingDim: testDim, Embedder: "bow",
		Logger: slog.New(slog.NewTextHandler(&logged, nil))}, true)
	storetest.SeedCorpus(t, bow, NewDocumentStore(db), "")
	r := NewRetriever(db, bow.Failing())
	got, err := r.Retrieve(context.Background(), reqFor("password manager"))
	if err != nil || len(got) == 0 {
		t.Fatalf("retrieve = %v, %v", got, err)
	}
	if !strings.Contains(logged.String(), "keyword search only") || !strings.Contains(logged.String(), storetest.ErrEmbed.Error()) {
		t.Errorf("log = %q", logged.String())
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewRetriever(db, bow).Retrieve(ctx, reqFor("password manager")); err == nil {
		t.Error("retrieve with an ended context succeeded")
	}
	// A statement failing inside the batch leaves its transaction aborted;
	// that connection must not serve the next query.
	bad := pgvector.NewVector([]float32{1, 2, 3})
	if _, err := r.search(context.Background(), bad, nil, agent.Scope{}, retrieval.MinPool, retrieval.DefaultLimit); err == nil {
		t.Fatal("a search with a 3-dimensional vector succeeded")
	}
	for range 2 * DefaultMaxConns {
		if got, err := NewRetriever(db, bow).Retrieve(context.Background(), reqFor("password manager")); err != nil || len(got) == 0 {
			t.Fatalf("retrieve after a failure = %v, %v", got, err)
		}
	}
}

// A chunk's heading comes back as the section of the document it is from.
func TestRetrieveCarriesTheSection(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	storetest.SeedCorpus(t, bow, NewDocumentStore(db), "")
	got, err := NewRetriever(db, nil).Retrieve(context.Background(), reqFor("doctor's note sick days"))
	if err != nil || len(got) == 0 {
		t.Fatalf("retrieve = %+v, %v", got, err)
	}
	if got[0].Title != "Leave policy" || got[0].Section != "Sick leave" {
		t.Errorf("best = %q, section %q; want Leave policy, Sick leave", got[0].Title, got[0].Section)
	}
}

// The full-text ranking prefers a chunk with more of the question's words
// to one that repeats a single word (ts_rank; ts_rank_cd scores an OR
// query by counting occurrences and would put the repeater first).
func TestTextRankingPrefersMoreOfTheWords(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	mustUpsert(t, NewDocumentStore(db),
		testDoc(t, "", "repeats", "Note", "sabbatical sabbatical sabbatical sabbatical sabbatical"),
		testDoc(t, "", "both", "Note", "sabbatical leave"))
	got, err := NewRetriever(db, nil).Retrieve(context.Background(), agent.Request{Query: "sabbatical leave", Limit: 2})
	if err != nil || len(got) != 2 {
		t.Fatalf("retrieve = %+v, %v", got, err)
	}
	if got[0].ID != "both#0" {
		t.Errorf("best = %s, want both#0", got[0].ID)
	}
}

// The text ranking reads its matches through chunks_tsv with the scope's
// workspace test in the index condition (migration 007), so that matches
// in other workspaces are not fetched from the table to be filtered out.
// hybridSQL must say it in the form the index holds.
func TestTextSearchIndexHoldsTheWorkspace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// A small table is cheaper to scan; the index path is what a large
	// store takes.
	db := openURL(t, testenv.PostgresURL(t)+"&enable_seqscan=off", Options{EmbeddingDim: testDim, Embedder: "bow"}, true)
	for _, ws := range []string{"", "T1", "T2"} {
		storetest.SeedCorpus(t, bow, NewDocumentStore(db), ws)
	}
	if _, err := db.pool.Exec(ctx, `ANALYZE chunks`); err != nil {
		t.Fatal(err)
	}
	var plan strings.Builder
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		return explain(ctx, tx, &plan, `EXPLAIN `+hybridSQL, nil, "password manager", "T1", "", retrieval.MinPool, retrieval.DefaultLimit, "")
	})
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`Index Cond: .*tsv @@ .*ARRAY\[workspace\] &&`).MatchString(plan.String()) {
		t.Fatalf("the text search does not look the workspace up in chunks_tsv:\n%s", plan.String())
	}
}
