package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runMain is run with a hook to set the Main's test fields first.
func runMain(t *testing.T, env map[string]string, set func(*Main), args ...string) (stdout, stderr string, err error) {
	t.Helper()
	if _, ok := env["SWITCHBOARD_DATA_DIR"]; !ok {
		env["SWITCHBOARD_DATA_DIR"] = t.TempDir()
	}
	var out, errb bytes.Buffer
	m := &Main{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }}
	set(m)
	err = m.Run(context.Background(), args)
	return out.String(), errb.String(), err
}

func writeDocs(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := 1; i <= n; i++ {
		body := fmt.Sprintf("# Note %d\n\nNote %d is about topic %d.\n", i, i, i%3)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%02d.md", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "logo.png"), []byte("\x89PNG"), 0o644) // not indexed: not counted
	return dir
}

// A file ingest shows a bar on a terminal: files done of files found,
// ending its line before the report.
func TestIngestProgressOnATerminal(t *testing.T) {
	dir := writeDocs(t, 5)
	env := map[string]string{"SWITCHBOARD_DEMO": "false"}
	out, stderr, err := runMain(t, env, func(m *Main) { m.terminal = true }, "ingest", dir)
	if err != nil {
		t.Fatal(err, stderr)
	}
	for _, want := range []string{"\r▕", "100% · 5 of 5 files", "n05.md", "\x1b[K\n"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("progress lacks %q:\n%q", want, stderr)
		}
	}
	if !strings.Contains(out, "5 files: 5 added") {
		t.Errorf("report:\n%s", out)
	}
}

// When stderr is no terminal, a log line every 10 s instead of the bar.
func TestIngestProgressLogsWithoutATerminal(t *testing.T) {
	dir := writeDocs(t, 5)
	clock := time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)
	tick := func() time.Time { clock = clock.Add(4 * time.Second); return clock }
	env := map[string]string{"SWITCHBOARD_DEMO": "false", "LOG_FORMAT": "text"}
	_, stderr, err := runMain(t, env, func(m *Main) { m.now = tick }, "ingest", dir)
	if err != nil {
		t.Fatal(err, stderr)
	}
	// 4 s a file: the first file starts the 10 s, the fourth logs.
	if n := strings.Count(stderr, `msg="ingesting files"`); n != 1 || strings.Contains(stderr, "▕") ||
		!strings.Contains(stderr, "files=4 of=5 rate=0.2/s") || !strings.Contains(stderr, "eta=4s") {
		t.Errorf("%d log lines:\n%s", n, stderr)
	}
	// A short run says nothing but its report.
	_, stderr, _ = run(t, map[string]string{"SWITCHBOARD_DEMO": "false"}, "ingest", writeDocs(t, 2))
	if strings.Contains(stderr, "ingesting files") {
		t.Errorf("short run logged progress:\n%s", stderr)
	}
}

// An empty knowledge base says so and how to fill it, in text and JSON
// alike; once something is ingested, a miss is an ordinary miss.
func TestEmptyKnowledgeBaseSaysHowToFillIt(t *testing.T) {
	env := map[string]string{"SWITCHBOARD_DATA_DIR": t.TempDir(), "SWITCHBOARD_DEMO": "false"}
	res := askJSON(t, env, "What is our refund policy?")
	if !strings.Contains(res.Answer, "knowledge base is empty") || !strings.Contains(res.Answer, "switchboard ingest PATH") || res.Confidence != "none" {
		t.Errorf("confidence %s, answer:\n%s", res.Confidence, res.Answer)
	}
	out, _, err := run(t, env, "ask", "What is our refund policy?")
	if err != nil || !strings.Contains(out, "knowledge base is empty") {
		t.Errorf("%v\n%s", err, out)
	}
	// A web question keeps its own reason.
	if res := askJSON(t, env, "What did the Fed announce this morning?"); strings.Contains(res.Answer, "empty") ||
		!strings.Contains(res.Answer, "web search isn't set up here") {
		t.Errorf("web question:\n%s", res.Answer)
	}
	if _, _, err := run(t, env, "ingest", writeDocs(t, 1)); err != nil {
		t.Fatal(err)
	}
	res = askJSON(t, env, "What is our refund policy?")
	if strings.Contains(res.Answer, "empty") {
		t.Errorf("after an ingest:\n%s", res.Answer)
	}
}

