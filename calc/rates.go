package calc

import (
	"math"
	"math/big"
	"strings"
)

// Totals from a count and a rate: "four 9-hour days, how many hours
// total?", "26 pay periods times 4 hours each, how many hours is that?",
// "how many minutes is two 45-minute meetings?". The question asks for a
// unit (how many hours) and states two quantities: a count of things
// (four days, 26 pay periods) and a measure of each in a unit of the
// same kind as the one asked for (9 hours a day, 4 hours each). The total
// is their product, converted to the unit asked for: units cancel as in
// any calculation by hand, so nothing here knows what a pay period or a
// meeting is.
//
// The measure is the quantity written as a rate: a compound before its
// thing ("9-hour days"), one followed by each, apiece, per or a ("4 hours
// each", "7.5 hours a day"), or one after "at" ("3 days at 7.5 hours").
// A question with any other word, or with two quantities neither of
// which is a rate, is not a total: "How many hours can I work in four
// 10-hour days?" has "can I work", and "How many days of leave in 3
// years?" has one quantity.

// rateWords may stand between and around the two quantities.
var rateWords = setOf(`times x at of for with and by each apiece per a an total altogether in all is are
that this does do make makes come comes to it`)

// total is a parsed count times rate, asked in a unit.
type total struct {
	count, each *big.Rat
	unit, asked *unit
}

// totalOf parses a question, already stripped of its lead-in and
// lowercased, as a count times a rate.
func totalOf(q string) (total, bool) {
	q = strings.NewReplacer(",", " ", ";", " ", "?", " ", "—", " ").Replace(q)
	ls, err := scanLexemes(q)
	if err != nil {
		return total{}, false
	}
	h := -1
	for i := 0; i+2 < len(ls); i++ {
		if ls[i].is("how") && (ls[i+1].is("many") || ls[i+1].is("much")) {
			h = i
			break
		}
	}
	if h < 0 {
		return total{}, false
	}
	asked, n := unitAt(ls, h+2)
	if asked == nil {
		return total{}, false
	}
	// The quantities stand before "how many <unit>" or after it.
	rest := append(append([]lexeme(nil), ls[:h]...), ls[h+2+n:]...)
	t := total{asked: asked}
	var count *big.Rat
	countsUnits := false       // the counted things are units of the kind asked: "3 days"
	nouns := map[string]bool{} // the words that name the counted things
	for i := 0; i < len(rest); {
		num, ok := numberAt(rest, i)
		if !ok || num.frac {
			if rest[i].kind != lxWord || !rateWords[rest[i].text] && !nouns[rest[i].text] {
				return total{}, false
			}
			i++
			continue
		}
		j := i + num.n
		rate := i > 0 && rest[i-1].is("at")
		compound := j+1 < len(rest) && rest[j].kind == lxSym && rest[j].text == "-"
		if compound {
			j++ // "9-hour days": a compound before the thing it measures
			rate = true
		}
		u, m := unitAt(rest, j)
		if u != nil && u.dim == asked.dim {
			j += m
			if j < len(rest) && (rest[j].is("each") || rest[j].is("apiece") || rest[j].is("per") || rest[j].is("a")) {
				rate = true
			}
		}
		switch {
		case u != nil && u.dim == asked.dim && (rate || t.each == nil && count != nil && !countsUnits):
			if t.each != nil {
				return total{}, false
			}
			t.each, t.unit = num.value, u
			if compound {
				j = things(rest, j, nouns) // "days" in "9-hour days"
			}
		case count == nil && !rate:
			count = num.value
			// A unit of the kind asked is only the counted thing when
			// the other quantity is a rate ("3 days at 7.5 hours").
			if u != nil && u.dim == asked.dim {
				j -= m
				countsUnits = true
			}
			j = things(rest, j, nouns)
		default:
			return total{}, false
		}
		i = j
	}
	if count == nil || t.each == nil || len(nouns) == 0 {
		return total{}, false
	}
	t.count = count
	return t, true
}

// things reads the words that name the counted things at ls[i:], up to
// two ("pay periods"), into nouns, which may come again later ("per pay
// period"), and returns the index after them.
func things(ls []lexeme, i int, nouns map[string]bool) int {
	for k := i; k < len(ls) && k < i+2 && ls[k].kind == lxWord && !rateWords[ls[k].text]; k++ {
		nouns[ls[k].text] = true
		i = k + 1
	}
	return i
}

// answer writes the total: "4 × 9 hours is 36 hours."
func (t total) answer() string {
	sum := new(big.Rat).Mul(t.count, t.each)
	v := conv{qty: sum, from: t.unit, to: t.asked}.result()
	c, _ := t.count.Float64()
	e, _ := t.each.Float64()
	if math.IsInf(v, 0) || math.IsNaN(v) || math.IsInf(c, 0) || math.IsInf(e, 0) {
		return "I can't compute that: " + errOverflow.Error() + "."
	}
	return formatNumber(c) + " × " + formatNumber(e) + " " + t.unit.name(e) + " is " + formatNumber(v) + " " + t.asked.name(v) + "."
}
