package neo4j

import (
	"errors"
	"strings"
	"testing"
)

// TestGuardLimit pins how the guard bounds what a query returns.
func TestGuardLimit(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"MATCH (n:Customer) RETURN n.name", "MATCH (n:Customer) RETURN n.name LIMIT 50"},
		{"MATCH (n) RETURN n.name LIMIT 10", "MATCH (n) RETURN n.name LIMIT 10"},
		{"MATCH (n) RETURN n.name LIMIT 1000", "MATCH (n) RETURN n.name LIMIT 50"},
		{"MATCH (n) RETURN n.name ORDER BY n.name SKIP 5 LIMIT $n", "MATCH (n) RETURN n.name ORDER BY n.name SKIP 5 LIMIT $n"},
		{"MATCH (n) RETURN n.name ORDER BY n.name SKIP 5", "MATCH (n) RETURN n.name ORDER BY n.name SKIP 5 LIMIT 50"},
		{"MATCH (n) RETURN n.name;", "MATCH (n) RETURN n.name LIMIT 50"},
		{"MATCH (n) RETURN n.name ;; ", "MATCH (n) RETURN n.name LIMIT 50"},
		{"MATCH (n) RETURN n.name // the names", "MATCH (n) RETURN n.name LIMIT 50"},
		{"MATCH (n) RETURN n.name /* all */", "MATCH (n) RETURN n.name LIMIT 50"},
		// A LIMIT inside a subquery or before RETURN does not bound the result.
		{"CALL { MATCH (n) RETURN n LIMIT 3 } RETURN n.name", "CALL { MATCH (n) RETURN n LIMIT 3 } RETURN n.name LIMIT 50"},
		{"MATCH (n) WITH n LIMIT 3 RETURN n.name", "MATCH (n) WITH n LIMIT 3 RETURN n.name LIMIT 50"},
		{"MATCH (c) WHERE COUNT { MATCH (c)--() RETURN 1 LIMIT 2 } > 1 RETURN c.name",
			"MATCH (c) WHERE COUNT { MATCH (c)--() RETURN 1 LIMIT 2 } > 1 RETURN c.name LIMIT 50"},
		// Every branch of a UNION gets its own LIMIT.
		{"MATCH (a:A) RETURN a.name AS x UNION ALL MATCH (b:B) RETURN b.name AS x",
			"MATCH (a:A) RETURN a.name AS x LIMIT 50 UNION ALL MATCH (b:B) RETURN b.name AS x LIMIT 50"},
		{"MATCH (a:A) RETURN a.name AS x LIMIT 5 UNION MATCH (b:B) RETURN b.name AS x",
			"MATCH (a:A) RETURN a.name AS x LIMIT 5 UNION MATCH (b:B) RETURN b.name AS x LIMIT 50"},
		// Property names that are keywords elsewhere are names here.
		{"MATCH (e:Event) RETURN e.start, e.set, e.limit", "MATCH (e:Event) RETURN e.start, e.set, e.limit LIMIT 50"},
		// Strings and comments hide nothing and alarm nothing.
		{"MATCH (n) WHERE n.name = 'CREATE (x)' RETURN n.name", "MATCH (n) WHERE n.name = 'CREATE (x)' RETURN n.name LIMIT 50"},
		{`MATCH (n) WHERE n.name = "it's \"MERGE\"; DROP" RETURN n.name`, `MATCH (n) WHERE n.name = "it's \"MERGE\"; DROP" RETURN n.name LIMIT 50`},
		{"MATCH (n) // DELETE n\nRETURN n.name", "MATCH (n) // DELETE n\nRETURN n.name LIMIT 50"},
		{"MATCH (n) WHERE n.name = 'Zoë' RETURN n.name", "MATCH (n) WHERE n.name = 'Zoë' RETURN n.name LIMIT 50"},
		{"CALL db.labels() YIELD label RETURN label", "CALL db.labels() YIELD label RETURN label LIMIT 50"},
		{"CALL db.schema.nodeTypeProperties() YIELD nodeType RETURN nodeType", "CALL db.schema.nodeTypeProperties() YIELD nodeType RETURN nodeType LIMIT 50"},
		{"MATCH (n) CALL (n) { MATCH (n)--(m) RETURN count(m) AS c } RETURN n.name, c", "MATCH (n) CALL (n) { MATCH (n)--(m) RETURN count(m) AS c } RETURN n.name, c LIMIT 50"},
		{"RETURN 1.5e3 AS x, 0x1F AS y", "RETURN 1.5e3 AS x, 0x1F AS y LIMIT 50"},
	} {
		got, err := guard(tc.in, 50)
		if err != nil || got != tc.want {
			t.Errorf("guard(%q) =\n  %q, %v\nwant\n  %q", tc.in, got, err, tc.want)
		}
	}
}

