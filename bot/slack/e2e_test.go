package slack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/feedback"
	"github.com/switchboard/switchboard/llm/offline"
	"github.com/switchboard/switchboard/sqlite"
)

// timeout bounds every wait; the tests assert what happens, not how fast.
const timeout = 30 * time.Second

// docs is a small knowledge base behind a keyword retriever.
var docs = []agent.Document{
	{ID: "refund", Title: "Refund policy", Location: "docs/refund-policy.md",
		Content: "Refund policy. Customers get a full refund within 30 days of purchase. Refunds go to the original payment method."},
	{ID: "refund-faq", Title: "Refunds FAQ", Location: "https://help.example.com/refunds",
		Content: "Refund policy questions. A refund takes five business days to reach the customer after approval."},
	{ID: "retention", Title: "Data retention policy", Location: "https://acme.slack.com/archives/C0DATA/p1700000000000200",
		Content: "Data retention policy. We keep customer data for five years after the contract ends. For EU customers, data retention is two years under GDPR."},
}

// retriever finds the documents sharing a word with the query. When gate is
// set, it waits for the gate to close first, so a test can watch progress.
type retriever struct {
	gate chan struct{}

	mu      sync.Mutex
	queries []string
	scopes  []agent.Scope
}

func (r *retriever) Retrieve(ctx context.Context, req agent.Request) ([]agent.Document, error) {
	r.mu.Lock()
	r.queries = append(r.queries, req.Query)
	r.scopes = append(r.scopes, req.Scope)
	r.mu.Unlock()
	if r.gate != nil {
		select {
		case <-r.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	var out []agent.Document
	for _, d := range docs {
		text := strings.ToLower(d.Title + " " + d.Content)
		for _, w := range strings.Fields(strings.ToLower(req.Query)) {
			if w = strings.Trim(w, "?.,!"); len(w) > 3 && strings.Contains(text, w) {
				out = append(out, d)
				break
			}
		}
	}
	return out, nil
}

func (r *retriever) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.queries)
}

// counting wraps the real dispatcher to record what the adapter submitted.
type counting struct {
	*bot.Dispatcher
	mu      sync.Mutex
	submits []error
}

func (c *counting) Submit(ctx context.Context, in bot.Incoming, r bot.Replier) error {
	err := c.Dispatcher.Submit(ctx, in, r)
	c.mu.Lock()
	c.submits = append(c.submits, err)
	c.mu.Unlock()
	return err
}

// results returns how many submissions were taken and how many refused as
// duplicates.
func (c *counting) results() (taken, dup, other int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, err := range c.submits {
		switch {
		case err == nil:
			taken++
		case errors.Is(err, bot.ErrDuplicate):
			dup++
		default:
			other++
		}
	}
	return
}

// votes is a FeedbackStore that keeps votes in memory.
type votes struct {
	mu sync.Mutex
	m  map[string]int // answer id + " " + user → vote
}

func (v *votes) SaveAnswer(context.Context, feedback.Answer) error { return nil }

func (v *votes) SaveVote(_ context.Context, answerID, user string, vote int) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.m[answerID+" "+user] = vote
	return nil
}

func (v *votes) get(answerID, user string) int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.m[answerID+" "+user]
}

// env is Switchboard on a fake Slack: the real agent (offline) and
// dispatcher behind the adapter.
type env struct {
	t     *testing.T
	fake  *slacktest.Server
	a     *Adapter
	h     http.Handler
	d     *counting
	kb    *retriever
	votes *votes
	clock *clock
}

type options struct {
	gate    bool      // the retriever waits for release
	asker   bot.Asker // instead of the agent
	workers int
	queue   int
	socket  bool // run Socket Mode
	// client makes the adapter's Web API calls (default: the adapter's).
	client *http.Client
	// redeliver bounds redelivery in the clock's time (default: the
	// adapter's 15 minutes).
	redeliver time.Duration
	// native shows answers with Slack's AI-app surface; liked and titles
	// are what the stores give for suggested prompts.
	native bool
	liked  liked
	titles []string
	// answers, when set, keeps the answers (instead of votes) and gives
	// those /ask shares.
	answers *sqlite.Feedback
}

