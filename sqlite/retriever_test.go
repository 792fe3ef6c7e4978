package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/internal/storetest"
	"github.com/switchboard/switchboard/kb"
)

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

func TestFuseFavoursAgreement(t *testing.T) {
	got := fuse(3, nil, []int64{1, 2, 3}, []int64{3, 4, 5})
	if got[0].id != 3 {
		t.Errorf("fuse first = %d, want 3 (in both rankings)", got[0].id)
	}
	if len(got) != 3 {
		t.Errorf("fuse returned %d, want 3", len(got))
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
	emb := bow.WithDim(256)
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
	terms, err := r.selective(ctx, []string{"policy", "sabbaticals", "unknownword"}, nil)
	if err != nil || fmt.Sprint(terms) != "[sabbaticals unknownword]" {
		t.Errorf("selective = %v, %v", terms, err)
	}
	if terms, _ := r.selective(ctx, []string{"policy", "text"}, nil); len(terms) != 2 {
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

// A chunk's heading comes back as the section of the document it is from.
func TestRetrieveCarriesTheSection(t *testing.T) {
	db := openTest(t)
	storetest.SeedCorpus(t, bow, NewDocumentStore(db, "bow"), "")
	got, err := NewRetriever(db, nil).Retrieve(context.Background(), reqFor("doctor's note sick days"))
	if err != nil || len(got) == 0 {
		t.Fatalf("retrieve = %+v, %v", got, err)
	}
	if got[0].Title != "Leave policy" || got[0].Section != "Sick leave" {
		t.Errorf("best = %q, section %q; want Leave policy, Sick leave", got[0].Title, got[0].Section)
	}
}
