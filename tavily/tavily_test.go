package tavily

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
)

const testKey = "tvly-test-123"

// wireRequest is the request body as Tavily documents it, decoded
// independently of the package's own searchRequest so that a renamed JSON
// field fails the tests.
type wireRequest struct {
	APIKey        string
	Query         string
	MaxResults    int
	SearchDepth   string
	IncludeAnswer bool
}

// fakeTavily is an httptest server speaking Tavily's wire format. reply
// writes the answer to the n-th request (from 1) after the request has been
// checked and decoded.
func fakeTavily(t *testing.T, reply func(w http.ResponseWriter, n int, req wireRequest)) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(calls.Add(1))
		if r.Method != http.MethodPost || r.URL.Path != "/search" {
			t.Errorf("request %s %s, want POST /search", r.Method, r.URL.Path)
		}
		if got := r.Header.Get("Content-Type"); got != "application/json" {
			t.Errorf("Content-Type = %q", got)
		}
		if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"detail":{"error":"Unauthorized: missing or invalid API key."}}`))
			return
		}
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			t.Errorf("decode request body: %v", err)
		}
		want := map[string]string{"api_key": "string", "query": "string", "max_results": "number", "search_depth": "string", "include_answer": "bool"}
		for k, v := range body {
			if want[k] == "" {
				t.Errorf("unexpected field %q in the request body", k)
			}
			if got := jsonType(v); got != want[k] {
				t.Errorf("field %q is a %s, want a %s", k, got, want[k])
			}
		}
		for k := range want {
			if _, ok := body[k]; !ok {
				t.Errorf("request body lacks %q", k)
			}
		}
		str := func(k string) string { s, _ := body[k].(string); return s }
		num, _ := body["max_results"].(float64)
		answer, _ := body["include_answer"].(bool)
		reply(w, n, wireRequest{APIKey: str("api_key"), Query: str("query"), MaxResults: int(num), SearchDepth: str("search_depth"), IncludeAnswer: answer})
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

const okBody = `{
  "query": "brightline share price",
  "answer": null,
  "images": [],
  "results": [
    {"title": "Brightline Labs raises Series C", "url": "https://news.example/brightline", "content": "Brightline Labs raised $40M.", "score": 0.91, "raw_content": null, "published_date": "2025-03-01"},
    {"title": "", "url": "https://blog.example/sensors", "content": "Sensors for cold chains.", "score": 0.52},
    {"title": "Empty", "url": "https://empty.example", "content": "  ", "score": 0.4}
  ],
  "response_time": "1.67"
}`

func TestRetrieve(t *testing.T) {
	var got wireRequest
	srv, _ := fakeTavily(t, func(w http.ResponseWriter, _ int, req wireRequest) {
		got = req
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(okBody))
	})
	r := New(Config{APIKey: testKey, BaseURL: srv.URL + "/", MaxResults: 8})

	docs, err := r.Retrieve(context.Background(), agent.Request{Query: "  brightline share price ", Question: "What is Brightline's share price today?", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	wantReq := wireRequest{APIKey: testKey, Query: "brightline share price", MaxResults: 3, SearchDepth: "basic", IncludeAnswer: false}
	if got != wantReq {
		t.Errorf("request = %+v, want %+v", got, wantReq)
	}
	want := []agent.Document{
		{ID: "https://news.example/brightline", Title: "Brightline Labs raises Series C", Location: "https://news.example/brightline",
			Content: "Brightline Labs raised $40M.", Score: 0.91, Route: agent.RouteWeb, Kind: agent.KindWeb, Metadata: map[string]string{"published_date": "2025-03-01"}},
		{ID: "https://blog.example/sensors", Title: "https://blog.example/sensors", Location: "https://blog.example/sensors",
			Content: "Sensors for cold chains.", Score: 0.52, Route: agent.RouteWeb, Kind: agent.KindWeb},
	}
	if !reflect.DeepEqual(docs, want) {
		t.Errorf("docs =\n%+v\nwant\n%+v", docs, want)
	}
}

func TestRetrieveQueryAndLimits(t *testing.T) {
	var got []wireRequest
	srv, _ := fakeTavily(t, func(w http.ResponseWriter, _ int, req wireRequest) {
		got = append(got, req)
		w.Write([]byte(`{"results":[]}`))
	})
	r := New(Config{APIKey: testKey, BaseURL: srv.URL, MaxResults: 50})
	ctx := context.Background()

	if _, err := r.Retrieve(ctx, agent.Request{Question: "fallback question"}); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("word ", 200)
	if _, err := r.Retrieve(ctx, agent.Request{Query: long, Limit: 100}); err != nil {
		t.Fatal(err)
	}
	if got[0].Query != "fallback question" || got[0].MaxResults != 20 {
		t.Errorf("request 1 = %+v, want the question and max_results capped at 20", got[0])
	}
	if n := len([]rune(got[1].Query)); n > maxQueryRunes || !strings.HasPrefix(long, got[1].Query) || got[1].MaxResults != 20 {
		t.Errorf("request 2: query of %d runes, max_results %d", n, got[1].MaxResults)
	}
	if _, err := r.Retrieve(ctx, agent.Request{Query: "  "}); err == nil {
		t.Error("empty query: no error")
	}
}

func TestRetrieveNotConfigured(t *testing.T) {
	r := New(Config{})
	docs, err := r.Retrieve(context.Background(), agent.Request{Query: "x"})
	if !errors.Is(err, agent.ErrNotConfigured) || docs != nil {
		t.Fatalf("Retrieve = %v, %v; want agent.ErrNotConfigured", docs, err)
	}
	if got, want := err.Error(), "web search is not configured: set TAVILY_API_KEY"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if r.Configured() {
		t.Error("Configured() = true without a key")
	}
}

func TestRetrieveUnauthorized(t *testing.T) {
	srv, _ := fakeTavily(t, func(w http.ResponseWriter, _ int, _ wireRequest) { t.Error("reached the handler") })
	r := New(Config{APIKey: "tvly-wrong", BaseURL: srv.URL})
	_, err := r.Retrieve(context.Background(), agent.Request{Query: "x"})
	var se *StatusError
	if !errors.As(err, &se) || se.Code != http.StatusUnauthorized {
		t.Fatalf("err = %v, want a 401 StatusError", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "401 Unauthorized (check TAVILY_API_KEY)") || !strings.Contains(msg, "missing or invalid API key") {
		t.Errorf("message %q lacks the status, hint or body", msg)
	}
	if errors.Is(err, agent.ErrNotConfigured) {
		t.Error("a rejected key is reported as not configured")
	}
}

func TestRetrieveServerErrorRedactsKey(t *testing.T) {
	srv, calls := fakeTavily(t, func(w http.ResponseWriter, _ int, req wireRequest) {
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte("internal error for key " + req.APIKey + "\n" + strings.Repeat("x", 500)))
	})
	_, err := New(Config{APIKey: testKey, BaseURL: srv.URL}).Retrieve(context.Background(), agent.Request{Query: "x"})
	if err == nil || !strings.HasPrefix(err.Error(), "tavily: search: 500 Internal Server Error: internal error for key [redacted] xxx") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), testKey) || len(err.Error()) > 300 {
		t.Errorf("error leaks the key or is too long: %q", err)
	}
	if calls.Load() != 1 {
		t.Errorf("%d calls: a 500 must not be retried", calls.Load())
	}
}

func TestRetrieveRetriesOnce429(t *testing.T) {
	srv, calls := fakeTavily(t, func(w http.ResponseWriter, n int, _ wireRequest) {
		if n == 1 {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"detail":{"error":"rate limit"}}`))
			return
		}
		w.Write([]byte(okBody))
	})
	r := New(Config{APIKey: testKey, BaseURL: srv.URL})
	var waited []time.Duration
	r.sleep = func(_ context.Context, d time.Duration) error { waited = append(waited, d); return nil }

	docs, err := r.Retrieve(context.Background(), agent.Request{Query: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || calls.Load() != 2 || !reflect.DeepEqual(waited, []time.Duration{2 * time.Second}) {
		t.Errorf("%d docs after %d calls, waited %v; want 2 docs after 2 calls and a 2s wait", len(docs), calls.Load(), waited)
	}
}

func TestRetrieve429Limits(t *testing.T) {
	tests := []struct {
		name       string
		retryAfter string
		wantCalls  int64
	}{
		{"second 429 is returned", "0", 2},
		{"too long a wait is not attempted", "120", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, calls := fakeTavily(t, func(w http.ResponseWriter, _ int, _ wireRequest) {
				w.Header().Set("Retry-After", tt.retryAfter)
				w.WriteHeader(http.StatusTooManyRequests)
			})
			r := New(Config{APIKey: testKey, BaseURL: srv.URL})
			r.sleep = func(context.Context, time.Duration) error { return nil }
			_, err := r.Retrieve(context.Background(), agent.Request{Query: "x"})
			var se *StatusError
			if !errors.As(err, &se) || se.Code != http.StatusTooManyRequests || !strings.Contains(err.Error(), "rate limited") {
				t.Errorf("err = %v, want a 429 StatusError", err)
			}
			if calls.Load() != tt.wantCalls {
				t.Errorf("%d calls, want %d", calls.Load(), tt.wantCalls)
			}
		})
	}
}

