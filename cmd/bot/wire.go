package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/examples"
	"github.com/switchboard/switchboard/ingest"
	"github.com/switchboard/switchboard/ingest/chat"
	"github.com/switchboard/switchboard/llm"
	"github.com/switchboard/switchboard/llm/offline"
	"github.com/switchboard/switchboard/metrics"
	"github.com/switchboard/switchboard/neo4j"
	"github.com/switchboard/switchboard/postgres"
	"github.com/switchboard/switchboard/sqlite"
	"github.com/switchboard/switchboard/tavily"
)

// docStore is what the commands need of a document store.
type docStore interface {
	ingest.DocumentStore
	Empty(ctx context.Context) (bool, error)
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
	// Dedupe and Feedback serve `bot serve`: in PostgreSQL when it is
	// configured, so that replicas share them.
	Dedupe   bot.Deduper
	Feedback bot.FeedbackStore
	// Backends names the stores in use, for logs and `bot migrate`.
	Backends []string
	// Cursors remember how far chat ingestion has read each channel, in
	// the documents' store (ingest_chat.go).
	Cursors chat.Cursors
	chat    *chatService // made by chatService on first use
	// Metrics are served at /metrics by `bot serve`.
	Metrics *metrics.Metrics

	demo *demoGuard // removes the demo before the user's first write; see demo.go

	closers  []func()
	pings    []func(context.Context) error // what /readyz checks
	observer agent.Observer                // metrics and traces of every run
}

