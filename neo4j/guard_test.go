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

// FuzzGuard checks that the guard never panics and that what it lets
// through contains no write keyword outside strings and comments.
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
		for i, tok := range toks {
			if tok.kind == tokWord && !isPropertyKey(toks, i) {
				if _, bad := forbidden[strings.ToUpper(tok.text)]; bad {
					t.Fatalf("guard let %q through in %q", tok.text, q)
				}
			}
		}
	})
}