// The wait after a 429 is its Retry-After, a second when it names none
// or none that can be read, and no retry at all past maxRetryAfter.
func TestRetryAfter(t *testing.T) {
	tests := []struct {
		header string // "" sends none
		waits  []time.Duration
	}{
		{"", []time.Duration{time.Second}},
		{"3", []time.Duration{3 * time.Second}},
		{"-1", []time.Duration{0}},
		{"soon", []time.Duration{time.Second}},
		{"6", nil},
		{time.Now().Add(time.Hour).UTC().Format(http.TimeFormat), nil},
		{time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat), []time.Duration{0}},
	}
	for _, tt := range tests {
		t.Run(tt.header, func(t *testing.T) {
			srv, calls := fakeTavily(t, func(w http.ResponseWriter, n int, _ wireRequest) {
				if n == 1 {
					if tt.header != "" {
						w.Header().Set("Retry-After", tt.header)
					}
					w.WriteHeader(http.StatusTooManyRequests)
					return
				}
				w.Write([]byte(okBody))
			})
			r := New(Config{APIKey: testKey, BaseURL: srv.URL})
			var waited []time.Duration
			r.sleep = func(_ context.Context, d time.Duration) error { waited = append(waited, d); return nil }
			_, err := r.Retrieve(context.Background(), agent.Request{Query: "x"})
			if !reflect.DeepEqual(waited, tt.waits) || (err == nil) != (tt.waits != nil) || calls.Load() != int64(1+len(tt.waits)) {
				t.Errorf("waited %v, then %v after %d calls; want waits %v", waited, err, calls.Load(), tt.waits)
			}
		})
	}
}

