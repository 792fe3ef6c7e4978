package llm_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/llm"
	"github.com/switchboard/switchboard/llm/llmtest"
	"github.com/switchboard/switchboard/llm/offline"
)

// The breaker opens after repeated failures, the agent then answers
// offline without calling the model, and after the cool-down one probe
// closes the circuit again.
func TestBreakerOpensDegradesAndCloses(t *testing.T) {
	srv := llmtest.New(t)
	var mu sync.Mutex
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	var states []llm.CircuitState
	cfg := srv.Config()
	cfg.Breaker = llm.BreakerConfig{
		Failures: 2, Cooldown: 30 * time.Second,
		Now:      func() time.Time { mu.Lock(); defer mu.Unlock(); return now },
		OnChange: func(s llm.CircuitState) { states = append(states, s) },
	}
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Config{Model: llm.NewBrain(c), Offline: offline.New(nil)})
	if err != nil {
		t.Fatal(err)
	}
	var detail string // what the asker is told privately of the last run
	ask := func() agent.Result {
		t.Helper()
		detail = ""
		res, err := a.Ask(context.Background(), agent.Question{Text: "What is 15% of 340?"}, func(e agent.Event) {
			if e.Kind == agent.EventDegraded {
				detail = e.Detail
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	srv.Fail(500)
	for i := 0; i < 2; i++ {
		if res := ask(); !res.Offline || !strings.Contains(res.Answer, "51") {
			t.Fatalf("run %d during the outage: %+v", i+1, res)
		}
	}
	if !slices.Equal(states, []llm.CircuitState{llm.CircuitOpen}) {
		t.Fatalf("states after two failures = %v, want [open]", states)
	}
	sent := srv.Calls("")
	res := ask()
	if srv.Calls("") != sent {
		t.Errorf("an open circuit still called the model")
	}
	if !res.Offline || !strings.Contains(detail, "model circuit open") || !strings.Contains(res.Answer, "51") {
		t.Errorf("with the circuit open: offline = %v, detail %q, answer %q", res.Offline, detail, res.Answer)
	}

	// The server recovers; after the cool-down one probe closes the circuit.
	srv.Fail(0)
	srv.On("route", `{"route":"direct","reason":"arithmetic"}`).On("direct", "15% of 340 is 51.")
	mu.Lock()
	now = now.Add(31 * time.Second)
	mu.Unlock()
	if res := ask(); res.Offline || res.Answer != "15% of 340 is 51." {
		t.Errorf("after recovery: %+v", res)
	}
	if want := []llm.CircuitState{llm.CircuitOpen, llm.CircuitHalfOpen, llm.CircuitClosed}; !slices.Equal(states, want) {
		t.Errorf("states = %v, want %v", states, want)
	}
}

func TestBreakerErrorsAreClear(t *testing.T) {
	srv := llmtest.New(t)
	srv.Fail(503)
	cfg := srv.Config()
	cfg.Breaker = llm.BreakerConfig{Failures: 1}
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	msgs := []llm.Message{{Role: llm.RoleUser, Content: "hi"}}
	if _, err := c.Chat(context.Background(), msgs); err == nil || errors.Is(err, llm.ErrCircuitOpen) {
		t.Fatalf("first failure: %v", err)
	}
	_, err = c.Chat(context.Background(), msgs)
	if !errors.Is(err, llm.ErrCircuitOpen) || strings.Contains(err.Error(), "http") {
		t.Errorf("open circuit error = %v: want ErrCircuitOpen, without the URL", err)
	}
	if _, err := c.Embed(context.Background(), []string{"x"}); !errors.Is(err, llm.ErrCircuitOpen) {
		t.Errorf("embeddings with the circuit open: %v", err)
	}
}

// A model that answers, even with a client error, is up: only outages
// count towards opening the circuit.
func TestBreakerIgnoresClientErrors(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(func(openai.ChatCompletionRequest) (string, int) { return "bad request", 400 })
	cfg := srv.Config()
	cfg.Breaker = llm.BreakerConfig{Failures: 1}
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := c.Chat(context.Background(), []llm.Message{{Role: llm.RoleUser, Content: "hi"}}); errors.Is(err, llm.ErrCircuitOpen) {
			t.Fatalf("call %d: a 400 opened the circuit", i+1)
		}
	}
}

func TestPing(t *testing.T) {
	srv := llmtest.New(t)
	c := srv.Client()
	if err := c.Ping(context.Background()); err != nil {
		t.Errorf("ping a healthy server: %v", err)
	}
	srv.Fail(502)
	if err := c.Ping(context.Background()); err == nil || !strings.Contains(err.Error(), "502") {
		t.Errorf("ping a failing server: %v", err)
	}
	if srv.Pings() != 2 {
		t.Errorf("pings = %d, want 2 (no retries)", srv.Pings())
	}
}
