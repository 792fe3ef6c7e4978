package calc

import (
	"math"
	"strings"
	"testing"
)

// The calculator reads whatever users type: it must never panic, and a
// value without an error is a real number.

func FuzzCalc(f *testing.F) {
	for _, s := range []string{
		"15% of 340", "12 * (3+4)", "2^10", "sqrt 144", "1,000.5 / 3", "-(-(-1))",
		"2^2^2^2^2", "5/0", "sqrt(-1)", "1e3", "((", "", "3 x (4", "50 percent of",
		"the square root of", "6 × 7 ÷ 3 − 1", "9" + strings.Repeat("9", 300),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, _, err := evaluate(s)
		if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Errorf("evaluate(%q) = %v without an error", s, v)
		}
		_ = formatNumber(v)
		_, _, _, _ = arithmetic(s)
	})
}
