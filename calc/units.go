package calc

import (
	"math"
	"math/big"
	"strings"
)

// Unit conversions for the direct route: "How many seconds are in 2.5
// minutes?", "days in 6 weeks", "convert 3 miles to km". The tables hold
// exact factors (an inch is 0.0254 m by definition), the arithmetic is
// exact (big.Rat), and only the result is rounded, to formatNumber's
// twelve significant digits. Only units of one dimension convert; a
// question with any other word is not a conversion, so "How many days of
// leave do I get in a year?" stays with the documents.

// unit is one unit of measurement.
type unit struct {
	singular, plural string
	dim              string   // time, length, mass or data
	factor           *big.Rat // in the dimension's base unit: second, metre, gram, bit
}

// unitNames maps every spelling of a unit, one or two words, to it.
var unitNames = func() map[string]*unit {
	m := map[string]*unit{}
	add := func(dim, factor, names string) {
		f, ok := new(big.Rat).SetString(factor)
		if !ok {
			panic("bad unit factor " + factor)
		}
		ns := strings.Split(names, ",")
		u := &unit{singular: strings.TrimSpace(ns[0]), plural: strings.TrimSpace(ns[1]), dim: dim, factor: f}
		for _, n := range ns {
			m[strings.TrimSpace(n)] = u
		}
	}
	// Time: base second. A year is 365 days; months, whose length
	// varies, are left out.
	add("time", "1/1000", "millisecond, milliseconds, ms, msec")
	add("time", "1", "second, seconds, sec, secs, s")
	add("time", "60", "minute, minutes, min, mins")
	add("time", "3600", "hour, hours, hr, hrs, h")
	add("time", "86400", "day, days")
	add("time", "604800", "week, weeks, wk, wks")
	add("time", "1209600", "fortnight, fortnights")
	add("time", "31536000", "year, years, yr, yrs")
	add("time", "31622400", "leap year, leap years")
	// Length: base metre.
	add("length", "1/1000", "millimetre, millimetres, millimeter, millimeters, mm")
	add("length", "1/100", "centimetre, centimetres, centimeter, centimeters, cm")
	add("length", "1", "metre, metres, meter, meters, m")
	add("length", "1000", "kilometre, kilometres, kilometer, kilometers, km, kms")
	add("length", "0.0254", "inch, inches")
	add("length", "0.3048", "foot, feet, ft")
	add("length", "0.9144", "yard, yards, yd, yds")
	add("length", "1609.344", "mile, miles, mi")
	add("length", "1852", "nautical mile, nautical miles")
	// Mass: base gram.
	add("mass", "1/1000", "milligram, milligrams, mg")
	add("mass", "1", "gram, grams, g")
	add("mass", "1000", "kilogram, kilograms, kg, kgs, kilo, kilos")
	add("mass", "1000000", "tonne, tonnes, metric ton, metric tons")
	add("mass", "28.349523125", "ounce, ounces, oz")
	add("mass", "453.59237", "pound, pounds, lb, lbs")
	add("mass", "6350.29318", "stone, stones")
	// Data: base bit. Kilo, mega… are powers of 1000; kibi, mebi… of 1024.
	add("data", "1", "bit, bits")
	add("data", "8", "byte, bytes")
	add("data", "1000", "kilobit, kilobits, kbit, kbits")
	add("data", "1000000", "megabit, megabits, mbit, mbits")
	add("data", "1000000000", "gigabit, gigabits, gbit, gbits")
	add("data", "8000", "kilobyte, kilobytes, kb")
	add("data", "8000000", "megabyte, megabytes, mb")
	add("data", "8000000000", "gigabyte, gigabytes, gb")
	add("data", "8000000000000", "terabyte, terabytes, tb")
	add("data", "8000000000000000", "petabyte, petabytes, pb")
	add("data", "8192", "kibibyte, kibibytes, kib")
	add("data", "8388608", "mebibyte, mebibytes, mib")
	add("data", "8589934592", "gibibyte, gibibytes, gib")
	add("data", "8796093022208", "tebibyte, tebibytes, tib")
	return m
}()

// unitAt reads a unit at ls[i:], two words before one ("leap year" before
// "year"), and returns it and the words read.
func unitAt(ls []lexeme, i int) (*unit, int) {
	if i+1 < len(ls) && ls[i].kind == lxWord && ls[i+1].kind == lxWord {
		if u, ok := unitNames[ls[i].text+" "+ls[i+1].text]; ok {
			return u, 2
		}
	}
	if i < len(ls) && ls[i].kind == lxWord {
		if u, ok := unitNames[ls[i].text]; ok {
			return u, 1
		}
	}
	return nil, 0
}

// conv is a parsed conversion: qty of from, asked in to.
type conv struct {
	qty      *big.Rat
	from, to *unit
}

// Words a conversion question may put around its units and quantity.
var (
	// between "how many <unit>" and the quantity: "are there in",
	// "is", "does … have", "make up", "go into".
	convMiddle = setOf(`are is there in does do make makes up go goes into fit fits within`)
	// after the last unit: "does a leap year have", "are there".
	convTail = setOf(`have has contain contains make makes are there`)
	// between "<qty> <unit>" and the unit asked for: "in", "to", "into",
	// "as", "in terms of".
	convInto = setOf(`in to into as terms of`)
)

