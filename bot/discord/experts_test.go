package discord_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/bot/discord"
	"github.com/switchboard/switchboard/bot/discord/discordtest"
	"github.com/switchboard/switchboard/channels"
	"github.com/switchboard/switchboard/kb"
	"github.com/switchboard/switchboard/sqlite"
)

// Discord ids of the people in these tests.
const (
	askerID  = "100000000000000001"
	expertID = "200000000000000002"
	roleID   = "300000000000000003"
	ownerID  = "400000000000000004"
)

type channelExperts map[string][]string

func (c channelExperts) Settings(_ context.Context, ch string) (channels.Settings, error) {
	return channels.Settings{Channel: ch, Experts: c[ch]}, nil
}

type docStore struct {
	mu   sync.Mutex
	docs map[string]kb.Document
}

func (d *docStore) SaveDocument(_ context.Context, doc kb.Document) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.docs[doc.Key] = doc
	return nil
}

func (d *docStore) all() []kb.Document {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []kb.Document
	for _, doc := range d.docs {
		out = append(out, doc)
	}
	return out
}

// lowAnswer is a low-confidence answer whose every text tries to ping,
// citing a document owned by a Discord user and an e-mail address.
var lowAnswer = agent.Result{Route: agent.RouteVector, Confidence: agent.ConfidenceLow,
	Answer:      "Ask @everyone or <@500000000000000005> [1].",
	Unsupported: []string{"<@&600000000000000006> knows."},
	Attempts:    []agent.Attempt{{Route: agent.RouteVector, Query: "bikes @here", Found: 2, Relevant: 1}},
	Sources: []agent.Source{{N: 1, Title: "Bikes @everyone", Location: "handbook/bikes.md", Route: agent.RouteVector,
		Owners: []string{ownerID, "dana@example.com"}}}}

// pressed returns the public message a press's response posted.
func (h *harness) pressed(p *discordtest.Interaction) discordtest.Message {
	h.t.Helper()
	var m discordtest.Message
	h.fake.Wait(h.t, "the press's response", func() bool {
		var ok bool
		m, ok = h.fake.Original(p.Token)
		return ok && !m.Deferred
	})
	return m
}

