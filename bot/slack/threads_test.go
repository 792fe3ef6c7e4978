package slack

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/llm/offline"
	"github.com/switchboard/switchboard/sqlite"
	"github.com/switchboard/switchboard/sqlite/sqlitetest"
)

// These tests answer thread replies that do not mention the bot, end to
// end: the fake Slack delivers events, the real dispatcher and offline
// agent answer, and the answers are saved in a real SQLite feedback store,
// which the adapter then asks whether it answered someone in a thread.

// threadEnv is newEnv with the answers kept in a SQLite feedback store
// and the adapter configured with mode; convs replaces the store as the
// adapter's Conversations when set.
func threadEnv(t *testing.T, mode string, convs Conversations) (*env, *sqlite.Feedback) {
	t.Helper()
	return sqliteEnv(t, nil, func(cfg *Config, store *sqlite.Feedback) {
		cfg.ThreadReplies, cfg.Conversations = mode, convs
		if convs == nil {
			cfg.Conversations = store
		}
	})
}

// sqliteEnv is newEnv with the answers kept in a SQLite feedback store:
// asker answers (nil: the offline agent), and configure sets what the
// adapter needs of the store.
func sqliteEnv(t *testing.T, asker bot.Asker, configure func(*Config, *sqlite.Feedback)) (*env, *sqlite.Feedback) {
	t.Helper()
	log := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	fake := slacktest.NewServer()
	t.Cleanup(fake.Close)
	store := sqlitetest.Feedback(t)
	e := &env{t: t, fake: fake, kb: &retriever{}, votes: &votes{m: map[string]int{}}, clock: newClock()}
	if asker == nil {
		ag, err := agent.New(agent.Config{Offline: offline.New(nil), Retrievers: map[agent.Route]agent.Retriever{agent.RouteVector: e.kb}})
		if err != nil {
			t.Fatal(err)
		}
		asker = ag
	}
	d := bot.NewDispatcher(bot.Config{Agent: asker, Interval: 10 * time.Millisecond, Feedback: store, Log: log})
	d.Start(context.Background())
	e.d = &counting{Dispatcher: d}
	cfg := Config{BotToken: fake.BotToken, SigningSecret: fake.SigningSecret, APIURL: fake.APIURL(), Log: log,
		Sleep: e.clock.Sleep, Now: e.clock.Now}
	configure(&cfg, store)
	a, err := New(cfg, e.d)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Init(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.a, e.h = a, a.Handler()
	t.Cleanup(func() {
		if err := e.settle(); err != nil {
			t.Error(err)
		}
	})
	return e, store
}

// askAndSave posts a top-level mention by user in C1 and waits until its answer
// is saved, so that the thread is one the bot answered user in.
func (e *env) askAndSave(store *sqlite.Feedback, user, text string) slacktest.MessageEvent {
	e.t.Helper()
	ev := e.fake.Mention("C1", user, text)
	e.fake.PostEvent(e.h, "", ev, nil)
	e.final("C1", ev.TS, 1)
	e.saved(store, ev)
	return ev
}

// saved waits until the answer to ev, a question in C1, is saved in store.
func (e *env) saved(store *sqlite.Feedback, ev slacktest.MessageEvent) {
	e.t.Helper()
	key := bot.Incoming{Platform: platform, Workspace: e.fake.TeamID, Channel: "C1", Thread: ev.TS}.ThreadKey()
	slacktest.Wait(e.t, timeout, "the answer saved", func() bool {
		ok, err := store.Answered(context.Background(), key, ev.User)
		return err == nil && ok
	})
}

// answered waits until every delivery was handled and answered, and
// returns the finished answers in the thread.
func (e *env) answered(thread string) int {
	e.t.Helper()
	if err := e.settle(); err != nil {
		e.t.Fatal(err)
	}
	return finals(e.fake.Messages("C1", thread))
}

func TestThreadReplyFromAsker(t *testing.T) {
	e, store := threadEnv(t, "", nil) // the default: the asker's replies
	first := e.askAndSave(store, "U1", "What is our data retention policy?")

	e.fake.PostEvent(e.h, "", e.fake.Reply("C1", first.TS, "U1", "and for EU customers?"), nil)
	msgs := e.final("C1", first.TS, 2)
	if c := msgs[len(msgs)-1].Content(); !strings.Contains(c, "understood as “What is our data retention policy for EU customers?”") {
		t.Errorf("the reply was not read as a follow-up in the thread:\n%s", c)
	}

	// A new top-level mention starts a conversation of its own.
	other := e.fake.Mention("C1", "U1", "and for EU customers?")
	e.fake.PostEvent(e.h, "", other, nil)
	if c := e.final("C1", other.TS, 1)[0].Content(); strings.Contains(c, "understood as") {
		t.Errorf("a new thread used another thread's history:\n%s", c)
	}
	if n := e.answered(first.TS); n != 2 {
		t.Errorf("%d answers in the thread, want 2", n)
	}
	if taken, dup, other := e.d.results(); taken != 3 || dup+other != 0 {
		t.Errorf("taken %d, refused %d; want 3 and 0", taken, dup+other)
	}
}

// Whose replies are answered without a mention, by SLACK_THREAD_REPLIES.
func TestThreadReplyModes(t *testing.T) {
	for _, c := range []struct {
		mode            string
		asker, stranger bool // answered
	}{
		{RepliesAsker, true, false},
		{RepliesAnyone, true, true},
		{RepliesMentionOnly, false, false},
	} {
		t.Run(c.mode, func(t *testing.T) {
			e, store := threadEnv(t, c.mode, nil)
			first := e.askAndSave(store, "U1", "What is our refund policy?")
			e.fake.PostEvent(e.h, "", e.fake.Reply("C1", first.TS, "U2", "what about refunds of annual plans?"), nil)
			e.fake.PostEvent(e.h, "", e.fake.Reply("C1", first.TS, "U1", "and how long does a refund take?"), nil)
			want := 1
			for _, answered := range []bool{c.asker, c.stranger} {
				if answered {
					want++
				}
			}
			if n := e.answered(first.TS); n != want {
				t.Errorf("%d answers in the thread, want %d", n, want)
			}
			key := bot.Incoming{Platform: platform, Workspace: e.fake.TeamID, Channel: "C1", Thread: first.TS}.ThreadKey()
			if got, err := store.Answered(context.Background(), key, "U2"); err != nil || got != c.stranger {
				t.Errorf("the stranger answered: %v (%v), want %v", got, err, c.stranger)
			}
		})
	}
}

// A reply that mentions the bot arrives as app_mention and as message:
// it is answered once.
func TestThreadReplyWithMention(t *testing.T) {
	e, store := threadEnv(t, RepliesAnyone, nil)
	first := e.askAndSave(store, "U1", "What is our data retention policy?")
	mention := e.fake.Mention("C1", "U2", "and for EU customers?").InThread(first.TS)
	e.fake.PostEvent(e.h, "", mention.AsMessage("channel"), nil)
	e.fake.PostEvent(e.h, "", mention, nil)
	if n := e.answered(first.TS); n != 2 {
		t.Errorf("%d answers in the thread, want the first and one for the mention", n)
	}
	if taken, dup, _ := e.d.results(); taken != 2 || dup != 0 {
		t.Errorf("taken %d, duplicates %d; want 2 and 0 (the message event is left to app_mention)", taken, dup)
	}
}

// Messages in a thread that are not people's new replies are never
// questions, in any mode.
func TestThreadReplyIgnored(t *testing.T) {
	e, store := threadEnv(t, RepliesAnyone, nil)
	first := e.askAndSave(store, "U1", "What is our refund policy?")
	own := e.fake.Reply("C1", first.TS, e.fake.BotUserID, "What is our refund policy?")
	own.BotID = e.fake.BotID
	otherBot := e.fake.Reply("C1", first.TS, "U7", "What is our refund policy?")
	otherBot.BotID, otherBot.Subtype = "B0THER", "bot_message"
	reply := e.fake.Reply("C1", first.TS, "U1", "and how long does a refund take?")
	edited := map[string]any{"type": "message", "subtype": "message_changed", "channel": "C1", "channel_type": "channel",
		"ts": e.fake.NewTS(), "message": reply, "previous_message": reply}
	deleted := map[string]any{"type": "message", "subtype": "message_deleted", "channel": "C1", "channel_type": "channel",
		"ts": e.fake.NewTS(), "deleted_ts": reply.TS, "previous_message": reply}
	elsewhere := e.fake.Reply("C1", "1699999999.000100", "U1", "What is our refund policy?") // a thread without an answer
	topLevel := e.fake.Reply("C1", "", "U1", "What is our refund policy?")
	parent := e.fake.Reply("C1", "", "U1", "What is our refund policy?")
	parent.ThreadTS = parent.TS // a thread's first message names its own ts
	for _, ev := range []any{own, otherBot, edited, deleted, elsewhere, topLevel, parent} {
		e.fake.PostEvent(e.h, "", ev, nil)
	}
	if n := e.answered(first.TS); n != 1 {
		t.Errorf("%d answers in the thread, want only the first", n)
	}
	if taken, _, _ := e.d.results(); taken != 1 {
		t.Errorf("%d questions taken, want 1", taken)
	}
}

// failingConversations is a store that cannot say.
type failingConversations struct {
	mu        sync.Mutex
	calls     int
	deadlined bool // every call had a deadline
}

func (f *failingConversations) Answered(ctx context.Context, _, _ string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := ctx.Deadline()
	f.deadlined = (f.calls == 0 || f.deadlined) && ok
	f.calls++
	return true, errors.New("database is locked")
}

// A look-up that fails answers nothing rather than guess; mentions still
// work.
func TestThreadReplyLookupFails(t *testing.T) {
	fail := &failingConversations{}
	e, store := threadEnv(t, RepliesAsker, fail)
	first := e.askAndSave(store, "U1", "What is our refund policy?")
	e.fake.PostEvent(e.h, "", e.fake.Reply("C1", first.TS, "U1", "and how long does a refund take?"), nil)
	e.fake.PostEvent(e.h, "", e.fake.Mention("C1", "U1", "and how long does a refund take?").InThread(first.TS), nil)
	if n := e.answered(first.TS); n != 2 {
		t.Errorf("%d answers in the thread, want the first and the mention", n)
	}
	fail.mu.Lock()
	defer fail.mu.Unlock()
	if fail.calls != 1 || !fail.deadlined {
		t.Errorf("%d look-ups (with a deadline: %v), want 1 with one", fail.calls, fail.deadlined)
	}
}

func TestThreadRepliesSetting(t *testing.T) {
	if _, err := New(Config{BotToken: "xoxb-1", ThreadReplies: "everyone"}, &counting{}); err == nil ||
		!strings.Contains(err.Error(), "SLACK_THREAD_REPLIES") {
		t.Errorf("New with an unknown mode: %v", err)
	}
}

func TestReadEventThreadReplies(t *testing.T) {
	cases := []struct {
		name  string
		event string
		want  eventKind
	}{
		{"reply without a mention", `{"type":"message","channel_type":"channel","user":"U1","text":"and for EU?","ts":"1.5","thread_ts":"1.1","channel":"C1"}`, eventThreadReply},
		{"in a private channel", `{"type":"message","channel_type":"group","user":"U1","text":"and for EU?","ts":"1.5","thread_ts":"1.1","channel":"G1"}`, eventThreadReply},
		{"also sent to the channel", `{"type":"message","subtype":"thread_broadcast","channel_type":"channel","user":"U1","text":"and for EU?","ts":"1.5","thread_ts":"1.1","channel":"C1"}`, eventThreadReply},
		{"reply with a mention", `{"type":"message","channel_type":"channel","user":"U1","text":"<@UBOT> and for EU?","ts":"1.5","thread_ts":"1.1","channel":"C1"}`, eventIgnored},
		{"mentioning someone else", `{"type":"message","channel_type":"channel","user":"U1","text":"<@U2> and for EU?","ts":"1.5","thread_ts":"1.1","channel":"C1"}`, eventThreadReply},
		// A top-level message: a question only in a help channel.
		{"thread parent", `{"type":"message","channel_type":"channel","user":"U1","text":"hi","ts":"1.1","thread_ts":"1.1","channel":"C1"}`, eventChannelMessage},
		{"top-level", `{"type":"message","channel_type":"group","user":"U1","text":"where is the rota?","ts":"1.1","channel":"G1"}`, eventChannelMessage},
		{"top-level mention", `{"type":"message","channel_type":"channel","user":"U1","text":"<@UBOT> where?","ts":"1.1","channel":"C1"}`, eventIgnored},
		{"edit", `{"type":"message","subtype":"message_changed","channel_type":"channel","channel":"C1","ts":"1.6","message":{"user":"U1","text":"x","ts":"1.5","thread_ts":"1.1"}}`, eventIgnored},
		{"bot", `{"type":"message","subtype":"bot_message","bot_id":"B2","channel_type":"channel","text":"x","ts":"1.5","thread_ts":"1.1","channel":"C1"}`, eventIgnored},
		{"itself", `{"type":"message","channel_type":"channel","user":"UBOT","text":"x","ts":"1.5","thread_ts":"1.1","channel":"C1"}`, eventIgnored},
		{"direct message in a thread", `{"type":"message","channel_type":"im","user":"U1","text":"x","ts":"1.5","thread_ts":"1.1","channel":"D1"}`, eventQuestion},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cb, err := decodeCallback(callback(c.event))
			if err != nil {
				t.Fatal(err)
			}
			in, kind := readEvent(cb, me)
			if cb.Event.err != nil || kind != c.want {
				t.Fatalf("kind %v, err %v; want %v", kind, cb.Event.err, c.want)
			}
			if kind == eventThreadReply && (in.Thread != "1.1" || in.ThreadKey() != "slack:T1:"+in.Channel+":1.1" || in.User != "U1") {
				t.Errorf("incoming %+v, key %q", in, in.ThreadKey())
			}
		})
	}
}
