package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Config is every setting Switchboard reads, all from the environment.
// The README's configuration table is generated from these tags (see
// `bot config`), and a test keeps the two in step.
type Config struct {
	DataDir string `env:"SWITCHBOARD_DATA_DIR" help:"Folder of the embedded SQLite store (default: the user's data dir, e.g. ~/.local/share/switchboard)"`
	Demo    bool   `env:"SWITCHBOARD_DEMO" default:"true" help:"Load the bundled demo knowledge base when the embedded store is empty"`

	OpenAIKey      string        `env:"OPENAI_API_KEY" secret:"true" help:"API key of an OpenAI-compatible server; with OPENAI_BASE_URL alone, a keyless local server (Ollama) is used"`
	OpenAIBaseURL  string        `env:"OPENAI_BASE_URL" help:"Base URL of an OpenAI-compatible API, e.g. http://localhost:11434/v1 for Ollama"`
	ChatModel      string        `env:"OPENAI_CHAT_MODEL" default:"gpt-4o-mini" help:"Chat model name"`
	EmbeddingModel string        `env:"OPENAI_EMBEDDING_MODEL" default:"text-embedding-3-small" help:"Embedding model name, used when EMBEDDER=openai"`
	Embedder       string        `env:"EMBEDDER" default:"local" help:"Embeddings for documents: local (feature hashing, offline) or openai (the embedding model)"`
	EmbeddingDim   int           `env:"EMBEDDING_DIMENSIONS" default:"384" help:"Embedding vector size; must match what the store was built with"`
	ModelTimeout   time.Duration `env:"OPENAI_TIMEOUT" default:"60s" help:"Timeout of one model request"`
	ModelRetries   int           `env:"OPENAI_MAX_RETRIES" default:"3" help:"Retries of a model request on 429, 5xx and network errors"`

	DatabaseURL   string `env:"DATABASE_URL" secret:"true" help:"PostgreSQL (with pgvector) for documents and thread state, e.g. postgres://user:pass@host:5432/switchboard; unset: the embedded SQLite file"`
	Neo4jURI      string `env:"NEO4J_URI" help:"Neo4j for the knowledge graph, e.g. bolt://localhost:7687; unset: the embedded SQLite file"`
	Neo4jUser     string `env:"NEO4J_USER" help:"Neo4j user (empty: no authentication)"`
	Neo4jPassword string `env:"NEO4J_PASSWORD" secret:"true" help:"Neo4j password"`
	Neo4jDatabase string `env:"NEO4J_DATABASE" help:"Neo4j database (empty: the server's default)"`

	TavilyKey     string `env:"TAVILY_API_KEY" secret:"true" help:"Tavily API key; without it the web route says web search is not configured"`
	TavilyBaseURL string `env:"TAVILY_BASE_URL" default:"https://api.tavily.com" help:"Tavily API base URL"`

	HTTPAddr           string        `env:"HTTP_ADDR" default:":8080" help:"Address of the HTTP server of bot serve: /slack/events, /discord/interactions, /healthz, /readyz"`
	SlackBotToken      string        `env:"SLACK_BOT_TOKEN" secret:"true" help:"Slack bot token (xoxb-…)"`
	SlackAppToken      string        `env:"SLACK_APP_TOKEN" secret:"true" help:"Slack app-level token (xapp-…): use Socket Mode, no public URL needed"`
	SlackSigningSecret string        `env:"SLACK_SIGNING_SECRET" secret:"true" help:"Slack signing secret: serve the Events API at POST /slack/events"`
	SlackAPIURL        string        `env:"SLACK_API_URL" default:"https://slack.com/api/" help:"Slack Web API base URL; methods are appended (for proxies and tests)"`
	DiscordMode        string        `env:"DISCORD_MODE" help:"gateway (a bot connection) or http (an interactions endpoint at POST /discord/interactions); empty: Discord off"`
	DiscordBotToken    string        `env:"DISCORD_BOT_TOKEN" secret:"true" help:"Discord bot token (gateway mode; in http mode only to register /ask)"`
	DiscordAppID       string        `env:"DISCORD_APP_ID" help:"Discord application id"`
	DiscordPublicKey   string        `env:"DISCORD_PUBLIC_KEY" help:"Discord application public key (hex), to verify interactions in http mode"`
	DiscordGuildID     string        `env:"DISCORD_GUILD_ID" help:"Register /ask in this guild only (instant); empty: globally"`
	DiscordAPIURL      string        `env:"DISCORD_API_URL" default:"https://discord.com/api/v10/" help:"Discord REST base URL (for proxies and tests)"`
	Workers            int           `env:"MAX_CONCURRENT_QUESTIONS" default:"8" help:"Questions answered at once (questions of one thread always run in order)"`
	QueueSize          int           `env:"MAX_QUEUED_QUESTIONS" default:"100" help:"Questions waiting before askers are told to retry"`
	EditInterval       time.Duration `env:"EDIT_INTERVAL" default:"1s" help:"Least time between two progress edits of one chat message"`
	AnswerTimeout      time.Duration `env:"ANSWER_TIMEOUT" default:"3m" help:"Longest time one answer may take"`
	ShutdownTimeout    time.Duration `env:"SHUTDOWN_TIMEOUT" default:"60s" help:"On SIGTERM, how long answers in flight may take to finish"`

	MaxQuestionChars int    `env:"MAX_QUESTION_CHARS" default:"4000" help:"Longer questions are refused with a clear message"`
	LogLevel         string `env:"LOG_LEVEL" default:"info" help:"debug, info, warn or error"`
}