// TestGuardRefuses checks the static layer alone; TestGeneratedCypherCannotWrite
// runs the same kind of queries against the database.
func TestGuardRefuses(t *testing.T) {
	for _, tc := range []struct{ in, reason string }{
		{"", "empty"},
		{"   ;  ", "empty"},
		{"MATCH (n) RETURN n; MATCH (m) DETACH DELETE m", "more than one statement"},
		{"MATCH (n) RETURN n.name; MATCH (m) RETURN m", "more than one statement"},
		{"MATCH (n) RETURN n /* unterminated", "unterminated comment"},
		{"MATCH (n) WHERE n.name = 'x RETURN n", "unterminated string"},
		{"MATCH (n:`Cust) RETURN n", "unterminated `identifier`"},
		{"MATCH (n) WHERE n.name = $ RETURN n", "bad parameter"},
		{"MATCH (n) RETURN n.name)", "unbalanced"},
		{"MATCH (n RETURN n.name", "unbalanced"},
		{"MATCH (n) WITH n", "no top-level RETURN"},
		{"CALL db.labels()", "no top-level RETURN"},
		{"MATCH (n) RETURN n UNION", "empty query part"},
		{"MATCH (n)\u00a0RETURN n", "non-ASCII"},
		{"MATCH (n) RETURN n\x00", "control character"},
		{"MATCH (n) WHERE n.name = '\xff' RETURN n", "UTF-8"},
		{"CALL db.index.fulltext.queryNodes('x', 'y') YIELD node RETURN node", "not on the read-only allow-list"},
		{"CALL `db`.`labels`() YIELD label RETURN label", ""},
		{"CALL `apoc.create.node`(['X'], {}) YIELD node RETURN node", "apoc"},
		{"RETURN apoc.text.join(['a'], ',') AS x", "apoc"},
		{"CALL dbms.components() YIELD name RETURN name", "dbms"},
		{"CALL db.createLabel('X') RETURN 1", "not on the read-only allow-list"},
		{"PROFILE MATCH (n) RETURN n", "PROFILE"},
		{"EXPLAIN MATCH (n) RETURN n", "EXPLAIN"},
		{"CYPHER runtime=slotted MATCH (n) RETURN n", "CYPHER"},
		{"SHOW USERS", "SHOW"},
		{"MATCH (n) RETURN n {.start} AS x", "START"}, // stricter than Cypher, on purpose
		// Neo4j ends a line comment at a carriage return too.
		{"// comment\rCREATE (n)", "writes (CREATE)"},
		{"MATCH (n) // x\rCREATE (m)\nRETURN n.name", "writes (CREATE)"},
		{"MATCH (n) RETURN n.name // x\r; MATCH (m) DETACH DELETE m", "more than one statement"},
	} {
		got, err := guard(tc.in, 50)
		if tc.reason == "" {
			if err != nil {
				t.Errorf("guard(%q) refused: %v", tc.in, err)
			}
			continue
		}
		var r *RefusedError
		if !errors.As(err, &r) || !strings.Contains(r.Reason, tc.reason) {
			t.Errorf("guard(%q) = %q, %v; want a refusal mentioning %q", tc.in, got, err, tc.reason)
			continue
		}
		if r.Query != tc.in {
			t.Errorf("RefusedError.Query = %q, want the query as given", r.Query)
		}
	}
}

