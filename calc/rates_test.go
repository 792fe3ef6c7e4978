package calc

import "testing"

// A count times a rate, in whatever words the things counted have: the
// answer comes from the units, not from knowing what a pay period is.
func TestTotals(t *testing.T) {
	for q, want := range map[string]string{
		"quick math: four 9-hour days, how many hours total?":                              "4 × 9 hours is 36 hours.",
		"quick sanity check on my timesheet: 3 days at 7.5 hours, how many hours is that?": "3 × 7.5 hours is 22.5 hours.",
		"26 pay periods times 4 hours each, how many hours is that?":                       "26 × 4 hours is 104 hours.",
		"How many minutes is two 45-minute meetings?":                                      "2 × 45 minutes is 90 minutes.",
		"two 45-minute meetings, how many hours?":                                          "2 × 45 minutes is 1.5 hours.",
		"12 sprints at 2 weeks each — how many days altogether?":                           "12 × 2 weeks is 168 days.",
		"5 backups of 40 GB apiece, how many TB is that?":                                  "5 × 40 gigabytes is 0.2 terabytes.",
	} {
		if got, reason, ok := Answer(q); !ok || got != want || reason != reasonArithmetic {
			t.Errorf("Answer(%q) = %q, %q, %v; want %q", q, got, reason, ok, want)
		}
	}
	// Questions that state a quantity but are not a count times a rate
	// stay with the documents.
	for _, q := range []string{
		"How many hours can I work in four 10-hour days?", // "can I work"
		"How many days of leave do I get in 3 years?",     // one quantity
		"How many hours is a 4-day work week?",            // a week's hours are not stated
		"3 days, how many hours?",                         // no rate
		"3 days and 2 days, how many hours?",              // two counts, no rate
		"4 hours each and 5 hours each, how many hours?",  // two rates, no count
		"four 9-hour days, how many miles?",               // the unit asked is of another kind
	} {
		if got, _, ok := Answer(q); ok {
			t.Errorf("Answer(%q) = %q: not a total", q, got)
		}
	}
}
