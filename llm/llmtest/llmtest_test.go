package llmtest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/llm"
	"github.com/switchboard/switchboard/llm/llmtest"
)

var ctx = context.Background()

func TestRepliesInOrderLastRepeats(t *testing.T) {
	srv := llmtest.New(t).
		On("grade", `{"evidence":"first","relevant":true}`, `{"evidence":"second","relevant":true}`)
	b := srv.Brain()
	var reasons []string
	for range 3 {
		g, err := b.Grade(ctx, "q", agent.Document{Content: "first, second"})
		if err != nil {
			t.Fatal(err)
		}
		reasons = append(reasons, g.Reason)
	}
	if got := strings.Join(reasons, ","); got != "says “first”,says “second”,says “second”" {
		t.Errorf("replies = %s, want first, second, second", got)
	}
	if srv.Calls("grade") != 3 || srv.Calls("route") != 0 || srv.Calls("") != 3 {
		t.Errorf("calls grade=%d route=%d all=%d, want 3, 0, 3", srv.Calls("grade"), srv.Calls("route"), srv.Calls(""))
	}
}

func TestOnPromptIsTriedFirst(t *testing.T) {
	srv := llmtest.New(t).
		On("grade", `{"evidence":"","relevant":false}`).
		OnPrompt("grade", "Acme supplies", `{"evidence":"Acme supplies Globex.","relevant":true}`)
	b := srv.Brain()
	g1, err1 := b.Grade(ctx, "Who supplies Globex?", agent.Document{Content: "Acme supplies Globex."})
	g2, err2 := b.Grade(ctx, "Who supplies Globex?", agent.Document{Content: "The canteen opens at 8."})
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	if !g1.Relevant || g2.Relevant {
		t.Errorf("grades = %+v, %+v; want the specific script for the Acme document only", g1, g2)
	}
}

func TestHandle(t *testing.T) {
	srv := llmtest.New(t).Handle(func(req openai.ChatCompletionRequest) (string, int) {
		if llmtest.Task(req) == "direct" {
			return "handled " + llmtest.Task(req), 0
		}
		return "no", http.StatusBadRequest
	})
	got, _, err := srv.Brain().Direct(ctx, "hi", nil)
	if err != nil || got != "handled direct" {
		t.Fatalf("Direct = %q, %v", got, err)
	}
	if _, err := srv.Brain().Route(ctx, "hi"); err == nil {
		t.Error("a 400 from the handler should be an error")
	}
}

func TestFailures(t *testing.T) {
	srv := llmtest.New(t).On("direct", "fine")
	b := srv.Brain()

	srv.FailNext(1, http.StatusServiceUnavailable)
	if _, _, err := b.Direct(ctx, "q", nil); err == nil {
		t.Error("FailNext: want an error")
	}
	if _, _, err := b.Direct(ctx, "q", nil); err != nil {
		t.Errorf("after FailNext(1): %v", err)
	}

	srv.Fail(http.StatusInternalServerError)
	for range 2 {
		if _, _, err := b.Direct(ctx, "q", nil); err == nil {
			t.Error("Fail: want an error")
		}
	}
	if _, err := srv.Client().Embed(ctx, []string{"x"}); err == nil {
		t.Error("Fail: embeddings should fail too")
	}
	srv.Fail(0)
	if _, _, err := b.Direct(ctx, "q", nil); err != nil {
		t.Errorf("after Fail(0): %v", err)
	}
	if srv.Calls("direct") != 5 {
		t.Errorf("calls = %d, want 5: failures count", srv.Calls("direct"))
	}
}

// The delay ends when the client gives up: were it to wait out its hour,
// the server's Close at the end of the test (which waits for its handlers)
// would time the test out. No wall-clock limit (issue 14).
func TestDelayRespectsDeadline(t *testing.T) {
	srv := llmtest.New(t).On("direct", "late").Delay(time.Hour)
	c, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, _, err := srv.Brain().Direct(c, "q", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the deadline", err)
	}
}

