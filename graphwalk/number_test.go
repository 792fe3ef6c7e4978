package graphwalk

import "testing"

func TestParseNumber(t *testing.T) {
	for in, want := range map[string]float64{
		"1200": 1200, "3,400": 3400, "$1.2M": 1.2e6, "EUR 5k": 5000, "12%": 12, "2bn": 2e9, " 7 ": 7,
	} {
		if got, ok := parseNumber(in); !ok || got != want {
			t.Errorf("parseNumber(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "gold", "NaN", "Inf", "1.2.3"} {
		if _, ok := parseNumber(in); ok {
			t.Errorf("parseNumber(%q) ok", in)
		}
	}
}