// clock is the adapter's time in tests: a wait returns at once and moves
// the clock on by its length, so that retries and redeliveries take no
// real time and deadlines still pass.
type clock struct {
	mu     sync.Mutex
	now    time.Time
	waits  int
	waited time.Duration
}

func newClock() *clock { return &clock{now: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(max(d, 0))
	c.waits++
	c.waited += max(d, 0)
	return nil
}

// slept reports how many waits were asked for, and their sum.
func (c *clock) slept() (int, time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.waits, c.waited
}

func newEnv(t *testing.T, o options) *env {
	t.Helper()
	log := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	fake := slacktest.NewServer()
	t.Cleanup(fake.Close) // last: the adapter's goroutines below are gone by then

	e := &env{t: t, fake: fake, kb: &retriever{}, votes: &votes{m: map[string]int{}}, clock: newClock()}
	if o.gate {
		e.kb.gate = make(chan struct{})
	}
	asker := o.asker
	if asker == nil {
		ag, err := agent.New(agent.Config{Offline: offline.New(nil),
			Retrievers: map[agent.Route]agent.Retriever{agent.RouteVector: e.kb}})
		if err != nil {
			t.Fatal(err)
		}
		asker = ag
	}
	var kept bot.FeedbackStore = e.votes
	if o.answers != nil {
		kept = o.answers
	}
	d := bot.NewDispatcher(bot.Config{Agent: asker, Interval: 10 * time.Millisecond, Workers: o.workers, Queue: o.queue,
		Feedback: kept, Log: log})
	d.Start(context.Background())
	e.d = &counting{Dispatcher: d}

	e.a = e.adapter(o, log)
	e.h = e.a.Handler()
	t.Cleanup(func() {
		e.release()
		if err := e.settle(); err != nil {
			t.Error(err)
		}
	})
	if o.socket {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- e.a.RunSocketMode(ctx) }()
		t.Cleanup(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("RunSocketMode: %v", err)
			}
		})
		slacktest.Wait(t, timeout, "a socket mode connection", fake.Connected)
	}
	return e
}

