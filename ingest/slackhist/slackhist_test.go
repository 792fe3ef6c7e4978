package slackhist

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/ingest/chat"
)

// Messages are translated as people read them: names for mentions,
// labels and URLs for links, the bot's own messages and questions to it
// left out, permalinks as Slack makes them.
func TestMessages(t *testing.T) {
	fake, s := fakeSlack(t, "general")
	fake.AddUser("U2", "Bob")
	at := time.Date(2024, 2, 3, 10, 0, 0, 0, time.UTC)
	fake.PostAt("C1", "U1", "ask <@U2> about <https://example.com/doc|the doc> in <#C9|random> &amp; <mailto:a@b.c>", at)
	fake.PostBotAt("C1", fake.BotID, "an answer of the bot", at.Add(time.Second))
	fake.PostAt("C1", "U2", "<@"+fake.BotUserID+"> what is our refund policy?", at.Add(2*time.Second))
	reply := fake.ReplyAt("C1", fake.PostAt("C1", "U2", "a thread", at.Add(3*time.Second)), "U1", "a reply", at.Add(4*time.Second))

	ctx := context.Background()
	ch, err := s.Channel(ctx, "C1")
	if err != nil || ch.Name != "general" || ch.Workspace != fake.TeamID || ch.Private {
		t.Fatalf("%+v %v", ch, err)
	}
	var msgs []chat.Message
	if err := s.History(ctx, ch, time.Time{}, time.Time{}, func(p []chat.Message) error { msgs = append(msgs, p...); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 {
		t.Fatalf("%d messages: %+v", len(msgs), msgs)
	}
	first := msgs[1] // newest first
	if first.Author != "Alice" || first.Text != "ask @Bob about the doc (https://example.com/doc) in #random & a@b.c" {
		t.Errorf("%q by %q", first.Text, first.Author)
	}
	if first.Permalink != fake.Permalink("C1", first.ID) {
		t.Errorf("permalink %s, Slack's %s", first.Permalink, fake.Permalink("C1", first.ID))
	}
	_, rs, err := s.Replies(ctx, ch, msgs[0].ID)
	if err != nil || len(rs) != 2 || rs[1].ID != reply || rs[1].Permalink != fake.Permalink("C1", reply) {
		t.Errorf("replies %+v %v", rs, err)
	}
	if got := s.Link(ctx, ch, msgs[0].ID, reply); got != fake.Permalink("C1", reply) {
		t.Errorf("link %s", got)
	}
	if _, _, err := s.Replies(ctx, ch, "1.000001"); err != chat.ErrNotFound {
		t.Errorf("a missing thread: %v", err)
	}
}

// fakeSlack starts a fake Slack with a public channel C1 of that name and
// Alice (U1) in it, and returns it with a Source that reads it.
func fakeSlack(t *testing.T, channel string) (*slacktest.Server, *Source) {
	t.Helper()
	fake := slacktest.NewServer()
	t.Cleanup(fake.Close)
	fake.AddChannel("C1", channel, false)
	fake.AddUser("U1", "Alice")
	s, err := New(Config{BotToken: fake.BotToken, APIURL: fake.APIURL()})
	if err != nil {
		t.Fatal(err)
	}
	return fake, s
}
