package main

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/internal/fakeclock"
	"github.com/switchboard/switchboard/internal/testenv"
)

// A store that answers again is used again at once. Neo4j is taken away
// under `bot serve` by a proxy (the real server keeps running: other
// tests use it): graph questions are not answered, two of them open the
// circuit, and /readyz says the graph is down. The proxy is restored: a
// second later on the injected clock, with no question asked and a
// minute's cool-down, the circuit's background probe finds the server
// back and closes it; the first graph question after that is answered
// from the graph, and /readyz says ready. Then again, with /readyz
// finding the server back before any probe: its success closes the
// circuit too. When serve has stopped, no probe runs.
func TestGraphQuestionsAfterNeo4jReturns(t *testing.T) {
	neo := testenv.Neo4jURI(t)
	data := t.TempDir()
	if out, stderr, err := run(t, map[string]string{"NEO4J_URI": neo, "SWITCHBOARD_DATA_DIR": data},
		"graph", "import", "../../examples/graph/nodes.csv", "../../examples/graph/edges.csv"); err != nil {
		t.Fatalf("graph import: %v\n%s%s", err, out, stderr)
	}
	u, err := url.Parse(neo)
	if err != nil {
		t.Fatal(err)
	}
	proxy := testenv.NewProxy(t, u.Host)
	t.Cleanup(func() { // after serve's own cleanup, which stops it
		if n := testenv.Goroutines("breaker.(*Breaker).probeUntilClosed"); n != 0 {
			t.Errorf("%d circuit probes still run after serve stopped", n)
		}
	})
	clk := fakeclock.New()
	fake := slacktest.NewServer()
	t.Cleanup(fake.Close)
	addr := startServe(t, map[string]string{
		"SLACK_BOT_TOKEN": fake.BotToken, "SLACK_SIGNING_SECRET": fake.SigningSecret, "SLACK_API_URL": fake.APIURL(),
		"EDIT_INTERVAL": "10ms", "SWITCHBOARD_DATA_DIR": data,
		"NEO4J_URI": u.Scheme + "://" + proxy.Addr(), "NEO4J_CIRCUIT_FAILURES": "2", "NEO4J_CIRCUIT_COOLDOWN": "1m",
	}, func(m *Main) { m.now, m.sleep = clk.Now, clk.Sleep })
	server := proxyTo(addr)

	const question = "Which suppliers are connected to our top 3 customers?"
	// ask asks the graph question in a new thread and returns the final
	// message. While it waits, the clock moves on, so that a read's
	// back-off on a server that is down ends.
	ask := func(t *testing.T) string {
		t.Helper()
		ev := fake.Mention("C1", "U1", question)
		if resp := fake.PostEvent(server, "", ev, nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("event status %d", resp.StatusCode)
		}
		var final string
		slacktest.Wait(t, 60*time.Second, "the answer", func() bool {
			clk.Advance(100 * time.Millisecond)
			msgs := fake.Messages("C1", ev.TS)
			if len(msgs) == 0 {
				return false
			}
			final = msgs[0].Content()
			return strings.Contains(final, "answered offline") || strings.Contains(final, bot.FailedMessage)
		})
		return final
	}
	circuit := func(t *testing.T) string {
		t.Helper()
		_, body := get(t, "http://"+addr+"/metrics")
		for _, s := range []string{"closed", "open", "half-open"} {
			if strings.Contains(body, `switchboard_circuit_state{dependency="neo4j",state="`+s+`"} 1`) {
				return s
			}
		}
		t.Fatalf("/metrics has no state of the neo4j circuit:\n%s", body)
		return ""
	}
	ready := func(t *testing.T) (int, string) { t.Helper(); return get(t, "http://"+addr+"/readyz") }
	// outage takes Neo4j away and asks until the circuit is open.
	outage := func(t *testing.T) {
		t.Helper()
		proxy.SetDown(true)
		for range 2 {
			if a := ask(t); !strings.Contains(a, bot.FailedMessage) {
				t.Fatalf("a graph question with Neo4j down was answered:\n%s", a)
			}
		}
		if s := circuit(t); s != "open" {
			t.Fatalf("the neo4j circuit is %s after two failed graph questions, want open", s)
		}
		if status, body := ready(t); status != http.StatusServiceUnavailable || !strings.Contains(body, "graph") {
			t.Errorf("/readyz with Neo4j down: %d %q", status, body)
		}
		// The circuit's probe waits for the clock: the test moves it only
		// from here on.
		clk.WaitSleepers(t, 1, "the neo4j circuit's background probe")
	}

	if a := ask(t); !strings.Contains(a, "Kestrel Microsystems") {
		t.Fatalf("before the outage:\n%s", a)
	}
	outage(t)
	proxy.SetDown(false)
	clk.Advance(time.Second)
	slacktest.Wait(t, 60*time.Second, "the probe to close the circuit", func() bool { return circuit(t) == "closed" })
	if a := ask(t); !strings.Contains(a, "Kestrel Microsystems") {
		t.Errorf("the first graph question after Neo4j came back:\n%s", a)
	}
	if status, body := ready(t); status != http.StatusOK {
		t.Errorf("/readyz after Neo4j came back: %d %q", status, body)
	}

	outage(t)
	proxy.SetDown(false) // and the clock stands still: no probe runs
	if status, body := ready(t); status != http.StatusOK {
		t.Fatalf("/readyz with Neo4j back: %d %q", status, body)
	}
	if s := circuit(t); s != "closed" {
		t.Errorf("the neo4j circuit is %s after /readyz found Neo4j back, want closed", s)
	}
	if a := ask(t); !strings.Contains(a, "Kestrel Microsystems") {
		t.Errorf("the first graph question after /readyz found Neo4j back:\n%s", a)
	}
}
