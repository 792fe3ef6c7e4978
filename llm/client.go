package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/internal/retry"
)

// Defaults for the zero values of Config.
const (
	DefaultBaseURL    = "https://api.openai.com/v1"
	DefaultTimeout    = 60 * time.Second
	DefaultMaxRetries = 3
	embedBatch        = 64 // texts per embeddings request
)

// ErrBadOutput means the model answered, but not with what was asked for:
// invalid JSON, a missing field, an unknown route, an empty reply. Callers
// can tell it apart from transport errors with errors.Is.
var ErrBadOutput = errors.New("unusable model output")

// Config says which server and models a Client uses. cmd/bot fills it from
// flags and the environment; nothing in this package reads the environment.
type Config struct {
	// APIKey is sent as a bearer token. Local servers (Ollama, LM Studio)
	// need none.
	APIKey string
	// BaseURL is the API root, e.g. http://localhost:11434/v1 for Ollama.
	// Empty means OpenAI. A URL with no path gets /v1, which is where every
	// OpenAI-compatible server we know of mounts the API.
	BaseURL string
	// ChatModel is used by Chat, JSON and the Brain.
	ChatModel string
	// EmbeddingModel is used by Embed.
	EmbeddingModel string
	// EmbeddingDimensions, when set, is requested from the server (models
	// such as text-embedding-3-* can shorten their vectors) and every
	// returned vector must have exactly this length.
	EmbeddingDimensions int
	// Timeout bounds each HTTP attempt; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxRetries is how many times a request that failed with a network
	// error, a timeout, 408, 429 or 5xx is sent again; 0 means
	// DefaultMaxRetries and a negative value means never.
	MaxRetries int
	// HTTPClient, when set, supplies the transport, proxy and TLS settings.
	// Its Timeout, if any, spans all retries of a request.
	HTTPClient *http.Client
	// Temperature for chat requests. 0 leaves it to the server's default
	// (go-openai omits a zero temperature), which reasoning models require.
	Temperature float32
	// Breaker stops calling a server that keeps failing (see
	// BreakerConfig); the zero value turns it off.
	Breaker BreakerConfig
}

// Message is one chat message. Role is RoleSystem, RoleUser or RoleAssistant.
type Message struct {
	Role    string
	Content string
}

// Message roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Client talks to one OpenAI-compatible server. It is safe for concurrent use.
type Client struct {
	api *openai.Client
	cfg Config
	rt  *retryTransport

	// record reports usage; it is agent.RecordUsage except in tests, since
	// the agent keeps its run meter to itself.
	record func(context.Context, agent.Usage)

	// plainJSON is set once the server has rejected response_format and
	// accepted the same request without it, so later calls skip the
	// doomed first attempt.
	plainJSON atomic.Bool
}

// New returns a Client for cfg. It fails only on a malformed BaseURL; it does
// not contact the server.
func New(cfg Config) (*Client, error) {
	base, err := normalizeBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("llm: %w", err)
	}
	cfg.BaseURL = base
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = DefaultMaxRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}

	// Copy the caller's client rather than changing it: it may be shared.
	hc := &http.Client{}
	if cfg.HTTPClient != nil {
		*hc = *cfg.HTTPClient
	}
	rt := &retryTransport{base: hc.Transport, retries: cfg.MaxRetries, timeout: cfg.Timeout, sleep: retry.Sleep}
	if rt.base == nil {
		rt.base = http.DefaultTransport
	}
	hc.Transport = rt
	if cfg.Breaker.Failures > 0 {
		hc.Transport = &breakerTransport{base: rt, b: newBreaker(cfg.Breaker)}
	}

	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = base
	oc.HTTPClient = hc
	return &Client{api: openai.NewClientWithConfig(oc), cfg: cfg, rt: rt, record: agent.RecordUsage}, nil
}

