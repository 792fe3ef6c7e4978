package discord_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/bot/discord"
	"github.com/switchboard/switchboard/bot/discord/discordtest"
	"github.com/switchboard/switchboard/feedback"
	"github.com/switchboard/switchboard/llm/offline"
	"github.com/switchboard/switchboard/questions"
	"github.com/switchboard/switchboard/sqlite"
	"github.com/switchboard/switchboard/sqlite/sqlitetest"
)

// These tests run the whole path: the fake Discord delivers a question,
// the adapter hands it to a real bot.Dispatcher and a real (offline)
// agent, and the answer comes back through the fake's REST API, which
// checks Discord's limits and records what people would see.

const guild = "900000000000000001"

// corpus is what the hand-written retriever returns for every query; the
// agent grades it.
var corpus = []agent.Document{
	{ID: "retention", Title: "Data retention policy", Location: "https://wiki.example.com/policies/retention",
		Content: "Customer data retention: customer data is kept for 24 months after the contract ends. Backups of customer data are deleted after 90 days under the retention policy."},
	{ID: "eu", Title: "Data retention for EU customers", Location: "docs/policies/eu-retention.md",
		Content: "For EU customers, the data retention policy keeps personal data for 12 months after the contract ends, as the GDPR requires."},
	{ID: "laptops", Title: "Laptop policy", Location: "https://discord.com/channels/1/2/3",
		Content: "Laptops are encrypted and replaced every three years."},
}

// retriever is the agent's vector route: fixed documents, and a record of
// what it was asked.
type retriever struct {
	mu   sync.Mutex
	reqs []agent.Request
}

func (r *retriever) Retrieve(_ context.Context, req agent.Request) ([]agent.Document, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
	return append([]agent.Document(nil), corpus...), nil
}

func (r *retriever) questions() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, q := range r.reqs {
		out = append(out, q.Question)
	}
	return out
}

// counting passes questions to the real dispatcher and counts them.
type counting struct {
	*bot.Dispatcher
	mu      sync.Mutex
	submits []bot.Incoming
	errs    []error
}

func (c *counting) Submit(ctx context.Context, in bot.Incoming, r bot.Replier) error {
	err := c.Dispatcher.Submit(ctx, in, r)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.submits = append(c.submits, in)
	c.errs = append(c.errs, err)
	return err
}

func (c *counting) incoming() []bot.Incoming {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]bot.Incoming(nil), c.submits...)
}

func (c *counting) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.submits)
}

// memFeedback is a bot.FeedbackStore in memory.
type memFeedback struct {
	mu      sync.Mutex
	answers map[string]feedback.Answer
	votes   []string // "answer user vote"
}

func (f *memFeedback) SaveAnswer(_ context.Context, a feedback.Answer) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers[a.ID] = a
	return nil
}

func (f *memFeedback) SaveVote(_ context.Context, answerID, user string, vote int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.votes = append(f.votes, fmt.Sprintf("%s %s %+d", answerID, user, vote))
	return nil
}

func (f *memFeedback) list() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.votes...)
}

// fixed answers every question with the same result: for answers longer
// than the offline engine writes.
type fixed struct{ res agent.Result }

func (f fixed) Ask(_ context.Context, q agent.Question, emit agent.Emitter) (agent.Result, error) {
	emit(agent.Event{Kind: agent.EventRouted, Route: agent.RouteVector, Reason: "scripted"})
	r := f.res
	r.Question = q.Text
	return r, nil
}

// gated holds every question until released, so that a test can fill the
// queue.
type gated struct {
	inner   bot.Asker
	entered chan string
	release chan struct{}
}

func (g *gated) Ask(ctx context.Context, q agent.Question, emit agent.Emitter) (agent.Result, error) {
	g.entered <- q.Text
	select {
	case <-g.release:
	case <-ctx.Done():
		return agent.Result{}, ctx.Err()
	}
	return g.inner.Ask(ctx, q, emit)
}

