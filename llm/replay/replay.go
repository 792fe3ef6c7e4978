// Package replay records the traffic of a real model server once and
// replays it in tests (the habit of langchaingo's httprr): each request of
// the client must be one the real server answered, and gets the answer it
// gave, so fidelity to real servers is checked on every run without a model.
package replay

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
)

// Exchange is one request to a real model server and its answer, as a
// recording keeps it (one JSON object per line).
type Exchange struct {
	Key      string          `json:"key"`  // RequestKey of the request
	Task     string          `json:"task"` // the prompt's TASK, for people reading the file
	Path     string          `json:"path"`
	Request  json.RawMessage `json:"request"`
	Status   int             `json:"status"`
	Response json.RawMessage `json:"response"`
	// Stream is set for a streamed answer (server-sent events): Response
	// is then a JSON string holding the events as the server sent them.
	Stream bool `json:"stream,omitempty"`
}

// RequestKey names a request by its content: the path and the body with
// its keys sorted. The client sends the same body for the same call
// (decisions at temperature 0, fixed prompts), so a replay finds the
// answer the real server gave, and a prompt that changed finds none.
func RequestKey(path string, body []byte) string {
	var v any
	if err := json.Unmarshal(body, &v); err == nil {
		if b, err := json.Marshal(v); err == nil { // maps marshal with sorted keys
			body = b
		}
	}
	sum := sha256.Sum256(append([]byte(path+"\n"), body...))
	return hex.EncodeToString(sum[:12])
}

// Replay serves a recording: every request must be one the recording
// holds, answered as the real server answered it; any other request fails
// the test, naming its task, with the command that records again.
type Replay struct {
	srv *httptest.Server
	by  map[string]Exchange // read only once served
}

// NewReplay serves the recording at path until the test ends.
func NewReplay(t testing.TB, path, rerecord string) *Replay {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("replay: %v (record it: %s)", err, rerecord)
	}
	defer f.Close()
	r := &Replay{by: map[string]Exchange{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var e Exchange
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("replay: %s: %v", path, err)
		}
		r.by[e.Key] = e
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("replay: %s: %v", path, err)
	}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		key := RequestKey(req.URL.Path, body)
		e, ok := r.by[key]
		if !ok {
			t.Errorf("replay: the recording has no %s request like this one (task %q); the prompts or parameters changed: record again with %s",
				req.URL.Path, taskOf(body), rerecord)
			http.Error(w, "not in the recording", http.StatusNotFound) // not a 5xx, which the client would probe again
			return
		}
		if e.Stream {
			var events string
			if err := json.Unmarshal(e.Response, &events); err != nil {
				t.Errorf("replay: the streamed answer of a %q request: %v", e.Task, err)
			}
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(e.Status)
			_, _ = io.WriteString(w, events)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(e.Status)
		_, _ = w.Write(e.Response)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// URL is the replay server's API root.
func (r *Replay) URL() string { return r.srv.URL + "/v1" }

// Recorder is a reverse proxy to a real server that writes every
// exchange to a recording.
type Recorder struct {
	srv  *httptest.Server
	mu   sync.Mutex
	out  []Exchange
	path string
}

// NewRecorder forwards to the server at upstream (its API root, e.g.
// http://127.0.0.1:8000/v1) and writes the recording to path when the
// test ends.
func NewRecorder(t testing.TB, upstream, path string) *Recorder {
	t.Helper()
	upstream = strings.TrimSuffix(strings.TrimSuffix(upstream, "/"), "/v1")
	rec := &Recorder{path: path}
	client := &http.Client{}
	rec.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		fwd, err := http.NewRequestWithContext(req.Context(), req.Method, upstream+req.URL.Path, bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		fwd.Header = req.Header.Clone()
		resp, err := client.Do(fwd)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		answer, _ := io.ReadAll(resp.Body)
		e := Exchange{Key: RequestKey(req.URL.Path, body), Task: taskOf(body), Path: req.URL.Path,
			Request: compact(body), Status: resp.StatusCode}
		ctype := "application/json"
		switch {
		case strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream"):
			// Kept whole and passed on whole: a recording is about what
			// the server says, not when.
			ctype, e.Stream = "text/event-stream", true
			e.Response, _ = json.Marshal(string(answer))
		case !json.Valid(answer):
			answer, _ = json.Marshal(map[string]any{"error": map[string]any{"message": string(answer)}})
			e.Response = compact(answer)
		default:
			e.Response = compact(answer)
		}
		rec.mu.Lock()
		rec.out = append(rec.out, e)
		rec.mu.Unlock()
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(answer)
	}))
	t.Cleanup(func() {
		rec.srv.Close()
		if err := rec.write(); err != nil {
			t.Error(err)
		}
	})
	return rec
}

// URL is the recorder's API root.
func (r *Recorder) URL() string { return r.srv.URL + "/v1" }

func (r *Recorder) write() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b bytes.Buffer
	for _, e := range r.out {
		line, err := json.Marshal(e)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return os.WriteFile(r.path, b.Bytes(), 0o644)
}

func compact(b []byte) json.RawMessage {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		out, _ := json.Marshal(string(b))
		return out
	}
	return buf.Bytes()
}

// taskOf is the TASK of a chat request's first system prompt.
func taskOf(body []byte) string {
	var req struct {
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil || len(req.Messages) == 0 {
		return ""
	}
	first, _, _ := strings.Cut(req.Messages[0].Content, "\n")
	if t, ok := strings.CutPrefix(first, "TASK: "); ok {
		return strings.TrimSpace(t)
	}
	return fmt.Sprintf("%.40s", first)
}
