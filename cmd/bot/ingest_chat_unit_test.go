package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/ingest/chat"
	"github.com/switchboard/switchboard/llm/llmtest"
)

// The adapters hear the Service's refusals in package bot's words.
func TestChatPortErrors(t *testing.T) {
	for err, want := range map[error]error{chat.ErrNotAdmin: bot.ErrNotAdmin, chat.ErrIngestRunning: bot.ErrIngestRunning, chat.ErrClosed: chat.ErrClosed} {
		if got := botError(err); got != want {
			t.Errorf("%v became %v, want %v", err, got, want)
		}
	}
	app := &App{Config: Config{IngestAdmins: "slack:UADMIN"}}
	s := app.chatService(context.Background())
	defer s.Close()
	err := s.IngestChannel(context.Background(), bot.IngestRequest{Platform: "slack", Workspace: "T1", Channel: "C1", User: "U1"}, nil)
	if !errors.Is(err, bot.ErrNotAdmin) {
		t.Errorf("a user who is not an admin: %v, want bot.ErrNotAdmin", err)
	}
}

func TestHasChannelFlag(t *testing.T) {
	for args, want := range map[string]bool{
		"--channel C1": true, "--channel=C1": true, "-channel C1": true, "docs/": false, "": false,
	} {
		if got := hasChannelFlag(strings.Fields(args)); got != want {
			t.Errorf("%q: %v", args, got)
		}
	}
}

// The CLI's progress bar; the chat's progress line is ingest/chat's.
func TestProgressOutput(t *testing.T) {
	p := chat.Progress{Channel: chat.Channel{Name: "general"}, Messages: 12345, Documents: 80, Fraction: 0.5,
		Day: time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC), Elapsed: 10 * time.Second}
	line := barLine(p)
	for _, want := range []string{"#general ▕████████████░░░░░░░░░░░░▏  50%", "12,345 messages", "1234/s", "ETA 10s", "5 Mar 2024"} {
		if !strings.Contains(line, want) {
			t.Errorf("bar %q lacks %q", line, want)
		}
	}
	// Not a terminal: a log line now and then, nothing drawn.
	var out, logs bytes.Buffer
	bar := newProgressBar(&out, slog.New(slog.NewTextHandler(&logs, nil)))
	bar.update(p)
	bar.update(p) // within logEvery: not logged again
	bar.done()
	if out.Len() != 0 || strings.Count(logs.String(), "ingesting") != 1 || !strings.Contains(logs.String(), "eta=10s") {
		t.Errorf("out %q, logs %q", out.String(), logs.String())
	}
}

// With a model configured, graph facts come from a structured-output
// call per chunk, not from the rules.
func TestIngestSlackExtractsFactsWithTheModel(t *testing.T) {
	fake := slacktest.NewServer()
	defer fake.Close()
	fake.AddChannel("C1", "suppliers", false)
	fake.AddUser("U1", "Alice")
	fake.PostAt("C1", "U1", "Our sensors come from Vantor now; Hooli resells them.", day1)
	srv := llmtest.New(t)
	srv.On("extract", `{"facts":[{"subject":"Vantor","subject_label":"Organization","relation":"SUPPLIES","object":"Brightline","object_label":"Organization","passage":1}]}`)
	env := slackEnv(t, fake, map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "k", "OPENAI_MAX_RETRIES": "0"})
	out, stderr, err := run(t, env, "ingest", "slack", "--channel", "C1")
	if err != nil || !strings.Contains(out, "2 entities, 1 relation") || srv.Calls("extract") != 1 {
		t.Errorf("%v (%d extract calls)\n%s%s", err, srv.Calls("extract"), out, stderr)
	}
}
