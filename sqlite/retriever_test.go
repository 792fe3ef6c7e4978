package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/kb"
)

func reqFor(q string) agent.Request {
	return agent.Request{Query: q, Question: q}
}

func TestMatchExpr(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"What is the refund policy?", `"refund" OR "policy"`},
		{`"quoted" AND( title:x* NEAR(a b)`, `"quoted" OR "title" OR "x" OR "near" OR "b"`},
		{"the of and the", `"the" OR "of" OR "and"`},
		{"*** ()", ""},
		{"Café naïve 東京", `"café" OR "naïve" OR "東京"`},
	} {
		if got := matchExpr(ftsTerms(tc.in)); got != tc.want {
			t.Errorf("matchExpr(ftsTerms(%q)) = %s, want %s", tc.in, got, tc.want)
		}
	}
	if n := len(ftsTerms(strings.Repeat("word ", 10) + strings.Repeat("x1 x2 x3 x4 x5 x6 x7 x8 x9 ", 10))); n != 10 {
		t.Errorf("%d distinct terms, want 10", n)
	}
}

func TestRetrieveSurvivesHostileQueries(t *testing.T) {
	db := openTest(t)
	mustUpsert(t, NewDocumentStore(db, "bow"),
		testDoc(t, "", "a.md", "Café menu", "naïve coffee 東京 and tea, AND more"))
	r := NewRetriever(db, bowEmbedder{})
	rnd := rand.New(rand.NewPCG(1, 2))
	var big strings.Builder
	for big.Len() < 10_000 {
		big.WriteRune(rune(rnd.IntN(0x3000)))
	}
	for _, q := range []string{
		`"`, `""`, `*`, `AND(`, `OR`, `NOT`, `NEAR(`, `a AND`, `title:coffee`, `-coffee`, `^coffee`,
		`coffee"`, `{coffee}`, `(((`, `'; DROP TABLE chunks; --`, "e\u0301\u0301", "\u0301",
		"🚀🔥", "naïve café 東京", "\x00\xff", strings.Repeat(`"AND( `, 2000), big.String(), "   ",
	} {
		if _, err := r.Retrieve(context.Background(), reqFor(q)); err != nil {
			t.Errorf("Retrieve(%.40q): %v", q, err)
		}
	}
	got, err := r.Retrieve(context.Background(), reqFor(`"café*" AND(`))
	if err != nil || len(got) != 1 {
		t.Errorf("punctuated query found %d, %v; want the café chunk", len(got), err)
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
	db := openTest(t)
	seedCorpus(t, NewDocumentStore(db, "bow"), "")
	for _, tc := range []struct {
		name  string
		emb   Embedder
		query string
		want  string // heading of the first chunk
	}{
		{"hybrid", bowEmbedder{}, "How many days of paid vacation do employees get?", "Vacation"},
		{"hybrid", bowEmbedder{}, "hotel price limit per night", "Travel"},
		{"hybrid", bowEmbedder{}, "minimum password length", "Passwords"},
		{"keyword only", nil, "laptop disk encryption", "Laptops"},
		{"keyword only, stemmed", nil, "encrypted laptop", "Laptops"},
		{"embedder fails", bowEmbedder{err: errEmbed}, "meals receipts", "Meals"},
		{"query dimension differs", bowEmbedder{dim: 8}, "doctor note sick", "Sick leave"},
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
}

func TestFuseFavoursAgreement(t *testing.T) {
	got := fuse(3, []int64{1, 2, 3}, []int64{3, 4, 5})
	if got[0].id != 3 {
		t.Errorf("fuse first = %d, want 3 (in both rankings)", got[0].id)
	}
	if len(got) != 3 {
		t.Errorf("fuse returned %d, want 3", len(got))
	}
}

func TestRetrieveRespectsScope(t *testing.T) {
	db := openTest(t)
	s := NewDocumentStore(db, "bow")
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
	r := NewRetriever(db, bowEmbedder{})
	for _, tc := range []struct {
		scope agent.Scope
		want  []string
	}{
		{agent.Scope{Workspace: "T1", Channel: "C1"}, []string{"file", "t1-private-c1", "t1-public"}},
		{agent.Scope{Workspace: "T1", Channel: "C3"}, []string{"file", "t1-public"}},
		{agent.Scope{Workspace: "T1"}, []string{"file", "t1-public"}},
		{agent.Scope{Workspace: "T2", Channel: "D1"}, []string{"file", "t2-private", "t2-public"}},
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
			t.Errorf("scope %+v sees %v, want %v", tc.scope, keys, tc.want)
		}
	}
}

// BenchmarkRetrieve measures a hybrid retrieval over 5,000 chunks of 60
// words with 256-dimensional vectors: the FTS query, the vector scan of
// every chunk and RRF. Words are drawn from a Zipf distribution over a
// 3,000-word vocabulary, so that, as in prose, a few words are everywhere
// and most are rare.
func BenchmarkRetrieve(b *testing.B) {
	ctx := context.Background()
	db := openTest(b)
	s := NewDocumentStore(db, "bow")
	emb := bowEmbedder{dim: 256}
	rnd := rand.New(rand.NewPCG(7, 7))
	zipf := rand.NewZipf(rnd, 1.1, 2, 2999)
	word := func(i uint64) string { return fmt.Sprintf("w%dx", i) }
	const docs, perDoc = 500, 10
	for d := range docs {
		texts := make([]string, perDoc)
		for c := range texts {
			ws := make([]string, 60)
			for i := range ws {
				ws[i] = word(zipf.Uint64())
			}
			texts[c] = strings.Join(ws, " ")
		}
		vs, _ := emb.Embed(ctx, texts)
		doc := kb.Document{Key: fmt.Sprintf("doc-%d", d), Title: fmt.Sprintf("Document %d", d)}
		for c, t := range texts {
			doc.Chunks = append(doc.Chunks, kb.Chunk{Index: c, Content: t, Embedding: vs[c]})
		}
		mustUpsert(b, s, doc)
	}
	if n := mustCount(b, s.CountChunks); n != docs*perDoc {
		b.Fatalf("chunks = %d", n)
	}
	if err := db.Optimize(ctx); err != nil {
		b.Fatal(err)
	}
	r := NewRetriever(db, emb)
	// A common word, two middling ones and a rare one.
	req := agent.Request{Query: "w1x w20x w75x w900x?", Limit: 6}
	b.ResetTimer()
	for b.Loop() {
		got, err := r.Retrieve(ctx, req)
		if err != nil || len(got) != 6 {
			b.Fatalf("retrieve = %d, %v", len(got), err)
		}
	}
}

func TestCommonTermsAreDropped(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	s := NewDocumentStore(db, "bow")
	for i := range minCommonCheck {
		mustUpsert(t, s, testDoc(t, "", fmt.Sprintf("d%d", i), "Doc", fmt.Sprintf("policy text number %d", i)))
	}
	mustUpsert(t, s, testDoc(t, "", "rare", "Rare", "policy on sabbaticals"))
	r := NewRetriever(db, nil)
	terms, err := r.selective(ctx, []string{"policy", "sabbaticals", "unknownword"})
	if err != nil || fmt.Sprint(terms) != "[sabbaticals unknownword]" {
		t.Errorf("selective = %v, %v", terms, err)
	}
	if terms, _ := r.selective(ctx, []string{"policy", "text"}); len(terms) != 2 {
		t.Errorf("all-common terms were dropped: %v", terms)
	}
	got, err := r.Retrieve(ctx, reqFor("sabbaticals policy"))
	if err != nil || len(got) != 1 || got[0].Title != "Rare" {
		t.Errorf("retrieve = %+v, %v", got, err)
	}
	if got, _ := r.Retrieve(ctx, agent.Request{Query: "policy", Limit: 3}); len(got) != 3 {
		t.Errorf("common term alone found %d, want 3", len(got))
	}
}

// Writers and readers at once must neither fail with SQLITE_BUSY nor see
// a document half-written.
func TestConcurrentUse(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	s := NewDocumentStore(db, "bow")
	r := NewRetriever(db, bowEmbedder{})
	errs := make(chan error, 64)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 15 {
				doc := testDoc(t, "", fmt.Sprintf("w%d-%d", w, i%5), "Doc", "alpha beta", "gamma delta", fmt.Sprintf("round %d", i))
				if _, err := s.UpsertDocument(ctx, doc); err != nil {
					errs <- err
				}
			}
		})
		wg.Go(func() {
			for range 15 {
				docs, err := r.Retrieve(ctx, agent.Request{Query: "alpha gamma", Limit: 100})
				if err != nil {
					errs <- err
				}
				if len(docs)%2 != 0 {
					errs <- fmt.Errorf("saw %d chunks: a document half-written", len(docs))
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := mustCount(t, s.CountChunks); n != 4*5*3 {
		t.Errorf("chunks = %d, want %d", n, 4*5*3)
	}
}
