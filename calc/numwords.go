package calc

import (
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Numbers in words, for the calculator and the unit converter: "three and
// a half", "one thousand two hundred and fifty", "a fifth", "2.5 million",
// "two point five", "a dozen". Values are exact (big.Rat) and bounded:
// scale words must fall (thousand after million, never twice), so a
// number written in words is below 10^15, and a numeral is at most maxExpr
// digits long.

// lexKind is the kind of a lexeme.
type lexKind int

const (
	lxNum  lexKind = iota // a numeral, without thousands separators: "1250.5"
	lxWord                // a lowercase word of ASCII letters
	lxSym                 // one operator or parenthesis, normalised: + - * / ^ ( ) %
)

// lexeme is one word, numeral or symbol of a calculation.
type lexeme struct {
	kind lexKind
	text string
}

func (l lexeme) is(word string) bool { return l.kind == lxWord && l.text == word }

// scanLexemes splits s, lowercased, into numerals, words and symbols. A
// hyphenated number ("twenty-five", "two-thirds") is split into its words;
// any other hyphen between letters keeps the word whole, so that it is an
// unknown word rather than a subtraction. Anything else that is not a
// space, a numeral, a letter or an operator is a syntax error.
func scanLexemes(s string) ([]lexeme, error) {
	if len(s) > maxExpr {
		return nil, errSyntax
	}
	s = strings.ToLower(s)
	var out []lexeme
	sym := func(c string) { out = append(out, lexeme{lxSym, c}) }
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case isDigit(c) || (c == '.' && i+1 < len(s) && isDigit(s[i+1])):
			j, text := scanNumber(s, i)
			out = append(out, lexeme{lxNum, text})
			i = j
		case c == '*' && i+1 < len(s) && s[i+1] == '*':
			sym("^")
			i += 2
		case strings.IndexByte("+-*/^()%", c) >= 0:
			sym(string(c))
			i++
		case c >= 'a' && c <= 'z':
			j := i
			for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] == '-' && j+1 < len(s) && s[j+1] >= 'a' && s[j+1] <= 'z' && j > i) {
				j++
			}
			w := s[i:j]
			i = j
			if parts := strings.Split(w, "-"); len(parts) > 1 && allNumberWords(parts) {
				for _, p := range parts {
					out = append(out, lexeme{lxWord, p})
				}
				continue
			}
			out = append(out, lexeme{lxWord, w})
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			switch r {
			case '×', '·':
				sym("*")
			case '÷':
				sym("/")
			case '−', '–':
				sym("-")
			default:
				return nil, errSyntax
			}
			i += n
		}
	}
	return out, nil
}

// Number words.
var (
	smallNumbers = map[string]int64{
		"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
		"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
		"sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
	}
	tensNumbers = map[string]int64{
		"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
		"ninety": 90,
	}
	scaleNumbers = map[string]int64{
		"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12,
	}
	// denominators name fractions: "a fifth", "three quarters". "second"
	// is left out: "one second" is a time.
	denominators = map[string]int64{
		"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fourth": 4,
		"fourths": 4, "fifth": 5, "fifths": 5, "sixth": 6, "sixths": 6, "seventh": 7, "sevenths": 7,
		"eighth": 8, "eighths": 8, "ninth": 9, "ninths": 9, "tenth": 10, "tenths": 10, "hundredth": 100,
		"hundredths": 100, "thousandth": 1000, "thousandths": 1000,
	}
)

func allNumberWords(parts []string) bool {
	for _, p := range parts {
		_, small := smallNumbers[p]
		_, tens := tensNumbers[p]
		_, den := denominators[p]
		if !small && !tens && !den && p != "hundred" {
			return false
		}
	}
	return true
}

// number is a quantity read from a calculation.
type number struct {
	value *big.Rat
	n     int  // lexemes read
	frac  bool // a fraction in words ("a fifth"), which "of" multiplies
}

