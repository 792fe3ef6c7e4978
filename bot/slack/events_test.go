package slack

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/bot/viewtest"
)

var me = identity{UserID: "UBOT", TeamID: "T1"}

func callback(event string) []byte {
	return []byte(`{"type":"event_callback","team_id":"T1","event_id":"Ev1","event":` + event + `}`)
}

func TestParseEvent(t *testing.T) {
	cases := []struct {
		name  string
		event string
		want  *bot.Incoming // nil: not a question
	}{
		{"top-level mention starts a thread",
			`{"type":"app_mention","user":"U1","text":"<@UBOT> what is our refund policy?","ts":"1.1","channel":"C1"}`,
			&bot.Incoming{Platform: "slack", EventID: "Ev1", Workspace: "T1", Channel: "C1", Thread: "1.1", MessageID: "1.1", Sent: time.Unix(1, 100000000).UTC(), User: "U1", Text: "what is our refund policy?"}},
		{"mention in a thread continues it",
			`{"type":"app_mention","user":"U1","text":"and for EU? <@UBOT|switchboard>","ts":"1.5","thread_ts":"1.1","channel":"C1"}`,
			&bot.Incoming{Platform: "slack", EventID: "Ev1", Workspace: "T1", Channel: "C1", Thread: "1.1", MessageID: "1.5", Sent: time.Unix(1, 500000000).UTC(), User: "U1", Text: "and for EU?"}},
		{"direct message",
			`{"type":"message","channel_type":"im","user":"U1","text":"refunds &amp; returns in &lt;EU&gt;?","ts":"2.1","channel":"D1"}`,
			&bot.Incoming{Platform: "slack", EventID: "Ev1", Workspace: "T1", Channel: "D1", Thread: "2.1", MessageID: "2.1", Sent: time.Unix(2, 100000000).UTC(), User: "U1", Text: "refunds & returns in <EU>?"}},
		{"links, channels and other people",
			`{"type":"app_mention","user":"U1","text":"<@UBOT> does <@U2> own <https://x.test/a|the wiki> or <#C9|general> <mailto:a@b.c|a@b.c>?","ts":"3.1","channel":"C1"}`,
			&bot.Incoming{Platform: "slack", EventID: "Ev1", Workspace: "T1", Channel: "C1", Thread: "3.1", MessageID: "3.1", Sent: time.Unix(3, 100000000).UTC(), User: "U1", Text: "does <@U2> own the wiki or #general a@b.c?"}},
		{"channel message without mention", `{"type":"message","channel_type":"channel","user":"U1","text":"hi","ts":"1.1","channel":"C1"}`, nil},
		{"edit", `{"type":"message","subtype":"message_changed","channel_type":"im","channel":"D1","ts":"1.2","message":{"user":"U1","text":"x"}}`, nil},
		{"bot", `{"type":"message","subtype":"bot_message","bot_id":"B2","channel_type":"im","text":"x","ts":"1.1","channel":"D1"}`, nil},
		{"bot without subtype", `{"type":"app_mention","bot_id":"B2","user":"U7","text":"<@UBOT> x","ts":"1.1","channel":"C1"}`, nil},
		{"itself", `{"type":"message","channel_type":"im","user":"UBOT","text":"x","ts":"1.1","channel":"D1"}`, nil},
		{"no user", `{"type":"app_mention","text":"<@UBOT> x","ts":"1.1","channel":"C1"}`, nil},
		{"other event", `{"type":"reaction_added","user":"U1","ts":"1.1"}`, nil},
		{"event of the wrong shape", `{"type":"app_mention","user":{"id":"U1"},"ts":1}`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, ok, _ := parseEvent(callback(c.event), me)
			if c.want == nil {
				if ok {
					t.Errorf("got a question %+v, want none", in)
				}
				return
			}
			if !ok || !reflect.DeepEqual(in, *c.want) {
				t.Errorf("got %+v (ok %v)\nwant %+v", in, ok, *c.want)
			}
		})
	}
	if _, ok, err := parseEvent([]byte(`{"type":"url_verification","challenge":"x"}`), me); ok || err != nil {
		t.Errorf("url_verification parsed as a question (ok %v, err %v)", ok, err)
	}
}