type options struct {
	asker          func(real bot.Asker) bot.Asker
	workers, queue int
	guild          string
	// hangUp makes the http endpoint's client hang up once it has the
	// response, as Discord does: the request's context ends then.
	hangUp bool
	// questions stores the questions, shared by replicas as PostgreSQL's
	// are; fake is the fake Discord of another replica, to share.
	questions questions.Store
	fake      *discordtest.Server
	// liked suggests questions for /ask's autocomplete.
	liked discord.LikedQuestions
	// channels are the channels' settings.
	channels bot.ChannelSettings
	// answers, when set, keeps the answers (instead of memFeedback) and
	// gives those a Share button posts.
	answers *sqlite.Feedback
	// experts handles Ask an expert and Save as answer, given answers
	// (set, with experts, by start).
	experts func(answers *sqlite.Feedback) discord.Experts
}

// harness is one adapter wired to a fake Discord.
type harness struct {
	t    *testing.T
	mode string
	fake *discordtest.Server
	ad   *discord.Adapter
	disp *counting
	// abandon cancels the answers running, as serve does past its grace.
	abandon context.CancelFunc
	ret     *retriever
	fb      *memFeedback
	store   *sqlite.Feedback // the answers kept, when options.answers or experts
	url     string           // http mode: the adapter's endpoint
	cfg     discord.Config
}

func start(t *testing.T, mode string, opt options) *harness {
	t.Helper()
	fake := opt.fake
	if fake == nil {
		fake = discordtest.New(t)
	}
	log := testLogger(t)
	ret := &retriever{}
	ag, err := agent.New(agent.Config{
		Offline:    offline.New(nil),
		Retrievers: map[agent.Route]agent.Retriever{agent.RouteVector: ret},
	})
	if err != nil {
		t.Fatal(err)
	}
	var asker bot.Asker = ag
	if opt.asker != nil {
		asker = opt.asker(ag)
	}
	if opt.experts != nil && opt.answers == nil {
		opt.answers = sqlitetest.Feedback(t)
	}
	fb := &memFeedback{answers: map[string]feedback.Answer{}}
	var kept bot.FeedbackStore = fb
	if opt.answers != nil {
		kept = opt.answers
	}
	d := bot.NewDispatcher(bot.Config{Agent: asker, Workers: opt.workers, Queue: opt.queue,
		Interval: 10 * time.Millisecond, Feedback: kept, Log: log, Questions: opt.questions, Shared: opt.questions != nil, Poll: 5 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	d.Start(ctx)
	t.Cleanup(func() {
		sctx, scancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer scancel()
		if err := d.Shutdown(sctx); err != nil {
			t.Errorf("dispatcher shutdown: %v", err)
		}
		cancel()
	})
	h := &harness{t: t, mode: mode, fake: fake, disp: &counting{Dispatcher: d}, ret: ret, fb: fb, store: opt.answers, abandon: cancel}
	cfg := discord.Config{Mode: mode, BotToken: fake.Token, AppID: fake.AppID, GuildID: opt.guild, APIURL: fake.APIURL, Log: log,
		Liked: opt.liked, Channels: opt.channels}
	if opt.experts != nil {
		cfg.Experts = opt.experts(opt.answers)
	}
	if mode == discord.ModeHTTP {
		cfg.PublicKey = fake.PublicKey()
	}
	if opt.answers != nil { // not a nil *sqlite.Feedback in the interface
		cfg.Answers = opt.answers
	}
	h.cfg = cfg
	h.ad, err = discord.New(cfg, h.disp)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.ad.RegisterCommands(context.Background()); err != nil {
		t.Fatal(err)
	}
	d.Resume("discord", h.ad.Resume)
	switch mode {
	case discord.ModeGateway:
		gctx, gcancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- h.ad.RunGateway(gctx) }()
		t.Cleanup(func() {
			gcancel()
			if err := <-done; err != nil {
				t.Errorf("RunGateway: %v", err)
			}
		})
		fake.WaitConnected(t)
	case discord.ModeHTTP:
		handler := h.ad.Handler()
		if opt.hangUp {
			handler = hangUpAfterResponse(handler)
		}
		srv := httptest.NewServer(handler)
		t.Cleanup(srv.Close)
		h.url = srv.URL + "/discord/interactions"
	}
	return h
}

// testLogger logs to the test while it runs, and nowhere after.
func testLogger(t *testing.T) *slog.Logger {
	var alive atomic.Bool
	alive.Store(true)
	t.Cleanup(func() { alive.Store(false) }) // runs after every later cleanup
	return slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		if alive.Load() && testing.Verbose() {
			t.Log(strings.TrimSpace(string(p)))
		}
		return len(p), nil
	}), &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

