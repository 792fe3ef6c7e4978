package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/switchboard/switchboard/agent"
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

func TestRetrieveSurvivesHostileQueries(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	mustUpsert(t, NewDocumentStore(db), testDoc(t, "", "a.md", "Café menu", "naïve coffee 東京 and tea, AND more"))
	r := NewRetriever(db, bowEmbedder{})
	rnd := rand.New(rand.NewPCG(1, 2))
	var big strings.Builder
	for big.Len() < 10_000 {
		big.WriteRune(rune(rnd.IntN(0x3000)))
	}
	for _, q := range []string{
		`"`, `""`, `*`, `AND(`, `OR`, `NOT`, `!`, `&`, `|`, `<->`, `a & | b`, `coffee:*`, `coffee:A`,
		`'`, `''`, `\`, `\\'`, `-coffee`, `(((`, `'; DROP TABLE chunks; --`, "e\u0301\u0301", "\u0301",
		"🚀🔥", "naïve café 東京", "\x00\xff", "$1 $2", strings.Repeat(`"AND( `, 2000), big.String(), "   ",
		"the of and", // stop words only: nothing for either ranking
	} {
		if _, err := r.Retrieve(context.Background(), reqFor(q)); err != nil {
			t.Errorf("Retrieve(%.40q): %v", q, err)
		}
	}
	for _, q := range []string{`"café*" AND(`, `coffee:* & !tea`, `(naïve)|`, `'coffee'`, `東京?!`} {
		got, err := NewRetriever(db, nil).Retrieve(context.Background(), reqFor(q))
		if err != nil || len(got) != 1 {
			t.Errorf("keyword search for %q found %d, %v; want the café chunk", q, len(got), err)
		}
	}
}

