package eval

import (
	"slices"

	"github.com/switchboard/switchboard/agent"
)

// EndedWithoutAnswer reports whether r is the agent's admission that it
// has no answer rather than an answer: the "none" badge, which the agent
// gives when it found nothing (and to a general question it cannot answer
// offline), and no sources; or a partial answer, which leads with "I found
// related text but nothing that says …" under a low badge and shows that
// text as what it is. Both tell the asker the documents do not say.
func EndedWithoutAnswer(r agent.Result) bool {
	return (r.Confidence == agent.ConfidenceNone && len(r.Sources) == 0) || r.Partial
}

// Right reports whether the outcome's answer passed its answer check (see
// the package documentation, Calibration). Outcomes without an answer
// check, and outcomes that failed to run, are neither right nor wrong.
func (o Outcome) Right() bool {
	return o.Judged() && o.AnswerOK
}

// Judged reports whether the outcome's answer is checked: the case has
// must_contain or expect_different and the question was answered.
func (o Outcome) Judged() bool {
	return o.Err == nil && o.AnswerScored
}

// RightButHedged reports whether o is a right answer to a question that
// has one, shown as if it might not be (package documentation, Hedges): as
// a partial answer ("I found related text but nothing that says …") or
// under a low or none badge.
func (o Outcome) RightButHedged() bool {
	return o.Right() && !o.Case.ExpectsNoAnswer() && hedged(o.Result)
}

// hedged reports whether r tells the asker not to rely on its answer.
func hedged(r agent.Result) bool {
	return r.Partial || r.Confidence == agent.ConfidenceLow || r.Confidence == agent.ConfidenceNone
}

// vouched reports whether r's badge vouches for its answer: high or medium.
func vouched(r agent.Result) bool {
	return r.Confidence == agent.ConfidenceHigh || r.Confidence == agent.ConfidenceMedium
}

// confidentlyWrong decides whether a scored outcome is confidently wrong:
// a high badge on an answer that failed its answer check, or a high or
// medium badge on an answer given when the case expects none.
func confidentlyWrong(o Outcome) bool {
	if !o.Judged() || o.AnswerOK {
		return false
	}
	switch o.Result.Confidence {
	case agent.ConfidenceHigh:
		return true
	case agent.ConfidenceMedium:
		return o.AnsweredAnyway
	}
	return false
}

// BadgeCalibration is how often the answers shown with one badge were
// right.
type BadgeCalibration struct {
	Badge agent.Confidence `json:"badge"`
	// Answers is how many cases were answered with the badge; Judged, how
	// many of those have an answer check; Right, how many passed it.
	Answers int `json:"answers"`
	Judged  int `json:"judged"`
	Right   int `json:"right"`
	// Precision is Right/Judged; null when nothing was judged.
	Precision *float64 `json:"precision"`
	// ConfidentlyWrong is how many of the badge's answers were.
	ConfidentlyWrong int `json:"confidently_wrong"`
}

// PrecisionString reads "83.3%", or "n/a" when nothing was judged.
func (b BadgeCalibration) PrecisionString() string {
	if b.Precision == nil {
		return "n/a"
	}
	return percent(*b.Precision)
}

// calibrate counts, for each badge, the answers, the judged ones and the
// right ones. Every badge of badgeOrder has a row, in that order, then any
// other badge met, by name; outcomes that failed to run have no badge and
// are left out.
func calibrate(outcomes []Outcome) []BadgeCalibration {
	rows := map[agent.Confidence]*BadgeCalibration{}
	for _, b := range badgeOrder {
		rows[b] = &BadgeCalibration{Badge: b}
	}
	var extra []agent.Confidence
	for _, o := range outcomes {
		if o.Err != nil {
			continue
		}
		b := o.Result.Confidence
		row := rows[b]
		if row == nil {
			row = &BadgeCalibration{Badge: b}
			rows[b] = row
			extra = append(extra, b)
		}
		row.Answers++
		if o.Judged() {
			row.Judged++
		}
		if o.Right() {
			row.Right++
		}
		if o.ConfidentlyWrong {
			row.ConfidentlyWrong++
		}
	}
	slices.Sort(extra)
	out := make([]BadgeCalibration, 0, len(rows))
	for _, b := range append(slices.Clone(badgeOrder), extra...) {
		row := *rows[b]
		if row.Judged > 0 {
			p := float64(row.Right) / float64(row.Judged)
			row.Precision = &p
		}
		out = append(out, row)
	}
	return out
}
