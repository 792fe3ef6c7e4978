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
	"github.com/switchboard/switchboard/internal/breaker"
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
// can tell it apart from transport errors with errors.Is. It is
// agent.ErrBadOutput, so that the agent falls back for that call only.
var ErrBadOutput = agent.ErrBadOutput

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
	// Temperature of answers (generate, direct); decisions are always made
	// at 0. It is sent on every request, 0 included. A negative value
	// leaves it to the server, for reasoning models that accept no other.
	Temperature float32
	// MaxConcurrent bounds the requests in flight to the server at once
	// (a local model server answers one or two at a time); 0: no bound.
	MaxConcurrent int
	// MaxTokens bounds an answer's length; 0 means DefaultMaxTokens.
	// Decisions are bounded by DecisionMaxTokens.
	MaxTokens int
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
	api     *openai.Client
	cfg     Config
	rt      *retryTransport
	breaker *breaker.Breaker // nil: none

	// begin holds a request's most tokens from the run's budget before it
	// is sent, and returns what reports its usage once it is over; it is
	// agent.StartCall except in tests, since the agent keeps its run meter
	// to itself.
	begin func(ctx context.Context, tokens int) (done func(agent.Usage), err error)
	// density is the most prompt tokens per kibibyte of prompt the server
	// has reported (at least defaultDensity): what a request's prompt is
	// estimated at before it is sent (see reserve).
	density atomic.Int64

	// format is the structured-output mode this server and model take
	// (formatUnknown until the first JSON call finds it), so that later
	// calls skip the modes it refuses.
	format atomic.Int32
	// noStream is set once the server has been found not to stream
	// answers (stream.go): later answers are asked for whole.
	noStream atomic.Bool
}

// Structured-output modes, from the most to the least the server does.
const (
	formatUnknown    int32 = iota
	formatJSONSchema       // response_format json_schema, strict
	formatJSONObject       // response_format json_object, the schema in the prompt
	formatPrompt           // the schema in the prompt only, parsed leniently
)

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
	rt := &retryTransport{base: keepIdle(hc.Transport), retries: cfg.MaxRetries, timeout: cfg.Timeout, sleep: retry.Sleep}
	hc.Transport = rt
	if cfg.MaxConcurrent > 0 {
		hc.Transport = limit{base: hc.Transport, slots: make(chan struct{}, cfg.MaxConcurrent)}
	}
	c := &Client{cfg: cfg, rt: rt, begin: agent.StartCall}
	c.density.Store(defaultDensity)
	if cfg.Breaker.Failures > 0 {
		c.breaker = newBreaker(cfg.Breaker, c.ping)
		hc.Transport = &breakerTransport{base: hc.Transport, b: c.breaker}
	}
	hc.Transport = watchDone{base: requestFixes{base: hc.Transport}}

	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = base
	oc.HTTPClient = hc
	c.api = openai.NewClientWithConfig(oc)
	return c, nil
}

// idleConnsPerHost is how many idle connections to the server the client
// keeps: a grading wave sends a retrieval's documents at once (six by
// default, more when questions run side by side), and net/http keeps two,
// so each wave would dial again the connections it opened the time before
// (to a real API: TLS handshakes).
const idleConnsPerHost = 32

