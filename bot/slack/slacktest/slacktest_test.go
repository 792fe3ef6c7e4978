package slacktest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/slack-go/slack"
)

// The fake answers slack-go as Slack would.
func TestWebAPI(t *testing.T) {
	s := NewServer()
	defer s.Close()
	ctx := context.Background()
	api := slack.New(s.BotToken, slack.OptionAPIURL(s.APIURL()))
	section := func(n int) slack.Block {
		return slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, strings.Repeat("x", n), false, false), nil, nil)
	}

	res, err := api.AuthTestContext(ctx)
	if err != nil || res.UserID != s.BotUserID || res.TeamID != s.TeamID {
		t.Fatalf("auth.test: %+v, %v", res, err)
	}
	_, ts1, err := api.PostMessageContext(ctx, "C1", slack.MsgOptionText("hi", false), slack.MsgOptionTS("1.1"))
	if err != nil {
		t.Fatal(err)
	}
	_, ts2, _ := api.PostMessageContext(ctx, "C1", slack.MsgOptionBlocks(section(3000)), slack.MsgOptionTS("1.1"))
	if ts1 == "" || ts1 >= ts2 {
		t.Errorf("timestamps %q, %q are not unique and increasing", ts1, ts2)
	}
	if _, _, _, err := api.UpdateMessageContext(ctx, "C1", ts1, slack.MsgOptionText("edited", false)); err != nil {
		t.Fatal(err)
	}
	msgs := s.Messages("C1", "1.1")
	if len(msgs) != 2 || msgs[0].Text != "edited" || len(msgs[0].Versions) != 2 {
		t.Errorf("recorded %+v", msgs)
	}

	blocks := make([]slack.Block, 51)
	for i := range blocks {
		blocks[i] = section(1)
	}
	errs := []struct {
		name string
		call func() error
		want string
	}{
		{"long text", func() error {
			_, _, err := api.PostMessageContext(ctx, "C1", slack.MsgOptionText(strings.Repeat("x", MaxTextChars+1), false))
			return err
		}, "msg_too_long"},
		{"long section", func() error {
			_, _, err := api.PostMessageContext(ctx, "C1", slack.MsgOptionBlocks(section(3001)))
			return err
		}, "invalid_blocks"},
		{"too many blocks", func() error {
			_, _, err := api.PostMessageContext(ctx, "C1", slack.MsgOptionBlocks(blocks...))
			return err
		}, "invalid_blocks"},
		{"unknown message", func() error {
			_, _, _, err := api.UpdateMessageContext(ctx, "C1", "9.9", slack.MsgOptionText("x", false))
			return err
		}, "message_not_found"},
		{"wrong token", func() error {
			_, err := slack.New("xoxb-wrong", slack.OptionAPIURL(s.APIURL())).AuthTestContext(ctx)
			return err
		}, "invalid_auth"},
		{"bot token for socket mode", func() error {
			_, _, err := slack.New(s.BotToken, slack.OptionAPIURL(s.APIURL()), slack.OptionAppLevelToken(s.BotToken)).StartSocketModeContext(ctx)
			return err
		}, "not_allowed_token_type"},
	}
	for _, e := range errs {
		if err := e.call(); err == nil || !strings.Contains(err.Error(), e.want) {
			t.Errorf("%s: got %v, want %s", e.name, err, e.want)
		}
	}

	s.RateLimit("chat.postEphemeral", 1, 7)
	_, err = api.PostEphemeralContext(ctx, "C1", "U1", slack.MsgOptionText("x", false))
	var rl *slack.RateLimitedError
	if !errors.As(err, &rl) || rl.RetryAfter.Seconds() != 7 {
		t.Errorf("rate limited call: %v", err)
	}
	if _, err := api.PostEphemeralContext(ctx, "C1", "U1", slack.MsgOptionText("x", false), slack.MsgOptionTS("1.1")); err != nil {
		t.Errorf("the call after the limit: %v", err)
	}
	if e := s.Ephemerals("U1"); len(e) != 1 || e[0].ThreadTS != "1.1" {
		t.Errorf("ephemerals %+v", e)
	}
	if n := s.Calls("chat.postEphemeral"); n != 2 {
		t.Errorf("%d calls recorded, want 2", n)
	}
}

// Faults are served in order, per method and for any method, before or
// after the call is done; Heal ends them.
func TestFaults(t *testing.T) {
	s := NewServer()
	defer s.Close()
	ctx := context.Background()
	api := slack.New(s.BotToken, slack.OptionAPIURL(s.APIURL()))
	post := func() error {
		_, _, err := api.PostMessageContext(ctx, "C1", slack.MsgOptionText("hi", false), slack.MsgOptionTS("1.1"))
		return err
	}

	s.Fail("chat.postMessage", 1, ServerError(502))
	s.Fail("chat.postMessage", 1, SlackError("internal_error"))
	s.Fail("chat.postMessage", 1, Dropped)
	s.Fail("chat.postMessage", 1, RateLimited(4))
	want := []string{"502 Bad Gateway", "internal_error", "EOF", "retry after 4s"}
	for _, w := range want {
		if err := post(); err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("got %v, want %s", err, w)
		}
	}
	var sc slack.StatusCodeError
	s.Fail("chat.postMessage", 1, ServerError(503))
	if err := post(); !errors.As(err, &sc) || sc.Code != 503 {
		t.Errorf("503: %v", err)
	}
	if n := len(s.Messages("C1", "1.1")); n != 0 || s.Pending("chat.postMessage") != 0 {
		t.Fatalf("%d messages posted by failed calls, %d faults left", n, s.Pending("chat.postMessage"))
	}

	// After doing it: the post is made, the caller hears a 500.
	s.Fail("chat.postMessage", 1, ServerError(500).AfterDoing())
	if err := post(); err == nil {
		t.Error("no error")
	}
	if n := len(s.Messages("C1", "1.1")); n != 1 {
		t.Errorf("%d messages after a fault after doing it, want 1", n)
	}
	// The bot's own replies are in conversations.replies, and go with
	// chat.delete.
	msgs, _, _, err := api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{ChannelID: "C1", Timestamp: "1.1"})
	if err != nil || len(msgs) != 1 || msgs[0].User != s.BotUserID {
		t.Errorf("replies %+v, %v", msgs, err)
	}
	if _, _, err := api.DeleteMessageContext(ctx, "C1", msgs[0].Timestamp); err != nil {
		t.Fatal(err)
	}
	if n := len(s.Messages("C1", "1.1")); n != 0 || !s.AllMessages()[0].Deleted {
		t.Errorf("%d messages after chat.delete", n)
	}

	// Any method, until healed.
	s.Fail(AnyMethod, -1, SlackError("service_unavailable"))
	if _, err := api.AuthTestContext(ctx); err == nil || s.Pending(AnyMethod) != -1 {
		t.Errorf("auth.test while every method fails: %v", err)
	}
	s.Heal(AnyMethod)
	if err := post(); err != nil {
		t.Errorf("after Heal: %v", err)
	}
}
