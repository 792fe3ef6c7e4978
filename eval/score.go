package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/switchboard/switchboard/agent"
)

// score fills in o's checks from its result.
func score(o Outcome) Outcome {
	c := o.Case
	o.RouteScored = c.ExpectedRoute != ""
	o.AnswerScored = len(c.MustContain) > 0 || c.ExpectDifferent
	o.CiteScored = c.MustCite != ""
	if o.Err != nil {
		o.Missing = append([]string(nil), c.MustContain...)
		return o
	}
	r := o.Result
	o.RouteOK = r.Route == c.ExpectedRoute
	answer := normalize(r.Answer)
	for _, s := range c.MustContain {
		if !strings.Contains(answer, normalize(s)) {
			o.Missing = append(o.Missing, s)
		}
	}
	o.AnswerOK = len(o.Missing) == 0
	if c.ExpectDifferent && answer == normalize(c.PreviousAnswer) {
		o.AnswerOK = false
	}
	// A no-answer case is right only when the run ended without an
	// answer: "I couldn't find X, but here it is [1]" with a badge is an
	// answer, whatever its words.
	if c.ExpectsNoAnswer() && !EndedWithoutAnswer(r) {
		o.AnsweredAnyway, o.AnswerOK = true, false
	}
	o.CiteOK = Cites(r.Sources, c.MustCite)
	o.ConfidentlyWrong = confidentlyWrong(o)
	return o
}

// Cites reports whether one of sources has want in its title or location,
// compared as must_contain is.
func Cites(sources []agent.Source, want string) bool {
	w := normalize(want)
	if w == "" {
		return false
	}
	for _, s := range sources {
		if strings.Contains(normalize(s.Title), w) || strings.Contains(normalize(s.Location), w) {
			return true
		}
	}
	return false
}

// normalizer drops Markdown emphasis and unifies the punctuation that
// people and documents write in several ways, so that "within **10
// business days**" contains "within 10 business days" and "couldn’t"
// matches "couldn't".
var normalizer = strings.NewReplacer(
	"*", "", "`", "", "_", " ",
	"’", "'", "‘", "'", "“", `"`, "”", `"`,
	"–", "-", "—", "-", "\u00a0", " ",
)

// normalize is what answers and expectations are compared as: lower case,
// without Markdown emphasis, with one space between words.
func normalize(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(normalizer.Replace(s))), " ")
}

// Routes are the rows and columns of the confusion matrix, in order.
var Routes = []agent.Route{agent.RouteVector, agent.RouteGraph, agent.RouteWeb, agent.RouteDirect}

// ErrorColumn is the confusion matrix's column for cases that failed
// before choosing a route.
const ErrorColumn agent.Route = "error"

// Summary is what a run measured.
type Summary struct {
	Cases     int `json:"cases"`
	FollowUps int `json:"follow_ups"`
	NoAnswer  int `json:"no_answer_cases"` // cases that must end without an answer
	Errors    int `json:"errors"`
	Passed    int `json:"passed"` // cases whose every check passed

	Route    Rate `json:"route_accuracy"`
	Answer   Rate `json:"answer_hit_rate"`
	Citation Rate `json:"citation_hit_rate"`
	// NoAnswerRate is the answer hit-rate of the cases that must end
	// without an answer: how often the agent admitted it found nothing.
	NoAnswerRate Rate `json:"no_answer_hit_rate"`
	// AnswerByRoute is the answer hit-rate of the cases expecting each route.
	AnswerByRoute map[agent.Route]Rate `json:"answer_hit_rate_by_route"`
	// Hedged counts, among the right answers to questions that have one,
	// those shown hedged (Outcome.RightButHedged).
	Hedged Rate `json:"right_but_hedged"`
	// Vouched is the precision of the high and medium badges together:
	// the right answers among the judged answers they were given to.
	Vouched Rate `json:"high_medium_precision"`
	// VouchedNoAnswer counts, among the judged cases that must end without
	// an answer, those answered anyway under a high or medium badge.
	VouchedNoAnswer Rate `json:"high_medium_where_none_exists"`

	Confusion Confusion `json:"confusion"`
	// Badges counts answers by confidence badge.
	Badges map[agent.Confidence]int `json:"badges"`
	// Calibration is, for each badge, how many of its answers were right
	// (package documentation, Calibration).
	Calibration []BadgeCalibration `json:"calibration"`
	// ConfidentlyWrong counts the answers that were confidently wrong;
	// ConfidentlyWrongCases names them (Case.Label), in the set's order.
	ConfidentlyWrong      int      `json:"confidently_wrong"`
	ConfidentlyWrongCases []string `json:"confidently_wrong_cases"`

	MeanLLMCalls float64 `json:"mean_llm_calls"`
	MeanTokens   float64 `json:"mean_tokens"`
	LatencyP50   Millis  `json:"latency_p50_ms"`
	LatencyP95   Millis  `json:"latency_p95_ms"`
	// FirstWordsP50 and P95 are when the answers' first words could be
	// shown (Outcome.FirstWords), over the answers that had a draft.
	FirstWordsP50 Millis `json:"first_words_p50_ms"`
	FirstWordsP95 Millis `json:"first_words_p95_ms"`
	Offline       int    `json:"offline_answers"` // answers that used the offline engine
}

