package metrics_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/kb"
	"github.com/switchboard/switchboard/llm/offline"
	"github.com/switchboard/switchboard/metrics"
)

type docs []agent.Document

func (d docs) Retrieve(context.Context, agent.Request) ([]agent.Document, error) { return d, nil }

// scrape returns what /metrics serves.
func scrape(t *testing.T, m *metrics.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("/metrics: %d", rec.Code)
	}
	return rec.Body.String()
}

func TestAQuestionShowsInTheMetrics(t *testing.T) {
	m := metrics.New()
	store := docs{{ID: "1", Title: "Refund policy", Content: "Customers can request a full refund within 30 days of the invoice date."}}
	a, err := agent.New(agent.Config{Offline: offline.New(nil), Observer: m,
		Retrievers: map[agent.Route]agent.Retriever{agent.RouteVector: m.Retriever(agent.RouteVector, "sqlite", store)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Ask(context.Background(), agent.Question{Text: "What is our refund policy?"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Ask(context.Background(), agent.Question{Text: ""}, nil); err == nil {
		t.Fatal("empty question answered")
	}
	m.QueueDepth(func() int { return 3 })
	m.Circuit("neo4j", "closed")
	m.Circuit("neo4j", "open")

	body := scrape(t, m)
	for _, want := range []string{
		`switchboard_questions_total{outcome="answered",route="vector"} 1`,
		`switchboard_questions_total{outcome="invalid",route="none"} 1`,
		`switchboard_question_duration_seconds_count{route="vector"} 1`,
		`switchboard_step_duration_seconds_count{step="grade"} 1`,
		`switchboard_retriever_duration_seconds_count{backend="sqlite",route="vector"} 1`,
		`switchboard_offline_answers_total{route="vector"} 1`,
		`switchboard_queue_depth 3`,
		`switchboard_circuit_state{dependency="neo4j",state="open"} 1`,
		`switchboard_circuit_state{dependency="neo4j",state="closed"} 0`,
		`go_goroutines`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

func TestModelUsageByNode(t *testing.T) {
	m := metrics.New()
	m.StepDone(context.Background(), agent.StepReport{Step: agent.StepGrade, Usage: agent.Usage{Calls: 4, PromptTokens: 400, CompletionTokens: 20}, ModelErrors: 1})
	m.RunDone(context.Background(), agent.RunReport{Result: &agent.Result{Route: agent.RouteGraph, Confidence: agent.ConfidenceMedium, Rewrites: 2, Regenerations: 1}})
	m.RunDone(context.Background(), agent.RunReport{Err: errors.New("boom")})
	body := scrape(t, m)
	for _, want := range []string{
		`switchboard_model_calls_total{step="grade"} 4`,
		`switchboard_model_tokens_total{kind="prompt",step="grade"} 400`,
		`switchboard_model_tokens_total{kind="completion",step="grade"} 20`,
		`switchboard_model_errors_total{step="grade"} 1`,
		`switchboard_rewrites_total{route="graph"} 2`,
		`switchboard_regenerations_total{route="graph"} 1`,
		`switchboard_answers_by_confidence_total{confidence="medium"} 1`,
		`switchboard_questions_total{outcome="failed",route="none"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

func TestChatAPICalls(t *testing.T) {
	m := metrics.New()
	status := 429
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(status) }))
	defer api.Close()
	c := m.HTTPClient("slack", nil)
	for _, s := range []int{429, 200, 500} {
		status = s
		resp, err := c.Get(api.URL)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	m.Refused("slack", "user_rate")
	m.ChatFailed("slack", "update")
	body := scrape(t, m)
	for _, want := range []string{
		`switchboard_chat_rate_limited_total{platform="slack"} 1`,
		`switchboard_chat_api_requests_total{platform="slack",status="2xx"} 1`,
		`switchboard_chat_api_requests_total{platform="slack",status="5xx"} 1`,
		`switchboard_questions_refused_total{platform="slack",reason="user_rate"} 1`,
		`switchboard_chat_errors_total{op="update",platform="slack"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

type memStore struct{ hashes map[string]string }

func (s *memStore) DocumentHash(_ context.Context, _, key string) (string, bool, error) {
	h, ok := s.hashes[key]
	return h, ok, nil
}

func (s *memStore) UpsertDocument(_ context.Context, d kb.Document) (bool, error) {
	if s.hashes[d.Key] == d.Hash {
		return false, nil
	}
	s.hashes[d.Key] = d.Hash
	return true, nil
}

func TestIngestThroughput(t *testing.T) {
	m := metrics.New()
	s := m.DocumentStore(&memStore{hashes: map[string]string{}})
	doc := kb.Document{Key: "a", Hash: "1", Chunks: make([]kb.Chunk, 3)}
	s.UpsertDocument(context.Background(), doc)
	s.UpsertDocument(context.Background(), doc)
	doc.Channel = "C1"
	doc.Key = "b"
	s.UpsertDocument(context.Background(), doc)
	body := scrape(t, m)
	for _, want := range []string{
		`switchboard_ingest_documents_total{result="changed",source="files"} 1`,
		`switchboard_ingest_documents_total{result="unchanged",source="files"} 1`,
		`switchboard_ingest_chunks_total{source="files"} 3`,
		`switchboard_ingest_chunks_total{source="channel"} 3`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if n := testutil.CollectAndCount(m.Registry(), "switchboard_ingest_document_duration_seconds"); n != 2 {
		t.Errorf("ingest duration series = %d, want 2 (files, channel)", n)
	}
}
