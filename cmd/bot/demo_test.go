package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/bot/slack/slacktest"
	"github.com/switchboard/switchboard/sqlite"
)

// storedKeys lists the documents and counts the graph nodes of the
// embedded store in dataDir.
func storedKeys(t *testing.T, dataDir string) (keys []string, nodes int) {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(dataDir, "switchboard.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	docs, err := sqlite.NewDocumentStore(db, "").DocumentsByPrefix(context.Background(), "", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		keys = append(keys, d.Key)
	}
	nodes, err = sqlite.NewGraphStore(db).CountNodes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return keys, nodes
}

// The demo is for a store nobody has ingested into: ingesting one file into
// a new store stores that file alone, and answers come from it.
func TestFirstIngestHasNoDemo(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "parking.md")
	os.WriteFile(doc, []byte("# Parking\n\nStaff park on level 2 of the Harbour Street garage; visitors on level 1.\n"), 0o644)
	data := t.TempDir()
	env := map[string]string{"SWITCHBOARD_DATA_DIR": data}
	out, stderr, err := run(t, env, "ingest", doc)
	if err != nil || !strings.Contains(out, "1 added") {
		t.Fatalf("ingest: %v\n%s\n%s", err, out, stderr)
	}
	keys, nodes := storedKeys(t, data)
	if len(keys) != 1 || !strings.HasSuffix(keys[0], "/parking.md") || nodes != 0 {
		t.Errorf("store after the first ingest: %v and %d graph nodes, want parking.md alone", keys, nodes)
	}
	res := askJSON(t, env, "What is our refund policy?")
	for _, s := range res.Sources {
		if strings.Contains(s.Location, "examples/") {
			t.Errorf("answer cites the demo: %+v", s)
		}
	}
	if keys, _ := storedKeys(t, data); len(keys) != 1 {
		t.Errorf("asking loaded the demo again: %v", keys)
	}
}

// `switchboard ask` on a store nobody has ingested into answers from the demo, and
// the first ingest then removes it.
func TestNeverIngestedStoreGetsTheDemo(t *testing.T) {
	data := t.TempDir()
	env := map[string]string{"SWITCHBOARD_DATA_DIR": data}
	res := askJSON(t, env, "What is our refund policy?")
	if len(res.Sources) == 0 || !strings.HasPrefix(res.Sources[0].Location, "examples/") {
		t.Fatalf("ask on a new store: %s, sources %+v", res.Answer, res.Sources)
	}
	if keys, nodes := storedKeys(t, data); len(keys) == 0 || nodes == 0 {
		t.Fatalf("demo not stored: %v, %d nodes", keys, nodes)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "parking.md"), []byte("# Parking\n\nLevel 2.\n"), 0o644)
	if _, stderr, err := run(t, env, "ingest", dir); err != nil {
		t.Fatalf("ingest: %v\n%s", err, stderr)
	}
	if keys, nodes := storedKeys(t, data); len(keys) != 1 || nodes != 0 {
		t.Errorf("after the first ingest: %v and %d nodes, want the user's file alone", keys, nodes)
	}
}

// A graph import is the user's own knowledge too: the demo goes first.
func TestGraphImportRemovesTheDemo(t *testing.T) {
	data := t.TempDir()
	env := map[string]string{"SWITCHBOARD_DATA_DIR": data}
	askJSON(t, env, "What is our refund policy?") // loads the demo
	dir := t.TempDir()
	nodes := filepath.Join(dir, "nodes.csv")
	os.WriteFile(nodes, []byte("id,label,name\nz1,Customer,Zeta Widgets\nz3,Supplier,Omega Parts\n"), 0o644)
	edges := filepath.Join(dir, "edges.csv")
	os.WriteFile(edges, []byte("source,type,target\nz3,supplies,z1\n"), 0o644)
	if out, stderr, err := run(t, env, "graph", "import", nodes, edges); err != nil {
		t.Fatalf("graph import: %v\n%s%s", err, out, stderr)
	}
	if keys, n := storedKeys(t, data); len(keys) != 0 || n != 2 {
		t.Errorf("after a graph import: documents %v and %d nodes, want no demo and the 2 imported", keys, n)
	}
}