func TestParseInteraction(t *testing.T) {
	payload := `{"type":"block_actions","user":{"id":"U1"},"container":{"type":"message","channel_id":"C1","message_ts":"1.2","thread_ts":"1.1"},` +
		`"channel":{"id":"C1"},"actions":[{"action_id":"feedback_down","block_id":"feedback","value":"ans1","type":"button"}]}`
	v, ok, err := parseInteraction([]byte(payload))
	if err != nil || !ok {
		t.Fatalf("ok %v, err %v", ok, err)
	}
	if want := (press{AnswerID: "ans1", User: "U1", Value: -1, Channel: "C1", Thread: "1.1", Message: "1.2"}); v != want {
		t.Errorf("got %+v, want %+v", v, want)
	}
	// The native feedback_buttons carry the vote in their value; the
	// share button the answer id.
	for _, c := range []struct {
		action string
		want   press
	}{
		{`{"action_id":"feedback","block_id":"x","type":"feedback_buttons","value":"up:ans2"}`, press{AnswerID: "ans2", User: "U1", Value: 1, Channel: "D1"}},
		{`{"action_id":"feedback","block_id":"x","type":"feedback_buttons","value":"down:ans2"}`, press{AnswerID: "ans2", User: "U1", Value: -1, Channel: "D1"}},
		{`{"action_id":"share_answer","block_id":"share","type":"button","value":"ans3"}`, press{AnswerID: "ans3", User: "U1", Share: true, Channel: "D1", ResponseURL: "https://hooks.slack.com/r"}},
		{`{"action_id":"ask_expert","block_id":"feedback","type":"button","value":"ans4"}`, press{AnswerID: "ans4", User: "U1", Expert: true, Channel: "D1"}},
		{`{"action_id":"ask_expert","block_id":"expert","type":"button","value":"voted:ans4"}`, press{AnswerID: "ans4", User: "U1", Expert: true, Voted: true, Channel: "D1"}},
		{`{"action_id":"save_answer","block_id":"escalation","type":"button","value":"ans5"}`, press{AnswerID: "ans5", User: "U1", Save: true, Channel: "D1"}},
	} {
		p := `{"type":"block_actions","user":{"id":"U1"},"container":{"type":"message","channel_id":"D1","is_ephemeral":true},` +
			`"response_url":"https://hooks.slack.com/r","actions":[` + c.action + `]}`
		got, ok, err := parseInteraction([]byte(p))
		if c.want.ResponseURL == "" {
			got.ResponseURL = ""
		}
		if err != nil || !ok || got != c.want {
			t.Errorf("%s: got %+v (ok %v, err %v), want %+v", c.action, got, ok, err, c.want)
		}
	}
	for _, p := range []string{
		`{"type":"block_actions","user":{"id":"U1"},"actions":[{"action_id":"other","block_id":"b","value":"x"}]}`,
		`{"type":"view_submission","user":{"id":"U1"}}`,
		`{"type":"block_actions","actions":[{"action_id":"feedback_up","block_id":"feedback","value":"x"}]}`,
		`{"type":"block_actions","user":{"id":"U1"},"actions":[{"action_id":"feedback","type":"feedback_buttons","value":"sideways:x"}]}`,
		`{"type":"block_actions","user":{"id":"U1"},"actions":[{"action_id":"feedback","type":"feedback_buttons","value":"up:"}]}`,
		`{"type":"block_actions","user":{"id":"U1"},"actions":[{"action_id":"ask_expert","type":"button","value":"voted:"}]}`,
		`{"type":"message_action","callback_id":"other","user":{"id":"U1"},"channel":{"id":"C1"},"message":{"ts":"1.2","user":"U2","text":"x"}}`,
		`{"type":"message_action","callback_id":"save_answer","user":{"id":"U1"},"message":{"ts":"1.2"}}`,
	} {
		if _, ok, _ := parseInteraction([]byte(p)); ok {
			t.Errorf("%s parsed as a press", p)
		}
	}
}