func TestEmbeddings(t *testing.T) {
	srv := llmtest.New(t)
	vecs, err := srv.Client().Embed(ctx, []string{"refund policy", "Refund policy!", "canteen hours"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 3 || len(vecs[0]) != llmtest.DefaultDims || srv.EmbedCalls() != 1 {
		t.Fatalf("%d vectors of %d after %d calls", len(vecs), len(vecs[0]), srv.EmbedCalls())
	}
	if fmt.Sprint(vecs[0]) != fmt.Sprint(vecs[1]) || fmt.Sprint(vecs[0]) != fmt.Sprint(llmtest.Vector("refund policy", llmtest.DefaultDims)) {
		t.Error("vectors should depend only on the lower-cased words")
	}
	if dot(vecs[0], vecs[0]) < 0.999 || dot(vecs[0], vecs[2]) > 0.9 {
		t.Errorf("want unit vectors, distinct texts apart: %v %v", dot(vecs[0], vecs[0]), dot(vecs[0], vecs[2]))
	}

	cfg := srv.Config()
	cfg.EmbeddingDimensions = 16
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := c.Embed(ctx, []string{"x"}); err != nil || len(v[0]) != 16 {
		t.Errorf("with dimensions 16: %d, %v", len(v[0]), err)
	}
}

func dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// recordingTB catches the fake's complaint about an unscripted request
// instead of failing this test.
type recordingTB struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestUnscriptedRequestFailsTheTest(t *testing.T) {
	tb := &recordingTB{TB: t}
	srv := llmtest.New(tb).On("route", `{"route":"vector","reason":"r"}`)
	if _, err := srv.Brain().Check(ctx, "q", "a", nil); err == nil {
		t.Error("an unscripted request should fail")
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if len(tb.errors) != 1 || !strings.Contains(tb.errors[0], `task "check"`) {
		t.Errorf("errors = %q, want one naming the task", tb.errors)
	}
}

// End writes each ending as the real servers it stands for do, on the
// wire: what comes after the text of a streamed reply, and the
// finish_reason of a whole one.
func TestEndings(t *testing.T) {
	for _, c := range []struct {
		end          llmtest.Ending
		stream, body string // what follows the text; the whole reply's finish_reason
	}{
		{llmtest.Stop, `"finish_reason":"stop"…[DONE]`, `"finish_reason":"stop"`},
		{llmtest.Length, `"finish_reason":"length"…[DONE]`, `"finish_reason":"length"`},
		{llmtest.Cut, ``, `"finish_reason":null`},
		{llmtest.StopNoDone, `"finish_reason":"stop"`, `"finish_reason":"stop"`},
		{llmtest.DoneNoFinish, `[DONE]`, `"finish_reason":null`},
	} {
		srv := llmtest.New(t).On("", "Full refund").End("", c.end)
		for _, streamed := range []bool{true, false} {
			body := fmt.Sprintf(`{"model":"m","stream":%v,"stream_options":%s,"messages":[{"role":"user","content":"q"}]}`,
				streamed, map[bool]string{true: `{"include_usage":true}`, false: "null"}[streamed])
			resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got := string(b)
			if !streamed {
				if !strings.Contains(got, c.body) {
					t.Errorf("ending %d, whole: %s, want %s", c.end, got, c.body)
				}
				continue
			}
			_, after, _ := strings.Cut(got, `"content":"refund"`)
			after = after[strings.Index(after, "\n"):] // the rest of that chunk's line
			var seen []string
			for _, mark := range []string{`"finish_reason":"stop"`, `"finish_reason":"length"`, `[DONE]`} {
				if strings.Contains(after, mark) {
					seen = append(seen, mark)
				}
			}
			if strings.Join(seen, "…") != c.stream {
				t.Errorf("ending %d, streamed: after the text %q, want %q:\n%s", c.end, strings.Join(seen, "…"), c.stream, got)
			}
		}
	}
}

// Tokens is what the server's usage reports say it spent, streamed or
// not, for the prompts that contain a string or for all.
func TestTokensAreWhatTheUsageReports(t *testing.T) {
	srv := llmtest.New(t).On("direct", "Two words.").On("generate", "Refunds within 30 days [1].")
	b := srv.Brain()
	if _, _, err := b.Direct(ctx, "What is 2+2? (asked by U1)", nil); err != nil {
		t.Fatal(err)
	}
	var streamed []string
	if _, err := b.Generate(ctx, agent.GenerateRequest{Question: "Refunds? (asked by U2)",
		Docs: []agent.Document{{Title: "Refunds", Content: "Refunds within 30 days."}}, OnText: func(s string) { streamed = append(streamed, s) }}); err != nil {
		t.Fatal(err)
	}
	if len(streamed) == 0 {
		t.Fatal("the answer was not streamed")
	}
	u1, u2, all := srv.Tokens("(asked by U1)"), srv.Tokens("(asked by U2)"), srv.Tokens("")
	if u1 == 0 || u2 == 0 || u1+u2 != all {
		t.Errorf("tokens: U1 %d, U2 %d, all %d; want each counted, once", u1, u2, all)
	}
	if srv.Tokens("no such prompt") != 0 {
		t.Error("tokens counted for a prompt never sent")
	}
}