// Confusion counts cases by expected route (rows, as Routes) and the route
// chosen (columns: Routes, then ErrorColumn). In JSON it is an object of
// objects: {"vector": {"vector": 20, "graph": 1, …}, …}.
type Confusion [][]int

// MarshalJSON writes the matrix with its route names.
func (c Confusion) MarshalJSON() ([]byte, error) {
	cols := append(slices.Clone(Routes), ErrorColumn)
	m := map[agent.Route]map[agent.Route]int{}
	for i, row := range c {
		if i >= len(Routes) {
			break
		}
		m[Routes[i]] = map[agent.Route]int{}
		for j, n := range row {
			if j < len(cols) {
				m[Routes[i]][cols[j]] = n
			}
		}
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads what MarshalJSON writes; unknown routes are ignored.
func (c *Confusion) UnmarshalJSON(b []byte) error {
	var m map[agent.Route]map[agent.Route]int
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	cols := append(slices.Clone(Routes), ErrorColumn)
	*c = make(Confusion, len(Routes))
	for i, r := range Routes {
		(*c)[i] = make([]int, len(cols))
		for j, col := range cols {
			(*c)[i][j] = m[r][col]
		}
	}
	return nil
}

// Rate is a hit count over the cases it applies to.
type Rate struct {
	Hits   int     `json:"hits"`
	Scored int     `json:"scored"`
	Value  float64 `json:"value"` // Hits/Scored; 0 when nothing was scored
}

func (r *Rate) add(scored, ok bool) {
	if scored {
		r.Scored++
		if ok {
			r.Hits++
		}
	}
}

func (r *Rate) finish() {
	if r.Scored > 0 {
		r.Value = float64(r.Hits) / float64(r.Scored)
	}
}

// String reads "52/60 (86.7%)", or "n/a" when nothing was scored.
func (r Rate) String() string {
	if r.Scored == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%d/%d (%s)", r.Hits, r.Scored, percent(r.Value))
}

// Millis is a duration that marshals as milliseconds.
type Millis time.Duration

// MarshalJSON writes the duration in milliseconds, to 0.1 ms.
func (m Millis) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf("%.1f", float64(m)/float64(time.Millisecond))), nil
}

// UnmarshalJSON reads milliseconds.
func (m *Millis) UnmarshalJSON(b []byte) error {
	var ms float64
	if err := json.Unmarshal(b, &ms); err != nil {
		return err
	}
	*m = Millis(ms * float64(time.Millisecond))
	return nil
}

