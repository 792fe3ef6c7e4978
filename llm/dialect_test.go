package llm

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// llamaCppPython answers as llama-cpp-python's server does (0.3.x): a
// json_schema response_format fails with a 500 whose message is a Python
// traceback; json_object, with or without a schema, works.
func llamaCppPython(content string) func(int, http.ResponseWriter, map[string]any) {
	return func(_ int, w http.ResponseWriter, body map[string]any) {
		if rf, ok := body["response_format"].(map[string]any); ok && rf["type"] == "json_schema" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"error":{"message":"Traceback (most recent call last):\n  File \"/var/tmp/llm-venv/lib/python3.11/site-packages/llama_cpp/server/app.py\", line 491, in create_chat_completion\nKeyError: 'schema'","type":"internal_server_error"}}`))
			return
		}
		reply(w, content)
	}
}

func TestStructuredOutputNegotiation(t *testing.T) {
	c, f, rec := newTestClient(t, Config{MaxRetries: 3}, llamaCppPython(`{"relevant": true, "reason": "ok"}`))
	var got verdict
	if err := c.JSON(context.Background(), testMsgs, "grade", testSchema, &got); err != nil {
		t.Fatal(err)
	}
	// One json_schema probe (not retried, though retries are on), then
	// json_object, which works.
	if !got.Relevant || f.count() != 2 || len(rec.Waits()) != 0 {
		t.Fatalf("got %+v after %d requests and %d waits, want 2 requests and none", got, f.count(), len(rec.Waits()))
	}
	// llama.cpp reads a json_object's schema beside its type; without it a
	// small model is held to "some object" and echoes the schema.
	if rf := f.request(1)["response_format"].(map[string]any); rf["type"] != "json_object" || rf["schema"] == nil {
		t.Errorf("second request's response_format = %v, want json_object with its schema", rf)
	}
	// Remembered: the next decision goes straight to json_object.
	if err := c.JSON(context.Background(), testMsgs, "grade", testSchema, &got); err != nil {
		t.Fatal(err)
	}
	if f.count() != 3 || f.request(2)["response_format"].(map[string]any)["type"] != "json_object" {
		t.Errorf("after learning, %d requests; the last with %v", f.count(), f.request(f.count() - 1)["response_format"])
	}
}

// TestServerErrorsHideInternals: what the server says in an error (here a
// traceback with its file paths) never reaches an error people may read.
func TestServerErrorsHideInternals(t *testing.T) {
	c, _, _ := newTestClient(t, Config{MaxRetries: -1}, func(_ int, w http.ResponseWriter, _ map[string]any) {
		apiError(w, http.StatusInternalServerError, "Traceback: File /srv/app/llama_cpp/server/app.py, line 491")
	})
	_, err := c.Chat(context.Background(), testMsgs)
	var se *ServerError
	if err == nil || !strings.Contains(err.Error(), "HTTP 500") || strings.Contains(err.Error(), "app.py") || !asServerError(err, &se) || se.Status != 500 {
		t.Errorf("err = %v", err)
	}
}

func asServerError(err error, se **ServerError) bool {
	for err != nil {
		if e, ok := err.(*ServerError); ok {
			*se = e
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}

// TestEveryCallSendsTemperatureAndMaxTokens: go-openai leaves a zero
// temperature out, and a server then samples at its own default; every
// request must say what it wants, and bound its length.
func TestEveryCallSendsTemperatureAndMaxTokens(t *testing.T) {
	for _, c := range []struct {
		name        string
		temperature float32
		wantAnswer  any // the answer's temperature in the request; nil: absent
	}{
		{"default", 0, 0.0},
		{"warmer answers", 0.7, 0.7},
		{"left to the server", -1, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl, f, _ := newTestClient(t, Config{Temperature: c.temperature}, func(_ int, w http.ResponseWriter, body map[string]any) {
				if body["response_format"] != nil {
					reply(w, `{"relevant": true, "reason": "ok"}`)
					return
				}
				reply(w, "An answer.")
			})
			var v verdict
			if err := cl.JSON(context.Background(), testMsgs, "grade", testSchema, &v); err != nil {
				t.Fatal(err)
			}
			if _, err := cl.Chat(context.Background(), testMsgs); err != nil {
				t.Fatal(err)
			}
			decision, answer := f.request(0), f.request(1)
			if c.temperature >= 0 && decision["temperature"] != 0.0 {
				t.Errorf("decision temperature = %v, want 0", decision["temperature"])
			}
			if decision["max_tokens"] != float64(DecisionMaxTokens) || answer["max_tokens"] != float64(DefaultMaxTokens) {
				t.Errorf("max_tokens = %v, %v", decision["max_tokens"], answer["max_tokens"])
			}
			got, ok := answer["temperature"]
			if c.wantAnswer == nil && ok || c.wantAnswer != nil && (!ok || float32(got.(float64)) != float32(c.wantAnswer.(float64))) {
				t.Errorf("answer temperature = %v (sent %v), want %v", got, ok, c.wantAnswer)
			}
		})
	}
}

func TestLenientJSON(t *testing.T) {
	for _, content := range []string{
		"{\"relevant\": true, \"reason\": \"two\nlines\"}",                         // a raw line break in a string
		"{\"relevant\": true, \"reason\": \"ok\",}",                                // a trailing comma
		"```json\n{\"relevant\": true, \"reason\": \"ok\"}\n```\nHope this helps!", // fences and trailing text
		"{\"relevant\": true,\n \"reason\": \"tab\there\",\n}",
	} {
		c, f, _ := newTestClient(t, Config{}, func(_ int, w http.ResponseWriter, _ map[string]any) { reply(w, content) })
		var got verdict
		if err := c.JSON(context.Background(), testMsgs, "grade", testSchema, &got); err != nil {
			t.Errorf("%q: %v", content, err)
			continue
		}
		if !got.Relevant || got.Reason == "" || f.count() != 1 {
			t.Errorf("%q: got %+v after %d requests, want it read at once", content, got, f.count())
		}
	}
}

func FuzzRepairJSON(f *testing.F) {
	f.Add("{\"a\": \"x\ny\",}")
	f.Add(`{"a": [1, 2,], "b": "\"}`)
	f.Fuzz(func(t *testing.T, s string) {
		r := repairJSON(s)
		if strings.Count(r, "\n") > strings.Count(s, "\n") {
			t.Errorf("repair added line breaks")
		}
		_, _ = extractJSON(s)
	})
}

// TestMaxConcurrent: with MaxConcurrent 1, the server never has two
// requests at once, however many callers there are.
func TestMaxConcurrent(t *testing.T) {
	var mu sync.Mutex
	inFlight, most := 0, 0
	gate := make(chan struct{})
	c, f, _ := newTestClient(t, Config{MaxConcurrent: 1}, func(_ int, w http.ResponseWriter, _ map[string]any) {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		mu.Unlock()
		<-gate // each request waits here until the test lets it go
		mu.Lock()
		inFlight--
		mu.Unlock()
		reply(w, "An answer.")
	})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := c.Chat(context.Background(), testMsgs); err != nil {
				t.Error(err)
			}
		})
	}
	for range 8 {
		gate <- struct{}{}
	}
	wg.Wait()
	if most > 1 || f.count() != 8 {
		t.Errorf("%d requests, at most %d at once; want 8, one at a time", f.count(), most)
	}
	// A caller whose context ends while it waits for the slot gives up.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Chat(ctx, testMsgs); err == nil {
		t.Error("a cancelled call went through")
	}
}
