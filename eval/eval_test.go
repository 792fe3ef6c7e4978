package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/feedback"
)

func TestParse(t *testing.T) {
	in := strings.Join([]string{
		`{"question": "How long do we keep backups?", "expected_route": "vector", "must_contain": ["35 days"], "must_cite": "data-retention.md"}`,
		``,
		`{"question": "and for EU customers?", "thread": ["What is our retention policy?"], "expected_route": "vector"}`,
		`not json`,
		`{"question": "", "expected_route": "vector"}`,
		`{"question": "x", "expected_route": "vectr"}`,
		`{"question": "x"}`,
		`{"question": "x", "expected_route": "web", "must_contains": ["typo"]}`,
		`{"question": "x", "expected_route": "web", "must_contain": "not a list"}`,
		`{"question": "x", "expected_route": "web"} {"question": "y"}`,
		`{"question": "x", "expect_different": true}`,
		`{"question": "Was it good?", "expect_different": true, "previous_answer": "No."}`,
		`{"question": "last line without a newline", "expected_route": "direct"}`,
	}, "\n")
	cases, bad, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, c := range cases {
		lines = append(lines, c.Line)
	}
	if want := []int{1, 3, 12, 13}; !equalInts(lines, want) {
		t.Errorf("cases on lines %v, want %v", lines, want)
	}
	if c := cases[1]; len(c.Thread) != 1 || c.ExpectedRoute != agent.RouteVector {
		t.Errorf("follow-up = %+v", c)
	}
	wantBad := map[int]string{
		4:  "invalid JSON",
		5:  "question is empty",
		6:  `expected_route "vectr" is not one of`,
		7:  "expected_route is missing",
		8:  `unknown field "must_contains"`,
		9:  "must_contain: string is not a list",
		10: "more than one JSON value",
		11: "expect_different needs previous_answer",
	}
	if len(bad) != len(wantBad) {
		t.Errorf("%d bad lines, want %d: %v", len(bad), len(wantBad), bad)
	}
	for _, e := range bad {
		if w, ok := wantBad[e.Line]; !ok || !strings.Contains(e.Error(), w) {
			t.Errorf("line %d: %v; want an error containing %q", e.Line, e, w)
		}
	}
}

func TestParseLongLine(t *testing.T) {
	long := `{"question": "` + strings.Repeat("x", MaxLineBytes) + `", "expected_route": "vector"}`
	in := long + "\n" + `{"question": "ok", "expected_route": "vector"}` + "\n"
	cases, bad, err := Parse(strings.NewReader(in))
	if err != nil || len(cases) != 1 || cases[0].Line != 2 || len(bad) != 1 || bad[0].Line != 1 {
		t.Errorf("cases = %v, bad = %v, err = %v", cases, bad, err)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// outcome builds a scored outcome of a case answered with res.
func outcome(c Case, res agent.Result, latency time.Duration) Outcome {
	return score(Outcome{Case: c, Result: res, Latency: latency})
}

// textReport writes s and outcomes with WriteText. It returns the report,
// and the report with runs of white space folded for checks that do not
// depend on how the tables are padded.
func textReport(t *testing.T, s Summary, outcomes []Outcome) (out, squashed string) {
	t.Helper()
	var b bytes.Buffer
	if err := WriteText(&b, s, outcomes); err != nil {
		t.Fatal(err)
	}
	return b.String(), strings.Join(strings.Fields(b.String()), " ")
}

// jsonReport writes s and outcomes with WriteJSON, decodes the report into
// v and returns it as written.
func jsonReport(t *testing.T, s Summary, outcomes []Outcome, v any) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteJSON(&b, s, outcomes); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b.Bytes(), v); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, b.String())
	}
	return b.String()
}

