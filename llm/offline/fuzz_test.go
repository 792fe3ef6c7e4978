package offline

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
)

// The offline engine runs on whatever users type and stores return, and it
// is the fallback when everything else has failed: it must never panic.

func FuzzBrain(f *testing.F) {
	f.Add("What is 15% of 340?", "Refunds take 30 days. [1] Acme -[SUPPLIES]-> Globex", "and for EU customers?")
	f.Add("Which suppliers are connected to our top 3 customers?", "- a\n# h\n1. b", "it")
	f.Add("", "", "")
	f.Add("[1][2][", "e.g. U.S. 1,000,000.5.", "What about Globex?")
	// Letters whose lowercase has another length in bytes (İ, the Kelvin sign).
	f.Add("Who supplies İİİ for İstanbul?", "İ -[SUPPLIES]-> \u212a", "and for \u212aelvin?")
	f.Add("someone said 'canary' in the war room, what's that mean?", "* **Canary** - \"A small first deploy\"\n* **Rollback** - x", "and ''?")
	f.Fuzz(func(t *testing.T, question, content, followUp string) {
		ctx := context.Background()
		b := testBrain()
		docs := []agent.Document{
			{Title: question, Content: content, Route: agent.RouteVector},
			{Title: "graph", Content: content, Route: agent.RouteGraph},
		}
		history := []agent.Turn{{Question: question, Answer: content}}

		if _, err := b.Condense(ctx, history, followUp); err != nil {
			t.Fatal(err)
		}
		d, err := b.Route(ctx, question)
		if err != nil || !d.Route.Valid() || d.Reason == "" {
			t.Fatalf("Route(%q) = %+v, %v", question, d, err)
		}
		for _, doc := range docs {
			if _, err := b.Grade(ctx, question, doc); err != nil {
				t.Fatal(err)
			}
		}
		tried := []agent.Tried{{Query: followUp, Route: agent.RouteVector}}
		for attempt := 0; attempt <= 4; attempt++ {
			rw, err := b.Rewrite(ctx, agent.RewriteRequest{Question: question, Route: agent.RouteVector, Tried: tried,
				Routes: []agent.Route{agent.RouteVector, agent.RouteGraph}, Attempt: attempt, Max: 4})
			if err != nil || strings.TrimSpace(rw.Query) == "" || !rw.Route.Valid() {
				t.Fatalf("Rewrite(%q, %q, %d) = %+v, %v", question, followUp, attempt, rw, err)
			}
			tried = append(tried, agent.Tried{Query: rw.Query, Route: rw.Route})
		}
		ans, err := b.Generate(ctx, agent.GenerateRequest{Question: question, Docs: docs, Unsupported: []string{followUp}})
		if err != nil || ans == "" {
			t.Fatalf("Generate = %q, %v", ans, err)
		}
		if _, err := b.Check(ctx, question, ans, docs); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Check(ctx, question, content, docs); err != nil {
			t.Fatal(err)
		}
		if _, _, err := b.Direct(ctx, question, history); err != nil {
			t.Fatal(err)
		}
	})
}

// TestHugeInputs checks that a 100 kB question and 1 MB documents are
// handled (only their prefixes are read). How fast is BenchmarkHugeInputs'
// to say: a wall-clock limit here failed CI on a loaded machine (issue 14).
func TestHugeInputs(t *testing.T) {
	hugeInputs(t)
}

// BenchmarkHugeInputs measures TestHugeInputs' work: well under a second
// per op on a developer machine, because only prefixes are read.
//
//	go test ./llm/offline -run '^$' -bench HugeInputs
func BenchmarkHugeInputs(b *testing.B) {
	for b.Loop() {
		hugeInputs(b)
	}
}

func hugeInputs(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	b := testBrain()
	question := strings.Repeat("Which suppliers are connected to Acme Corp and what is the refund policy? ", 1500)
	content := strings.Repeat("Refunds take 30 days. Acme Corp -[SUPPLIES]-> Globex\n", 20000)
	docs := make([]agent.Document, 100)
	for i := range docs {
		docs[i] = agent.Document{Title: "doc", Content: content, Route: agent.RouteVector}
	}
	if _, err := b.Condense(ctx, turns(question, question), question); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Route(ctx, question); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Grade(ctx, question, docs[0]); err != nil {
		t.Fatal(err)
	}
	if rw, err := b.Rewrite(ctx, agent.RewriteRequest{Question: question, Route: agent.RouteVector, Attempt: 2,
		Tried: []agent.Tried{{Query: question, Route: agent.RouteVector}}}); err != nil || len(rw.Query) > 1000 {
		t.Fatalf("Rewrite = %d bytes, %v", len(rw.Query), err)
	}
	ans, err := b.Generate(ctx, agent.GenerateRequest{Question: question, Docs: docs})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Check(ctx, question, ans+strings.Repeat(" More text.", 20000), docs); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Direct(ctx, question, nil); err != nil {
		t.Fatal(err)
	}
}