// keepIdle returns the transport to send with: base (http.DefaultTransport
// when nil), and if it is a *http.Transport that keeps the default two
// idle connections per host, a copy that keeps idleConnsPerHost.
func keepIdle(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	t, ok := base.(*http.Transport)
	if !ok || t.MaxIdleConnsPerHost != 0 {
		return base // the caller's own settings
	}
	t = t.Clone()
	t.MaxIdleConnsPerHost = idleConnsPerHost
	return t
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

// Chat sends msgs and returns the reply's text. A reply the model did
// not finish (finish_reason "length") is an error wrapping ErrBadOutput
// and a *agent.CutOffError, returned with the text it has.
func (c *Client) Chat(ctx context.Context, msgs []Message) (string, error) {
	return c.chat(ctx, "chat", msgs)
}

// chat is Chat with the operation named in errors, so that the Brain's
// failures say "llm: generate: …" rather than "llm: chat: …".
func (c *Client) chat(ctx context.Context, op string, msgs []Message) (string, error) {
	content, err := c.complete(ctx, msgs, nil, c.answer())
	if err != nil {
		return content, fmt.Errorf("llm: %s: %w", op, err)
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
// Servers differ in structured output: OpenAI and vLLM take json_schema;
// llama.cpp's Python server answers it with a 500 but takes json_object
// with a schema; others ignore both. The first JSON call tries the modes
// in that order, each probe once and without retries, and the client
// remembers the first one that works, so no question fails for the
// server's dialect and later calls go straight to it. The schema is in the
// system prompt in every mode, and the reply is read leniently: the first
// JSON object out of prose or code fences, raw line breaks in strings and
// trailing commas repaired, the schema's required properties checked.
// When the reply still cannot be used it asks once more, telling the model
// what was wrong. The error then wraps ErrBadOutput. A reply cut at the
// length limit is not used (cutJSON), and is asked again the same way.
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
	content, mode, err := c.negotiate(ctx, msgs, name, schema)
	derr, err := cutJSON(content, err)
	if err != nil {
		return fmt.Errorf("llm: %s: %w", name, err)
	}
	if derr == nil {
		derr = decodeJSON(content, required, out)
	}
	if derr == nil {
		return nil
	}

	repair := append(append([]Message(nil), msgs...),
		Message{Role: RoleAssistant, Content: content},
		Message{Role: RoleUser, Content: fmt.Sprintf(
			"Your reply could not be used: %v. Reply again with only the JSON object that the schema describes: no prose, no code fences.", derr)},
	)
	content, err = c.complete(ctx, repair, responseFormat(mode, name, schema), c.decision(false))
	again, err := cutJSON(content, err)
	if err != nil {
		return fmt.Errorf("llm: %s: reply was not valid JSON (%v) and the retry failed: %w", name, derr, err)
	}
	if again == nil {
		again = decodeJSON(content, required, out)
	}
	if again != nil {
		return fmt.Errorf("llm: %s: %w: reply is not valid JSON even after a retry: %v", name, ErrBadOutput, again)
	}
	return nil
}

// cutJSON sorts a JSON reply cut at the length limit (err a
// *agent.CutOffError) from the other failures: it returns the problem to
// tell the model, and err when it is not a cut. A cut reply is not read,
// whatever JSON it holds (one cut inside a reasoning block holds the
// object the model was still weighing), unless all that was cut is blank
// space after one whole object: JSON grammars have let a model pad an
// object with blank lines up to the limit (ollama#2623, llama.cpp#7866),
// and the object is whole.
func cutJSON(content string, err error) (problem, _ error) {
	var cut *agent.CutOffError
	if err == nil || !errors.As(err, &cut) {
		return nil, err
	}
	if s := strings.TrimSpace(content); strings.HasPrefix(s, "{") && json.Valid([]byte(s)) {
		return nil, nil
	}
	return errors.New("it was cut off at the length limit before it was complete; keep it shorter"), nil
}

// negotiate sends a JSON request in the structured-output mode the server
// is known to take, or, while that is not known, tries the modes from the
// strictest down and remembers the first that works. It returns the reply
// and the mode that produced it.
func (c *Client) negotiate(ctx context.Context, msgs []Message, name string, schema json.RawMessage) (string, int32, error) {
	known := c.format.Load()
	if known != formatUnknown {
		content, err := c.complete(ctx, msgs, responseFormat(known, name, schema), c.decision(false))
		if err != nil && known < formatPrompt && refusesFormat(err, false) {
			// This schema, or a server that changed under us: fall back
			// once, and from now on.
			known++
			c.format.Store(known)
			content, err = c.complete(ctx, msgs, responseFormat(known, name, schema), c.decision(false))
		}
		return content, known, err
	}
	var err error
	for mode := formatJSONSchema; mode <= formatPrompt; mode++ {
		var content string
		content, err = c.complete(ctx, msgs, responseFormat(mode, name, schema), c.decision(mode < formatPrompt))
		if cut := (*agent.CutOffError)(nil); err == nil || errors.As(err, &cut) {
			// A reply, whole or cut off: the server takes the mode.
			c.format.CompareAndSwap(formatUnknown, mode)
			return content, mode, err
		}
		if ctx.Err() != nil || !refusesFormat(err, true) {
			return "", mode, err
		}
	}
	return "", formatPrompt, err
}

// responseFormat is the response_format of a mode; nil for formatPrompt.
func responseFormat(mode int32, name string, schema json.RawMessage) *openai.ChatCompletionResponseFormat {
	switch mode {
	case formatJSONSchema:
		return &openai.ChatCompletionResponseFormat{
			Type:       openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: name, Schema: schema, Strict: true},
		}
	case formatJSONObject:
		// llama.cpp takes a schema with json_object and constrains its
		// output to it (requestFixes puts it where it reads it); servers
		// that do not, still return JSON.
		return &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: name, Schema: schema}}
	}
	return nil
}

