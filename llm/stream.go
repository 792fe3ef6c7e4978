package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"

	openai "github.com/sashabaranov/go-openai"

	"github.com/switchboard/switchboard/agent"
)

// streamChat is chat with the reply streamed: onText is called, on the
// caller's goroutine, with the reply so far each time it grows (a
// reasoning model's <think> block left out), and the whole reply is
// returned at the end, as chat returns it.
//
// A reply that ends before the model finished it is returned as far as
// it came, with a *agent.CutOffError (see stream).
//
// A server that refuses to stream (400, 422, 501) or that answers a
// stream request with nothing streamed (a server that ignores "stream"
// and sends one JSON body) is asked again without streaming, once, and
// from then on never asked to stream.
func (c *Client) streamChat(ctx context.Context, op string, msgs []Message, onText func(string)) (string, error) {
	if c.noStream.Load() {
		return c.chat(ctx, op, msgs)
	}
	content, err := c.stream(ctx, msgs, c.answer(), onText)
	if err != nil && refusesStream(err) && ctx.Err() == nil {
		// The same request without streaming: if that works, streaming
		// was what the server would not do (a 400 for a prompt too long
		// fails again, and changes nothing).
		content, err = c.chat(ctx, op, msgs)
		if err == nil {
			c.noStream.Store(true)
		}
		return content, err
	}
	if err != nil {
		return content, fmt.Errorf("llm: %s: %w", op, err)
	}
	if strings.TrimSpace(content) == "" {
		return "", fmt.Errorf("llm: %s: %w: empty reply", op, ErrBadOutput)
	}
	return content, nil
}

// errStreamRefused marks a stream the server would not give.
var errStreamRefused = errors.New("the server does not stream")

func refusesStream(err error) bool {
	switch httpStatus(err) {
	case http.StatusBadRequest, http.StatusUnprocessableEntity, http.StatusNotImplemented:
		return true
	}
	return errors.Is(err, errStreamRefused)
}

// stream makes one streamed chat completion and records its usage: the
// server's, when it sends it (stream_options.include_usage), or else an
// estimate, so that the daily token budget still counts the call; a
// stream cut short counts what came.
//
// The reply is whole when the server ended it: with a finish reason
// ("stop", or any other but "length" and "content_filter"), or with
// [DONE]. Servers differ in which of the two they send: llama.cpp's
// server sent no [DONE] before September 2024 (and ik_llama.cpp still
// does not), and some servers and proxies leave finish_reason null on a
// natural stop (vllm-mlx 0.4 did) yet send [DONE]; every one of them
// says "length" when it cuts a reply at max_tokens. A reply cut at the
// length limit, and a body that just ends with neither (a proxy or a
// server that dropped the reply midway), are returned as far as they
// came with a *agent.CutOffError. A connection that breaks midway is
// the transport's error, as before any reply.
func (c *Client) stream(ctx context.Context, msgs []Message, cl call, onText func(string)) (string, error) {
	req, err := c.request(msgs, cl)
	if err != nil {
		return "", err
	}
	req.Stream, req.StreamOptions = true, &openai.StreamOptions{IncludeUsage: true}
	settle, err := c.begin(ctx, c.reserve(msgs, cl))
	if err != nil {
		return "", err // the run's budget: not sent
	}
	var sawDone atomic.Bool
	s, err := c.api.CreateChatCompletionStream(withDoneMark(withCall(ctx, cl), &sawDone), req)
	if err != nil {
		settle(agent.Usage{})
		return "", serverError(circuitError(err))
	}
	defer s.Close()
	var (
		b      strings.Builder
		usage  *openai.Usage
		shown  string
		finish openai.FinishReason
		ended  bool
	)
	defer func() { settle(c.usage(msgs, usage, b.String())) }()
	// A chunk carries at least one token, or it is one of the few that
	// carry none (the role, the finish reason, the usage): the loop is
	// bounded by the reply's own bound, and a reply still going past it
	// is cut there. go-openai bounds runs of lines that are not chunks.
	for range 2*cl.maxTokens + 16 {
		chunk, err := s.Recv()
		if errors.Is(err, io.EOF) {
			ended = true
			break
		}
		if err != nil {
			return "", serverError(circuitError(err))
		}
		if chunk.Usage != nil {
			usage = chunk.Usage
		}
		if len(chunk.Choices) == 0 {
			continue
		}
		choice := chunk.Choices[0]
		if r := choice.Delta.Refusal; r != "" && b.Len() == 0 {
			return "", fmt.Errorf("%w: model refused: %s", ErrBadOutput, r)
		}
		// Ollama sent "" for null until May 2024 (ollama#4357), and
		// go-openai reads a string "null" as FinishReasonNull.
		if r := choice.FinishReason; r != "" && r != openai.FinishReasonNull {
			finish = r
		}
		// vLLM sends the last words in the chunk with the finish reason.
		b.WriteString(choice.Delta.Content)
		if text := visibleSoFar(b.String()); text != shown {
			shown = text
			onText(text)
		}
	}
	content := stripThinking(b.String())
	switch {
	case !ended:
		return content, cutAtLimit()
	case finish != "":
		return keepCut(content, finished(finish))
	case b.Len() == 0:
		return "", errStreamRefused
	case sawDone.Load():
		return content, nil
	}
	return content, &agent.CutOffError{}
}

