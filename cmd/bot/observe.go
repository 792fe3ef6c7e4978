package main

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/internal/breaker"
	"github.com/switchboard/switchboard/limits"
	"github.com/switchboard/switchboard/llm"
	"github.com/switchboard/switchboard/logs"
	"github.com/switchboard/switchboard/metrics"
	"github.com/switchboard/switchboard/tracing"
)

// newLogger is the process's logger: LOG_FORMAT at LOG_LEVEL, with the
// thread and run of the answer being made on every line written for it.
func newLogger(cfg Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel)) // validated in LoadConfig
	log, err := logs.New(w, cfg.LogFormat, level)
	if err != nil { // validated in LoadConfig; a zero Config (tests) gets JSON
		log, _ = logs.New(w, logs.FormatJSON, level)
	}
	return log
}

// observe sets up the App's metrics and traces. The tracer provider is
// flushed when the App closes, so spans of the last answers are not lost.
func (app *App) observe(ctx context.Context) error {
	app.Metrics = metrics.New()
	tp, shutdown, err := tracing.Setup(ctx, tracing.Config{Endpoint: app.Config.OTLPEndpoint, ServiceName: app.Config.ServiceName, Version: version})
	if err != nil {
		return &configError{"OTEL_EXPORTER_OTLP_ENDPOINT", err.Error()}
	}
	app.closers = append(app.closers, func() {
		// Bounded: an unreachable collector must not hold up the exit.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := shutdown(sctx); err != nil {
			app.Log.Warn("could not flush the last traces", "err", err)
		}
	})
	app.observer = agent.Observers(app.Metrics, tracing.NewObserver(tp))
	if app.Config.OTLPEndpoint != "" {
		app.Log.Info("tracing: OTLP", "endpoint", app.Config.OTLPEndpoint)
	}
	return nil
}

// breaker is the model client's circuit breaker, reported in the metrics
// and the log.
func (app *App) breaker() llm.BreakerConfig {
	metric := app.circuitMetric("model")
	return llm.BreakerConfig{
		Failures: app.Config.CircuitFailures,
		Cooldown: app.Config.CircuitCooldown,
		Now:      app.clock.Now,
		Sleep:    app.clock.Sleep,
		OnChange: func(s llm.CircuitState) {
			metric(s)
			if s == llm.CircuitOpen {
				app.Log.Warn("model circuit open: answering offline until a probe succeeds", "cooldown", app.Config.CircuitCooldown)
			} else {
				app.Log.Info("model circuit "+string(s), "state", s)
			}
		},
	}
}

// circuitMetric returns what reports the state of dependency's circuit
// breaker in the metrics, having reported it closed.
func (app *App) circuitMetric(dependency string) func(breaker.State) {
	app.Metrics.Circuit(dependency, string(breaker.Closed))
	return func(s breaker.State) { app.Metrics.Circuit(dependency, string(s)) }
}

// measured wraps each retriever to time it by backend.
func (app *App) measured(retrievers map[agent.Route]agent.Retriever) {
	for route, r := range retrievers {
		retrievers[route] = app.Metrics.Retriever(route, backendOf(app.Config, route), r)
	}
}

// backendOf names the store that serves route under cfg, for metrics.
func backendOf(cfg Config, route agent.Route) string {
	switch {
	case route == agent.RouteVector && cfg.DatabaseURL != "":
		return "postgres"
	case route == agent.RouteGraph && cfg.Neo4jURI != "":
		return "neo4j"
	case route == agent.RouteWeb:
		return "tavily"
	}
	return "sqlite"
}

// askerLimits returns the rate limits and the token budgets of `switchboard serve`.
func askerLimits(cfg Config) (*limits.Askers, *limits.Budget) {
	return limits.NewAskers(cfg.UserRate, cfg.ChannelRate, nil), limits.NewBudget(cfg.DailyTokens, cfg.TokensPerUser(), nil)
}
