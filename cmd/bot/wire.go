package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/examples"
	"github.com/switchboard/switchboard/ingest"
	"github.com/switchboard/switchboard/llm"
	"github.com/switchboard/switchboard/llm/offline"
	"github.com/switchboard/switchboard/sqlite"
	"github.com/switchboard/switchboard/tavily"
)

// App is Switchboard wired from a Config: every New… call is here, so one
// function shows how the parts fit together.
type App struct {
	Config   Config
	Log      *slog.Logger
	DB       *sqlite.DB
	Docs     *sqlite.DocumentStore
	Graph    *sqlite.GraphStore
	Ingest   *ingest.Pipeline
	Agent    *agent.Agent
	Embedder ingest.Embedder
}

// Open builds the App: the embedded store (loading the demo knowledge base
// into an empty one), the model if configured, the retrievers and the agent.
func Open(ctx context.Context, cfg Config, logw io.Writer) (*App, error) {
	app := &App{Config: cfg, Log: newLogger(cfg, logw)}

	var model *llm.Client
	if cfg.ModelConfigured() {
		var err error
		model, err = llm.New(llm.Config{
			APIKey: cfg.OpenAIKey, BaseURL: cfg.OpenAIBaseURL,
			ChatModel: cfg.ChatModel, EmbeddingModel: cfg.EmbeddingModel, EmbeddingDimensions: cfg.EmbeddingDim,
			Timeout: cfg.ModelTimeout, MaxRetries: cfg.ModelRetries,
		})
		if err != nil {
			return nil, &configError{"OPENAI_BASE_URL", err.Error()}
		}
	}
	embedderName := fmt.Sprintf("local-hash-%d", cfg.EmbeddingDim)
	app.Embedder = offline.NewEmbedder(cfg.EmbeddingDim)
	if cfg.Embedder == "openai" {
		embedderName, app.Embedder = "openai:"+cfg.EmbeddingModel, model
	}

	db, err := sqlite.Open(ctx, cfg.DBPath())
	if err != nil {
		return nil, fmt.Errorf("open the embedded store (SWITCHBOARD_DATA_DIR=%s): %w", cfg.DataDir, err)
	}
	app.DB = db
	if err := db.CheckEmbedding(ctx, embedderName, cfg.EmbeddingDim); err != nil {
		db.Close()
		return nil, err
	}
	app.Docs = sqlite.NewDocumentStore(db, embedderName)
	app.Graph = sqlite.NewGraphStore(db)
	app.Ingest = &ingest.Pipeline{Store: app.Docs, Embedder: app.Embedder}
	if cfg.Demo {
		if err := app.loadDemo(ctx); err != nil {
			db.Close()
			return nil, err
		}
	}

	vector := sqlite.NewRetriever(db, app.Embedder)
	vector.Logger = app.Log
	retrievers := map[agent.Route]agent.Retriever{
		agent.RouteVector: vector,
		agent.RouteGraph:  sqlite.NewGraphRetriever(app.Graph),
	}
	if cfg.TavilyKey != "" {
		retrievers[agent.RouteWeb] = tavily.New(tavily.Config{APIKey: cfg.TavilyKey, BaseURL: cfg.TavilyBaseURL})
	}
	acfg := agent.Config{
		Offline:      offline.New(app.Graph),
		Retrievers:   retrievers,
		Checkpointer: sqlite.NewCheckpointer(db),
		Budgets:      agent.Budgets{MaxQuestionChars: cfg.MaxQuestionChars},
	}
	if model != nil {
		acfg.Model = llm.NewBrain(model)
	}
	if app.Agent, err = agent.New(acfg); err != nil {
		db.Close()
		return nil, err
	}
	return app, nil
}

// loadDemo fills an empty embedded store with the bundled demo knowledge
// base, so that a fresh install can answer questions at once.
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
	return nil
}

// Close releases the store.
func (app *App) Close() error { return app.DB.Close() }

func newLogger(cfg Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel)) // validated in LoadConfig
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}
