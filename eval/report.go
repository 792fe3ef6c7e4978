package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/internal/text"
)

// badgeOrder is the order badges are listed in.
var badgeOrder = []agent.Confidence{agent.ConfidenceHigh, agent.ConfidenceMedium, agent.ConfidenceLow, agent.ConfidenceGeneral, agent.ConfidenceNone}

// WriteText writes the summary as tables for a terminal, then one line for
// each case that failed a check, saying which.
func WriteText(w io.Writer, s Summary, outcomes []Outcome) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Cases\t%d (follow-ups %d, no-answer %d)\t%d passed every check, %d failed to run\n",
		s.Cases, s.FollowUps, s.NoAnswer, s.Passed, s.Errors)
	fmt.Fprintf(tw, "Route accuracy\t%s\n", s.Route)
	fmt.Fprintf(tw, "Answer hit-rate\t%s\tall must_contain found\n", s.Answer)
	fmt.Fprintf(tw, "Citation hit-rate\t%s\tmust_cite among the sources\n", s.Citation)
	fmt.Fprintf(tw, "No-answer hit-rate\t%s\tcases that must end without an answer and did\n", s.NoAnswerRate)
	fmt.Fprintf(tw, "Right but hedged\t%s\tright answers shown as partial (\"I found related text but nothing that says …\") or under a low or none badge\n", s.Hedged)
	fmt.Fprintf(tw, "High/medium precision\t%s\tright among the judged answers with a high or medium badge\n", s.Vouched)
	fmt.Fprintf(tw, "High/medium, no answer\t%s\tcases without an answer in the documents answered under a high or medium badge\n", s.VouchedNoAnswer)
	fmt.Fprintf(tw, "Confidently wrong\t%d\thigh badge on a wrong answer, or high/medium on an answer where none exists\n", s.ConfidentlyWrong)
	fmt.Fprintf(tw, "Model calls\t%.1f per question, %.0f tokens\t%d of %d answers offline\n",
		s.MeanLLMCalls, s.MeanTokens, s.Offline, s.Cases-s.Errors)
	fmt.Fprintf(tw, "Latency\tp50 %s · p95 %s\tfirst words of the answer: p50 %s · p95 %s\n", s.LatencyP50, s.LatencyP95, s.FirstWordsP50, s.FirstWordsP95)
	if err := tw.Flush(); err != nil {
		return err
	}

	fmt.Fprintln(w, "\nRoutes (rows: expected, columns: chosen)")
	fmt.Fprintf(w, "  %-8s", "")
	for _, r := range append(slices.Clone(Routes), ErrorColumn) {
		fmt.Fprintf(w, "%8s", r)
	}
	fmt.Fprintf(w, "%10s%10s\n", "correct", "answers")
	for i, r := range Routes {
		fmt.Fprintf(w, "  %-8s", r)
		total := 0
		for _, n := range s.Confusion[i] {
			fmt.Fprintf(w, "%8d", n)
			total += n
		}
		a := s.AnswerByRoute[r]
		fmt.Fprintf(w, "%10s%10s\n", fmt.Sprintf("%d/%d", s.Confusion[i][i], total), fmt.Sprintf("%d/%d", a.Hits, a.Scored))
	}

	if err := writeCalibration(w, s.Calibration); err != nil {
		return err
	}

	if err := writeHedged(w, outcomes); err != nil {
		return err
	}

	// The confidently wrong first: they are the worst failures.
	var failed, wrong []Outcome
	for _, o := range outcomes {
		switch {
		case o.ConfidentlyWrong:
			wrong = append(wrong, o)
		case !o.Passed():
			failed = append(failed, o)
		}
	}
	failed = append(wrong, failed...)
	if len(failed) == 0 {
		_, err := fmt.Fprintln(w, "\nEvery case passed.")
		return err
	}
	if len(wrong) > 0 {
		fmt.Fprintf(w, "\nFailed (%d, the %d confidently wrong first):\n", len(failed), len(wrong))
	} else {
		fmt.Fprintf(w, "\nFailed (%d):\n", len(failed))
	}
	for _, o := range failed {
		fmt.Fprintf(w, "  %s %q: %s\n", o.Case.Label(), text.Clip(text.OneLine(o.Case.Question), 60), strings.Join(Problems(o), "; "))
	}
	return nil
}

