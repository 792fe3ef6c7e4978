// Package calc is the calculator behind the offline engine's direct route:
// Answer evaluates arithmetic, in symbols or words ("What is 15% of 340?",
// "a fifth of one thousand two hundred and fifty"), and unit conversions
// ("How many seconds are in 2.5 minutes?"), and says no to anything else.
// It is a package of its own because none of it depends on the engine: it
// reads one question and knows nothing of documents.
//
// The calculator is a recursive-descent parser that evaluates as it
// parses. Grammar, loosest binding first:
//
//	expr    = term { ("+" | "-") term }
//	term    = unary { ("*" | "/") unary }
//	unary   = ("-" | "+") unary | power
//	power   = postfix [ "^" unary ]            right-associative; -2^2 is -4
//	postfix = primary [ "%" [ "of" unary ] ]   "15% of 340" is 15*340/100
//	primary = number | "(" expr ")" | "sqrt" [ "of" ] power
//
// Words stand for symbols: plus, minus, times, x, multiplied by, divided by,
// over, percent, square root of, squared, cubed, to the power of. Input is
// bounded (maxExpr bytes, maxDepth nesting), so no expression can exhaust
// the stack or the CPU.
package calc

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

const (
	maxExpr  = 256 // longest expression accepted, in bytes
	maxDepth = 64  // deepest nesting of parentheses and prefix operators
)

var (
	errSyntax   = errors.New("not an arithmetic expression")
	errDivZero  = errors.New("can't divide by zero")
	errDomain   = errors.New("the result is not a real number")
	errOverflow = errors.New("the result is too large to show")
)

type calcKind int

const (
	kNum  calcKind = iota // a number
	kOp                   // one of + - * / ^ ( ) %
	kOf                   // "of", after a percentage or "square root"
	kSqrt                 // sqrt
)

type calcToken struct {
	kind calcKind
	op   byte
	num  float64
}

// lexCalc turns an expression into tokens. Any word or symbol it does not
// know makes the whole text "not arithmetic", which is how the router tells
// "what is 12*7" from "what is our Q3 revenue". Numbers may be written in
// words ("one thousand two hundred and fifty", "three and a half"), and a
// fraction in words multiplies what follows "of": "a fifth of 1,250" is
// (1/5) * 1250.
func lexCalc(s string) ([]calcToken, error) {
	ls, err := scanLexemes(s)
	if err != nil {
		return nil, err
	}
	var toks []calcToken
	op := func(c byte) { toks = append(toks, calcToken{kind: kOp, op: c}) }
	for i := 0; i < len(ls); {
		l := ls[i]
		if l.kind == lxSym {
			op(l.text[0])
			i++
			continue
		}
		if n, ok := numberAt(ls, i); ok {
			f, _ := n.value.Float64()
			if math.IsInf(f, 0) {
				return nil, errSyntax // a numeral too long to be a number
			}
			toks = append(toks, calcToken{kind: kNum, num: f})
			i += n.n
			if n.frac && i < len(ls) && ls[i].is("of") {
				op('*')
				i++
			}
			continue
		}
		if l.kind != lxWord {
			return nil, errSyntax
		}
		i++
		switch l.text {
		case "plus":
			op('+')
		case "minus":
			op('-')
		case "times", "multiplied":
			op('*')
		case "x":
			// Only between numbers ("3 x 4"): "2x+3" is algebra.
			n := len(toks)
			if n == 0 || !(toks[n-1].kind == kNum || toks[n-1].op == ')') || i >= len(ls) {
				return nil, errSyntax
			}
			if _, num := numberAt(ls, i); !num && !(ls[i].kind == lxSym && ls[i].text == "(") {
				return nil, errSyntax
			}
			op('*')
		case "divided", "over":
			op('/')
		case "percent", "pct":
			op('%')
		case "per":
			// "per cent"
			if i >= len(ls) || !ls[i].is("cent") {
				return nil, errSyntax
			}
			op('%')
			i++
		case "sqrt", "root":
			toks = append(toks, calcToken{kind: kSqrt})
		case "squared":
			op('^')
			toks = append(toks, calcToken{kind: kNum, num: 2})
		case "cubed":
			op('^')
			toks = append(toks, calcToken{kind: kNum, num: 3})
		case "power":
			op('^')
		case "of":
			// "to the power of": the "of" belongs to "power".
			if n := len(toks); n > 0 && toks[n-1].kind == kOp && toks[n-1].op == '^' {
				continue
			}
			toks = append(toks, calcToken{kind: kOf})
		case "by", "the", "square", "to", "raised":
			// Glue words: "divided by", "the square root of",
			// "raised to the power of".
		default:
			return nil, errSyntax
		}
	}
	return toks, nil
}

