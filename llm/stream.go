package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/switchboard/switchboard/agent"
)

// streamChat is chat with the reply streamed: onText is called, on the
// caller's goroutine, with the reply so far each time it grows (a
// reasoning model's <think> block left out), and the whole reply is
// returned at the end, as chat returns it.
//
// A server that refuses to stream (400, 422, 501) or that answers a
// stream request with no streamed text (a server that ignores "stream"
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
		return "", fmt.Errorf("llm: %s: %w", op, err)
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
func (c *Client) stream(ctx context.Context, msgs []Message, cl call, onText func(string)) (string, error) {
	req, err := c.request(msgs, cl)
	if err != nil {
		return "", err
	}
	req.Stream, req.StreamOptions = true, &openai.StreamOptions{IncludeUsage: true}
	done, err := c.begin(ctx, c.reserve(msgs, cl))
	if err != nil {
		return "", err // the run's budget: not sent
	}
	s, err := c.api.CreateChatCompletionStream(withCall(ctx, cl), req)
	if err != nil {
		done(agent.Usage{})
		return "", serverError(circuitError(err))
	}
	defer s.Close()
	var (
		b     strings.Builder
		usage *openai.Usage
		shown string
	)
	defer func() { done(c.usage(msgs, usage, b.String())) }()
	// A chunk carries at least one token, or it is one of the few that
	// carry none (the role, the usage): the loop is bounded by the reply's
	// own bound. go-openai bounds runs of lines that are not chunks.
	for range 2*cl.maxTokens + 16 {
		chunk, err := s.Recv()
		if errors.Is(err, io.EOF) {
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
		if r := chunk.Choices[0].Delta.Refusal; r != "" && b.Len() == 0 {
			return "", fmt.Errorf("%w: model refused: %s", ErrBadOutput, r)
		}
		b.WriteString(chunk.Choices[0].Delta.Content)
		if text := visibleSoFar(b.String()); text != shown {
			shown = text
			onText(text)
		}
	}
	if b.Len() == 0 {
		return "", errStreamRefused
	}
	return stripThinking(b.String()), nil
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
