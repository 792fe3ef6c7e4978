package main

import (
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard/switchboard/bot/slack"
)

// Config is every setting Switchboard reads, all from the environment.
// The README's configuration table is generated from these tags (see
// `switchboard config --docs`), and a test keeps the two in step; `switchboard config`
// shows the values in effect.
type Config struct {
	DataDir string `env:"SWITCHBOARD_DATA_DIR" help:"Folder of the embedded SQLite store (default: the user's data dir, e.g. ~/.local/share/switchboard)"`
	Demo    string `env:"SWITCHBOARD_DEMO" default:"auto" help:"The bundled demo knowledge base (Brightline Labs, a fictional company): auto lets ask and chat load it into an empty embedded store, and serve never answers from it (it says the knowledge base is empty); true lets serve answer from it too; false: never. Marked as the demo, it is removed by your first ingest or graph import before yours is stored, so it is never mixed with your documents"`

	OpenAIKey       string        `env:"OPENAI_API_KEY" secret:"true" help:"API key of an OpenAI-compatible server; with OPENAI_BASE_URL alone, a keyless local server (Ollama) is used"`
	OpenAIBaseURL   string        `env:"OPENAI_BASE_URL" help:"Base URL of an OpenAI-compatible API, e.g. http://localhost:11434/v1 for Ollama"`
	ChatModel       string        `env:"OPENAI_CHAT_MODEL" default:"gpt-4o-mini" help:"Chat model name"`
	EmbeddingModel  string        `env:"OPENAI_EMBEDDING_MODEL" default:"text-embedding-3-small" help:"Embedding model name, used when EMBEDDER=openai"`
	Embedder        string        `env:"EMBEDDER" default:"local" help:"Embeddings for documents: local (feature hashing, offline) or openai (the embedding model)"`
	EmbeddingDim    int           `env:"EMBEDDING_DIMENSIONS" default:"384" help:"Embedding vector size; must match what the store was built with"`
	ModelTimeout    time.Duration `env:"OPENAI_TIMEOUT" default:"60s" help:"Timeout of one model request"`
	ModelRetries    int           `env:"OPENAI_MAX_RETRIES" default:"3" help:"Retries of a model request on 429, 5xx and network errors"`
	Temperature     float64       `env:"OPENAI_TEMPERATURE" default:"0" help:"Sampling temperature of answers, sent on every request (decisions always use 0); -1 leaves it to the server, for reasoning models"`
	ModelConcurrent int           `env:"OPENAI_MAX_CONCURRENT" default:"0" help:"Most requests in flight to the model server at once (a local llama.cpp server answers one at a time: set 1); switchboard eval answers no more cases at once; 0: no bound"`
	MaxTokens       int           `env:"OPENAI_MAX_TOKENS" default:"1024" help:"Longest answer the model may write, in tokens; decisions are bounded to 512"`
	CircuitFailures int           `env:"MODEL_CIRCUIT_FAILURES" default:"5" help:"Model requests failed in a row (after retries) that open the circuit: answers go offline at once instead of waiting on a server that is down; 0: never"`
	CircuitCooldown time.Duration `env:"MODEL_CIRCUIT_COOLDOWN" default:"30s" help:"How long an open model circuit waits before it lets one request through as a probe; meanwhile the server is pinged (GET /models) every second, and the first success, or a /readyz that finds it answering, closes it"`

	DatabaseURL   string `env:"DATABASE_URL" secret:"true" help:"PostgreSQL (with pgvector) for documents and thread state, e.g. postgres://user:pass@host:5432/switchboard; unset: the embedded SQLite file"`
	Neo4jURI      string `env:"NEO4J_URI" help:"Neo4j for the knowledge graph, e.g. bolt://localhost:7687; unset: the embedded SQLite file"`
	Neo4jUser     string `env:"NEO4J_USER" help:"Neo4j user (empty: no authentication)"`
	Neo4jPassword string `env:"NEO4J_PASSWORD" secret:"true" help:"Neo4j password"`
	Neo4jDatabase string `env:"NEO4J_DATABASE" help:"Neo4j database (empty: the server's default)"`
	// The graph's outage handling, like the model's circuit above.
	Neo4jReadBudget      time.Duration `env:"NEO4J_READ_BUDGET" default:"5s" help:"How long one graph read may spend reaching a Neo4j that does not answer (connecting, retrying); a graph question gives up at its first such read and tells the asker the knowledge graph is unavailable"`
	Neo4jCircuitFailures int           `env:"NEO4J_CIRCUIT_FAILURES" default:"3" help:"Graph reads failed in a row (Neo4j unreachable) that open the circuit: graph questions then fail at once instead of waiting on a server that is down; 0: never"`
	Neo4jCircuitCooldown time.Duration `env:"NEO4J_CIRCUIT_COOLDOWN" default:"30s" help:"How long an open Neo4j circuit waits before it lets one graph read through as a probe; meanwhile Neo4j is pinged (RETURN 1) every second, and the first success, or a /readyz that finds it answering, closes it"`

	TavilyKey     string `env:"TAVILY_API_KEY" secret:"true" help:"Tavily API key; without it the web route says web search isn't set up here"`
	TavilyBaseURL string `env:"TAVILY_BASE_URL" default:"https://api.tavily.com" help:"Tavily API base URL"`

	DocsBaseURL     string `env:"DOCS_BASE_URL" help:"Where people read the files switchboard ingest loads, e.g. https://github.com/acme/handbook/blob/main/: a file's source links to this URL followed by the file's path from the top of its Git checkout (outside one, from the folder named); a url: in a Markdown file's front matter wins; empty: only url: links files"`
	IngestAdmins    string `env:"INGEST_ADMINS" help:"Who may ingest a channel from chat (@Switchboard ingest this channel, /ingest): user ids separated by commas, as slack:U123 or discord:123456 (a bare id counts on either platform); empty: nobody"`
	SettingsAdmins  string `env:"SETTINGS_ADMINS" help:"Who may change channels' settings in chat (/switchboard settings) besides Slack's workspace admins and owners and Discord members allowed to manage the channel: user ids as in INGEST_ADMINS; Slack does not tell apps who manages a channel"`
	IngestMaxFileMB int    `env:"INGEST_MAX_FILE_MB" default:"20" help:"Largest file attached to a chat message (text, Markdown, HTML, PDF) that chat ingestion reads, in MB"`
	GraphExtract    string `env:"GRAPH_EXTRACT" default:"auto" help:"Graph facts from ingested chat, public channels only: auto (the model when one is configured, else rules), rules (explicit sentence patterns, offline) or off"`
	GraphLabels     string `env:"GRAPH_LABELS" default:"Organization,Person,Product,System,Team,Project,Location" help:"Entity labels graph extraction may use, separated by commas"`
	GraphRelations  string `env:"GRAPH_RELATIONS" default:"SUPPLIES,CUSTOMER_OF,OWNS,PARTNERS_WITH,WORKS_FOR,MANAGES,REPORTS_TO,USES,DEPENDS_ON,ACQUIRED,PART_OF,LOCATED_IN" help:"Relationship types graph extraction may use, separated by commas"`

	HTTPAddr           string        `env:"HTTP_ADDR" default:":8080" help:"Address of the HTTP server of switchboard serve: /slack/events, /discord/interactions, /healthz, /readyz, /metrics"`
	SlackBotToken      string        `env:"SLACK_BOT_TOKEN" secret:"true" help:"Slack bot token (xoxb-…)"`
	SlackAppToken      string        `env:"SLACK_APP_TOKEN" secret:"true" help:"Slack app-level token (xapp-…): use Socket Mode, no public URL needed"`
	SlackSigningSecret string        `env:"SLACK_SIGNING_SECRET" secret:"true" help:"Slack signing secret: serve the Events API at POST /slack/events"`
	SlackAPIURL        string        `env:"SLACK_API_URL" default:"https://slack.com/api/" help:"Slack Web API base URL; methods are appended (for proxies and tests)"`
	SlackNative        bool          `env:"SLACK_NATIVE" default:"true" help:"Use Slack's AI-app surface: progress as the thread's status, answers streamed (chat.startStream) with native feedback buttons; a workspace that refuses streaming gets posted and edited answers. false: always post and edit"`
	SlackThreadReplies string        `env:"SLACK_THREAD_REPLIES" default:"asker" help:"Which replies in a thread the bot answered in are questions without a mention: asker (the people it answered there), anyone, or mention-only; the default of channels whose settings (/switchboard settings, switchboard channels) name no reply mode"`
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
	ThreadRetention    time.Duration `env:"THREAD_RETENTION" default:"2160h" help:"switchboard serve deletes conversation threads idle longer than this (2160h: 90 days), checking every RETENTION_INTERVAL; 0: keep them"`
	EventRetention     time.Duration `env:"EVENT_RETENTION" default:"48h" help:"switchboard serve forgets after this the chat deliveries it remembers to answer each question once and the questions answered (and, with PostgreSQL, the limits' old counts); platforms stop retrying within hours; 0: keep them"`
	QuestionLease      time.Duration `env:"QUESTION_LEASE" default:"30s" help:"How long a claim on a question being answered lasts without renewal (renewed every third of it): how soon another replica (with DATABASE_URL), or the bot after a restart, takes over the questions of a process that died"`
	RetentionInterval  time.Duration `env:"RETENTION_INTERVAL" default:"1h" help:"How often switchboard serve prunes what it keeps for a while (threads, deliveries, answered questions), starting when it starts"`

	MaxQuestionChars int    `env:"MAX_QUESTION_CHARS" default:"4000" help:"Longer questions are refused with a clear message"`
	MaxAnswerChars   int    `env:"MAX_ANSWER_CHARS" default:"6000" help:"Longer answers are cut at a paragraph and end with \"… (answer shortened)\"; 0: no limit"`
	Speculate        bool   `env:"SPECULATIVE_GRADING" default:"false" help:"Grade the documents found for a question while the router decides: one model round trip less for document questions, grading calls spent for nothing on the others (counted as discarded)"`
	UserRate         int    `env:"RATE_LIMIT_USER_PER_MIN" default:"10" help:"Questions one person may ask per minute (a burst of this many, then one every 60/N s); over it they are told when to retry; 0: no limit"`
	ChannelRate      int    `env:"RATE_LIMIT_CHANNEL_PER_MIN" default:"60" help:"Questions one channel may ask per minute, all people together; 0: no limit"`
	DailyTokens      int    `env:"DAILY_TOKEN_BUDGET" default:"0" help:"Model tokens one workspace or guild may use per UTC day, counted call by call: a call that would pass it is not made, and the rest of that answer uses the offline engine and says when the budget renews; 0: no limit"`
	UserTokens       string `env:"TOKEN_BUDGET_PER_USER" default:"25%" help:"Model tokens one person may use per UTC day, within the workspace's: a number, or a percentage of DAILY_TOKEN_BUDGET; past it, that person's answers use the offline engine and say when it renews; 0: no limit of their own"`

	LogLevel     string `env:"LOG_LEVEL" default:"info" help:"debug, info, warn or error"`
	LogFormat    string `env:"LOG_FORMAT" default:"auto" help:"json, text, or auto: text when stderr is a terminal, else JSON"`
	OTLPEndpoint string `env:"OTEL_EXPORTER_OTLP_ENDPOINT" help:"OTLP/HTTP endpoint for traces, e.g. http://localhost:4318 (spans go to /v1/traces); empty: tracing off"`
	ServiceName  string `env:"OTEL_SERVICE_NAME" default:"switchboard" help:"Service name in traces"`
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
	case float64:
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", raw)
		}
		fv.SetFloat(f)
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
	if c.Temperature != -1 && (c.Temperature < 0 || c.Temperature > 2) {
		return &configError{"OPENAI_TEMPERATURE", fmt.Sprintf("%g is outside 0..2 (or -1 for the server's own)", c.Temperature)}
	}
	if c.ModelConcurrent < 0 || c.ModelConcurrent > 256 {
		return &configError{"OPENAI_MAX_CONCURRENT", fmt.Sprintf("%d is outside 0..256", c.ModelConcurrent)}
	}
	if c.MaxTokens < 16 || c.MaxTokens > 32768 {
		return &configError{"OPENAI_MAX_TOKENS", fmt.Sprintf("%d is outside 16..32768", c.MaxTokens)}
	}
	if c.ModelRetries < 0 || c.ModelRetries > 10 {
		return &configError{"OPENAI_MAX_RETRIES", fmt.Sprintf("%d is outside 0..10", c.ModelRetries)}
	}
	if err := c.validateDemo(); err != nil {
		return err
	}
	if c.MaxQuestionChars < 1 {
		return &configError{"MAX_QUESTION_CHARS", "must be at least 1"}
	}
	if err := c.validateIngest(); err != nil {
		return err
	}
	if c.MaxAnswerChars != 0 && c.MaxAnswerChars < 100 {
		return &configError{"MAX_ANSWER_CHARS", fmt.Sprintf("%d leaves no room for an answer: use at least 100, or 0 for no limit", c.MaxAnswerChars)}
	}
	for name, n := range map[string]int{"MODEL_CIRCUIT_FAILURES": c.CircuitFailures, "NEO4J_CIRCUIT_FAILURES": c.Neo4jCircuitFailures, "RATE_LIMIT_USER_PER_MIN": c.UserRate,
		"RATE_LIMIT_CHANNEL_PER_MIN": c.ChannelRate, "DAILY_TOKEN_BUDGET": c.DailyTokens} {
		if n < 0 {
			return &configError{name, "must not be negative (0 turns it off)"}
		}
	}
	if _, err := share(c.UserTokens, c.DailyTokens); err != nil {
		return &configError{"TOKEN_BUDGET_PER_USER", err.Error()}
	}
	if c.RetentionInterval <= 0 {
		return &configError{"RETENTION_INTERVAL", "must be positive"}
	}
	for name, d := range map[string]time.Duration{"THREAD_RETENTION": c.ThreadRetention, "EVENT_RETENTION": c.EventRetention} {
		if d < 0 {
			return &configError{name, "must not be negative (0 keeps them)"}
		}
	}
	if c.CircuitCooldown <= 0 {
		return &configError{"MODEL_CIRCUIT_COOLDOWN", "must be positive"}
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
	if err := validDocsBaseURL(c.DocsBaseURL); err != nil {
		return &configError{"DOCS_BASE_URL", err.Error()}
	}
	switch c.DiscordMode {
	case "", "gateway", "http":
	default:
		return &configError{"DISCORD_MODE", fmt.Sprintf("%q is not gateway or http", c.DiscordMode)}
	}
	switch c.SlackThreadReplies {
	case slack.RepliesAsker, slack.RepliesAnyone, slack.RepliesMentionOnly:
	default:
		return &configError{"SLACK_THREAD_REPLIES", fmt.Sprintf("%q is not asker, anyone or mention-only", c.SlackThreadReplies)}
	}
	if (c.SlackAppToken != "" || c.SlackSigningSecret != "") && c.SlackBotToken == "" {
		return &configError{"SLACK_BOT_TOKEN", "required with SLACK_APP_TOKEN or SLACK_SIGNING_SECRET"}
	}
	if err := slackTokenKind("SLACK_BOT_TOKEN", c.SlackBotToken); err != nil {
		return err
	}
	if err := slackTokenKind("SLACK_APP_TOKEN", c.SlackAppToken); err != nil {
		return err
	}
	for name, d := range map[string]time.Duration{"EDIT_INTERVAL": c.EditInterval, "ANSWER_TIMEOUT": c.AnswerTimeout, "SHUTDOWN_TIMEOUT": c.ShutdownTimeout,
		"NEO4J_READ_BUDGET": c.Neo4jReadBudget, "NEO4J_CIRCUIT_COOLDOWN": c.Neo4jCircuitCooldown} {
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
	switch c.LogFormat {
	case "json", "text", "auto":
	default:
		return &configError{"LOG_FORMAT", fmt.Sprintf("%q is not json, text or auto", c.LogFormat)}
	}
	if u := c.OTLPEndpoint; u != "" && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return &configError{"OTEL_EXPORTER_OTLP_ENDPOINT", fmt.Sprintf("%q is not an http(s) URL (traces are sent over OTLP/HTTP)", u)}
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

// slackTokens are the kinds of Slack token by prefix: the setting each
// belongs in (none: Switchboard takes none of that kind) and where Slack
// shows it. Rotating tokens are prefixed "xoxe." (xoxe.xoxb-…).
var slackTokens = []struct{ prefix, kind, setting, where string }{
	{"xoxb-", "a bot token", "SLACK_BOT_TOKEN", "OAuth & Permissions → Bot User OAuth Token"},
	{"xapp-", "an app-level token", "SLACK_APP_TOKEN", "Basic Information → App-Level Tokens, with connections:write"},
	{"xoxp-", "a user token", "", ""},
	{"xoxe-", "a refresh token", "", ""},
}

// slackTokenKind checks that the token in setting name is of the kind
// that setting takes, by its prefix, and says what it is and where it
// belongs when it is not: an app-level token given as the bot token
// would otherwise fail only at Slack, as "not_allowed_token_type", or
// pass auth.test and fail later. The token itself is never shown.
func slackTokenKind(name, token string) error {
	if token == "" {
		return nil
	}
	token = strings.TrimPrefix(token, "xoxe.")
	var want string
	for _, k := range slackTokens {
		if k.setting == name {
			if strings.HasPrefix(token, k.prefix) {
				return nil
			}
			want = fmt.Sprintf("%s takes %s, %s… (%s)", name, k.kind, k.prefix, k.where)
		}
	}
	for _, k := range slackTokens {
		if !strings.HasPrefix(token, k.prefix) {
			continue
		}
		goes := "which Switchboard does not use"
		if k.setting != "" {
			goes = "which goes in " + k.setting
		}
		return &configError{name, fmt.Sprintf("%s (%s…) was given, %s; %s", k.kind, k.prefix, goes, want)}
	}
	return &configError{name, "this is not a Slack token; " + want}
}

// validDocsBaseURL checks DOCS_BASE_URL: an http(s) URL with a host, to
// which file paths are appended, so without a query or fragment.
func validDocsBaseURL(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return fmt.Errorf("%q is not an http(s) URL such as https://github.com/acme/handbook/blob/main/", s)
	case u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "#"):
		return fmt.Errorf("%q has a query or fragment: file paths are appended to it", s)
	case u.User != nil:
		return fmt.Errorf("%q has a user name: links are shown to everyone", s)
	}
	return nil
}