// scanNumber reads a decimal number starting at s[i]: digits with optional
// thousands separators ("1,000") and one decimal point. It returns the index
// after the number and the number without separators.
func scanNumber(s string, i int) (int, string) {
	var b strings.Builder
	dot := false
	for i < len(s) {
		c := s[i]
		switch {
		case isDigit(c):
			b.WriteByte(c)
		case c == ',' && b.Len() > 0 && !dot && allDigits(s, i+1, 3) && (i+4 >= len(s) || !isDigit(s[i+4])):
		case c == '.' && !dot && i+1 < len(s) && isDigit(s[i+1]):
			dot = true
			b.WriteByte(c)
		default:
			return i, b.String()
		}
		i++
	}
	return i, b.String()
}

// calcParser evaluates while it parses. A math error (division by zero)
// does not stop parsing: it is remembered so that a syntax error later on
// still wins, and "5/0 apples" is not mistaken for arithmetic.
type calcParser struct {
	toks    []calcToken
	i       int
	depth   int
	ops     int // operations applied; a bare number is not a calculation
	mathErr error
}

// evaluate computes the value of an arithmetic expression. ops counts the
// operations in it, so that callers can tell "2+2" from "2024".
func evaluate(s string) (value float64, ops int, err error) {
	toks, err := lexCalc(s)
	if err != nil {
		return 0, 0, err
	}
	if len(toks) == 0 {
		return 0, 0, errSyntax
	}
	p := &calcParser{toks: toks}
	v, err := p.expr()
	if err != nil {
		return 0, 0, err
	}
	if p.i != len(p.toks) {
		return 0, 0, errSyntax
	}
	if p.mathErr != nil {
		return 0, p.ops, p.mathErr
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, p.ops, errOverflow
	}
	return v, p.ops, nil
}

func (p *calcParser) peekOp(op byte) bool {
	return p.i < len(p.toks) && p.toks[p.i].kind == kOp && p.toks[p.i].op == op
}

func (p *calcParser) peekKind(k calcKind) bool {
	return p.i < len(p.toks) && p.toks[p.i].kind == k
}

// fail records the first math error and yields NaN so evaluation goes on.
func (p *calcParser) fail(err error) float64 {
	if p.mathErr == nil {
		p.mathErr = err
	}
	return math.NaN()
}

func (p *calcParser) expr() (float64, error) {
	return p.leftAssoc(p.term, '+', '-', func(op byte, v, w float64) float64 {
		if op == '+' {
			return v + w
		}
		return v - w
	})
}

func (p *calcParser) term() (float64, error) {
	return p.leftAssoc(p.unary, '*', '/', func(op byte, v, w float64) float64 {
		switch {
		case op == '*':
			return v * w
		case w == 0:
			return p.fail(errDivZero)
		default:
			return v / w
		}
	})
}

// leftAssoc parses operands of next joined by the operators a and b, and
// combines them from left to right with apply: one level of precedence.
func (p *calcParser) leftAssoc(next func() (float64, error), a, b byte, apply func(op byte, v, w float64) float64) (float64, error) {
	v, err := next()
	if err != nil {
		return 0, err
	}
	for p.peekOp(a) || p.peekOp(b) {
		op := p.toks[p.i].op
		p.i++
		w, err := next()
		if err != nil {
			return 0, err
		}
		p.ops++
		v = apply(op, v, w)
	}
	return v, nil
}

func (p *calcParser) unary() (float64, error) {
	if p.depth++; p.depth > maxDepth {
		return 0, errSyntax
	}
	defer func() { p.depth-- }()
	if p.peekOp('-') || p.peekOp('+') {
		neg := p.toks[p.i].op == '-'
		p.i++
		v, err := p.unary()
		if neg {
			v = -v
		}
		return v, err
	}
	return p.power()
}

func (p *calcParser) power() (float64, error) {
	base, err := p.postfix()
	if err != nil {
		return 0, err
	}
	if !p.peekOp('^') {
		return base, nil
	}
	p.i++
	exp, err := p.unary()
	if err != nil {
		return 0, err
	}
	p.ops++
	if base == 0 && exp < 0 {
		return p.fail(errDivZero), nil
	}
	v := math.Pow(base, exp)
	if math.IsNaN(v) && !math.IsNaN(base) && !math.IsNaN(exp) {
		return p.fail(errDomain), nil // a negative base to a fractional power
	}
	return v, nil
}

func (p *calcParser) postfix() (float64, error) {
	v, err := p.primary()
	if err != nil {
		return 0, err
	}
	if !p.peekOp('%') {
		return v, nil
	}
	p.i++
	p.ops++
	if !p.peekKind(kOf) {
		return v / 100, nil
	}
	p.i++
	of, err := p.unary()
	if err != nil {
		return 0, err
	}
	// Multiply first: 15*340/100 is exactly 51, 0.15*340 is not.
	return v * of / 100, nil
}

