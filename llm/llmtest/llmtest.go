// Package llmtest is a scripted fake of an OpenAI-compatible server, for
// testing the agent and anything else that uses package llm without a real
// model. It speaks the real wire protocol (POST /v1/chat/completions and
// /v1/embeddings, with usage), so the real llm.Client and llm.Brain run
// against it unchanged.
//
// Every system prompt of llm.Brain begins with a line "TASK: <task>", one of
//
//	route    {"route":"vector|graph|web|direct","reason":"…"}
//	grade    {"evidence":"…","relevant":true}
//	rewrite  {"query":"…"}
//	generate plain text, citing documents as [n]
//	check    {"grounded":true,"unsupported":[],"answers":true,"missing":""}
//	condense {"question":"…"} (only asked when the thread has history)
//	direct   plain text
//	cypher   {"cypher":"MATCH … RETURN … LIMIT n"} (llm.Brain.WriteCypher, for the Neo4j graph route)
//
// and the fake dispatches on that task name. A test scripts the replies it
// needs, and each task's replies are used in order, the last one repeating:
//
//	srv := llmtest.New(t)
//	srv.On("route", `{"route":"graph","reason":"asks who supplies whom"}`)
//	srv.On("grade", `{"evidence":"","relevant":false}`, `{"evidence":"Acme supplies Globex.","relevant":true}`)
//	srv.On("generate", "Acme supplies Globex [1].")
//	srv.On("check", `{"grounded":true,"unsupported":[],"answers":true,"missing":""}`)
//	brain := srv.Brain() // or llm.New(srv.Config())
//	…
//	if srv.Calls("rewrite") != 0 { … }
//
// Requests made concurrently, as grading is, take replies in the order they
// arrive. OnPrompt narrows a script to requests whose prompt contains a
// string, which ties a reply to one document whatever the order: for
// example, to grade one document relevant and another not. Handle installs a
// function for anything the scripts do not cover. A request nothing answers
// fails the test with a message naming its task, and gets a 404 (not a
// 5xx, which a client probing structured-output modes would try again in
// the next mode, failing the test once per mode).
//
// A request with "stream": true is answered in server-sent events, a word
// at a time, as OpenAI streams. A reply ends as a whole reply does
// (finish_reason "stop", and [DONE] when streamed) unless End scripts how
// a task's replies end: cut at the length limit, a stream that just
// stops, or the ways real servers end a whole stream (see Ending):
//
//	srv.On("generate", "Customers can get a full", "Customers can get a full refund within 30 days [1].")
//	srv.End("generate", llmtest.Length, llmtest.Stop) // the first reply is cut off
//
// Every reply reports its usage, a token a word (in a last chunk when a
// stream asks for it with stream_options.include_usage), and Tokens sums
// what the server spent, for budget tests.
//
// For outage tests, Fail makes every request fail with a status and
// FailNext fails only the next few; Delay slows every reply down. Config
// disables the client's retries, so one failure is one request.
//
// Embeddings are deterministic: Vector hashes the words of a text into a
// unit vector, so texts that share words are close and tests can compute
// the expected vectors themselves.
package llmtest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	openai "github.com/sashabaranov/go-openai"

	"github.com/switchboard/switchboard/llm"
)

// DefaultDims is the length of embeddings when the request does not ask
// for dimensions.
const DefaultDims = 64

// Server is the fake. Its methods are safe to call while requests are in
// flight; the script methods return the Server so they can be chained.
type Server struct {
	t   testing.TB
	srv *httptest.Server

	mu         sync.Mutex
	rules      []*rule
	endings    map[string]*endings // by task, "" for any
	handler    func(openai.ChatCompletionRequest) (string, int)
	failStatus int // every request fails with this when not 0
	failNext   int // the next failNext requests fail with failNextStatus
	failNextSt int
	delay      time.Duration
	requests   []openai.ChatCompletionRequest
	used       []spent // the usage of every chat reply given
	embeds     int
	pings      int // GET /v1/models requests
}

// spent is the usage of one chat reply, with the prompt it answered.
type spent struct {
	prompt string
	tokens int
}

// rule is one script: the replies for requests of a task (any task when
// empty) whose prompt contains a string (anything when empty).
type rule struct {
	task, contains string
	replies        []string
	used           int
}

// Ending is how a reply ends on the wire.
type Ending int