// adapter returns a new adapter on e's fake and dispatcher, initialised:
// the one newEnv serves, or one started again.
func (e *env) adapter(o options, log *slog.Logger) *Adapter {
	e.t.Helper()
	cfg := Config{BotToken: e.fake.BotToken, AppToken: e.fake.AppToken, SigningSecret: e.fake.SigningSecret,
		APIURL: e.fake.APIURL(), Log: log, HTTPClient: o.client, Redeliver: o.redeliver,
		Sleep: e.clock.Sleep, Now: e.clock.Now, Native: o.native, Liked: o.liked, Titles: examples(o.titles)}
	if o.answers != nil {
		cfg.Answers = o.answers
	}
	a, err := New(cfg, e.d)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := a.Init(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	return a
}

// release lets gated retrievals go on.
func (e *env) release() {
	if e.kb.gate != nil {
		select {
		case <-e.kb.gate:
		default:
			close(e.kb.gate)
		}
	}
}

// final waits for the finished answer in a thread (the message with the
// feedback buttons) and returns the thread's messages.
func (e *env) final(channel, thread string, answers int) []slacktest.Message {
	e.t.Helper()
	var msgs []slacktest.Message
	slacktest.Wait(e.t, timeout, fmt.Sprintf("%d final answer(s) in thread %s", answers, thread), func() bool {
		msgs = e.fake.Messages(channel, thread)
		return finals(msgs) >= answers
	})
	return msgs
}

// finals counts the finished answers among msgs.
func finals(msgs []slacktest.Message) int {
	n := 0
	for _, m := range msgs {
		if m.ActionValues()[ActionFeedbackUp] != "" {
			n++
		}
	}
	return n
}

// quiet waits for every delivery handed to the adapter to be handled.
func (e *env) quiet() { e.a.Wait() }

// settle waits until nothing more can reach Slack: deliveries handed to
// the dispatcher, answered, and the outbox delivered or given up. It may
// be called more than once.
func (e *env) settle() error {
	e.a.Wait() // deliveries handed to the dispatcher…
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := e.d.Shutdown(ctx); err != nil { // …answered…
		return err
	}
	e.a.Wait()
	return e.a.Close(ctx) // …and delivered
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// checkAnswer asserts that a finished message shows the answer, the route,
// the sources and the badge, in the asker's thread.
func checkAnswer(t *testing.T, m slacktest.Message, thread string, want ...string) {
	t.Helper()
	if m.ThreadTS != thread {
		t.Errorf("answer posted in thread %q, want %q", m.ThreadTS, thread)
	}
	// Sources link to pages; previews of them would bury the answer.
	if m.Unfurl != [2]string{"false", "false"} {
		t.Errorf("unfurl_links, unfurl_media = %q, want both false", m.Unfurl)
	}
	c := m.Content()
	for _, w := range append([]string{"Answered from company documents", "*Sources*", "*[1]*", "confidence"}, want...) {
		if !strings.Contains(c, w) {
			t.Errorf("the answer lacks %q:\n%s", w, c)
		}
	}
}

func TestMentionOverHTTP(t *testing.T) {
	e := newEnv(t, options{gate: true})
	ev := e.fake.Mention("C1", "U1", "What is our refund policy?")
	if resp := e.fake.PostEvent(e.h, "", ev, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	// The placeholder comes first, in the thread under the question, and is
	// edited with the progress while retrieval is held back.
	slacktest.Wait(t, timeout, "progress in the placeholder", func() bool {
		msgs := e.fake.Messages("C1", ev.TS)
		return len(msgs) == 1 && strings.Contains(msgs[0].Content(), "Searching company documents…")
	})
	e.release()
	msgs := e.final("C1", ev.TS, 1)
	if len(msgs) != 1 {
		t.Fatalf("%d messages in the thread, want the placeholder edited in place", len(msgs))
	}
	m := msgs[0]
	checkAnswer(t, m, ev.TS, "full refund", "`docs/refund-policy.md`", "<https://help.example.com/refunds|Refunds FAQ>")
	if first := m.Versions[0].Content(); !strings.Contains(first, "⏳ Thinking…") {
		t.Errorf("the first version is not the placeholder:\n%s", first)
	}
	if len(m.Versions) < 3 {
		t.Errorf("%d versions, want placeholder, progress and answer", len(m.Versions))
	}
	if n := len(e.fake.Ephemerals("U1")); n != 0 {
		t.Errorf("%d private messages to the asker, want none", n)
	}
}

func TestMentionOverSocketMode(t *testing.T) {
	e := newEnv(t, options{socket: true, gate: true})
	ev := e.fake.Mention("C1", "U1", "What is our refund policy?")
	env, err := e.fake.SendEvent("", ev)
	if err != nil {
		t.Fatal(err)
	}
	slacktest.Wait(t, timeout, "the envelope's ack", func() bool { return e.fake.Acked(env) })
	slacktest.Wait(t, timeout, "progress in the placeholder", func() bool {
		msgs := e.fake.Messages("C1", ev.TS)
		return len(msgs) == 1 && strings.Contains(msgs[0].Content(), "Searching company documents…")
	})
	e.release()
	msgs := e.final("C1", ev.TS, 1)
	if len(msgs) != 1 {
		t.Fatalf("%d messages in the thread, want 1", len(msgs))
	}
	checkAnswer(t, msgs[0], ev.TS, "full refund")

	// Feedback arrives over the socket too.
	id := msgs[0].ActionValues()[ActionFeedbackDown]
	env, err = e.fake.SendInteraction(e.fake.BlockAction("U2", msgs[0], ActionFeedbackDown, id))
	if err != nil {
		t.Fatal(err)
	}
	slacktest.Wait(t, timeout, "the vote", func() bool { return e.votes.get(id, "U2") == -1 })
	slacktest.Wait(t, timeout, "the thank-you", func() bool { return len(e.fake.Ephemerals("U2")) == 1 })
	if !e.fake.Acked(env) {
		t.Error("the interaction was not acknowledged")
	}
}

func TestDirectMessage(t *testing.T) {
	e := newEnv(t, options{})
	ev := e.fake.DirectMessage("D1", "U1", "What is our refund policy?")
	e.fake.PostEvent(e.h, "", ev, nil)
	msgs := e.final("D1", ev.TS, 1)
	checkAnswer(t, msgs[0], ev.TS, "full refund")
}

func TestVerification(t *testing.T) {
	e := newEnv(t, options{})
	body := e.fake.EventCallback("", e.fake.Mention("C1", "U1", "What is our refund policy?"))
	cases := []struct {
		name string
		req  *http.Request
	}{
		{"wrong secret", slacktest.SignedRequest("not-the-secret", "/slack/events", body, "application/json", time.Now())},
		{"stale timestamp", slacktest.SignedRequest(e.fake.SigningSecret, "/slack/events", body, "application/json", time.Now().Add(-6*time.Minute))},
		{"future timestamp", slacktest.SignedRequest(e.fake.SigningSecret, "/slack/events", body, "application/json", time.Now().Add(6*time.Minute))},
		{"unsigned", func() *http.Request {
			r := slacktest.SignedRequest(e.fake.SigningSecret, "/slack/events", body, "application/json", time.Now())
			r.Header.Del("X-Slack-Signature")
			return r
		}()},
		{"tampered body", func() *http.Request {
			r := slacktest.SignedRequest(e.fake.SigningSecret, "/slack/events", body, "application/json", time.Now())
			r.Body = http.NoBody
			return r
		}()},
		{"unsigned interaction", slacktest.SignedRequest("not-the-secret", "/slack/interactions", []byte("payload=%7B%7D"), "application/x-www-form-urlencoded", time.Now())},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			e.h.ServeHTTP(w, c.req)
			if w.Code != http.StatusUnauthorized {
				t.Errorf("status %d, want 401", w.Code)
			}
		})
	}
	e.quiet()
	if taken, dup, other := e.d.results(); taken+dup+other != 0 {
		t.Errorf("%d questions submitted from unverified requests", taken+dup+other)
	}
	if n := e.fake.Calls("chat.postMessage"); n != 0 {
		t.Errorf("%d messages posted", n)
	}
}

func TestURLVerification(t *testing.T) {
	e := newEnv(t, options{})
	body := []byte(`{"token":"fake","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}`)
	resp := e.fake.Post(e.h, "/slack/events", body, "application/json", nil)
	var got struct{ Challenge string }
	if err := decode(resp, &got); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, err %v", resp.StatusCode, err)
	}
	if got.Challenge != "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" {
		t.Errorf("challenge %q", got.Challenge)
	}
}