// numberAt reads a quantity at ls[i:]: a numeral or number words,
// optionally followed by a scale ("2.5 million"), "dozen", a denominator
// ("one fifth", "two thirds") or a fraction added with "and" ("three and a
// half"). ok is false when ls[i] does not start a number; "a" and "an"
// start one only before a scale, "dozen" or a denominator.
func numberAt(ls []lexeme, i int) (number, bool) {
	if i >= len(ls) {
		return number{}, false
	}
	j := i
	var v *big.Rat
	integer := false // v is a whole number written as one, so a denominator may follow
	switch l := ls[j]; {
	case l.kind == lxNum:
		r, ok := new(big.Rat).SetString(l.text)
		if !ok {
			return number{}, false
		}
		v, j = r, j+1
		integer = !strings.Contains(l.text, ".")
	case l.is("a") || l.is("an"):
		if j+1 >= len(ls) || ls[j+1].kind != lxWord {
			return number{}, false
		}
		next := ls[j+1].text
		_, scale := scaleNumbers[next]
		_, den := denominators[next]
		if !scale && !den && next != "hundred" && next != "dozen" {
			return number{}, false
		}
		if scale || next == "hundred" {
			c, n := cardinal(ls, j+1, 1)
			v, j = new(big.Rat).SetInt64(c), j+1+n
		} else {
			v, j = big.NewRat(1, 1), j+1
		}
		integer = true
	case l.is("half"):
		// "half of 30"; "half an hour" is the unit converter's.
		return number{value: big.NewRat(1, 2), n: 1, frac: true}, true
	case l.kind == lxWord:
		c, n := cardinal(ls, j, 0)
		if n == 0 {
			return number{}, false
		}
		v, j = new(big.Rat).SetInt64(c), j+n
		integer = true
		// "two point five"
		if j+1 < len(ls) && ls[j].is("point") {
			if digits, n := pointDigits(ls, j+1); n > 0 {
				frac, _ := new(big.Rat).SetString("0." + digits)
				v.Add(v, frac)
				j += 1 + n
				integer = false
			}
		}
	default:
		return number{}, false
	}
	// A numeral may take a scale: "2.5 million", "3 thousand".
	if ls[i].kind == lxNum && j < len(ls) && ls[j].kind == lxWord {
		if s, ok := scaleNumbers[ls[j].text]; ok {
			v.Mul(v, new(big.Rat).SetInt64(s))
			j++
		} else if ls[j].text == "hundred" {
			v.Mul(v, big.NewRat(100, 1))
			j++
		}
	}
	if j < len(ls) && ls[j].is("dozen") {
		return number{value: v.Mul(v, big.NewRat(12, 1)), n: j + 1 - i}, true
	}
	if j < len(ls) && ls[j].kind == lxWord && integer && v.Sign() > 0 {
		if d, ok := denominators[ls[j].text]; ok {
			return number{value: v.Quo(v, big.NewRat(d, 1)), n: j + 1 - i, frac: true}, true
		}
	}
	// "three and a half", "two and three quarters"
	if j+2 < len(ls) && ls[j].is("and") && integer {
		if f, ok := numberAt(ls, j+1); ok && f.frac && !ls[j+1].is("half") {
			return number{value: v.Add(v, f.value), n: j + 1 + f.n - i}, true
		}
	}
	return number{value: v, n: j - i}, true
}

// cardinal reads a whole number in words at ls[i:] ("one thousand two
// hundred and fifty", "twenty five", "a hundred" with group 1), and
// returns it and the words read; n is 0 when there is none. It stops at
// the first word that does not continue the number, so "five six" is 5
// and leaves "six" unread.
func cardinal(ls []lexeme, i int, group int64) (value int64, n int) {
	const (
		none = iota
		unit // 0–9
		teen // 10–19
		ten
		hundred
		scale
	)
	last := none
	if group > 0 {
		last = unit // "a" stands for "one"
	}
	var total int64
	lastScale := int64(1e15)
	read := 0
	for j := i; j < len(ls) && ls[j].kind == lxWord; j++ {
		w := ls[j].text
		if v, ok := smallNumbers[w]; ok {
			if last == unit || last == teen || (last == ten && v >= 10) {
				break
			}
			group += v
			last = unit
			if v >= 10 {
				last = teen
			}
		} else if v, ok := tensNumbers[w]; ok {
			if last == unit || last == teen || last == ten {
				break
			}
			group += v
			last = ten
		} else if w == "hundred" {
			if last == none || last == hundred || last == scale || group >= 100 {
				break
			}
			group *= 100
			last = hundred
		} else if v, ok := scaleNumbers[w]; ok {
			if group == 0 || v >= lastScale {
				break
			}
			total += group * v
			group, lastScale, last = 0, v, scale
		} else if w == "and" && (last == hundred || last == scale) && j+1 < len(ls) && ls[j+1].kind == lxWord {
			_, small := smallNumbers[ls[j+1].text]
			_, tens := tensNumbers[ls[j+1].text]
			if !small && !tens {
				break
			}
			continue // "two hundred and fifty": read is updated by the next word
		} else {
			break
		}
		read = j - i + 1
	}
	if read == 0 {
		return 0, 0
	}
	return total + group, read
}

// pointDigits reads the digits after "point": "five", "two five".
func pointDigits(ls []lexeme, i int) (string, int) {
	var b strings.Builder
	n := 0
	for j := i; j < len(ls) && ls[j].kind == lxWord && n < 20; j++ {
		v, ok := smallNumbers[ls[j].text]
		if !ok || v > 9 {
			break
		}
		b.WriteString(strconv.FormatInt(v, 10))
		n++
	}
	return b.String(), n
}
