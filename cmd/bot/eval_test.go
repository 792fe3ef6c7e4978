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
// a little under what was measured (README, Quality), so that a change
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

// The README's command for the public material, when it is present.
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