func TestRetriedEventAnsweredOnce(t *testing.T) {
	e := newEnv(t, options{})
	ev := e.fake.Mention("C1", "U1", "What is our refund policy?")
	id := e.fake.NewEventID()
	e.fake.PostEvent(e.h, id, ev, nil)
	retry := http.Header{"X-Slack-Retry-Num": {"1"}, "X-Slack-Retry-Reason": {"http_timeout"}}
	if resp := e.fake.PostEvent(e.h, id, ev, retry); resp.StatusCode != http.StatusOK {
		t.Fatalf("retry answered %d; Slack would retry again", resp.StatusCode)
	}
	e.final("C1", ev.TS, 1)
	e.quiet()
	if taken, dup, _ := e.d.results(); taken != 1 || dup != 1 {
		t.Errorf("taken %d, duplicates %d; want 1 and 1", taken, dup)
	}
	if msgs := e.fake.Messages("C1", ev.TS); len(msgs) != 1 {
		t.Errorf("%d messages in the thread, want 1", len(msgs))
	}
}

func TestMentionAndMessageAnsweredOnce(t *testing.T) {
	e := newEnv(t, options{})
	// A mention in a direct message arrives as message.im and as app_mention,
	// with different event ids.
	ev := e.fake.Mention("D1", "U1", "What is our refund policy?")
	e.fake.PostEvent(e.h, "", ev.AsMessage("im"), nil)
	e.fake.PostEvent(e.h, "", ev, nil)
	e.final("D1", ev.TS, 1)
	e.quiet()
	if taken, dup, _ := e.d.results(); taken != 1 || dup != 1 {
		t.Errorf("taken %d, duplicates %d; want 1 and 1", taken, dup)
	}
	if msgs := e.fake.Messages("D1", ev.TS); len(msgs) != 1 {
		t.Errorf("%d messages in the thread, want 1", len(msgs))
	}
}