// The Save as answer shortcut, as Slack sends it (message_action), names
// the reply it was used on, in its thread; a bot's message is nobody's.
func TestParseShortcut(t *testing.T) {
	fake := slacktest.NewServer()
	defer fake.Close()
	payload, _ := json.Marshal(fake.MessageAction("U1", "C1", "save_answer", slacktest.HistoryMessage{TS: "1.3", ThreadTS: "1.1", User: "U2", Text: "Level 2."}))
	got, ok, err := parseInteraction(payload)
	want := press{Shortcut: true, User: "U1", Team: fake.TeamID, Channel: "C1", Thread: "1.1", Message: "1.3",
		Reply: bot.Reply{ID: "1.3", Author: "U2", Text: "Level 2.", At: tsTime("1.3")}}
	got.ResponseURL = ""
	if err != nil || !ok || got != want {
		t.Errorf("got %+v (ok %v, err %v)\nwant %+v", got, ok, err, want)
	}
	payload, _ = json.Marshal(fake.MessageAction("U1", "C1", "save_answer", slacktest.HistoryMessage{TS: "1.3", ThreadTS: "1.1", BotID: "B1", Text: "x"}))
	if got, ok, _ := parseInteraction(payload); !ok || got.Reply.Author != "" {
		t.Errorf("a bot's message read as %+v", got)
	}
}

// The parsers read whatever arrives with a valid signature; they must
// never panic.
func FuzzParseEvent(f *testing.F) {
	f.Add(callback(`{"type":"app_mention","user":"U1","text":"<@UBOT> hi <https://x|y> &amp;","ts":"1.1","channel":"C1"}`))
	f.Add(callback(`{"type":"message","channel_type":"im","user":"U1","text":"<@","ts":"1.1","channel":"D1"}`))
	f.Add([]byte(`{"type":"event_callback","event":null}`))
	f.Add([]byte(`{"type":"event_callback","event":[1,2]}`))
	f.Add(callback(`{"type":"assistant_thread_started","assistant_thread":{"user_id":"U1","channel_id":"D1","thread_ts":"1.1","context":{"channel_id":"C1","team_id":"T1"}},"event_ts":"1.2"}`))
	f.Add(callback(`{"type":"assistant_thread_context_changed","assistant_thread":{"channel_id":"D1","context":7}}`))
	f.Add(callback(`{"type":"message","channel_type":"im","user":"U1","text":"hi","ts":"1.3","thread_ts":"1.1","channel":"D1","assistant_thread":{"action_token":"x"}}`))
	f.Fuzz(func(t *testing.T, payload []byte) {
		in, ok, _ := parseEvent(payload, me)
		if ok && (in.Channel == "" || in.Thread == "" || in.User == "") {
			t.Errorf("a question without channel, thread or asker: %+v", in)
		}
	})
}

func FuzzParseInteraction(f *testing.F) {
	b, _ := json.Marshal(map[string]any{"type": "block_actions", "user": map[string]any{"id": "U1"},
		"actions": []any{map[string]any{"action_id": "feedback_up", "block_id": "feedback", "value": "a"}}})
	f.Add(b)
	f.Add([]byte(`{"type":"block_actions","actions":[null]}`))
	f.Add([]byte(`{"type":"block_actions","state":{"values":7}}`))
	f.Add([]byte(`{"type":"block_actions","user":{"id":"U1"},"actions":[{"action_id":"ask_expert","value":"voted:a"}]}`))
	f.Add([]byte(`{"type":"message_action","callback_id":"save_answer","user":{"id":"U1"},"channel":{"id":"C1"},"team":{"id":"T"},` +
		`"message":{"type":"message","ts":"1.3","thread_ts":"1.1","user":"U2","text":"Level 2 <!channel>"},"response_url":"https://hooks.slack.com/x"}`))
	f.Add([]byte(`{"type":"message_action","callback_id":"save_answer","user":{"id":"U1"},"channel":{"id":"C1"},"message":[1]}`))
	f.Fuzz(func(t *testing.T, payload []byte) {
		v, ok, _ := parseInteraction(payload)
		kinds := 0
		for _, k := range []bool{v.Value != 0, v.Share, v.Expert, v.Save, v.Shortcut} {
			if k {
				kinds++
			}
		}
		if ok && ((v.AnswerID == "") != v.Shortcut || v.User == "" || kinds != 1 || (v.Value != 0 && v.Value != 1 && v.Value != -1)) {
			t.Errorf("a press without answer, presser or one meaning: %+v", v)
		}
		if ok && v.Shortcut && (v.Channel == "" || v.Reply.ID == "") {
			t.Errorf("a shortcut without its message: %+v", v)
		}
	})
}

