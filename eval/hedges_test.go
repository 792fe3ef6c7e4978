package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
)

// hedgeOutcomes are hand-made results covering every rule of the hedge
// and vouch counts (package documentation, Hedges).
func hedgeOutcomes() []Outcome {
	src := []agent.Source{{N: 1, Title: "Leave", Location: "docs/leave.md"}}
	none := []string{NoAnswerPhrase}
	partial := "I found related text but nothing that says how much, so I couldn't find a direct answer. Here is what the sources do say:\n\n"
	return []Outcome{
		// 0: right, medium: an answer, not hedged; vouched and right.
		outcome(Case{ID: "medium-right", ExpectedRoute: "vector", MustContain: []string{"240 hours"}},
			agent.Result{Route: "vector", Answer: "You can carry over 240 hours [1].", Confidence: "medium", Sources: src}, 0),
		// 1: right, but shown as partial under a low badge: hedged.
		outcome(Case{ID: "partial-right", ExpectedRoute: "vector", MustContain: []string{"4 hours"}},
			agent.Result{Route: "vector", Answer: partial + "You can take up to 4 hours to vote [1].", Confidence: "low", Partial: true, Missing: "how much", Sources: src}, 0),
		// 2: right under a low badge without the note (not grounded): hedged.
		outcome(Case{ID: "low-right", ExpectedRoute: "vector", MustContain: []string{"13 days"}},
			agent.Result{Route: "vector", Answer: "Up to 13 days a year [1].", Confidence: "low", Sources: src}, 0),
		// 3: its words contain the fact, but the badge says nothing was found: hedged.
		outcome(Case{ID: "none-right", ExpectedRoute: "vector", MustContain: []string{"90 days"}},
			agent.Result{Route: "vector", Answer: "I couldn't find anything about 90 days.", Confidence: "none"}, 0),
		// 4: partial and wrong: not right, so not a hedged right answer.
		outcome(Case{ID: "partial-wrong", ExpectedRoute: "vector", MustContain: []string{"80 hours"}},
			agent.Result{Route: "vector", Answer: partial + "Award leave expires [1].", Confidence: "low", Partial: true, Sources: src}, 0),
		// 5: no answer exists and the run said so with a partial answer: right, not a hedge.
		outcome(Case{ID: "absent-partial", ExpectedRoute: "vector", MustContain: none},
			agent.Result{Route: "vector", Answer: partial + "Transit subsidies exist [1].", Confidence: "low", Partial: true, Sources: src}, 0),
		// 6: no answer exists, answered under medium: vouched where none exists.
		outcome(Case{ID: "absent-medium", ExpectedRoute: "vector", MustContain: none},
			agent.Result{Route: "vector", Answer: "The gym is free [1].", Confidence: "medium", Sources: src}, 0),
		// 7: no answer exists, answered under high: vouched where none exists.
		outcome(Case{ID: "absent-high", ExpectedRoute: "vector", MustContain: none},
			agent.Result{Route: "vector", Answer: "Sabbaticals are 6 weeks [1].", Confidence: "high", Sources: src}, 0),
		// 8: no answer exists, answered under low: wrong, but not vouched.
		outcome(Case{ID: "absent-low", ExpectedRoute: "vector", MustContain: none},
			agent.Result{Route: "vector", Answer: "Maybe [1].", Confidence: "low", Sources: src}, 0),
		// 9: high and right.
		outcome(Case{ID: "high-right", ExpectedRoute: "vector", MustContain: []string{"KeePassXC"}},
			agent.Result{Route: "vector", Answer: "Use KeePassXC [1].", Confidence: "high", Sources: src}, 0),
		// 10: medium and wrong.
		outcome(Case{ID: "medium-wrong", ExpectedRoute: "vector", MustContain: []string{"670"}},
			agent.Result{Route: "vector", Answer: "Bill it to 1810 [1].", Confidence: "medium", Sources: src}, 0),
		// 11: the calculator, right: neither hedged nor vouched.
		outcome(Case{ID: "direct-right", ExpectedRoute: "direct", MustContain: []string{"512"}},
			agent.Result{Route: "direct", Answer: "4096 / 8 = 512", Confidence: "general"}, 0),
		// 12: a web case without an answer check: counted nowhere.
		outcome(Case{ID: "web-unjudged", ExpectedRoute: "web"},
			agent.Result{Route: "web", Answer: "Web search isn't set up here.", Confidence: "none"}, 0),
		// 13: failed to run: counted nowhere.
		score(Outcome{Case: Case{ID: "error", ExpectedRoute: "vector", MustContain: []string{"x"}}, Err: errors.New("boom")}),
	}
}

