// Package metrics exposes Switchboard's Prometheus metrics. Everything is
// registered in a registry of its own, never the global one, so that each
// App (and each test) has its own counters.
//
// The agent does not import Prometheus: Metrics implements agent.Observer
// and bot.Observer, and decorates agent.Retriever, ingest.DocumentStore and
// the chat adapters' HTTP clients. cmd/bot wires them.
package metrics

import (
	"net/http"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics holds the collectors. It is safe for concurrent use.
type Metrics struct {
	reg *prometheus.Registry

	questions       *prometheus.CounterVec   // route, outcome
	questionSeconds *prometheus.HistogramVec // route
	stepSeconds     *prometheus.HistogramVec // step
	modelCalls      *prometheus.CounterVec   // step
	modelTokens     *prometheus.CounterVec   // step, kind
	modelErrors     *prometheus.CounterVec   // step
	rewrites        *prometheus.CounterVec   // route
	regenerations   *prometheus.CounterVec   // route
	confidence      *prometheus.CounterVec   // confidence
	offline         *prometheus.CounterVec   // route

	retrieverSeconds *prometheus.HistogramVec // route, backend
	retrieverErrors  *prometheus.CounterVec   // route, backend

	refused     *prometheus.CounterVec // platform, reason
	overBudget  *prometheus.CounterVec // platform
	chatErrors  *prometheus.CounterVec // platform, op
	chatCalls   *prometheus.CounterVec // platform, status
	rateLimited *prometheus.CounterVec // platform

	ingestDocs    *prometheus.CounterVec // source, result
	ingestChunks  *prometheus.CounterVec // source
	ingestSeconds *prometheus.HistogramVec

	circuit *prometheus.GaugeVec // dependency, state
	queue   atomic.Pointer[func() int]
}

// Histogram buckets, in seconds. A step may be a model call of several
// seconds; a whole answer, with rewrites and regenerations, a minute.
var (
	stepBuckets     = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 20, 40, 80}
	questionBuckets = []float64{.1, .25, .5, 1, 2.5, 5, 10, 20, 40, 80, 160}
)

// New returns Metrics in a fresh registry, with the Go runtime and process
// collectors beside Switchboard's own.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "switchboard", Name: name, Help: help}, labels)
		m.reg.MustRegister(c)
		return c
	}
	histogram := func(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
		h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "switchboard", Name: name, Help: help, Buckets: buckets}, labels)
		m.reg.MustRegister(h)
		return h
	}
	m.questions = counter("questions_total", "Questions answered, by route and outcome (answered, no_answer, invalid, failed).", "route", "outcome")
	m.questionSeconds = histogram("question_duration_seconds", "Time to answer a question, end to end, by route.", questionBuckets, "route")
	m.stepSeconds = histogram("step_duration_seconds", "Time spent in one node of the state machine.", stepBuckets, "step")
	m.modelCalls = counter("model_calls_total", "Model requests, by the node that made them.", "step")
	m.modelTokens = counter("model_tokens_total", "Model tokens, by node and kind (prompt, completion).", "step", "kind")
	m.modelErrors = counter("model_errors_total", "Model calls that failed (the run then went offline), by node.", "step")
	m.rewrites = counter("rewrites_total", "Search-query rewrites, by route.", "route")
	m.regenerations = counter("regenerations_total", "Answers regenerated after a failed grounding check, by route.", "route")
	m.confidence = counter("answers_by_confidence_total", "Answers by confidence badge (high, medium, low, general, none).", "confidence")
	m.offline = counter("offline_answers_total", "Answers that used the offline engine, by route.", "route")
	m.retrieverSeconds = histogram("retriever_duration_seconds", "Retrieval latency, by route and backend.", prometheus.DefBuckets, "route", "backend")
	m.retrieverErrors = counter("retriever_errors_total", "Retrievals that failed, by route and backend.", "route", "backend")
	m.refused = counter("questions_refused_total", "Questions not taken, by platform and reason (busy, stopping, user_rate, channel_rate).", "platform", "reason")
	m.overBudget = counter("over_budget_answers_total", "Answers given offline, from a model call on, because the workspace or the asker used up their daily model tokens.", "platform")
	m.chatErrors = counter("chat_errors_total", "Failed chat platform operations (start, update, finish, private), by platform.", "platform", "op")
	m.chatCalls = counter("chat_api_requests_total", "Chat platform API requests, by platform and status (2xx, 3xx, 4xx, 429, 5xx, error).", "platform", "status")
	m.rateLimited = counter("chat_rate_limited_total", "Chat platform requests answered 429, each followed by a wait, by platform.", "platform")
	m.ingestDocs = counter("ingest_documents_total", "Documents ingested, by source (files, channel) and result (changed, unchanged, failed).", "source", "result")
	m.ingestChunks = counter("ingest_chunks_total", "Chunks written by ingestion, by source.", "source")
	m.ingestSeconds = histogram("ingest_document_duration_seconds", "Time to store one document and its chunks.", prometheus.DefBuckets, "source")

	m.circuit = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "switchboard", Name: "circuit_state",
		Help: "The circuit breakers in front of the model server and Neo4j, by dependency (model, neo4j): 1 for the current state (closed, open, half-open), 0 for the others."},
		[]string{"dependency", "state"})
	m.reg.MustRegister(m.circuit)
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "switchboard", Name: "queue_depth",
		Help: "Questions waiting for a worker."}, func() float64 {
		if f := m.queue.Load(); f != nil {
			return float64((*f)())
		}
		return 0
	}))
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Registry is where the metrics are registered, for tests and for adding
// collectors.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the metrics in the Prometheus text format, at /metrics.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// QueueDepth sets the function that reports how many questions wait
// (bot.Dispatcher.Queued).
func (m *Metrics) QueueDepth(f func() int) { m.queue.Store(&f) }

// Circuit records the state of a dependency's circuit breaker: closed,
// open or half-open (llm.BreakerConfig.OnChange, neo4j.Config's
// OnCircuitChange). Call it with "closed" when the breaker is made, so
// that the series exist from the start.
func (m *Metrics) Circuit(dependency, state string) {
	for _, s := range []string{"closed", "open", "half-open"} {
		v := 0.0
		if s == state {
			v = 1
		}
		m.circuit.WithLabelValues(dependency, s).Set(v)
	}
}
