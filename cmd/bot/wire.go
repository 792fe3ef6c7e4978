package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/channels"
	"github.com/switchboard/switchboard/examples"
	"github.com/switchboard/switchboard/feedback"
	"github.com/switchboard/switchboard/hashembed"
	"github.com/switchboard/switchboard/ingest"
	"github.com/switchboard/switchboard/ingest/chat"
	"github.com/switchboard/switchboard/llm"
	"github.com/switchboard/switchboard/llm/offline"
	"github.com/switchboard/switchboard/metrics"
	"github.com/switchboard/switchboard/neo4j"
	"github.com/switchboard/switchboard/postgres"
	"github.com/switchboard/switchboard/questions"
	"github.com/switchboard/switchboard/retention"
	"github.com/switchboard/switchboard/sqlite"
	"github.com/switchboard/switchboard/tavily"
)

// docStore is what the commands need of a document store.
type docStore interface {
	ingest.DocumentStore
	Empty(ctx context.Context) (bool, error)
	// Titles gives the suggested prompts of Slack's AI-app view.
	Titles(ctx context.Context, workspace string, n int) ([]string, error)
}

// graphStore is what the commands and the offline router need of a graph.
type graphStore interface {
	ingest.GraphWriter
	offline.Names
}

// App is Switchboard wired from a Config: every New… call is here, so one
// function shows how the parts fit together.
type App struct {
	Config   Config
	Log      *slog.Logger
	Model    *llm.Client // nil without a model
	Docs     docStore
	Graph    graphStore
	Ingest   *ingest.Pipeline
	Agent    *agent.Agent
	Embedder ingest.Embedder
	// Feedback serves `switchboard serve`: in PostgreSQL when it is
	// configured, so that replicas share it.
	Feedback feedback.Store
	// Channels are the channels' settings (issue 26), in the same store:
	// `switchboard channels` changes them, `switchboard serve` reads them.
	Channels channels.Store
	// Backends names the stores in use, for logs and `switchboard migrate`.
	Backends []string
	// Cursors remember how far chat ingestion has read each channel, in
	// the documents' store (ingest_chat.go).
	Cursors chat.Cursors
	// Metrics are served at /metrics by `switchboard serve`.
	Metrics *metrics.Metrics
	// Retention is what `switchboard serve` prunes on a schedule: the threads,
	// and in PostgreSQL the remembered chat deliveries, the answered
	// questions and the limits' old counts.
	Retention []retention.Job
	// Questions keeps the questions `switchboard serve` takes until they
	// are answered: in the embedded file, so that a restart (even a kill
	// -9) loses none, or in PostgreSQL, where SharedQuestions says any
	// replica answers them. Limits, with PostgreSQL, are the rate limits
	// and token budget every replica counts against; nil: each process
	// keeps its own, in memory.
	Questions       questions.Store
	SharedQuestions bool
	Limits          *postgres.Limits

	demo         *demoGuard // removes the demo before the user's first write; see demo.go
	expertsState            // Ask an expert and Save as answer, made once (experts.go)

	closers  []func()
	pings    []func(context.Context) error // what /readyz checks
	observer agent.Observer                // metrics and traces of every run
	clock    Clock
}