var corpus = []kb.Document{
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

// seedCorpus stores corpus (in workspace ws) with bag-of-words vectors.
func seedCorpus(t testing.TB, s *DocumentStore, ws string) {
	t.Helper()
	for _, d := range corpus {
		texts := make([]string, len(d.Chunks))
		for i, c := range d.Chunks {
			texts[i] = c.Heading + " " + c.Content
		}
		doc := testDoc(t, ws, d.Key, d.Title, texts...)
		for i := range doc.Chunks {
			doc.Chunks[i].Heading = d.Chunks[i].Heading
			doc.Chunks[i].Content = d.Chunks[i].Content
		}
		mustUpsert(t, s, doc)
	}
}

func TestHybridRetrievalRanksBestChunkFirst(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	seedCorpus(t, NewDocumentStore(db), "")
	for _, tc := range []struct {
		name  string
		emb   Embedder
		query string
		want  string // heading of the first chunk
	}{
		{"hybrid", bowEmbedder{}, "How many days of paid vacation do employees get?", "Vacation"},
		{"hybrid", bowEmbedder{}, "hotel price limit per night", "Travel"},
		{"hybrid", bowEmbedder{}, "minimum password length", "Passwords"},
		{"hybrid", bowEmbedder{}, "Is a doctor's note needed when I'm sick?", "Sick leave"},
		{"keyword only", nil, "laptop disk encryption", "Laptops"},
		{"embedder fails", bowEmbedder{err: errEmbed}, "meals receipts", "Meals"},
		{"query dimension differs", bowEmbedder{dim: 8}, "doctor note sick", "Sick leave"},
		{"vector only", bowEmbedder{}, "the a 25 paid", "Vacation"},
	} {
		t.Run(tc.name+"/"+tc.query, func(t *testing.T) {
			got, err := NewRetriever(db, tc.emb).Retrieve(context.Background(), agent.Request{Query: tc.query, Limit: 3})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 || len(got) > 3 {
				t.Fatalf("got %d documents, want 1..3", len(got))
			}
			if !strings.HasPrefix(got[0].Content, tc.want+"\n\n") {
				t.Errorf("first = %q, want the %q chunk", got[0].Content, tc.want)
			}
			if got[0].Route != agent.RouteVector || got[0].Score <= 0 {
				t.Errorf("route %q score %v", got[0].Route, got[0].Score)
			}
			for i := 1; i < len(got); i++ {
				if got[i].Score > got[i-1].Score {
					t.Errorf("scores not descending: %v then %v", got[i-1].Score, got[i].Score)
				}
			}
		})
	}
	// The question is the fallback query.
	got, err := NewRetriever(db, nil).Retrieve(context.Background(), agent.Request{Question: "password manager"})
	if err != nil || len(got) == 0 || !strings.HasPrefix(got[0].Content, "Passwords") {
		t.Errorf("retrieve by question = %+v, %v", got, err)
	}
}

// A chunk found by both rankings beats chunks found by one.
func TestFusionFavoursAgreement(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	emb := bowEmbedder{}
	vs, _ := emb.Embed(context.Background(), []string{"banana", "mango", "papaya"})
	mustUpsert(t, NewDocumentStore(db), kb.Document{Key: "fruit.md", Title: "Fruit", Chunks: []kb.Chunk{
		{Index: 0, Content: "kiwi", Embedding: vs[0]},                 // text only
		{Index: 1, Content: "tropical stone fruit", Embedding: vs[1]}, // vector only
		{Index: 2, Content: "papaya", Embedding: vs[2]},               // both
	}})
	got, err := NewRetriever(db, emb).Retrieve(context.Background(), reqFor("kiwi mango papaya"))
	if err != nil || len(got) != 3 {
		t.Fatalf("retrieve = %+v, %v", got, err)
	}
	if got[0].Content != "papaya" || got[0].Score <= got[1].Score {
		t.Errorf("first = %q (%v, then %v), want papaya, found by both rankings", got[0].Content, got[0].Score, got[1].Score)
	}
}

func TestRetrieveRespectsScope(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	s := NewDocumentStore(db)
	text := "quarterly roadmap planning notes"
	mk := func(ws, key, channel string, private bool) kb.Document {
		d := testDoc(t, ws, key, key, text)
		d.Channel, d.Private = channel, private
		return d
	}
	mustUpsert(t, s,
		mk("", "file", "", false),
		mk("T1", "t1-public", "C1", false),
		mk("T1", "t1-private-c1", "C1", true),
		mk("T1", "t1-private-c2", "C2", true),
		mk("T2", "t2-public", "D1", false),
		mk("T2", "t2-private", "D1", true),
	)
	for _, emb := range []Embedder{bowEmbedder{}, nil} {
		r := NewRetriever(db, emb)
		for _, tc := range []struct {
			scope agent.Scope
			want  []string
		}{
			{agent.Scope{Workspace: "T1", Channel: "C1"}, []string{"file", "t1-private-c1", "t1-public"}},
			{agent.Scope{Workspace: "T1", Channel: "C3"}, []string{"file", "t1-public"}},
			{agent.Scope{Workspace: "T1"}, []string{"file", "t1-public"}},
			{agent.Scope{Workspace: "T2", Channel: "D1"}, []string{"file", "t2-private", "t2-public"}},
			{agent.Scope{Workspace: "T2", Channel: "C1"}, []string{"file", "t2-public"}}, // C1 is T1's
			{agent.Scope{Workspace: "T3", Channel: "C1"}, []string{"file"}},
			{agent.Scope{}, []string{"file"}},
		} {
			got, err := r.Retrieve(context.Background(), agent.Request{Query: text, Scope: tc.scope, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, d := range got {
				keys = append(keys, d.Title)
			}
			slices.Sort(keys)
			if fmt.Sprint(keys) != fmt.Sprint(tc.want) {
				t.Errorf("embedder %v, scope %+v sees %v, want %v", emb != nil, tc.scope, keys, tc.want)
			}
		}
	}
	// A private document moved to another channel follows it.
	moved := mk("T1", "t1-private-c1", "C9", true)
	moved.Hash = "moved"
	mustUpsert(t, s, moved)
	got, _ := NewRetriever(db, bowEmbedder{}).Retrieve(context.Background(),
		agent.Request{Query: text, Scope: agent.Scope{Workspace: "T1", Channel: "C1"}, Limit: 10})
	for _, d := range got {
		if d.Title == "t1-private-c1" {
			t.Error("a private document is still seen in the channel it left")
		}
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
	pool := max(4*limit, minPool)

	// The query plan scans the HNSW index; otherwise this test proves nothing.
	var plan strings.Builder
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `EXPLAIN `+hybridSQL, pgvector.NewVector(q), nil, scope.Workspace, scope.Channel, pool, limit)
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
	seedCorpus(t, NewDocumentStore(db), "")
	r := NewRetriever(db, bowEmbedder{err: errEmbed})
	got, err := r.Retrieve(context.Background(), reqFor("password manager"))
	if err != nil || len(got) == 0 {
		t.Fatalf("retrieve = %v, %v", got, err)
	}
	if !strings.Contains(logged.String(), "keyword search only") || !strings.Contains(logged.String(), errEmbed.Error()) {
		t.Errorf("log = %q", logged.String())
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewRetriever(db, bowEmbedder{}).Retrieve(ctx, reqFor("password manager")); err == nil {
		t.Error("retrieve with an ended context succeeded")
	}
	// A statement failing inside the batch leaves its transaction aborted;
	// that connection must not serve the next query.
	bad := pgvector.NewVector([]float32{1, 2, 3})
	if _, err := r.search(context.Background(), bad, nil, agent.Scope{}, minPool, defaultLimit); err == nil {
		t.Fatal("a search with a 3-dimensional vector succeeded")
	}
	for range 2 * DefaultMaxConns {
		if got, err := NewRetriever(db, bowEmbedder{}).Retrieve(context.Background(), reqFor("password manager")); err != nil || len(got) == 0 {
			t.Fatalf("retrieve after a failure = %v, %v", got, err)
		}
	}
}
