package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/channels"
	"github.com/switchboard/switchboard/kb"
	"github.com/switchboard/switchboard/questions"
	"github.com/switchboard/switchboard/questions/questionstest"
	"github.com/switchboard/switchboard/retention"
)

// TestStore runs every check on stores that open returns, a new, empty
// one for each check, run in parallel.
func TestStore(t *testing.T, open func(t *testing.T) Store) {
	for _, c := range []struct {
		name string
		run  func(t *testing.T, s Store)
	}{
		{"UpsertDocumentIsIdempotent", testUpsertIdempotent},
		{"UpsertDocumentReplacesChunks", testUpsertReplaces},
		{"DeleteDocumentAndEmpty", testDeleteAndEmpty},
		{"DocumentsByPrefix", testDocumentsByPrefix},
		{"Titles", testTitles},
		{"UpsertDocumentRejects", testUpsertRejects},
		{"ConcurrentUse", testConcurrentUse},
		{"RetrieveSurvivesHostileQueries", testHostileQueries},
		{"HybridRetrievalRanksBestChunkFirst", testHybridRanking},
		{"FusionFavoursAgreement", testFusion},
		{"RetrieveRespectsScope", testScope},
		{"RetrieveRespectsChannelSources", testSources},
		{"RetrievePrefersTheChannelLookedAt", testPrefer},
		{"CheckpointerRoundTripAndPrune", testCheckpointer},
		{"CheckpointerUpdateKeepsTurnsStoredMeanwhile", testCheckpointerUpdate},
		{"RetentionPrunesThreadsOnSchedule", testRetention},
		{"CheckEmbedding", testCheckEmbedding},
		{"ChannelSettings", testChannels},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, open(t))
		})
	}
	t.Run("Questions", func(t *testing.T) {
		questionstest.Run(t, func(t *testing.T, now func() time.Time) questions.Store {
			s := open(t)
			*s.Now = now
			return s.Questions
		})
	})
}

// checkFullText checks that the store's separate full-text index, if it
// has one, holds a row for each of the want chunks.
func checkFullText(t *testing.T, s Store, want int) {
	t.Helper()
	if s.FullTextTable == "" {
		return
	}
	if n := rows(t, s, s.FullTextTable); n != want {
		t.Errorf("%s rows = %d, want %d", s.FullTextTable, n, want)
	}
}

// rows counts the rows of one of the store's tables.
func rows(t *testing.T, s Store, table string) int {
	t.Helper()
	n, err := s.Rows(table)
	if err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return n
}

func testUpsertIdempotent(t *testing.T, s Store) {
	ctx := context.Background()
	doc := s.BOW.Doc(t, "T1", "handbook.md", "Handbook", "first chunk", "second chunk", "third chunk")
	doc.Hash = "h1"

	for i, want := range []bool{true, false, false} {
		changed, err := s.Docs.UpsertDocument(ctx, doc)
		if err != nil {
			t.Fatal(err)
		}
		if changed != want {
			t.Errorf("upsert %d: changed = %v, want %v", i, changed, want)
		}
	}
	if n := MustCount(t, s.Docs.CountChunks); n != 3 {
		t.Errorf("chunks = %d, want 3", n)
	}
	if n := MustCount(t, s.Docs.CountDocuments); n != 1 {
		t.Errorf("documents = %d, want 1", n)
	}
	checkFullText(t, s, 3)
	hash, ok, err := s.Docs.DocumentHash(ctx, "T1", "handbook.md")
	if err != nil || !ok || hash != "h1" {
		t.Errorf("DocumentHash = %q, %v, %v", hash, ok, err)
	}
	if _, ok, _ := s.Docs.DocumentHash(ctx, "T2", "handbook.md"); ok {
		t.Error("DocumentHash found the document in another workspace")
	}

	// Without a hash, the content decides.
	doc.Hash = ""
	doc.Key = "nohash.md"
	for i, want := range []bool{true, false} {
		if changed, err := s.Docs.UpsertDocument(ctx, doc); err != nil || changed != want {
			t.Errorf("unhashed upsert %d: changed = %v, %v; want %v", i, changed, err, want)
		}
	}
}