var _ io.Writer = writerFunc(nil)

// deliver sends an interaction the way the mode receives it.
func (h *harness) deliver(ia *discordtest.Interaction) {
	h.t.Helper()
	if h.mode == discord.ModeGateway {
		h.fake.SendInteraction(h.t, ia)
		return
	}
	resp, err := h.fake.Deliver(h.url, ia)
	if err != nil {
		h.t.Fatalf("deliver: %v", err)
	}
	if resp.Status != http.StatusOK {
		h.t.Fatalf("endpoint answered %d %s", resp.Status, resp.Body)
	}
}

// ask sends /ask in a channel and returns the interaction.
func (h *harness) ask(channel, user, q string) *discordtest.Interaction {
	h.t.Helper()
	ia := h.fake.Ask(guild, channel, user, q)
	h.deliver(ia)
	return ia
}

// answers waits until n finished answers (messages with feedback buttons)
// are visible in the channel, and returns the bot's visible messages there.
func (h *harness) answers(channel string, n int) []discordtest.Message {
	h.t.Helper()
	var msgs []discordtest.Message
	h.fake.Wait(h.t, fmt.Sprintf("%d answer(s) in channel %s", n, channel), func() bool {
		msgs = h.fake.BotMessages(channel)
		got := 0
		for _, m := range msgs {
			if len(m.Buttons()) > 0 {
				got++
			}
		}
		return got >= n
	})
	return msgs
}

// modes runs a test in both delivery modes.
func modes(t *testing.T, f func(t *testing.T, mode string)) {
	for _, mode := range []string{discord.ModeGateway, discord.ModeHTTP} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			f(t, mode)
		})
	}
}

func TestAsk(t *testing.T) {
	t.Parallel()
	modes(t, func(t *testing.T, mode string) {
		h := start(t, mode, options{guild: guild})
		if cmds := h.fake.Commands(guild); len(cmds) != 1 || cmds[0].Name != "ask" || len(cmds[0].Options) != 2 ||
			cmds[0].Options[0].Name != "question" || !cmds[0].Options[0].Required {
			t.Fatalf("registered commands: %+v", cmds)
		}
		ia := h.ask("C1", "U1", "What is our data retention policy?")
		msgs := h.answers("C1", 1)

		if cbs := h.fake.Callbacks(ia.Token); len(cbs) != 1 || cbs[0].Type != discordtest.CallbackDeferred {
			t.Errorf("callbacks %+v, want one deferred response", cbs)
		}
		if len(msgs) != 1 || !msgs[0].Original || msgs[0].Token != ia.Token {
			t.Fatalf("want the answer in the original response, got:\n%s", h.fake.Dump())
		}
		if n := h.callsWith("PATCH", "/webhooks/"+h.fake.AppID+"/"+ia.Token+"/messages/@original", "⏳"); n == 0 {
			t.Error("no progress edit of the original response")
		}
		e := msgs[0].Embeds[0]
		text := msgs[0].Text()
		for _, want := range []string{
			"What is our data retention policy?", // the question as title
			"24 months",                          // the answer
			"[Data retention policy](https://wiki.example.com/policies/retention)", // a linked source
			"company documents", // where it was answered from
			"Medium confidence", // the badge: offline answers are never high
		} {
			if !strings.Contains(text, want) {
				t.Errorf("answer lacks %q:\n%s", want, text)
			}
		}
		if e.Footer == nil || !strings.HasPrefix(e.Footer.Text, "🟡") {
			t.Errorf("footer %+v, want the badge", e.Footer)
		}
		if got := string(msgs[0].AllowedMentions); got != `{"parse":[],"replied_user":false}` {
			t.Errorf("allowed_mentions %s, want none", got)
		}
	})
}

