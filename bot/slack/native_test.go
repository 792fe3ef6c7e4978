package slack

import (
	"context"
	"log/slog"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/feedback"
	"github.com/switchboard/switchboard/sqlite/sqlitetest"
)

// examples is a store's answer to Titles: the same few strings.
type examples []string

func (x examples) Titles(_ context.Context, _ string, n int) ([]string, error) {
	return x[:min(n, len(x))], nil
}

// liked is a store's answer to Liked: the questions under the prefix.
type liked []feedback.Liked

func (x liked) Liked(_ context.Context, prefix string, n int) ([]feedback.Liked, error) {
	var out []feedback.Liked
	for _, l := range x {
		if strings.HasPrefix(l.Thread, prefix) && len(out) < n {
			out = append(out, l)
		}
	}
	return out, nil
}

// streamed waits for the streamed answer in a thread: stopped, with its
// native feedback buttons.
func (e *env) streamed(channel, thread string) slacktest.Message {
	e.t.Helper()
	var m slacktest.Message
	slacktest.Wait(e.t, timeout, "a streamed answer in thread "+thread, func() bool {
		for _, msg := range e.fake.Messages(channel, thread) {
			if msg.Markdown != "" && !msg.Streaming && msg.ActionValues()[ActionFeedback+"/positive"] != "" {
				m = msg
				return true
			}
		}
		return false
	})
	return m
}