// The endings. A reply that is not streamed has no [DONE]: Stop and
// StopNoDone end it with finish_reason "stop", Length with "length", and
// DoneNoFinish and Cut with finish_reason null.
const (
	// Stop ends a reply as OpenAI does: a chunk with finish_reason
	// "stop", the usage when asked for, then [DONE].
	Stop Ending = iota
	// Length cuts the reply at the length limit: finish_reason
	// "length", the usage, [DONE].
	Length
	// Cut ends the stream after the text with neither a finish reason
	// nor [DONE]: the body just ends, as when a proxy or a server drops
	// a reply midway.
	Cut
	// StopNoDone ends with finish_reason "stop" and the usage but no
	// [DONE], as llama.cpp's server did before September 2024.
	StopNoDone
	// DoneNoFinish ends with the usage and [DONE] but no finish reason,
	// as some servers did on a natural stop (vllm-mlx 0.4).
	DoneNoFinish
)

// endings is the script of how one task's replies end.
type endings struct {
	list []Ending
	used int
}

// New starts a fake that is closed when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{t: t}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("POST /v1/embeddings", s.embeddings)
	mux.HandleFunc("GET /v1/models", s.models)
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the API root to use as llm.Config.BaseURL; it ends in /v1.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Config returns an llm.Config for this server. Retries are off, so that
// Calls counts the requests the code under test made, and an outage fails
// at once instead of after backoff.
func (s *Server) Config() llm.Config {
	return llm.Config{
		APIKey:         "llmtest",
		BaseURL:        s.URL(),
		ChatModel:      "llmtest-chat",
		EmbeddingModel: "llmtest-embed",
		Timeout:        10 * time.Second,
		MaxRetries:     -1,
	}
}

// Client returns an llm.Client for this server, made with Config.
func (s *Server) Client() *llm.Client {
	s.t.Helper()
	c, err := llm.New(s.Config())
	if err != nil {
		s.t.Fatalf("llmtest: %v", err)
	}
	return c
}

// Brain returns an llm.Brain backed by Client.
func (s *Server) Brain() *llm.Brain { return llm.NewBrain(s.Client()) }

// On scripts the replies to requests of task ("route", "grade", …; "" for
// any task). Replies are used in order and the last one repeats. Calling On
// again for the same task appends to its replies.
func (s *Server) On(task string, replies ...string) *Server {
	s.t.Helper()
	return s.OnPrompt(task, "", replies...)
}

// OnPrompt is On for the requests of task whose messages contain contains.
// Scripts with a contains string are tried before those without, each kind
// in the order it was added.
func (s *Server) OnPrompt(task, contains string, replies ...string) *Server {
	s.t.Helper()
	if len(replies) == 0 {
		s.t.Fatalf("llmtest: On(%q) needs at least one reply", task)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.rules {
		if r.task == task && r.contains == contains {
			r.replies = append(r.replies, replies...)
			return s
		}
	}
	s.rules = append(s.rules, &rule{task: task, contains: contains, replies: replies})
	return s
}

// End scripts how the replies to requests of task ("" for any task) end,
// in order, the last one repeating; without it a reply ends with Stop.
// Calling End again for the same task appends to its endings.
func (s *Server) End(task string, ends ...Ending) *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.endings == nil {
		s.endings = map[string]*endings{}
	}
	e := s.endings[task]
	if e == nil {
		e = &endings{}
		s.endings[task] = e
	}
	e.list = append(e.list, ends...)
	return s
}

// ending picks how the reply to a request for task ends.
func (s *Server) ending(task string) Ending {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, key := range []string{task, ""} {
		if e := s.endings[key]; e != nil && len(e.list) > 0 {
			end := e.list[min(e.used, len(e.list)-1)]
			e.used++
			return end
		}
	}
	return Stop
}

// finishReason is the finish_reason of a reply that ends with end.
func finishReason(end Ending) openai.FinishReason {
	switch end {
	case Length:
		return openai.FinishReasonLength
	case Cut, DoneNoFinish:
		return openai.FinishReasonNull // written as null
	}
	return openai.FinishReasonStop
}

// Handle answers the chat requests that no script matches. f returns the
// reply's content and its HTTP status (0 means 200); for a status of 400 or
// more, content is the error message.
func (s *Server) Handle(f func(req openai.ChatCompletionRequest) (content string, status int)) *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler = f
	return s
}

// Fail makes every request, chat or embeddings, fail with status (for
// example 500) until Fail(0).
func (s *Server) Fail(status int) *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failStatus = status
	return s
}

// FailNext makes the next n requests, chat or embeddings, fail with status.
func (s *Server) FailNext(n, status int) *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failNext, s.failNextSt = n, status
	return s
}

// Delay makes every reply wait d first, or until the client gives up.
func (s *Server) Delay(d time.Duration) *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
	return s
}