// Cancelling the search while it waits to retry ends it with the
// context's error.
func TestRetrieveCancelledWhileWaiting(t *testing.T) {
	srv, calls := fakeTavily(t, func(w http.ResponseWriter, _ int, _ wireRequest) {
		w.WriteHeader(http.StatusTooManyRequests)
	})
	r := New(Config{APIKey: testKey, BaseURL: srv.URL})
	ctx, cancel := context.WithCancel(context.Background())
	r.sleep = func(ctx context.Context, _ time.Duration) error { cancel(); return ctx.Err() }
	_, err := r.Retrieve(ctx, agent.Request{Query: "x"})
	if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "tavily: search: waiting to retry: ") || calls.Load() != 1 {
		t.Errorf("err = %v after %d calls, want the cancel while waiting, after 1", err, calls.Load())
	}
}

func TestRetrieveMalformedJSON(t *testing.T) {
	srv, _ := fakeTavily(t, func(w http.ResponseWriter, _ int, _ wireRequest) {
		w.Write([]byte(`<html>502 Bad Gateway</html>`))
	})
	_, err := New(Config{APIKey: testKey, BaseURL: srv.URL}).Retrieve(context.Background(), agent.Request{Query: "x"})
	if err == nil || !strings.HasPrefix(err.Error(), "tavily: decode response: ") || !strings.Contains(err.Error(), "502 Bad Gateway") {
		t.Errorf("err = %v, want a decode error quoting the body", err)
	}
}

func TestRetrieveTimeout(t *testing.T) {
	block := make(chan struct{})
	srv, _ := fakeTavily(t, func(w http.ResponseWriter, _ int, _ wireRequest) { <-block })
	defer close(block)
	r := New(Config{APIKey: testKey, BaseURL: srv.URL, Timeout: 50 * time.Millisecond})
	// The server never answers: only the Timeout can end the call, and the
	// deadline error says it did (no wall-clock limit, issue 14).
	_, err := r.Retrieve(context.Background(), agent.Request{Query: "x"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want a deadline error", err)
	}
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	}
	return fmt.Sprintf("%T", v)
}
