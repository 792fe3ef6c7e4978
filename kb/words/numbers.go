package words

import (
	"math"
	"strconv"
	"strings"
)

// Ordinal returns the digits of an ordinal written in digits ("10th",
// "2nd"), or "".
func Ordinal(w string) string {
	if len(w) < 3 {
		return ""
	}
	switch w[len(w)-2:] {
	case "st", "nd", "rd", "th":
		if d := w[:len(w)-2]; IsDigits(d) {
			return d
		}
	}
	return ""
}

// Numbers returns the numbers written in s, canonicalised so that "1,000",
// "1000" and "1000.0" compare equal. Only digits count: "thirty" is a word.
func Numbers(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		if !isDigit(s[i]) {
			i++
			continue
		}
		j := i
		var b strings.Builder
		dot := false
		for j < len(s) {
			c := s[j]
			switch {
			case isDigit(c):
				b.WriteByte(c)
				j++
				continue
			case c == ',' && allDigits(s, j+1, 3) && (j+4 >= len(s) || !isDigit(s[j+4])):
				// A thousands separator: exactly three digits follow.
				j++
				continue
			case c == '.' && !dot && j+1 < len(s) && isDigit(s[j+1]):
				dot = true
				b.WriteByte(c)
				j++
				continue
			}
			break
		}
		out = append(out, canonicalNumber(b.String()))
		i = j
	}
	return out
}

func allDigits(s string, from, n int) bool {
	if from+n > len(s) {
		return false
	}
	for k := from; k < from+n; k++ {
		if !isDigit(s[k]) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// canonicalNumber writes a digit string in its shortest form ("007" is "7",
// "30.50" is "30.5"). Strings too long to be a float stay as they are.
func canonicalNumber(s string) string {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || len(s) > 20 {
		return s
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// numberWords are the number words a chat question states a number in;
// "one" is left out ("which one").
var numberWords = map[string]string{
	"two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
	"nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "twenty": "20", "thirty": "30",
	"forty": "40", "fifty": "50", "sixty": "60", "ninety": "90", "hundred": "100",
}

// NumberWord returns the digits of a lowercase number word ("six" is "6").
func NumberWord(w string) (digits string, ok bool) {
	digits, ok = numberWords[w]
	return digits, ok
}