// callsWith counts successful requests to path whose body contains text.
func (h *harness) callsWith(method, path, text string) int {
	n := 0
	for _, c := range h.fake.Calls() {
		if c.Method == method && c.Path == path && c.Status < 300 && strings.Contains(string(c.Body), text) {
			n++
		}
	}
	return n
}

func TestGlobalCommand(t *testing.T) {
	t.Parallel()
	h := start(t, discord.ModeHTTP, options{})
	if cmds := h.fake.Commands(""); len(cmds) != 1 || cmds[0].Name != "ask" {
		t.Fatalf("global commands: %+v", cmds)
	}
}

func TestMention(t *testing.T) {
	t.Parallel()
	h := start(t, discord.ModeGateway, options{})
	if ids := h.fake.Identifies(); len(ids) != 1 || ids[0].Intents&discordtest.IntentMessageContent == 0 || ids[0].Intents&discordtest.IntentGuildMessages == 0 {
		t.Errorf("identified with %+v, want the guild-message and message-content intents", ids)
	}
	q := h.fake.UserMessage(guild, "C1", "U1", "What is our data retention policy?", true)
	h.fake.SendMessage(t, q)
	msgs := h.answers("C1", 1)
	if len(msgs) != 1 || msgs[0].Reference == nil || msgs[0].Reference.MessageID != q.ID {
		t.Fatalf("want one reply to %s:\n%s", q.ID, h.fake.Dump())
	}
	if !strings.Contains(msgs[0].Text(), "24 months") || msgs[0].Edits == 0 {
		t.Errorf("reply not edited into the answer: %q (%d edits)", msgs[0].Text(), msgs[0].Edits)
	}
	if in := h.disp.incoming()[0]; in.Text != "What is our data retention policy?" || in.Thread != "C1" || in.MessageID != q.ID {
		t.Errorf("incoming %+v", in)
	}
}

func TestOwnMessagesIgnored(t *testing.T) {
	t.Parallel()
	h := start(t, discord.ModeGateway, options{})
	own := h.fake.UserMessage(guild, "C1", "", "What is our data retention policy?", true)
	own.Author = h.fake.Bot
	other := h.fake.UserMessage(guild, "C1", "U9", "What is our data retention policy?", true)
	other.Author.Bot = true
	h.fake.SendMessage(t, own)
	h.fake.SendMessage(t, other)
	h.fake.SendMessage(t, h.fake.UserMessage(guild, "C1", "U1", "no mention here", false))
	// A real question after them: once it is answered, the others would
	// have been seen too.
	h.fake.SendMessage(t, h.fake.UserMessage(guild, "C2", "U1", "What is our data retention policy?", true))
	h.answers("C2", 1)
	if n := h.disp.count(); n != 1 {
		t.Errorf("%d questions submitted, want 1", n)
	}
	for _, m := range h.fake.BotMessages("C1") {
		if m.ID != own.ID {
			t.Errorf("the bot answered a bot:\n%s", h.fake.Dump())
		}
	}
}