// conversion parses a unit conversion from a question already stripped
// of its lead-in and lowercased, in one of the forms
//
//	how many|much <unit> [are there in|is|…] <qty> <unit> [have]
//	<unit> in <qty> <unit>                   "days in 6 weeks"
//	<qty> <unit> in|to|into|as <unit>        "2.5 hours in minutes"
//
// where <qty> is a number in digits or words, or "a"/"an" for one. Both
// units must measure the same thing.
func conversion(q string) (conv, bool) {
	ls, err := scanLexemes(q)
	if err != nil || len(ls) < 3 {
		return conv{}, false
	}
	var c conv
	var ok bool
	switch {
	case ls[0].is("how") && (ls[1].is("many") || ls[1].is("much")):
		c, ok = convHowMany(ls[2:])
	default:
		if c, ok = convUnitIn(ls); !ok {
			c, ok = convQtyInto(ls)
		}
	}
	if !ok || c.from.dim != c.to.dim {
		return conv{}, false
	}
	return c, true
}

// convHowMany parses "<unit> [middle words] <qty> <unit> [tail words]".
func convHowMany(ls []lexeme) (conv, bool) {
	to, n := unitAt(ls, 0)
	if to == nil {
		return conv{}, false
	}
	i := n
	for i < len(ls) && ls[i].kind == lxWord && convMiddle[ls[i].text] {
		i++
	}
	qty, from, i, ok := quantityAt(ls, i)
	if !ok {
		return conv{}, false
	}
	for i < len(ls) && ls[i].kind == lxWord && convTail[ls[i].text] {
		i++
	}
	if i != len(ls) {
		return conv{}, false
	}
	return conv{qty: qty, from: from, to: to}, true
}

// convUnitIn parses "<unit> in <qty> <unit>".
func convUnitIn(ls []lexeme) (conv, bool) {
	to, n := unitAt(ls, 0)
	if to == nil || n >= len(ls) || !ls[n].is("in") {
		return conv{}, false
	}
	qty, from, i, ok := quantityAt(ls, n+1)
	if !ok || i != len(ls) {
		return conv{}, false
	}
	return conv{qty: qty, from: from, to: to}, true
}

// convQtyInto parses "<qty> <unit> in|to|into|as <unit>".
func convQtyInto(ls []lexeme) (conv, bool) {
	qty, from, i, ok := quantityAt(ls, 0)
	if !ok {
		return conv{}, false
	}
	j := i
	for j < len(ls) && ls[j].kind == lxWord && convInto[ls[j].text] {
		j++
	}
	if j == i {
		return conv{}, false
	}
	to, n := unitAt(ls, j)
	if to == nil || j+n != len(ls) {
		return conv{}, false
	}
	return conv{qty: qty, from: from, to: to}, true
}

// quantityAt reads "<qty> <unit>" at ls[i:] and returns the index after
// it. "a" or "an" stands for one ("in a day"), and a fraction may take
// "of" and an article ("half an hour", "three quarters of a mile").
func quantityAt(ls []lexeme, i int) (*big.Rat, *unit, int, bool) {
	if i < len(ls) && (ls[i].is("a") || ls[i].is("an")) {
		if u, n := unitAt(ls, i+1); u != nil {
			return big.NewRat(1, 1), u, i + 1 + n, true
		}
	}
	num, ok := numberAt(ls, i)
	if !ok {
		return nil, nil, 0, false
	}
	i += num.n
	if num.frac {
		if i < len(ls) && ls[i].is("of") {
			i++
		}
		if i < len(ls) && (ls[i].is("a") || ls[i].is("an")) {
			i++
		}
	}
	u, n := unitAt(ls, i)
	if u == nil {
		return nil, nil, 0, false
	}
	return num.value, u, i + n, true
}

// result is the quantity in the unit asked for: exact, then rounded for
// display.
func (c conv) result() float64 {
	r := new(big.Rat).Mul(c.qty, c.from.factor)
	r.Quo(r, c.to.factor)
	f, _ := r.Float64()
	return f
}

// answer writes the conversion: "2.5 minutes is 150 seconds."
func (c conv) answer() string {
	q, _ := c.qty.Float64()
	v := c.result()
	if math.IsInf(q, 0) || math.IsInf(v, 0) || math.IsNaN(v) {
		return "I can't convert that: " + errOverflow.Error() + "."
	}
	s := formatNumber(q) + " " + c.from.name(q) + " is " + formatNumber(v) + " " + c.to.name(v) + "."
	if c.from.dim == "data" {
		s += " (A kilobyte is 1,000 bytes and a kibibyte 1,024.)"
	}
	return s
}

// name is the unit's name for a quantity: "1 day", "2 days".
func (u *unit) name(v float64) string {
	if v == 1 {
		return u.singular
	}
	return u.plural
}
