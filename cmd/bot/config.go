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

	OpenAIKey       string        `env:"OPENAI_API_KEY" secret:"true" help:"API key of an OpenAI-compatible server; with OPENAI_BASE_URL alone, a keyless local server (Ollama) is used"`
	OpenAIBaseURL   string        `env:"OPENAI_BASE_URL" help:"Base URL of an OpenAI-compatible API, e.g. http://localhost:11434/v1 for Ollama"`
	ChatModel       string        `env:"OPENAI_CHAT_MODEL" default:"gpt-4o-mini" help:"Chat model name"`
	EmbeddingModel  string        `env:"OPENAI_EMBEDDING_MODEL" default:"text-embedding-3-small" help:"Embedding model name, used when EMBEDDER=openai"`
	Embedder        string        `env:"EMBEDDER" default:"local" help:"Embeddings for documents: local (feature hashing, offline) or openai (the embedding model)"`
	EmbeddingDim    int           `env:"EMBEDDING_DIMENSIONS" default:"384" help:"Embedding vector size; must match what the store was built with"`
	ModelTimeout    time.Duration `env:"OPENAI_TIMEOUT" default:"60s" help:"Timeout of one model request"`
	ModelRetries    int           `env:"OPENAI_MAX_RETRIES" default:"3" help:"Retries of a model request on 429, 5xx and network errors"`

	TavilyKey     string `env:"TAVILY_API_KEY" secret:"true" help:"Tavily API key; without it the web route says web search is not configured"`
	TavilyBaseURL string `env:"TAVILY_BASE_URL" default:"https://api.tavily.com" help:"Tavily API base URL"`

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
	for name, u := range map[string]string{"OPENAI_BASE_URL": c.OpenAIBaseURL, "TAVILY_BASE_URL": c.TavilyBaseURL} {
		if u != "" && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			return &configError{name, fmt.Sprintf("%q is not an http(s) URL", u)}
		}
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

// ModelConfigured reports whether a language model is set up.
func (c Config) ModelConfigured() bool { return c.OpenAIKey != "" || c.OpenAIBaseURL != "" }

// DBPath is the embedded store's file.
func (c Config) DBPath() string { return filepath.Join(c.DataDir, "switchboard.db") }