// writeCalibration writes the badge table: for each badge, its answers,
// those judged, those right and the precision.
func writeCalibration(w io.Writer, rows []BadgeCalibration) error {
	fmt.Fprintln(w, "\nBadges (judged: answers with an answer check; right: passed it; precision: right/judged)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	width := len("badge")
	for _, b := range rows {
		width = max(width, len(badgeName(b.Badge)))
	}
	// The names padded to one width, so that right alignment leaves them
	// aligned on the left.
	fmt.Fprintf(tw, "%-*s\tanswers\tjudged\tright\tprecision\tconfidently wrong\t\n", width, "badge")
	for _, b := range rows {
		fmt.Fprintf(tw, "%-*s\t%d\t%d\t%d\t%s\t%d\t\n", width, badgeName(b.Badge), b.Answers, b.Judged, b.Right, b.PrecisionString(), b.ConfidentlyWrong)
	}
	return tw.Flush()
}

// writeHedged lists the right answers that were shown hedged, with how:
// they pass every check, yet the asker was told not to rely on them.
func writeHedged(w io.Writer, outcomes []Outcome) error {
	var hedged []Outcome
	for _, o := range outcomes {
		if o.RightButHedged() {
			hedged = append(hedged, o)
		}
	}
	if len(hedged) == 0 {
		return nil
	}
	if _, err := fmt.Fprintf(w, "\nRight but hedged (%d):\n", len(hedged)); err != nil {
		return err
	}
	for _, o := range hedged {
		how := badgeName(o.Result.Confidence) + " badge"
		if o.Result.Partial {
			how += ", partial"
		}
		if _, err := fmt.Fprintf(w, "  %s %q: %s\n", o.Case.Label(), text.Clip(text.OneLine(o.Case.Question), 60), how); err != nil {
			return err
		}
	}
	return nil
}

// badgeName is how a badge is written in the table.
func badgeName(b agent.Confidence) string {
	if b == "" {
		return "(no badge)"
	}
	return string(b)
}

// Problems lists, for people, the checks an outcome failed; a confidently
// wrong outcome says so first.
func Problems(o Outcome) []string {
	if o.Err != nil {
		return []string{"error: " + o.Err.Error()}
	}
	var p []string
	if o.ConfidentlyWrong {
		what := "a wrong answer"
		if o.AnsweredAnyway {
			what = "an answer where none exists"
		}
		p = append(p, fmt.Sprintf("CONFIDENTLY WRONG: %s badge on %s", o.Result.Confidence, what))
	}
	if o.RouteScored && !o.RouteOK {
		p = append(p, fmt.Sprintf("route %s, want %s", o.Result.Route, o.Case.ExpectedRoute))
	}
	if len(o.Missing) > 0 {
		quoted := make([]string, len(o.Missing))
		for i, m := range o.Missing {
			quoted[i] = fmt.Sprintf("%q", m)
		}
		p = append(p, "answer lacks "+strings.Join(quoted, ", "))
	}
	if o.AnsweredAnyway && len(o.Missing) == 0 && !o.ConfidentlyWrong {
		p = append(p, fmt.Sprintf("answered (%s badge) where no answer exists", badgeName(o.Result.Confidence)))
	}
	if o.Case.ExpectDifferent && o.AnswerScored && !o.AnswerOK && len(o.Missing) == 0 {
		p = append(p, "same answer as the one voted down")
	}
	if o.CiteScored && !o.CiteOK {
		p = append(p, fmt.Sprintf("no source matches %q", o.Case.MustCite))
	}
	return p
}

// Report is the --json form of a run: the summary and every case.
type Report struct {
	Summary
	Results []CaseResult `json:"results"`
}

// CaseResult is one case in a Report.
type CaseResult struct {
	Line          int              `json:"line,omitempty"`
	ID            string           `json:"id,omitempty"`
	Question      string           `json:"question"`
	ExpectedRoute agent.Route      `json:"expected_route,omitempty"`
	Route         agent.Route      `json:"route,omitempty"`
	Passed        bool             `json:"passed"`
	RouteOK       *bool            `json:"route_ok,omitempty"`
	AnswerOK      *bool            `json:"answer_ok,omitempty"`
	CiteOK        *bool            `json:"cite_ok,omitempty"`
	Missing       []string         `json:"missing,omitempty"`
	Confidence    agent.Confidence `json:"confidence,omitempty"`
	// ConfidentlyWrong is set on the cases Summary.ConfidentlyWrongCases
	// names.
	ConfidentlyWrong bool `json:"confidently_wrong,omitempty"`
	// AnsweredAnyway: the case expects no answer and got one.
	AnsweredAnyway bool `json:"answered_anyway,omitempty"`
	// Hedged: a right answer shown hedged (Outcome.RightButHedged).
	Hedged   bool           `json:"right_but_hedged,omitempty"`
	LLMCalls int            `json:"llm_calls"`
	Tokens   int            `json:"tokens"`
	Latency  Millis         `json:"latency_ms"`
	Answer   string         `json:"answer,omitempty"`
	Sources  []agent.Source `json:"sources,omitempty"`
	Error    string         `json:"error,omitempty"`
}

// NewReport builds the --json form of a run. Checks that do not apply to
// a case are left out rather than reported as passed.
func NewReport(s Summary, outcomes []Outcome) Report {
	rep := Report{Summary: s, Results: make([]CaseResult, 0, len(outcomes))}
	opt := func(scored, ok bool) *bool {
		if !scored {
			return nil
		}
		return &ok
	}
	for _, o := range outcomes {
		cr := CaseResult{
			Line: o.Case.Line, ID: o.Case.ID, Question: o.Case.Question, ExpectedRoute: o.Case.ExpectedRoute,
			Passed: o.Passed(), Missing: o.Missing, Latency: Millis(o.Latency),
		}
		if o.Err != nil {
			cr.Error = o.Err.Error()
		} else {
			cr.Route, cr.Confidence, cr.Answer, cr.Sources = o.Result.Route, o.Result.Confidence, o.Result.Answer, o.Result.Sources
			cr.LLMCalls, cr.Tokens = o.Result.LLMCalls, o.Result.Tokens
			cr.RouteOK, cr.AnswerOK, cr.CiteOK = opt(o.RouteScored, o.RouteOK), opt(o.AnswerScored, o.AnswerOK), opt(o.CiteScored, o.CiteOK)
			cr.ConfidentlyWrong, cr.AnsweredAnyway, cr.Hedged = o.ConfidentlyWrong, o.AnsweredAnyway, o.RightButHedged()
		}
		rep.Results = append(rep.Results, cr)
	}
	return rep
}

// WriteJSON writes NewReport(s, outcomes), indented.
func WriteJSON(w io.Writer, s Summary, outcomes []Outcome) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(NewReport(s, outcomes))
}