// switchboard config shows the values in effect and their source, secrets
// masked; --docs the README's table.
func TestConfigShowsTheValuesInEffect(t *testing.T) {
	env := map[string]string{
		"OPENAI_API_KEY":    "sk-proj-0123456789abcdefWXYZ",
		"DATABASE_URL":      "postgres://bot:hunter2@db.internal:5432/switchboard",
		"SLACK_BOT_TOKEN":   "xoxb-1",
		"OPENAI_CHAT_MODEL": "llama3.1",
	}
	out, _, err := run(t, env, "config")
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string][]string{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) >= 2 {
			fields[f[0]] = f[1:]
		}
	}
	for name, want := range map[string]string{
		"OPENAI_API_KEY":       "environment ****WXYZ",
		"DATABASE_URL":         "environment postgres://bot:****@db.internal:5432/switchboard",
		"SLACK_BOT_TOKEN":      "environment ****",
		"OPENAI_CHAT_MODEL":    "environment llama3.1",
		"OPENAI_TIMEOUT":       "default 60s",
		"TAVILY_API_KEY":       "unset -",
		"SWITCHBOARD_DATA_DIR": "environment " + env["SWITCHBOARD_DATA_DIR"],
	} {
		if got := strings.Join(fields[name], " "); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	for _, secret := range []string{"0123456789", "hunter2", "xoxb-1"} {
		if strings.Contains(out, secret) {
			t.Errorf("secret %q printed:\n%s", secret, out)
		}
	}
	if docs, _, err := run(t, map[string]string{}, "config", "--docs"); err != nil || docs != ConfigTable() {
		t.Errorf("config --docs: %v\n%s", err, docs)
	}
	// An invalid value is listed as given, and named in the error.
	out, _, err = run(t, map[string]string{"OPENAI_TIMEOUT": "soon"}, "config")
	if err == nil || !strings.Contains(err.Error(), "OPENAI_TIMEOUT") || !strings.Contains(out, "soon") {
		t.Errorf("%v\n%s", err, out)
	}
}

func TestMistypedCommandsAndFlags(t *testing.T) {
	cases := []struct {
		args    []string
		want    []string
		notWant string
	}{
		{[]string{"ingset", "docs"}, []string{`unknown command "ingset" (did you mean "ingest"?)`, "Usage:"}, ""},
		{[]string{"serv"}, []string{`(did you mean "serve"?)`}, ""},
		{[]string{"frobnicate"}, []string{`unknown command "frobnicate"`}, "did you mean"},
		{[]string{"serve", "--bogus"}, []string{"switchboard serve: unknown flag --bogus", "takes no flags", "SLACK_BOT_TOKEN", "HTTP_ADDR"}, ""},
		{[]string{"migrate", "now"}, []string{"switchboard migrate: unknown argument now", "DATABASE_URL"}, ""},
		{[]string{"ask", "--jsn", "hi"}, []string{"switchboard ask: unknown flag --jsn (did you mean --json?)", "-thread", "continue the stored conversation"}, ""},
		{[]string{"ask", "--frobnicate", "hi"}, []string{"unknown flag --frobnicate", "-json"}, "did you mean"},
		{[]string{"chat", "--thread"}, []string{"flag needs an argument", "Usage: switchboard chat"}, ""},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			_, stderr, err := run(t, map[string]string{"SWITCHBOARD_DEMO": "false"}, c.args...)
			if exitCode(err) != 2 {
				t.Errorf("err = %v, want a usage error", err)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if c.notWant != "" && strings.Contains(stderr, c.notWant) {
				t.Errorf("stderr has %q:\n%s", c.notWant, stderr)
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"ingest", "ingest", 0}, {"ingset", "ingest", 1}, {"serv", "serve", 1}, {"", "ask", 3}, {"kitten", "sitting", 3}} {
		if got := editDistance(c.a, c.b); got != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}