// Clock is what the App's waits run on: the circuit breakers' cool-downs
// and probes, the graph's read budget. Its nil fields mean the time of day
// and timers; tests pass a fake clock (Main.now, Main.sleep).
type Clock struct {
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// now is the time on the App's clock.
func (app *App) now() time.Time {
	if app.clock.Now != nil {
		return app.clock.Now()
	}
	return time.Now()
}

// Open builds the App, logging to logw and waiting on clk. Documents and
// thread state go to PostgreSQL when DATABASE_URL is set, the graph to
// Neo4j when NEO4J_URI is set, and anything else to the embedded SQLite
// file; schemas are migrated first. The embedded default loads the demo
// knowledge base when it is empty.
//
// Each step below wires one part, in the order they depend on each other;
// what a step makes for later ones and not for the App is in wiring.
func Open(ctx context.Context, cfg Config, logw io.Writer, clk Clock) (_ *App, err error) {
	app := &App{Config: cfg, Log: newLogger(cfg, logw), clock: clk}
	defer func() {
		if err != nil {
			app.Close()
		}
	}()
	w := &wiring{retrievers: map[agent.Route]agent.Retriever{}}
	for _, step := range []func(context.Context, *wiring) error{
		app.openObservability,
		app.openModel,
		app.openDocuments,
		app.openGraph,
		app.openWebSearch,
		app.openIngest,
		app.openAgent,
	} {
		if err := step(ctx, w); err != nil {
			return nil, err
		}
	}
	return app, nil
}

// wiring is what the steps of Open hand on to the later ones.
type wiring struct {
	embedderName string                          // recorded with every stored vector
	embedded     *sqlite.DB                      // opened only if some part of the data lives in it
	retrievers   map[agent.Route]agent.Retriever // filled by the store steps
	threads      agent.Checkpointer
	// knowledge and names are what the agent asks whether anything was
	// ingested and the offline router which entities the graph knows: the
	// stores, or the stores with the demo hidden (demo.go).
	knowledge agent.KnowledgeBase
	names     offline.Names
}

func (app *App) openObservability(ctx context.Context, _ *wiring) error { return app.observe(ctx) }

// openModel connects the OpenAI-compatible model when one is configured,
// and picks the embedder: the model's, or the local hashing one.
func (app *App) openModel(_ context.Context, w *wiring) error {
	cfg := app.Config
	if cfg.ModelConfigured() {
		m, err := llm.New(llm.Config{
			APIKey: cfg.OpenAIKey, BaseURL: cfg.OpenAIBaseURL,
			ChatModel: cfg.ChatModel, EmbeddingModel: cfg.EmbeddingModel, EmbeddingDimensions: cfg.EmbeddingDim,
			Timeout: cfg.ModelTimeout, MaxRetries: cfg.ModelRetries, Breaker: app.breaker(),
			Temperature: float32(cfg.Temperature), MaxTokens: cfg.MaxTokens, MaxConcurrent: cfg.ModelConcurrent,
		})
		if err != nil {
			return &configError{"OPENAI_BASE_URL", err.Error()}
		}
		app.Model = m
		app.closers = append(app.closers, m.Close)
		// Offline mode needs no model, so only a configured one is checked.
		app.pings = append(app.pings, named("model", newCachedCheck(m.Ping, modelCheckEvery, app.now).Check))
	}
	w.embedderName = fmt.Sprintf("local-hash-%d", cfg.EmbeddingDim)
	app.Embedder = hashembed.New(cfg.EmbeddingDim)
	if cfg.Embedder == "openai" {
		w.embedderName, app.Embedder = "openai:"+cfg.EmbeddingModel, app.Model
	}
	return nil
}

// embeddedDB opens the embedded SQLite file once, for whichever parts of
// the data live in it.
func (app *App) embeddedDB(ctx context.Context, w *wiring) (*sqlite.DB, error) {
	if w.embedded != nil {
		return w.embedded, nil
	}
	db, err := sqlite.Open(ctx, app.Config.DBPath())
	if err != nil {
		return nil, fmt.Errorf("open the embedded store (SWITCHBOARD_DATA_DIR=%s): %w", app.Config.DataDir, err)
	}
	app.closers = append(app.closers, func() { db.Close() })
	w.embedded = db
	return db, nil
}

// openDocuments opens the store of documents, thread state, chat cursors
// and feedback: PostgreSQL (shared by replicas, with their de-duplication)
// or the embedded file.
func (app *App) openDocuments(ctx context.Context, w *wiring) error {
	cfg := app.Config
	if cfg.DatabaseURL == "" {
		db, err := app.embeddedDB(ctx, w)
		if err != nil {
			return err
		}
		if err := db.CheckEmbedding(ctx, w.embedderName, cfg.EmbeddingDim); err != nil {
			return err
		}
		app.Docs = sqlite.NewDocumentStore(db, w.embedderName)
		app.Cursors = sqlite.NewCursors(db)
		vector := sqlite.NewRetriever(db, app.Embedder)
		vector.Logger = app.Log
		w.retrievers[agent.RouteVector] = vector
		threads, qs := sqlite.NewCheckpointer(db), sqlite.NewQuestions(db)
		w.threads = threads
		app.Questions = qs
		app.Retention = []retention.Job{{Name: "threads", Keep: cfg.ThreadRetention, From: threads},
			{Name: "answered questions", Keep: cfg.EventRetention, From: qs}}
		app.Feedback = sqlite.NewFeedback(db)
		app.Channels = sqlite.NewChannels(db)
		app.Backends = append(app.Backends, "documents and threads: SQLite "+cfg.DBPath())
		return nil
	}
	db, err := postgres.Open(ctx, cfg.DatabaseURL, postgres.Options{EmbeddingDim: cfg.EmbeddingDim, Embedder: w.embedderName, Logger: app.Log})
	if err != nil {
		return fmt.Errorf("connect to DATABASE_URL: %w", err)
	}
	app.closers = append(app.closers, db.Close)
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	if err := db.CheckEmbedding(ctx, w.embedderName, cfg.EmbeddingDim); err != nil {
		return err
	}
	app.Docs = postgres.NewDocumentStore(db)
	app.Cursors = postgres.NewCursors(db)
	w.retrievers[agent.RouteVector] = postgres.NewRetriever(db, app.Embedder)
	threads, events := postgres.NewCheckpointer(db), postgres.NewEvents(db)
	w.threads = threads
	qs := postgres.NewQuestions(db)
	app.Questions, app.SharedQuestions = qs, true
	app.Limits = postgres.NewLimits(db, cfg.UserRate, cfg.ChannelRate, cfg.DailyTokens, cfg.TokensPerUser())
	app.Retention = []retention.Job{{Name: "threads", Keep: cfg.ThreadRetention, From: threads},
		{Name: "chat deliveries", Keep: cfg.EventRetention, From: events},
		{Name: "answered questions", Keep: cfg.EventRetention, From: qs},
		{Name: "limits' old counts", Keep: cfg.EventRetention, From: app.Limits}}
	app.Feedback = postgres.NewFeedback(db)
	app.Channels = postgres.NewChannels(db)
	app.pings = append(app.pings, named("database", db.Ping))
	app.Backends = append(app.Backends, "documents and threads: PostgreSQL")
	return nil
}

// openGraph opens the knowledge graph: Neo4j, where the model writes
// read-only Cypher, or the embedded file's graph tables.
func (app *App) openGraph(ctx context.Context, w *wiring) error {
	cfg := app.Config
	if cfg.Neo4jURI == "" {
		db, err := app.embeddedDB(ctx, w)
		if err != nil {
			return err
		}
		gs := sqlite.NewGraphStore(db)
		app.Graph = gs
		w.retrievers[agent.RouteGraph] = sqlite.NewGraphRetriever(gs)
		app.Backends = append(app.Backends, "graph: SQLite "+cfg.DBPath())
		return nil
	}
	failures := cfg.Neo4jCircuitFailures
	if failures == 0 {
		failures = -1 // NEO4J_CIRCUIT_FAILURES=0 means never; neo4j.Config's zero means its default
	}
	g, err := neo4j.Open(ctx, neo4j.Config{URI: cfg.Neo4jURI, User: cfg.Neo4jUser, Password: cfg.Neo4jPassword, Database: cfg.Neo4jDatabase, Logger: app.Log,
		ReadBudget: cfg.Neo4jReadBudget, CircuitFailures: failures, CircuitCooldown: cfg.Neo4jCircuitCooldown,
		OnCircuitChange: app.circuitMetric("neo4j"), Now: app.clock.Now, Sleep: app.clock.Sleep})
	if err != nil {
		return fmt.Errorf("connect to NEO4J_URI: %w", err)
	}
	app.closers = append(app.closers, func() { g.Close(context.WithoutCancel(ctx)) })
	if err := g.Migrate(ctx); err != nil {
		return err
	}
	app.Graph = g
	app.pings = append(app.pings, named("graph", g.Ping))
	gr := neo4j.NewGraphRetriever(g)
	gr.Logger = app.Log
	if app.Model != nil {
		gr.Writer = llm.NewBrain(app.Model)
	}
	w.retrievers[agent.RouteGraph] = gr
	app.Backends = append(app.Backends, "graph: Neo4j")
	return nil
}

// openWebSearch adds Tavily when it has a key; without one the web route
// says it is not configured.
func (app *App) openWebSearch(_ context.Context, w *wiring) error {
	if app.Config.TavilyKey != "" {
		w.retrievers[agent.RouteWeb] = tavily.New(tavily.Config{APIKey: app.Config.TavilyKey, BaseURL: app.Config.TavilyBaseURL})
	}
	return nil
}

// embeddedOnly reports whether everything lives in the embedded file, the
// only store the demo is ever loaded into.
func (app *App) embeddedOnly() bool { return app.Config.DatabaseURL == "" && app.Config.Neo4jURI == "" }

// openIngest builds the ingest pipeline, guarded so that the user's first
// write removes the demo (demo.go), and loads the demo into an empty
// embedded store when this command uses it, or else hides it.
func (app *App) openIngest(ctx context.Context, w *wiring) error {
	var docs ingest.DocumentStore = app.Docs
	w.knowledge, w.names = app.Docs, app.Graph
	if app.embeddedOnly() {
		app.demo = &demoGuard{db: w.embedded}
		docs = guardedDocs{DocumentStore: docs, guard: app.demo}
		if app.Config.Demo != "true" {
			app.demo.hideDemo(w)
		}
	}
	app.Ingest = &ingest.Pipeline{Store: app.Metrics.DocumentStore(docs), Embedder: app.Embedder, Legacy: legacyFiles(app.Docs)}
	if app.Config.DatabaseURL == "" && w.embedded != nil {
		app.Ingest.Tidy = w.embedded.Optimize // the documents are in the embedded file
	}
	if app.Config.Demo == "true" && app.embeddedOnly() {
		return app.loadDemo(ctx)
	}
	return nil
}

// openAgent builds the agent over the retrievers, timed by backend, with
// the model when there is one and the offline engine always.
func (app *App) openAgent(_ context.Context, w *wiring) error {
	app.measured(w.retrievers)
	acfg := agent.Config{
		Offline:      offline.New(w.names),
		Retrievers:   w.retrievers,
		Checkpointer: w.threads,
		Budgets:      agent.Budgets{MaxQuestionChars: app.Config.MaxQuestionChars, MaxAnswerChars: app.Config.MaxAnswerChars},
		Observer:     app.observer,
		Knowledge:    w.knowledge,
		Words:        words(),
		Speculate:    app.Config.Speculate,
	}
	if app.Model != nil {
		acfg.Model = llm.NewBrain(app.Model)
	}
	a, err := agent.New(acfg)
	if err != nil {
		return err
	}
	app.Agent = a
	return nil
}

// loadDemo fills an empty embedded store with the bundled demo knowledge
// base, so that a fresh install can answer questions at once. The store
// is marked as holding the demo first: the commands that hide the demo
// (demo.go) then never see it unmarked, even while another process loads
// it, and a load that fails half way leaves a demo that the user's first
// ingest removes, not rows mixed with theirs for good.
func (app *App) loadDemo(ctx context.Context) error {
	empty, err := app.Docs.Empty(ctx)
	if err != nil || !empty {
		return err
	}
	app.Log.Info("loading the demo knowledge base into the empty store", "path", app.Config.DBPath())
	if err := app.demo.db.MarkDemo(ctx); err != nil {
		return err
	}
	rep, err := app.Ingest.IngestFS(ctx, examples.FS, examples.Prefix, examples.Docs())
	if err == nil {
		err = rep.Err()
	}
	if err != nil {
		return fmt.Errorf("load the demo documents: %w", err)
	}
	grep, err := ingest.ImportGraphFS(ctx, app.Graph, examples.FS, examples.NodesCSV, examples.EdgesCSV)
	if err == nil && len(grep.NodeErrors)+len(grep.EdgeErrors) > 0 {
		err = errors.New(grep.String())
	}
	if err != nil {
		return fmt.Errorf("load the demo graph: %w", err)
	}
	return nil
}

// Ready checks that the configured backends answer.
func (app *App) Ready(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for _, ping := range app.pings {
		if err := ping(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Close releases the stores, last opened first.
func (app *App) Close() {
	for i := len(app.closers) - 1; i >= 0; i-- {
		app.closers[i]()
	}
	app.closers = nil
}