// CorpusReport is one corpus of a run over several (bot eval --corpus):
// its name, the file its cases came from and its report.
type CorpusReport struct {
	Corpus string `json:"corpus"`
	File   string `json:"cases_file"`
	Report
}

// WriteCorpusTable writes one row per corpus: its cases, route accuracy,
// right answers, right but hedged, the precision of the high and medium
// badges, those badges on answers where none exists and the confidently
// wrong; then the names of the confidently wrong cases of each corpus.
func WriteCorpusTable(w io.Writer, reports []CorpusReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "corpus\tcases\troute\tright\tright but hedged\thigh/medium precision\thigh/medium, no answer\tconfidently wrong")
	for _, r := range reports {
		s := r.Summary
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%d\n", r.Corpus, s.Cases, s.Route, s.Answer, s.Hedged, s.Vouched, s.VouchedNoAnswer, s.ConfidentlyWrong)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range reports {
		if len(r.ConfidentlyWrongCases) == 0 {
			continue
		}
		if _, err := fmt.Fprintf(w, "Confidently wrong in %s: %s\n", r.Corpus, strings.Join(r.ConfidentlyWrongCases, ", ")); err != nil {
			return err
		}
	}
	return nil
}

// WriteCorporaJSON writes {"corpora": [...]}, one CorpusReport each, indented.
func WriteCorporaJSON(w io.Writer, reports []CorpusReport) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(struct {
		Corpora []CorpusReport `json:"corpora"`
	}{reports})
}