// Calls counts the chat requests received for task ("" for all), including
// those that failed.
func (s *Server) Calls(task string) int { return len(s.Requests(task)) }

// Requests returns the chat requests received for task ("" for all), in
// the order they arrived, to inspect prompts.
func (s *Server) Requests(task string) []openai.ChatCompletionRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []openai.ChatCompletionRequest
	for _, r := range s.requests {
		if task == "" || Task(r) == task {
			out = append(out, r)
		}
	}
	return out
}

// Tokens sums the tokens of the chat replies given (prompt and
// completion, as their usage reports them, streamed or not, whether or not
// the request asked for the usage) to the requests whose prompt contains
// contains ("" for all): what the server spent, as an API bills it.
func (s *Server) Tokens(contains string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, u := range s.used {
		if strings.Contains(u.prompt, contains) {
			n += u.tokens
		}
	}
	return n
}

// usage is the usage of content given in reply to req, which it records
// for Tokens.
func (s *Server) usage(req openai.ChatCompletionRequest, content string) openai.Usage {
	prompt := Prompt(req)
	u := openai.Usage{PromptTokens: words(prompt), CompletionTokens: words(content)}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	s.mu.Lock()
	s.used = append(s.used, spent{prompt: prompt, tokens: u.TotalTokens})
	s.mu.Unlock()
	return u
}

// EmbedCalls counts the embeddings requests received.
func (s *Server) EmbedCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.embeds
}

// Task returns the task named on the first line of a request's system
// prompt ("TASK: route" gives "route"), or "" when there is none.
func Task(req openai.ChatCompletionRequest) string {
	for _, m := range req.Messages {
		if m.Role != openai.ChatMessageRoleSystem {
			continue
		}
		line, _, _ := strings.Cut(m.Content, "\n")
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "TASK:"); ok {
			return strings.TrimSpace(rest)
		}
		return ""
	}
	return ""
}

// Prompt returns the text of all a request's messages, one after another.
func Prompt(req openai.ChatCompletionRequest) string {
	parts := make([]string, len(req.Messages))
	for i, m := range req.Messages {
		parts[i] = m.Content
	}
	return strings.Join(parts, "\n")
}

// Vector is the fake's embedding of text: its lower-cased words hashed into
// dims signed buckets, normalised to unit length. A text without words
// gets a fixed unit vector, so that no vector is zero.
func Vector(text string, dims int) []float32 {
	v := make([]float32, dims)
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for _, w := range words {
		h := fnv.New64a()
		h.Write([]byte(w))
		sum := h.Sum64()
		sign := float32(1)
		if sum>>63 == 1 {
			sign = -1
		}
		v[sum%uint64(dims)] += sign
	}
	var norm float64
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	if norm == 0 {
		v[0] = 1
		return v
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / math.Sqrt(norm))
	}
	return v
}

// models lists the chat model, as readiness checks ask. Fail applies to it
// too (FailNext does not, so that it fails only scripted requests).
func (s *Server) models(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	s.pings++
	st := s.failStatus
	s.mu.Unlock()
	if st != 0 {
		writeError(w, st, "llmtest: scripted failure")
		return
	}
	writeJSON(w, map[string]any{"object": "list", "data": []map[string]string{{"id": "llmtest-chat", "object": "model"}}})
}

// Pings counts the GET /v1/models requests received.
func (s *Server) Pings() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pings
}

// failure returns the status the current request must fail with, or 0.
func (s *Server) failure() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failNext > 0 {
		s.failNext--
		return s.failNextSt
	}
	return s.failStatus
}

// wait waits d; it reports false when the client went away.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	select {
	case <-time.After(d):
		return true
	case <-r.Context().Done():
		return false
	}
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	var req openai.ChatCompletionRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "llmtest: bad request body: "+err.Error())
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	delay := s.delay
	s.mu.Unlock()
	if req.Stream {
		delay /= 4 // the first words come before the rest (see stream)
	}
	if !s.wait(r, delay) {
		return
	}
	if st := s.failure(); st != 0 {
		writeError(w, st, "llmtest: scripted failure")
		return
	}
	content, status := s.reply(req)
	if status >= 400 {
		writeError(w, status, content)
		return
	}
	end := s.ending(Task(req))
	usage := s.usage(req, content)
	if req.Stream {
		s.stream(w, r, req, content, end, usage, 3*delay)
		return
	}
	writeJSON(w, openai.ChatCompletionResponse{
		ID:      "chatcmpl-llmtest",
		Object:  "chat.completion",
		Created: time.Now().Unix(),
		Model:   req.Model,
		Choices: []openai.ChatCompletionChoice{{
			Message:      openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: content},
			FinishReason: finishReason(end),
		}},
		Usage: usage,
	})
}

