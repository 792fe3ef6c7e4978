package main

import (
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/bot/discord/discordtest"
	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/internal/testenv"
)

var day1 = time.Date(2024, 4, 2, 9, 30, 0, 0, time.UTC)

// slackEnv is the environment of a bot talking to the fake Slack.
func slackEnv(t *testing.T, fake *slacktest.Server, extra map[string]string) map[string]string {
	env := map[string]string{
		"SLACK_BOT_TOKEN": fake.BotToken, "SLACK_SIGNING_SECRET": fake.SigningSecret,
		"SLACK_API_URL": fake.APIURL(), "SWITCHBOARD_DATA_DIR": t.TempDir(), "EDIT_INTERVAL": "10ms",
		"RATE_LIMIT_USER_PER_MIN": "0", // the tests ask again and again
	}
	for k, v := range extra {
		env[k] = v
	}
	return env
}

// `switchboard ingest slack` reads a channel once, a second run adds nothing, and
// the graph then answers a relationship question about the conversation,
// citing the message that stated it.
func TestIngestSlackCommandAndGraphAnswer(t *testing.T) {
	fake := slacktest.NewServer()
	defer fake.Close()
	fake.AddChannel("C1", "suppliers", false)
	fake.AddUser("U1", "Alice")
	fake.AddUser("U2", "Bob")
	said := fake.PostAt("C1", "U1", "Good news: Acme Corp supplies Globex from next month.", day1)
	fake.ReplyAt("C1", said, "U2", "Great, I'll tell the team.", day1.Add(time.Minute))
	fake.PostAt("C1", "U2", "Lunch is at noon.", day1.Add(24*time.Hour))
	env := slackEnv(t, fake, nil)

	out, stderr, err := run(t, env, "ingest", "slack", "--channel", "C1")
	if err != nil {
		t.Fatalf("%v\n%s%s", err, out, stderr)
	}
	for _, want := range []string{"#suppliers: 3 messages (1 thread, 1 day", "2 entities, 1 relation"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	out, _, err = run(t, env, "ingest", "slack", "--channel", "C1")
	if err != nil || !strings.Contains(out, "0 added, 0 updated") {
		t.Errorf("second run: %v\n%s", err, out)
	}

	res := askJSON(t, env, "Who supplies Globex?")
	link := fake.Permalink("C1", said)
	cited := false
	for _, s := range res.Sources {
		cited = cited || s.Location == link || strings.Contains(s.Snippet, link)
	}
	if res.Route != "graph" || !strings.Contains(res.Answer, "Acme Corp") || !cited {
		t.Errorf("route %s, answer %q, sources %+v; want graph, Acme Corp, citing %s", res.Route, res.Answer, res.Sources, link)
	}
	// Usage errors.
	if _, _, err := run(t, env, "ingest", "slack", "--channel", "C1", "--since", "yesterday"); err == nil {
		t.Error("a bad --since was accepted")
	}
}

// The same on PostgreSQL and Neo4j.
func TestIngestSlackOnProductionStores(t *testing.T) {
	fake := slacktest.NewServer()
	defer fake.Close()
	fake.AddChannel("C1", "suppliers", false)
	fake.AddUser("U1", "Alice")
	said := fake.PostAt("C1", "U1", "Acme Corp supplies Globex.", day1)
	env := slackEnv(t, fake, map[string]string{"DATABASE_URL": testenv.PostgresURL(t), "NEO4J_URI": testenv.Neo4jURI(t)})
	if out, stderr, err := run(t, env, "ingest", "slack", "--channel", "C1"); err != nil || !strings.Contains(out, "1 relation") {
		t.Fatalf("%v\n%s%s", err, out, stderr)
	}
	res := askJSON(t, env, "Who supplies Globex?")
	link := fake.Permalink("C1", said)
	if res.Route != "graph" || !strings.Contains(res.Answer, "Acme Corp") || !strings.Contains(res.Sources[0].Location+res.Sources[0].Snippet, link) {
		t.Errorf("route %s, answer %q, sources %+v", res.Route, res.Answer, res.Sources)
	}
}

// proxyTo is a handler that sends requests to the bot serving at addr,
// over TCP.
func proxyTo(addr string) http.Handler {
	target, _ := url.Parse("http://" + addr)
	return httputil.NewSingleHostReverseProxy(target)
}

// answerIn asks the bot in a channel (through the Events API, as Slack
// would) and returns the final answer's text.
func answerIn(t *testing.T, fake *slacktest.Server, addr, channel, question string) string {
	t.Helper()
	ev := fake.Mention(channel, "U1", question)
	if resp := fake.PostEvent(proxyTo(addr), "", ev, nil); resp.StatusCode != 200 {
		t.Fatalf("event status %d", resp.StatusCode)
	}
	var final string
	slacktest.Wait(t, 30*time.Second, "the answer to "+question, func() bool {
		msgs := fake.Messages(channel, ev.TS)
		if len(msgs) == 0 {
			return false
		}
		final = msgs[0].Content()
		return strings.Contains(final, "answered offline")
	})
	return final
}

// Answers in a channel use public documents of the workspace and the
// private ones of that channel only: a private channel's content never
// appears in another channel's answer.
func TestPrivateChannelContentStaysInItsChannel(t *testing.T) {
	fake := slacktest.NewServer()
	defer fake.Close()
	fake.AddChannel("CPRIV", "board", true)
	fake.AddChannel("CPUB", "general", false)
	fake.AddChannel("COTHER", "random", false)
	fake.AddUser("U1", "Alice")
	fake.PostAt("CPRIV", "U1", "The bonus pool for the quarter is 42 percent of profit.", day1)
	fake.PostAt("CPUB", "U1", "The cafeteria opens at 8 every weekday.", day1)
	env := slackEnv(t, fake, map[string]string{"SWITCHBOARD_DEMO": "false"})
	for _, ch := range []string{"CPRIV", "CPUB"} {
		if out, stderr, err := run(t, env, "ingest", "slack", "--channel", ch); err != nil {
			t.Fatalf("%v\n%s%s", err, out, stderr)
		}
	}
	addr := startServe(t, env)

	if got := answerIn(t, fake, addr, "COTHER", "What is the bonus pool for the quarter?"); strings.Contains(got, "42 percent") {
		t.Errorf("the private channel's content leaked into another channel's answer:\n%s", got)
	}
	if got := answerIn(t, fake, addr, "CPUB", "What is the bonus pool for the quarter?"); strings.Contains(got, "42 percent") {
		t.Errorf("the private channel's content leaked into a public channel's answer:\n%s", got)
	}
	if got := answerIn(t, fake, addr, "CPRIV", "What is the bonus pool for the quarter?"); !strings.Contains(got, "42 percent") {
		t.Errorf("the private channel's own answer lacks its content:\n%s", got)
	}
	if got := answerIn(t, fake, addr, "COTHER", "When does the cafeteria open?"); !strings.Contains(got, "opens at 8") {
		t.Errorf("a public channel's content is not used in another channel:\n%s", got)
	}
}

// An ingest admin ingests a channel from Slack; others are refused. Then
// new, edited and deleted messages of that channel reach the answers.
func TestIngestFromSlackAndLiveUpdates(t *testing.T) {
	fake := slacktest.NewServer()
	defer fake.Close()
	fake.AddChannel("C1", "launch", false)
	fake.AddUser("U1", "Alice")
	fake.AddUser("UADMIN", "Admin")
	fake.PostAt("C1", "U1", "Kickoff notes are in the wiki.", day1)
	env := slackEnv(t, fake, map[string]string{"INGEST_ADMINS": "slack:UADMIN, discord:999", "SWITCHBOARD_DEMO": "false"})
	addr := startServe(t, env)
	proxy := proxyTo(addr)

	// Someone who is not an admin is told so, privately.
	ev := fake.Mention("C1", "U1", "ingest this channel")
	fake.PostEvent(proxy, "", ev, nil)
	slacktest.Wait(t, 30*time.Second, "the refusal", func() bool {
		es := fake.Ephemerals("U1")
		return len(es) > 0 && strings.Contains(es[len(es)-1].Text, "only ingest admins")
	})

	// An admin's command is answered in its thread with the summary.
	ev = fake.Mention("C1", "UADMIN", "ingest this channel")
	ev.User = "UADMIN"
	fake.PostEvent(proxy, "", ev, nil)
	var status string
	slacktest.Wait(t, 30*time.Second, "the ingest summary", func() bool {
		msgs := fake.Messages("C1", ev.TS)
		if len(msgs) == 0 {
			return false
		}
		status = msgs[0].Content()
		return strings.Contains(status, "Ingested")
	})
	for _, want := range []string{"#launch: 1 message", "1 added", "chunk", "entities", "relations"} {
		if !strings.Contains(status, want) {
			t.Errorf("summary lacks %q:\n%s", want, status)
		}
	}

	// A new message is found by the next answer…
	ts := fake.PostAt("C1", "U1", "The launch date moved to Friday the 12th.", day1.Add(time.Hour))
	fake.PostEvent(proxy, "", fake.ChannelMessageEvent("C1", ts), nil)
	waitAnswer(t, fake, addr, "C1", "When is the launch date?", "Friday the 12th", true)
	// …an edit replaces it…
	fake.Edit("C1", ts, "The launch date moved to Monday the 15th.")
	fake.PostEvent(proxy, "", fake.ChangedEvent("C1", ts), nil)
	waitAnswer(t, fake, addr, "C1", "When is the launch date?", "Monday the 15th", true)
	// …and a deletion removes it.
	fake.Delete("C1", ts)
	fake.PostEvent(proxy, "", fake.DeletedEvent("C1", ts, ""), nil)
	waitAnswer(t, fake, addr, "C1", "When is the launch date?", "Monday the 15th", false)
}

// waitAnswer asks until the answer does (or, with want false, does not)
// contain text: the event that changes it is applied asynchronously.
func waitAnswer(t *testing.T, fake *slacktest.Server, addr, channel, question, text string, want bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := answerIn(t, fake, addr, channel, question)
		if strings.Contains(got, text) == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("answer to %q: contains %q = %v, want %v:\n%s", question, text, !want, want, got)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// /ingest in Discord: refused to others, run for admins, with the summary
// in the channel.
func TestIngestFromDiscord(t *testing.T) {
	fake := discordtest.New(t)
	fake.AddChannel("G1", "C1", "general", false)
	fake.PostAt("C1", discordtest.User{ID: "7", Username: "alice"}, "Acme Corp supplies Globex.", day1)
	addr := startServe(t, map[string]string{
		"DISCORD_MODE": "http", "DISCORD_APP_ID": fake.AppID, "DISCORD_PUBLIC_KEY": fake.PublicKey(),
		"DISCORD_BOT_TOKEN": fake.Token, "DISCORD_GUILD_ID": "G1", "DISCORD_API_URL": fake.APIURL,
		"EDIT_INTERVAL": "10ms", "INGEST_ADMINS": "discord:42",
	})
	endpoint := "http://" + addr + "/discord/interactions"

	ia := fake.Ingest("G1", "C1", "7", "")
	if _, err := fake.Deliver(endpoint, ia); err != nil {
		t.Fatal(err)
	}
	if cbs := fake.Callbacks(ia.Token); len(cbs) != 1 || !cbs[0].Ephemeral() || !strings.Contains(cbs[0].Content, "only ingest admins") {
		t.Errorf("non-admin: %+v", cbs)
	}

	ia = fake.Ingest("G1", "C1", "42", "2024-01-01")
	if _, err := fake.Deliver(endpoint, ia); err != nil {
		t.Fatal(err)
	}
	fake.Wait(t, "the ingest summary", func() bool {
		for _, m := range fake.BotMessages("C1") {
			if strings.Contains(m.Content, "Ingested #general: 1 message") && strings.Contains(m.Content, "1 relation") {
				return true
			}
		}
		return false
	})
}

// In gateway mode, Discord's MESSAGE_UPDATE and MESSAGE_DELETE of an
// ingested channel reach the answers.
func TestDiscordLiveUpdates(t *testing.T) {
	fake := discordtest.New(t)
	fake.AddChannel("G1", "C1", "general", false)
	alice := discordtest.User{ID: "7", Username: "alice"}
	m := fake.PostAt("C1", alice, "The offsite date moved to Friday the 12th.", day1)
	env := map[string]string{
		"DISCORD_MODE": "gateway", "DISCORD_APP_ID": fake.AppID, "DISCORD_BOT_TOKEN": fake.Token,
		"DISCORD_GUILD_ID": "G1", "DISCORD_API_URL": fake.APIURL, "EDIT_INTERVAL": "10ms",
		"SWITCHBOARD_DATA_DIR": t.TempDir(), "SWITCHBOARD_DEMO": "false", "RATE_LIMIT_USER_PER_MIN": "0",
	}
	if out, stderr, err := run(t, env, "ingest", "discord", "--channel", "C1"); err != nil {
		t.Fatalf("%v\n%s%s", err, out, stderr)
	}
	startServe(t, env)
	fake.WaitConnected(t)

	ask := func(want string, present bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			ia := fake.Ask("G1", "C1", "7", "When is the offsite date?")
			fake.SendInteraction(t, ia)
			var final string
			fake.Wait(t, "the answer", func() bool {
				m, ok := fake.Original(ia.Token)
				final = m.Text()
				return ok && strings.Contains(final, "answered offline")
			})
			if strings.Contains(final, want) == present {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("answer contains %q = %v, want %v:\n%s", want, !present, present, final)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	ask("Friday the 12th", true)
	fake.SendUpdate(t, fake.EditAt("C1", m.ID, "The offsite date moved to Monday the 15th.", day1.Add(time.Hour)))
	ask("Monday the 15th", true)
	fake.DeleteMessage("C1", m.ID)
	fake.SendDelete(t, "G1", "C1", m.ID)
	ask("Monday the 15th", false)
}

// A member of an ingested channel plants a link whose words hide where it
// goes; the whole program (ingest, then serve and the offline engine)
// answers with it, and the answer shows the link's host, in Slack and in
// Discord, with no link to it.
func TestPlantedLinkFromAnIngestedChannel(t *testing.T) {
	const question = "How do I reset my password?"
	evil := func(t *testing.T, links map[string]string) {
		t.Helper()
		for text, url := range links {
			if strings.Contains(url, "evil.example") && text != url {
				t.Errorf("the answer links %q to %s", text, url)
			}
		}
	}
	t.Run("slack", func(t *testing.T) {
		fake := slacktest.NewServer()
		defer fake.Close()
		fake.AddChannel("C1", "it-help", false)
		fake.AddUser("U1", "Mallory")
		// Slack keeps what was typed, with the URL in its own markup.
		fake.PostAt("C1", "U1", "To reset your password, open [Reset password](<https://evil.example/reset>) and sign in again.", day1)
		env := slackEnv(t, fake, map[string]string{"SWITCHBOARD_DEMO": "false"})
		if out, stderr, err := run(t, env, "ingest", "slack", "--channel", "C1"); err != nil {
			t.Fatalf("%v\n%s%s", err, out, stderr)
		}
		got := answerIn(t, fake, startServe(t, env), "C1", question)
		if !strings.Contains(got, "Reset password (evil.example)") {
			t.Errorf("the answer does not show the link's host:\n%s", got)
		}
		links := map[string]string{}
		for _, l := range slacktest.Links(got) {
			links[l.Text] = l.URL
		}
		evil(t, links)
	})
	t.Run("discord", func(t *testing.T) {
		fake := discordtest.New(t)
		fake.AddChannel("G1", "C1", "it-help", false)
		fake.PostAt("C1", discordtest.User{ID: "7", Username: "mallory"}, "To reset your password, open [Reset password](https://evil.example/reset) and sign in again.", day1)
		env := map[string]string{
			"DISCORD_MODE": "http", "DISCORD_APP_ID": fake.AppID, "DISCORD_PUBLIC_KEY": fake.PublicKey(),
			"DISCORD_BOT_TOKEN": fake.Token, "DISCORD_GUILD_ID": "G1", "DISCORD_API_URL": fake.APIURL,
			"EDIT_INTERVAL": "10ms", "SWITCHBOARD_DATA_DIR": t.TempDir(), "SWITCHBOARD_DEMO": "false",
		}
		if out, stderr, err := run(t, env, "ingest", "discord", "--channel", "C1"); err != nil {
			t.Fatalf("%v\n%s%s", err, out, stderr)
		}
		ia := fake.Ask("G1", "C1", "8", question)
		if _, err := fake.Deliver("http://"+startServe(t, env)+"/discord/interactions", ia); err != nil {
			t.Fatal(err)
		}
		var final discordtest.Message
		fake.Wait(t, "the answer", func() bool {
			m, ok := fake.Original(ia.Token)
			final = m
			return ok && strings.Contains(m.Text(), "answered offline")
		})
		if got := final.Text(); !strings.Contains(got, "Reset password (evil.example)") {
			t.Errorf("the answer does not show the link's host:\n%s", got)
		}
		links := map[string]string{}
		for _, e := range final.Embeds {
			for _, s := range append([]string{e.Description}, fieldValues(e)...) {
				for _, l := range discordtest.Links(s) {
					links[l.Text] = l.URL
				}
			}
		}
		evil(t, links)
	})
}

func fieldValues(e discordtest.Embed) []string {
	var out []string
	for _, f := range e.Fields {
		out = append(out, f.Value)
	}
	return out
}
