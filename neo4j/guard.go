package neo4j

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// RefusedError is a generated query that RunReadOnly would not run
// because it could write, administer the server or read files: the static
// guard or the planner refused it before it ran, or the read-access
// session stopped it at its first write.
type RefusedError struct {
	Query  string // the query as given
	Reason string // why, for logs: "writes (CREATE)", "calls dbms.killQuery", …
}

// Error says why the query was refused; the query itself is in Query.
func (e *RefusedError) Error() string {
	return "neo4j: refused generated Cypher: " + e.Reason
}

// The static guard is the first of three layers (the planner and the
// read-access session are the others). It works on tokens, not on the
// raw text, so that comments and string literals can neither hide a write
// ("/* */ CREATE") nor cause a false alarm ('CREATE' in a name). It is
// deliberately stricter than Cypher: a query it cannot read with
// certainty is refused, and the Cypher writer is told to write plain
// queries. Refusing a harmless query costs one fallback to the walk;
// running a harmful one costs the graph.

// forbidden are words that, outside strings, comments and property
// names, refuse the query: the write clauses, everything that runs
// administration or changes which database is used, and the forms that
// run other statements (PROFILE executes; EXPLAIN and CYPHER options are
// added by us or not at all).
var forbidden = map[string]string{
	"CREATE":       "writes",
	"MERGE":        "writes",
	"SET":          "writes",
	"DELETE":       "writes",
	"DETACH":       "writes",
	"NODETACH":     "writes",
	"REMOVE":       "writes",
	"INSERT":       "writes",
	"FOREACH":      "writes (FOREACH exists only to write)",
	"DROP":         "changes the schema",
	"ALTER":        "administration",
	"RENAME":       "administration",
	"GRANT":        "administration",
	"DENY":         "administration",
	"REVOKE":       "administration",
	"START":        "administration",
	"STOP":         "administration",
	"TERMINATE":    "administration",
	"ENABLE":       "administration",
	"SHOW":         "administration",
	"LOAD":         "reads files or URLs (LOAD CSV)",
	"PERIODIC":     "batches writes",
	"TRANSACTIONS": "runs inner transactions (IN TRANSACTIONS)",
	"USE":          "switches database",
	"PROFILE":      "is a PROFILE (it executes the query)",
	"EXPLAIN":      "is an EXPLAIN",
	"CYPHER":       "sets query options",
}

// readProcedures may be CALLed: they only describe the schema. Names are
// compared in lower case; db.schema.* is allowed as a prefix.
var readProcedures = map[string]bool{
	"db.labels": true, "db.relationshiptypes": true, "db.propertykeys": true,
}

// token kinds of the guard's lexer.
const (
	tokWord   = iota // unquoted identifier or keyword
	tokQuoted        // `backtick-quoted identifier`
	tokString        // 'string' or "string"
	tokNumber        // 42, 1.5e3, 0x1F
	tokParam         // $name
	tokPunct         // one character of punctuation
)

type token struct {
	kind       int
	text       string // word as written; quoted identifiers unescaped
	start, end int    // byte offsets in the query
}

