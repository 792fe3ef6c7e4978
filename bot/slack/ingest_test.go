package slack

import (
	"testing"
	"time"

	"github.com/switchboard/switchboard/bot/slack/slacktest"
)

func TestIngestCommand(t *testing.T) {
	cases := map[string]string{ // text → since ("-" for not a command)
		"ingest this channel":                  "",
		"Ingest this channel.":                 "",
		"ingest channel since 2024-02-29":      "2024-02-29",
		"ingest this channel since 2024-13-01": "-",
		"please ingest this channel":           "-",
		"what does ingest this channel do?":    "-",
	}
	for text, want := range cases {
		since, ok := ingestCommand(text)
		switch {
		case want == "-" && ok:
			t.Errorf("%q is not the command", text)
		case want != "-" && !ok:
			t.Errorf("%q is the command", text)
		case want != "-" && want != "" && since.Format("2006-01-02") != want:
			t.Errorf("%q: since %v", text, since)
		}
	}
}

func TestParseChannelEvent(t *testing.T) {
	fake := slacktest.NewServer()
	defer fake.Close()
	fake.AddChannel("C1", "general", false)
	fake.AddChannel("G1", "board", true)
	me := identity{UserID: fake.BotUserID, TeamID: fake.TeamID}
	at := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	root := fake.PostAt("C1", "U1", "hello", at)
	reply := fake.ReplyAt("C1", root, "U2", "hi", at.Add(time.Second))
	private := fake.PostAt("G1", "U1", "secret", at)

	c, ok := parseChannelEvent(fake.EventCallback("", fake.ChannelMessageEvent("C1", reply)), me)
	if !ok || c.Channel != "C1" || c.Message != reply || c.Thread != root || c.Workspace != fake.TeamID || !c.Time.Equal(at.Add(time.Second)) {
		t.Errorf("new reply: %+v %v", c, ok)
	}
	fake.Edit("C1", root, "hello again")
	if c, ok := parseChannelEvent(fake.EventCallback("", fake.ChangedEvent("C1", root)), me); !ok || c.Message != root || c.Deleted {
		t.Errorf("edit: %+v %v", c, ok)
	}
	if c, ok := parseChannelEvent(fake.EventCallback("", fake.DeletedEvent("C1", reply, root)), me); !ok || c.Message != reply || c.Thread != root || !c.Deleted {
		t.Errorf("delete: %+v %v", c, ok)
	}
	if c, ok := parseChannelEvent(fake.EventCallback("", fake.ChannelMessageEvent("G1", private)), me); !ok || c.Channel != "G1" {
		t.Errorf("private channel: %+v %v", c, ok)
	}
	// Not changes of channel content: mentions, direct messages, joins,
	// and the bot's own answers being edited.
	for name, ev := range map[string]any{
		"mention": fake.Mention("C1", "U1", "hi"),
		"im":      fake.DirectMessage("D1", "U1", "hi"),
		"join":    map[string]any{"type": "message", "subtype": "channel_join", "channel": "C1", "channel_type": "channel", "ts": "1.2", "user": "U3"},
		"own edit": map[string]any{"type": "message", "subtype": "message_changed", "channel": "C1", "channel_type": "channel",
			"message": map[string]any{"ts": "1.2", "user": fake.BotUserID, "bot_id": fake.BotID}},
		"own post": map[string]any{"type": "message", "channel": "C1", "channel_type": "channel", "ts": "1.3", "user": fake.BotUserID},
	} {
		if c, ok := parseChannelEvent(fake.EventCallback("", ev), me); ok {
			t.Errorf("%s: taken as a change: %+v", name, c)
		}
	}
	if _, ok := parseChannelEvent([]byte(`{"type":"event_callback","event":"not an object"}`), me); ok {
		t.Error("garbage taken as a change")
	}
}
