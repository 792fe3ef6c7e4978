package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/eval"
	"github.com/switchboard/switchboard/feedback"
	"github.com/switchboard/switchboard/llm/llmtest"
	"github.com/switchboard/switchboard/sqlite"
)

// writeLines writes lines to a file in a temporary folder.
func writeLines(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "cases.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// squash folds runs of white space, so that checks do not depend on how
// the tables are padded.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// fiveCases covers every route, a follow-up and a question without an
// answer, on the demo knowledge base.
var fiveCases = []string{
	`{"question": "How long do we keep backups?", "expected_route": "vector", "must_contain": ["35 days"], "must_cite": "data-retention.md"}`,
	`{"question": "Who is the account manager of Quintero Retail Group?", "expected_route": "graph", "must_contain": ["Aiko Brandt"], "must_cite": "Knowledge graph"}`,
	`{"question": "What did the Fed announce this morning?", "expected_route": "web", "must_contain": ["couldn't find", "web search isn't set up here"]}`,
	`{"question": "and in New York?", "thread": ["What is the hotel limit in London?"], "expected_route": "vector", "must_contain": ["300 USD"]}`,
	`{"question": "What is the office wifi password?", "expected_route": "vector", "must_contain": ["couldn't find"]}`,
}

func TestEvalOffline(t *testing.T) {
	cases := writeLines(t, fiveCases...)
	out, stderr, err := run(t, map[string]string{}, "eval", "--kb", "../../examples", cases)
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, stderr)
	}
	for _, want := range []string{"Route accuracy 5/5 (100.0%)", "Answer hit-rate 5/5 (100.0%)", "Citation hit-rate 2/2 (100.0%)",
		"No-answer hit-rate 2/2", "follow-ups 1, no-answer 2", "Routes (rows: expected, columns: chosen)", "Every case passed."} {
		if !strings.Contains(squash(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(stderr, "5 files: 5 added") || !strings.Contains(stderr, "40 nodes") {
		t.Errorf("the knowledge base was not loaded as expected:\n%s", stderr)
	}

	// The same with --json after the file name.
	out, stderr, err = run(t, map[string]string{}, "eval", "--kb", "../../examples", cases, "--json", "--parallel", "2")
	if err != nil {
		t.Fatalf("eval --json: %v\n%s", err, stderr)
	}
	var rep struct {
		Cases     int                       `json:"cases"`
		Route     eval.Rate                 `json:"route_accuracy"`
		Confusion map[string]map[string]int `json:"confusion"`
		Badges    map[string]int            `json:"badges"`
		Results   []struct {
			Route   string `json:"route"`
			Passed  bool   `json:"passed"`
			Answer  string `json:"answer"`
			Sources []any  `json:"sources"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, out)
	}
	if rep.Cases != 5 || rep.Route.Hits != 5 || rep.Confusion["graph"]["graph"] != 1 || len(rep.Results) != 5 || rep.Results[1].Route != "graph" || len(rep.Results[0].Sources) == 0 {
		t.Errorf("report = %+v", rep)
	}
	if !strings.Contains(rep.Results[3].Answer, "300 USD") {
		t.Errorf("the follow-up was not answered in its thread: %q", rep.Results[3].Answer)
	}
}

func TestEvalThresholds(t *testing.T) {
	cases := writeLines(t,
		`{"question": "How long do we keep backups?", "expected_route": "vector", "must_contain": ["35 days"]}`,
		`{"question": "How long do we keep backups?", "expected_route": "graph", "must_contain": ["42 days"]}`,
	)
	out, _, err := run(t, map[string]string{}, "eval", "--kb", "../../examples", "--min-route-accuracy", "90%", "--min-answer-rate", "0.5", cases)
	if !errors.Is(err, eval.ErrThreshold) || exitCode(err) == 0 {
		t.Fatalf("err = %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "route accuracy 1/2 (50.0%) is below --min-route-accuracy 90.0%") || strings.Contains(msg, "answer hit-rate") {
		t.Errorf("err = %v", err)
	}
	if !strings.Contains(out, `route vector, want graph; answer lacks "42 days"`) {
		t.Errorf("the failed case is not listed:\n%s", out)
	}
	if _, _, err := run(t, map[string]string{}, "eval", "--kb", "../../examples", "--min-route-accuracy", "0.5", cases); err != nil {
		t.Errorf("a met threshold failed: %v", err)
	}
}

// --max-confidently-wrong sets the exit status. The backups question has an
// answer in the demo documents, which the engine gives with a badge of
// high or medium, so a case that expects no answer to it is confidently
// wrong whatever the engine's other changes.
func TestEvalMaxConfidentlyWrong(t *testing.T) {
	cases := writeLines(t,
		`{"id": "wifi", "question": "What is the office wifi password?", "expected_route": "vector", "must_contain": ["couldn't find"]}`,
		`{"id": "wifi-wrong", "question": "What is the office wifi password?", "expected_route": "vector", "must_contain": ["hunter2"]}`,
		`{"id": "backups-cw", "question": "How long do we keep backups?", "expected_route": "vector", "must_contain": ["couldn't find"]}`,
	)
	out, stderr, err := run(t, map[string]string{}, "eval", "--kb", "../../examples", "--max-confidently-wrong", "0", cases)
	if !errors.Is(err, eval.ErrThreshold) || exitCode(err) == 0 {
		t.Fatalf("err = %v\n%s", err, stderr)
	}
	if msg := err.Error(); !strings.Contains(msg, "1 confidently wrong (backups-cw) is more than --max-confidently-wrong 0") {
		t.Errorf("err = %v", err)
	}
	sq := squash(out)
	for _, want := range []string{"Confidently wrong 1", "badge answers judged right precision confidently wrong", "none 2 2 1 50.0% 0",
		"Failed (2, the 1 confidently wrong first): backups-cw"} {
		if !strings.Contains(sq, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	failed := out[strings.Index(out, "Failed ("):]
	if i, j := strings.Index(failed, "backups-cw"), strings.Index(failed, "wifi-wrong"); i < 0 || j < i || !strings.Contains(failed, "CONFIDENTLY WRONG") {
		t.Errorf("the confidently wrong case is not listed first:\n%s", failed)
	}

	// The limit is "more than N": one confidently wrong answer meets 1,
	// with the flag after the file name.
	if _, stderr, err := run(t, map[string]string{}, "eval", "--kb", "../../examples", cases, "--max-confidently-wrong", "1"); err != nil {
		t.Errorf("a met limit failed: %v\n%s", err, stderr)
	}
	// Without the flag, confidently wrong answers do not fail the run.
	if _, _, err := run(t, map[string]string{}, "eval", "--kb", "../../examples", cases); err != nil {
		t.Errorf("no limit: %v", err)
	}

	out, stderr, err = run(t, map[string]string{}, "eval", "--kb", "../../examples", "--json", cases)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var rep struct {
		eval.Summary
		Results []struct {
			ID               string `json:"id"`
			ConfidentlyWrong bool   `json:"confidently_wrong"`
			AnsweredAnyway   bool   `json:"answered_anyway"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.ConfidentlyWrong != 1 || strings.Join(rep.ConfidentlyWrongCases, ",") != "backups-cw" || len(rep.Calibration) < 5 ||
		rep.Calibration[4].Badge != "none" || rep.Calibration[4].Right != 1 || !rep.Results[2].ConfidentlyWrong || !rep.Results[2].AnsweredAnyway || rep.Results[1].ConfidentlyWrong {
		t.Errorf("report = %+v", rep)
	}
}

func TestEvalBadInput(t *testing.T) {
	good := fiveCases[0]
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"bad lines", []string{"--kb", "../../examples", writeLines(t, good, `{"question": "x", "expected_route": "vectr"}`, `nope`)},
			"line 2: expected_route \"vectr\""},
		{"no valid case", []string{"--kb", "../../examples", writeLines(t, `nope`)}, "holds no valid case"},
		{"missing file", []string{"--kb", "../../examples", "missing.jsonl"}, "missing.jsonl"},
		{"no knowledge base", []string{writeLines(t, good)}, "no knowledge base"},
		{"missing kb", []string{"--kb", "nowhere", writeLines(t, good)}, "nowhere"},
		{"bad threshold", []string{"--min-route-accuracy", "lots", writeLines(t, good)}, "not a fraction"},
		{"bad limit", []string{"--max-confidently-wrong", "lots", writeLines(t, good)}, "not a count"},
		{"negative limit", []string{"--max-confidently-wrong", "-1", writeLines(t, good)}, "not a count"},
		{"no file", []string{"--kb", "../../examples"}, "Usage: switchboard eval"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, err := run(t, map[string]string{}, append([]string{"eval"}, tc.args...)...)
			all := out + stderr
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(all+err.Error(), tc.want) {
				t.Errorf("output does not mention %q:\nerr: %v\n%s", tc.want, err, all)
			}
		})
	}
	// Bad lines fail the run, but only after the good cases were scored.
	out, _, err := run(t, map[string]string{}, "eval", "--kb", "../../examples", writeLines(t, good, "nope"))
	if err == nil || !strings.Contains(err.Error(), "1 line of") || !strings.Contains(squash(out), "Route accuracy 1/1") {
		t.Errorf("err = %v\n%s", err, out)
	}
}

// The shipped sets parse and cover what the issue asks of them. The
// held-out sets (questions phrased unlike the documents) have no web case.
func TestEvalSets(t *testing.T) {
	for _, set := range []struct {
		path                     string
		min, followUps, noAnswer int
		noWeb                    bool
	}{
		{"../../eval/demo.jsonl", 60, 5, 5, false},
		{"../../eval/handbook-northwind.jsonl", 40, 3, 3, false},
		{"../../eval/heldout-demo.jsonl", 40, 3, 5, true},
		{"../../eval/heldout-handbook-northwind.jsonl", 40, 3, 5, true},
	} {
		t.Run(filepath.Base(set.path), func(t *testing.T) {
			cases, bad, err := eval.ReadFile(set.path)
			if err != nil || len(bad) > 0 {
				t.Fatalf("err = %v, bad lines: %v", err, bad)
			}
			routes := map[agent.Route]int{}
			var follow, none int
			ids := map[string]bool{}
			for _, c := range cases {
				routes[c.ExpectedRoute]++
				if len(c.Thread) > 0 {
					follow++
				}
				if c.ExpectsNoAnswer() {
					none++
				}
				if c.ID == "" || ids[c.ID] {
					t.Errorf("line %d: id %q is empty or repeated", c.Line, c.ID)
				}
				ids[c.ID] = true
			}
			if len(cases) < set.min || follow < set.followUps || none < set.noAnswer {
				t.Errorf("%d cases, %d follow-ups, %d no-answer; want at least %d, %d, %d", len(cases), follow, none, set.min, set.followUps, set.noAnswer)
			}
			for _, r := range eval.Routes {
				if routes[r] == 0 && !(set.noWeb && r == agent.RouteWeb) {
					t.Errorf("no case expects the %s route", r)
				}
			}
		})
	}
}

// The offline engine on the demo set, through the command. The floors are
// a little under what was measured (docs/evaluation.md), so that a change
// that makes answers worse fails here.
func TestEvalDemoSetOffline(t *testing.T) {
	start := time.Now()
	out, stderr, err := run(t, map[string]string{}, "eval", "--kb", "../../examples", "--json",
		"--min-route-accuracy", "0.85", "--min-answer-rate", "0.5", "../../eval/demo.jsonl")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var rep eval.Summary
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Errors > 0 || rep.Citation.Value < 0.75 {
		t.Errorf("errors %d, citation hit-rate %s", rep.Errors, rep.Citation)
	}
	t.Logf("demo set: routes %s, answers %s, citations %s, confidently wrong %d in %v", rep.Route, rep.Answer, rep.Citation, rep.ConfidentlyWrong, time.Since(start))
}

// The command of docs/evaluation.md for the public material, when it is present.
func TestEvalHandbookNorthwind(t *testing.T) {
	data := filepath.Join("..", "..", "..", "shared", "eval-data")
	if _, err := os.Stat(filepath.Join(data, "northwind", "orders.csv")); err != nil {
		t.Skip("no evaluation data at", data)
	}
	out, stderr, err := run(t, map[string]string{}, "eval", "--json",
		"--docs", filepath.Join(data, "handbook"), "--northwind", filepath.Join(data, "northwind"),
		"--min-route-accuracy", "0.8", "--min-answer-rate", "0.5", "../../eval/handbook-northwind.jsonl")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var rep eval.Summary
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "Customer 91") || rep.Errors > 0 {
		t.Errorf("errors %d; stderr:\n%s", rep.Errors, stderr)
	}
}