// Ask an expert, pressed twice, posts one escalation that notifies
// exactly the channel's experts (a user and a role); in a channel with no
// experts, the owners with a Discord account. Nothing from the document
// or the model notifies anyone. The asker saves the expert's reply that
// follows as the answer; a bystander cannot.
func TestAskExpertDiscord(t *testing.T) {
	t.Parallel()
	modes(t, func(t *testing.T, mode string) {
		docs := &docStore{docs: map[string]kb.Document{}}
		h := start(t, mode, options{guild: guild,
			asker: func(bot.Asker) bot.Asker { return fixed{lowAnswer} },
			experts: func(answers *sqlite.Feedback) discord.Experts {
				return &bot.Experts{Answers: answers, Channels: channelExperts{"C1": {expertID, "&" + roleID}}, Documents: docs}
			}})
		h.fake.AddChannel(guild, "C1", "help", false)
		h.fake.AddChannel(guild, "C2", "general", false)

		h.ask("C1", askerID, "Where do bikes go?")
		answer := h.answers("C1", 1)[0]
		h.kept(h.store, answer)
		ask := buttonWith(answer, "expert:")
		if ask == "" {
			t.Fatalf("a low answer without Ask an expert: %+v", answer.Buttons())
		}
		first := h.fake.Press(answer, "700000000000000007", ask)
		h.deliver(first)
		esc := h.pressed(first)
		users, roles, everyone := esc.Pings()
		if !slices.Equal(users, []string{expertID}) || !slices.Equal(roles, []string{roleID}) || everyone {
			t.Errorf("the escalation notifies users %v, roles %v, everyone %v; want the experts:\n%s", users, roles, everyone, esc.Text())
		}
		for _, w := range []string{"Where do bikes go?", bot.EscalationSearchedLabel, "bikes @here", bot.EscalationWhyLabel, "Low confidence"} {
			if !strings.Contains(esc.Text(), w) {
				t.Errorf("the escalation lacks %q:\n%s", w, esc.Text())
			}
		}
		if cbs := h.press(answer, askerID, ask); len(cbs) != 1 || !cbs[0].Ephemeral() || cbs[0].Content != bot.AlreadyEscalatedLabel {
			t.Errorf("a second press answered %+v", cbs)
		}

		save := buttonWith(esc, "save:")
		h.fake.Say("C1", discordtest.User{ID: expertID, Username: "expert"}, "Bikes go in the basement, @everyone.")
		if got := h.saveAs(esc, "700000000000000007", save); got != bot.NotAllowedToSaveLabel {
			t.Errorf("a bystander was told %q", got)
		}
		if got := h.saveAs(esc, askerID, save); !strings.Contains(got, "saved <@"+expertID+">'s reply as the answer") {
			t.Errorf("the asker was told %q", got)
		}
		saved := docs.all()
		if len(saved) != 1 || !strings.HasPrefix(saved[0].Key, "discord:C1:answer:") || saved[0].Metadata["author"] != expertID ||
			!strings.HasPrefix(saved[0].Location, "https://discord.com/channels/"+guild+"/C1/") || saved[0].Private ||
			!strings.Contains(saved[0].Chunks[0].Content, "basement") {
			t.Errorf("saved %+v", saved)
		}

		// No experts in C2: the owners.
		h.ask("C2", askerID, "Where do bikes go?")
		answer = h.answers("C2", 1)[0]
		h.kept(h.store, answer)
		p := h.fake.Press(answer, askerID, buttonWith(answer, "expert:"))
		h.deliver(p)
		esc = h.pressed(p)
		users, roles, everyone = esc.Pings()
		if !slices.Equal(users, []string{ownerID}) || len(roles) != 0 || everyone || !strings.Contains(esc.Text(), "dana@example.com") {
			t.Errorf("the owners' escalation notifies %v %v %v:\n%s", users, roles, everyone, esc.Text())
		}
	})
}

// saveAs presses Save as answer as user and returns what they were told.
func (h *harness) saveAs(esc discordtest.Message, user, customID string) string {
	h.t.Helper()
	p := h.fake.Press(esc, user, customID)
	h.deliver(p)
	var m discordtest.Message
	h.fake.Wait(h.t, "the saved answer's confirmation", func() bool {
		var ok bool
		m, ok = h.fake.Original(p.Token)
		return ok && !m.Deferred && m.Content != ""
	})
	if !m.Ephemeral() {
		h.t.Errorf("the confirmation is public: %+v", m)
	}
	return m.Content
}

// buttonWith is the custom_id of m's button that starts with prefix.
func buttonWith(m discordtest.Message, prefix string) string {
	for _, b := range m.Buttons() {
		if strings.HasPrefix(b.CustomID, prefix) {
			return b.CustomID
		}
	}
	return ""
}

// A 👎 offers Ask an expert to the voter, privately.
func TestVotedDownOffersExpert(t *testing.T) {
	t.Parallel()
	h := start(t, discord.ModeHTTP, options{guild: guild, asker: func(bot.Asker) bot.Asker { return fixed{lowAnswer} },
		experts: func(answers *sqlite.Feedback) discord.Experts {
			return &bot.Experts{Answers: answers}
		}})
	h.ask("C1", askerID, "Where do bikes go?")
	answer := h.answers("C1", 1)[0]
	h.kept(h.store, answer)
	p := h.fake.Press(answer, askerID, buttonWith(answer, "vote:down:"))
	h.deliver(p)
	thanks := h.pressed(p)
	if !thanks.Ephemeral() || buttonWith(thanks, "expert:voted:") == "" {
		t.Errorf("the voter was not offered Ask an expert, privately: %+v", thanks)
	}
}