// Open builds the App. Documents and thread state go to PostgreSQL when
// DATABASE_URL is set, the graph to Neo4j when NEO4J_URI is set, and
// anything else to the embedded SQLite file; schemas are migrated first.
// The embedded default loads the demo knowledge base when it is empty.
func Open(ctx context.Context, cfg Config, logw io.Writer) (_ *App, err error) {
	app := &App{Config: cfg, Log: newLogger(cfg, logw)}
	defer func() {
		if err != nil {
			app.Close()
		}
	}()

	if err := app.observe(ctx); err != nil {
		return nil, err
	}
	if cfg.ModelConfigured() {
		app.Model, err = llm.New(llm.Config{
			APIKey: cfg.OpenAIKey, BaseURL: cfg.OpenAIBaseURL,
			ChatModel: cfg.ChatModel, EmbeddingModel: cfg.EmbeddingModel, EmbeddingDimensions: cfg.EmbeddingDim,
			Timeout: cfg.ModelTimeout, MaxRetries: cfg.ModelRetries, Breaker: app.breaker(),
		})
		if err != nil {
			return nil, &configError{"OPENAI_BASE_URL", err.Error()}
		}
		// Offline mode needs no model, so only a configured one is checked.
		app.pings = append(app.pings, named("model", newCachedCheck(app.Model.Ping, modelCheckEvery, time.Now).Check))
	}
	embedderName := fmt.Sprintf("local-hash-%d", cfg.EmbeddingDim)
	app.Embedder = offline.NewEmbedder(cfg.EmbeddingDim)
	if cfg.Embedder == "openai" {
		embedderName, app.Embedder = "openai:"+cfg.EmbeddingModel, app.Model
	}

	var embedded *sqlite.DB // opened only if some part of the data lives in it
	openEmbedded := func() (*sqlite.DB, error) {
		if embedded != nil {
			return embedded, nil
		}
		db, err := sqlite.Open(ctx, cfg.DBPath())
		if err != nil {
			return nil, fmt.Errorf("open the embedded store (SWITCHBOARD_DATA_DIR=%s): %w", cfg.DataDir, err)
		}
		app.closers = append(app.closers, func() { db.Close() })
		embedded = db
		return db, nil
	}

	retrievers := map[agent.Route]agent.Retriever{}
	var threads agent.Checkpointer
	if cfg.DatabaseURL != "" {
		db, err := postgres.Open(ctx, cfg.DatabaseURL, postgres.Options{EmbeddingDim: cfg.EmbeddingDim, Embedder: embedderName, Logger: app.Log})
		if err != nil {
			return nil, fmt.Errorf("connect to DATABASE_URL: %w", err)
		}
		app.closers = append(app.closers, db.Close)
		if err := db.Migrate(ctx); err != nil {
			return nil, err
		}
		if err := db.CheckEmbedding(ctx, embedderName, cfg.EmbeddingDim); err != nil {
			return nil, err
		}
		app.Docs = postgres.NewDocumentStore(db)
		app.Cursors = postgres.NewCursors(db)
		retrievers[agent.RouteVector] = postgres.NewRetriever(db, app.Embedder)
		threads = postgres.NewCheckpointer(db)
		app.Dedupe = postgres.NewEvents(db) // shared by the replicas
		app.Feedback = postgres.NewFeedback(db)
		app.pings = append(app.pings, named("database", db.Ping))
		app.Backends = append(app.Backends, "documents and threads: PostgreSQL")
	} else {
		db, err := openEmbedded()
		if err != nil {
			return nil, err
		}
		if err := db.CheckEmbedding(ctx, embedderName, cfg.EmbeddingDim); err != nil {
			return nil, err
		}
		app.Docs = sqlite.NewDocumentStore(db, embedderName)
		app.Cursors = sqlite.NewCursors(db)
		vector := sqlite.NewRetriever(db, app.Embedder)
		vector.Logger = app.Log
		retrievers[agent.RouteVector] = vector
		threads = sqlite.NewCheckpointer(db)
		app.Feedback = sqlite.NewFeedback(db)
		app.Backends = append(app.Backends, "documents and threads: SQLite "+cfg.DBPath())
	}

	if cfg.Neo4jURI != "" {
		failures := cfg.Neo4jCircuitFailures
		if failures == 0 {
			failures = -1 // NEO4J_CIRCUIT_FAILURES=0 means never; neo4j.Config's zero means its default
		}
		g, err := neo4j.Open(ctx, neo4j.Config{URI: cfg.Neo4jURI, User: cfg.Neo4jUser, Password: cfg.Neo4jPassword, Database: cfg.Neo4jDatabase, Logger: app.Log,
			ReadBudget: cfg.Neo4jReadBudget, CircuitFailures: failures, CircuitCooldown: cfg.Neo4jCircuitCooldown})
		if err != nil {
			return nil, fmt.Errorf("connect to NEO4J_URI: %w", err)
		}
		app.closers = append(app.closers, func() { g.Close(context.WithoutCancel(ctx)) })
		if err := g.Migrate(ctx); err != nil {
			return nil, err
		}
		app.Graph = g
		app.pings = append(app.pings, named("graph", g.Ping))
		gr := neo4j.NewGraphRetriever(g)
		gr.Logger = app.Log
		if app.Model != nil {
			gr.Writer = llm.NewBrain(app.Model)
		}
		retrievers[agent.RouteGraph] = gr
		app.Backends = append(app.Backends, "graph: Neo4j")
	} else {
		db, err := openEmbedded()
		if err != nil {
			return nil, err
		}
		gs := sqlite.NewGraphStore(db)
		app.Graph = gs
		retrievers[agent.RouteGraph] = sqlite.NewGraphRetriever(gs)
		app.Backends = append(app.Backends, "graph: SQLite "+cfg.DBPath())
	}

	if cfg.TavilyKey != "" {
		retrievers[agent.RouteWeb] = tavily.New(tavily.Config{APIKey: cfg.TavilyKey, BaseURL: cfg.TavilyBaseURL})
	}
	app.measured(retrievers)
	var docs ingest.DocumentStore = app.Docs
	if cfg.DatabaseURL == "" && cfg.Neo4jURI == "" {
		app.demo = &demoGuard{db: embedded}
		docs = guardedDocs{DocumentStore: docs, guard: app.demo}
	}
	app.Ingest = &ingest.Pipeline{Store: app.Metrics.DocumentStore(docs), Embedder: app.Embedder, Legacy: legacyFiles(app.Docs)}
	if cfg.Demo && cfg.DatabaseURL == "" && cfg.Neo4jURI == "" {
		if err := app.loadDemo(ctx); err != nil {
			return nil, err
		}
	}

	acfg := agent.Config{
		Offline:      offline.New(app.Graph),
		Retrievers:   retrievers,
		Checkpointer: threads,
		Budgets:      agent.Budgets{MaxQuestionChars: cfg.MaxQuestionChars, MaxAnswerChars: cfg.MaxAnswerChars},
		Observer:     app.observer,
		Knowledge:    app.Docs,
	}
	if app.Model != nil {
		acfg.Model = llm.NewBrain(app.Model)
	}
	if app.Agent, err = agent.New(acfg); err != nil {
		return nil, err
	}
	return app, nil
}

// loadDemo fills an empty embedded store with the bundled demo knowledge
// base, so that a fresh install can answer questions at once, and marks it
// as the demo: the user's first ingest removes it (demo.go).
func (app *App) loadDemo(ctx context.Context) error {
	empty, err := app.Docs.Empty(ctx)
	if err != nil || !empty {
		return err
	}
	app.Log.Info("loading the demo knowledge base into the empty store", "path", app.Config.DBPath())
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
	return app.demo.db.MarkDemo(ctx) // removed by the first ingest (demo.go)
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
