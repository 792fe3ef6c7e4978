package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot/discord/discordtest"
	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/sqlite"
)

// startServe runs `switchboard serve` with env until the test ends and returns the
// address it listens on.
func startServe(t *testing.T, env map[string]string) string {
	t.Helper()
	env["HTTP_ADDR"] = "127.0.0.1:0"
	if _, ok := env["SWITCHBOARD_DATA_DIR"]; !ok {
		env["SWITCHBOARD_DATA_DIR"] = t.TempDir()
	}
	addr := make(chan string, 1)
	var logs bytes.Buffer
	m := &Main{Stdin: strings.NewReader(""), Stdout: &logs, Stderr: &logs, Getenv: func(k string) string { return env[k] },
		listening: func(a string) { addr <- a }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx, []string{"serve"}) }()
	t.Cleanup(func() {
		cancel() // as SIGTERM does
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve returned %v\n%s", err, logs.String())
			}
		case <-time.After(60 * time.Second):
			t.Error("serve did not stop after SIGTERM")
		}
	})
	select {
	case a := <-addr:
		return a
	case err := <-done:
		t.Fatalf("serve stopped: %v\n%s", err, logs.String())
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not start listening")
	}
	return ""
}

func TestServeSlackEventsAPI(t *testing.T) {
	fake := slacktest.NewServer()
	defer fake.Close()
	addr := startServe(t, map[string]string{
		"SLACK_BOT_TOKEN": fake.BotToken, "SLACK_SIGNING_SECRET": fake.SigningSecret,
		"SLACK_API_URL": fake.APIURL(), "EDIT_INTERVAL": "10ms",
		"SWITCHBOARD_DEMO": "true", // serve answers from the demo only when asked to
	})
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %v %v", path, resp, err)
		}
		resp.Body.Close()
	}
	target, _ := url.Parse("http://" + addr)
	proxy := httputil.NewSingleHostReverseProxy(target) // the real server, over TCP

	ev := fake.Mention("C1", "U1", "What is our refund policy?")
	if resp := fake.PostEvent(proxy, "", ev, nil); resp.StatusCode != 200 {
		t.Fatalf("event status %d", resp.StatusCode)
	}
	var final string
	slacktest.Wait(t, 30*time.Second, "the answer in the thread", func() bool {
		msgs := fake.Messages("C1", ev.TS)
		if len(msgs) == 0 {
			return false
		}
		final = msgs[0].Content()
		return strings.Contains(final, "answered offline")
	})
	for _, want := range []string{"30 days", "refund-policy.md", "company documents"} {
		if !strings.Contains(final, want) {
			t.Errorf("final message lacks %q:\n%s", want, final)
		}
	}
	// A forged request is refused.
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/slack/events", strings.NewReader(`{"type":"event_callback"}`))
	req.Header.Set("X-Slack-Request-Timestamp", "1")
	req.Header.Set("X-Slack-Signature", "v0=00")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("forged request: %v %v", resp, err)
	}
}

func TestServeNeedsAnAdapter(t *testing.T) {
	_, _, err := run(t, map[string]string{}, "serve")
	if err == nil || !strings.Contains(err.Error(), "SLACK_BOT_TOKEN") {
		t.Errorf("err = %v", err)
	}
}

func TestServeDiscordInteractions(t *testing.T) {
	fake := discordtest.New(t)
	addr := startServe(t, map[string]string{
		"DISCORD_MODE": "http", "DISCORD_APP_ID": fake.AppID, "DISCORD_PUBLIC_KEY": fake.PublicKey(),
		"DISCORD_BOT_TOKEN": fake.Token, "DISCORD_GUILD_ID": "G1", "DISCORD_API_URL": fake.APIURL, "EDIT_INTERVAL": "10ms",
		"SWITCHBOARD_DEMO": "true", // serve answers from the demo only when asked to
	})
	if cmds := fake.Commands("G1"); len(cmds) != 2 || cmds[0].Name != "ask" || cmds[1].Name != "ingest" {
		t.Fatalf("/ask and /ingest not registered: %+v", cmds)
	}
	ia := fake.Ask("G1", "C1", "U1", "Which suppliers are connected to our top 3 customers?")
	if _, err := fake.Deliver("http://"+addr+"/discord/interactions", ia); err != nil {
		t.Fatal(err)
	}
	var final string
	fake.Wait(t, "the answer", func() bool {
		m, ok := fake.Original(ia.Token)
		if !ok {
			return false
		}
		b, _ := json.Marshal(m)
		final = string(b)
		return strings.Contains(final, "answered offline")
	})
	for _, want := range []string{"graph", "Kestrel Microsystems"} {
		if !strings.Contains(final, want) {
			t.Errorf("answer lacks %q:\n%s", want, final)
		}
	}
}