func TestExportFeedback(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(dir, "switchboard.db"))
	if err != nil {
		t.Fatal(err)
	}
	fb := sqlite.NewFeedback(db)
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	answers := []feedback.Answer{
		{ID: "a1", Thread: "slack:T1:C1:1", User: "U1", Question: "What is our refund policy?", Answer: "30 days [1].", Route: agent.RouteVector,
			Sources: []agent.Source{{N: 1, Title: "Refund Policy", Location: "examples/docs/refund-policy.md"}}, At: at},
		{ID: "a2", Thread: "slack:T1:C1:2", User: "U2", Question: "What is the capital of France?", Answer: "I can't answer that offline.", Route: agent.RouteDirect, At: at},
		{ID: "a3", Thread: "slack:T1:C1:3", User: "U3", Question: "Not voted on", Answer: "…", Route: agent.RouteVector, At: at},
	}
	for _, a := range answers {
		if err := fb.SaveAnswer(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	for _, v := range []struct {
		id, user string
		vote     int
	}{{"a1", "U1", 1}, {"a1", "U2", 1}, {"a2", "U1", -1}} {
		if err := fb.SaveVote(ctx, v.id, v.user, v.vote); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	out := filepath.Join(t.TempDir(), "feedback.jsonl")
	env := map[string]string{"SWITCHBOARD_DATA_DIR": dir}
	_, stderr, err := run(t, env, "eval", "export-feedback", "--out", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	cases, bad, err := eval.ReadFile(out)
	if err != nil || len(bad) > 0 || len(cases) != 2 {
		t.Fatalf("exported %d cases, bad %v, err %v", len(cases), bad, err)
	}
	if c := cases[0]; c.Question != "What is our refund policy?" || c.ExpectedRoute != "vector" || c.MustCite != "Refund Policy" {
		t.Errorf("👍 case = %+v", c)
	}
	if c := cases[1]; !c.ExpectDifferent || c.PreviousAnswer != "I can't answer that offline." || c.ExpectedRoute != "" {
		t.Errorf("👎 case = %+v", c)
	}
	if !strings.Contains(stderr, "Exported 2 cases from 3 votes") {
		t.Errorf("stderr:\n%s", stderr)
	}

	// The exported file is a set that switchboard eval runs.
	if text, stderr, err := run(t, map[string]string{}, "eval", "--kb", "../../examples", out); err != nil || !strings.Contains(squash(text), "Cases 2") {
		t.Errorf("eval of the exported cases: %v\n%s%s", err, text, stderr)
	}

	// To standard output, nothing voted: no cases.
	stdout, _, err := run(t, map[string]string{}, "eval", "export-feedback")
	if err != nil || stdout != "" {
		t.Errorf("err = %v, stdout = %q", err, stdout)
	}
}

// With a model configured, eval measures it: here a local server speaking
// the OpenAI protocol.
func TestEvalWithModel(t *testing.T) {
	srv := llmtest.New(t)
	srv.On("route", `{"route":"direct","reason":"general knowledge"}`).On("direct", "Paris.")
	cases := writeLines(t, `{"question": "What is the capital of France?", "expected_route": "direct", "must_contain": ["Paris"]}`)
	env := map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "k"}
	out, stderr, err := run(t, env, "eval", "--kb", "../../examples", "--json", cases)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var rep eval.Summary
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Answer.Hits != 1 || rep.MeanLLMCalls != 2 || rep.MeanTokens == 0 || rep.Offline != 0 || !strings.Contains(stderr, "(model gpt-4o-mini") {
		t.Errorf("summary = %+v\n%s", rep, stderr)
	}
}

// corpus makes a corpus folder laid out as eval/corpora/NAME: documents in
// docs/ (copied from the demo knowledge base) and the sets given, by file
// name.
func corpus(t *testing.T, parent, name string, docs []string, sets map[string][]string) string {
	t.Helper()
	dir := filepath.Join(parent, name)
	if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", "docs", d))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "docs", d), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for file, lines := range sets {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// bot eval --corpus runs each corpus's set on its own documents, in a
// store of its own, and prints one row per corpus.
func TestEvalCorpora(t *testing.T) {
	parent := t.TempDir()
	backups := `{"id": "backups", "question": "How long do we keep backups?", "expected_route": "vector", "must_contain": ["35 days"], "must_cite": "data-retention.md"}`
	a := corpus(t, parent, "retention", []string{"data-retention.md"}, map[string][]string{
		"frozen.jsonl": {backups, `{"id": "wifi", "question": "What is the office wifi password?", "expected_route": "vector", "must_contain": ["couldn't find"]}`},
		"dev.jsonl":    {backups},
	})
	// The second corpus's case pretends the backups question has no
	// answer, though data-retention.md gives one: the engine answers it
	// under a high or medium badge, so the case is confidently wrong by
	// construction (as in TestEvalMaxConfidentlyWrong).
	b := corpus(t, parent, "refunds", []string{"refund-policy.md", "data-retention.md"}, map[string][]string{
		"frozen.jsonl": {`{"id": "backups-cw", "question": "How long do we keep backups?", "expected_route": "vector", "must_contain": ["couldn't find"]}`},
	})

	out, stderr, err := run(t, map[string]string{}, "eval", "--corpus", a, "--corpus", b)
	if err != nil {
		t.Fatalf("eval --corpus: %v\n%s", err, stderr)
	}
	sq := squash(out)
	for _, want := range []string{
		"corpus cases route right right but hedged high/medium precision high/medium, no answer confidently wrong",
		"retention 2 2/2 (100.0%) 2/2 (100.0%) 0/1 (0.0%)",
		"refunds 1 1/1 (100.0%) 0/1 (0.0%) n/a",
		"Confidently wrong in refunds: backups-cw",
	} {
		if !strings.Contains(sq, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Each corpus in a store of its own: the first ingests one file, the
	// second two, none of them the other's again.
	if !strings.Contains(stderr, "1 file: 1 added") || !strings.Contains(stderr, "2 files: 2 added") || !strings.Contains(stderr, filepath.Join(a, "frozen.jsonl")) {
		t.Errorf("the corpora were not loaded one by one:\n%s", stderr)
	}

	// Thresholds hold for every corpus, and the failure names the corpus.
	_, _, err = run(t, map[string]string{}, "eval", "--corpus", a, "--corpus", b, "--max-confidently-wrong", "0")
	if !errors.Is(err, eval.ErrThreshold) || !strings.Contains(err.Error(), "refunds: 1 confidently wrong (backups-cw)") || strings.Contains(err.Error(), "retention:") {
		t.Errorf("err = %v", err)
	}

	// --split picks the development set; --details prints each corpus's full report first.
	out, stderr, err = run(t, map[string]string{}, "eval", "--corpus", a, "--split", "dev", "--details")
	if err != nil {
		t.Fatalf("--split dev: %v\n%s", err, stderr)
	}
	if sq := squash(out); !strings.Contains(sq, "retention 1 1/1 (100.0%)") || !strings.Contains(sq, "== retention (") || !strings.Contains(sq, "Every case passed.") {
		t.Errorf("dev split:\n%s", out)
	}

	out, stderr, err = run(t, map[string]string{}, "eval", "--json", "--corpus", a, "--corpus", b)
	if err != nil {
		t.Fatalf("--json: %v\n%s", err, stderr)
	}
	var rep struct {
		Corpora []struct {
			Corpus           string    `json:"corpus"`
			Cases            int       `json:"cases"`
			Hedged           eval.Rate `json:"right_but_hedged"`
			ConfidentlyWrong int       `json:"confidently_wrong"`
			Results          []struct {
				ID string `json:"id"`
			} `json:"results"`
		} `json:"corpora"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, out)
	}
	if len(rep.Corpora) != 2 || rep.Corpora[0].Corpus != "retention" || rep.Corpora[0].Cases != 2 || len(rep.Corpora[0].Results) != 2 ||
		rep.Corpora[1].ConfidentlyWrong != 1 || rep.Corpora[1].Results[0].ID != "backups-cw" {
		t.Errorf("report = %+v", rep)
	}

	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"no such set":       {[]string{"--corpus", b, "--split", "dev"}, filepath.Join(b, "dev.jsonl")},
		"no such corpus":    {[]string{"--corpus", filepath.Join(parent, "nowhere")}, "nowhere"},
		"corpus and a file": {[]string{"--corpus", a, filepath.Join(a, "frozen.jsonl")}, "--corpus reads"},
		"corpus and --kb":   {[]string{"--corpus", a, "--kb", "../../examples"}, "--corpus reads"},
		"split alone":       {[]string{"--split", "dev", "--kb", "../../examples", filepath.Join(a, "dev.jsonl")}, "--split goes with --corpus"},
		"bad split":         {[]string{"--corpus", a, "--split", "../frozen"}, "--split"},
	} {
		t.Run(name, func(t *testing.T) {
			out, stderr, err := run(t, map[string]string{}, append([]string{"eval"}, tc.args...)...)
			if err == nil || !strings.Contains(err.Error()+out+stderr, tc.want) {
				t.Errorf("err = %v, want a mention of %q\n%s%s", err, tc.want, out, stderr)
			}
		})
	}
}

// The frozen corpora of eval/corpora: each with its documents, licence and
// source, a frozen set of at least 30 cases (5 without an answer, some
// follow-ups) and a separate development set sharing no question with it.
func TestEvalCorporaSets(t *testing.T) {
	dirs, err := filepath.Glob("../../eval/corpora/*/frozen.jsonl")
	if err != nil || len(dirs) < 3 {
		t.Fatalf("%d frozen sets (%v), want at least 3", len(dirs), err)
	}
	for _, frozen := range dirs {
		dir := filepath.Dir(frozen)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			for _, need := range []string{"docs", "SOURCE.md", "LICENSE*"} {
				if m, _ := filepath.Glob(filepath.Join(dir, need)); len(m) == 0 {
					t.Errorf("no %s", need)
				}
			}
			questions := map[string]string{}
			for _, set := range []struct {
				file                     string
				min, noAnswer, followUps int
			}{{"frozen.jsonl", 30, 5, 2}, {"dev.jsonl", 10, 2, 0}} {
				cases, bad, err := eval.ReadFile(filepath.Join(dir, set.file))
				if err != nil || len(bad) > 0 {
					t.Fatalf("%s: err = %v, bad lines: %v", set.file, err, bad)
				}
				var none, follow int
				for _, c := range cases {
					if c.ExpectsNoAnswer() {
						none++
					}
					if len(c.Thread) > 0 {
						follow++
					}
					if c.ID == "" || questions[c.ID] != "" {
						t.Errorf("%s line %d: id %q is empty or repeated", set.file, c.Line, c.ID)
					}
					questions[c.ID] = set.file
					if prev := questions["q:"+c.Question]; prev != "" && prev != set.file {
						t.Errorf("%s line %d: %q is also in %s", set.file, c.Line, c.Question, prev)
					}
					questions["q:"+c.Question] = set.file
				}
				if len(cases) < set.min || none < set.noAnswer || follow < set.followUps {
					t.Errorf("%s: %d cases, %d without an answer, %d follow-ups; want at least %d, %d, %d",
						set.file, len(cases), none, follow, set.min, set.noAnswer, set.followUps)
				}
			}
		})
	}
}
