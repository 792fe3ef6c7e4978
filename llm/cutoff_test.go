package llm_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/llm"
	"github.com/switchboard/switchboard/llm/llmtest"
)

// A reply is whole only when the server ended it. These run the Brain
// against llmtest, which speaks OpenAI's wire format, ending each reply as
// a real server would.

const (
	cutAnswer   = "Customers can get a full"
	wholeAnswer = "Customers can get a full refund within 30 days [1]."
)

var refundDocs = []agent.Document{{Title: "Refund policy", Content: "Customers can get a full refund within 30 days of the invoice date."}}

// generateWith asks srv's Brain for an answer, streamed or whole, and
// returns it, what was shown of it as it was written, and the error.
func generateWith(t *testing.T, srv *llmtest.Server, streamed bool) (answer string, seen []string, err error) {
	t.Helper()
	req := agent.GenerateRequest{Question: "What is our refund policy?", Docs: refundDocs}
	if streamed {
		req.OnText = func(s string) { seen = append(seen, s) }
	}
	answer, err = srv.Brain().Generate(ctx, req)
	return answer, seen, err
}

// cutOff returns err's *agent.CutOffError, failing the test without one.
func cutOff(t *testing.T, err error) *agent.CutOffError {
	t.Helper()
	var cut *agent.CutOffError
	if !errors.As(err, &cut) {
		t.Fatalf("err = %v, want a *agent.CutOffError", err)
	}
	return cut
}

// A stream that ends with neither a finish reason nor [DONE] (a proxy or
// a server that dropped the reply) is not an answer: the text so far comes
// back with a cut-off error, as the server's failure, not a bad reply.
func TestStreamThatJustEndsIsCutOff(t *testing.T) {
	srv := llmtest.New(t)
	srv.On("generate", cutAnswer).End("generate", llmtest.Cut)
	answer, seen, err := generateWith(t, srv, true)
	if cut := cutOff(t, err); cut.AtLimit {
		t.Errorf("cut = %+v: the stream stopped, it did not reach the length limit", cut)
	}
	if errors.Is(err, llm.ErrBadOutput) {
		t.Errorf("err = %v: a reply that stopped arriving is the server's failure, not a bad reply", err)
	}
	if answer != cutAnswer || len(seen) == 0 || seen[len(seen)-1] != cutAnswer {
		t.Errorf("answer %q, seen %q: want the text so far, as it was shown", answer, seen)
	}
}

// A reply cut at the length limit, streamed or whole, is a cut-off and an
// unusable reply (the server works).
func TestReplyAtTheLengthLimitIsCutOff(t *testing.T) {
	for _, streamed := range []bool{true, false} {
		t.Run(map[bool]string{true: "streamed", false: "whole"}[streamed], func(t *testing.T) {
			srv := llmtest.New(t)
			srv.On("generate", cutAnswer).End("generate", llmtest.Length)
			answer, _, err := generateWith(t, srv, streamed)
			if cut := cutOff(t, err); !cut.AtLimit {
				t.Errorf("cut = %+v, want at the length limit", cut)
			}
			if !errors.Is(err, llm.ErrBadOutput) || !strings.HasPrefix(err.Error(), "llm: generate: ") {
				t.Errorf("err = %v, want llm: generate: … wrapping ErrBadOutput", err)
			}
			if answer != cutAnswer {
				t.Errorf("answer = %q, want the text so far", answer)
			}
			if req := srv.Requests("generate"); len(req) != 1 || req[0].Stream != streamed {
				t.Errorf("%d requests, want one, streamed %v", len(req), streamed)
			}
		})
	}
}

// A cut inside a reasoning block leaves nothing to show.
func TestCutInsideThinkingShowsNothing(t *testing.T) {
	srv := llmtest.New(t)
	srv.On("generate", "<think>The policy says a full refund within").End("generate", llmtest.Length)
	answer, seen, err := generateWith(t, srv, true)
	cutOff(t, err)
	if answer != "" || len(seen) != 0 {
		t.Errorf("answer %q, seen %q: the thinking was shown", answer, seen)
	}
}