func TestBadSignature(t *testing.T) {
	t.Parallel()
	h := start(t, discord.ModeHTTP, options{})
	ia := h.fake.Ask(guild, "C1", "U1", "What is our data retention policy?")
	body := []byte(fmt.Sprintf(`{"id":%q,"application_id":%q,"type":2,"token":%q,"channel_id":"C1","guild_id":%q,"member":{"user":{"id":"U1"}},"data":{"name":"ask","options":[{"name":"question","type":3,"value":"hi"}]}}`,
		ia.ID, h.fake.AppID, ia.Token, guild))
	ts := fmt.Sprint(time.Now().Unix())
	good := h.fake.Sign(ts, body)
	old := fmt.Sprint(time.Now().Add(-time.Hour).Unix())
	for name, c := range map[string]struct{ sig, ts string }{
		"wrong key":    {strings.Repeat("ab", 64), ts},
		"other body":   {h.fake.Sign(ts, []byte(`{}`)), ts},
		"other time":   {good, ts + "1"},
		"no signature": {"", ts},
		"no timestamp": {good, ""},
		"not hex":      {"zz" + good[2:], ts},
		"stale":        {h.fake.Sign(old, body), old},
	} {
		resp, err := h.fake.DeliverRaw(h.url, body, c.sig, c.ts)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != http.StatusUnauthorized {
			t.Errorf("%s: status %d, want 401", name, resp.Status)
		}
	}
	if n := h.disp.count(); n != 0 {
		t.Errorf("%d questions submitted after bad signatures", n)
	}
	// The same body, signed: accepted.
	resp, err := h.fake.DeliverRaw(h.url, body, good, ts)
	if err != nil || resp.Status != http.StatusOK || resp.Type != discordtest.CallbackDeferred {
		t.Errorf("signed delivery: %+v %v", resp, err)
	}
}

func TestPing(t *testing.T) {
	t.Parallel()
	h := start(t, discord.ModeHTTP, options{})
	resp, err := h.fake.Deliver(h.url, h.fake.Ping())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != http.StatusOK || resp.Type != discordtest.CallbackPong {
		t.Errorf("PING answered %d %s, want PONG", resp.Status, resp.Body)
	}
}

func TestRateLimited(t *testing.T) {
	t.Parallel()
	modes(t, func(t *testing.T, mode string) {
		h := start(t, mode, options{})
		h.fake.RateLimit("PATCH", "/webhooks/", 2)
		h.fake.RateLimit("POST", "/interactions/", 1) // the gateway callback
		ia := h.ask("C1", "U1", "What is our data retention policy?")
		msgs := h.answers("C1", 1)
		if len(msgs) != 1 || !strings.Contains(msgs[0].Text(), "24 months") {
			t.Fatalf("answer:\n%s", h.fake.Dump())
		}
		limited, ok := 0, 0
		for _, c := range h.fake.Calls() {
			if c.Method == "PATCH" && strings.Contains(c.Path, ia.Token) {
				if c.Status == http.StatusTooManyRequests {
					limited++
				} else if c.Status == http.StatusOK {
					ok++
				}
			}
		}
		if limited != 2 || ok == 0 {
			t.Errorf("%d rate-limited and %d good edits, want 2 and some", limited, ok)
		}
	})
	t.Run("mention", func(t *testing.T) {
		t.Parallel()
		h := start(t, discord.ModeGateway, options{})
		h.fake.RateLimit("POST", "/channels/", 1)
		h.fake.RateLimit("PATCH", "/channels/", 1)
		h.fake.SendMessage(t, h.fake.UserMessage(guild, "C1", "U1", "What is our data retention policy?", true))
		if msgs := h.answers("C1", 1); len(msgs) != 1 {
			t.Fatalf("want one reply:\n%s", h.fake.Dump())
		}
	})
}

func TestLongAnswer(t *testing.T) {
	t.Parallel()
	para := strings.Repeat("Retention differs by region and kind of data, which this sentence repeats. ", 25)
	code := "```sql\n" + strings.Repeat("DELETE FROM customers WHERE ended < now() - interval '24 months';\n", 60) + "```"
	long := agent.Result{Route: agent.RouteVector, RouteReason: "scripted", Confidence: agent.ConfidenceMedium,
		Answer:  para + "\n\n" + code + "\n\n" + para + "\n\n" + para + "\n\nIn short: 24 months [1].",
		Sources: []agent.Source{{N: 1, Title: "Data retention policy", Location: "https://wiki.example.com/policies/retention"}}}
	check := func(t *testing.T, msgs []discordtest.Message) {
		if len(msgs) < 2 {
			t.Fatalf("long answer in %d message(s):\n%s", len(msgs), msgs[0].Text())
		}
		var all strings.Builder
		for i, m := range msgs {
			for _, e := range m.Embeds {
				if strings.Count(e.Description, "```")%2 != 0 {
					t.Errorf("message %d cuts a code fence", i)
				}
				all.WriteString(e.Description)
			}
			if (len(m.Buttons()) > 0) != (i == len(msgs)-1) {
				t.Errorf("message %d of %d: buttons %v", i, len(msgs), m.Buttons())
			}
		}
		if !strings.Contains(all.String(), "In short: 24 months") || strings.Count(all.String(), "DELETE FROM") != 60 {
			t.Error("the answer lost text in the split")
		}
	}
	opt := options{asker: func(bot.Asker) bot.Asker { return fixed{long} }}
	modes(t, func(t *testing.T, mode string) {
		h := start(t, mode, opt)
		ia := h.ask("C1", "U1", "How does retention work everywhere?")
		msgs := h.answers("C1", 1)
		check(t, msgs)
		if !msgs[0].Original || len(h.fake.Followups(ia.Token)) != len(msgs)-1 {
			t.Errorf("want the original response and follow-ups:\n%s", h.fake.Dump())
		}
	})
	t.Run("mention", func(t *testing.T) {
		t.Parallel()
		h := start(t, discord.ModeGateway, opt)
		h.fake.SendMessage(t, h.fake.UserMessage(guild, "C1", "U1", "How does retention work everywhere?", true))
		check(t, h.answers("C1", 1))
	})
}

func TestConcurrentChannels(t *testing.T) {
	t.Parallel()
	modes(t, func(t *testing.T, mode string) {
		h := start(t, mode, options{})
		const n = 20
		tokens := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ch := fmt.Sprintf("C%02d", i)
				ia := h.fake.Ask(guild, ch, "U1", "What is our data retention policy?")
				tokens[i] = ia.Token
				if mode == discord.ModeGateway {
					h.fake.SendInteraction(t, ia)
					return
				}
				if resp, err := h.fake.Deliver(h.url, ia); err != nil || resp.Type != discordtest.CallbackDeferred {
					t.Errorf("deliver %d: %+v %v", i, resp, err)
				}
			}()
		}
		wg.Wait()
		for i := range n {
			ch := fmt.Sprintf("C%02d", i)
			msgs := h.answers(ch, 1)
			if len(msgs) != 1 || msgs[0].Token != tokens[i] || !strings.Contains(msgs[0].Text(), "24 months") {
				t.Errorf("channel %s: want exactly one answer:\n%s", ch, h.fake.Dump())
			}
			if cbs := h.fake.Callbacks(tokens[i]); len(cbs) != 1 {
				t.Errorf("channel %s: %d responses", ch, len(cbs))
			}
			if f := h.fake.Followups(tokens[i]); len(f) != 0 {
				t.Errorf("channel %s: %d follow-ups", ch, len(f))
			}
		}
		if c := h.disp.count(); c != n {
			t.Errorf("%d questions submitted, want %d", c, n)
		}
	})
}

func TestFollowUp(t *testing.T) {
	t.Parallel()
	modes(t, func(t *testing.T, mode string) {
		h := start(t, mode, options{})
		h.ask("C1", "U1", "What is our data retention policy?")
		h.answers("C1", 1)
		h.ask("C1", "U1", "and for EU customers?")
		msgs := h.answers("C1", 2)
		const standalone = "What is our data retention policy for EU customers?"
		qs := h.ret.questions()
		if len(qs) == 0 || qs[len(qs)-1] != standalone {
			t.Errorf("retriever asked %q, want the follow-up condensed to %q", qs, standalone)
		}
		if last := msgs[len(msgs)-1].Text(); !strings.Contains(last, "understood as “"+standalone+"”") || !strings.Contains(last, "12 months") {
			t.Errorf("follow-up answer:\n%s", last)
		}
		// Another channel is another conversation.
		h.ask("C2", "U1", "and for EU customers?")
		h.answers("C2", 1)
		if qs := h.ret.questions(); qs[len(qs)-1] != "and for EU customers?" {
			t.Errorf("a new channel used another channel's history: %q", qs[len(qs)-1])
		}
	})
	t.Run("mention", func(t *testing.T) {
		t.Parallel()
		h := start(t, discord.ModeGateway, options{})
		h.ask("C1", "U1", "What is our data retention policy?")
		h.answers("C1", 1)
		h.fake.SendMessage(t, h.fake.UserMessage(guild, "C1", "U1", "and for EU customers?", true))
		h.answers("C1", 2)
		if qs := h.ret.questions(); qs[len(qs)-1] != "What is our data retention policy for EU customers?" {
			t.Errorf("a mention after /ask lost the channel's history: %q", qs)
		}
	})
}