func testUpsertReplaces(t *testing.T, s Store) {
	ctx := context.Background()
	r := s.Retriever(s.BOW)

	old := s.BOW.Doc(t, "", "policy.md", "Travel policy", "flights must be booked economy class",
		"hotels up to 150 euros", "taxis need a receipt")
	old.Hash = "v1"
	MustUpsert(t, s.Docs, old)

	updated := s.BOW.Doc(t, "", "policy.md", "Travel policy v2", "trains are preferred under 600 kilometres")
	updated.Hash = "v2"
	updated.Location = "files/policy-v2.md"
	changed, err := s.Docs.UpsertDocument(ctx, updated)
	if err != nil || !changed {
		t.Fatalf("upsert v2 = %v, %v", changed, err)
	}
	if n := MustCount(t, s.Docs.CountChunks); n != 1 {
		t.Errorf("chunks = %d, want 1", n)
	}
	if n := MustCount(t, s.Docs.CountDocuments); n != 1 {
		t.Errorf("documents = %d, want 1", n)
	}
	checkFullText(t, s, 1)
	got, err := r.Retrieve(ctx, Req("economy flights hotels taxis"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range got {
		if d.Content != "trains are preferred under 600 kilometres" {
			t.Errorf("old content still found: %q", d.Content)
		}
	}
	got, err = r.Retrieve(ctx, Req("trains"))
	if err != nil || len(got) != 1 || got[0].Title != "Travel policy v2" {
		t.Fatalf("retrieve trains = %+v, %v", got, err)
	}
	if got[0].ID != "policy.md#0" || got[0].Location != "files/policy-v2.md" || got[0].Metadata["author"] != "test" ||
		got[0].Metadata["key"] != "policy.md" || got[0].Metadata["chunk"] != "0" ||
		got[0].Key != "policy.md" || got[0].Chunk != 0 || got[0].Kind != agent.KindDocument {
		t.Errorf("document = %+v", got[0])
	}
	// The title is searchable, and the copy on the chunks follows the
	// document's.
	if got, err := r.Retrieve(ctx, Req("v2")); err != nil || len(got) != 1 {
		t.Errorf("retrieve by title = %+v, %v", got, err)
	}
}

func testDeleteAndEmpty(t *testing.T, s Store) {
	ctx := context.Background()
	if empty, err := s.Docs.Empty(ctx); err != nil || !empty {
		t.Fatalf("new store Empty = %v, %v", empty, err)
	}
	MustUpsert(t, s.Docs, s.BOW.Doc(t, "", "a.md", "A", "one", "two"), s.BOW.Doc(t, "T1", "a.md", "A", "three"))
	if empty, _ := s.Docs.Empty(ctx); empty {
		t.Error("Empty with a document")
	}
	if err := s.Docs.DeleteDocument(ctx, "", "a.md"); err != nil {
		t.Fatal(err)
	}
	if err := s.Docs.DeleteDocument(ctx, "", "a.md"); err != nil {
		t.Fatalf("deleting twice: %v", err)
	}
	if n := MustCount(t, s.Docs.CountChunks); n != 1 {
		t.Errorf("after delete: chunks %d, want the other workspace's 1", n)
	}
	checkFullText(t, s, 1)
	if err := s.Docs.DeleteDocument(ctx, "T1", "a.md"); err != nil {
		t.Fatal(err)
	}
	if n := MustCount(t, s.Docs.CountChunks); n != 0 {
		t.Errorf("after deleting both: chunks %d", n)
	}
	checkFullText(t, s, 0)
	if empty, _ := s.Docs.Empty(ctx); !empty {
		t.Error("not Empty after delete")
	}
}

// testDocumentsByPrefix checks that a prefix matches keys literally (its
// LIKE wildcards escaped, its case kept) in one workspace only.
func testDocumentsByPrefix(t *testing.T, s Store) {
	ctx := context.Background()
	keys := []string{"s:C1:file:M1:F1", "s:C1:file:M1:F2", "s:C1:file:M10:F1", "s:C1:file:m1:F3",
		"s:C1:fileXM1:F4", "s:C1:file:M_:F5", "s:C1:file:M%:F6", `s:C1:file:M\:F7`, "s:C1:thread:M1"}
	for _, k := range keys {
		MustUpsert(t, s.Docs, s.BOW.Doc(t, "W", k, k, "text of "+k))
	}
	MustUpsert(t, s.Docs, s.BOW.Doc(t, "W2", "s:C1:file:M1:F9", "other", "other workspace"))
	for _, c := range []struct {
		prefix string
		want   []string
	}{
		{"s:C1:file:M1:", []string{"s:C1:file:M1:F1", "s:C1:file:M1:F2"}},
		{"s:C1:file:M_:", []string{"s:C1:file:M_:F5"}},
		{"s:C1:file:M%:", []string{"s:C1:file:M%:F6"}},
		{`s:C1:file:M\:`, []string{`s:C1:file:M\:F7`}},
		{"s:C1:file:", []string{"s:C1:file:M%:F6", "s:C1:file:M1:F1", "s:C1:file:M1:F2", "s:C1:file:M10:F1",
			`s:C1:file:M\:F7`, "s:C1:file:M_:F5", "s:C1:file:m1:F3"}},
		{"s:C2:", nil},
	} {
		docs, err := s.Docs.DocumentsByPrefix(ctx, "W", c.prefix)
		if err != nil {
			t.Fatalf("DocumentsByPrefix(%q): %v", c.prefix, err)
		}
		var got []string
		for _, d := range docs {
			got = append(got, d.Key)
			if d.Location != "files/"+d.Key || d.Hash == "" {
				t.Errorf("DocumentsByPrefix(%q): %s has location %q, hash %q", c.prefix, d.Key, d.Location, d.Hash)
			}
		}
		slices.Sort(got)
		slices.Sort(c.want)
		if !slices.Equal(got, c.want) {
			t.Errorf("DocumentsByPrefix(%q) = %q, want %q", c.prefix, got, c.want)
		}
	}
}

// testTitles checks the titles offered as questions: those a workspace
// may see (its own and the shared files'), public only, each once, newest
// first.
func testTitles(t *testing.T, s Store) {
	ctx := context.Background()
	MustUpsert(t, s.Docs, s.BOW.Doc(t, "", "a.md", "Refund policy", "refunds"))
	MustUpsert(t, s.Docs, s.BOW.Doc(t, "W", "b.md", "Onboarding guide", "welcome"))
	MustUpsert(t, s.Docs, s.BOW.Doc(t, "W", "c.md", "Refund policy", "a copy"))
	MustUpsert(t, s.Docs, s.BOW.Doc(t, "W2", "d.md", "Another workspace's plan", "secret"))
	private := s.BOW.Doc(t, "W", "e.md", "Private channel notes", "secret")
	private.Channel, private.Private = "C9", true
	untitled := s.BOW.Doc(t, "W", "f.md", "", "no title")
	MustUpsert(t, s.Docs, private, untitled)
	got, err := s.Docs.Titles(ctx, "W", 5)
	slices.Sort(got)
	if want := []string{"Onboarding guide", "Refund policy"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("Titles(W, 5) = %q, %v; want %q", got, err, want)
	}
	if got, err := s.Docs.Titles(ctx, "W", 1); err != nil || len(got) != 1 {
		t.Errorf("Titles(W, 1) = %q, %v; want one", got, err)
	}
	if got, err := s.Docs.Titles(ctx, "W3", 5); err != nil || !slices.Equal(got, []string{"Refund policy"}) {
		t.Errorf("Titles(W3, 5) = %q, %v; want the shared file's", got, err)
	}
}

func testUpsertRejects(t *testing.T, s Store) {
	mixed := s.BOW.Doc(t, "", "m.md", "M", "a", "b")
	mixed.Chunks[1].Embedding = mixed.Chunks[1].Embedding[:3]
	for name, doc := range map[string]kb.Document{
		"no key":             {Title: "x"},
		"private no channel": {Key: "p", Private: true},
		"mixed dimensions":   mixed,
	} {
		if _, err := s.Docs.UpsertDocument(context.Background(), doc); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// Writers and readers at once must neither fail (SQLITE_BUSY, deadlocks)
// nor see a document half-written, whether the writers race on the same
// documents or each write their own.
func testConcurrentUse(t *testing.T, s Store) {
	for _, tc := range []struct {
		name   string
		key    func(w, i int) string
		chunks int
	}{
		{"shared keys", func(w, i int) string { return fmt.Sprintf("k-%d", (w+i)%5) }, 5 * 3},
		{"own keys", func(w, i int) string { return fmt.Sprintf("w%d-%d", w, i%5) }, 4 * 5 * 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			// The variants' keys differ: the second adds to the first's.
			before := MustCount(t, s.Docs.CountChunks)
			r := s.Retriever(s.BOW)
			errs := make(chan error, 256)
			var wg sync.WaitGroup
			for w := range 4 {
				wg.Go(func() {
					for i := range 15 {
						doc := s.BOW.Doc(t, "", tc.key(w, i), "Doc", "alpha beta", "gamma delta", fmt.Sprintf("round %d", i))
						if _, err := s.Docs.UpsertDocument(ctx, doc); err != nil {
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
			if n := MustCount(t, s.Docs.CountChunks) - before; n != tc.chunks {
				t.Errorf("chunks added = %d, want %d", n, tc.chunks)
			}
		})
	}
}

func testHostileQueries(t *testing.T, s Store) {
	MustUpsert(t, s.Docs, s.BOW.Doc(t, "", "a.md", "Café menu", "naïve coffee 東京 and tea, AND more"))
	r := s.Retriever(s.BOW)
	rnd := rand.New(rand.NewPCG(1, 2))
	var big strings.Builder
	for big.Len() < 10_000 {
		big.WriteRune(rune(rnd.IntN(0x3000)))
	}
	for _, q := range []string{
		// Operators of PostgreSQL's tsquery and SQLite's FTS5.
		`"`, `""`, `*`, `AND(`, `OR`, `NOT`, `NEAR(`, `!`, `&`, `|`, `<->`, `a & | b`, `a AND`,
		`coffee:*`, `coffee:A`, `title:coffee`, `-coffee`, `^coffee`, `coffee"`, `{coffee}`,
		`'`, `''`, `\`, `\\'`, `(((`, `'; DROP TABLE chunks; --`, "e\u0301\u0301", "\u0301",
		"🚀🔥", "naïve café 東京", "\x00\xff", "$1 $2", strings.Repeat(`"AND( `, 2000), big.String(), "   ",
		"the of and", // stop words only: nothing for either ranking
	} {
		if _, err := r.Retrieve(context.Background(), Req(q)); err != nil {
			t.Errorf("Retrieve(%.40q): %v", q, err)
		}
	}
	for _, q := range []string{`"café*" AND(`, `coffee:* & !tea`, `(naïve)|`, `'coffee'`, `東京?!`} {
		for _, emb := range []Embedder{nil, s.BOW} {
			got, err := s.Retriever(emb).Retrieve(context.Background(), Req(q))
			if err != nil || len(got) != 1 {
				t.Errorf("search for %q (embedder %v) found %d, %v; want the café chunk", q, emb != nil, len(got), err)
			}
		}
	}
}

func testHybridRanking(t *testing.T, s Store) {
	SeedCorpus(t, s.BOW, s.Docs, "")
	for _, tc := range []struct {
		name  string
		emb   Embedder
		query string
		want  string // heading of the first chunk
	}{
		{"hybrid", s.BOW, "How many days of paid vacation do employees get?", "Vacation"},
		{"hybrid", s.BOW, "hotel price limit per night", "Travel"},
		{"hybrid", s.BOW, "minimum password length", "Passwords"},
		{"hybrid", s.BOW, "Is a doctor's note needed when I'm sick?", "Sick leave"},
		{"keyword only", nil, "laptop disk encryption", "Laptops"},
		{"keyword only, stemmed", nil, "encrypted laptop", "Laptops"},
		{"embedder fails", s.BOW.Failing(), "meals receipts", "Meals"},
		{"query dimension differs", s.BOW.WithDim(8), "doctor note sick", "Sick leave"},
		{"vector only", s.BOW, "the a 25 paid", "Vacation"},
	} {
		t.Run(tc.name+"/"+tc.query, func(t *testing.T) {
			got, err := s.Retriever(tc.emb).Retrieve(context.Background(), agent.Request{Query: tc.query, Limit: 3})
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
	got, err := s.Retriever(nil).Retrieve(context.Background(), agent.Request{Question: "password manager"})
	if err != nil || len(got) == 0 || !strings.HasPrefix(got[0].Content, "Passwords") {
		t.Errorf("retrieve by question = %+v, %v", got, err)
	}
}

// A chunk found by both rankings beats chunks found by one.
func testFusion(t *testing.T, s Store) {
	vs, _ := s.BOW.Embed(context.Background(), []string{"banana", "mango", "papaya"})
	MustUpsert(t, s.Docs, kb.Document{Key: "fruit.md", Title: "Fruit", Chunks: []kb.Chunk{
		{Index: 0, Content: "kiwi", Embedding: vs[0]},                 // text only
		{Index: 1, Content: "tropical stone fruit", Embedding: vs[1]}, // vector only
		{Index: 2, Content: "papaya", Embedding: vs[2]},               // both
	}})
	got, err := s.Retriever(s.BOW).Retrieve(context.Background(), Req("kiwi mango papaya"))
	if err != nil || len(got) != 3 {
		t.Fatalf("retrieve = %+v, %v", got, err)
	}
	if got[0].Content != "papaya" || got[0].Score <= got[1].Score {
		t.Errorf("first = %q (%v, then %v), want papaya, found by both rankings", got[0].Content, got[0].Score, got[1].Score)
	}
}

// scopedDoc builds a document of one chunk, text, titled by its key, in a
// workspace and a channel, private or not.
func (s Store) scopedDoc(t *testing.T, text string) func(ws, key, channel string, private bool) kb.Document {
	return func(ws, key, channel string, private bool) kb.Document {
		d := s.BOW.Doc(t, ws, key, key, text)
		d.Channel, d.Private = channel, private
		return d
	}
}

// titlesSeen returns what r finds for text in scope, sorted by title.
func titlesSeen(t *testing.T, r agent.Retriever, text string, scope agent.Scope) []agent.Document {
	t.Helper()
	got, err := r.Retrieve(context.Background(), agent.Request{Query: text, Scope: scope, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, func(a, b agent.Document) int { return strings.Compare(a.Title, b.Title) })
	return got
}

// titles are the documents' titles.
func titles(docs []agent.Document) []string {
	var out []string
	for _, d := range docs {
		out = append(out, d.Title)
	}
	return out
}

func testScope(t *testing.T, s Store) {
	text := "quarterly roadmap planning notes"
	mk := s.scopedDoc(t, text)
	MustUpsert(t, s.Docs,
		mk("", "file", "", false),
		mk("T1", "t1-public", "C1", false),
		mk("T1", "t1-private-c1", "C1", true),
		mk("T1", "t1-private-c2", "C2", true),
		mk("T2", "t2-public", "D1", false),
		mk("T2", "t2-private", "D1", true),
	)
	for _, emb := range []Embedder{s.BOW, nil} {
		r := s.Retriever(emb)
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
			if keys := titles(titlesSeen(t, r, text, tc.scope)); fmt.Sprint(keys) != fmt.Sprint(tc.want) {
				t.Errorf("embedder %v, scope %+v sees %v, want %v", emb != nil, tc.scope, keys, tc.want)
			}
		}
	}
	// A private document moved to another channel follows it.
	moved := mk("T1", "t1-private-c1", "C9", true)
	moved.Hash = "moved"
	MustUpsert(t, s.Docs, moved)
	got, _ := s.Retriever(s.BOW).Retrieve(context.Background(),
		agent.Request{Query: text, Scope: agent.Scope{Workspace: "T1", Channel: "C1"}, Limit: 10})
	for _, d := range got {
		if d.Title == "t1-private-c1" {
			t.Error("a private document is still seen in the channel it left")
		}
	}
}

// testSources: two channels whose settings name different sources never
// see, so never cite, each other's documents; the graph and the web are
// names, not key prefixes; and the access rules still apply on top.
func testSources(t *testing.T, s Store) {
	text := "expense claims reimbursement deadline"
	mk := s.scopedDoc(t, text)
	MustUpsert(t, s.Docs,
		mk("", "handbook/docs/hr/leave.md", "", false),
		mk("", "handbook/docs/hr-archive/old.md", "", false),
		mk("", "handbook/docs/eng/oncall.md", "", false),
		mk("", "graph", "", false), // a file named like the graph is cited only by its whole key
		mk("T1", "slack:C42:thread:1712345678.000100", "C42", false),
		mk("T1", "slack:C43:day:2026-12-01", "C43", false),
		mk("T1", "slack:C44:day:2026-12-01", "C44", true),
	)
	hr := []string{"handbook/docs/hr/"}
	eng := []string{"handbook/docs/eng/", "slack:C42", "slack:C44", channels.SourceWeb}
	for _, emb := range []Embedder{s.BOW, nil} {
		r := s.Retriever(emb)
		for _, tc := range []struct {
			scope agent.Scope
			want  []string
		}{
			{agent.Scope{Workspace: "T1", Channel: "C1", Sources: hr}, []string{"handbook/docs/hr/leave.md"}},
			// C44 is private: its history is seen only in C44.
			{agent.Scope{Workspace: "T1", Channel: "C2", Sources: eng}, []string{"handbook/docs/eng/oncall.md", "slack:C42:thread:1712345678.000100"}},
			{agent.Scope{Workspace: "T1", Channel: "C44", Sources: eng}, []string{"handbook/docs/eng/oncall.md", "slack:C42:thread:1712345678.000100", "slack:C44:day:2026-12-01"}},
			{agent.Scope{Workspace: "T1", Channel: "C3", Sources: []string{channels.SourceGraph, channels.SourceWeb}}, []string{"graph"}},
			{agent.Scope{Workspace: "T1", Channel: "C3", Sources: []string{"handbook/docs/hr/leave.md"}}, []string{"handbook/docs/hr/leave.md"}},
			{agent.Scope{Workspace: "T2", Channel: "D1", Sources: []string{"slack:C42"}}, nil}, // T1's history stays T1's
		} {
			got := titlesSeen(t, r, text, tc.scope)
			for _, d := range got {
				if !tc.scope.Cites(d.Metadata["key"]) {
					t.Errorf("channel %s (sources %v) cites %s", tc.scope.Channel, tc.scope.Sources, d.Metadata["key"])
				}
			}
			if keys := titles(got); fmt.Sprint(keys) != fmt.Sprint(tc.want) {
				t.Errorf("embedder %v, scope %+v sees %v, want %v", emb != nil, tc.scope, keys, tc.want)
			}
		}
	}
}

// testPrefer checks agent.Scope.Prefer: the history of the channel the
// asker looks at comes before a file that matches the question better,
// with an embedder and without; other channels' does not.
func testPrefer(t *testing.T, s Store) {
	mk := func(key, channel, text string) kb.Document {
		d := s.BOW.Doc(t, "T1", key, key, text)
		d.Channel = channel
		return d
	}
	MustUpsert(t, s.Docs,
		mk("handbook", "", "refund window thirty days refund window"),
		mk("support", "C5", "someone asked about the refund window for annual plans"),
		mk("random", "C6", "lunch talk about the refund window for annual plans"),
	)
	const question = "refund window thirty days"
	for _, emb := range []Embedder{s.BOW, nil} {
		r := s.Retriever(emb)
		for _, tc := range []struct {
			prefer, first string
		}{{"", "handbook"}, {"C5", "support"}, {"C6", "random"}, {"C9", "handbook"}} {
			got, err := r.Retrieve(context.Background(), agent.Request{Query: question,
				Scope: agent.Scope{Workspace: "T1", Channel: tc.prefer, Prefer: tc.prefer}, Limit: 10})
			if err != nil || len(got) != 3 || got[0].Title != tc.first {
				var titles []string
				for _, d := range got {
					titles = append(titles, d.Title)
				}
				t.Errorf("embedder %v, prefer %q: %v, %v; want %s first of 3", emb != nil, tc.prefer, titles, err, tc.first)
			}
		}
	}
}

// A turn added by Update goes into the thread as stored when it is
// written: a turn another replica stored between the read and the write
// (a replica frozen past its claim stores its turn late) is kept, and the
// late turn takes its place by when it was asked.
func testCheckpointerUpdate(t *testing.T, s Store) {
	ctx := context.Background()
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	*s.Now = func() time.Time { return now }
	c := s.Checkpointer
	const id = "slack:T1:C1:777.000"
	turn := func(q string, asked int) func(*agent.Thread) {
		return func(th *agent.Thread) {
			th.Append(agent.Turn{Question: q, Answer: "answer to " + q, Route: agent.RouteDirect, At: now,
				Asked: now.Add(time.Duration(asked) * time.Second)})
		}
	}
	if err := c.Update(ctx, id, turn("q0", 0)); err != nil {
		t.Fatal(err)
	}
	reads := 0
	err := c.Update(ctx, id, func(th *agent.Thread) {
		if reads++; reads == 1 {
			// Another replica stores its turn between this read and
			// this write.
			if err := c.Update(ctx, id, turn("q2", 2)); err != nil {
				t.Fatal(err)
			}
		}
		turn("q1", 1)(th)
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Load(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, turn := range got.Turns {
		order = append(order, turn.Question)
	}
	if strings.Join(order, " ") != "q0 q1 q2" || reads != 2 {
		t.Errorf("thread %v after %d reads, want q0 q1 q2 after 2: the turn stored meanwhile kept", order, reads)
	}
	if err := c.Update(ctx, "", turn("q", 0)); err == nil {
		t.Error("updated a thread without an id")
	}
}

func testCheckpointer(t *testing.T, s Store) {
	ctx := context.Background()
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	*s.Now = func() time.Time { return now }
	c := s.Checkpointer
	const id = "slack:T1:C1:123.456"

	empty, err := c.Load(ctx, id)
	if err != nil || empty.ID != id || len(empty.Turns) != 0 {
		t.Fatalf("Load of an unknown thread = %+v, %v", empty, err)
	}

	th := agent.Thread{ID: id}
	src := []agent.Source{{N: 1, Title: "Refunds", Location: "docs/refund.md", Snippet: "30 days", Route: agent.RouteVector}}
	th.Append(agent.Turn{Question: "What is the refund policy?", Answer: "30 days [1].", Route: agent.RouteVector,
		Sources: src, At: now})
	if err := c.Save(ctx, th); err != nil {
		t.Fatal(err)
	}
	got, err := c.Load(ctx, th.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Turns) != 1 || got.Turns[0].Answer != "30 days [1]." || got.LastRoute != agent.RouteVector ||
		!got.Updated.Equal(now) || !reflect.DeepEqual(got.LastSources, src) {
		t.Errorf("round trip = %+v", got)
	}

	// Saving again replaces.
	th.Append(agent.Turn{Question: "and for annual plans?", Answer: "Pro rata.", Route: agent.RouteGraph,
		Sources: []agent.Source{{N: 1, Title: "Knowledge graph", Route: agent.RouteGraph}}, At: now})
	if err := c.Save(ctx, th); err != nil {
		t.Fatal(err)
	}
	got, err = c.Load(ctx, th.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Turns) != 2 || got.Turns[1].Question != "and for annual plans?" || got.LastRoute != agent.RouteGraph ||
		!got.Updated.Equal(now) || !reflect.DeepEqual(got.Turns[0].Sources, src) || got.Turns[0].Answer != "30 days [1]." ||
		len(got.LastSources) != 1 || got.LastSources[0].Title != "Knowledge graph" {
		t.Errorf("loaded %+v", got)
	}
	if err := c.Save(ctx, agent.Thread{}); err == nil {
		t.Error("saved a thread without an id")
	}

	// Only threads idle since before the cut-off go.
	now = now.Add(48 * time.Hour)
	if err := c.Save(ctx, agent.Thread{ID: "fresh"}); err != nil {
		t.Fatal(err)
	}
	n, err := c.Prune(ctx, now.Add(-24*time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("Prune = %d, %v; want 1", n, err)
	}
	if got, _ := c.Load(ctx, th.ID); len(got.Turns) != 0 {
		t.Error("the idle thread survived Prune")
	}
	if got, _ := c.Load(ctx, "fresh"); got.ID != "fresh" {
		t.Error("the fresh thread was lost")
	}
	if n := rows(t, s, "threads"); n != 1 {
		t.Errorf("%d threads stored, want 1", n)
	}
}

func testCheckEmbedding(t *testing.T, s Store) {
	ctx := context.Background()
	if err := s.CheckEmbedding(ctx, "bow", Dim); err != nil {
		t.Fatalf("empty store, same dimension: %v", err)
	}
	MustUpsert(t, s.Docs, s.BOW.Doc(t, "", "a.md", "A", "alpha beta"))
	if err := s.CheckEmbedding(ctx, "bow", Dim); err != nil {
		t.Fatalf("same embedder: %v", err)
	}
	for _, tc := range []struct {
		name string
		dim  int
	}{{"bow", 32}, {"text-embedding-3-small", Dim}} {
		err := s.CheckEmbedding(ctx, tc.name, tc.dim)
		if _, ok := s.AsMismatch(err); !ok {
			t.Fatalf("CheckEmbedding(%q, %d) = %v, want *EmbeddingMismatchError", tc.name, tc.dim, err)
		}
		msg := err.Error()
		for _, want := range []string{`"bow"`, strconv.Itoa(Dim), `"` + tc.name + `"`, " " + strconv.Itoa(tc.dim) + " "} {
			if !strings.Contains(msg, want) {
				t.Errorf("error %q does not mention %s", msg, want)
			}
		}
	}

	// Writing vectors of another dimension is refused too.
	short := s.BOW.Doc(t, "", "b.md", "B", "gamma")
	short.Chunks[0].Embedding = short.Chunks[0].Embedding[:32]
	_, err := s.Docs.UpsertDocument(ctx, short)
	if mm, ok := s.AsMismatch(err); !ok || mm.StoredDim != Dim || mm.Dim != 32 {
		t.Fatalf("upsert with 32 dims = %v, want mismatch %d vs 32", err, Dim)
	}

	// So is a second embedder of the same dimension.
	_, err = s.DocsAs(t, "other").UpsertDocument(ctx, s.BOW.Doc(t, "", "c.md", "C", "delta"))
	if mm, ok := s.AsMismatch(err); !ok || mm.StoredName != "bow" || mm.Name != "other" {
		t.Fatalf("upsert by another embedder = %v, want mismatch bow vs other", err)
	}
}

// testRetention runs the retention schedule over the store's threads, as
// `switchboard serve` does: a first run at once, then one per tick, each pruning
// the threads idle longer than they are kept, until the schedule stops.
func testRetention(t *testing.T, s Store) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	*s.Now = func() time.Time { return now }
	for _, id := range []string{"old", "recent"} {
		if err := s.Checkpointer.Save(ctx, agent.Thread{ID: id, Turns: []agent.Turn{{Question: "q", Answer: "a", At: now}}}); err != nil {
			t.Fatal(err)
		}
		now = now.Add(20 * 24 * time.Hour)
	}
	// now is 40 days after "old" was saved and 20 after "recent".
	tick, runs := make(chan time.Time), make(chan map[string]int)
	sched := retention.Schedule{
		Jobs: []retention.Job{{Name: "threads", Keep: 30 * 24 * time.Hour, From: s.Checkpointer}},
		Tick: tick, Now: func() time.Time { return now },
		Done: func(pruned map[string]int) { runs <- pruned },
	}
	stopped := make(chan struct{})
	go func() { defer close(stopped); sched.Run(ctx) }()

	if got := <-runs; got["threads"] != 1 {
		t.Errorf("first run pruned %v, want the one thread idle 40 days", got)
	}
	if th, _ := s.Checkpointer.Load(ctx, "recent"); len(th.Turns) != 1 {
		t.Error("the thread idle 20 days was pruned")
	}
	now = now.Add(15 * 24 * time.Hour) // "recent" is now idle 35 days
	tick <- now
	if got := <-runs; got["threads"] != 1 {
		t.Errorf("second run pruned %v, want the thread idle 35 days", got)
	}
	if th, _ := s.Checkpointer.Load(ctx, "recent"); len(th.Turns) != 0 {
		t.Error("the thread idle 35 days survived")
	}
	cancel()
	<-stopped // the schedule ends with its context
}