// configError is a problem with one setting: printed as one line naming it.
type configError struct{ name, msg string }

func (e *configError) Error() string { return "config: " + e.name + ": " + e.msg }

// LoadConfig reads Config from getenv, applying defaults and validating.
func LoadConfig(getenv func(string) string) (Config, error) {
	var c Config
	v := reflect.ValueOf(&c).Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := f.Tag.Get("env")
		raw := strings.TrimSpace(getenv(name))
		if raw == "" {
			raw = f.Tag.Get("default")
		}
		if raw == "" {
			continue
		}
		if err := setField(v.Field(i), raw); err != nil {
			return Config{}, &configError{name, err.Error()}
		}
	}
	return c, c.validate()
}

func setField(fv reflect.Value, raw string) error {
	switch fv.Interface().(type) {
	case string:
		fv.SetString(raw)
	case bool:
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return fmt.Errorf("%q is not true or false", raw)
		}
		fv.SetBool(b)
	case int:
		n, err := strconv.Atoi(raw)
		if err != nil {
			return fmt.Errorf("%q is not a whole number", raw)
		}
		fv.SetInt(int64(n))
	case time.Duration:
		d, err := time.ParseDuration(raw)
		if err != nil {
			return fmt.Errorf("%q is not a duration (e.g. 30s, 2m)", raw)
		}
		fv.SetInt(int64(d))
	default:
		return fmt.Errorf("unsupported setting type %s", fv.Type())
	}
	return nil
}

func (c *Config) validate() error {
	switch c.Embedder {
	case "local", "openai":
	default:
		return &configError{"EMBEDDER", fmt.Sprintf("%q is not local or openai", c.Embedder)}
	}
	if c.Embedder == "openai" && !c.ModelConfigured() {
		return &configError{"EMBEDDER", "openai embeddings need OPENAI_API_KEY or OPENAI_BASE_URL"}
	}
	if c.EmbeddingDim < 8 || c.EmbeddingDim > 16000 {
		return &configError{"EMBEDDING_DIMENSIONS", fmt.Sprintf("%d is outside 8..16000", c.EmbeddingDim)}
	}
	if c.ModelTimeout <= 0 {
		return &configError{"OPENAI_TIMEOUT", "must be positive"}
	}
	if c.ModelRetries < 0 || c.ModelRetries > 10 {
		return &configError{"OPENAI_MAX_RETRIES", fmt.Sprintf("%d is outside 0..10", c.ModelRetries)}
	}
	if c.MaxQuestionChars < 1 {
		return &configError{"MAX_QUESTION_CHARS", "must be at least 1"}
	}
	if c.DatabaseURL != "" && !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") {
		return &configError{"DATABASE_URL", "must start with postgres:// or postgresql://"}
	}
	if u := c.Neo4jURI; u != "" && !strings.Contains(u, "://") {
		return &configError{"NEO4J_URI", fmt.Sprintf("%q is not a URI such as bolt://localhost:7687", u)}
	}
	for name, u := range map[string]string{"OPENAI_BASE_URL": c.OpenAIBaseURL, "TAVILY_BASE_URL": c.TavilyBaseURL} {
		if u != "" && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			return &configError{name, fmt.Sprintf("%q is not an http(s) URL", u)}
		}
	}
	switch c.DiscordMode {
	case "", "gateway", "http":
	default:
		return &configError{"DISCORD_MODE", fmt.Sprintf("%q is not gateway or http", c.DiscordMode)}
	}
	if (c.SlackAppToken != "" || c.SlackSigningSecret != "") && c.SlackBotToken == "" {
		return &configError{"SLACK_BOT_TOKEN", "required with SLACK_APP_TOKEN or SLACK_SIGNING_SECRET"}
	}
	for name, d := range map[string]time.Duration{"EDIT_INTERVAL": c.EditInterval, "ANSWER_TIMEOUT": c.AnswerTimeout, "SHUTDOWN_TIMEOUT": c.ShutdownTimeout} {
		if d <= 0 {
			return &configError{name, "must be positive"}
		}
	}
	if c.Workers < 1 || c.QueueSize < 1 {
		return &configError{"MAX_CONCURRENT_QUESTIONS / MAX_QUEUED_QUESTIONS", "must be at least 1"}
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return &configError{"LOG_LEVEL", fmt.Sprintf("%q is not debug, info, warn or error", c.LogLevel)}
	}
	if c.DataDir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return &configError{"SWITCHBOARD_DATA_DIR", "not set, and there is no home directory to default to"}
		}
		c.DataDir = filepath.Join(home, ".local", "share", "switchboard")
	}
	return nil
}

// SlackConfigured reports whether Slack has what one delivery mode needs.
func (c Config) SlackConfigured() bool {
	return c.SlackBotToken != "" && (c.SlackAppToken != "" || c.SlackSigningSecret != "")
}

// ModelConfigured reports whether a language model is set up.
func (c Config) ModelConfigured() bool { return c.OpenAIKey != "" || c.OpenAIBaseURL != "" }

// DBPath is the embedded store's file.
func (c Config) DBPath() string { return filepath.Join(c.DataDir, "switchboard.db") }
