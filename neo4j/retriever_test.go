package neo4j

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/llm/llmtest"
)

// fakeWriter is a scripted CypherWriter: it answers call i with
// replies[i] (the last repeating) and records what it was asked.
type fakeWriter struct {
	replies []string
	err     error
	calls   []writeCall
}

type writeCall struct{ question, schema, failedQuery, dbError string }

var _ CypherWriter = (*fakeWriter)(nil)

func (w *fakeWriter) WriteCypher(_ context.Context, question, schema, failedQuery, dbError string) (string, error) {
	w.calls = append(w.calls, writeCall{question, schema, failedQuery, dbError})
	if w.err != nil {
		return "", w.err
	}
	return w.replies[min(len(w.calls)-1, len(w.replies)-1)], nil
}

const suppliesQuery = "MATCH (s:Supplier)-[:SUPPLIES]->(c:Customer) RETURN s.name AS supplier, c.name AS customer ORDER BY supplier, customer"

func TestRetrieverCypher(t *testing.T) {
	ctx := context.Background()
	g := openTest(t)
	seedGraph(t, g)
	before := graphFingerprint(t, g)
	question := "Which customers does Acme Corp supply?"
	req := agent.Request{Query: "acme corp customers", Question: question, Limit: 6}

	retrieve := func(t *testing.T, w *fakeWriter) []agent.Document {
		t.Helper()
		r := NewGraphRetriever(g)
		r.Writer = w
		docs, err := r.Retrieve(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			if d.Route != agent.RouteGraph {
				t.Errorf("route = %q", d.Route)
			}
		}
		return docs
	}
	isWalk := func(t *testing.T, docs []agent.Document) {
		t.Helper()
		if len(docs) != 1 || docs[0].Title != "Knowledge graph: neighbourhood of Acme Corp" {
			t.Fatalf("want the walk's document, got %+v", docs)
		}
	}

	t.Run("a rewrite does not write the same Cypher again", func(t *testing.T) {
		w := &fakeWriter{replies: []string{suppliesQuery}}
		r := NewGraphRetriever(g)
		r.Writer = w
		again := req
		again.Again = true
		docs, err := r.Retrieve(ctx, again)
		if err != nil {
			t.Fatal(err)
		}
		if len(w.calls) != 0 {
			t.Errorf("the writer was asked %d times for a question already searched", len(w.calls))
		}
		isWalk(t, docs)
	})

	t.Run("answer", func(t *testing.T) {
		w := &fakeWriter{replies: []string{suppliesQuery}}
		docs := retrieve(t, w)
		if len(docs) != 1 {
			t.Fatalf("got %d documents", len(docs))
		}
		d := docs[0]
		if d.Title != "Knowledge graph query" || d.Location != suppliesQuery+" LIMIT 50" {
			t.Errorf("title %q, location %q", d.Title, d.Location)
		}
		want := "supplier: Acme, customer: Umbrella\nsupplier: Acme Corp, customer: Globex Corporation\nsupplier: Acme Corp, customer: Initech"
		if d.Content != want {
			t.Errorf("content:\n%s\nwant:\n%s", d.Content, want)
		}
		if d.Metadata["cypher"] != d.Location || d.Metadata["rows"] != "3" || d.ID == "" {
			t.Errorf("id %q metadata %v", d.ID, d.Metadata)
		}
		if len(w.calls) != 1 {
			t.Fatalf("%d writer calls, want 1", len(w.calls))
		}
		c := w.calls[0]
		if c.question != question || c.failedQuery != "" || c.dbError != "" {
			t.Errorf("writer asked %+v", c)
		}
		for _, s := range []string{"(:Supplier)-[:SUPPLIES {since: STRING", `"Acme Corp" (:Supplier)`} {
			if !strings.Contains(c.schema, s) {
				t.Errorf("schema given to the writer lacks %q:\n%s", s, c.schema)
			}
		}
	})

	t.Run("repair after a database error", func(t *testing.T) {
		broken := "MATCH (s:Supplier)-[:SUPPLIES]->(c:Customer) RETURN s.name AS supplier ORDER BY revenue"
		w := &fakeWriter{replies: []string{broken, suppliesQuery}}
		docs := retrieve(t, w)
		if len(docs) != 1 || docs[0].Location != suppliesQuery+" LIMIT 50" {
			t.Fatalf("want the repaired query's document, got %+v", docs)
		}
		if len(w.calls) != 2 {
			t.Fatalf("%d writer calls, want 2", len(w.calls))
		}
		c := w.calls[1]
		if c.failedQuery != broken || !strings.Contains(c.dbError, "revenue") || !strings.Contains(c.dbError, "not defined") {
			t.Errorf("repair call = failed %q, error %q", c.failedQuery, c.dbError)
		}
	})

	t.Run("second failure walks", func(t *testing.T) {
		w := &fakeWriter{replies: []string{"MATCH (s:Supplier) RETURN s.name ORDER BY x", "RETURN toInteger(1, 2) AS n"}}
		isWalk(t, retrieve(t, w))
		if len(w.calls) != 2 {
			t.Errorf("%d writer calls, want 2: one repair only", len(w.calls))
		}
	})

	t.Run("empty result walks", func(t *testing.T) {
		w := &fakeWriter{replies: []string{"MATCH (c:Customer {name: 'Nobody'}) RETURN c.name"}}
		isWalk(t, retrieve(t, w))
		if len(w.calls) != 1 {
			t.Errorf("%d writer calls, want 1: an empty result is not repaired", len(w.calls))
		}
	})

	t.Run("refusal walks", func(t *testing.T) {
		w := &fakeWriter{replies: []string{"MATCH (n) DETACH DELETE n"}}
		isWalk(t, retrieve(t, w))
		if len(w.calls) != 1 {
			t.Errorf("%d writer calls, want 1: a refusal is not repaired", len(w.calls))
		}
	})

	t.Run("no query walks", func(t *testing.T) {
		isWalk(t, retrieve(t, &fakeWriter{replies: []string{""}}))
	})

	t.Run("writer failure walks", func(t *testing.T) {
		isWalk(t, retrieve(t, &fakeWriter{err: errors.New("model down")}))
	})

	t.Run("rows are capped", func(t *testing.T) {
		g.cfg.MaxRows = 2
		defer func() { g.cfg.MaxRows = DefaultMaxRows }()
		docs := retrieve(t, &fakeWriter{replies: []string{"MATCH (n:Entity) RETURN n.name AS name ORDER BY name LIMIT 9"}})
		d := docs[0]
		if d.Location != "MATCH (n:Entity) RETURN n.name AS name ORDER BY name LIMIT 2" || d.Metadata["rows"] != "2" {
			t.Errorf("location %q metadata %v", d.Location, d.Metadata)
		}
		if lines := strings.Split(d.Content, "\n"); len(lines) != 2 {
			t.Errorf("content:\n%s", d.Content)
		}
	})

	t.Run("values are rendered", func(t *testing.T) {
		docs := retrieve(t, &fakeWriter{replies: []string{
			"MATCH p = (s:Supplier {name: 'Acme Corp'})-[:SUPPLIES]->(c:Customer {name: 'Globex Corporation'}) " +
				"RETURN s AS supplier, c.revenue AS revenue, [1, 2.5, true, null] AS list, {a: 'x'} AS map, p AS path"}})
		want := "supplier: Acme Corp (Supplier), revenue: $1.2M, list: [1, 2.5, true, null], map: {a: x}, " +
			"path: Acme Corp (Supplier) -[SUPPLIES]-> Globex Corporation (Customer)"
		if docs[0].Content != want {
			t.Errorf("content:\n%s\nwant:\n%s", docs[0].Content, want)
		}
	})

	t.Run("cancelled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		r := NewGraphRetriever(g)
		r.Writer = &fakeWriter{replies: []string{suppliesQuery}}
		if _, err := r.Retrieve(cctx, req); err == nil {
			t.Error("no error from a cancelled retrieval")
		}
	})

	if after := graphFingerprint(t, g); after != before {
		t.Errorf("retrieval changed the graph: %+v → %+v", before, after)
	}
}

// TestRetrieverWithBrain runs the Cypher path with the real llm.Brain
// against the scripted model server: the prompt carries the live schema,
// and the database's error reaches the repair prompt.
func TestRetrieverWithBrain(t *testing.T) {
	ctx := context.Background()
	g := openTest(t)
	seedGraph(t, g)
	srv := llmtest.New(t).On("cypher",
		`{"cypher":"MATCH (s:Supplier)-[:SUPPLIES]->(c:Customer) RETURN s.name AS supplier ORDER BY revenue"}`,
		`{"cypher":"`+suppliesQuery+`"}`)
	r := NewGraphRetriever(g)
	r.Writer = srv.Brain()
	docs, err := r.Retrieve(ctx, reqFor("Which customers does Acme Corp supply?"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 || docs[0].Location != suppliesQuery+" LIMIT 50" {
		t.Fatalf("docs = %+v", docs)
	}
	reqs := srv.Requests("cypher")
	if len(reqs) != 2 {
		t.Fatalf("%d cypher requests, want 2", len(reqs))
	}
	first, second := llmtest.Prompt(reqs[0]), llmtest.Prompt(reqs[1])
	if !strings.Contains(first, "(:Supplier)-[:SUPPLIES {since: STRING") || !strings.Contains(first, `"Acme Corp" (:Supplier)`) {
		t.Errorf("first prompt lacks the live schema:\n%s", first)
	}
	if !strings.Contains(second, "<error>") || !strings.Contains(second, "revenue") || !strings.Contains(second, "not defined") {
		t.Errorf("repair prompt lacks the database's error:\n%s", second)
	}
}
