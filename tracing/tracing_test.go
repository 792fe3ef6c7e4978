package tracing_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/llm/llmtest"
	"github.com/switchboard/switchboard/llm/offline"
	"github.com/switchboard/switchboard/tracing"
)

type docs []agent.Document

func (d docs) Retrieve(context.Context, agent.Request) ([]agent.Document, error) { return d, nil }

func TestOneSpanPerNode(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })

	srv := llmtest.New(t)
	srv.On("route", `{"route":"vector","reason":"internal policy"}`).
		OnPrompt("grade", "Tacos", `{"evidence":"","relevant":false}`).
		On("grade", `{"evidence":"Customers can request a full refund within 30 days.","relevant":true}`).
		On("generate", "Refunds within 30 days [1].").On("check", `{"grounded":true,"unsupported":[],"answers":true,"missing":""}`)
	store := docs{
		{ID: "d1", Title: "Refund policy", Content: "Customers can request a full refund within 30 days."},
		{ID: "d2", Title: "Lunch", Content: "Tacos on Tuesday."},
	}
	a, err := agent.New(agent.Config{Model: srv.Brain(), Offline: offline.New(nil),
		Retrievers: map[agent.Route]agent.Retriever{agent.RouteVector: store}, Observer: tracing.NewObserver(tp)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Ask(context.Background(), agent.Question{ThreadID: "slack:T1:C1:1.0", Text: "What is our refund policy?"}, nil)
	if err != nil {
		t.Fatal(err)
	}

	spans := exp.GetSpans()
	var run tracetest.SpanStub
	var nodes []string
	byName := map[string]tracetest.SpanStub{}
	for _, s := range spans {
		if s.Name == "agent.run" {
			run = s
			continue
		}
		nodes = append(nodes, s.Name)
		byName[s.Name] = s
	}
	var want []string
	for _, s := range res.Trace {
		want = append(want, "agent."+string(s))
	}
	if !slices.Equal(nodes, want) {
		t.Fatalf("node spans = %v, want one per node of the trace %v", nodes, want)
	}
	for _, s := range byName {
		if s.Parent.SpanID() != run.SpanContext.SpanID() {
			t.Errorf("span %s is not a child of agent.run", s.Name)
		}
	}
	attrs := func(s tracetest.SpanStub) map[attribute.Key]attribute.Value {
		m := map[attribute.Key]attribute.Value{}
		for _, kv := range s.Attributes {
			m[kv.Key] = kv.Value
		}
		return m
	}
	route := attrs(byName["agent.route"])
	if route["switchboard.route"].AsString() != "vector" || route["switchboard.model.calls"].AsInt64() != 1 || route["gen_ai.usage.input_tokens"].AsInt64() == 0 {
		t.Errorf("agent.route attributes = %v", route)
	}
	grade := attrs(byName["agent.grade"])
	if grade["switchboard.docs"].AsInt64() != 2 || grade["switchboard.relevant"].AsInt64() != 1 || grade["switchboard.model.calls"].AsInt64() != 2 {
		t.Errorf("agent.grade attributes = %v", grade)
	}
	r := attrs(run)
	if r["switchboard.confidence"].AsString() != string(res.Confidence) || r["switchboard.thread"].AsString() != "slack:T1:C1:1.0" {
		t.Errorf("agent.run attributes = %v", r)
	}
}

func TestNoEndpointIsNoop(t *testing.T) {
	tp, shutdown, err := tracing.Setup(context.Background(), tracing.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer shutdown(context.Background())
	_, span := tp.Tracer("x").Start(context.Background(), "s")
	if span.SpanContext().IsValid() || span.IsRecording() {
		t.Error("tracing without an endpoint records spans")
	}
	if _, _, err := tracing.Setup(context.Background(), tracing.Config{Endpoint: "collector:4318"}); err == nil {
		t.Error("an endpoint without a scheme was accepted")
	}
}

func TestExportsOverOTLPHTTP(t *testing.T) {
	got := make(chan string, 10)
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Method + " " + r.URL.Path
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	defer collector.Close()
	tp, shutdown, err := tracing.Setup(context.Background(), tracing.Config{Endpoint: collector.URL, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	_, span := tp.Tracer("x").Start(context.Background(), "agent.route")
	span.End()
	if err := shutdown(context.Background()); err != nil { // flushes
		t.Fatal(err)
	}
	select {
	case req := <-got:
		if req != "POST /v1/traces" {
			t.Errorf("collector got %s", req)
		}
	default:
		t.Error("no spans reached the collector")
	}
}