func TestHedges(t *testing.T) {
	outcomes := hedgeOutcomes()
	wantHedged := map[string]bool{"partial-right": true, "low-right": true, "none-right": true}
	for _, o := range outcomes {
		if got := o.RightButHedged(); got != wantHedged[o.Case.ID] {
			t.Errorf("%s: right but hedged %v, want %v", o.Case.ID, got, wantHedged[o.Case.ID])
		}
	}
	if !outcomes[5].Right() {
		t.Error("a partial answer to a question without an answer is not right")
	}

	s := Summarize(outcomes)
	// Right answers to questions that have one: 0, 1, 2, 3, 9, 11.
	if s.Hedged != (Rate{Hits: 3, Scored: 6, Value: 0.5}) {
		t.Errorf("right but hedged = %+v", s.Hedged)
	}
	// Judged answers under high or medium: 0, 6, 7, 9, 10; right: 0, 9.
	if s.Vouched != (Rate{Hits: 2, Scored: 5, Value: 0.4}) {
		t.Errorf("high/medium precision = %+v", s.Vouched)
	}
	// Questions without an answer: 5, 6, 7, 8; answered under high or medium: 6, 7.
	if s.VouchedNoAnswer != (Rate{Hits: 2, Scored: 4, Value: 0.5}) {
		t.Errorf("high/medium where no answer exists = %+v", s.VouchedNoAnswer)
	}

	out, squashed := textReport(t, s, outcomes)
	for _, w := range []string{
		"Right but hedged 3/6 (50.0%)",
		"High/medium precision 2/5 (40.0%)",
		"High/medium, no answer 2/4 (50.0%)",
		`Right but hedged (3): partial-right "": low badge, partial`,
		`none-right "": none badge Failed (6`,
	} {
		if !strings.Contains(squashed, w) {
			t.Errorf("text lacks %q:\n%s", w, out)
		}
	}

	var back struct {
		Hedged          Rate `json:"right_but_hedged"`
		Vouched         Rate `json:"high_medium_precision"`
		VouchedNoAnswer Rate `json:"high_medium_where_none_exists"`
		Results         []struct {
			ID     string `json:"id"`
			Hedged bool   `json:"right_but_hedged"`
		} `json:"results"`
	}
	jsonReport(t, s, outcomes, &back)
	if back.Hedged.Hits != 3 || back.Vouched.Scored != 5 || back.VouchedNoAnswer.Hits != 2 || !back.Results[1].Hedged || back.Results[0].Hedged {
		t.Errorf("JSON = %+v", back)
	}
}

func TestCorpusTable(t *testing.T) {
	reports := []CorpusReport{
		{Corpus: "go-docs", File: "eval/corpora/go-docs/frozen.jsonl", Report: NewReport(Summarize(hedgeOutcomes()), hedgeOutcomes())},
		{Corpus: "empty", File: "x.jsonl", Report: NewReport(Summarize(nil), nil)},
	}
	var text bytes.Buffer
	if err := WriteCorpusTable(&text, reports); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) < 3 {
		t.Fatalf("table:\n%s", out)
	}
	squashed := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	if h := squashed(lines[0]); h != "corpus cases route right right but hedged high/medium precision high/medium, no answer confidently wrong" {
		t.Errorf("header = %q", h)
	}
	// Route: 13 scored, 1 failed to run; right: 7 of 13 judged (0, 1, 2, 3, 5, 9, 11).
	want := "go-docs 14 13/14 (92.9%) 7/13 (53.8%) 3/6 (50.0%) 2/5 (40.0%) 2/4 (50.0%) 2"
	if got := squashed(lines[1]); got != want {
		t.Errorf("row = %q\nwant  %q", got, want)
	}
	if got := squashed(lines[2]); got != "empty 0 n/a n/a n/a n/a n/a 0" {
		t.Errorf("empty row = %q", got)
	}
	if !strings.Contains(out, "Confidently wrong in go-docs: absent-medium, absent-high") {
		t.Errorf("the confidently wrong cases are not named:\n%s", out)
	}

	var js bytes.Buffer
	if err := WriteCorporaJSON(&js, reports); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Corpora []struct {
			Corpus  string `json:"corpus"`
			File    string `json:"cases_file"`
			Cases   int    `json:"cases"`
			Hedged  Rate   `json:"right_but_hedged"`
			Results []any  `json:"results"`
		} `json:"corpora"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, js.String())
	}
	if len(back.Corpora) != 2 || back.Corpora[0].Corpus != "go-docs" || back.Corpora[0].File != "eval/corpora/go-docs/frozen.jsonl" ||
		back.Corpora[0].Cases != 14 || back.Corpora[0].Hedged.Hits != 3 || len(back.Corpora[0].Results) != 14 {
		t.Errorf("JSON = %+v", back)
	}
}