func normalizeBaseURL(s string) (string, error) {
	if s == "" {
		return DefaultBaseURL, nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("base URL %q is not an http(s) URL", s)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1"
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// Chat sends msgs and returns the reply's text.
func (c *Client) Chat(ctx context.Context, msgs []Message) (string, error) {
	return c.chat(ctx, "chat", msgs)
}

// chat is Chat with the operation named in errors, so that the Brain's
// failures say "llm: generate: …" rather than "llm: chat: …".
func (c *Client) chat(ctx context.Context, op string, msgs []Message) (string, error) {
	content, err := c.complete(ctx, msgs, nil)
	if err != nil {
		return "", fmt.Errorf("llm: %s: %w", op, err)
	}
	if strings.TrimSpace(content) == "" {
		return "", fmt.Errorf("llm: %s: %w: empty reply", op, ErrBadOutput)
	}
	return content, nil
}

// JSON asks for a reply that conforms to schema (a JSON schema for an object)
// and decodes it into out, which must be a non-nil pointer. name names the
// schema for the server and the operation in errors.
//
// It asks for structured output (response_format json_schema, strict). Many
// compatible servers ignore that or reject it, so JSON also puts the schema
// in the system prompt and is forgiving about the reply: it takes the first
// JSON object out of prose or code fences, and checks that the schema's
// required properties are present. When the reply still cannot be used it
// asks once more, telling the model what was wrong. The error then wraps
// ErrBadOutput.
func (c *Client) JSON(ctx context.Context, msgs []Message, name string, schema json.RawMessage, out any) error {
	if name == "" {
		name = "json"
	}
	if err := checkTarget(out); err != nil {
		return fmt.Errorf("llm: %s: %w", name, err)
	}
	required, err := requiredFields(schema)
	if err != nil {
		return fmt.Errorf("llm: %s: schema: %w", name, err)
	}
	msgs = withSchema(msgs, schema)
	format := &openai.ChatCompletionResponseFormat{
		Type:       openai.ChatCompletionResponseFormatTypeJSONSchema,
		JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: name, Schema: schema, Strict: true},
	}
	if c.plainJSON.Load() {
		format = nil
	}

	content, err := c.complete(ctx, msgs, format)
	if err != nil && format != nil && isBadRequest(err) {
		// The server does not do structured output (or not this schema);
		// the schema in the prompt and the lenient decoding must do.
		format = nil
		content, err = c.complete(ctx, msgs, nil)
		if err == nil {
			c.plainJSON.Store(true)
		}
	}
	if err != nil {
		return fmt.Errorf("llm: %s: %w", name, err)
	}
	derr := decodeJSON(content, required, out)
	if derr == nil {
		return nil
	}

	repair := append(append([]Message(nil), msgs...),
		Message{Role: RoleAssistant, Content: content},
		Message{Role: RoleUser, Content: fmt.Sprintf(
			"Your reply could not be used: %v. Reply again with only the JSON object that the schema describes: no prose, no code fences.", derr)},
	)
	content, err = c.complete(ctx, repair, format)
	if err != nil {
		return fmt.Errorf("llm: %s: reply was not valid JSON (%v) and the retry failed: %w", name, derr, err)
	}
	if err := decodeJSON(content, required, out); err != nil {
		return fmt.Errorf("llm: %s: %w: reply is not valid JSON even after a retry: %v", name, ErrBadOutput, err)
	}
	return nil
}

// withSchema appends the schema to the first system message (or adds one),
// for servers that ignore response_format. It goes into the first system
// message because some chat templates reject a system message anywhere else,
// and at its end so that the prompt's "TASK:" line stays first.
func withSchema(msgs []Message, schema json.RawMessage) []Message {
	hint := "Reply with a single JSON object, and nothing else, that conforms to this JSON schema:\n" + string(schema)
	out := append([]Message(nil), msgs...)
	for i, m := range out {
		if m.Role == RoleSystem {
			out[i].Content = strings.TrimRight(m.Content, "\n") + "\n\n" + hint
			return out
		}
	}
	return append([]Message{{Role: RoleSystem, Content: hint}}, out...)
}

// isBadRequest reports whether the server refused the request as malformed,
// which is how servers without structured output answer response_format.
func isBadRequest(err error) bool {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return apiErr.HTTPStatusCode == http.StatusBadRequest || apiErr.HTTPStatusCode == http.StatusUnprocessableEntity
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode == http.StatusBadRequest || reqErr.HTTPStatusCode == http.StatusUnprocessableEntity
	}
	return false
}

