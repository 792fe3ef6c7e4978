package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/bot/slack"
	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/eval"
	"github.com/switchboard/switchboard/internal/testenv"
)

// The whole of issue 26's "a person when the bot can't answer", through
// `switchboard serve` on the embedded store and the offline engine: a
// question the bot cannot answer gets Ask an expert; pressed, it asks in
// the thread (no experts are set, no document is cited); the asker saves the reply a person gives in
// the thread; the same question asked in another thread is answered from
// that reply, citing its permalink; `switchboard eval export` makes a
// case of it.
func TestSavedReplyAnswersNextTime(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { savedReplyAnswers(t, nil) })
	t.Run("postgres", func(t *testing.T) {
		savedReplyAnswers(t, map[string]string{"DATABASE_URL": testenv.PostgresURL(t)})
	})
}

func savedReplyAnswers(t *testing.T, extra map[string]string) {
	fake := slacktest.NewServer()
	defer fake.Close()
	fake.AddChannel("C1", "help", false)
	env := slackEnv(t, fake, map[string]string{"SWITCHBOARD_DEMO": "false"})
	for k, v := range extra {
		env[k] = v
	}
	addr := startServe(t, env)
	h := proxyTo(addr)
	const q = "What is the guest wifi password?"

	ev := fake.Keep(fake.Mention("C1", "U0ASK", q))
	fake.PostEvent(h, "", ev, nil)
	answer := withButton(t, fake, ev.TS, slack.ActionAskExpert)
	fake.PostInteraction(h, fake.BlockAction("U0ASK", answer, slack.ActionAskExpert, answer.ActionValues()[slack.ActionAskExpert]))
	esc := withButton(t, fake, ev.TS, slack.ActionSaveAnswer)
	if c := esc.Content(); !strings.Contains(c, q) || !strings.Contains(c, "no experts are set") {
		t.Errorf("escalation:\n%s", c)
	}

	reply := fake.Say("C1", ev.TS, "U0BOB", "The guest wifi password is printed on the card at the reception desk.")
	fake.PostInteraction(h, fake.BlockAction("U0ASK", esc, slack.ActionSaveAnswer, esc.ActionValues()[slack.ActionSaveAnswer]))
	slacktest.Wait(t, 30*time.Second, "the saved answer's confirmation", func() bool {
		for _, e := range fake.Ephemerals("U0ASK") {
			if strings.Contains(e.Text, "reply as the answer") {
				return true
			}
		}
		return false
	})

	final := answerIn(t, fake, addr, "C1", q) // another thread
	for _, want := range []string{"reception desk", "archives/C1/p" + strings.ReplaceAll(reply, ".", "")} {
		if !strings.Contains(final, want) {
			t.Errorf("the next answer lacks %q:\n%s", want, final)
		}
	}

	out := filepath.Join(t.TempDir(), "cases.jsonl")
	if stdout, stderr, err := run(t, env, "eval", "export", "--out", out); err != nil {
		t.Fatalf("%v\n%s%s", err, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var c eval.Case
		if json.Unmarshal([]byte(line), &c) == nil && c.Question == q && c.MustCite == q && strings.Contains(strings.Join(c.MustContain, " "), "reception") {
			found = true
		}
	}
	if !found {
		t.Errorf("eval export lacks the saved answer's case:\n%s", b)
	}
}

// withButton waits for the bot's message in C1's thread with the button
// action, and returns it.
func withButton(t *testing.T, fake *slacktest.Server, thread, action string) slacktest.Message {
	t.Helper()
	var found slacktest.Message
	slacktest.Wait(t, 30*time.Second, "a message with "+action, func() bool {
		for _, m := range fake.Messages("C1", thread) {
			if m.ActionValues()[action] != "" {
				found = m
				return true
			}
		}
		return false
	})
	return found
}
