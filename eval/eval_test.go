package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
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
			agent.Result{Route: "vector", Answer: "I couldn’t find an answer to that."},
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

	var text bytes.Buffer
	if err := WriteText(&text, s, outcomes); err != nil {
		t.Fatal(err)
	}
	squashed := strings.Join(strings.Fields(text.String()), " ")
	for _, w := range []string{"Route accuracy 4/6 (66.7%)", "No-answer hit-rate 1/1", "vector 1 1 0 0 0 1/2 1/2", `route graph, want vector; answer lacks "Frankfurt"`, "error: boom", "Failed (2)"} {
		if !strings.Contains(squashed, w) {
			t.Errorf("text lacks %q:\n%s", w, text.String())
		}
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, s, outcomes); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Route     Rate                      `json:"route_accuracy"`
		Confusion map[string]map[string]int `json:"confusion"`
		P95       float64                   `json:"latency_p95_ms"`
		Results   []map[string]any          `json:"results"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, js.String())
	}
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
	votes := []Vote{
		{Thread: "t1", Question: "What is our refund policy?", Answer: "30 days [1]", Route: "vector", Sources: src, Vote: 1, At: day(1)},
		{Thread: "t1", Question: "What is our refund policy?", Answer: "30 days [1]", Route: "vector", Sources: src, Vote: 1, At: day(2)},
		{Thread: "t2", Question: "Who supplies Acme?", Answer: "Nobody.", Route: "vector", Vote: -1, At: day(3)},
		{Thread: "t3", Question: "Tied?", Answer: "Maybe.", Route: "direct", Vote: 1, At: day(4)},
		{Thread: "t3", Question: "Tied?", Answer: "Maybe.", Route: "direct", Vote: -1, At: day(4)},
		// Asked again later with a better answer: the later verdict wins.
		{Thread: "t4", Question: "who supplies acme?", Answer: "Globex [1].", Route: "graph",
			Sources: []agent.Source{{Title: "Knowledge graph: neighbourhood of Acme"}}, Vote: 1, At: day(5)},
		{Thread: "t5", Question: "", Vote: 1},
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
