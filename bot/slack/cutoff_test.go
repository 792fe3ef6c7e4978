package slack

import (
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/llm/llmtest"
	"github.com/switchboard/switchboard/llm/offline"
)

// These run the whole answer on a fake Slack: the real agent, on the real
// model client talking to llmtest, which streams replies in OpenAI's wire
// format and ends them as scripted.

// modelEnv is Switchboard on a fake Slack with a model: the documents of
// the keyword retriever, graded relevant when they hold the refund
// window; the answer's stream scripted by the test.
func modelEnv(t *testing.T) (*env, *llmtest.Server) {
	t.Helper()
	srv := llmtest.New(t)
	srv.On("route", `{"reason":"asks what the refund policy says","route":"a company policy, rule, procedure or document"}`).
		OnPrompt("grade", "Customers get a full refund", `{"evidence":"Customers get a full refund within 30 days of purchase.","relevant":true}`).
		On("grade", `{"evidence":"","relevant":false}`)
	kb := &retriever{}
	ag, err := agent.New(agent.Config{Model: srv.Brain(), Offline: offline.New(nil),
		Words:      bot.Words{Names: bot.Names{MaxTokens: "OPENAI_MAX_TOKENS"}},
		Retrievers: map[agent.Route]agent.Retriever{agent.RouteVector: kb}})
	if err != nil {
		t.Fatal(err)
	}
	return newEnv(t, options{asker: ag}), srv
}

// askOnce asks in a channel and returns the one message the thread holds
// once the answer is final: the placeholder, its drafts and the answer are
// one message, edited in place.
func askOnce(t *testing.T, e *env) string {
	t.Helper()
	ev := e.fake.Mention("C1", "U1", "What is our refund policy?")
	e.fake.PostEvent(e.h, "", ev, nil)
	e.final("C1", ev.TS, 1)
	e.quiet()
	msgs := e.fake.Messages("C1", ev.TS)
	if len(msgs) != 1 {
		t.Fatalf("%d messages in the thread, want the one message edited to the final answer", len(msgs))
	}
	c := msgs[0].Content()
	if strings.Contains(c, bot.DraftNote) {
		t.Errorf("the final message is still marked a draft:\n%s", c)
	}
	return c
}

// Every draft cut off at the length limit: the answer says it was cut off
// and is badged low, never checked.
func TestEveryDraftCutOffIsNotAnsweredAsChecked(t *testing.T) {
	e, srv := modelEnv(t)
	srv.On("generate", "Customers get a full refund within 30 days of purchase [1]. Refunds go to the").End("generate", llmtest.Length)

	c := askOnce(t, e)

	for _, want := range []string{"This answer was cut off", "Refunds go to the …", "Low confidence — the answer was cut off and wasn't checked"} {
		if !strings.Contains(c, want) {
			t.Errorf("the answer lacks %q:\n%s", want, c)
		}
	}
	for _, bad := range []string{"High confidence", "Medium confidence", "answered offline"} {
		if strings.Contains(c, bad) {
			t.Errorf("the answer says %q:\n%s", bad, c)
		}
	}
	if srv.Calls("generate") != 3 || srv.Calls("check") != 0 {
		t.Errorf("generate/check requests %d/%d, want 3 drafts (the regeneration budget) and no check", srv.Calls("generate"), srv.Calls("check"))
	}
	// The asker alone is told what would make room for the answer.
	if p := e.fake.Ephemerals("U1"); len(p) != 1 || !strings.Contains(p[0].Text, "OPENAI_MAX_TOKENS") {
		t.Errorf("private messages %+v, want one naming the length limit's setting", p)
	}
}

// A stream that just stops, then a whole one: the whole answer, checked.
func TestStreamCutOffThenWholeIsAnswered(t *testing.T) {
	e, srv := modelEnv(t)
	srv.On("generate", "Customers get a full", "Customers get a full refund within 30 days of purchase [1].").
		End("generate", llmtest.Cut, llmtest.Stop).
		On("check", `{"grounded":true,"unsupported":[],"answers":true,"missing":""}`)

	c := askOnce(t, e)

	if !strings.Contains(c, "Customers get a full refund within 30 days of purchase [1]") || strings.Contains(c, "cut off") {
		t.Errorf("want the whole answer:\n%s", c)
	}
	// Checked once, against one document: medium for that alone, not
	// for the draft written again.
	if !strings.Contains(c, "Medium confidence — checked against a single document") || strings.Contains(c, "rewritten") {
		t.Errorf("badge:\n%s", c)
	}
	if srv.Calls("generate") != 2 || srv.Calls("check") != 1 {
		t.Errorf("generate/check requests %d/%d, want 2/1", srv.Calls("generate"), srv.Calls("check"))
	}
}
