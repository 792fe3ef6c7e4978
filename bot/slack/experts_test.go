package slack

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/channels"
	"github.com/switchboard/switchboard/kb"
	"github.com/switchboard/switchboard/sqlite"
)

// These tests press Ask an expert and Save as answer on a fake Slack, end
// to end: the real dispatcher answers (the offline agent, or a scripted
// asker), the answers are kept in a real SQLite feedback store, and the
// channel's experts come from an in-memory settings store.

// experts is a bot.ChannelSettings in memory.
type experts map[string][]string

func (x experts) Settings(_ context.Context, ch string) (channels.Settings, error) {
	return channels.Settings{Channel: ch, Experts: x[ch]}, nil
}

// savedDocs keeps the documents Save as answer stores.
type savedDocs struct {
	mu   sync.Mutex
	docs []kb.Document
}

func (s *savedDocs) SaveDocument(_ context.Context, d kb.Document) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	// A store's upsert: a document saved again replaces itself.
	s.docs = slices.DeleteFunc(s.docs, func(o kb.Document) bool { return o.Key == d.Key })
	s.docs = append(s.docs, d)
	return nil
}

func (s *savedDocs) all() []kb.Document {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.docs)
}

// expertEnv is Switchboard on a fake Slack with Ask an expert and Save as
// answer: asker answers (nil: the offline agent), ch gives the experts
// (nil: none set).
func expertEnv(t *testing.T, asker bot.Asker, ch bot.SettingsReader) (*expertsEnv, *savedDocs) {
	t.Helper()
	docs := &savedDocs{}
	e, store := sqliteEnv(t, asker, func(cfg *Config, store *sqlite.Feedback) {
		cfg.Experts = &bot.Experts{Answers: store, Channels: ch, Documents: docs}
	})
	return &expertsEnv{env: e, store: store}, docs
}

// expertsEnv is an env whose answers are kept in store, where the
// presses on them read them.
type expertsEnv struct {
	*env
	store *sqlite.Feedback
}

// askKept asks text in C1 as user, the question kept in the channel's
// history as Slack keeps it, and returns the question and its answer.
func (e *expertsEnv) askKept(user, text string) (slacktest.MessageEvent, slacktest.Message) {
	e.t.Helper()
	ev := e.fake.Keep(e.fake.Mention("C1", user, text))
	e.fake.PostEvent(e.h, "", ev, nil)
	msgs := e.final("C1", ev.TS, 1)
	e.saved(e.store, ev) // a press reads it from there
	e.quiet()
	return ev, msgs[len(msgs)-1]
}

// escalations returns the escalations posted in a thread.
func (e *env) escalations(thread string) []slacktest.Message {
	var out []slacktest.Message
	for _, m := range e.fake.Messages("C1", thread) {
		if m.ActionValues()[ActionSaveAnswer] != "" {
			out = append(out, m)
		}
	}
	return out
}

// press presses a button of msg as user and waits for it to be handled.
func (e *env) press(user string, msg slacktest.Message, action string) {
	e.t.Helper()
	e.fake.PostInteraction(e.h, e.fake.BlockAction(user, msg, action, msg.ActionValues()[action]))
	e.quiet()
}

// told returns what user was told privately, last first.
func (e *env) told(user string) []slacktest.Ephemeral {
	eph := e.fake.Ephemerals(user)
	slices.Reverse(eph)
	return eph
}

var slackMentionRE = regexp.MustCompile(`<[@!][^>]*>`)

// mentionsIn are the mentions Slack reads in text, sorted, each once.
func mentionsIn(text string) []string {
	got := slackMentionRE.FindAllString(text, -1)
	slices.Sort(got)
	return slices.Compact(got)
}