// finished is the error of a reply the server ended with reason: none
// for a whole reply.
func finished(reason openai.FinishReason) error {
	switch reason {
	case openai.FinishReasonLength:
		return cutAtLimit()
	case openai.FinishReasonContentFilter:
		return fmt.Errorf("%w: the server's content filter stopped the reply", ErrBadOutput)
	}
	// "stop", and the reasons of tool calls, which are not asked for:
	// the model ended its turn. Servers that name their own ("eos_token",
	// "stop_sequence") mean the same.
	return nil
}

// keepCut returns a reply with its error: the reply as far as it came
// when err is a *agent.CutOffError (the agent may show it, saying so),
// else none.
func keepCut(content string, err error) (string, error) {
	if cut := (*agent.CutOffError)(nil); err != nil && !errors.As(err, &cut) {
		return "", err
	}
	return content, err
}

// cutAtLimit is the error of a reply cut at the length limit: a reply
// that cannot be used, from a server that works.
func cutAtLimit() error {
	return fmt.Errorf("%w: %w", ErrBadOutput, &agent.CutOffError{AtLimit: true})
}

// doneKey marks a streamed request's context with where to note its
// [DONE] (watchDone).
type doneKey struct{}

func withDoneMark(ctx context.Context, seen *atomic.Bool) context.Context {
	return context.WithValue(ctx, doneKey{}, seen)
}

// watchDone notes, for a request whose context asks (withDoneMark),
// whether the reply's "data: [DONE]" event went by: go-openai reads
// [DONE] and the body's end alike as io.EOF, and only [DONE] says that
// the server ended the stream itself.
type watchDone struct{ base http.RoundTripper }

func (t watchDone) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if seen, ok := req.Context().Value(doneKey{}).(*atomic.Bool); ok && err == nil && resp.Body != nil {
		resp.Body = &doneReader{ReadCloser: resp.Body, seen: seen}
	}
	return resp, err
}

// maxDoneLine bounds the line a doneReader holds: a [DONE] line is 12
// bytes, and one padded past this is not taken for one.
const maxDoneLine = 64

// doneReader passes a body through and sets seen once one of its lines
// is [DONE] as go-openai reads lines (isDone). Only the first
// maxDoneLine bytes of a line are held.
type doneReader struct {
	io.ReadCloser
	seen *atomic.Bool
	line []byte // the current line so far, while it is short enough
	long bool   // the current line is longer than maxDoneLine
}

func (r *doneReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	r.scan(p[:n])
	return n, err
}

func (r *doneReader) scan(b []byte) {
	for len(b) > 0 {
		part, rest, complete := bytes.Cut(b, []byte{'\n'})
		if !r.long {
			r.long = len(r.line)+len(part) > maxDoneLine
			r.line = append(r.line, part[:min(len(part), maxDoneLine+1-len(r.line))]...)
		}
		if !complete {
			return
		}
		if !r.long && isDone(r.line) {
			r.seen.Store(true)
		}
		r.line, r.long, b = r.line[:0], false, rest
	}
}

// isDone reports whether a line is the [DONE] event as go-openai reads
// it: spaces trimmed, "data:" and the spaces after it (RE2's \s) dropped.
func isDone(line []byte) bool {
	rest, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:"))
	return ok && string(bytes.TrimLeft(rest, "\t\n\f\r ")) == "[DONE]"
}

// visibleSoFar is the part of a reply being streamed that people may see:
// all of it but a reasoning model's <think> block, which is left out once
// closed and hides everything while it is open.
func visibleSoFar(s string) string {
	trimmed := strings.TrimLeft(s, " \t\r\n")
	switch {
	case strings.HasPrefix(trimmed, "<think>"):
		if !strings.Contains(trimmed, "</think>") {
			return ""
		}
		return stripThinking(s)
	case strings.HasPrefix("<think>", trimmed):
		return "" // "<th" may be the start of one
	}
	return s
}