// Servers end a whole stream in different ways, and each is whole: with a
// finish reason and [DONE] (OpenAI, llama.cpp, vLLM, Ollama), a finish
// reason without [DONE] (llama.cpp's server before September 2024), or
// [DONE] without a finish reason.
func TestWholeStreamsEndInDifferentWays(t *testing.T) {
	for name, end := range map[string]llmtest.Ending{"stop": llmtest.Stop, "stop, no [DONE]": llmtest.StopNoDone, "[DONE], no finish reason": llmtest.DoneNoFinish} {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.On("generate", wholeAnswer).End("generate", end)
			answer, seen, err := generateWith(t, srv, true)
			if err != nil || answer != wholeAnswer || len(seen) < 3 {
				t.Errorf("Generate = %q, %v (seen %d pieces), want the whole answer streamed", answer, err, len(seen))
			}
		})
	}
}

// A direct answer cut at the length limit is not an answer: an unusable
// reply, which the agent answers offline for that step.
func TestDirectAnswerAtTheLengthLimit(t *testing.T) {
	srv := llmtest.New(t)
	srv.On("direct", "The capital of France is").End("direct", llmtest.Length)
	answer, ok, err := srv.Brain().Direct(ctx, "What is the capital of France?", nil)
	if err == nil || !errors.Is(err, llm.ErrBadOutput) || answer != "" || ok {
		t.Errorf("Direct = %q, %v, %v; want no answer and an unusable reply", answer, ok, err)
	}
}

// A decision cut at the length limit is not read, even when the text cut
// holds a JSON object: here the model's reasoning, cut before it decided.
// It is asked again, told why, as for any reply that cannot be used.
func TestDecisionCutOffIsAskedAgain(t *testing.T) {
	srv := llmtest.New(t)
	srv.On("route",
		`<think>Is it {"reason":"asks about refund news","route":"news, current events or public facts that change"}? No, refunds are a`,
		`{"reason":"asks what the refund policy says","route":"a company policy, rule, procedure or document"}`).
		End("route", llmtest.Length, llmtest.Stop)
	d, err := srv.Brain().Route(ctx, "What is our refund policy?")
	if err != nil || d.Route != agent.RouteVector {
		t.Fatalf("Route = %+v, %v; want the vector route of the whole reply", d, err)
	}
	reqs := srv.Requests("route")
	if len(reqs) != 2 || !strings.Contains(llmtest.Prompt(reqs[1]), "cut off at the length limit") {
		t.Errorf("%d route requests; want a second one saying the first was cut off", len(reqs))
	}
}

// A decision cut off twice is an unusable reply.
func TestDecisionCutOffTwiceIsUnusable(t *testing.T) {
	srv := llmtest.New(t)
	srv.On("grade", `{"evidence":"Customers can get a full refund within 30 days`).End("grade", llmtest.Length)
	_, err := srv.Brain().Grade(ctx, "What is our refund policy?", refundDocs[0])
	if !errors.Is(err, llm.ErrBadOutput) || srv.Calls("grade") != 2 {
		t.Errorf("Grade: %v after %d requests; want an unusable reply after two", err, srv.Calls("grade"))
	}
}

// A whole object padded with blank lines up to the limit, as JSON
// grammars let a model do, is whole: used at once.
func TestDecisionPaddedToTheLimitIsWhole(t *testing.T) {
	srv := llmtest.New(t)
	srv.On("route", `{"reason":"asks what the refund policy says","route":"a company policy, rule, procedure or document"}`+strings.Repeat("\n", 300)).
		End("route", llmtest.Length)
	d, err := srv.Brain().Route(ctx, "What is our refund policy?")
	if err != nil || d.Route != agent.RouteVector || srv.Calls("route") != 1 {
		t.Errorf("Route = %+v, %v after %d requests; want the object, at once", d, err, srv.Calls("route"))
	}
}