// slackServe serves Slack's Events API on env through the fake and
// returns a function that posts one mention of a question and returns the
// final answer in its thread.
func slackServe(t *testing.T, fake *slacktest.Server, env map[string]string) (mention func(question string) string) {
	t.Helper()
	env["SLACK_BOT_TOKEN"], env["SLACK_SIGNING_SECRET"], env["SLACK_API_URL"] = fake.BotToken, fake.SigningSecret, fake.APIURL()
	env["EDIT_INTERVAL"] = "10ms"
	addr := startServe(t, env)
	return func(question string) string {
		t.Helper()
		return answerIn(t, fake, addr, "C1", question)
	}
}

// A real workspace is never answered from the fictional demo company:
// serve with Slack configured, on a new store or on one an earlier ask
// filled with the demo, says the knowledge base is empty and how to fill
// it, and leaves the demo where it was for ask. SWITCHBOARD_DEMO=true
// asks for the demo in chat explicitly.
func TestServeNeverAnswersFromTheDemo(t *testing.T) {
	const question = "What is our refund policy?"
	empty := func(t *testing.T, answer string) {
		t.Helper()
		for _, w := range []string{"30 days", "refund-policy.md", "examples/", "Brightline"} {
			if strings.Contains(answer, w) {
				t.Errorf("the answer cites the demo (%q):\n%s", w, answer)
			}
		}
		for _, w := range []string{"the knowledge base is empty", "ingest PATH"} {
			if !strings.Contains(answer, w) {
				t.Errorf("the answer lacks %q:\n%s", w, answer)
			}
		}
	}
	t.Run("new store", func(t *testing.T) {
		fake := slacktest.NewServer()
		defer fake.Close()
		data := t.TempDir()
		empty(t, slackServe(t, fake, map[string]string{"SWITCHBOARD_DATA_DIR": data})(question))
		if keys, nodes := storedKeys(t, data); len(keys) != 0 || nodes != 0 {
			t.Errorf("serve loaded %v and %d graph nodes", keys, nodes)
		}
	})
	t.Run("store holding the demo", func(t *testing.T) {
		data := t.TempDir()
		askJSON(t, map[string]string{"SWITCHBOARD_DATA_DIR": data}, question) // loads the demo
		keys, nodes := storedKeys(t, data)
		if len(keys) == 0 || nodes == 0 {
			t.Fatalf("ask did not load the demo: %v, %d nodes", keys, nodes)
		}
		fake := slacktest.NewServer()
		defer fake.Close()
		mention := slackServe(t, fake, map[string]string{"SWITCHBOARD_DATA_DIR": data})
		empty(t, mention(question))
		if answer := mention("Which suppliers are connected to our top 3 customers?"); strings.Contains(answer, "Kestrel") {
			t.Errorf("a graph question is answered from the demo:\n%s", answer)
		}
		if k, n := storedKeys(t, data); len(k) != len(keys) || n != nodes {
			t.Errorf("serve changed the store: %d documents and %d nodes, were %d and %d", len(k), n, len(keys), nodes)
		}
		res := askJSON(t, map[string]string{"SWITCHBOARD_DATA_DIR": data}, question)
		if len(res.Sources) == 0 || !strings.HasPrefix(res.Sources[0].Location, "examples/") {
			t.Errorf("ask no longer answers from the demo: %s", res.Answer)
		}
	})
	t.Run("SWITCHBOARD_DEMO=true", func(t *testing.T) {
		fake := slacktest.NewServer()
		defer fake.Close()
		answer := slackServe(t, fake, map[string]string{"SWITCHBOARD_DEMO": "true"})(question)
		if !strings.Contains(answer, "30 days") || !strings.Contains(answer, "refund-policy.md") {
			t.Errorf("the demo asked for is not used:\n%s", answer)
		}
	})
}

// SWITCHBOARD_DEMO: auto (unset) gives the demo to ask and chat, never to
// serve; true to serve too; false to none (TestSettingsChecked: anything
// else is refused).
func TestDemoSetting(t *testing.T) {
	for value, want := range map[string]string{"": "ask chat", "auto": "ask chat", "AUTO": "ask chat",
		"true": "ask chat serve", "1": "ask chat serve", "false": "", "0": ""} {
		cfg, err := loadConfig(t, map[string]string{"SWITCHBOARD_DEMO": value})
		if err != nil {
			t.Fatalf("SWITCHBOARD_DEMO=%q: %v", value, err)
		}
		var got []string
		for _, cmd := range []string{"ask", "chat", "serve", "ingest", "graph", "migrate"} {
			if cfg.DemoFor(cmd) {
				got = append(got, cmd)
			}
		}
		if strings.Join(got, " ") != want {
			t.Errorf("SWITCHBOARD_DEMO=%q: the demo for %v, want %q", value, got, want)
		}
	}
}