func TestRateLimitedUpdate(t *testing.T) {
	e := newEnv(t, options{})
	e.fake.RateLimit("chat.update", 1, 1)
	ev := e.fake.Mention("C1", "U1", "What is our refund policy?")
	e.fake.PostEvent(e.h, "", ev, nil)
	msgs := e.final("C1", ev.TS, 1)
	checkAnswer(t, msgs[0], ev.TS, "full refund")
	if n := e.fake.Calls("chat.update"); n < 2 {
		t.Errorf("chat.update called %d times; the 429 was not retried", n)
	}
}

func TestLongAnswerSplit(t *testing.T) {
	long := longAnswer()
	asker := askerFunc(func(_ context.Context, q agent.Question, _ agent.Emitter) (agent.Result, error) {
		return agent.Result{Question: q.Text, Route: agent.RouteVector, Answer: long, Confidence: agent.ConfidenceMedium,
			Sources: []agent.Source{{N: 1, Title: "Handbook", Location: "docs/handbook.md"}}}, nil
	})
	e := newEnv(t, options{asker: asker})
	ev := e.fake.Mention("C1", "U1", "Explain everything")
	e.fake.PostEvent(e.h, "", ev, nil)
	msgs := e.final("C1", ev.TS, 1)
	if len(msgs) < 2 {
		t.Fatalf("%d messages; a %d-character answer needs more than one", len(msgs), len(long))
	}
	if len(msgs[0].Versions) < 2 {
		t.Error("the placeholder was not replaced with the answer's start")
	}
	if finals(msgs[:len(msgs)-1]) != 0 || finals(msgs[len(msgs)-1:]) != 1 {
		t.Error("the feedback buttons are not on the last message only")
	}
	// The fake refuses over-long sections and messages, so arriving at all
	// shows the limits held; the text arrives whole and in order.
	var all []string
	for _, m := range msgs {
		all = append(all, m.Content())
	}
	strip := func(s string) string {
		s = strings.NewReplacer("```go", "", "```", "", "&lt;", "<", "&gt;", ">", "&amp;", "&", "_continued below ↓_", "").Replace(s)
		return strings.Join(strings.Fields(s), " ")
	}
	if got, want := strip(strings.Join(all, "\n")), strip(long); !strings.HasPrefix(got, want) {
		t.Errorf("the answer arrived changed (%d runes, want %d first)", len(got), len(want))
	}
}

func TestIgnoredEvents(t *testing.T) {
	e := newEnv(t, options{})
	own := e.fake.Mention("C1", e.fake.BotUserID, "What is our refund policy?")
	bot := e.fake.DirectMessage("D1", "U2", "What is our refund policy?")
	bot.BotID, bot.Subtype = "B0THER", "bot_message"
	edited := e.fake.DirectMessage("D1", "U1", "What is our refund policy?")
	edited.Subtype = "message_changed"
	channelMsg := e.fake.Mention("C1", "U1", "What is our refund policy?").AsMessage("channel")
	for _, ev := range []slacktest.MessageEvent{own, bot, edited, channelMsg} {
		if resp := e.fake.PostEvent(e.h, "", ev, nil); resp.StatusCode != http.StatusOK {
			t.Errorf("status %d", resp.StatusCode)
		}
	}
	e.quiet()
	if taken, dup, other := e.d.results(); taken+dup+other != 0 {
		t.Errorf("%d of these events were submitted as questions", taken+dup+other)
	}
}

func TestConcurrentThreads(t *testing.T) {
	e := newEnv(t, options{})
	const n = 20
	events := make([]slacktest.MessageEvent, n)
	for i := range events {
		events[i] = e.fake.Mention("C1", fmt.Sprintf("U%d", i), "What is our refund policy?")
	}
	var wg sync.WaitGroup
	for _, ev := range events {
		wg.Go(func() { e.fake.PostEvent(e.h, "", ev, nil) })
	}
	wg.Wait()
	for _, ev := range events {
		msgs := e.final("C1", ev.TS, 1)
		if len(msgs) != 1 || finals(msgs) != 1 {
			t.Errorf("thread %s: %d messages, %d answers; want one answer", ev.TS, len(msgs), finals(msgs))
			continue
		}
		checkAnswer(t, msgs[0], ev.TS, "full refund")
	}
	if top := e.fake.Messages("C1", ""); len(top) != 0 {
		t.Errorf("%d messages outside threads", len(top))
	}
}

