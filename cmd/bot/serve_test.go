package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot/discord/discordtest"
	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/sqlite"
)

// startServe runs `switchboard serve` with env until the test ends and returns the
// address it listens on. Each of set, if any, changes the Main first (a
// fake clock).
func startServe(t *testing.T, env map[string]string, set ...func(*Main)) string {
	t.Helper()
	env["HTTP_ADDR"] = "127.0.0.1:0"
	if _, ok := env["SWITCHBOARD_DATA_DIR"]; !ok {
		env["SWITCHBOARD_DATA_DIR"] = t.TempDir()
	}
	addr := make(chan string, 1)
	var logs bytes.Buffer
	m := &Main{Stdin: strings.NewReader(""), Stdout: &logs, Stderr: &logs, Getenv: func(k string) string { return env[k] },
		listening: func(a string) { addr <- a }}
	for _, f := range set {
		f(m)
	}
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
	final := answerIn(t, fake, addr, "C1", "What is our refund policy?") // through the real server, over TCP
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
	if cmds := fake.Commands("G1"); len(cmds) != 3 || cmds[0].Name != "ask" || cmds[1].Name != "ingest" || cmds[2].Name != "switchboard" {
		t.Fatalf("/ask, /ingest and /switchboard not registered: %+v", cmds)
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

	// One question the model is asked about (it is down), and one whose
	// route is evident (agent.EvidentRouter): the web, not set up.
	host := strings.TrimPrefix(strings.TrimSuffix(down, "/v1"), "http://")
	for _, q := range []struct{ text, want string }{
		{"What did the Fed say about rates?", "the language model isn't answering"},
		{"What did the Fed announce this morning?", "web search isn't set up here"},
	} {
		ev := fake.Mention("C1", "U1", q.text)
		if resp := fake.PostEvent(proxy, "", ev, nil); resp.StatusCode != 200 {
			t.Fatalf("event status %d", resp.StatusCode)
		}
		slacktest.Wait(t, 30*time.Second, "the answer in the thread", func() bool {
			msgs := fake.Messages("C1", ev.TS)
			return len(msgs) > 0 && strings.Contains(msgs[0].Content(), q.want)
		})
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
	}
	var joined string
	slacktest.Wait(t, 30*time.Second, "the details for the asker", func() bool {
		var private []string
		for _, e := range fake.Ephemerals("U1") {
			private = append(private, e.Text)
		}
		joined = strings.Join(private, "\n")
		return strings.Contains(joined, "connection refused") && strings.Contains(joined, "TAVILY_API_KEY")
	})
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

// A Slack token given in the wrong setting is refused at start, saying
// what it is and where it goes, without showing it; a rotating token of
// the right kind is taken.
func TestSlackTokenKinds(t *testing.T) {
	cases := []struct {
		bot, app string
		want     []string // "" : accepted
	}{
		{"xapp-1-A1-secret", "", []string{"SLACK_BOT_TOKEN", "app-level token (xapp-…)", "goes in SLACK_APP_TOKEN", "xoxb-"}},
		{"xoxb-1-secret", "xoxb-2-secret", []string{"SLACK_APP_TOKEN", "bot token (xoxb-…)", "goes in SLACK_BOT_TOKEN", "xapp-"}},
		{"xoxp-1-secret", "", []string{"SLACK_BOT_TOKEN", "user token (xoxp-…)", "does not use"}},
		{"0123456789abcdef0123456789secret", "", []string{"SLACK_BOT_TOKEN", "not a Slack token", "xoxb-"}},
		{"xoxe.xoxb-1-secret", "xapp-1-secret", nil},
		{"xoxb-1-secret", "xapp-1-secret", nil},
	}
	for _, c := range cases {
		_, err := loadConfig(t, map[string]string{"SLACK_BOT_TOKEN": c.bot, "SLACK_APP_TOKEN": c.app, "SLACK_SIGNING_SECRET": "s"})
		switch {
		case c.want == nil && err != nil:
			t.Errorf("bot %q app %q refused: %v", c.bot, c.app, err)
		case c.want != nil && err == nil:
			t.Errorf("bot %q app %q taken", c.bot, c.app)
		case err != nil:
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("bot %q app %q: %q lacks %q", c.bot, c.app, err, w)
				}
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("the error shows the token: %v", err)
			}
		}
	}
}