// complete makes one chat completion (with the transport's retries) and
// records its usage.
func (c *Client) complete(ctx context.Context, msgs []Message, format *openai.ChatCompletionResponseFormat) (string, error) {
	if c.cfg.ChatModel == "" {
		return "", errors.New("no chat model configured")
	}
	req := openai.ChatCompletionRequest{
		Model:          c.cfg.ChatModel,
		Messages:       make([]openai.ChatCompletionMessage, len(msgs)),
		Temperature:    c.cfg.Temperature,
		ResponseFormat: format,
	}
	for i, m := range msgs {
		req.Messages[i] = openai.ChatCompletionMessage{Role: m.Role, Content: m.Content}
	}
	resp, err := c.api.CreateChatCompletion(ctx, req)
	if err != nil {
		return "", circuitError(err)
	}
	c.record(ctx, agent.Usage{
		Calls:            1,
		PromptTokens:     resp.Usage.PromptTokens,
		CompletionTokens: resp.Usage.CompletionTokens,
	})
	if len(resp.Choices) == 0 {
		return "", fmt.Errorf("%w: no choices in reply", ErrBadOutput)
	}
	msg := resp.Choices[0].Message
	if msg.Content == "" && msg.Refusal != "" {
		return "", fmt.Errorf("%w: model refused: %s", ErrBadOutput, msg.Refusal)
	}
	return stripThinking(msg.Content), nil
}

// Embed returns one vector per text, in order. Texts are sent in batches of
// 64; usage is recorded per request.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	if c.cfg.EmbeddingModel == "" {
		return nil, errors.New("llm: embed: no embedding model configured")
	}
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += embedBatch {
		batch := texts[start:min(start+embedBatch, len(texts))]
		vecs, err := c.embedBatch(ctx, batch)
		if err != nil {
			return nil, fmt.Errorf("llm: embed: texts %d-%d: %w", start, start+len(batch)-1, err)
		}
		out = append(out, vecs...)
	}
	// Vectors of different lengths cannot share an index, so a server that
	// changes dimensions midway is an error, not a detail.
	want := c.cfg.EmbeddingDimensions
	if want == 0 {
		want = len(out[0])
	}
	for i, v := range out {
		if len(v) != want || len(v) == 0 {
			return nil, fmt.Errorf("llm: embed: %w: vector %d has %d dimensions, want %d", ErrBadOutput, i, len(v), want)
		}
	}
	return out, nil
}

func (c *Client) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	resp, err := c.api.CreateEmbeddings(ctx, openai.EmbeddingRequest{
		Input:      texts,
		Model:      openai.EmbeddingModel(c.cfg.EmbeddingModel),
		Dimensions: c.cfg.EmbeddingDimensions,
	})
	if err != nil {
		return nil, circuitError(err)
	}
	c.record(ctx, agent.Usage{Calls: 1, PromptTokens: resp.Usage.PromptTokens})
	if len(resp.Data) != len(texts) {
		return nil, fmt.Errorf("%w: %d vectors for %d texts", ErrBadOutput, len(resp.Data), len(texts))
	}
	// The API numbers each vector with the index of its input; trust that
	// over the order of the array.
	vecs := make([][]float32, len(texts))
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= len(texts) || vecs[d.Index] != nil {
			return nil, fmt.Errorf("%w: bad or repeated vector index %d", ErrBadOutput, d.Index)
		}
		vecs[d.Index] = d.Embedding
	}
	return vecs, nil
}
