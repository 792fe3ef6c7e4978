// Package tracing records OpenTelemetry traces of agent runs: a span for
// each run ("agent.run") and one for each node it visits ("agent.route",
// "agent.grade", …), with the route, grade counts and model usage as
// attributes. Spans are exported over OTLP/HTTP when an endpoint is
// configured; otherwise the tracer is a no-op and costs nothing.
package tracing

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/switchboard/switchboard/agent"
)

// Config says where spans go.
type Config struct {
	// Endpoint is the OTLP/HTTP base URL, as in OTEL_EXPORTER_OTLP_ENDPOINT
	// (e.g. http://collector:4318); spans go to its /v1/traces. Empty
	// turns tracing off.
	Endpoint string
	// ServiceName and Version describe this process in every span.
	ServiceName string
	Version     string
}

// Setup returns the TracerProvider for cfg and a function that flushes
// and stops it, to call on shutdown. Without an endpoint the provider is
// a no-op. The exporter also honours the standard OTEL_EXPORTER_OTLP_*
// variables that Config does not cover, such as headers for
// authentication.
func Setup(ctx context.Context, cfg Config) (trace.TracerProvider, func(context.Context) error, error) {
	if cfg.Endpoint == "" {
		return noop.NewTracerProvider(), func(context.Context) error { return nil }, nil
	}
	u, err := url.Parse(cfg.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, nil, fmt.Errorf("tracing: OTLP endpoint %q is not an http(s) URL", cfg.Endpoint)
	}
	// The specification's signal path for a base endpoint.
	u.Path = strings.TrimRight(u.Path, "/") + "/v1/traces"
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(u.String()))
	if err != nil {
		return nil, nil, fmt.Errorf("tracing: OTLP exporter: %w", err)
	}
	name := cfg.ServiceName
	if name == "" {
		name = "switchboard"
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(resource.NewSchemaless(
			attribute.String("service.name", name),
			attribute.String("service.version", cfg.Version),
		)),
	)
	return tp, tp.Shutdown, nil
}

// Observer turns agent runs into spans. Create it with NewObserver.
type Observer struct {
	tracer trace.Tracer
}

var _ agent.Observer = (*Observer)(nil)

// NewObserver returns an agent.Observer that traces runs with tp.
func NewObserver(tp trace.TracerProvider) *Observer {
	return &Observer{tracer: tp.Tracer("github.com/switchboard/switchboard/agent")}
}

// Span attribute keys. Token counts use the OpenTelemetry GenAI names.
const (
	attrThread        = attribute.Key("switchboard.thread")
	attrRoute         = attribute.Key("switchboard.route")
	attrNext          = attribute.Key("switchboard.next")
	attrDocs          = attribute.Key("switchboard.docs")
	attrRelevant      = attribute.Key("switchboard.relevant")
	attrOffline       = attribute.Key("switchboard.offline")
	attrModelCalls    = attribute.Key("switchboard.model.calls")
	attrModelErrors   = attribute.Key("switchboard.model.errors")
	attrInputTokens   = attribute.Key("gen_ai.usage.input_tokens")
	attrOutputTokens  = attribute.Key("gen_ai.usage.output_tokens")
	attrConfidence    = attribute.Key("switchboard.confidence")
	attrRewrites      = attribute.Key("switchboard.rewrites")
	attrRegenerations = attribute.Key("switchboard.regenerations")
)

// RunStarted implements agent.Observer: it opens the run's span. The
// question's text is not recorded: traces leave the process.
func (o *Observer) RunStarted(ctx context.Context, q agent.Question) context.Context {
	ctx, _ = o.tracer.Start(ctx, "agent.run", trace.WithAttributes(attrThread.String(q.ThreadID)))
	return ctx
}

// StepStarted implements agent.Observer: it opens the node's span.
func (o *Observer) StepStarted(ctx context.Context, step agent.Step) context.Context {
	ctx, _ = o.tracer.Start(ctx, "agent."+string(step))
	return ctx
}

// StepDone implements agent.Observer: it closes the node's span with what
// the node did.
func (o *Observer) StepDone(ctx context.Context, r agent.StepReport) {
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(
		attrRoute.String(string(r.Route)),
		attrNext.String(string(r.Next)),
		attrOffline.Bool(r.Offline),
		attrModelCalls.Int(r.Usage.Calls),
		attrInputTokens.Int(r.Usage.PromptTokens),
		attrOutputTokens.Int(r.Usage.CompletionTokens),
		attrModelErrors.Int(r.ModelErrors),
	)
	switch r.Step {
	case agent.StepVector, agent.StepGraph, agent.StepWeb:
		span.SetAttributes(attrDocs.Int(r.Docs))
	case agent.StepGrade:
		span.SetAttributes(attrDocs.Int(r.Docs), attrRelevant.Int(r.Relevant))
	}
	fail(span, r.Err)
	span.End()
}

// RunDone implements agent.Observer: it closes the run's span.
func (o *Observer) RunDone(ctx context.Context, r agent.RunReport) {
	span := trace.SpanFromContext(ctx)
	if res := r.Result; res != nil {
		span.SetAttributes(
			attrRoute.String(string(res.Route)),
			attrConfidence.String(string(res.Confidence)),
			attrRewrites.Int(res.Rewrites),
			attrRegenerations.Int(res.Regenerations),
			attrOffline.Bool(res.Offline),
			attrModelCalls.Int(res.LLMCalls),
		)
	}
	fail(span, r.Err)
	span.End()
}

// fail marks span as failed by err, if any.
func fail(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, agent.ErrorCode(err))
	}
}