// lex splits a query into tokens, dropping whitespace and comments. It
// fails on what it cannot read with certainty: an unterminated string,
// identifier or comment, and any character outside ASCII or a control
// character outside a string literal (Cypher accepts some Unicode spaces
// and letters, and a guard that guessed how would be a guard with holes).
func lex(q string) ([]token, error) {
	var toks []token
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case strings.HasPrefix(q[i:], "//"):
			// Neo4j ends a line comment at a carriage return as well as at
			// a line feed: "// x\rCREATE (n)" is a write.
			end := strings.IndexAny(q[i:], "\r\n")
			if end < 0 {
				i = len(q)
			} else {
				i += end + 1
			}
		case strings.HasPrefix(q[i:], "/*"):
			end := strings.Index(q[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("unterminated comment at offset %d", i)
			}
			i += 2 + end + 2
		case c == '\'' || c == '"':
			j := i + 1
			for ; j < len(q) && q[j] != c; j++ {
				if q[j] == '\\' {
					j++ // the escaped character, whatever it is
				}
			}
			if j >= len(q) {
				return nil, fmt.Errorf("unterminated string at offset %d", i)
			}
			toks = append(toks, token{tokString, q[i+1 : j], i, j + 1})
			i = j + 1
		case c == '`':
			var b strings.Builder
			j := i + 1
			for {
				k := strings.IndexByte(q[j:], '`')
				if k < 0 {
					return nil, fmt.Errorf("unterminated `identifier` at offset %d", i)
				}
				b.WriteString(q[j : j+k])
				j += k + 1
				if j < len(q) && q[j] == '`' { // `` is an escaped backtick
					b.WriteByte('`')
					j++
					continue
				}
				break
			}
			toks = append(toks, token{tokQuoted, b.String(), i, j})
			i = j
		case isIdentStart(c):
			j := i + 1
			for j < len(q) && isIdentPart(q[j]) {
				j++
			}
			toks = append(toks, token{tokWord, q[i:j], i, j})
			i = j
		case c >= '0' && c <= '9':
			j := lexNumber(q, i)
			toks = append(toks, token{tokNumber, q[i:j], i, j})
			i = j
		case c == '$':
			j := i + 1
			for j < len(q) && isIdentPart(q[j]) {
				j++
			}
			if j == i+1 {
				return nil, fmt.Errorf("bad parameter at offset %d", i)
			}
			toks = append(toks, token{tokParam, q[i:j], i, j})
			i = j
		case c >= 0x80:
			return nil, fmt.Errorf("non-ASCII character at offset %d outside a string", i)
		case c < 0x20 || c == 0x7f:
			return nil, fmt.Errorf("control character %#x at offset %d", c, i)
		default:
			toks = append(toks, token{tokPunct, q[i : i+1], i, i + 1})
			i++
		}
	}
	return toks, nil
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentPart(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

// lexNumber returns the end of the number starting at i: digits, an
// optional fraction with at least one digit, an optional exponent, or a
// 0x/0o prefixed integer. A letter right after a number starts the next
// token, so "1.CREATE" hides nothing. Cypher allows an underscore between
// decimal digits (1_000_000); it is part of the number here, so that the
// LIMIT and range() rules see the whole of it.
func lexNumber(q string, i int) int {
	isDigit := func(j int) bool {
		if j < len(q) && q[j] == '_' && j > i && q[j-1] >= '0' && q[j-1] <= '9' {
			j++ // 1_000: an underscore between two digits
		}
		return j < len(q) && q[j] >= '0' && q[j] <= '9'
	}
	if q[i] == '0' && i+1 < len(q) && (q[i+1] == 'x' || q[i+1] == 'o') {
		j := i + 2
		for j < len(q) && (isDigit(j) || (q[j] >= 'a' && q[j] <= 'f') || (q[j] >= 'A' && q[j] <= 'F')) {
			j++
		}
		return j
	}
	j := i
	for isDigit(j) {
		j++
	}
	if j < len(q) && q[j] == '.' && isDigit(j+1) {
		j++
		for isDigit(j) {
			j++
		}
	}
	if j < len(q) && (q[j] == 'e' || q[j] == 'E') {
		k := j + 1
		if k < len(q) && (q[k] == '+' || q[k] == '-') {
			k++
		}
		if isDigit(k) {
			for j = k; isDigit(j); j++ {
			}
		}
	}
	return j
}

// isPropertyKey reports whether the word at toks[i] names a property
// (n.start, m.set): it follows a dot that follows something a property
// can be read from. Such words are names, not clauses, so they are not
// checked against forbidden.
func isPropertyKey(toks []token, i int) bool {
	if i < 2 || toks[i-1].text != "." || toks[i-1].kind != tokPunct {
		return false
	}
	p := toks[i-2]
	return p.kind == tokWord || p.kind == tokQuoted || (p.kind == tokPunct && (p.text == ")" || p.text == "]"))
}

// maxQueryBytes bounds the query the guard reads, and so its own work
// (some rules look at each call's arguments: quadratic in nesting). A
// generated query is a few hundred bytes; llm.Brain refuses replies over
// 4000 characters, which this allows in any script.
const maxQueryBytes = 16_000

// guard checks a generated query and returns the text to run: the query
// with trailing semicolons dropped and a LIMIT of at most maxRows on
// every part of it that returns rows. It returns *RefusedError for
// anything it will not run.
//
// How the LIMIT is added. Wrapping the query ("CALL { q } RETURN * LIMIT
// n") fails for queries whose RETURN items are not aliased and changes
// column names, so instead the final clause of the query is inspected at
// brace depth zero, where subqueries (CALL {…}, EXISTS {…}, COUNT {…})
// cannot confuse it. The query is split at top-level UNIONs, because a
// LIMIT after a UNION binds only its last branch; each branch must end in
// a top-level RETURN, and gets " LIMIT n" appended unless a LIMIT follows
// that RETURN already, in which case a literal larger than n is lowered to
// n. RunReadOnly also stops reading at maxRows rows, whatever the query
// says, so a LIMIT given as a parameter or expression is bounded too.
func guard(q string, maxRows int) (string, error) {
	refuse := func(format string, args ...any) error {
		return &RefusedError{Query: q, Reason: fmt.Sprintf(format, args...)}
	}
	if !utf8.ValidString(q) {
		return "", refuse("not valid UTF-8")
	}
	if len(q) > maxQueryBytes {
		return "", refuse("longer than %d bytes", maxQueryBytes)
	}
	toks, err := lex(q)
	if err != nil {
		return "", refuse("%v", err)
	}
	for len(toks) > 0 && toks[len(toks)-1].kind == tokPunct && toks[len(toks)-1].text == ";" {
		toks = toks[:len(toks)-1]
	}
	if len(toks) == 0 {
		return "", refuse("empty query")
	}

	depth := make([]int, len(toks)) // bracket depth of each token
	d := 0
	for i, t := range toks {
		if t.kind == tokPunct {
			switch t.text {
			case ";":
				return "", refuse("more than one statement (;)")
			case ")", "]", "}":
				d--
				if d < 0 {
					return "", refuse("unbalanced %q at offset %d", t.text, t.start)
				}
			}
		}
		depth[i] = d
		if t.kind == tokPunct && (t.text == "(" || t.text == "[" || t.text == "{") {
			d++
		}
	}
	if d != 0 {
		return "", refuse("unbalanced brackets")
	}

	for i, t := range toks {
		if t.kind != tokWord && t.kind != tokQuoted {
			continue
		}
		lower := strings.ToLower(t.text)
		// APOC and dbms are refused by namespace, in any position: as a
		// procedure, a function or a backtick-quoted name.
		for _, ns := range []string{"apoc", "dbms"} {
			if (lower == ns && i+1 < len(toks) && toks[i+1].text == ".") || strings.HasPrefix(lower, ns+".") {
				return "", refuse("uses %s.*", ns)
			}
		}
		if t.kind != tokWord || isPropertyKey(toks, i) {
			continue
		}
		upper := strings.ToUpper(t.text)
		if why, ok := forbidden[upper]; ok {
			return "", refuse("%s (%s)", why, upper)
		}
		if upper == "CALL" {
			if err := checkCall(toks, i); err != "" {
				return "", refuse("%s", err)
			}
		}
	}

	if why := checkMemory(toks, newBrackets(toks, depth)); why != "" {
		return "", refuse("%s", why)
	}
	return withLimit(q, toks, depth, maxRows, refuse)
}

// checkCall allows CALL { subquery }, CALL (vars) { subquery } and calls
// of the read-only schema procedures; it returns why anything else is
// refused.
func checkCall(toks []token, i int) string {
	if i+1 >= len(toks) {
		return "CALL without a procedure"
	}
	if next := toks[i+1]; next.kind == tokPunct && (next.text == "{" || next.text == "(") {
		return "" // a subquery; its clauses are checked like the rest
	}
	var parts []string
	for j := i + 1; j < len(toks); j += 2 {
		if toks[j].kind != tokWord && toks[j].kind != tokQuoted {
			return "CALL of something that is not a procedure name"
		}
		parts = append(parts, strings.ToLower(toks[j].text))
		if j+1 >= len(toks) || toks[j+1].text != "." {
			break
		}
	}
	name := strings.Join(parts, ".")
	if readProcedures[name] || strings.HasPrefix(name, "db.schema.") {
		return ""
	}
	return "calls procedure " + name + ", which is not on the read-only allow-list"
}

// withLimit implements the LIMIT rule described at guard.
func withLimit(q string, toks []token, depth []int, maxRows int, refuse func(string, ...any) error) (string, error) {
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	branch := 0 // index of the first token of the current branch
	for i := 0; i <= len(toks); i++ {
		atUnion := i < len(toks) && depth[i] == 0 && toks[i].kind == tokWord && strings.EqualFold(toks[i].text, "UNION")
		if i < len(toks) && !atUnion {
			continue
		}
		ret, lim := -1, -1
		for j := branch; j < i; j++ {
			if depth[j] != 0 || toks[j].kind != tokWord || isPropertyKey(toks, j) {
				continue
			}
			switch strings.ToUpper(toks[j].text) {
			case "RETURN":
				ret, lim = j, -1
			case "LIMIT":
				if ret >= 0 {
					lim = j
				}
			}
		}
		switch {
		case branch >= i:
			return "", refuse("empty query part around UNION")
		case ret < 0:
			return "", refuse("no top-level RETURN: the query must return rows")
		case lim < 0:
			edits = append(edits, edit{toks[i-1].end, toks[i-1].end, " LIMIT " + strconv.Itoa(maxRows)})
		case lim+1 < i && toks[lim+1].kind == tokNumber:
			if n, err := strconv.Atoi(toks[lim+1].text); err != nil || n > maxRows {
				edits = append(edits, edit{toks[lim+1].start, toks[lim+1].end, strconv.Itoa(maxRows)})
			}
		}
		if atUnion {
			branch = i + 1
			if branch < len(toks) && toks[branch].kind == tokWord &&
				(strings.EqualFold(toks[branch].text, "ALL") || strings.EqualFold(toks[branch].text, "DISTINCT")) {
				branch++
			}
		}
	}
	// Cut after the last token: trailing semicolons and comments go, and a
	// "// comment" cannot swallow an appended LIMIT.
	out := q[:toks[len(toks)-1].end]
	sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	for _, e := range edits {
		out = out[:e.start] + e.text + out[e.end:]
	}
	return out, nil
}

// The memory rules. Neo4j bounds the memory of what it tracks (collect,
// DISTINCT, ORDER BY, aggregation) with the transaction memory limits
// (db.memory.transaction.max), and a query over them fails with
// MemoryPoolOutOfMemoryError. Values built inside one expression are not
// tracked (measured on 5.26 with the limits set):
// RETURN size(reduce(s = 'xxxxxxxx', i IN range(1, 40) | s + s)) asks for
// a string of 8 TiB and runs the heap out in seconds, and the transaction
// timeout does not stop an expression half way.
//
// The guard cannot bound expression memory in general (a chain of
// WITH s + s AS s clauses doubles too, and so does a comprehension nested
// in another; the server's heap is the last bound for those), but it
// refuses the forms that grow a value exponentially within one expression
// or iterate over a huge literal range, the short ways to build one:
//
//   - reduce(acc = init, x IN list | step): acc may appear in step at
//     most once and not inside brackets or a function call, so that each
//     step adds to acc (acc + x.amount, acc + ' ' + n.name) rather than
//     multiplying it (acc + acc, replace(acc, …), [acc, acc]);
//   - range(): its bounds are integer literals spanning at most
//     maxRangeElements values, or come from size()/length() of a value
//     that already exists (range(0, size(nodes(p)) - 1));
//   - replace() that can lengthen its input (its replacement is not a
//     string literal at most as long as a non-empty literal search
//     string) may not contain another such replace().
//
// Refusing costs a fallback to the walk; reduce and range are rare in
// questions about a knowledge graph.

// maxRangeElements bounds a literal range(): enough for years, months or
// a top-N, far too few to build anything large.
const maxRangeElements = 10_000

// checkMemory returns why the query is refused by the memory rules, or "".
func checkMemory(toks []token, b brackets) string {
	for i, t := range toks {
		if !isCall(toks, i) {
			continue
		}
		var why string
		switch strings.ToLower(t.text) {
		case "reduce":
			why = checkReduce(toks, b, i)
		case "range":
			why = checkRange(toks, b, i)
		case "replace":
			if growingReplace(toks, b, i) {
				end := b.match[i+1]
				for j := i + 2; j < end; j++ {
					if isCall(toks, j) && strings.EqualFold(toks[j].text, "replace") && growingReplace(toks, b, j) {
						why = "nests replace() calls that lengthen a string (the result can grow exponentially)"
						break
					}
				}
			}
		}
		if why != "" {
			return why
		}
	}
	return ""
}

// isCall reports whether toks[i] names a function being called: a word
// or `quoted` name (Neo4j accepts `range`(1, 3)) followed by "(".
func isCall(toks []token, i int) bool {
	return (toks[i].kind == tokWord || toks[i].kind == tokQuoted) && i+1 < len(toks) &&
		toks[i+1].kind == tokPunct && toks[i+1].text == "("
}

// brackets describes the bracket structure of a query's tokens: depth
// as guard computes it, and for each opening bracket the index of the one
// closing it (len(toks) if none), so that a call's end is found in one
// step rather than by a scan.
type brackets struct {
	depth []int
	match []int
}

func newBrackets(toks []token, depth []int) brackets {
	b := brackets{depth: depth, match: make([]int, len(toks))}
	var open []int
	for i, t := range toks {
		b.match[i] = len(toks)
		if t.kind != tokPunct {
			continue
		}
		switch t.text {
		case "(", "[", "{":
			open = append(open, i)
		case ")", "]", "}":
			if n := len(open); n > 0 {
				b.match[open[n-1]] = i
				open = open[:n-1]
			}
		}
	}
	return b
}

// args splits the arguments of the call whose "(" is at open: the token
// ranges [from, to) between top-level commas.
func args(toks []token, b brackets, open int) [][2]int {
	end := b.match[open]
	var out [][2]int
	from := open + 1
	for j := open + 1; j <= end; j++ {
		if j == end || (b.depth[j] == b.depth[open]+1 && toks[j].kind == tokPunct && toks[j].text == ",") {
			if j > from {
				out = append(out, [2]int{from, j})
			}
			from = j + 1
		}
	}
	return out
}

// checkReduce applies the reduce() rule to the call at i.
func checkReduce(toks []token, b brackets, i int) string {
	open := i + 1
	end := b.match[open]
	inner := b.depth[open] + 1
	if open+2 >= end || (toks[open+1].kind != tokWord && toks[open+1].kind != tokQuoted) || toks[open+2].kind != tokPunct || toks[open+2].text != "=" {
		return "reduce() that the guard cannot read"
	}
	acc := toks[open+1].text
	bar := -1
	for j := open + 3; j < end; j++ {
		if b.depth[j] == inner && toks[j].kind == tokPunct && toks[j].text == "|" {
			bar = j
			break
		}
	}
	if bar < 0 {
		return "reduce() that the guard cannot read"
	}
	uses := 0
	for j := bar + 1; j < end; j++ {
		tj := toks[j]
		if (tj.kind != tokWord && tj.kind != tokQuoted) || tj.text != acc || isPropertyKey(toks, j) {
			continue
		}
		uses++
		if uses > 1 || b.depth[j] != inner {
			return "reduce() whose step uses its accumulator " + acc + " more than once or inside a call or brackets (it can grow exponentially)"
		}
	}
	return ""
}

// checkRange applies the range() rule to the call at i.
func checkRange(toks []token, b brackets, i int) string {
	as := args(toks, b, i+1)
	if len(as) < 2 || len(as) > 3 {
		return "range() that the guard cannot read"
	}
	var lit [3]int64
	literal := true
	for k, a := range as {
		n, isLit, ok := rangeBound(toks, b, a[0], a[1])
		if !ok || (k == 2 && !isLit) {
			return "range() whose bounds are not integer literals or size()/length() of a value"
		}
		lit[k], literal = n, literal && isLit
	}
	if !literal {
		return "" // bounded by the size of a value that exists already
	}
	step := int64(1)
	if len(as) == 3 {
		step = lit[2]
	}
	start, stop := lit[0], lit[1]
	var n uint64
	switch {
	case step > 0 && stop >= start:
		n = (uint64(stop)-uint64(start))/uint64(step) + 1
	case step < 0 && stop <= start:
		n = (uint64(start)-uint64(stop))/uint64(-step) + 1
	}
	if n > maxRangeElements {
		return fmt.Sprintf("range() of %d values (at most %d)", n, maxRangeElements)
	}
	return ""
}

// rangeBound reads one bound of range() in toks[from:to]: a signed
// integer literal (isLit), or size(…)/length(…) plus or minus one. ok is
// false for anything else.
func rangeBound(toks []token, b brackets, from, to int) (n int64, isLit, ok bool) {
	sign := int64(1)
	if from < to && toks[from].kind == tokPunct && (toks[from].text == "-" || toks[from].text == "+") {
		if toks[from].text == "-" {
			sign = -1
		}
		from++
	}
	if to-from == 1 && toks[from].kind == tokNumber {
		v, err := strconv.ParseInt(toks[from].text, 0, 64) // 0x1F, 0o17, 1_000 as Cypher writes them
		if err != nil {
			return 0, false, false
		}
		return sign * v, true, true
	}
	if sign != 1 || to-from < 3 || !isCall(toks, from) {
		return 0, false, false
	}
	switch strings.ToLower(toks[from].text) {
	case "size", "length":
	default:
		return 0, false, false
	}
	end := b.match[from+1]
	switch rest := to - (end + 1); {
	case rest == 0:
	case rest == 2 && toks[end+1].kind == tokPunct && (toks[end+1].text == "-" || toks[end+1].text == "+") && toks[end+2].kind == tokNumber:
	default:
		return 0, false, false
	}
	return 0, false, true
}

// growingReplace reports whether the replace() call at i can lengthen its
// input: unless its search and replacement are string literals, the
// search non-empty and the replacement no longer, it can.
func growingReplace(toks []token, b brackets, i int) bool {
	as := args(toks, b, i+1)
	if len(as) != 3 {
		return true
	}
	search, repl := as[1], as[2]
	if search[1]-search[0] != 1 || repl[1]-repl[0] != 1 {
		return true
	}
	s, r := toks[search[0]], toks[repl[0]]
	if s.kind != tokString || r.kind != tokString {
		return true
	}
	// Lengths as Java counts them (UTF-16 units), since that is what a
	// replacement multiplies. A literal with an escape is not measured:
	// '\u0041' is six characters here and one in Neo4j.
	if strings.ContainsRune(s.text, '\\') || strings.ContainsRune(r.text, '\\') {
		return true
	}
	return s.text == "" || utf16Len(r.text) > utf16Len(s.text)
}

// utf16Len is the length of s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r > 0xFFFF {
			n++ // a surrogate pair
		}
	}
	return n
}