func TestFollowUpInThread(t *testing.T) {
	e := newEnv(t, options{})
	first := e.fake.Mention("C1", "U1", "What is our data retention policy?")
	e.fake.PostEvent(e.h, "", first, nil)
	e.final("C1", first.TS, 1)

	follow := e.fake.Mention("C1", "U1", "and for EU customers?").InThread(first.TS)
	e.fake.PostEvent(e.h, "", follow, nil)
	msgs := e.final("C1", first.TS, 2)
	if len(msgs) != 2 {
		t.Fatalf("%d messages in the thread, want 2", len(msgs))
	}
	c := msgs[1].Content()
	if !strings.Contains(c, "understood as “What is our data retention policy for EU customers?”") {
		t.Errorf("the follow-up was not read with the thread's history:\n%s", c)
	}
	if !strings.Contains(c, "two years") {
		t.Errorf("the follow-up's answer lacks the EU retention period:\n%s", c)
	}
	if qs := e.kb.seen(); !strings.Contains(qs[len(qs)-1], "data retention") {
		t.Errorf("the follow-up searched for %q", qs[len(qs)-1])
	}
}

func TestFeedbackButton(t *testing.T) {
	e := newEnv(t, options{})
	ev := e.fake.Mention("C1", "U1", "What is our refund policy?")
	e.fake.PostEvent(e.h, "", ev, nil)
	m := e.final("C1", ev.TS, 1)[0]
	id := m.ActionValues()[ActionFeedbackUp]
	if resp := e.fake.PostInteraction(e.h, e.fake.BlockAction("U1", m, ActionFeedbackUp, id)); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	slacktest.Wait(t, timeout, "the vote", func() bool { return e.votes.get(id, "U1") == 1 })
	slacktest.Wait(t, timeout, "the thank-you", func() bool { return len(e.fake.Ephemerals("U1")) == 1 })
	thanks := e.fake.Ephemerals("U1")[0]
	if thanks.Text != thanksMessage || thanks.ThreadTS != ev.TS || thanks.Channel != "C1" {
		t.Errorf("thank-you %+v", thanks)
	}
}

func TestBusy(t *testing.T) {
	e := newEnv(t, options{gate: true, workers: 1, queue: 1})
	q1 := e.fake.Mention("C1", "U1", "What is our refund policy?")
	e.fake.PostEvent(e.h, "", q1, nil)
	// The only worker holds q1; q2 fills the queue; q3 finds it full.
	slacktest.Wait(t, timeout, "q1's placeholder", func() bool { return len(e.fake.Messages("C1", q1.TS)) == 1 })
	q2 := e.fake.Mention("C1", "U2", "What is our refund policy?")
	e.fake.PostEvent(e.h, "", q2, nil)
	slacktest.Wait(t, timeout, "q2 queued", func() bool { return e.d.Queued() == 1 })
	q3 := e.fake.Mention("C1", "U3", "What is our refund policy?")
	e.fake.PostEvent(e.h, "", q3, nil)
	slacktest.Wait(t, timeout, "the busy message", func() bool { return len(e.fake.Ephemerals("U3")) == 1 })
	if got := e.fake.Ephemerals("U3")[0]; got.Text != bot.BusyMessage || got.ThreadTS != q3.TS {
		t.Errorf("busy message %+v", got)
	}
	e.release()
	e.final("C1", q1.TS, 1)
	e.final("C1", q2.TS, 1)
	if msgs := e.fake.Messages("C1", q3.TS); len(msgs) != 0 {
		t.Errorf("the refused question got %d public messages", len(msgs))
	}
}

