package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/llm/llmtest"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A question asked in Slack shows in /metrics, and an asker over the rate
// limit is told, privately, when to ask again.
func TestServeMetricsAndRateLimit(t *testing.T) {
	fake := slacktest.NewServer()
	defer fake.Close()
	addr := startServe(t, map[string]string{
		"SLACK_BOT_TOKEN": fake.BotToken, "SLACK_SIGNING_SECRET": fake.SigningSecret,
		"SLACK_API_URL": fake.APIURL(), "EDIT_INTERVAL": "10ms", "RATE_LIMIT_USER_PER_MIN": "1",
		"SWITCHBOARD_DEMO": "true", // answered from the demo's documents
	})
	target, _ := url.Parse("http://" + addr)
	proxy := httputil.NewSingleHostReverseProxy(target)

	first := fake.Mention("C1", "U1", "What is our refund policy?")
	if resp := fake.PostEvent(proxy, "", first, nil); resp.StatusCode != 200 {
		t.Fatalf("event status %d", resp.StatusCode)
	}
	slacktest.Wait(t, 30*time.Second, "the answer", func() bool {
		msgs := fake.Messages("C1", first.TS)
		return len(msgs) > 0 && strings.Contains(msgs[0].Content(), "answered offline")
	})

	second := fake.Mention("C1", "U1", "And what about annual plans?")
	fake.PostEvent(proxy, "", second, nil)
	var told string
	slacktest.Wait(t, 30*time.Second, "the retry message", func() bool {
		for _, e := range fake.Ephemerals("U1") {
			if strings.Contains(e.Text, "asking faster than I can answer") {
				told = e.Text
				return true
			}
		}
		return false
	})
	if !strings.Contains(told, "try again in") || !strings.Contains(told, " s") {
		t.Errorf("asker was told %q", told)
	}
	if msgs := fake.Messages("C1", second.TS); len(msgs) != 0 {
		t.Errorf("the refused question was answered: %q", msgs[0].Content())
	}

	status, body := get(t, "http://"+addr+"/metrics")
	if status != 200 {
		t.Fatalf("/metrics: %d", status)
	}
	for _, want := range []string{
		`switchboard_questions_total{outcome="answered",route="vector"} 1`,
		`switchboard_questions_refused_total{platform="slack",reason="user_rate"} 1`,
		`switchboard_retriever_duration_seconds_count{backend="sqlite",route="vector"} 1`,
		`switchboard_chat_api_requests_total{platform="slack",status="2xx"}`,
		`switchboard_queue_depth 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// /readyz checks the model too, and says which backend is down.
func TestReadyzChecksTheModel(t *testing.T) {
	fake := slacktest.NewServer()
	defer fake.Close()
	srv := llmtest.New(t)
	srv.Fail(503)
	addr := startServe(t, map[string]string{
		"SLACK_BOT_TOKEN": fake.BotToken, "SLACK_SIGNING_SECRET": fake.SigningSecret, "SLACK_API_URL": fake.APIURL(),
		"OPENAI_BASE_URL": srv.URL(),
	})
	status, body := get(t, "http://"+addr+"/readyz")
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "model:") || !strings.Contains(body, "503") {
		t.Errorf("/readyz with the model down: %d %q", status, body)
	}
	// The result is reused: probes do not each become a model request.
	get(t, "http://"+addr+"/readyz")
	if n := srv.Pings(); n != 1 {
		t.Errorf("model pinged %d times for two probes, want 1", n)
	}
	if status, _ := get(t, "http://"+addr+"/healthz"); status != 200 {
		t.Errorf("/healthz: %d", status)
	}
}

func TestCachedCheck(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	calls := 0
	result := errors.New("down")
	c := newCachedCheck(func(context.Context) error { calls++; return result }, 30*time.Second, func() time.Time { return now })
	if err := c.Check(context.Background()); err == nil || calls != 1 {
		t.Fatalf("first check: %v, %d calls", err, calls)
	}
	result = nil
	now = now.Add(29 * time.Second)
	if err := c.Check(context.Background()); err == nil || calls != 1 {
		t.Errorf("within the period: %v, %d calls; want the cached failure", err, calls)
	}
	now = now.Add(time.Second)
	if err := c.Check(context.Background()); err != nil || calls != 2 {
		t.Errorf("after the period: %v, %d calls", err, calls)
	}
}

func TestHealthcheckCommand(t *testing.T) {
	fake := slacktest.NewServer()
	defer fake.Close()
	addr := startServe(t, map[string]string{
		"SLACK_BOT_TOKEN": fake.BotToken, "SLACK_SIGNING_SECRET": fake.SigningSecret, "SLACK_API_URL": fake.APIURL(),
	})
	_, port, _ := strings.Cut(addr, ":")
	out, _, err := run(t, map[string]string{"HTTP_ADDR": ":" + port}, "healthcheck")
	if err != nil || strings.TrimSpace(out) != "ok" {
		t.Errorf("healthcheck of a running server: %v %q", err, out)
	}
	if _, _, err := run(t, map[string]string{"HTTP_ADDR": "127.0.0.1:1"}, "healthcheck"); err == nil {
		t.Error("healthcheck with nothing listening succeeded")
	}
}

func TestVersionCommand(t *testing.T) {
	out, _, err := run(t, map[string]string{}, "version")
	if err != nil || !strings.HasPrefix(out, "switchboard dev (commit none, built unknown)") {
		t.Errorf("version: %v %q", err, out)
	}
}