// String reads "12.3 ms" or "1.24 s".
func (m Millis) String() string {
	d := time.Duration(m)
	if d >= time.Second {
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

// Summarize aggregates outcomes. Model calls, tokens and latency are of
// the cases' own questions, not of their thread turns, and of the cases
// that did not fail.
func Summarize(outcomes []Outcome) Summary {
	s := Summary{Cases: len(outcomes), Badges: map[agent.Confidence]int{}, AnswerByRoute: map[agent.Route]Rate{}}
	s.Confusion = make(Confusion, len(Routes))
	for i := range s.Confusion {
		s.Confusion[i] = make([]int, len(Routes)+1)
	}
	var latencies, firstWords []time.Duration
	var calls, tokens int
	for _, o := range outcomes {
		if len(o.Case.Thread) > 0 {
			s.FollowUps++
		}
		if o.Case.ExpectsNoAnswer() {
			s.NoAnswer++
			s.NoAnswerRate.add(o.AnswerScored, o.AnswerOK)
		}
		if o.Judged() {
			if o.Case.ExpectsNoAnswer() {
				s.VouchedNoAnswer.add(true, o.AnsweredAnyway && vouched(o.Result))
			} else if o.AnswerOK {
				s.Hedged.add(true, o.RightButHedged())
			}
			if vouched(o.Result) {
				s.Vouched.add(true, o.AnswerOK)
			}
		}
		if o.RouteScored {
			r := s.AnswerByRoute[o.Case.ExpectedRoute]
			r.add(o.AnswerScored, o.AnswerOK)
			s.AnswerByRoute[o.Case.ExpectedRoute] = r
		}
		if o.Passed() {
			s.Passed++
		}
		if o.ConfidentlyWrong {
			s.ConfidentlyWrong++
			s.ConfidentlyWrongCases = append(s.ConfidentlyWrongCases, o.Case.Label())
		}
		s.Route.add(o.RouteScored, o.RouteOK)
		s.Answer.add(o.AnswerScored, o.AnswerOK)
		s.Citation.add(o.CiteScored, o.CiteOK)
		if row := slices.Index(Routes, o.Case.ExpectedRoute); row >= 0 {
			col := len(Routes)
			if o.Err == nil {
				col = slices.Index(Routes, o.Result.Route)
			}
			if col >= 0 {
				s.Confusion[row][col]++
			}
		}
		if o.Err != nil {
			s.Errors++
			continue
		}
		s.Badges[o.Result.Confidence]++
		if o.Result.Offline {
			s.Offline++
		}
		calls += o.Result.LLMCalls
		tokens += o.Result.Tokens
		latencies = append(latencies, o.Latency)
		if o.FirstWords > 0 {
			firstWords = append(firstWords, o.FirstWords)
		}
	}
	s.Calibration = calibrate(outcomes)
	if s.ConfidentlyWrongCases == nil {
		s.ConfidentlyWrongCases = []string{} // [] rather than null in JSON
	}
	s.Route.finish()
	s.Answer.finish()
	s.Citation.finish()
	s.NoAnswerRate.finish()
	s.Hedged.finish()
	s.Vouched.finish()
	s.VouchedNoAnswer.finish()
	for k, r := range s.AnswerByRoute {
		r.finish()
		s.AnswerByRoute[k] = r
	}
	if n := len(latencies); n > 0 {
		s.MeanLLMCalls = float64(calls) / float64(n)
		s.MeanTokens = float64(tokens) / float64(n)
		slices.Sort(latencies)
		s.LatencyP50 = Millis(Percentile(latencies, 0.50))
		s.LatencyP95 = Millis(Percentile(latencies, 0.95))
		slices.Sort(firstWords)
		s.FirstWordsP50 = Millis(Percentile(firstWords, 0.50))
		s.FirstWordsP95 = Millis(Percentile(firstWords, 0.95))
	}
	return s
}

// Percentile returns the p-th percentile (0 < p ≤ 1) of sorted values by
// the nearest-rank method: the smallest value with at least p of the
// values at or below it. It returns 0 for no values.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// Thresholds are the least rates a run must reach, and the most
// confidently wrong answers it may give; zero (nil) means unchecked.
type Thresholds struct {
	MinRouteAccuracy float64 // 0..1
	MinAnswerRate    float64 // 0..1
	// MaxConfidentlyWrong, when set, is the most confidently wrong answers
	// a run may have; 0 is a limit, nil is unchecked.
	MaxConfidentlyWrong *int
}

// ErrThreshold marks the error of Check, so that callers can tell a run
// that scored too low from one that could not run.
var ErrThreshold = errors.New("below threshold")

// Check returns an error naming every threshold s does not reach, or nil.
// A threshold on a rate that nothing was scored for fails: a gate that
// measures nothing must not pass.
func (t Thresholds) Check(s Summary) error {
	var failed []string
	check := func(name, flag string, min float64, r Rate) {
		switch {
		case min <= 0:
		case r.Scored == 0:
			failed = append(failed, fmt.Sprintf("%s is not measured (no case checks it), so %s %s cannot be met", name, flag, percent(min)))
		case r.Value < min:
			failed = append(failed, fmt.Sprintf("%s %s is below %s %s", name, r, flag, percent(min)))
		}
	}
	check("route accuracy", "--min-route-accuracy", t.MinRouteAccuracy, s.Route)
	check("answer hit-rate", "--min-answer-rate", t.MinAnswerRate, s.Answer)
	if limit := t.MaxConfidentlyWrong; limit != nil {
		judged := 0
		for _, b := range s.Calibration {
			judged += b.Judged
		}
		switch {
		case judged == 0:
			failed = append(failed, fmt.Sprintf("no answer was judged (no case with must_contain was answered), so --max-confidently-wrong %d cannot be met", *limit))
		case s.ConfidentlyWrong > *limit:
			failed = append(failed, fmt.Sprintf("%d confidently wrong (%s) is more than --max-confidently-wrong %d",
				s.ConfidentlyWrong, listSome(s.ConfidentlyWrongCases, 10), *limit))
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrThreshold, strings.Join(failed, "; "))
}

// listSome joins at most n names, saying how many more there are.
func listSome(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// percent writes a fraction as "86.7%".
func percent(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }
