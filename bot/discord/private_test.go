package discord_test

import (
	"context"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/bot/discord"
	"github.com/switchboard/switchboard/bot/discord/discordtest"
	"github.com/switchboard/switchboard/feedback"
	"github.com/switchboard/switchboard/sqlite"
	"github.com/switchboard/switchboard/sqlite/sqlitetest"
)

const retentionQ = "What is our data retention policy?"

// privateAnswer asks privately in C1 and waits for the asker's answer,
// the ephemeral original response once it has its buttons, and for the
// store to keep it (the dispatcher saves it once shown).
func (h *harness) privateAnswer(user string, store *sqlite.Feedback) (*discordtest.Interaction, discordtest.Message) {
	h.t.Helper()
	return h.privateAnswerTo(h.fake.Ask(guild, "C1", user, retentionQ).Privately(), store)
}

// privateAnswerTo delivers an /ask answered privately and waits for its
// answer, as privateAnswer.
func (h *harness) privateAnswerTo(ia *discordtest.Interaction, store *sqlite.Feedback) (*discordtest.Interaction, discordtest.Message) {
	h.t.Helper()
	h.deliver(ia)
	var answer discordtest.Message
	h.fake.Wait(h.t, "the private answer", func() bool {
		m, ok := h.fake.Original(ia.Token)
		answer = m
		return ok && len(m.Buttons()) > 0
	})
	h.kept(store, answer)
	return ia, answer
}

// kept waits for the store to keep answer (the dispatcher saves it once
// shown), which presses on it read.
func (h *harness) kept(store *sqlite.Feedback, answer discordtest.Message) {
	h.t.Helper()
	id := strings.TrimPrefix(answer.Buttons()[0].CustomID, "vote:up:")
	h.fake.Wait(h.t, "the answer saved", func() bool {
		_, err := store.Answer(context.Background(), id)
		return err == nil
	})
}

// press delivers a button press and waits for its response.
func (h *harness) press(m discordtest.Message, user, customID string) []discordtest.Callback {
	h.t.Helper()
	p := h.fake.Press(m, user, customID)
	h.deliver(p)
	h.fake.Wait(h.t, "the button's response", func() bool { return len(h.fake.Callbacks(p.Token)) > 0 })
	return h.fake.Callbacks(p.Token)
}

// A private /ask is answered to the asker alone, progress included; its
// Share button posts the answer in the channel, saying who asked, once
// however often it is pressed.
func TestPrivateAskSharedOnce(t *testing.T) {
	t.Parallel()
	modes(t, func(t *testing.T, mode string) {
		store := sqlitetest.Feedback(t)
		h := start(t, mode, options{answers: store})
		ia, answer := h.privateAnswer("U1", store)
		if cbs := h.fake.Callbacks(ia.Token); len(cbs) != 1 || cbs[0].Type != discordtest.CallbackDeferred || !cbs[0].Ephemeral() {
			t.Errorf("callbacks %+v, want one ephemeral deferral", cbs)
		}
		if !answer.Ephemeral() || !strings.Contains(answer.Text(), "24 months") {
			t.Fatalf("want the answer in the ephemeral response:\n%s", h.fake.Dump())
		}
		if n := h.callsWith("PATCH", "/webhooks/"+h.fake.AppID+"/"+ia.Token+"/messages/@original", "⏳"); n == 0 {
			t.Error("no progress shown in the private response")
		}
		if pub := h.fake.BotMessages("C1"); len(pub) != 0 {
			t.Fatalf("a private answer showed in the channel:\n%s", h.fake.Dump())
		}
		buttons := answer.Buttons()
		if len(buttons) != 3 || buttons[2].Label != bot.ShareLabel || !strings.HasPrefix(buttons[2].CustomID, "share:") {
			t.Fatalf("buttons %+v, want the votes and Share", buttons)
		}

		cbs := h.press(answer, "U1", buttons[2].CustomID)
		if cbs[0].Type != discordtest.CallbackUpdate {
			t.Errorf("share answered with %+v, want the asker's message updated", cbs[0])
		}
		h.fake.Wait(t, "the shared answer", func() bool { return len(h.fake.BotMessages("C1")) > 0 })
		// Pressed again, on the message as it was (a client that had not
		// seen the update).
		again := h.press(answer, "U1", buttons[2].CustomID)
		if again[0].Type != discordtest.CallbackMessage || !again[0].Ephemeral() || again[0].Content != bot.AlreadySharedLabel {
			t.Errorf("second share answered with %+v", again[0])
		}
		pub := h.fake.BotMessages("C1")
		if len(pub) != 1 {
			t.Fatalf("%d public messages, want the one share:\n%s", len(pub), h.fake.Dump())
		}
		shared := pub[0]
		for _, want := range []string{bot.Asked("<@U1>", retentionQ), "24 months", "Data retention policy", "Medium confidence"} {
			if !strings.Contains(shared.Text(), want) {
				t.Errorf("shared answer lacks %q:\n%s", want, shared.Text())
			}
		}
		if b := shared.Buttons(); len(b) != 2 || !strings.HasPrefix(b[0].CustomID, "vote:up:") {
			t.Errorf("shared answer's buttons %+v, want the votes alone", b)
		}
		if got := string(shared.AllowedMentions); !strings.Contains(got, `"parse":[]`) || strings.Contains(got, "users") {
			t.Errorf("allowed_mentions %s: the asker must not be pinged", got)
		}
		mine, _ := h.fake.Original(ia.Token)
		if b := mine.Buttons(); len(b) != 3 || !b[2].Disabled || b[2].Label != bot.SharedLabel || !strings.Contains(mine.Text(), "24 months") {
			t.Errorf("the asker's copy after sharing: %+v\n%s", b, mine.Text())
		}
	})
}

// The answer a Share button posts is the feedback store's: an adapter
// started again since it was given (or another replica) shares it, in
// the words the asker was shown, for the asker alone, and once.
func TestShareAfterRestart(t *testing.T) {
	t.Parallel()
	store := sqlitetest.Feedback(t)
	h := start(t, discord.ModeHTTP, options{answers: store})
	_, answer := h.privateAnswer("U1", store)
	ad, err := discord.New(h.cfg, h.disp)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ad.Handler())
	t.Cleanup(srv.Close)
	h.url = srv.URL + "/discord/interactions"

	share := answer.Buttons()[2].CustomID
	for _, p := range []struct{ user, want string }{{"U2", bot.ShareGoneLabel}, {"U1", ""}, {"U1", bot.AlreadySharedLabel}} {
		cbs := h.press(answer, p.user, share)
		if p.want != "" && (cbs[0].Type != discordtest.CallbackMessage || !cbs[0].Ephemeral() || cbs[0].Content != p.want) {
			t.Errorf("%s's press answered with %+v, want %q", p.user, cbs[0], p.want)
		}
		if p.want == "" {
			h.fake.Wait(t, "the shared answer", func() bool { return len(h.fake.BotMessages("C1")) > 0 })
		}
	}
	pub := h.fake.BotMessages("C1")
	if len(pub) != 1 || pub[0].Content != bot.Asked("<@U1>", retentionQ) {
		t.Fatalf("want one share, saying U1 asked:\n%s", h.fake.Dump())
	}
	if got, want := pub[0].Embeds, answer.Embeds; !reflect.DeepEqual(got, want) {
		t.Errorf("shared as\n%+v\nshown privately as\n%+v", got, want)
	}
}

// A share whose post fails leaves the answer shareable: the asker's copy,
// shown shared at the press, gets its Share button back, and the next
// press shares it.
func TestShareFailedThenRetried(t *testing.T) {
	t.Parallel()
	store := sqlitetest.Feedback(t)
	h := start(t, discord.ModeHTTP, options{answers: store})
	ia, answer := h.privateAnswer("U1", store)
	share := answer.Buttons()[2].CustomID
	p := h.fake.Press(answer, "U1", share)
	h.fake.RateLimit("POST", "/webhooks/"+h.fake.AppID+"/"+p.Token, 100) // every follow-up of the press
	h.deliver(p)
	// Shown shared at the press, then given its button back.
	h.fake.Wait(t, "the Share button back", func() bool {
		m, _ := h.fake.Original(ia.Token)
		b := m.Buttons()
		return m.Edits >= answer.Edits+2 && len(b) == 3 && !b[2].Disabled && b[2].Label == bot.ShareLabel
	})
	if pub := h.fake.BotMessages("C1"); len(pub) != 0 {
		t.Fatalf("a failed share showed in the channel:\n%s", h.fake.Dump())
	}
	h.press(answer, "U1", share)
	h.fake.Wait(t, "the shared answer", func() bool { return len(h.fake.BotMessages("C1")) > 0 })
	if pub := h.fake.BotMessages("C1"); len(pub) != 1 || !strings.Contains(pub[0].Text(), "24 months") {
		t.Fatalf("want the answer shared on the second press:\n%s", h.fake.Dump())
	}
}