func (p *calcParser) primary() (float64, error) {
	if p.depth++; p.depth > maxDepth {
		return 0, errSyntax
	}
	defer func() { p.depth-- }()
	if p.i >= len(p.toks) {
		return 0, errSyntax
	}
	t := p.toks[p.i]
	switch {
	case t.kind == kNum:
		p.i++
		return t.num, nil
	case t.kind == kOp && t.op == '(':
		p.i++
		v, err := p.expr()
		if err != nil {
			return 0, err
		}
		if !p.peekOp(')') {
			return 0, errSyntax
		}
		p.i++
		return v, nil
	case t.kind == kSqrt:
		p.i++
		if p.peekKind(kOf) {
			p.i++
		}
		v, err := p.power()
		if err != nil {
			return 0, err
		}
		p.ops++
		if v < 0 {
			return p.fail(errDomain), nil
		}
		return math.Sqrt(v), nil
	}
	return 0, errSyntax
}

// formatNumber writes v without trailing zeros and without the noise of
// binary floating point: 0.1+0.2 is "0.3", 15% of 340 is "51". Very large
// and very small values use exponent notation.
func formatNumber(v float64) string {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	if err != nil {
		r = v
	}
	if r == 0 {
		return "0" // also for -0
	}
	if a := math.Abs(r); a >= 1e-6 && a < 1e15 {
		return strconv.FormatFloat(r, 'f', -1, 64)
	}
	return strconv.FormatFloat(r, 'g', -1, 64)
}

// leadIns are the ways people ask for a calculation; they are removed
// before the rest is parsed as an expression.
var leadIns = []string{
	"what is", "what's", "whats", "how much is",
	"calculate", "compute", "evaluate", "solve", "work out", "can you", "could you",
	"please", "tell me", "hey", "quick question", ",", ":",
}

// arithmetic extracts the expression from a question such as "What is 15%
// of 340?" and evaluates it. ok is false when the question is not
// arithmetic: it has words the calculator does not know, or it is a bare
// number. Math errors (division by zero) come back with ok true: the
// question was arithmetic, it just has no answer.
func arithmetic(question string) (expr string, value float64, err error, ok bool) {
	q, ok := stripLeadIns(question)
	if !ok {
		return "", 0, nil, false
	}
	v, ops, err := evaluate(q)
	if errors.Is(err, errSyntax) || ops == 0 {
		return "", 0, nil, false
	}
	return q, v, err, true
}

// stripLeadIns lowercases a question and removes the ways of asking for a
// calculation around it ("hey, can you calculate …, please?"). ok is false
// for a question too long to be one.
func stripLeadIns(question string) (string, bool) {
	q := strings.TrimSpace(question)
	if len(q) > maxExpr+32 {
		return "", false
	}
	q = strings.ToLower(q)
	for range 8 { // lead-ins can stack: "hey, can you calculate"
		before := q
		q = strings.TrimRight(q, "?!.= \t\n")
		q = strings.TrimSuffix(q, " equal")
		q = strings.TrimSuffix(q, " equals")
		q = strings.TrimSuffix(q, " please")
		for _, l := range leadIns {
			if strings.HasPrefix(q, l) {
				q = strings.TrimSpace(q[len(l):])
			}
		}
		if q == before {
			break
		}
	}
	return q, true
}

// Reasons the router gives for a calculation.
const (
	reasonArithmetic = "arithmetic"
	reasonConversion = "a unit conversion"
)

// Answer answers what the calculator can: arithmetic, in symbols or
// words ("What is 15% of 340?", "What is one fifth of one thousand two
// hundred and fifty?"), and unit conversions ("How many seconds are in 2.5
// minutes?"). It returns the direct route's answer and the router's
// reason; ok is false for any other question.
//
// A chatty lead-in ends at a colon or a dash ("Quick math: what's 45
// minus 17?", "sanity check for a bitmask - what's 255 + 1?"): when the
// whole question does not parse, the part after the last of them is tried.
func Answer(question string) (answer, reason string, ok bool) {
	if a, r, ok := answerWhole(question); ok {
		return a, r, true
	}
	if i := strings.LastIndexAny(question, ":—–"); i >= 0 {
		_, n := utf8.DecodeRuneInString(question[i:])
		return answerWhole(question[i+n:])
	}
	if _, after, found := strings.Cut(question, " - "); found {
		return answerWhole(after)
	}
	return "", "", false
}

func answerWhole(question string) (answer, reason string, ok bool) {
	if expr, v, err, ok := arithmetic(question); ok {
		switch {
		case errors.Is(err, errDivZero):
			return "I can't divide by zero, so " + expr + " has no value.", reasonArithmetic, true
		case err != nil:
			return "I can't compute " + expr + ": " + err.Error() + ".", reasonArithmetic, true
		}
		return expr + " is " + formatNumber(v) + ".", reasonArithmetic, true
	}
	q, ok := stripLeadIns(question)
	if !ok {
		return "", "", false
	}
	if c, ok := conversion(strings.TrimPrefix(q, "convert ")); ok {
		return c.answer(), reasonConversion, true
	}
	if t, ok := totalOf(q); ok {
		return t.answer(), reasonArithmetic, true
	}
	return "", "", false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// allDigits reports whether s holds n digits from index from.
func allDigits(s string, from, n int) bool {
	if from+n > len(s) {
		return false
	}
	for _, c := range []byte(s[from : from+n]) {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

// setOf makes a set of the words of a space-separated list.
func setOf(words string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}
