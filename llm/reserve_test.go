package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard/switchboard/agent"
)

// ledger stands in for a run's budget: it records what each request held
// before it was sent and what it used, and refuses requests while closed.
type ledger struct {
	mu     sync.Mutex
	closed bool
	held   []int
	used   []agent.Usage
}

func (l *ledger) begin(_ context.Context, tokens int) (func(agent.Usage), error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, &agent.BudgetError{Reason: "the budget is spent"}
	}
	l.held = append(l.held, tokens)
	return func(u agent.Usage) {
		l.mu.Lock()
		l.used = append(l.used, u)
		l.mu.Unlock()
	}, nil
}

func budgeted(t *testing.T, cfg Config, handle func(n int, w http.ResponseWriter, body map[string]any)) (*Client, *fakeAPI, *ledger) {
	c, f, _ := newTestClient(t, cfg, handle)
	l := &ledger{}
	c.begin = l.begin
	return c, f, l
}

// A request holds its prompt's estimate and its reply's bound before it is
// sent, and settles with the usage the server reports.
func TestRequestHoldsItsMostTokensFirst(t *testing.T) {
	c, _, l := budgeted(t, Config{MaxTokens: 300}, func(_ int, w http.ResponseWriter, _ map[string]any) { reply(w, "Fine.") })
	msgs := []Message{{Role: RoleSystem, Content: strings.Repeat("abcd", 100)}, {Role: RoleUser, Content: "Why?"}}
	if _, err := c.Chat(t.Context(), msgs); err != nil {
		t.Fatal(err)
	}
	if want := 100 + 1 + 2*messageTokens + 300; len(l.held) != 1 || l.held[0] != want {
		t.Errorf("held %v, want %d: 404 bytes at four a token, the messages' template, max_tokens", l.held, want)
	}
	if len(l.used) != 1 || l.used[0] != (agent.Usage{Calls: 1, PromptTokens: 10, CompletionTokens: 5}) {
		t.Errorf("settled with %+v, want the server's usage", l.used)
	}
}

// A request the budget refuses is not sent, and the caller gets the
// budget's error, not a server's.
func TestRefusedRequestIsNotSent(t *testing.T) {
	c, f, l := budgeted(t, Config{}, func(_ int, w http.ResponseWriter, _ map[string]any) { reply(w, "Fine.") })
	l.closed = true
	var spent *agent.BudgetError
	_, err := c.Chat(t.Context(), testMsgs)
	if !errors.As(err, &spent) {
		t.Errorf("chat: %v, want the budget's refusal", err)
	}
	_, _, err = generateStreamed(t, c)
	if !errors.As(err, &spent) {
		t.Errorf("streamed: %v, want the budget's refusal", err)
	}
	var v verdict
	if err := c.JSON(t.Context(), testMsgs, "grade", testSchema, &v); !errors.As(err, &spent) {
		t.Errorf("JSON: %v, want the budget's refusal", err)
	}
	if _, err := c.Embed(t.Context(), []string{"refunds"}); !errors.As(err, &spent) {
		t.Errorf("embed: %v, want the budget's refusal", err)
	}
	if n := f.count(); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
}

// A server whose tokens are denser than four bytes each teaches the client
// to hold more for the prompts after, so that they hold what they use.
func TestHoldLearnsTheServersTokens(t *testing.T) {
	prompt := strings.Repeat("x", 2000)
	c, _, l := budgeted(t, Config{MaxTokens: 100}, func(_ int, w http.ResponseWriter, _ map[string]any) {
		w.Header().Set("Content-Type", "application/json")
		// A token every two bytes, and the template's four a message.
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok"}}],
			"usage":{"prompt_tokens":%d,"completion_tokens":1,"total_tokens":%d}}`, 1000+messageTokens, 1001+messageTokens)
	})
	msgs := []Message{{Role: RoleUser, Content: prompt}}
	for range 2 {
		if _, err := c.Chat(t.Context(), msgs); err != nil {
			t.Fatal(err)
		}
	}
	if l.held[0] != 500+messageTokens+100 || l.held[1] < 1000+messageTokens+100 {
		t.Errorf("held %v: want 604 before the server said, then at least the 1104 it uses", l.held)
	}
	for _, u := range l.used {
		if u.PromptTokens+u.CompletionTokens > l.held[1] {
			t.Errorf("a request used %d tokens; the hold after learning is %d", u.PromptTokens+u.CompletionTokens, l.held[1])
		}
	}
}

// A streamed answer settles with the usage the server streams
// (include_usage); one cut short counts what came.
func TestStreamSettlesWhatItSpent(t *testing.T) {
	c, _, l := budgeted(t, Config{}, func(n int, w http.ResponseWriter, _ map[string]any) {
		if n == 1 {
			sse(w, true, "Full ", "refund.")
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Full refund within\"}}]}\n\ndata: {broken\n\n")
	})
	if _, _, err := generateStreamed(t, c); err != nil {
		t.Fatal(err)
	}
	if _, _, err := generateStreamed(t, c); err == nil {
		t.Fatal("a broken stream was an answer")
	}
	if len(l.used) != 2 || l.used[0].PromptTokens != 40 || l.used[0].CompletionTokens != 7 {
		t.Fatalf("settled %+v, want the streamed usage first", l.used)
	}
	if u := l.used[1]; u.PromptTokens == 0 || u.CompletionTokens != (len("Full refund within")+3)/4 {
		t.Errorf("the stream cut short settled %+v, want its prompt and what came, estimated", u)
	}
}
