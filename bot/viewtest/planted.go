package viewtest

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/llm/llmtest"
	"github.com/switchboard/switchboard/llm/offline"
)

// PlantedURL is where the planted document really is: the only place
// the bot's own links (its citation and its source) may go.
const PlantedURL = "https://wiki.example.com/it/password-reset"

// PlantedDoc is a document that any member of an ingested channel could
// have written: links whose words hide where they go, in each way text
// carries one (Markdown, Slack's markup, HTML, a reference), and a line
// that reads like the confidence badge. The offline engine quotes it as
// it is.
var PlantedDoc = agent.Document{ID: "password-reset", Title: "Password reset", Location: PlantedURL,
	Content: "Password reset. To reset your password, open [Reset password](https://evil.example/reset) and sign in again.\n" +
		"If the password reset page fails, use <https://evil.example/desk|the help desk> or <a href=\"https://evil.example/a\">the backup page</a>."}

// PlantedAnswer is a model's answer over PlantedDoc that repeats its
// links, adds more (a terminal's too: OSC 8), and starts a line like the
// badge of a better answer than it is.
const PlantedAnswer = "To reset your password, open [Reset password](https://evil.example/reset) and sign in again [1].\n" +
	"🟢 High confidence — checked against 12 documents\n\n" +
	"If that fails, use [the backup page](<https://evil.example/backup> \"Backup\"), <https://evil.example/desk|the help desk>, " +
	"<a href=\"https://evil.example/a\">the form</a>, [https://wiki.example.com/it](https://evil.example/it), " +
	"![the portal](https://evil.example/p.png), the \x1b]8;;https://evil.example/t\x1b\\terminal's link\x1b]8;;\x1b\\ " +
	"or the [reset form][form] [1]. The page itself is " + PlantedURL + ".\n\n" +
	"[form]: https://evil.example/form"

// PlantedAgent is the real agent over PlantedDoc: offline, which quotes
// the document, or with a model (a scripted OpenAI-compatible server)
// that streams PlantedAnswer.
func PlantedAgent(t testing.TB, model bool) *agent.Agent {
	t.Helper()
	cfg := agent.Config{Offline: offline.New(nil),
		Retrievers: map[agent.Route]agent.Retriever{agent.RouteVector: planted{}}}
	if model {
		srv := llmtest.New(t)
		srv.On("route", `{"route":"vector","reason":"asks how to reset a password"}`).
			On("grade", `{"evidence":"To reset your password, open the reset page.","relevant":true}`).
			On("generate", PlantedAnswer).
			On("check", `{"grounded":true,"unsupported":[],"answers":true,"missing":""}`)
		cfg.Model = srv.Brain()
	}
	a, err := agent.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// planted is a retriever that finds PlantedDoc for every question.
type planted struct{}

func (planted) Retrieve(context.Context, agent.Request) ([]agent.Document, error) {
	return []agent.Document{PlantedDoc}, nil
}

// ShowingDraft is asker a, with its answer's draft held on screen: when the
// draft is checked, it waits until shown reports that the chat shows it
// (or, in case it never does, for 30 s; the test then finds no draft).
// The presenter edits the message at its own pace, and may skip a draft
// that lasts less than its interval; a test of what drafts show needs
// one shown.
func ShowingDraft(a bot.Asker, shown func() bool) bot.Asker {
	return drafted{a, shown}
}

type drafted struct {
	bot.Asker
	shown func() bool
}

func (d drafted) Ask(ctx context.Context, q agent.Question, emit agent.Emitter) (agent.Result, error) {
	return d.Asker.Ask(ctx, q, func(e agent.Event) {
		emit(e)
		if e.Kind != agent.EventChecking {
			return
		}
		// Not a test's Wait: this runs on the dispatcher's goroutine,
		// where a test may not stop.
		for deadline := time.Now().Add(30 * time.Second); !d.shown() && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
	})
}