// validateDemo reads SWITCHBOARD_DEMO: auto, or true or false in any
// spelling strconv.ParseBool takes, kept as "auto", "true" or "false".
func (c *Config) validateDemo() error {
	if strings.EqualFold(c.Demo, "auto") {
		c.Demo = "auto"
		return nil
	}
	b, err := strconv.ParseBool(c.Demo)
	if err != nil {
		return &configError{"SWITCHBOARD_DEMO", fmt.Sprintf("%q is not auto, true or false", c.Demo)}
	}
	c.Demo = strconv.FormatBool(b)
	return nil
}

// DemoFor reports whether the command cmd may load the demo knowledge
// base into an empty embedded store and answer from it: ask and chat
// unless SWITCHBOARD_DEMO=false, serve only when SWITCHBOARD_DEMO=true.
// serve answers real people in a real workspace, who must never be
// answered from a fictional company because nobody turned the demo off.
func (c Config) DemoFor(cmd string) bool {
	switch cmd {
	case "ask", "chat":
		return c.Demo != "false"
	case "serve":
		return c.Demo == "true"
	}
	return false // ingest, graph import and migrate never load it
}

// SlackConfigured reports whether Slack has what one delivery mode needs.
func (c Config) SlackConfigured() bool {
	return c.SlackBotToken != "" && (c.SlackAppToken != "" || c.SlackSigningSecret != "")
}