// Ask an expert, pressed twice by two people, asks exactly the channel's
// experts once, in the answer's thread, with the question, what was
// searched and why the answer was not good enough; the asker or an
// expert, not a bystander, saves the reply that follows as the answer.
func TestAskExpertAndSave(t *testing.T) {
	e, docs := expertEnv(t, nil, experts{"C1": {"U0EXP", "S0TEAM"}})
	ev, answer := e.askKept("U0ASK", "What is the wifi password?")
	if answer.ActionValues()[ActionAskExpert] == "" {
		t.Fatalf("a no-answer without Ask an expert:\n%s", answer.Content())
	}
	e.press("U2", answer, ActionAskExpert)
	e.press("U0ASK", answer, ActionAskExpert)
	esc := e.escalations(ev.TS)
	if len(esc) != 1 {
		t.Fatalf("%d escalations, want 1", len(esc))
	}
	c := esc[0].Content()
	if got, want := mentionsIn(c), []string{"<!subteam^S0TEAM>", "<@U0ASK>", "<@U0EXP>"}; !slices.Equal(got, want) {
		t.Errorf("mentions %q, want the experts and the asker %q:\n%s", got, want, c)
	}
	for _, w := range []string{"What is the wifi password?", bot.EscalationSearchedLabel, "Company documents, for “", bot.EscalationWhyLabel, "No answer found"} {
		if !strings.Contains(c, w) {
			t.Errorf("the escalation lacks %q:\n%s", w, c)
		}
	}
	if told := e.told("U0ASK"); len(told) == 0 || told[0].Text != bot.AlreadyEscalatedLabel {
		t.Errorf("the second presser was told %+v", told)
	}

	// Nothing to save yet.
	e.press("U0ASK", esc[0], ActionSaveAnswer)
	if told := e.told("U0ASK"); told[0].Text != bot.NoReplyLabel {
		t.Errorf("told %q before any reply", told[0].Text)
	}
	reply := e.fake.Say("C1", ev.TS, "U0EXP", "It is on the fridge in the kitchen. <!channel>")
	e.press("U3", esc[0], ActionSaveAnswer)
	if told := e.told("U3"); len(told) == 0 || told[0].Text != bot.NotAllowedToSaveLabel || len(docs.all()) != 0 {
		t.Errorf("a bystander saved: told %+v, %d documents", told, len(docs.all()))
	}
	e.press("U0ASK", esc[0], ActionSaveAnswer)
	saved := docs.all()
	if len(saved) != 1 {
		t.Fatalf("%d documents saved", len(saved))
	}
	d := saved[0]
	if d.Key != "slack:C1:answer:"+reply || !strings.HasPrefix(d.Location, "https://fake.slack.com/archives/C1/p") ||
		d.Metadata["author"] != "U0EXP" || d.Channel != "C1" || d.Workspace != e.fake.TeamID || d.Private ||
		!strings.Contains(d.Chunks[0].Content, "on the fridge") || !strings.Contains(d.Chunks[0].Content, "wifi password") {
		t.Errorf("saved %+v", d)
	}
	if told := e.told("U0ASK"); !strings.Contains(told[0].Text, "saved U0EXP's reply as the answer") {
		t.Errorf("the saver was told %q", told[0].Text)
	}
	e.press("U0EXP", esc[0], ActionSaveAnswer)
	if told := e.told("U0EXP"); told[0].Text != bot.AlreadySavedLabel {
		t.Errorf("a second save told %q", told[0].Text)
	}

	// The shortcut saves the reply it is used on, by an expert.
	other := e.fake.Say("C1", ev.TS, "U4", "Or ask reception.")
	e.fake.PostInteraction(e.h, e.fake.MessageAction("U0EXP", "C1", CallbackSaveAnswer,
		slacktest.HistoryMessage{TS: other, ThreadTS: ev.TS, User: "U4", Text: "Or ask reception."}))
	e.quiet()
	if saved := docs.all(); len(saved) != 2 || saved[1].Key != "slack:C1:answer:"+other || saved[1].Metadata["author"] != "U4" {
		t.Errorf("the shortcut saved %+v", saved)
	}
	// Used on a message outside any escalation's thread, it says where to use it.
	e.fake.PostInteraction(e.h, e.fake.MessageAction("U0ASK", "C1", CallbackSaveAnswer, slacktest.HistoryMessage{TS: ev.TS, User: "U0ASK", Text: "hi"}))
	e.quiet()
	if told := e.told("U0ASK"); told[0].Text != bot.NotEscalatedLabel {
		t.Errorf("a shortcut outside a thread told %q", told[0].Text)
	}
}

// ownerAsker answers every question with a low-confidence answer citing
// a document whose text tries to ping everyone, owned by a Slack user and
// an e-mail address.
type ownerAsker struct{}

func (ownerAsker) Ask(_ context.Context, q agent.Question, _ agent.Emitter) (agent.Result, error) {
	return agent.Result{Question: q.Text, Route: agent.RouteVector, Confidence: agent.ConfidenceLow,
		Answer:      "Ask <!channel> or <@U999> [1].",
		Unsupported: []string{"<!everyone> knows."},
		Attempts:    []agent.Attempt{{Route: agent.RouteVector, Query: "bike <@U999>", Found: 2, Relevant: 1}},
		Sources: []agent.Source{{N: 1, Title: "Bikes <!here>", Location: "handbook/bikes.md", Route: agent.RouteVector,
			Snippet: "<!channel>", Owners: []string{"U0OWN", "dana@example.com"}}}}, nil
}

// With no experts set, the owners of the cited documents are asked: the
// one with a Slack account mentioned, the other named as not notified;
// text from the document and the model pings nobody. A 👎 offers Ask an
// expert to the voter.
func TestAskOwners(t *testing.T) {
	e, _ := expertEnv(t, ownerAsker{}, nil)
	ev, answer := e.askKept("U0ASK", "Where do bikes go?")
	e.fake.PostInteraction(e.h, e.fake.BlockAction("U2", answer, ActionFeedbackDown, answer.ActionValues()[ActionFeedbackDown]))
	e.quiet()
	told := e.told("U2")
	if len(told) == 0 || told[0].ActionValues()[ActionAskExpert] != votedDown+answer.ActionValues()[ActionFeedbackDown] {
		t.Fatalf("the 👎 voter was offered %+v", told)
	}
	e.fake.PostInteraction(e.h, e.fake.EphemeralAction("U2", "C1", ActionAskExpert, told[0].ActionValues()[ActionAskExpert]))
	e.quiet()
	esc := e.escalations(ev.TS)
	if len(esc) != 1 {
		t.Fatalf("%d escalations in the answer's thread, want 1", len(esc))
	}
	c := esc[0].Content()
	if got, want := mentionsIn(c), []string{"<@U0ASK>", "<@U0OWN>"}; !slices.Equal(got, want) {
		t.Errorf("mentions %q, want the owner and the asker %q:\n%s", got, want, c)
	}
	for _, w := range []string{"dana@example.com", "not notified", bot.VotedDownLine, "Low confidence"} {
		if !strings.Contains(c, w) {
			t.Errorf("the escalation lacks %q:\n%s", w, c)
		}
	}
}

// The manifest declares the message shortcut the adapter reads, named in
// the presenter's words.
func TestManifestShortcut(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "slack-app-manifest.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"name: " + bot.SaveShortcutLabel + "\n      type: message\n      callback_id: " + CallbackSaveAnswer + "\n"} {
		if !strings.Contains(string(b), w) {
			t.Errorf("the manifest lacks %q", w)
		}
	}
}

// Ask an expert under a private answer (/ask's, ephemeral) asks in the
// channel, for all there to see: the asker chose to ask. The escalation
// is at the top of the channel, and the reply in its thread is saved.
func TestAskExpertFromPrivateAnswer(t *testing.T) {
	e, docs := expertEnv(t, nil, experts{"C1": {"U0EXP"}})
	form := e.fake.SlashCommand("C1", "U0ASK", "/ask", "What is the wifi password?")
	if resp := e.fake.PostCommand(e.h, form); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var id string
	slacktest.Wait(t, timeout, "the private answer's Ask an expert", func() bool {
		r := e.fake.Response(form.Get("response_url"))
		if r == nil || len(r.Versions) == 0 {
			return false
		}
		id = r.Versions[len(r.Versions)-1].ActionValues()[ActionAskExpert]
		return id != ""
	})
	if err := e.settle(); err != nil { // answered, and saved
		t.Fatal(err)
	}
	e.fake.PostInteraction(e.h, e.fake.EphemeralAction("U0ASK", "C1", ActionAskExpert, id))
	e.quiet()
	top := e.fake.Messages("C1", "")
	if len(top) != 1 || top[0].ActionValues()[ActionSaveAnswer] == "" ||
		!slices.Equal(mentionsIn(top[0].Content()), []string{"<@U0ASK>", "<@U0EXP>"}) || !strings.Contains(top[0].Content(), "wifi password") {
		t.Fatalf("the channel has %+v, want the escalation at its top", top)
	}
	esc := top[0]
	e.fake.Say("C1", esc.TS, "U0EXP", "On the fridge.")
	e.press("U0ASK", esc, ActionSaveAnswer)
	if saved := docs.all(); len(saved) != 1 || !strings.Contains(saved[0].Chunks[0].Content, "On the fridge.") {
		t.Errorf("saved %+v; told %+v", saved, e.told("U0ASK"))
	}
}