// heldSlack is the fake Slack behind a server that holds auth.test, the
// first call serve makes, until release: serve is then connecting. asked
// is closed once the call came.
func heldSlack(t *testing.T, fake *slacktest.Server) (apiURL string, asked <-chan struct{}, release func()) {
	t.Helper()
	target, _ := url.Parse(fake.APIURL())
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	came, released := make(chan struct{}), make(chan struct{})
	var once, releaseOnce sync.Once
	holding := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/auth.test") {
			once.Do(func() { close(came) })
			select { // Slack does not answer yet
			case <-released:
			case <-r.Context().Done():
				return
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	release = func() { releaseOnce.Do(func() { close(released) }) }
	t.Cleanup(holding.Close)
	t.Cleanup(release)
	return holding.URL + "/api/", came, release
}

// startConnecting runs serve against the held Slack and returns the
// address its health checks answer on once it is connecting, the address
// it serves on once connected (a channel), and stop, which sends SIGTERM
// and returns serve's error.
func startConnecting(t *testing.T, fake *slacktest.Server) (health string, serving <-chan string, release func(), stop func() error) {
	t.Helper()
	api, asked, release := heldSlack(t, fake)
	env := map[string]string{"SLACK_BOT_TOKEN": fake.BotToken, "SLACK_SIGNING_SECRET": fake.SigningSecret,
		"SLACK_API_URL": api, "HTTP_ADDR": "127.0.0.1:0", "SWITCHBOARD_DATA_DIR": t.TempDir()}
	healthy, ready := make(chan string, 1), make(chan string, 1)
	var logs bytes.Buffer
	m := &Main{Stdin: strings.NewReader(""), Stdout: &logs, Stderr: &logs, Getenv: func(k string) string { return env[k] },
		healthUp: func(a string) { healthy <- a }, listening: func(a string) { ready <- a }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx, []string{"serve"}) }()
	var result error
	var stopped bool
	stop = func() error {
		cancel()
		if !stopped {
			result, stopped = <-done, true
		}
		return result
	}
	t.Cleanup(func() { stop() })
	select {
	case health = <-healthy:
	case err := <-done:
		result, stopped = err, true
		t.Fatalf("serve stopped: %v\n%s", err, logs.String())
	}
	<-asked // connecting to Slack, held there
	return health, ready, release, stop
}

// /healthz answers while serve is still connecting to Slack (liveness
// must not kill a pod waiting on its network), and /readyz says it is not
// ready until then.
func TestServeHealthWhileConnecting(t *testing.T) {
	fake := slacktest.NewServer()
	defer fake.Close()
	addr, serving, release, stop := startConnecting(t, fake)
	if code, body := get(t, "http://"+addr+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz while connecting: %d %s", code, body)
	}
	if code, body := get(t, "http://"+addr+"/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "connecting") {
		t.Errorf("/readyz while connecting: %d %s", code, body)
	}
	release()
	<-serving
	if code, body := get(t, "http://"+addr+"/readyz"); code != http.StatusOK {
		t.Errorf("/readyz once connected: %d %s", code, body)
	}
	if err := stop(); err != nil {
		t.Errorf("serve: %v", err)
	}
}

// SIGTERM while serve is connecting stops it cleanly: no error that
// blames the token, the HTTP server closed.
func TestServeStopsWhileConnecting(t *testing.T) {
	fake := slacktest.NewServer()
	defer fake.Close()
	addr, _, _, stop := startConnecting(t, fake)
	if err := stop(); err != nil {
		t.Errorf("serve stopped while connecting: %v", err)
	}
	if _, err := http.Get("http://" + addr + "/healthz"); err == nil {
		t.Error("the HTTP server still answers after serve returned")
	}
}

// When Slack cannot be reached, serve says the network is the problem,
// not the token; when Slack fails for a while, that it is Slack's; when
// Slack refuses the token, to check it.
func TestServeSaysWhatKeepsSlackAway(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/api/"
	ln.Close() // connections are refused from now on
	fake := slacktest.NewServer()
	defer fake.Close()
	noWait := func(m *Main) { m.sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() } }
	for _, c := range []struct {
		name, token, api string
		want             []string
		notWant          string
	}{
		{"unreachable", fake.BotToken, closed, []string{"cannot reach Slack at " + closed, "a network problem", "not SLACK_BOT_TOKEN", "connection refused"}, "check SLACK_BOT_TOKEN"},
		{"token refused", "xoxb-wrong", fake.APIURL(), []string{"invalid_auth", "(check SLACK_BOT_TOKEN)"}, "network"},
		{"Slack failing", fake.BotToken, fake.APIURL(), []string{"Slack is failing for now, not SLACK_BOT_TOKEN", "503", "try again later"}, "check SLACK_BOT_TOKEN"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "Slack failing" {
				fake.Fail("auth.test", -1, slacktest.ServerError(503)) // until Heal
				defer fake.Heal("auth.test")
			}
			env := map[string]string{"SLACK_BOT_TOKEN": c.token, "SLACK_SIGNING_SECRET": fake.SigningSecret,
				"SLACK_API_URL": c.api, "HTTP_ADDR": "127.0.0.1:0"}
			_, stderr, err := runMain(t, env, noWait, "serve")
			if err == nil {
				t.Fatalf("serve started:\n%s", stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), c.notWant) {
				t.Errorf("%q says %q", err, c.notWant)
			}
		})
	}
}
