package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/switchboard/switchboard/agent"
)

// sse writes a streamed chat completion as OpenAI does: the content in
// pieces, a usage chunk when usage is set, then [DONE].
func sse(w http.ResponseWriter, usage bool, pieces ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, p := range pieces {
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", p)
	}
	if usage {
		fmt.Fprint(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":7,\"total_tokens\":47}}\n\n")
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func generateStreamed(t *testing.T, c *Client) (answer string, seen []string, err error) {
	t.Helper()
	answer, err = NewBrain(c).Generate(t.Context(), agent.GenerateRequest{
		Question: "What is our refund policy?",
		Docs:     []agent.Document{{Title: "Refunds", Content: "Full refund within 30 days."}},
		OnText:   func(s string) { seen = append(seen, s) },
	})
	return answer, seen, err
}

func TestGenerateStreams(t *testing.T) {
	c, f, rec := newTestClient(t, Config{}, func(_ int, w http.ResponseWriter, _ map[string]any) {
		sse(w, true, "Full ", "refund ", "within ", "30 days [1].")
	})
	answer, seen, err := generateStreamed(t, c)
	if err != nil || answer != "Full refund within 30 days [1]." {
		t.Fatalf("Generate = %q, %v", answer, err)
	}
	want := []string{"Full", "Full refund", "Full refund within", "Full refund within 30 days [1]."}
	if strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Errorf("OnText saw %q, want %q", seen, want)
	}
	body := f.request(0)
	opts, _ := body["stream_options"].(map[string]any)
	if body["stream"] != true || opts["include_usage"] != true || body["temperature"] == nil || body["max_tokens"] == nil {
		t.Errorf("request %v: want stream, include_usage, temperature and max_tokens", body)
	}
	if rec.usage.Calls != 1 || rec.usage.PromptTokens != 40 || rec.usage.CompletionTokens != 7 {
		t.Errorf("usage %+v, want the server's: 1 call, 40 + 7 tokens", rec.usage)
	}
}

// A server that streams without usage still has its tokens counted, by
// estimate, so that the daily budget sees the call.
func TestStreamWithoutUsageIsEstimated(t *testing.T) {
	c, _, rec := newTestClient(t, Config{}, func(_ int, w http.ResponseWriter, _ map[string]any) {
		sse(w, false, "Full refund within 30 days [1].")
	})
	if _, _, err := generateStreamed(t, c); err != nil {
		t.Fatal(err)
	}
	if rec.usage.Calls != 1 || rec.usage.PromptTokens == 0 || rec.usage.CompletionTokens != (len("Full refund within 30 days [1].")+3)/4 {
		t.Errorf("usage %+v, want one call and estimated tokens", rec.usage)
	}
}

// A server that refuses to stream, or answers a stream request with one
// JSON body, gets the answer asked for whole, and is not asked to stream
// again.
func TestServerThatDoesNotStream(t *testing.T) {
	for _, tt := range []struct {
		name   string
		stream func(w http.ResponseWriter)
	}{
		{"refuses", func(w http.ResponseWriter) {
			http.Error(w, `{"error":{"message":"stream not supported"}}`, http.StatusBadRequest)
		}},
		{"ignores", func(w http.ResponseWriter) { reply(w, "Full refund within 30 days [1].") }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, f, _ := newTestClient(t, Config{}, func(_ int, w http.ResponseWriter, body map[string]any) {
				if body["stream"] == true {
					tt.stream(w)
					return
				}
				reply(w, "Full refund within 30 days [1].")
			})
			for range 2 {
				if answer, _, err := generateStreamed(t, c); err != nil || answer != "Full refund within 30 days [1]." {
					t.Fatalf("Generate = %q, %v", answer, err)
				}
			}
			var streamed []bool
			for i := range f.count() {
				streamed = append(streamed, f.request(i)["stream"] == true)
			}
			if fmt.Sprint(streamed) != "[true false false]" {
				t.Errorf("requests streamed: %v, want one stream request, then whole answers only", streamed)
			}
		})
	}
}

