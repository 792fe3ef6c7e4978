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
			end := strings.IndexByte(q[i:], '\n')
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
// token, so "1.CREATE" hides nothing.
func lexNumber(q string, i int) int {
	isDigit := func(j int) bool { return j < len(q) && q[j] >= '0' && q[j] <= '9' }
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
