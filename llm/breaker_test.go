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
	"github.com/switchboard/switchboard/internal/fakeclock"
	"github.com/switchboard/switchboard/internal/testenv"
	"github.com/switchboard/switchboard/llm"
	"github.com/switchboard/switchboard/llm/llmtest"
	"github.com/switchboard/switchboard/llm/offline"
)

// The breaker opens after repeated failures, the agent then answers
// offline without calling the model, and as soon as a background ping
// finds the server back (a second later on the injected clock, long
// before the cool-down ends) the circuit closes and the next answer is
// the model's.
func TestBreakerOpensDegradesAndCloses(t *testing.T) {
	srv := llmtest.New(t)
	clk := fakeclock.New()
	var mu sync.Mutex
	var states []llm.CircuitState
	closed := make(chan struct{}, 1)
	cfg := srv.Config()
	cfg.Breaker = llm.BreakerConfig{
		Failures: 2, Cooldown: 30 * time.Second, Now: clk.Now, Sleep: clk.Sleep,
		OnChange: func(s llm.CircuitState) {
			mu.Lock()
			defer mu.Unlock()
			states = append(states, s)
			if s == llm.CircuitClosed {
				closed <- struct{}{}
			}
		},
	}
	c := newClient(t, cfg)
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
	mu.Lock()
	if !slices.Equal(states, []llm.CircuitState{llm.CircuitOpen}) {
		t.Fatalf("states after two failures = %v, want [open]", states)
	}
	mu.Unlock()
	sent := srv.Calls("")
	res := ask()
	if srv.Calls("") != sent {
		t.Errorf("an open circuit still called the model")
	}
	if !res.Offline || !strings.Contains(detail, "model circuit open") || !strings.Contains(res.Answer, "51") {
		t.Errorf("with the circuit open: offline = %v, detail %q, answer %q", res.Offline, detail, res.Answer)
	}

	// A ping a second later finds the server still down: still offline.
	clk.WaitSleepers(t, 1, "the circuit's background ping")
	pings := srv.Pings()
	clk.Advance(time.Second)
	clk.WaitSleepers(t, 1, "the circuit's background ping")
	if srv.Pings() == pings {
		t.Fatal("no background ping while open")
	}
	if res := ask(); !res.Offline || srv.Calls("") != sent {
		t.Errorf("after a failed ping: offline = %v, %d model calls", res.Offline, srv.Calls("")-sent)
	}

	// The server recovers; the next ping closes the circuit, 2 s after it
	// opened with a 30 s cool-down, and the model answers again.
	srv.Fail(0)
	srv.On("route", `{"route":"direct","reason":"arithmetic"}`).On("direct", "15% of 340 is 51.")
	clk.Advance(time.Second)
	select {
	case <-closed:
	case <-time.After(time.Minute): // a hang guard, not a measure
		t.Fatal("the circuit did not close")
	}
	if res := ask(); res.Offline || res.Answer != "15% of 340 is 51." {
		t.Errorf("after recovery: %+v", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []llm.CircuitState{llm.CircuitOpen, llm.CircuitClosed}; !slices.Equal(states, want) {
		t.Errorf("states = %v, want %v", states, want)
	}
	c.Close()
	if n := testenv.Goroutines("breaker.(*Breaker).probeUntilClosed"); n != 0 {
		t.Errorf("%d probing goroutines after Close", n)
	}
}

// A readiness Ping that finds the server back closes the circuit too,
// with the clock standing still.
func TestPingClosesTheCircuit(t *testing.T) {
	srv := llmtest.New(t)
	clk := fakeclock.New()
	cfg := srv.Config()
	cfg.Breaker = llm.BreakerConfig{Failures: 1, Now: clk.Now, Sleep: clk.Sleep}
	c := newClient(t, cfg)
	msgs := []llm.Message{{Role: llm.RoleUser, Content: "hi"}}
	srv.Fail(503)
	c.Chat(context.Background(), msgs)
	if _, err := c.Chat(context.Background(), msgs); !errors.Is(err, llm.ErrCircuitOpen) {
		t.Fatalf("after a failure: %v; want the circuit open", err)
	}
	if err := c.Ping(context.Background()); err == nil {
		t.Fatal("Ping of a failing server succeeded")
	}
	srv.Fail(0)
	srv.Handle(func(openai.ChatCompletionRequest) (string, int) { return "hello", 200 })
	if err := c.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Chat(context.Background(), msgs); err != nil {
		t.Errorf("after a good Ping: %v", err)
	}
}

// newClient returns a Client for cfg, closed when the test ends.
func newClient(t *testing.T, cfg llm.Config) *llm.Client {
	t.Helper()
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func TestBreakerErrorsAreClear(t *testing.T) {
	srv := llmtest.New(t)
	srv.Fail(503)
	cfg := srv.Config()
	clk := fakeclock.New() // no ping: the clock stands still
	cfg.Breaker = llm.BreakerConfig{Failures: 1, Now: clk.Now, Sleep: clk.Sleep}
	c := newClient(t, cfg)
	msgs := []llm.Message{{Role: llm.RoleUser, Content: "hi"}}
	if _, err := c.Chat(context.Background(), msgs); err == nil || errors.Is(err, llm.ErrCircuitOpen) {
		t.Fatalf("first failure: %v", err)
	}
	_, err := c.Chat(context.Background(), msgs)
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
	clk := fakeclock.New() // no ping: the clock stands still
	cfg.Breaker = llm.BreakerConfig{Failures: 1, Now: clk.Now, Sleep: clk.Sleep}
	c := newClient(t, cfg)
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
