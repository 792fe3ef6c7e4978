package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/llm/llmtest"
)

// run executes the program as a user would, with env as the whole
// environment and a fresh data directory unless env names one.
func run(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	if _, ok := env["SWITCHBOARD_DATA_DIR"]; !ok {
		env["SWITCHBOARD_DATA_DIR"] = t.TempDir()
	}
	var out, errb bytes.Buffer
	m := &Main{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }}
	err = m.Run(context.Background(), args)
	return out.String(), errb.String(), err
}

func askJSON(t *testing.T, env map[string]string, args ...string) jsonResult {
	t.Helper()
	out, stderr, err := run(t, env, append([]string{"ask", "--json"}, args...)...)
	if err != nil {
		t.Fatalf("ask %q: %v\n%s", args, err, stderr)
	}
	var res jsonResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("ask --json printed invalid JSON: %v\n%s", err, out)
	}
	return res
}

// The README's quickstart, with nothing configured.
func TestQuickstartOffline(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		question   string
		route      string
		contains   string
		confidence []string
	}{
		{"What is our refund policy?", "vector", "30 days", []string{"high", "medium"}},
		{"Which suppliers are connected to our top 3 customers?", "graph", "", []string{"high", "medium"}},
		{"What is 15% of 340?", "direct", "51", []string{"general"}},
		{"What did the Fed announce this morning?", "web", "web search isn't set up here", []string{"none"}},
	}
	for _, c := range cases {
		t.Run(c.question, func(t *testing.T) {
			res := askJSON(t, map[string]string{"SWITCHBOARD_DATA_DIR": dir}, c.question)
			if res.Route != c.route || !res.Offline || res.LLMCalls != 0 {
				t.Errorf("route = %s offline = %v llm_calls = %d, want %s, offline, 0", res.Route, res.Offline, res.LLMCalls, c.route)
			}
			if !strings.Contains(strings.ToLower(res.Answer), strings.ToLower(c.contains)) {
				t.Errorf("answer does not contain %q:\n%s", c.contains, res.Answer)
			}
			if !contains(c.confidence, res.Confidence) {
				t.Errorf("confidence = %s, want one of %v", res.Confidence, c.confidence)
			}
			if (c.route == "vector" || c.route == "graph") && len(res.Sources) == 0 {
				t.Error("no sources")
			}
			if len(res.Trace) == 0 || res.RouteReason == "" {
				t.Errorf("trace = %v reason = %q", res.Trace, res.RouteReason)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestAskTextOutput(t *testing.T) {
	out, stderr, err := run(t, map[string]string{}, "ask", "What is our refund policy?")
	if err != nil {
		t.Fatal(err, stderr)
	}
	for _, want := range []string{"Sources:", "[1]", "Answered from company documents", "answered offline: no language model is configured"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(stderr, "Searching company documents…") {
		t.Errorf("progress lacks the route line:\n%s", stderr)
	}
}

func TestFollowUpInAThread(t *testing.T) {
	env := map[string]string{"SWITCHBOARD_DATA_DIR": t.TempDir()}
	askJSON(t, env, "--thread", "t1", "What is our data retention policy?")
	res := askJSON(t, env, "--thread", "t1", "and for EU customers?")
	if res.Standalone == "" || !strings.Contains(strings.ToLower(res.Standalone), "retention") {
		t.Errorf("follow-up not condensed: %q", res.Standalone)
	}
	if !strings.Contains(strings.ToLower(res.Answer), "eu") && !strings.Contains(res.Answer, "Frankfurt") {
		t.Errorf("answer is not about EU customers:\n%s", res.Answer)
	}
}

// With a model configured, the same command goes through the model, here a
// local server speaking the OpenAI protocol.
func TestAskWithModel(t *testing.T) {
	srv := llmtest.New(t)
	srv.On("route", `{"route":"direct","reason":"general knowledge"}`).On("direct", "Paris.")
	res := askJSON(t, map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "k"}, "What is the capital of France?")
	if res.Answer != "Paris." || res.Offline || res.LLMCalls != 2 || res.Confidence != "general" {
		t.Errorf("result = %+v", res)
	}
}

func TestModelOutageDegrades(t *testing.T) {
	srv := llmtest.New(t)
	srv.Fail(500)
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_MAX_RETRIES": "0"}
	res := askJSON(t, env, "What is 15% of 340?")
	if !res.Offline || !strings.Contains(res.Answer, "51") || res.OfflineReason != "the language model isn't answering" ||
		len(res.Details) != 1 || !strings.Contains(res.Details[0], "500") {
		t.Errorf("result = %+v", res)
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "blob.txt")
	os.WriteFile(bin, []byte("PK\x03\x04\x00\x00binary"), 0o644)
	nodes := filepath.Join(dir, "nodes.csv")
	os.WriteFile(nodes, []byte("id,label,name\nc1,Customer,Acme\nc2,Customer\nc3,Customer,Globex\n"), 0o644)
	edges := filepath.Join(dir, "edges.csv")
	os.WriteFile(edges, []byte("source,type,target\nc1,KNOWS,c3\n"), 0o644)

	cases := []struct {
		name string
		env  map[string]string
		args []string
		want string // in the error or the output
	}{
		{"empty question", nil, []string{"ask", ""}, "question is empty"},
		{"no question", nil, []string{"ask"}, "question is empty"},
		{"100 kB question", nil, []string{"ask", strings.Repeat("x", 100*1024)}, "too long"},
		{"binary file", nil, []string{"ingest", bin}, "binary"},
		{"missing path", nil, []string{"ingest", filepath.Join(dir, "missing.md")}, "missing.md"},
		{"malformed CSV row", nil, []string{"graph", "import", nodes, edges}, "line 3"},
		{"bad setting", map[string]string{"OPENAI_TIMEOUT": "soon"}, []string{"ask", "hi"}, "OPENAI_TIMEOUT"},
		{"unknown command", nil, []string{"frobnicate"}, "unknown command"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := c.env
			if env == nil {
				env = map[string]string{}
			}
			out, stderr, err := run(t, env, c.args...)
			all := out + stderr
			if err != nil {
				all += err.Error()
			}
			if !strings.Contains(all, c.want) {
				t.Errorf("output does not mention %q:\nerr: %v\n%s", c.want, err, all)
			}
		})
	}
}

func TestMalformedCSVStillLoadsGoodRows(t *testing.T) {
	dir := t.TempDir()
	nodes := filepath.Join(dir, "nodes.csv")
	os.WriteFile(nodes, []byte("id,label,name,revenue\nz1,Customer,Zeta Widgets,5\nz2,Customer\nz3,Supplier,Omega Parts,1\n"), 0o644)
	edges := filepath.Join(dir, "edges.csv")
	os.WriteFile(edges, []byte("source,type,target\nz3,supplies,z1\n"), 0o644)
	env := map[string]string{"SWITCHBOARD_DATA_DIR": t.TempDir(), "SWITCHBOARD_DEMO": "false"}
	out, _, err := run(t, env, "graph", "import", nodes, edges)
	if err == nil || !strings.Contains(out, "2 nodes, 1 edge imported") {
		t.Fatalf("err = %v, output:\n%s", err, out)
	}
	res := askJSON(t, env, "Who supplies Zeta Widgets?")
	if res.Route != "graph" || !strings.Contains(res.Answer, "Omega Parts") {
		t.Errorf("route = %s answer:\n%s", res.Route, res.Answer)
	}
}

func TestIngestIsIdempotent(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "vacation.md")
	os.WriteFile(doc, []byte("# Vacation policy\n\nEveryone gets 27 vacation days a year, booked in the HR portal.\n"), 0o644)
	env := map[string]string{"SWITCHBOARD_DATA_DIR": t.TempDir()}
	for i, want := range []string{"1 added", "1 unchanged"} {
		out, _, err := run(t, env, "ingest", dir)
		if err != nil || !strings.Contains(out, want) {
			t.Fatalf("run %d: err = %v, output:\n%s", i+1, err, out)
		}
	}
	os.WriteFile(doc, []byte("# Vacation policy\n\nEveryone gets 30 vacation days a year, booked in the HR portal.\n"), 0o644)
	if out, _, err := run(t, env, "ingest", dir); err != nil || !strings.Contains(out, "1 updated") {
		t.Fatalf("changed file: err = %v, output:\n%s", err, out)
	}
	res := askJSON(t, env, "How many vacation days do we get?")
	if !strings.Contains(res.Answer, "30") || strings.Contains(res.Answer, "27") {
		t.Errorf("answer after the update:\n%s", res.Answer)
	}
}

func TestConfigTableInREADME(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), ConfigTable()) {
		t.Errorf("README's configuration table is out of date; paste the output of `go run ./cmd/bot config --docs`:\n%s", ConfigTable())
	}
}
