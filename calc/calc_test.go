package calc

import (
	"errors"
	"strings"
	"testing"
)

func TestEvaluate(t *testing.T) {
	tests := []evalCase{
		{"15% of 340", "51"},
		{"15 percent of 340", "51"},
		{"12 * (3+4)", "84"},
		{"2^10", "1024"},
		{"2**10", "1024"},
		{"2^3^2", "512"}, // right-associative
		{"-2^2", "-4"},
		{"sqrt 144", "12"},
		{"sqrt(144) + 1", "13"},
		{"the square root of 2", "1.41421356237"},
		{"1,200 divided by 4", "300"},
		{"3 plus 4 times 2", "11"},
		{"10 minus -2", "12"},
		{"7 / 2", "3.5"},
		{"0.1 + 0.2", "0.3"},
		{".5 * 4", "2"},
		{"3 x 4", "12"},
		{"6 × 7 ÷ 3", "14"},
		{"5 squared", "25"},
		{"2 to the power of 8", "256"},
		{"50%", "0.5"},
		{"20% of 50% of 200", "20"},
		{"((((1))))+1", "2"},
		{"1e3", ""}, // not supported: the "e" is a word
		{"10^20", "1e+20"},
		{"1/3", "0.333333333333"},
	}
	checkEvaluate(t, tests)
}

// evalCase is an expression and its value as formatNumber writes it, ""
// for an expression evaluate must refuse.
type evalCase struct {
	expr string
	want string
}

func checkEvaluate(t *testing.T, tests []evalCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			v, _, err := evaluate(tt.expr)
			if tt.want == "" {
				if err == nil {
					t.Errorf("evaluate(%q) = %v, want an error", tt.expr, v)
				}
				return
			}
			if err != nil {
				t.Fatalf("evaluate(%q): %v", tt.expr, err)
			}
			if got := formatNumber(v); got != tt.want {
				t.Errorf("evaluate(%q) = %s, want %s", tt.expr, got, tt.want)
			}
		})
	}
}

func TestEvaluateErrors(t *testing.T) {
	tests := []struct {
		expr string
		err  error
	}{
		{"5/0", errDivZero},
		{"0^-1", errDivZero},
		{"sqrt(-4)", errDomain},
		{"(-8)^0.5", errDomain},
		{"10^1000", errOverflow},
		{"", errSyntax},
		{"2 +", errSyntax},
		{"(1+2", errSyntax},
		{"1+2)", errSyntax},
		{"2x+3", errSyntax},
		{"5/0 apples", errSyntax}, // not arithmetic at all
		{"our Q3 revenue", errSyntax},
		{strings.Repeat("(", 200) + "1" + strings.Repeat(")", 200), errSyntax}, // too deep
		{strings.Repeat("1+", 200) + "1", errSyntax},                           // too long
	}
	for _, tt := range tests {
		name := tt.expr
		if len(name) > 20 {
			name = name[:20]
		}
		t.Run(name, func(t *testing.T) {
			if _, _, err := evaluate(tt.expr); !errors.Is(err, tt.err) {
				t.Errorf("evaluate(%q) error = %v, want %v", tt.expr, err, tt.err)
			}
		})
	}
}

func TestFormatNumber(t *testing.T) {
	for v, want := range map[float64]string{
		51: "51", 0.5: "0.5", -3: "-3", 1e21: "1e+21", 1e-9: "1e-09", 2.50: "2.5", 0: "0",
	} {
		if got := formatNumber(v); got != want {
			t.Errorf("formatNumber(%v) = %q, want %q", v, got, want)
		}
	}
}

// A lead-in before a colon or a dash is chat, not part of the sum.
func TestAnswerAfterLeadIn(t *testing.T) {
	for q, want := range map[string]string{
		"sanity check for a bitmask: what's 255 + 1?": "255 + 1 is 256.",
		"Quick math — 20% of 45?":                     "20% of 45 is 9.",
		"one more thing - what is 7 * 6?":             "7 * 6 is 42.",
	} {
		if got, _, ok := Answer(q); !ok || got != want {
			t.Errorf("Answer(%q) = %q, %v; want %q", q, got, ok, want)
		}
	}
	for _, q := range []string{"what's 10:30 in minutes?", "Deploy checklist: what comes first?"} {
		if got, _, ok := Answer(q); ok {
			t.Errorf("Answer(%q) = %q: not a calculation", q, got)
		}
	}
}
