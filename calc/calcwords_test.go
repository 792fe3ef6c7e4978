package calc

import (
	"math"
	"strings"
	"testing"
)

func TestEvaluateWords(t *testing.T) {
	tests := []evalCase{ // want "" for not arithmetic
		{"one fifth of one thousand two hundred and fifty", "250"},
		{"a fifth of 1,250", "250"},
		{"half of 30", "15"},
		{"three quarters of 200", "150"},
		{"two thirds of ninety", "60"},
		{"twenty-five times four", "100"},
		{"twenty five times four", "100"},
		{"one hundred divided by eight", "12.5"},
		{"a hundred plus one", "101"},
		{"one million minus one", "999999"},
		{"two point five times four", "10"},
		{"three and a half times two", "7"},
		{"2 and a half times 2", "5"},
		{"a dozen times three", "36"},
		{"twenty per cent of 340", "68"},
		{"2.5 million divided by 5", "500000"},
		{"nineteen hundred plus one", "1901"},
		{"one", "1"},     // a number, though not a calculation
		{"five six", ""}, // two numbers
		{"half of our budget", ""},
		{"one thing", ""},
		{"a", ""},
		{"a fifth", "0.2"},
		{"ten-five", ""}, // a hyphen inside a word is not a minus
		{"ten - five", "5"},
		{"thousand million", ""}, // a scale needs a number before it
	}
	checkEvaluate(t, tests)
}

func TestCardinalBounded(t *testing.T) {
	// Scales must fall, so words cannot build a number of 10^15 or more:
	// the second "trillion" ends the number.
	ls, err := scanLexemes(strings.Repeat("nine hundred ninety nine trillion ", 5))
	if err != nil {
		t.Fatal(err)
	}
	v, n := cardinal(ls, 0, 0)
	if v != 999e12+999 || n != 9 {
		t.Errorf("cardinal = %d, %d words; want 999000000000999 after 9 words", v, n)
	}
}

func TestCalculate(t *testing.T) {
	tests := []struct {
		question, answer, reason string // answer "" for not a calculation
	}{
		// Unit conversions.
		{"how many seconds are in 2.5 minutes", "2.5 minutes is 150 seconds.", reasonConversion},
		{"How many hours are there in three and a half days?", "3.5 days is 84 hours.", reasonConversion},
		{"How many minutes are in two and a half hours?", "2.5 hours is 150 minutes.", reasonConversion},
		{"How many days are there in six weeks?", "6 weeks is 42 days.", reasonConversion},
		{"days in 6 weeks", "6 weeks is 42 days.", reasonConversion},
		{"How many days are there in a leap year?", "1 leap year is 366 days.", reasonConversion},
		{"How many days is a fortnight?", "1 fortnight is 14 days.", reasonConversion},
		{"How many days does a leap year have?", "1 leap year is 366 days.", reasonConversion},
		{"how many minutes is half an hour", "0.5 hours is 30 minutes.", reasonConversion},
		{"How many minutes in a quarter of an hour?", "0.25 hours is 15 minutes.", reasonConversion},
		{"What is 3 hours in minutes?", "3 hours is 180 minutes.", reasonConversion},
		{"convert 5 km to miles", "5 kilometres is 3.10685596119 miles.", reasonConversion},
		{"What is 10 miles in kilometres?", "10 miles is 16.09344 kilometres.", reasonConversion},
		{"How many feet in a mile?", "1 mile is 5280 feet.", reasonConversion},
		{"How many inches in 2 feet?", "2 feet is 24 inches.", reasonConversion},
		{"How many grams in a pound?", "1 pound is 453.59237 grams.", reasonConversion},
		{"How many ounces are in a kilogram?", "1 kilogram is 35.2739619496 ounces.", reasonConversion},
		{"How many MiB in 1 GiB?", "1 gibibyte is 1024 mebibytes. (A kilobyte is 1,000 bytes and a kibibyte 1,024.)", reasonConversion},
		{"How many megabytes are in a gigabyte?", "1 gigabyte is 1000 megabytes. (A kilobyte is 1,000 bytes and a kibibyte 1,024.)", reasonConversion},
		{"How many bits in a byte?", "1 byte is 8 bits. (A kilobyte is 1,000 bytes and a kibibyte 1,024.)", reasonConversion},
		// Arithmetic in words.
		{"What is one fifth of one thousand two hundred and fifty?", "one fifth of one thousand two hundred and fifty is 250.", reasonArithmetic},
		{"What is 15% of 340?", "15% of 340 is 51.", reasonArithmetic},
		// Not calculations: other words, other dimensions, months.
		{"how many seconds are in 2.5 kilograms", "", ""},
		{"How many days are in a month?", "", ""},
		{"How many hours are in a working day?", "", ""},
		{"How many days of vacation do I get in a year?", "", ""},
		{"How many hours does the support team work per week?", "", ""},
		{"How many kilometres is the office from the station?", "", ""},
		{"How many days are in the refund window?", "", ""},
		{"How many weeks of paid support can a new mother in New Jersey get around giving birth?", "", ""},
		{"What is the half-life of a support ticket?", "", ""},
		{"What is one?", "", ""},
		{"days", "", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			answer, reason, ok := Answer(tt.question)
			if ok != (tt.answer != "") || answer != tt.answer || reason != tt.reason {
				t.Errorf("Answer(%q) = %q, %q, %v; want %q, %q", tt.question, answer, reason, ok, tt.answer, tt.reason)
			}
		})
	}
}

func TestConversionExact(t *testing.T) {
	// Factors are exact: a mile is 1609.344 m, so a million miles is
	// exactly 1609344 km, and back.
	c, ok := conversion("1000000 miles in km")
	if !ok || c.result() != 1609344 {
		t.Errorf("1000000 miles in km = %v, %v", c.result(), ok)
	}
	c, ok = conversion("1609344 km in miles")
	if !ok || c.result() != 1e6 {
		t.Errorf("1609344 km in miles = %v, %v", c.result(), ok)
	}
}

func FuzzCalculate(f *testing.F) {
	for _, s := range []string{
		"how many seconds are in 2.5 minutes", "How many hours are there in three and a half days?",
		"What is one fifth of one thousand two hundred and fifty?", "days in 6 weeks", "convert 5 km to miles",
		"how many minutes is half an hour", "a quarter of an hour in seconds", "two-thirds of ninety",
		"nine hundred ninety nine trillion nine hundred thousand", "a a a a", "and and", "half of half of 8",
		"how many", "in in in", "1 and a half and a half days in hours", "twenty-", "-twenty",
		"four 9-hour days, how many hours total?", "3 days at 7.5 hours, how many hours is that?",
		"how many minutes is two 45-minute meetings", "9999999999999 9999999999999-hour x, how many years",
		"at at 5 hours each, how many hours", "-5-hour days, how many hours",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		answer, reason, ok := Answer(s)
		if ok && (answer == "" || reason == "") {
			t.Errorf("Answer(%q) = %q, %q, true", s, answer, reason)
		}
		if strings.Contains(answer, "NaN") || strings.Contains(answer, "Inf") {
			t.Errorf("Answer(%q) = %q", s, answer)
		}
		if c, ok := conversion(s); ok {
			if v := c.result(); math.IsNaN(v) || v < 0 {
				t.Errorf("conversion(%q) = %v", s, v)
			}
		}
	})
}
