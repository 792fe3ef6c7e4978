package llm

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/llm/replay"
)

// The recording of a real local model server: llama-cpp-python 0.3.36's
// OpenAI-compatible server as shipped (no proxy), serving
// Qwen2.5-Coder-1.5B-Instruct Q4_K_M on two CPU cores. It is replayed in
// every go test, so that each decision's request is the one that real
// server answered, and its real answers (a 500 for json_schema, JSON a
// small model got almost right) are read as the product reads them.
const (
	realModelRecording = "testdata/realmodel/llama-cpp-python-qwen2.5-coder-1.5b.jsonl"
	realModelName      = "qwen2.5-coder-1.5b"
	rerecord           = "scripts/localmodel.sh serve, then LLM_RECORD_URL=http://127.0.0.1:8701/v1 go test ./llm -run TestRealModelTraffic -timeout 60m"
)

var trainingChunk = agent.Document{ID: "security-policy.md#7", Title: "Information Security Policy", Location: "examples/docs/security-policy.md",
	Content: "Training and enforcement\n\n## Training and enforcement\n\n" +
		"Security awareness training is completed within the first 2 weeks and then every year,\n" +
		"with phishing simulations every quarter. Breaking this policy may lead to loss of access and\n" +
		"disciplinary action. Exceptions need written approval from the Head of Security and are\n" +
		"reviewed every 90 days."}

var refundChunks = []agent.Document{
	{ID: "refund-policy.md#0", Title: "Refund Policy", Location: "examples/docs/refund-policy.md",
		Content: "Customers can get a full refund within 30 days of the invoice date, for any reason. After 30 days, annual plans are refunded pro rata for the unused months and monthly plans are not refunded."},
	{ID: "security.md#2", Title: "Security Policy", Location: "examples/docs/security.md",
		Content: "Laptops must use full-disk encryption and lock after five minutes of inactivity."},
}

// TestRealModelTraffic runs each decision of the Brain against the
// recording (or, with LLM_RECORD_URL, against the real server, recording
// it): route, grade, rewrite, generate, check, condense and Cypher.
func TestRealModelTraffic(t *testing.T) {
	if _, err := os.Stat(realModelRecording); err != nil && os.Getenv("LLM_RECORD_URL") == "" {
		t.Skipf("no recording at %s (%s)", realModelRecording, rerecord)
	}
	cfg := Config{ChatModel: realModelName, MaxRetries: -1, Timeout: 10 * time.Minute}
	if up := os.Getenv("LLM_RECORD_URL"); up != "" {
		if err := os.MkdirAll(filepath.Dir(realModelRecording), 0o755); err != nil {
			t.Fatal(err)
		}
		cfg.BaseURL = replay.NewRecorder(t, up, realModelRecording).URL()
		cfg.MaxConcurrent = 1
	} else {
		cfg.BaseURL = replay.NewReplay(t, realModelRecording, rerecord).URL()
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b := NewBrain(c)
	ctx := context.Background()
	question := "What is our refund policy?"

	route, err := b.Route(ctx, question)
	if err != nil || !route.Route.Valid() {
		t.Fatalf("Route = %+v, %v", route, err)
	}
	// Small models copy the prompt's example reason; it is not shown.
	if strings.Contains(route.Reason, "travel policy") {
		t.Errorf("the route's reason %q is the prompt's example", route.Reason)
	}
	// The server refused json_schema; the client settled on json_object
	// without failing the call.
	if got := c.format.Load(); got != formatJSONObject {
		t.Errorf("structured-output mode = %d, want json_object (%d)", got, formatJSONObject)
	}
	for _, d := range refundChunks {
		if _, err := b.Grade(ctx, question, d); err != nil {
			t.Errorf("Grade(%s): %v", d.ID, err)
		}
	}
	// Asked for its verdict first, this model judged every passage of
	// the demo irrelevant, this one included; asked for the sentence
	// first, it quotes the answer.
	for _, c := range []struct {
		question string
		doc      agent.Document
	}{{question, refundChunks[0]}, {"How soon after joining do I have to finish the security awareness course?", trainingChunk}} {
		if g, err := b.Grade(ctx, c.question, c.doc); err != nil || !g.Relevant {
			t.Errorf("Grade(%q, %s) = %+v, %v; want relevant", c.question, c.doc.ID, g, err)
		}
	}
	if _, err := b.Rewrite(ctx, agent.RewriteRequest{Question: question, Route: agent.RouteVector,
		Tried: []agent.Tried{{Query: question, Route: agent.RouteVector, Found: 2}}, Routes: []agent.Route{agent.RouteVector, agent.RouteGraph},
		Attempt: 1, Max: 3}); err != nil {
		t.Errorf("Rewrite: %v", err)
	}
	// The answer is streamed, as the agent asks for it.
	var seen []string
	answer, err := b.Generate(ctx, agent.GenerateRequest{Question: question, Docs: refundChunks[:1],
		OnText: func(s string) { seen = append(seen, s) }})
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	if c.noStream.Load() || len(seen) < 3 || seen[len(seen)-1] != answer {
		t.Errorf("the server did not stream the answer: %d pieces seen, the last %q; answer %q", len(seen), seen[max(len(seen)-1, 0):], answer)
	}
	if words := strings.Fields(answer); len(words) < 5 || strings.Contains(answer, "<document") {
		t.Errorf("a degenerate answer: %q", answer)
	}
	if _, err := b.Check(ctx, question, answer, refundChunks[:1]); err != nil {
		t.Errorf("Check: %v", err)
	}
	// Held to the schema (requestFixes gives llama.cpp the schema for
	// json_object), the model writes a question, not the schema again.
	if q, err := b.Condense(ctx, []agent.Turn{{Question: question, Answer: answer, Route: agent.RouteVector}}, "and for annual plans?"); err != nil || !strings.Contains(strings.ToLower(q), "annual") {
		t.Errorf("Condense = %q, %v", q, err)
	}
	if _, err := b.WriteCypher(ctx, "Which suppliers supply Halvorsen Freight?",
		"Node labels: Customer {name, country}, Supplier {name}, Product {name}\nRelationships: (Customer)-[:BUYS]->(Product), (Supplier)-[:SUPPLIES]->(Product)", "", ""); err != nil {
		t.Errorf("WriteCypher: %v", err)
	}
}