// FuzzParseCommand reads slash commands, as a form (HTTP) and as JSON
// (Socket Mode): a command taken names its asker, channel and a URL to
// answer at.
func FuzzParseCommand(f *testing.F) {
	fake := slacktest.NewServer()
	form := fake.SlashCommand("C1", "U1", "/ask", "what is our refund policy? <@UBOT> &amp;")
	fake.Close()
	f.Add([]byte(form.Encode()))
	b, _ := json.Marshal(map[string]any{"command": "/ask", "text": "x", "user_id": "U1", "channel_id": "C1",
		"response_url": "https://hooks.slack.com/commands/T/1/x", "is_enterprise_install": false})
	f.Add(b)
	f.Add([]byte("response_url=javascript%3Aalert(1)&user_id=U&channel_id=C"))
	f.Add([]byte(`{"user_id":7}`))
	f.Fuzz(func(t *testing.T, payload []byte) {
		for _, parse := range []func([]byte) (command, error){parseCommandForm, parseCommandJSON} {
			c, err := parse(payload)
			if err == nil && (c.UserID == "" || c.ChannelID == "" || !strings.HasPrefix(c.ResponseURL, "http")) {
				t.Errorf("a command without asker, channel or response_url: %+v", c)
			}
			_ = question(c.Text, "UBOT")
		}
	})
}

// FuzzMrkdwn renders what a model or a document may write, as an answer
// and as its draft, with a source of any title and link: nothing may
// panic, and Slack shows no link but the bot's own (a citation [n] or a
// source's title, to the source) whose words are not where it goes.
func FuzzMrkdwn(f *testing.F) {
	f.Add("**bold** [x](https://y) `code` ```go\nfmt.Println(1 < 2)\n```", "Title", "https://a.example/t")
	f.Add("Open [Reset](<https://evil.example/r>) <https://evil.example/d|desk> [1]\n🟢 High confidence", "A | b <c>", "https://a.example/x|y")
	f.Add("<a href=\"https://evil.example\">x</a> [r][r] [1](https://a.example/t)\n\n[r]: https://evil.example", "t", "javascript:alert(1)")
	f.Fuzz(func(t *testing.T, md, title, url string) {
		_ = question(md, "UBOT")
		done := bot.View{Done: true, Final: viewtest.Final("", agent.Result{Answer: md, Route: agent.RouteVector, Confidence: agent.ConfidenceMedium,
			Sources: []agent.Source{{N: 1, Title: title, URL: url, Location: "docs/a.md"}, {N: 2, Title: "Web", Location: url, Route: agent.RouteWeb}}})}
		draft := bot.View{Progress: "Writing the answer…", Draft: bot.Draft(agent.Event{Kind: agent.EventDrafting, Text: md}, "")}
		sources := done.Final.Sources
		blocks, text := Blocks(draft)
		msgs := append(FinalMessages(done), blocks)
		_, fallback := Blocks(done)
		for _, s := range []string{text, fallback} {
			if links := slacktest.Links(s); len(links) > 0 {
				t.Errorf("the notification text %q links %+v", s, links)
			}
		}
		for _, m := range msgs {
			for _, b := range m {
				for _, l := range slacktest.Links(blockText(b)) {
					if l.Text != l.URL && !own(l, sources) {
						t.Errorf("links %q to %s:\n%s", l.Text, l.URL, blockText(b))
					}
				}
			}
		}
	})
}

// own reports whether l is a link the bot makes: to a source, reading its
// citation or its title.
func own(l slacktest.Link, sources []bot.SourceLine) bool {
	for _, s := range sources {
		if s.URL != "" && l.URL == s.URL && (l.Text == fmt.Sprintf("[%d]", s.N) || l.Text == strings.ReplaceAll(s.Title, "|", "¦")) {
			return true
		}
	}
	return false
}