func TestScore(t *testing.T) {
	sources := []agent.Source{{Title: "Refund Policy", Location: "examples/docs/refund-policy.md"}}
	cases := []struct {
		name                      string
		c                         Case
		res                       agent.Result
		routeOK, answerOK, citeOK bool
		answerScored, citeScored  bool
		missing                   int
	}{
		{"all good, emphasis and case ignored",
			Case{ExpectedRoute: "vector", MustContain: []string{"within 10 business days", "REFUND"}, MustCite: "refund-policy.md"},
			agent.Result{Route: "vector", Answer: "Refunds are paid within **10 business days** [1].", Sources: sources},
			true, true, true, true, true, 0},
		{"curly apostrophe",
			Case{ExpectedRoute: "vector", MustContain: []string{"couldn't find"}},
			agent.Result{Route: "vector", Answer: "I couldn’t find an answer to that.", Confidence: "none"},
			true, true, false, true, false, 0},
		{"wrong route, missing phrase, wrong source",
			Case{ExpectedRoute: "graph", MustContain: []string{"Aiko Brandt", "Quintero"}, MustCite: "Knowledge graph"},
			agent.Result{Route: "vector", Answer: "Quintero is a customer.", Sources: sources},
			false, false, false, true, true, 1},
		{"cite by title",
			Case{ExpectedRoute: "vector", MustCite: "refund policy"},
			agent.Result{Route: "vector", Sources: sources},
			true, false, true, false, true, 0},
		{"thumbs down, same answer",
			Case{ExpectDifferent: true, PreviousAnswer: "It is **42**."},
			agent.Result{Route: "direct", Answer: "it is 42."},
			false, false, false, true, false, 0},
		{"thumbs down, new answer",
			Case{ExpectDifferent: true, PreviousAnswer: "It is 42."},
			agent.Result{Route: "direct", Answer: "It is 43."},
			false, true, false, true, false, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := outcome(tc.c, tc.res, 0)
			if o.RouteScored != (tc.c.ExpectedRoute != "") || (o.RouteScored && o.RouteOK != tc.routeOK) {
				t.Errorf("route scored %v ok %v, want ok %v", o.RouteScored, o.RouteOK, tc.routeOK)
			}
			if o.AnswerScored != tc.answerScored || (o.AnswerScored && o.AnswerOK != tc.answerOK) {
				t.Errorf("answer scored %v ok %v, want %v %v", o.AnswerScored, o.AnswerOK, tc.answerScored, tc.answerOK)
			}
			if o.CiteScored != tc.citeScored || (o.CiteScored && o.CiteOK != tc.citeOK) {
				t.Errorf("cite scored %v ok %v, want %v %v", o.CiteScored, o.CiteOK, tc.citeScored, tc.citeOK)
			}
			if len(o.Missing) != tc.missing {
				t.Errorf("missing = %q", o.Missing)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	ms := time.Millisecond
	outcomes := []Outcome{
		outcome(Case{ExpectedRoute: "vector", MustContain: []string{"35 days"}, MustCite: "retention"},
			agent.Result{Route: "vector", Answer: "35 days", Confidence: "high", LLMCalls: 5, Tokens: 1000, Offline: false,
				Sources: []agent.Source{{Title: "Data Retention Policy"}}}, 10*ms),
		outcome(Case{ExpectedRoute: "vector", MustContain: []string{"Frankfurt"}, Thread: []string{"What is our retention policy?"}},
			agent.Result{Route: "graph", Answer: "Halvorsen", Confidence: "medium", LLMCalls: 3, Tokens: 500}, 30*ms),
		outcome(Case{ExpectedRoute: "graph", MustContain: []string{"Aiko"}},
			agent.Result{Route: "graph", Answer: "Aiko Brandt", Confidence: "medium", LLMCalls: 1, Tokens: 0, Offline: true}, 20*ms),
		outcome(Case{ExpectedRoute: "web", MustContain: []string{"couldn't find"}},
			agent.Result{Route: "web", Answer: "I couldn't find an answer to that.", Confidence: "none"}, 40*ms),
		outcome(Case{ExpectedRoute: "direct"}, agent.Result{Route: "direct", Confidence: "general", LLMCalls: 1}, 100*ms),
		score(Outcome{Case: Case{ExpectedRoute: "direct", MustContain: []string{"51"}}, Err: errors.New("boom")}),
	}
	s := Summarize(outcomes)
	if s.Cases != 6 || s.FollowUps != 1 || s.NoAnswer != 1 || s.Errors != 1 || s.Passed != 4 {
		t.Errorf("counts = %+v", s)
	}
	if s.Route != (Rate{Hits: 4, Scored: 6, Value: 4.0 / 6}) {
		t.Errorf("route = %+v", s.Route)
	}
	if s.Answer != (Rate{Hits: 3, Scored: 5, Value: 0.6}) {
		t.Errorf("answer = %+v", s.Answer)
	}
	if s.NoAnswerRate != (Rate{Hits: 1, Scored: 1, Value: 1}) || s.AnswerByRoute["vector"] != (Rate{Hits: 1, Scored: 2, Value: 0.5}) {
		t.Errorf("no-answer %+v, answers by route %+v", s.NoAnswerRate, s.AnswerByRoute)
	}
	if s.Citation != (Rate{Hits: 1, Scored: 1, Value: 1}) {
		t.Errorf("citation = %+v", s.Citation)
	}
	want := Confusion{
		{1, 1, 0, 0, 0}, // vector: one right, one sent to the graph
		{0, 1, 0, 0, 0},
		{0, 0, 1, 0, 0},
		{0, 0, 0, 1, 1}, // direct: one right, one error
	}
	for i := range want {
		if !equalInts(s.Confusion[i], want[i]) {
			t.Errorf("confusion row %s = %v, want %v", Routes[i], s.Confusion[i], want[i])
		}
	}
	if s.Badges["medium"] != 2 || s.Badges["high"] != 1 || s.Badges["none"] != 1 || s.Badges["general"] != 1 {
		t.Errorf("badges = %v", s.Badges)
	}
	// Means and percentiles over the five answered cases.
	if s.MeanLLMCalls != 2 || s.MeanTokens != 300 || s.Offline != 1 {
		t.Errorf("calls %v tokens %v offline %d", s.MeanLLMCalls, s.MeanTokens, s.Offline)
	}
	if s.LatencyP50 != Millis(30*ms) || s.LatencyP95 != Millis(100*ms) {
		t.Errorf("p50 %v p95 %v", s.LatencyP50, s.LatencyP95)
	}

	out, squashed := textReport(t, s, outcomes)
	for _, w := range []string{"Route accuracy 4/6 (66.7%)", "No-answer hit-rate 1/1", "vector 1 1 0 0 0 1/2 1/2", `route graph, want vector; answer lacks "Frankfurt"`, "error: boom", "Failed (2)"} {
		if !strings.Contains(squashed, w) {
			t.Errorf("text lacks %q:\n%s", w, out)
		}
	}
	var back struct {
		Route     Rate                      `json:"route_accuracy"`
		Confusion map[string]map[string]int `json:"confusion"`
		P95       float64                   `json:"latency_p95_ms"`
		Results   []map[string]any          `json:"results"`
	}
	jsonReport(t, s, outcomes, &back)
	if back.Route.Hits != 4 || back.Confusion["vector"]["graph"] != 1 || back.Confusion["direct"]["error"] != 1 || back.P95 != 100 || len(back.Results) != 6 {
		t.Errorf("JSON = %+v", back)
	}
	if _, ok := back.Results[4]["answer_ok"]; ok {
		t.Errorf("a case without must_contain reports answer_ok: %v", back.Results[4])
	}
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 20; i++ {
		d = append(d, time.Duration(i))
	}
	if Percentile(d, 0.5) != 10 || Percentile(d, 0.95) != 19 || Percentile(d, 1) != 20 || Percentile(nil, 0.5) != 0 || Percentile(d[:1], 0.95) != 1 {
		t.Error("percentiles are off")
	}
}

func TestThresholds(t *testing.T) {
	s := Summary{Route: Rate{Hits: 8, Scored: 10, Value: 0.8}, Answer: Rate{Hits: 9, Scored: 10, Value: 0.9}}
	if err := (Thresholds{MinRouteAccuracy: 0.8, MinAnswerRate: 0.9}).Check(s); err != nil {
		t.Errorf("met thresholds fail: %v", err)
	}
	if err := (Thresholds{}).Check(s); err != nil {
		t.Errorf("no thresholds fail: %v", err)
	}
	err := (Thresholds{MinRouteAccuracy: 0.85, MinAnswerRate: 0.95}).Check(s)
	if !errors.Is(err, ErrThreshold) || !strings.Contains(err.Error(), "route accuracy 8/10 (80.0%) is below --min-route-accuracy 85.0%") ||
		!strings.Contains(err.Error(), "answer hit-rate 9/10 (90.0%) is below --min-answer-rate 95.0%") {
		t.Errorf("err = %v", err)
	}
	err = (Thresholds{MinAnswerRate: 0.5}).Check(Summary{})
	if !errors.Is(err, ErrThreshold) || !strings.Contains(err.Error(), "not measured") {
		t.Errorf("a threshold on nothing passed: %v", err)
	}
}

// asker answers from a table, counting the questions it is asked at once.
type asker struct {
	answers  map[string]agent.Result
	inFlight atomic.Int32
	peak     atomic.Int32
	threads  chan string // thread ids of follow-ups, in order
}

func (a *asker) Ask(ctx context.Context, q agent.Question, _ agent.Emitter) (agent.Result, error) {
	n := a.inFlight.Add(1)
	defer a.inFlight.Add(-1)
	for {
		p := a.peak.Load()
		if n <= p || a.peak.CompareAndSwap(p, n) {
			break
		}
	}
	time.Sleep(5 * time.Millisecond)
	if q.ThreadID != "" {
		a.threads <- q.ThreadID + " " + q.Text
	}
	if q.Text == "fail" {
		return agent.Result{}, errors.New("failed")
	}
	return a.answers[q.Text], nil
}

func TestRun(t *testing.T) {
	a := &asker{answers: map[string]agent.Result{
		"q1": {Route: "vector", Answer: "one"},
		"q2": {Route: "graph", Answer: "two"},
		"q3": {Route: "direct", Answer: "three"},
	}, threads: make(chan string, 10)}
	cases := []Case{
		{Question: "q1", ExpectedRoute: "vector", MustContain: []string{"one"}},
		{Question: "q2", ExpectedRoute: "vector"},
		{Question: "q3", ExpectedRoute: "direct", Thread: []string{"t1", "t2"}},
		{Question: "fail", ExpectedRoute: "direct"},
		{Question: "q1", ExpectedRoute: "vector", Thread: []string{"fail"}},
		{Question: "q1", ExpectedRoute: "vector"},
	}
	var done atomic.Int32
	out, err := Run(context.Background(), a, cases, Options{Parallel: 2, Done: func(n, total int) { done.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(cases) || done.Load() != int32(len(cases)) {
		t.Fatalf("%d outcomes, %d done calls", len(out), done.Load())
	}
	if !out[0].Passed() || out[1].Passed() || !out[2].Passed() || out[3].Err == nil || out[4].Err == nil || !strings.Contains(out[4].Err.Error(), "thread turn 1") {
		t.Errorf("outcomes = %+v", out)
	}
	if p := a.peak.Load(); p > 2 {
		t.Errorf("%d questions at once, want at most 2", p)
	}
	close(a.threads)
	var follow []string
	for s := range a.threads {
		follow = append(follow, s)
	}
	// The thread's turns, then the question, all in one thread.
	if len(follow) < 3 {
		t.Fatalf("follow-up questions = %q", follow)
	}
	id, _, _ := strings.Cut(follow[0], " ")
	var q3 []string
	for _, s := range follow {
		if strings.HasPrefix(s, id+" ") {
			q3 = append(q3, strings.TrimPrefix(s, id+" "))
		}
	}
	if strings.Join(q3, ",") != "t1,t2,q3" && !strings.HasSuffix(follow[0], "fail") {
		t.Errorf("thread %s got %q", id, q3)
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := &asker{answers: map[string]agent.Result{}, threads: make(chan string, 10)}
	_, err := Run(ctx, a, []Case{{Question: "q", ExpectedRoute: "vector"}}, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}

func TestFromVotes(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2025, 3, d, 12, 0, 0, 0, time.UTC) }
	src := []agent.Source{{Title: "Refund Policy", Location: "docs/refund-policy.md"}}
	vote := func(thread, q, answer string, route agent.Route, src []agent.Source, v int, at time.Time) feedback.Vote {
		return feedback.Vote{Answer: feedback.Answer{Thread: thread, Question: q, Answer: answer, Route: route, Sources: src, At: at}, Vote: v}
	}
	votes := []feedback.Vote{
		vote("t1", "What is our refund policy?", "30 days [1]", "vector", src, 1, day(1)),
		vote("t1", "What is our refund policy?", "30 days [1]", "vector", src, 1, day(2)),
		vote("t2", "Who supplies Acme?", "Nobody.", "vector", nil, -1, day(3)),
		vote("t3", "Tied?", "Maybe.", "direct", nil, 1, day(4)),
		vote("t3", "Tied?", "Maybe.", "direct", nil, -1, day(4)),
		// Asked again later with a better answer: the later verdict wins.
		vote("t4", "who supplies acme?", "Globex [1].", "graph",
			[]agent.Source{{Title: "Knowledge graph: neighbourhood of Acme"}}, 1, day(5)),
		vote("t5", "", "", "", nil, 1, time.Time{}),
	}
	cases, notes := FromVotes(votes)
	if len(cases) != 2 {
		t.Fatalf("cases = %+v", cases)
	}
	up := cases[0]
	if up.Question != "What is our refund policy?" || up.ExpectedRoute != "vector" || up.MustCite != "Refund Policy" || up.Validate() != nil || !strings.Contains(up.Note, "2 👍 0 👎") {
		t.Errorf("👍 case = %+v", up)
	}
	later := cases[1]
	if later.ExpectedRoute != "graph" || later.ExpectDifferent || later.MustCite != "Knowledge graph: neighbourhood of Acme" {
		t.Errorf("the later answer did not win: %+v", later)
	}
	joined := strings.Join(notes, "\n")
	for _, w := range []string{"as many 👍 as 👎", "answered more than once", "not a usable vote"} {
		if !strings.Contains(joined, w) {
			t.Errorf("notes lack %q:\n%s", w, joined)
		}
	}

	// A 👎 alone becomes an expect_different case that parses back.
	cases, _ = FromVotes(votes[2:3])
	if len(cases) != 1 || !cases[0].ExpectDifferent || cases[0].PreviousAnswer != "Nobody." || cases[0].ExpectedRoute != "" {
		t.Fatalf("👎 case = %+v", cases)
	}
	line, _ := json.Marshal(cases[0])
	back, bad, err := Parse(bytes.NewReader(line))
	if err != nil || len(bad) > 0 || len(back) != 1 {
		t.Errorf("exported case does not parse back: %s: %v %v", line, bad, err)
	}
}

// calibrationOutcomes are hand-made results covering every rule of the
// calibration (package documentation, Calibration).
func calibrationOutcomes() []Outcome {
	src := []agent.Source{{N: 1, Title: "Expense Policy", Location: "docs/expense-policy.md"}}
	none := []string{"couldn't find"}
	return []Outcome{
		// 0: high and right.
		outcome(Case{ID: "high-right", ExpectedRoute: "vector", MustContain: []string{"50 EUR"}},
			agent.Result{Route: "vector", Answer: "Gifts up to 50 EUR [1].", Confidence: "high", Sources: src}, 0),
		// 1: high and wrong: confidently wrong.
		outcome(Case{ID: "high-wrong", ExpectedRoute: "vector", MustContain: []string{"100 EUR"}},
			agent.Result{Route: "vector", Answer: "Meals up to 60 EUR [1].", Confidence: "high", Sources: src}, 0),
		// 2: medium and wrong, on a question that has an answer: wrong, not confidently.
		outcome(Case{ID: "medium-wrong", ExpectedRoute: "vector", MustContain: []string{"22:00"}},
			agent.Result{Route: "vector", Answer: "Taxis are reimbursed [1].", Confidence: "medium", Sources: src}, 0),
		// 3: medium on an answer where none exists, although its words
		// contain the no-answer phrase: confidently wrong.
		outcome(Case{ID: "medium-answered", ExpectedRoute: "vector", MustContain: none},
			agent.Result{Route: "vector", Answer: "I couldn't find a gym benefit, but the wellness budget is 300 EUR [1].", Confidence: "medium", Sources: src}, 0),
		// 4: high on an answer where none exists: confidently wrong.
		outcome(Case{ID: "high-answered", ExpectedRoute: "vector", MustContain: none},
			agent.Result{Route: "vector", Answer: "Invoices are paid by bank transfer [1].", Confidence: "high", Sources: src}, 0),
		// 5: low on an answer where none exists: wrong, not confidently.
		outcome(Case{ID: "low-answered", ExpectedRoute: "vector", MustContain: none},
			agent.Result{Route: "vector", Answer: "Perhaps [1].", Confidence: "low", Sources: src}, 0),
		// 6: none, and none was expected: right.
		outcome(Case{ID: "none-right", ExpectedRoute: "vector", MustContain: none},
			agent.Result{Route: "vector", Answer: "I couldn't find an answer to that.", Confidence: "none"}, 0),
		// 7: none where an answer exists: wrong, not confidently.
		outcome(Case{ID: "none-wrong", ExpectedRoute: "vector", MustContain: []string{"6 months"}},
			agent.Result{Route: "vector", Answer: "I couldn't find an answer to that.", Confidence: "none"}, 0),
		// 8: general, not judged (no must_contain).
		outcome(Case{ID: "general-unjudged", ExpectedRoute: "direct"},
			agent.Result{Route: "direct", Answer: "Hello!", Confidence: "general"}, 0),
		// 9: high, voted down, the same answer again: confidently wrong.
		outcome(Case{ID: "high-same-as-voted-down", ExpectDifferent: true, PreviousAnswer: "It is 42."},
			agent.Result{Route: "direct", Answer: "It is 42.", Confidence: "high"}, 0),
		// 10: failed to run: no badge, not counted.
		score(Outcome{Case: Case{ID: "error", ExpectedRoute: "vector", MustContain: []string{"x"}}, Err: errors.New("boom")}),
		// 11: a badge the eval does not know yet gets a row of its own.
		outcome(Case{ID: "partial", ExpectedRoute: "vector", MustContain: []string{"carry over"}},
			agent.Result{Route: "vector", Answer: "I found related text but nothing that says so [1].", Confidence: "partial", Sources: src}, 0),
	}
}

func TestCalibration(t *testing.T) {
	outcomes := calibrationOutcomes()
	wantWrong := map[string]bool{"high-wrong": true, "medium-answered": true, "high-answered": true, "high-same-as-voted-down": true}
	wantRight := map[string]bool{"high-right": true, "none-right": true}
	for _, o := range outcomes {
		id := o.Case.ID
		if o.ConfidentlyWrong != wantWrong[id] {
			t.Errorf("%s: confidently wrong %v, want %v", id, o.ConfidentlyWrong, wantWrong[id])
		}
		if o.Right() != wantRight[id] {
			t.Errorf("%s: right %v, want %v", id, o.Right(), wantRight[id])
		}
		if o.ConfidentlyWrong && o.Passed() {
			t.Errorf("%s: confidently wrong but passed", id)
		}
	}
	for i, answered := range map[int]bool{3: true, 4: true, 5: true, 6: false, 0: false} {
		if outcomes[i].AnsweredAnyway != answered {
			t.Errorf("%s: answered anyway %v, want %v", outcomes[i].Case.ID, outcomes[i].AnsweredAnyway, answered)
		}
	}
	if EndedWithoutAnswer(outcomes[3].Result) || !EndedWithoutAnswer(outcomes[6].Result) {
		t.Error("EndedWithoutAnswer is off")
	}

	s := Summarize(outcomes)
	if s.ConfidentlyWrong != 4 || strings.Join(s.ConfidentlyWrongCases, ",") != "high-wrong,medium-answered,high-answered,high-same-as-voted-down" {
		t.Errorf("confidently wrong %d: %q", s.ConfidentlyWrong, s.ConfidentlyWrongCases)
	}
	p := func(f float64) *float64 { return &f }
	want := []BadgeCalibration{
		{Badge: "high", Answers: 4, Judged: 4, Right: 1, Precision: p(0.25), ConfidentlyWrong: 3},
		{Badge: "medium", Answers: 2, Judged: 2, Right: 0, Precision: p(0), ConfidentlyWrong: 1},
		{Badge: "low", Answers: 1, Judged: 1, Right: 0, Precision: p(0)},
		{Badge: "general", Answers: 1, Judged: 0, Right: 0},
		{Badge: "none", Answers: 2, Judged: 2, Right: 1, Precision: p(0.5)},
		{Badge: "partial", Answers: 1, Judged: 1, Right: 0, Precision: p(0)},
	}
	if len(s.Calibration) != len(want) {
		t.Fatalf("calibration = %+v", s.Calibration)
	}
	for i, w := range want {
		g := s.Calibration[i]
		if g.Badge != w.Badge || g.Answers != w.Answers || g.Judged != w.Judged || g.Right != w.Right || g.ConfidentlyWrong != w.ConfidentlyWrong ||
			(g.Precision == nil) != (w.Precision == nil) || (g.Precision != nil && *g.Precision != *w.Precision) {
			t.Errorf("row %d = %+v (precision %s), want %+v", i, g, g.PrecisionString(), w)
		}
	}

	// The text report: the table, and the confidently wrong first among the failures.
	out, squashed := textReport(t, s, outcomes)
	for _, w := range []string{
		"Confidently wrong 4 high badge on a wrong answer",
		"badge answers judged right precision confidently wrong",
		"high 4 4 1 25.0% 3", "medium 2 2 0 0.0% 1", "low 1 1 0 0.0% 0", "general 1 0 0 n/a 0", "none 2 2 1 50.0% 0", "partial 1 1 0 0.0% 0",
		"Failed (9, the 4 confidently wrong first):",
		`high-wrong "": CONFIDENTLY WRONG: high badge on a wrong answer; answer lacks "100 EUR"`,
		`medium-answered "": CONFIDENTLY WRONG: medium badge on an answer where none exists`,
		`low-answered "": answer lacks "couldn't find"`,
	} {
		if !strings.Contains(squashed, w) {
			t.Errorf("text lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "where none exists; answered") {
		t.Errorf("a confidently wrong no-answer case is explained twice:\n%s", out)
	}
	lowPhrase := outcome(Case{ID: "low-phrase", ExpectedRoute: "vector", MustContain: []string{"couldn't find"}},
		agent.Result{Route: "vector", Answer: "I couldn't find it, but perhaps [1].", Confidence: "low", Sources: []agent.Source{{N: 1}}}, 0)
	if p := strings.Join(Problems(lowPhrase), "; "); p != "answered (low badge) where no answer exists" || lowPhrase.ConfidentlyWrong {
		t.Errorf("problems = %q, confidently wrong %v", p, lowPhrase.ConfidentlyWrong)
	}
	failures := out[strings.Index(out, "Failed ("):]
	var order []string
	for _, line := range strings.Split(failures, "\n")[1:] {
		if f := strings.Fields(line); len(f) > 0 {
			order = append(order, f[0])
		}
	}
	if got := strings.Join(order, ","); got != "high-wrong,medium-answered,high-answered,high-same-as-voted-down,medium-wrong,low-answered,none-wrong,error,partial" {
		t.Errorf("failures in the order %s", got)
	}

	// The JSON report.
	var back struct {
		Summary
		Results []struct {
			ID               string `json:"id"`
			ConfidentlyWrong bool   `json:"confidently_wrong"`
			AnsweredAnyway   bool   `json:"answered_anyway"`
		} `json:"results"`
	}
	js := jsonReport(t, s, outcomes, &back)
	if back.ConfidentlyWrong != 4 || len(back.ConfidentlyWrongCases) != 4 || len(back.Calibration) != 6 ||
		back.Calibration[0].Precision == nil || *back.Calibration[0].Precision != 0.25 || back.Calibration[3].Precision != nil {
		t.Errorf("JSON summary = %+v", back.Summary)
	}
	if !back.Results[1].ConfidentlyWrong || back.Results[2].ConfidentlyWrong || !back.Results[3].AnsweredAnyway || back.Results[6].AnsweredAnyway {
		t.Errorf("JSON results = %+v", back.Results)
	}
	if !strings.Contains(js, `"precision": null`) {
		t.Errorf("an unjudged badge's precision is not null:\n%s", js)
	}

	// Nothing confidently wrong: [] rather than null.
	if js := jsonReport(t, Summarize(outcomes[:1]), outcomes[:1], &back); !strings.Contains(js, `"confidently_wrong_cases": []`) {
		t.Errorf("confidently wrong cases:\n%s", js)
	}
}

func TestThresholdConfidentlyWrong(t *testing.T) {
	s := Summarize(calibrationOutcomes())
	n := func(i int) *int { return &i }
	if err := (Thresholds{MaxConfidentlyWrong: n(4)}).Check(s); err != nil {
		t.Errorf("4 confidently wrong fail a limit of 4: %v", err)
	}
	if err := (Thresholds{}).Check(s); err != nil {
		t.Errorf("no limit fails: %v", err)
	}
	err := (Thresholds{MaxConfidentlyWrong: n(0)}).Check(s)
	if !errors.Is(err, ErrThreshold) || !strings.Contains(err.Error(),
		"4 confidently wrong (high-wrong, medium-answered, high-answered, high-same-as-voted-down) is more than --max-confidently-wrong 0") {
		t.Errorf("err = %v", err)
	}
	// A clean run meets a limit of 0.
	if err := (Thresholds{MaxConfidentlyWrong: n(0)}).Check(Summarize(calibrationOutcomes()[:1])); err != nil {
		t.Errorf("a run without a confidently wrong answer fails: %v", err)
	}
	// A run that judged nothing cannot pass the gate.
	unjudged := Summarize([]Outcome{calibrationOutcomes()[8], calibrationOutcomes()[10]})
	if err := (Thresholds{MaxConfidentlyWrong: n(0)}).Check(unjudged); !errors.Is(err, ErrThreshold) || !strings.Contains(err.Error(), "no answer was judged") {
		t.Errorf("a gate on nothing passed: %v", err)
	}
	// Many names are cut short.
	many := Summary{ConfidentlyWrong: 12, Calibration: []BadgeCalibration{{Badge: "high", Judged: 12}}}
	for i := range 12 {
		many.ConfidentlyWrongCases = append(many.ConfidentlyWrongCases, fmt.Sprintf("c%d", i))
	}
	if err := (Thresholds{MaxConfidentlyWrong: n(3)}).Check(many); err == nil || !strings.Contains(err.Error(), "c9 and 2 more") {
		t.Errorf("err = %v", err)
	}
}