// A prompt the server refuses whole as well (a 400 for its length) is an
// error, and does not turn streaming off.
func TestRefusedPromptKeepsStreaming(t *testing.T) {
	c, _, _ := newTestClient(t, Config{}, func(_ int, w http.ResponseWriter, _ map[string]any) {
		http.Error(w, `{"error":{"message":"context length exceeded"}}`, http.StatusBadRequest)
	})
	if _, _, err := generateStreamed(t, c); err == nil || !strings.HasPrefix(err.Error(), "llm: generate: ") {
		t.Fatalf("err = %v, want llm: generate: …", err)
	}
	if c.noStream.Load() {
		t.Error("streaming turned off by a refusal that was not about streaming")
	}
}

// A reasoning model's thinking is never shown, not even while it is open.
func TestStreamHidesThinking(t *testing.T) {
	c, _, _ := newTestClient(t, Config{}, func(_ int, w http.ResponseWriter, _ map[string]any) {
		sse(w, true, "<th", "ink>The user wants ", "the refund window.</think>\n", "Full refund ", "within 30 days [1].")
	})
	answer, seen, err := generateStreamed(t, c)
	if err != nil || answer != "Full refund within 30 days [1]." {
		t.Fatalf("Generate = %q, %v", answer, err)
	}
	for _, s := range seen {
		if strings.Contains(s, "think") || strings.Contains(s, "user wants") || strings.HasPrefix(s, "<") {
			t.Errorf("OnText showed the thinking: %q", s)
		}
	}
	if len(seen) == 0 || seen[len(seen)-1] != answer {
		t.Errorf("OnText saw %q, want it to end with the answer", seen)
	}
}

// A stream cut off midway is the call's failure (the agent goes on
// offline), not a short answer.
func TestStreamCutOff(t *testing.T) {
	c, _, _ := newTestClient(t, Config{MaxRetries: -1}, func(_ int, w http.ResponseWriter, _ map[string]any) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Full refund\"}}]}\n\n")
		w.(http.Flusher).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	})
	answer, _, err := generateStreamed(t, c)
	if err == nil {
		t.Fatalf("Generate = %q, want an error for the broken stream", answer)
	}
	if errors.Is(err, ErrBadOutput) {
		t.Errorf("err = %v: a broken connection is the server's failure, not a bad reply", err)
	}
}