// An assistant thread gets suggested prompts (the questions voted up
// first, then the documents'), shows the progress as its status, is named
// after its question, and its answer streams, ending with the sources,
// the badge and native feedback buttons that vote.
func TestAssistantThread(t *testing.T) {
	// Only a question of a public channel is everyone's to see.
	e := newEnv(t, options{native: true, liked: liked{
		{Question: "What did the board decide?", Thread: "slack:TFAKE:G2:1.000001"}, // a private channel
		{Question: "Am I getting fired?", Thread: "slack:TFAKE:D1:1.000002"},        // a direct message
		{Question: "Who earns the most?", Thread: "slack:TFAKE:C1:ask:trigger"},     // a private /ask
		{Question: "Is the merger on?", Thread: "slack:TFAKE:C9:1.000003"},          // a channel Slack does not know
		{Question: "Why was Ann let go?", Thread: "slack:TFAKE:C3:1.000003"},        // a private channel with a C id
		{Question: "How long do refunds take?", Thread: "slack:TFAKE:C1:1.000004"},  // a public channel
		{Question: "Another workspace's?", Thread: "slack:TOTHER:C1:1.000005"},
	}, titles: []string{"Refund policy", "Data retention policy"}})
	e.fake.AddChannel("C1", "support", false)
	e.fake.AddChannel("G2", "board", true)
	e.fake.AddChannel("C3", "hr", true)
	started := e.fake.AssistantThreadStarted("D1", "U1", "C7")
	if resp := e.fake.PostEvent(e.h, "", started, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	thread := started.Thread.ThreadTS
	var th *slacktest.Thread
	slacktest.Wait(t, timeout, "suggested prompts", func() bool {
		th = e.fake.AssistantThread("D1", thread)
		return th != nil && len(th.Prompts) > 0
	})
	want := []slacktest.Prompt{{Title: "How long do refunds take?", Message: "How long do refunds take?"},
		{Title: "Refund policy", Message: "What does “Refund policy” say?"},
		{Title: "Data retention policy", Message: "What does “Data retention policy” say?"}}
	if !slices.Equal(th.Prompts, want) {
		t.Errorf("prompts %+v, want %+v", th.Prompts, want)
	}

	ask := e.fake.AssistantMessage("D1", thread, "U1", "What is our refund policy?")
	e.fake.PostEvent(e.h, "", ask, nil)
	m := e.streamed("D1", thread)
	if msgs := e.fake.Messages("D1", thread); len(msgs) != 1 {
		t.Errorf("%d messages in the thread, want the stream alone", len(msgs))
	}
	for _, w := range []string{"full refund", "Answered from company documents", "*Sources*", "confidence"} {
		if !strings.Contains(m.Content(), w) {
			t.Errorf("the streamed answer lacks %q:\n%s", w, m.Content())
		}
	}
	slacktest.Wait(t, timeout, "the title", func() bool {
		th = e.fake.AssistantThread("D1", thread)
		return th.Title != ""
	})
	if th.Title != "What is our refund policy?" {
		t.Errorf("title %q", th.Title)
	}
	if !slices.Contains(th.Statuses, "Searching company documents…") {
		t.Errorf("statuses %q lack the search", th.Statuses)
	}
	// The question was about the channel the asker looked at.
	if sc := e.kb.scopeSeen(); !reflect.DeepEqual(sc, agent.Scope{Workspace: e.fake.TeamID, Channel: "C7", Prefer: "C7"}) {
		t.Errorf("scope %+v, want the channel looked at, preferred", sc)
	}

	press, ok := e.fake.FeedbackAction("U1", m, true)
	if !ok {
		t.Fatal("no feedback buttons")
	}
	e.fake.PostInteraction(e.h, press)
	id := strings.TrimPrefix(m.ActionValues()[ActionFeedback+"/positive"], "up:")
	slacktest.Wait(t, timeout, "the vote", func() bool { return e.votes.get(id, "U1") == 1 })

	// Another channel looked at, and the next question is about it.
	e.fake.PostEvent(e.h, "", e.fake.AssistantContextChanged("D1", thread, "U1", "C8"), nil)
	e.quiet()
	e.fake.PostEvent(e.h, "", e.fake.AssistantMessage("D1", thread, "U1", "And the refund window?"), nil)
	slacktest.Wait(t, timeout, "the second answer", func() bool { return len(e.fake.Messages("D1", thread)) == 2 })
	e.streamed("D1", thread)
	if sc := e.kb.scopeSeen(); sc.Channel != "C8" {
		t.Errorf("scope %+v after the context changed, want C8", sc)
	}
}

// A channel question streams too, to its asker in its workspace, and a
// direct message outside the AI-app view is answered in its thread.
func TestStreamInChannelAndDM(t *testing.T) {
	e := newEnv(t, options{native: true})
	for _, ev := range []slacktest.MessageEvent{
		e.fake.Mention("C1", "U1", "What is our refund policy?"),
		e.fake.DirectMessage("D1", "U1", "What is our refund policy?"),
	} {
		e.fake.PostEvent(e.h, "", ev, nil)
		m := e.streamed(ev.Channel, ev.TS)
		if !strings.Contains(m.Content(), "full refund") || (ev.Channel == "C1" && m.Recipient != "U1") {
			t.Errorf("streamed in %s to %q:\n%s", ev.Channel, m.Recipient, m.Content())
		}
		if n := len(e.fake.Messages(ev.Channel, ev.TS)); n != 1 {
			t.Errorf("%d messages in the thread of %s, want 1", n, ev.Channel)
		}
	}
}

// Where Slack refuses streaming, the answer is posted and edited as
// before, once, and the workspace is not asked to stream again.
func TestStreamRefused(t *testing.T) {
	e := newEnv(t, options{native: true})
	e.fake.RefuseStreaming("not_allowed")
	for i, q := range []string{"What is our refund policy?", "How long is data kept?"} {
		ev := e.fake.Mention("C1", "U1", q)
		e.fake.PostEvent(e.h, "", ev, nil)
		msgs := e.final("C1", ev.TS, 1)
		if len(msgs) != 1 || msgs[0].Markdown != "" {
			t.Fatalf("question %d: %d messages, want one posted answer: %+v", i+1, len(msgs), msgs)
		}
		checkAnswer(t, msgs[0], ev.TS)
		if i == 1 && (len(msgs[0].Versions) < 2 || !strings.Contains(msgs[0].Versions[0].Content(), bot.ThinkingLine)) {
			t.Errorf("the second answer is not an edited placeholder: %+v", msgs[0].Versions)
		}
	}
	if n := e.fake.Calls("chat.startStream"); n != 1 {
		t.Errorf("chat.startStream called %d times, want once for the workspace", n)
	}
}

// /ask answers its asker alone, with the progress, and shares the answer
// in the channel once, however often the button is pressed, by an app
// started again since: the answer is the store's.
func TestAskPrivately(t *testing.T) {
	o := options{native: true, answers: sqlitetest.Feedback(t)}
	e := newEnv(t, o)
	form := e.fake.SlashCommand("C1", "U1", "/ask", "What is our refund policy?")
	if resp := e.fake.PostCommand(e.h, form); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	url := form.Get("response_url")
	var last slacktest.Version
	slacktest.Wait(t, timeout, "the private answer", func() bool {
		r := e.fake.Response(url)
		if r == nil || len(r.Versions) == 0 {
			return false
		}
		last = r.Versions[len(r.Versions)-1]
		return last.ActionValues()[ActionShare] != ""
	})
	r := e.fake.Response(url)
	if !strings.Contains(r.Versions[0].Content(), bot.ThinkingLine) || r.Uses > slacktest.MaxResponses {
		t.Errorf("versions %+v, %d uses", r.Versions, r.Uses)
	}
	for _, w := range []string{"full refund", "*Sources*", "confidence", bot.ShareLabel} {
		if !strings.Contains(last.Content(), w) {
			t.Errorf("the private answer lacks %q:\n%s", w, last.Content())
		}
	}
	if n := len(e.fake.AllMessages()); n != 0 {
		t.Fatalf("%d messages posted before sharing, want none", n)
	}
	if err := e.settle(); err != nil { // answered, and saved
		t.Fatal(err)
	}

	// The app starts again; the asker presses the button twice, and
	// someone else once.
	again := e.adapter(o, slog.New(slog.DiscardHandler))
	id := last.ActionValues()[ActionShare]
	first := e.fake.EphemeralAction("U1", "C1", ActionShare, id)
	second := e.fake.EphemeralAction("U1", "C1", ActionShare, id)
	other := e.fake.EphemeralAction("U2", "C1", ActionShare, id)
	for _, press := range []map[string]any{other, first, second} {
		if resp := e.fake.PostInteraction(again.Handler(), press); resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
		again.Wait()
	}
	shared := e.fake.Messages("C1", "")
	if len(shared) != 1 {
		t.Fatalf("%d messages in the channel, want the answer shared once", len(shared))
	}
	// Shared in the same words as it was shown privately.
	for _, w := range []string{"<@U1> asked: “What is our refund policy?”", "full refund", "*Sources*", "confidence"} {
		if !strings.Contains(shared[0].Content(), w) {
			t.Errorf("the shared answer lacks %q:\n%s", w, shared[0].Content())
		}
	}
	if private, public := last.Content(), shared[0].Content(); !strings.Contains(public, strings.TrimSpace(private[:strings.Index(private, bot.ShareLabel)])) {
		t.Errorf("the shared answer differs from the private one:\n%s\n---\n%s", public, private)
	}
	for press, want := range map[string]string{other["response_url"].(string): bot.ShareGoneLabel,
		second["response_url"].(string): bot.AlreadySharedLabel, first["response_url"].(string): bot.SharedLabel} {
		if r := e.fake.Response(press); r == nil || !strings.Contains(r.Versions[0].Content(), want) {
			t.Errorf("a press was told %+v, want %q", r, want)
		}
	}
}

// scopeSeen is the scope of the latest retrieval.
func (r *retriever) scopeSeen() agent.Scope {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.scopes); n > 0 {
		return r.scopes[n-1]
	}
	return agent.Scope{}
}