// A private answer whose token is gone goes to the asker's DM with the
// bot, never to the channel.
func TestPrivateExpiredTokenGoesToDM(t *testing.T) {
	t.Parallel()
	h := start(t, discord.ModeHTTP, options{})
	ia := h.fake.Ask(guild, "C1", "U1", retentionQ).Privately()
	h.fake.Expire(ia.Token)
	h.deliver(ia)
	h.fake.Wait(t, "the DM", func() bool { return h.fake.DM("U1") != "" })
	h.answers(h.fake.DM("U1"), 1)
	if pub := h.fake.BotMessages("C1"); len(pub) != 0 {
		t.Fatalf("a private answer showed in the channel:\n%s", h.fake.Dump())
	}
}

// Direct messages to the bot are questions, over the gateway, without a
// mention.
func TestDirectMessage(t *testing.T) {
	t.Parallel()
	h := start(t, discord.ModeGateway, options{})
	if ids := h.fake.Identifies(); len(ids) != 1 || ids[0].Intents&discordtest.IntentDirectMessages == 0 {
		t.Errorf("identified with %+v, want the direct-message intent", ids)
	}
	q := h.fake.UserMessage("", "D1", "U1", retentionQ, false)
	h.fake.SendMessage(t, q)
	msgs := h.answers("D1", 1)
	if len(msgs) != 1 || msgs[0].Reference == nil || msgs[0].Reference.MessageID != q.ID || !strings.Contains(msgs[0].Text(), "24 months") {
		t.Fatalf("want one answer replying to the DM:\n%s", h.fake.Dump())
	}
	if in := h.disp.incoming()[0]; in.Workspace != "" || in.Channel != "D1" || in.User != "U1" || in.Text != retentionQ {
		t.Errorf("incoming %+v", in)
	}
}

// /ask works in a DM with the bot, where Discord sends the user rather
// than a member; a private answer there has no Share button.
func TestAskInDM(t *testing.T) {
	t.Parallel()
	modes(t, func(t *testing.T, mode string) {
		h := start(t, mode, options{})
		h.deliver(h.fake.Ask("", "D2", "U1", retentionQ).InDM())
		msgs := h.answers("D2", 1)
		if !strings.Contains(msgs[0].Text(), "24 months") {
			t.Fatalf("want the answer in the DM:\n%s", h.fake.Dump())
		}
		if in := h.disp.incoming()[0]; in.Workspace != "" || in.User != "U1" {
			t.Errorf("incoming %+v", in)
		}
		ia := h.fake.Ask("", "D2", "U1", "How long are backups kept?").Privately().InDM()
		h.deliver(ia)
		h.fake.Wait(t, "the private answer", func() bool {
			m, ok := h.fake.Original(ia.Token)
			return ok && len(m.Buttons()) > 0
		})
		if m, _ := h.fake.Original(ia.Token); len(m.Buttons()) != 2 || !m.Ephemeral() {
			t.Errorf("a private answer in a DM: %+v, want ephemeral with the votes alone", m.Buttons())
		}
	})
}

// liked is a LikedQuestions in memory: the questions asked in each
// thread, found by the thread key's prefix.
type liked map[string][]string

func (l liked) Liked(_ context.Context, prefix string, n int) ([]feedback.Liked, error) {
	var out []feedback.Liked
	for thread, qs := range l {
		if strings.HasPrefix(thread, prefix) {
			for _, q := range qs {
				out = append(out, feedback.Liked{Question: q, Thread: thread})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b feedback.Liked) int { return strings.Compare(a.Thread, b.Thread) }) // the map's order is random
	return out[:min(n, len(out))], nil
}

// /ask's autocomplete offers the questions answered well in the server,
// those starting with what is typed first, within Discord's limits.
func TestAutocomplete(t *testing.T) {
	t.Parallel()
	many := []string{"How do I reset my password?", "What is the data retention policy?", "Who approves expenses?",
		"Where is the data room?", strings.Repeat("a very long question ", 6) + "about data?"}
	for i := range 40 {
		many = append(many, "Which data set "+strings.Repeat("x", i)+"?")
	}
	src := liked{"discord:" + guild + ":C1:U2": many, "discord:other:C1:U2": {"What is the data secret of another server?"},
		"discord:" + guild + ":C2:U2":         {"What data does the other channel hold?"},
		"discord:" + guild + ":C1:U3:private": {"What data did someone ask privately?"}}
	modes(t, func(t *testing.T, mode string) {
		h := start(t, mode, options{liked: src})
		if cmds := h.fake.Commands(""); len(cmds) != 1 || !cmds[0].Options[0].Autocomplete {
			t.Fatalf("commands %+v, want the question autocompleted", cmds)
		}
		choices := func(guild, typed string) []discordtest.Choice {
			ia := h.fake.Autocomplete(guild, "C1", "U1", typed)
			if guild == "" {
				ia.InDM()
			}
			h.deliver(ia)
			h.fake.Wait(t, "the choices", func() bool { return len(h.fake.Callbacks(ia.Token)) > 0 })
			cb := h.fake.Callbacks(ia.Token)[0]
			if cb.Type != discordtest.CallbackAutocomplete {
				t.Fatalf("autocomplete answered with %+v", cb)
			}
			return cb.Choices
		}
		got := choices(guild, "wh")
		if len(got) != 25 || got[0].Name != "What is the data retention policy?" || got[1].Name != "Who approves expenses?" || got[3].Name != "Which data set ?" {
			t.Errorf("choices for %q: %+v", "wh", got[:min(3, len(got))])
		}
		got = choices(guild, "DATA")
		var names []string
		for _, c := range got {
			names = append(names, c.Name)
			if c.Value != c.Name {
				t.Errorf("choice %+v: the value is the question", c)
			}
		}
		if len(got) != 25 || names[0] != "What is the data retention policy?" || slices.Contains(names, many[4]) {
			t.Errorf("choices for %q: %q", "DATA", names)
		}
		for _, c := range choices(guild, "what data") {
			if c.Name != "What is the data retention policy?" {
				t.Errorf("offered %q: another channel's, or asked privately", c.Name)
			}
		}
		if got := choices("", "data"); len(got) != 0 {
			t.Errorf("choices in a DM: %+v, want none", got)
		}
	})
}

// Registered globally, /ask is declared for servers, DMs and private
// channels, for server and user installs, with its private option;
// /ingest stays in servers that installed the bot.
func TestCommandDeclaration(t *testing.T) {
	t.Parallel()
	h := start(t, discord.ModeHTTP, options{})
	cmds := h.fake.Commands("")
	if len(cmds) != 1 {
		t.Fatalf("commands %+v", cmds)
	}
	ask := cmds[0]
	if ask.Contexts == nil || !slices.Equal(*ask.Contexts, []int{discordtest.ContextGuild, discordtest.ContextBotDM, discordtest.ContextPrivateChannel}) {
		t.Errorf("contexts %v", ask.Contexts)
	}
	if ask.IntegrationTypes == nil || !slices.Equal(*ask.IntegrationTypes, []int{discordtest.InstallGuild, discordtest.InstallUser}) {
		t.Errorf("integration_types %v", ask.IntegrationTypes)
	}
	if len(ask.Options) != 2 || ask.Options[1].Name != "private" || ask.Options[1].Type != 5 || ask.Options[1].Required {
		t.Errorf("options %+v, want an optional boolean private", ask.Options)
	}
	if ask.Options[0].Autocomplete {
		t.Error("autocomplete declared with no source of questions")
	}
}