// stream answers a request with "stream": true as OpenAI does, in
// server-sent events: a chunk with the role, the reply a word at a time
// spread over rest (with Delay, a streamed reply's first words come after
// a quarter of it and the last at its end), then as end says: a chunk
// with the finish reason, a chunk with the usage when
// stream_options.include_usage asks for it, and [DONE].
func (s *Server) stream(w http.ResponseWriter, r *http.Request, req openai.ChatCompletionRequest, content string, end Ending, usage openai.Usage, rest time.Duration) {
	w.Header().Set("Content-Type", "text/event-stream")
	flusher, _ := w.(http.Flusher)
	send := func(chunk openai.ChatCompletionStreamResponse) {
		chunk.ID, chunk.Object, chunk.Model = "chatcmpl-llmtest", "chat.completion.chunk", req.Model
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	delta := func(d openai.ChatCompletionStreamChoiceDelta, finish openai.FinishReason) openai.ChatCompletionStreamResponse {
		return openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{{Delta: d, FinishReason: finish}}}
	}
	send(delta(openai.ChatCompletionStreamChoiceDelta{Role: openai.ChatMessageRoleAssistant}, ""))
	pieces := strings.SplitAfter(content, " ")
	for i, p := range pieces {
		if i > 0 && !s.wait(r, rest/time.Duration(len(pieces))) {
			return
		}
		send(delta(openai.ChatCompletionStreamChoiceDelta{Content: p}, ""))
	}
	if end == Cut {
		return
	}
	if end != DoneNoFinish {
		send(delta(openai.ChatCompletionStreamChoiceDelta{}, finishReason(end)))
	}
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		send(openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{}, Usage: &usage})
	}
	if end != StopNoDone {
		fmt.Fprint(w, "data: [DONE]\n\n")
	}
}

// reply picks the scripted reply for req.
func (s *Server) reply(req openai.ChatCompletionRequest) (string, int) {
	task, prompt := Task(req), Prompt(req)
	s.mu.Lock()
	for _, specific := range []bool{true, false} {
		for _, r := range s.rules {
			if (r.contains != "") != specific ||
				(r.task != "" && r.task != task) ||
				!strings.Contains(prompt, r.contains) {
				continue
			}
			reply := r.replies[min(r.used, len(r.replies)-1)]
			r.used++
			s.mu.Unlock()
			return reply, http.StatusOK
		}
	}
	h := s.handler
	s.mu.Unlock()
	if h != nil {
		content, status := h(req)
		if status == 0 {
			status = http.StatusOK
		}
		return content, status
	}
	s.t.Errorf("llmtest: no reply scripted for task %q; use On(%q, …) or Handle", task, task)
	return fmt.Sprintf("llmtest: no reply scripted for task %q", task), http.StatusNotFound
}

func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	var req openai.EmbeddingRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "llmtest: bad request body: "+err.Error())
		return
	}
	s.mu.Lock()
	s.embeds++
	delay := s.delay
	s.mu.Unlock()
	if !s.wait(r, delay) {
		return
	}
	if st := s.failure(); st != 0 {
		writeError(w, st, "llmtest: scripted failure")
		return
	}
	var texts []string
	switch in := req.Input.(type) {
	case string:
		texts = []string{in}
	case []any:
		for _, x := range in {
			t, ok := x.(string)
			if !ok {
				writeError(w, http.StatusBadRequest, "llmtest: input must be strings")
				return
			}
			texts = append(texts, t)
		}
	default:
		writeError(w, http.StatusBadRequest, "llmtest: input must be a string or an array of strings")
		return
	}
	dims := req.Dimensions
	if dims <= 0 {
		dims = DefaultDims
	}
	resp := openai.EmbeddingResponse{Object: "list", Model: req.Model}
	for i, t := range texts {
		resp.Data = append(resp.Data, openai.Embedding{Object: "embedding", Embedding: Vector(t, dims), Index: i})
		resp.Usage.PromptTokens += words(t)
	}
	resp.Usage.TotalTokens = resp.Usage.PromptTokens
	writeJSON(w, resp)
}

// words stands in for a tokenizer: deterministic and roughly proportional.
func words(s string) int { return len(strings.Fields(s)) }

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers in the OpenAI error format, which go-openai turns into
// an *openai.APIError carrying the status.
func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"error": map[string]any{"message": msg, "type": http.StatusText(status)},
	})
}