func TestErrorsArePrivate(t *testing.T) {
	e := newEnv(t, options{})
	long := e.fake.Mention("C1", "U1", strings.Repeat("why ", 1200))
	e.fake.PostEvent(e.h, "", long, nil)
	slacktest.Wait(t, timeout, "the private error", func() bool { return len(e.fake.Ephemerals("U1")) == 1 })
	if got := e.fake.Ephemerals("U1")[0].Text; !strings.Contains(got, "too long") {
		t.Errorf("private error %q", got)
	}
	// It is refused before anything is posted: no placeholder, no public
	// "I couldn't answer this one." beside the private explanation.

	// A bare mention gets a private hint and no public message.
	bare := e.fake.Mention("C1", "U2", "")
	e.fake.PostEvent(e.h, "", bare, nil)
	slacktest.Wait(t, timeout, "the hint", func() bool { return len(e.fake.Ephemerals("U2")) == 1 })
	e.quiet()
	if msgs := e.fake.Messages("C1", bare.TS); len(msgs) != 0 {
		t.Errorf("a bare mention got %d public messages", len(msgs))
	}
	if msgs := e.fake.Messages("C1", long.TS); len(msgs) != 0 {
		t.Errorf("an over-long question got %d public messages: %s", len(msgs), msgs[0].Content())
	}
}

func TestSocketModeBadToken(t *testing.T) {
	fake := slacktest.NewServer()
	defer fake.Close()
	a, err := New(Config{BotToken: fake.BotToken, AppToken: "xapp-revoked", APIURL: fake.APIURL()}, &counting{})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.RunSocketMode(context.Background()); err == nil || !strings.Contains(err.Error(), "invalid_auth") {
		t.Errorf("RunSocketMode with a bad token: %v", err)
	}
}

func TestSocketModeStops(t *testing.T) {
	fake := slacktest.NewServer()
	defer fake.Close()
	a, err := New(Config{BotToken: fake.BotToken, AppToken: fake.AppToken, APIURL: fake.APIURL()}, &counting{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.RunSocketMode(ctx) }()
	slacktest.Wait(t, timeout, "a connection", fake.Connected)
	cancel()
	if err := <-done; err != nil {
		t.Errorf("RunSocketMode after cancel: %v", err)
	}
}

// askerFunc adapts a function to bot.Asker.
type askerFunc func(ctx context.Context, q agent.Question, emit agent.Emitter) (agent.Result, error)

func (f askerFunc) Ask(ctx context.Context, q agent.Question, emit agent.Emitter) (agent.Result, error) {
	return f(ctx, q, emit)
}

func decode(resp *http.Response, v any) error {
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}

func TestRateLimitBounded(t *testing.T) {
	fake := slacktest.NewServer()
	defer fake.Close()
	a, err := New(Config{BotToken: fake.BotToken, APIURL: fake.APIURL()}, &counting{})
	if err != nil {
		t.Fatal(err)
	}
	r := a.replier("C1", "1.1", "U1")

	// Retries stop after a few attempts…
	fake.RateLimit("chat.postEphemeral", 100, 0)
	if err := r.Private(context.Background(), "x"); err == nil {
		t.Error("Private succeeded while Slack answered 429")
	}
	if n := fake.Calls("chat.postEphemeral"); n != maxRateLimitRetries+1 {
		t.Errorf("%d calls, want %d", n, maxRateLimitRetries+1)
	}
	// …and when the caller's context ends, however long Slack asks to wait.
	fake.RateLimit("chat.postEphemeral", 1, 60)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for fake.Calls("chat.postEphemeral") < maxRateLimitRetries+2 && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		cancel() // while the call waits out its minute
	}()
	if err := r.Private(ctx, "x"); !errors.Is(err, context.Canceled) {
		t.Errorf("Private after cancel: %v", err)
	}
}

func TestSocketModeReconnects(t *testing.T) {
	e := newEnv(t, options{socket: true})
	if err := e.fake.Disconnect(); err != nil {
		t.Fatal(err)
	}
	slacktest.Wait(t, timeout, "a second connection", func() bool { return e.fake.Connections() == 2 && e.fake.Connected() })
	ev := e.fake.Mention("C1", "U1", "What is our refund policy?")
	if _, err := e.fake.SendEvent("", ev); err != nil {
		t.Fatal(err)
	}
	checkAnswer(t, e.final("C1", ev.TS, 1)[0], ev.TS, "full refund")
}