func TestExpiredToken(t *testing.T) {
	t.Parallel()
	modes(t, func(t *testing.T, mode string) {
		h := start(t, mode, options{})
		ia := h.fake.Ask(guild, "C1", "U1", "What is our data retention policy?")
		h.fake.Expire(ia.Token)
		h.deliver(ia)
		msgs := h.answers("C1", 1)
		last := msgs[len(msgs)-1]
		if last.Token != "" || last.Original || !strings.Contains(last.Text(), "24 months") {
			t.Errorf("want the answer as a channel message:\n%s", h.fake.Dump())
		}
	})
}

func TestVote(t *testing.T) {
	t.Parallel()
	modes(t, func(t *testing.T, mode string) {
		h := start(t, mode, options{})
		h.ask("C1", "U1", "What is our data retention policy?")
		answer := h.answers("C1", 1)[0]
		buttons := answer.Buttons()
		if len(buttons) != 2 || buttons[0].Emoji == nil || buttons[0].Emoji.Name != "👍" {
			t.Fatalf("buttons %+v", buttons)
		}
		press := h.fake.Press(answer, "U2", buttons[0].CustomID)
		h.deliver(press)
		h.fake.Wait(t, "the thanks", func() bool { return len(h.fake.Callbacks(press.Token)) > 0 })
		cb := h.fake.Callbacks(press.Token)[0]
		if cb.Type != discordtest.CallbackMessage || !cb.Ephemeral() || !strings.Contains(cb.Content, "Thanks") {
			t.Errorf("response to the button: %+v", cb)
		}
		answerID := strings.TrimPrefix(buttons[0].CustomID, "vote:up:")
		if got := h.fb.list(); len(got) != 1 || got[0] != answerID+" U2 +1" {
			t.Errorf("votes %q, want [%s U2 +1]", got, answerID)
		}
		// A button of something else is answered, not recorded.
		stale := h.fake.Press(answer, "U2", "something:else")
		h.deliver(stale)
		h.fake.Wait(t, "the stale-button reply", func() bool { return len(h.fake.Callbacks(stale.Token)) > 0 })
		if len(h.fb.list()) != 1 {
			t.Errorf("votes %q after a stale button", h.fb.list())
		}
	})
}

func TestBusy(t *testing.T) {
	t.Parallel()
	modes(t, func(t *testing.T, mode string) {
		g := &gated{entered: make(chan string, 10), release: make(chan struct{})}
		h := start(t, mode, options{workers: 1, queue: 1, asker: func(real bot.Asker) bot.Asker { g.inner = real; return g }})
		var once sync.Once
		release := func() { once.Do(func() { close(g.release) }) }
		t.Cleanup(release)

		h.ask("C1", "U1", "What is our data retention policy?")
		<-g.entered // the one worker is busy with it
		h.ask("C2", "U1", "What is our data retention policy?")
		h.fake.Wait(t, "a queued question", func() bool { return h.disp.Queued() == 1 })
		busy := h.ask("C3", "U1", "What is our data retention policy?")

		var note discordtest.Message
		h.fake.Wait(t, "the busy note", func() bool {
			for _, m := range h.fake.Followups(busy.Token) {
				note = m
				return true
			}
			return false
		})
		if !note.Ephemeral() || note.Content != bot.BusyMessage {
			t.Errorf("busy note %+v, want an ephemeral %q", note, bot.BusyMessage)
		}
		if o, _ := h.fake.Original(busy.Token); !o.Deleted {
			t.Errorf("the public \"thinking\" response of a refused question stayed: %+v", o)
		}
		if msgs := h.fake.BotMessages("C3"); len(msgs) != 0 {
			t.Errorf("the refusal is visible in the channel:\n%s", h.fake.Dump())
		}
		release()
		h.answers("C1", 1)
		h.answers("C2", 1)
	})
}

