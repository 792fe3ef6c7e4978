package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"
)

// DecisionMaxTokens bounds the reply of a decision (route, grade, rewrite,
// check, Cypher): each is a small JSON object. A local model that does not
// stop would otherwise generate until the timeout, and the server keeps
// generating for a request the client gave up on.
const DecisionMaxTokens = 512

// DefaultMaxTokens bounds an answer when Config.MaxTokens is 0.
const DefaultMaxTokens = 1024

// call is how one request is sent, by the kind of call: decisions at
// temperature 0, so that a run can be reproduced, answers at the
// configured temperature; every call with a length bound.
type call struct {
	temperature float32 // < 0: leave it to the server (reasoning models want that)
	maxTokens   int
	// probe marks a first try of a structured-output mode on a server not
	// yet known: its failure means "try the next mode", so it is not
	// retried (a server that answers json_schema with a 500 would
	// otherwise be asked three more times, with backoff).
	probe bool
}

type callKey struct{}

func withCall(ctx context.Context, c call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

func callOf(ctx context.Context) (call, bool) {
	c, ok := ctx.Value(callKey{}).(call)
	return c, ok
}

// decision is the call of a JSON decision.
func (c *Client) decision(probe bool) call {
	t := float32(0)
	if c.cfg.Temperature < 0 {
		t = -1
	}
	return call{temperature: t, maxTokens: DecisionMaxTokens, probe: probe}
}

// answer is the call that writes text for people.
func (c *Client) answer() call {
	n := c.cfg.MaxTokens
	if n <= 0 {
		n = DefaultMaxTokens
	}
	return call{temperature: c.cfg.Temperature, maxTokens: n}
}

// requestFixes adds to a chat request what go-openai cannot say:
//   - "temperature": 0, which go-openai leaves out of the JSON (omitempty),
//     so that a server samples at its own default (0.8 for llama.cpp);
//   - for response_format json_object, the schema where llama.cpp's
//     servers read it ("schema" beside "type"): go-openai only writes it
//     under "json_schema", which they ignore, and a small model held to
//     "some JSON object" alone replies with the schema itself.
type requestFixes struct{ base http.RoundTripper }

func (t requestFixes) RoundTrip(req *http.Request) (*http.Response, error) {
	c, ok := callOf(req.Context())
	if !ok || req.Body == nil || !strings.HasSuffix(req.URL.Path, "/chat/completions") {
		return t.base.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	body = fixBody(body, c)
	r := req.Clone(req.Context())
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return t.base.RoundTrip(r)
}

func fixBody(body []byte, c call) []byte {
	// Most requests need only the temperature: added in place, without
	// decoding and encoding a body that holds the whole prompt. A body
	// that mentions a temperature anywhere, or json_object, takes the
	// exact way below.
	if c.temperature == 0 && len(body) > 2 && body[0] == '{' && body[1] != '}' &&
		!bytes.Contains(body, []byte(`"temperature":`)) && !bytes.Contains(body, []byte(`"json_object"`)) {
		return append([]byte(`{"temperature":0,`), body[1:]...)
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil {
		return body
	}
	changed := false
	if _, set := fields["temperature"]; !set && c.temperature == 0 {
		fields["temperature"], changed = json.RawMessage("0"), true
	}
	var rf struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	}
	if raw, ok := fields["response_format"]; ok && json.Unmarshal(raw, &rf) == nil &&
		rf.Type == "json_object" && rf.JSONSchema != nil && len(rf.JSONSchema.Schema) > 0 {
		if b, err := json.Marshal(map[string]json.RawMessage{"type": json.RawMessage(`"json_object"`), "schema": rf.JSONSchema.Schema}); err == nil {
			fields["response_format"], changed = b, true
		}
	}
	if !changed {
		return body
	}
	if b, err := json.Marshal(fields); err == nil {
		return b
	}
	return body
}

// ServerError is a model server's refusal, as people may read it: the
// status only. The server's own message stays out, since it can carry its
// internals (a Python traceback's file paths, a prompt).
type ServerError struct {
	Status int
	err    error // go-openai's, with the server's message
}

func (e *ServerError) Error() string {
	return fmt.Sprintf("the model server answered HTTP %d %s", e.Status, http.StatusText(e.Status))
}

// Unwrap gives go-openai's error, for errors.As.
func (e *ServerError) Unwrap() error { return e.err }

// serverError wraps an HTTP refusal from the server as a *ServerError;
// other errors pass through.
func serverError(err error) error {
	if code := httpStatus(err); code != 0 {
		return &ServerError{Status: code, err: err}
	}
	return err
}

// httpStatus is the HTTP status of a server's refusal, 0 for other errors.
func httpStatus(err error) int {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return apiErr.HTTPStatusCode
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode
	}
	return 0
}

// limit holds requests to at most cap(slots) in flight to the server: a
// local model server answers one or two at a time, and requests beyond
// that only queue there, each eating its own timeout. Waiting here for a
// slot does not count against a request's timeout, and ends with ctx.
type limit struct {
	base  http.RoundTripper
	slots chan struct{}
}

func (l limit) RoundTrip(req *http.Request) (*http.Response, error) {
	select {
	case l.slots <- struct{}{}:
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
	resp, err := l.base.RoundTrip(req)
	if err != nil || resp.Body == nil {
		<-l.slots
		return resp, err
	}
	// The slot is the server's until the reply is read.
	resp.Body = &releaseOnClose{ReadCloser: resp.Body, release: func() { <-l.slots }}
	return resp, nil
}

type releaseOnClose struct {
	io.ReadCloser
	once    sync.Once
	release func()
}

func (r *releaseOnClose) Close() error {
	err := r.ReadCloser.Close()
	r.once.Do(r.release)
	return err
}