// TestServeKeepsServerErrorsPrivate asks through the real server with the
// model unreachable and web search not set up: nothing the channel sees,
// in any version of any message, names the server, its error or a
// setting; the asker is told those details privately.
func TestServeKeepsServerErrorsPrivate(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String() + "/v1"
	ln.Close() // connections are refused from now on
	fake := slacktest.NewServer()
	defer fake.Close()
	addr := startServe(t, map[string]string{
		"SLACK_BOT_TOKEN": fake.BotToken, "SLACK_SIGNING_SECRET": fake.SigningSecret,
		"SLACK_API_URL": fake.APIURL(), "EDIT_INTERVAL": "10ms",
		"OPENAI_BASE_URL": down, "OPENAI_MAX_RETRIES": "0",
	})
	target, _ := url.Parse("http://" + addr)
	proxy := httputil.NewSingleHostReverseProxy(target)

	ev := fake.Mention("C1", "U1", "What did the Fed announce this morning?")
	if resp := fake.PostEvent(proxy, "", ev, nil); resp.StatusCode != 200 {
		t.Fatalf("event status %d", resp.StatusCode)
	}
	var final string
	slacktest.Wait(t, 30*time.Second, "the answer in the thread", func() bool {
		msgs := fake.Messages("C1", ev.TS)
		if len(msgs) == 0 {
			return false
		}
		final = msgs[0].Content()
		return strings.Contains(final, "answered offline")
	})
	for _, want := range []string{"web search isn't set up here", "the language model isn't answering"} {
		if !strings.Contains(final, want) {
			t.Errorf("the answer lacks %q:\n%s", want, final)
		}
	}
	host := strings.TrimPrefix(strings.TrimSuffix(down, "/v1"), "http://")
	for _, m := range fake.Messages("C1", ev.TS) {
		for _, v := range m.Versions {
			c := v.Content()
			for _, secret := range []string{host, "connection refused", "dial tcp", "TAVILY_API_KEY", "OPENAI_"} {
				if strings.Contains(c, secret) {
					t.Errorf("the channel sees %q:\n%s", secret, c)
				}
			}
		}
	}
	var private []string
	slacktest.Wait(t, 30*time.Second, "the details for the asker", func() bool {
		private = nil
		for _, e := range fake.Ephemerals("U1") {
			private = append(private, e.Text)
		}
		return len(private) > 0
	})
	joined := strings.Join(private, "\n")
	for _, want := range []string{"connection refused", "TAVILY_API_KEY"} {
		if !strings.Contains(joined, want) {
			t.Errorf("the asker was not told %q privately:\n%s", want, joined)
		}
	}
}

// TestServePrunesIdleThreads: `switchboard serve` deletes the threads idle longer
// than THREAD_RETENTION when it starts (and every RETENTION_INTERVAL).
func TestServePrunesIdleThreads(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(dir, "switchboard.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	threads := sqlite.NewCheckpointer(db)
	thread := agent.Thread{ID: "slack:T1:C1:1.0", Turns: []agent.Turn{{Question: "q", Answer: "a", At: time.Now()}}}
	if err := threads.Save(ctx, thread); err != nil {
		t.Fatal(err)
	}
	fake := slacktest.NewServer()
	defer fake.Close()
	startServe(t, map[string]string{
		"SWITCHBOARD_DATA_DIR": dir, "THREAD_RETENTION": "1ns", "RETENTION_INTERVAL": "1h",
		"SLACK_BOT_TOKEN": fake.BotToken, "SLACK_SIGNING_SECRET": fake.SigningSecret, "SLACK_API_URL": fake.APIURL(),
	})
	slacktest.Wait(t, 30*time.Second, "the idle thread pruned", func() bool {
		th, err := threads.Load(ctx, thread.ID)
		return err == nil && len(th.Turns) == 0
	})
}