// refusesFormat reports whether err may be the server refusing the
// response_format rather than failing: a 400 or 422, and while probing an
// unknown server also a 5xx or 501 (llama-cpp-python answers json_schema
// with a 500). A network error, a timeout, 401, 403, 404 and 429 are not:
// another mode would fail the same way.
func refusesFormat(err error, probing bool) bool {
	switch code := httpStatus(err); {
	case code == http.StatusBadRequest, code == http.StatusUnprocessableEntity:
		return true
	case probing && code >= 500:
		return true
	}
	return false
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

// request is the chat request of msgs, sent as cl says.
func (c *Client) request(msgs []Message, cl call) (openai.ChatCompletionRequest, error) {
	if c.cfg.ChatModel == "" {
		return openai.ChatCompletionRequest{}, errors.New("no chat model configured")
	}
	req := openai.ChatCompletionRequest{
		Model:    c.cfg.ChatModel,
		Messages: make([]openai.ChatCompletionMessage, len(msgs)),
		//lint:ignore SA1019 max_tokens is what llama.cpp, Ollama, vLLM and LM Studio read; OpenAI still takes it for chat models
		MaxTokens: cl.maxTokens,
	}
	if cl.temperature > 0 {
		req.Temperature = cl.temperature // 0 is added by requestFixes
	}
	for i, m := range msgs {
		req.Messages[i] = openai.ChatCompletionMessage{Role: m.Role, Content: m.Content}
	}
	return req, nil
}

// complete makes one chat completion (with the transport's retries) and
// records its usage. A reply the model did not finish is returned with
// the error finished gives it.
func (c *Client) complete(ctx context.Context, msgs []Message, format *openai.ChatCompletionResponseFormat, cl call) (string, error) {
	req, err := c.request(msgs, cl)
	if err != nil {
		return "", err
	}
	req.ResponseFormat = format
	done, err := c.begin(ctx, c.reserve(msgs, cl))
	if err != nil {
		return "", err // the run's budget: not sent
	}
	resp, err := c.api.CreateChatCompletion(withCall(ctx, cl), req)
	if err != nil {
		done(agent.Usage{})
		return "", serverError(circuitError(err))
	}
	if len(resp.Choices) == 0 {
		done(c.usage(msgs, &resp.Usage, ""))
		return "", fmt.Errorf("%w: no choices in reply", ErrBadOutput)
	}
	msg := resp.Choices[0].Message
	done(c.usage(msgs, &resp.Usage, msg.Content))
	if msg.Content == "" && msg.Refusal != "" {
		return "", fmt.Errorf("%w: model refused: %s", ErrBadOutput, msg.Refusal)
	}
	// A finish reason left out (null) says nothing: the body is whole
	// JSON, and only a stream can stop without one.
	return keepCut(stripThinking(msg.Content), finished(resp.Choices[0].FinishReason))
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
	msgs := make([]Message, len(texts))
	for i, t := range texts {
		msgs[i].Content = t
	}
	done, err := c.begin(ctx, c.reserve(msgs, call{}))
	if err != nil {
		return nil, err // the run's budget: not sent
	}
	resp, err := c.api.CreateEmbeddings(ctx, openai.EmbeddingRequest{
		Input:      texts,
		Model:      openai.EmbeddingModel(c.cfg.EmbeddingModel),
		Dimensions: c.cfg.EmbeddingDimensions,
	})
	if err != nil {
		done(agent.Usage{})
		return nil, circuitError(err)
	}
	done(agent.Usage{Calls: 1, PromptTokens: resp.Usage.PromptTokens})
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