// hangUpAfterResponse ends each request's context as soon as its response
// is flushed, as when the client reads the response and closes the
// connection: what Discord does.
func hangUpAfterResponse(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		h.ServeHTTP(cancelOnFlush{w, cancel}, r.WithContext(ctx))
	})
}

type cancelOnFlush struct {
	http.ResponseWriter
	cancel context.CancelFunc
}

func (c cancelOnFlush) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
	c.cancel()
}

// A replayed /ask is answered once, though the request's context has
// ended by the time the de-duplication runs.
func TestReplayAnsweredOnceWhenTheRequestEnded(t *testing.T) {
	h := start(t, discord.ModeHTTP, options{hangUp: true})
	ia := h.ask("c1", "u1", "what is the refund policy?")
	h.answers("c1", 1)
	for range 3 { // an attacker's replays, signed afresh
		h.deliver(ia)
	}
	h.deliver(h.fake.Ask(guild, "c1", "u1", "and the travel policy?")) // a new question still counts
	// One thread runs in order: a replay taken would be answered before
	// the new question.
	answered := 0
	for _, m := range h.answers("c1", 2) {
		if len(m.Buttons()) > 0 {
			answered++
		}
	}
	h.disp.mu.Lock()
	defer h.disp.mu.Unlock()
	dups := 0
	for _, err := range h.disp.errs {
		if errors.Is(err, bot.ErrDuplicate) {
			dups++
		}
	}
	if answered != 2 || dups != 3 {
		t.Errorf("%d answers and %d replays refused as duplicates, want 2 and 3 (errors %v)", answered, dups, h.disp.errs)
	}
}

// A stored question that its replica could not finish (stopped past its
// grace) is answered by another replica in the /ask's own response, with
// the interaction's token the first one kept.
func TestStoredQuestionTakenOverInTheResponse(t *testing.T) {
	store := questions.NewMemory(nil)
	running := make(chan struct{}, 1)
	stuck := func(bot.Asker) bot.Asker {
		return askerFunc(func(ctx context.Context, _ agent.Question, _ agent.Emitter) (agent.Result, error) {
			running <- struct{}{}
			<-ctx.Done()
			return agent.Result{}, ctx.Err()
		})
	}
	a := start(t, discord.ModeHTTP, options{questions: store, asker: stuck})
	ia := a.ask("c1", "u1", "what is the data retention policy?")
	select {
	case <-running:
	case <-time.After(time.Minute): // a guard, not a timing
		t.Fatal("the first replica did not take the question")
	}
	a.abandon()

	b := start(t, discord.ModeHTTP, options{questions: store, fake: a.fake})
	a.fake.Wait(t, "the answer in the /ask's response", func() bool {
		m, ok := a.fake.Original(ia.Token)
		return ok && len(m.Buttons()) > 0
	})
	m, _ := a.fake.Original(ia.Token)
	if !strings.Contains(m.Text(), "24 months") {
		t.Errorf("the response shows %q, want the answer", m.Text())
	}
	if n := len(b.ret.questions()); n != 1 {
		t.Errorf("the second replica searched %d times, want once", n)
	}
	if msgs := a.fake.BotMessages("c1"); len(msgs) != 1 {
		t.Errorf("%d messages in the channel, want the response alone", len(msgs))
	}
}

// askerFunc adapts a function to bot.Asker.
type askerFunc func(ctx context.Context, q agent.Question, emit agent.Emitter) (agent.Result, error)

func (f askerFunc) Ask(ctx context.Context, q agent.Question, emit agent.Emitter) (agent.Result, error) {
	return f(ctx, q, emit)
}
