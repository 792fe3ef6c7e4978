package discord_test

import (
	"context"
	"fmt"
	"github.com/switchboard/switchboard/sqlite/sqlitetest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/bot/discord"
	"github.com/switchboard/switchboard/bot/discord/discordtest"
	"github.com/switchboard/switchboard/channels"
	"github.com/switchboard/switchboard/sqlite"
)

// settingsStore is a SQLite store of channel settings holding set.
func settingsStore(t *testing.T, set ...channels.Settings) *sqlite.Channels {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "settings.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	store := sqlite.NewChannels(db)
	for _, s := range set {
		if err := store.SetSettings(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	return store
}

// Two channels with different sources: each question is searched within
// its own channel's sources only.
func TestChannelSourcesReachTheSearch(t *testing.T) {
	store := settingsStore(t,
		channels.Settings{Channel: "100", Sources: []string{"handbook/docs/hr/"}},
		channels.Settings{Channel: "200", Sources: []string{"handbook/docs/eng/", channels.SourceWeb}})
	h := start(t, discord.ModeHTTP, options{channels: store})
	h.ask("100", "7", "how many days of leave do I get?")
	h.answers("100", 1)
	h.ask("200", "7", "who is on call this week?")
	h.answers("200", 1)

	h.ret.mu.Lock()
	defer h.ret.mu.Unlock()
	seen := map[string]string{}
	for _, req := range h.ret.reqs {
		seen[req.Scope.Channel] = strings.Join(req.Scope.Sources, ",")
	}
	if seen["100"] != "handbook/docs/hr/" || seen["200"] != "handbook/docs/eng/,web" {
		t.Errorf("the searches' sources by channel: %v", seen)
	}
}

// settingsReply delivers /switchboard settings and returns its response,
// which must be for the user alone.
func (h *harness) settingsReply(ia *discordtest.Interaction) string {
	h.t.Helper()
	h.deliver(ia)
	h.fake.Wait(h.t, "the settings' response", func() bool { return len(h.fake.Callbacks(ia.Token)) > 0 })
	cb := h.fake.Callbacks(ia.Token)[0]
	if cb.Type != discordtest.CallbackMessage || !cb.Ephemeral() {
		h.t.Errorf("settings answered with %+v, want a message to the user alone", cb)
	}
	return cb.Content
}

// /switchboard settings: a member without Manage Channels can look but
// not change; one with it, or an Administrator, can, and the change is
// theirs in the log.
func TestSettingsCommand(t *testing.T) {
	t.Parallel()
	modes(t, func(t *testing.T, mode string) {
		store := settingsStore(t)
		h := start(t, mode, options{channels: store, guild: guild})
		var registered bool
		for _, c := range h.fake.Commands(guild) {
			if c.Name == "switchboard" && len(c.Options) == 1 && c.Options[0].Name == "settings" && len(c.Options[0].Options) == 4 {
				registered = true
			}
		}
		if !registered {
			t.Fatalf("no /switchboard settings among %+v", h.fake.Commands(guild))
		}
		change := map[string]any{"sources": "handbook/docs/hr/, slack:C42", "replies": "all", "private": true, "experts": "<@111><@&222> 333"}

		if got := h.settingsReply(h.fake.Settings(guild, "C1", "U1", change)); got != bot.SettingsNotAllowedDiscord {
			t.Errorf("a member without Manage Channels was answered %q", got)
		}
		if log, err := store.SettingsLog(context.Background(), "C1"); err != nil || len(log) != 0 {
			t.Fatalf("after a refused change, the log is %+v, %v", log, err)
		}
		if got := h.settingsReply(h.fake.Settings(guild, "C1", "U1", nil)); !strings.Contains(got, "every source the asker may read") {
			t.Errorf("the settings shown to a member: %q", got)
		}

		manager := h.fake.Settings(guild, "C1", "U2", change).WithPermissions(discordtest.PermissionsMember | discordtest.PermissionManageChannels)
		if got := h.settingsReply(manager); !strings.HasPrefix(got, "Saved.") || !strings.Contains(got, "handbook/docs/hr/, slack:C42") {
			t.Errorf("a channel manager's change answered %q", got)
		}
		s, err := store.Settings(context.Background(), "C1")
		want := channels.Settings{Channel: "C1", Sources: []string{"handbook/docs/hr/", "slack:C42"}, Replies: channels.RepliesAll,
			Private: true, Experts: []string{"111", "&222", "333"}, ChangedBy: "discord:U2"}
		s.ChangedAt = want.ChangedAt
		if err != nil || fmt.Sprint(s) != fmt.Sprint(want) {
			t.Errorf("saved %+v, %v; want %+v", s, err, want)
		}

		// An administrator sets one option; the others are kept.
		admin := h.fake.Settings(guild, "C1", "U3", map[string]any{"replies": "mention", "sources": "all"}).
			WithPermissions(discordtest.PermissionAdministrator)
		h.settingsReply(admin)
		s, _ = store.Settings(context.Background(), "C1")
		if s.Replies != channels.RepliesMention || len(s.Sources) != 0 || !s.Private || len(s.Experts) != 3 || s.ChangedBy != "discord:U3" {
			t.Errorf("after the administrator's change: %+v", s)
		}
	})
}

// A help channel (replies: all) answers a top-level question addressed to
// no one, as a reply, and leaves chatter alone; another channel answers
// the same question only when the bot is mentioned.
func TestHelpChannel(t *testing.T) {
	t.Parallel()
	store := settingsStore(t, channels.Settings{Channel: "HELP", Replies: channels.RepliesAll})
	h := start(t, discord.ModeGateway, options{channels: store})
	chatter := []discordtest.Message{
		h.fake.UserMessage(guild, "HELP", "U1", "thanks, that worked", false),
		h.fake.UserMessage(guild, "HELP", "U1", "really?", false),
		h.fake.UserMessage(guild, "OTHER", "U1", "What is our data retention policy?", false),
	}
	toSomeone := h.fake.UserMessage(guild, "HELP", "U1", "<@555> what is our data retention policy?", false)
	toSomeone.Mentions = []discordtest.User{{ID: "555", Username: "alice"}}
	toRole := h.fake.UserMessage(guild, "HELP", "U1", "<@&777> what is our data retention policy?", false)
	toRole.MentionRoles = []string{"777"}
	for _, m := range append(chatter, toSomeone, toRole) {
		h.fake.SendMessage(t, m)
	}
	q := h.fake.UserMessage(guild, "HELP", "U2", "What is our data retention policy?", false)
	h.fake.SendMessage(t, q)
	msgs := h.answers("HELP", 1)
	if len(msgs) != 1 || msgs[0].Reference == nil || msgs[0].Reference.MessageID != q.ID || !strings.Contains(msgs[0].Text(), "24 months") {
		t.Fatalf("want one answer replying to the question:\n%s", h.fake.Dump())
	}
	// A mention in the other channel, once answered, shows the chatter
	// before it was seen and left.
	mention := h.fake.UserMessage(guild, "OTHER", "U1", "What is our data retention policy?", true)
	h.fake.SendMessage(t, mention)
	h.fake.Wait(t, "the mention's answer", func() bool {
		for _, m := range h.fake.BotMessages("OTHER") {
			if m.Reference != nil && m.Reference.MessageID == mention.ID && len(m.Buttons()) > 0 {
				return true
			}
		}
		return false
	})
	if n := h.disp.count(); n != 2 || len(h.fake.BotMessages("OTHER")) != 1 {
		t.Errorf("%d questions taken, want the help channel's and the mention:\n%s", n, h.fake.Dump())
	}
}

// In a channel of the asker reply mode, a reply to the bot's answer is a
// question when its author asked it, by a mention or by /ask, whether or
// not the reply pings the bot; someone else's is not.
func TestAskerReplies(t *testing.T) {
	t.Parallel()
	store := settingsStore(t, channels.Settings{Channel: "C1", Replies: channels.RepliesAsker})
	h := start(t, discord.ModeGateway, options{channels: store})
	replyTo := func(answer discordtest.Message, user string) discordtest.Message {
		m := h.fake.UserMessage(guild, "C1", user, "and for EU customers?", false)
		m.Type = 19 // REPLY, without the ping
		m.Reference = &discordtest.Reference{MessageID: answer.ID, ChannelID: "C1", GuildID: guild}
		return m
	}
	h.fake.SendMessage(t, h.fake.UserMessage(guild, "C1", "bob", retentionQ, true))
	byMention := h.answers("C1", 1)[0]
	h.ask("C1", "carol", retentionQ)
	var byAsk discordtest.Message
	for _, m := range h.answers("C1", 2) {
		if m.Original {
			byAsk = m
		}
	}
	h.fake.SendMessage(t, replyTo(byMention, "alice"))
	h.fake.SendMessage(t, replyTo(byAsk, "alice"))
	h.fake.SendMessage(t, replyTo(byMention, "bob"))
	h.answers("C1", 3)
	h.fake.SendMessage(t, replyTo(byAsk, "carol"))
	h.answers("C1", 4)
	var askers []string
	for _, in := range h.disp.incoming() {
		askers = append(askers, in.User)
	}
	if fmt.Sprint(askers) != "[bob carol bob carol]" {
		t.Errorf("questions from %v, want the askers' replies alone:\n%s", askers, h.fake.Dump())
	}
}

// In a private channel, an /ask is answered to the asker alone, with the
// Share button, without asking for it; a mention is answered in the
// asker's DM with the bot, and its Share posts it in the channel.
func TestPrivateChannel(t *testing.T) {
	t.Parallel()
	answers := sqlitetest.Feedback(t)
	store := settingsStore(t, channels.Settings{Channel: "C1", Private: true})
	h := start(t, discord.ModeGateway, options{channels: store, answers: answers})
	ia, answer := h.privateAnswerTo(h.fake.Ask(guild, "C1", "U1", retentionQ), answers)
	if cbs := h.fake.Callbacks(ia.Token); len(cbs) != 1 || !cbs[0].Ephemeral() || !answer.Ephemeral() {
		t.Errorf("callbacks %+v, answer ephemeral %v: want the answer to the asker alone", cbs, answer.Ephemeral())
	}
	if b := answer.Buttons(); len(b) != 3 || b[2].Label != bot.ShareLabel {
		t.Errorf("buttons %+v, want the votes and Share", b)
	}

	q := h.fake.UserMessage(guild, "C1", "U2", "How long are backups kept?", true)
	h.fake.SendMessage(t, q)
	h.fake.Wait(t, "the DM", func() bool { return h.fake.DM("U2") != "" })
	dm := h.answers(h.fake.DM("U2"), 1)
	if len(dm) != 1 || len(dm[0].Buttons()) != 3 || dm[0].Reference != nil {
		t.Fatalf("want the answer in U2's DM with Share:\n%s", h.fake.Dump())
	}
	if pub := h.fake.BotMessages("C1"); len(pub) != 0 {
		t.Fatalf("a private channel's answer showed in it:\n%s", h.fake.Dump())
	}
	id := strings.TrimPrefix(dm[0].Buttons()[0].CustomID, "vote:up:")
	h.fake.Wait(t, "the answer saved", func() bool {
		_, err := answers.Answer(context.Background(), id)
		return err == nil
	})
	h.press(dm[0], "U2", dm[0].Buttons()[2].CustomID)
	h.fake.Wait(t, "the shared answer", func() bool { return len(h.fake.BotMessages("C1")) > 0 })
	if shared := h.fake.BotMessages("C1")[0]; !strings.Contains(shared.Text(), bot.Asked("<@U2>", "How long are backups kept?")) {
		t.Errorf("shared in the channel:\n%s", shared.Text())
	}
}