func TestVisibleSoFar(t *testing.T) {
	for in, want := range map[string]string{
		"":                          "",
		"Full refund":               "Full refund",
		"<":                         "",
		"  <thi":                    "",
		"<think>still thinking":     "",
		"<think>done</think>\nFull": "Full",
		"<b>bold</b>":               "<b>bold</b>",
		"Answer <think>":            "Answer <think>",
	} {
		if got := visibleSoFar(in); got != want {
			t.Errorf("visibleSoFar(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzStream feeds the streamed reply of a server, whatever its bytes, to
// the generator: no panic, no endless loop, a reply that is not an error
// is not empty, and a streamed reply is taken as whole only when the
// server ended it (a finish reason or [DONE]).
func FuzzStream(f *testing.F) {
	f.Add("data: {\"choices\":[{\"delta\":{\"content\":\"Full refund [1].\"}}]}\n\ndata: [DONE]\n\n")
	f.Add("data: {\"choices\":[{\"delta\":{\"content\":\"<think>x\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"</think>A\"}}]}\n\n")
	f.Add("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":-1}}\n\ndata: [DONE]\n\n")
	f.Add("data: {\"error\":{\"message\":\"boom\"}}\n\n")
	f.Add("event: ping\n\n: comment\n\ndata: {not json\n\n")
	f.Add("")
	f.Add("data: {\"choices\":[{\"delta\":{\"content\":\"Customers can get a full\"}}]}\n\n")
	f.Add("data: {\"choices\":[{\"delta\":{\"content\":\"Customers can\"},\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n")
	f.Add("data: {\"choices\":[{\"delta\":{\"content\":\"Full refund.\"},\"finish_reason\":\"stop\"}]}\n\n")
	f.Add("data: {\"choices\":[{\"delta\":{\"content\":\"Full\"},\"finish_reason\":\"null\"}]}\n\ndata:[DONE]\r\n")
	f.Fuzz(func(t *testing.T, body string) {
		c, err := New(Config{BaseURL: "http://fuzz.invalid", ChatModel: "m", MaxRetries: -1, HTTPClient: &http.Client{
			Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				h := http.Header{"Content-Type": {"text/event-stream"}}
				if strings.Contains(r.URL.Path, "chat") && !strings.Contains(body, "data:") {
					h.Set("Content-Type", "application/json")
				}
				return &http.Response{StatusCode: http.StatusOK, Header: h, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
			}),
		}})
		if err != nil {
			t.Fatal(err)
		}
		c.begin = func(context.Context, int) (func(agent.Usage), error) { return func(agent.Usage) {}, nil }
		answer, seen, err := generateStreamed(t, c)
		if err == nil && strings.TrimSpace(answer) == "" {
			t.Errorf("no error and an empty answer; saw %q", seen)
		}
		// A reply asked for again whole (the server did not stream) is
		// whole JSON; a streamed one must have been ended.
		if err == nil && !c.noStream.Load() && !strings.Contains(body, "[DONE]") && !strings.Contains(body, "finish_reason") {
			t.Errorf("answer %q taken as whole from a stream the server never ended", answer)
		}
		var cut *agent.CutOffError
		if errors.As(err, &cut) && cut.AtLimit != errors.Is(err, ErrBadOutput) {
			t.Errorf("err = %v: a cut at the limit, and only that, is an unusable reply", err)
		}
	})
}

// FuzzDoneReader reads a body through a doneReader in pieces of any
// sizes, and compares what it saw with [DONE] as go-openai finds it: a
// line ended by '\n' that, spaces trimmed, is "data:", RE2 spaces and
// "[DONE]" (for the lines a doneReader holds, up to maxDoneLine bytes).
func FuzzDoneReader(f *testing.F) {
	f.Add([]byte("data: {}\n\ndata: [DONE]\n\n"), []byte{3, 1, 7})
	f.Add([]byte("data:[DONE]"), []byte{0})
	f.Add([]byte(" \u00a0data:\t [DONE] \r\n"), []byte{1})
	f.Add([]byte("data: [DONE]x\ndata: [DONE\n: data: [DONE]\n"), []byte{5, 2})
	f.Add([]byte("data:"+strings.Repeat(" ", 60)+"[DONE]\n"), []byte{9})
	header := regexp.MustCompile(`^data:\s*`) // go-openai's headerData
	f.Fuzz(func(t *testing.T, body, sizes []byte) {
		want := false
		lines := bytes.Split(body, []byte{'\n'})
		for _, line := range lines[:len(lines)-1] { // the last is not ended
			s := bytes.TrimSpace(line)
			if len(line) <= maxDoneLine && header.Match(s) && string(header.ReplaceAll(s, nil)) == "[DONE]" {
				want = true
			}
		}
		var seen atomic.Bool
		r := &doneReader{ReadCloser: io.NopCloser(&pieces{b: body, sizes: sizes}), seen: &seen}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("read %q, %v; want the body unchanged", got, err)
		}
		if seen.Load() != want {
			t.Errorf("saw [DONE] = %v, want %v", seen.Load(), want)
		}
	})
}

// pieces reads b in pieces of the sizes given, in turn (each at least 1).
type pieces struct {
	b     []byte
	sizes []byte
	i     int
}

func (p *pieces) Read(out []byte) (int, error) {
	if len(p.b) == 0 {
		return 0, io.EOF
	}
	n := 1
	if len(p.sizes) > 0 {
		n = int(p.sizes[p.i%len(p.sizes)])%16 + 1
		p.i++
	}
	n = copy(out[:min(n, len(out))], p.b)
	p.b = p.b[n:]
	return n, nil
}