// TestGuardMemory pins the memory rules: the forms that build a huge value
// inside one expression, where Neo4j's memory tracking does not see it,
// are refused; the ordinary uses of reduce, range and replace are not.
func TestGuardMemory(t *testing.T) {
	for _, q := range []string{
		"MATCH p = (a:Supplier)-[:SUPPLIES*1..3]->(b) RETURN reduce(total = 0, r IN relationships(p) | total + coalesce(r.amount, 0)) AS total",
		"MATCH p = (a)-[*1..3]->(b) RETURN reduce(s = '', n IN nodes(p) | s + n.name + ' -> ') AS route",
		"RETURN reduce(s = 0, x IN [1, 2, 3] | s + x * 2) AS n, reduce(s = 1, x IN [y IN [1, 2] | y + 1] | s * x) AS m",
		"UNWIND range(2019, 2024) AS year RETURN year",
		"UNWIND range(1, 10_000) AS i RETURN count(i) AS n",
		"UNWIND range(10, 0, -2) AS i RETURN i",
		"MATCH p = (a)-[*1..4]->(b) UNWIND range(0, size(nodes(p)) - 1) AS i RETURN nodes(p)[i].name AS name",
		"MATCH p = (a)-[*1..4]->(b) RETURN [i IN range(0, length(p)) | nodes(p)[i].name] AS names",
		"MATCH (c:Customer) WHERE toLower(replace(replace(c.name, '.', ''), ', ', ' ')) CONTAINS 'acme' RETURN c.name",
		"MATCH (c:Customer) RETURN replace(c.name, ' ', ' - ') AS name",
		"MATCH (c:Customer) RETURN replace(replace(c.name, '', 'a'), 'b', 'c') AS name", // one growing replace only
		"MATCH (n) RETURN n.range AS r, n.reduce AS s, n.replace AS t",
	} {
		if _, err := guard(q, 50); err != nil {
			t.Errorf("guard(%q) refused: %v", q, err)
		}
	}
	for _, tc := range []struct{ in, reason string }{
		{"RETURN size(reduce(s='xxxxxxxx', i IN range(1,40) | s+s))", "reduce() whose step uses its accumulator s more than once"},
		{"RETURN REDUCE(s = 'x', i IN [1, 2] | s + s) AS n", "reduce()"},
		{"RETURN reduce(s = 'x', i IN range(1, 40) | replace(s, 'x', 'xx')) AS n", "reduce()"},
		{"RETURN size(reduce(l = [1], i IN range(1, 40) | [l, l])) AS n", "reduce()"},
		{"RETURN reduce(`s` = 'x', i IN [1, 2] | `s` + s) AS n", "reduce()"},
		{"RETURN reduce(s = 'x', i IN [1, 2] | CASE WHEN i > 1 THEN s + s ELSE s END) AS n", "reduce()"},
		{"RETURN reduce(s, i IN [1] | s) AS n", "cannot read"},
		{"RETURN size([x IN range(1, 50000000) | x]) AS n", "range() of 50000000 values"},
		{"UNWIND range(1, 1_000_000_000) AS x RETURN count(x) AS n", "range() of 1000000000 values"},
		{"RETURN size(range(0, 0x7fffffff)) AS n", "range() of"},
		{"UNWIND range(10000, -10000, -1) AS x RETURN count(x) AS n", "range() of 20001 values"},
		{"RETURN size(`range`(1, 100000)) AS n", "range() of"},
		{"RETURN size(range(1, toInteger('1000000000'))) AS n", "bounds are not integer literals"},
		{"RETURN size(range(1, 10, $step)) AS n", "bounds are not integer literals"},
		{"RETURN size(range(1, 10 * 1000 * 1000)) AS n", "bounds are not integer literals"},
		{"RETURN size(replace(replace('xxxxxxxx', 'x', 'xxxxxxxx'), 'x', 'xxxxxxxx')) AS n", "nests replace()"},
		{"MATCH (c) RETURN replace(replace(c.name, '', 'a'), 'b', 'cc') AS n", "nests replace()"},
		{"MATCH (c) RETURN replace('ab', 'a', replace(c.name, 'x', 'yy')) AS n", "nests replace()"},
		{"MATCH (c) RETURN replace(replace(c.name, 'x', 'yy'), 'é', 'xx') AS n", "nests replace()"},     // é is one unit, not two bytes
		{`MATCH (c) RETURN replace(replace(c.name, 'x', 'yy'), '\u0041', 'B') AS n`, "nests replace()"}, // an escape is not measured
	} {
		got, err := guard(tc.in, 50)
		var r *RefusedError
		if !errors.As(err, &r) || !strings.Contains(r.Reason, tc.reason) {
			t.Errorf("guard(%q) = %q, %v; want a refusal mentioning %q", tc.in, got, err, tc.reason)
		}
	}
}

// FuzzGuard checks that the guard never panics, that what it lets through
// contains no write keyword outside strings and comments, and that
// between the tokens it saw there is nothing Neo4j would read as code.
func FuzzGuard(f *testing.F) {
	for _, s := range []string{"MATCH (n) RETURN n", "CREATE (n)", "MATCH (n) WHERE n.x = 'a\\'b' RETURN n /* c */",
		"CALL { MATCH (n) RETURN n } RETURN n UNION MATCH (m) RETURN m", "`a``b`", "RETURN 1.e5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		out, err := guard(q, 10)
		if err != nil {
			return
		}
		toks, err := lex(out)
		if err != nil {
			t.Fatalf("guard output %q does not lex: %v", out, err)
		}
		for k := 0; k+1 < len(toks); k++ {
			if gap := out[toks[k].end:toks[k+1].start]; !blankToNeo4j(gap) {
				t.Fatalf("guard let %q through in %q: Neo4j reads code in %q", out, q, gap)
			}
		}
		for i, tok := range toks {
			if tok.kind == tokWord && !isPropertyKey(toks, i) {
				if _, bad := forbidden[strings.ToUpper(tok.text)]; bad {
					t.Fatalf("guard let %q through in %q", tok.text, q)
				}
			}
		}
	})
}

// blankToNeo4j reports whether Neo4j reads gap, the text between two
// tokens, as whitespace and comments only. It is written from Neo4j's
// rules (a line comment ends at "\n" or "\r"), not from lex, so that a
// lexer that hides code in a comment is caught.
func blankToNeo4j(gap string) bool {
	for i := 0; i < len(gap); {
		switch {
		case strings.HasPrefix(gap[i:], "//"):
			n := strings.IndexAny(gap[i:], "\r\n")
			if n < 0 {
				return true
			}
			i += n
		case strings.HasPrefix(gap[i:], "/*"):
			n := strings.Index(gap[i+2:], "*/")
			if n < 0 {
				return false
			}
			i += 2 + n + 2
		case strings.ContainsRune(" \t\r\n\f\v", rune(gap[i])):
			i++
		default:
			return false
		}
	}
	return true
}