// ModelConfigured reports whether a language model is set up.
func (c Config) ModelConfigured() bool { return c.OpenAIKey != "" || c.OpenAIBaseURL != "" }

// DBPath is the embedded store's file.
func (c Config) DBPath() string { return filepath.Join(c.DataDir, "switchboard.db") }

// TokensPerUser is the model tokens one person may use per UTC day
// (TOKEN_BUDGET_PER_USER), 0 for no limit of their own.
func (c Config) TokensPerUser() int {
	n, _ := share(c.UserTokens, c.DailyTokens) // checked by validate
	return n
}

// share reads a person's share of a daily budget of perDay tokens: a
// number of tokens, or a percentage of perDay ("25%"; 0 when perDay is,
// as the workspace then has no limit to share).
func share(raw string, perDay int) (int, error) {
	raw = strings.TrimSpace(raw)
	if pct, ok := strings.CutSuffix(raw, "%"); ok {
		p, err := strconv.ParseFloat(strings.TrimSpace(pct), 64)
		if err != nil || math.IsNaN(p) || p < 0 || p > 100 {
			return 0, fmt.Errorf("%q is not a percentage from 0%% to 100%%", raw)
		}
		return int(math.Ceil(p / 100 * float64(perDay))), nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a number of tokens or a percentage of DAILY_TOKEN_BUDGET such as 25%%", raw)
	}
	return n, nil
}
