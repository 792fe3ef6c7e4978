package neo4j

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	neo4jdrv "github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// adversarial are generated queries that try to write, administer, read
// files or escape the guard. Every one must be refused before it runs.
var adversarial = []struct{ name, cypher string }{
	{"create", "CREATE (n:Hacked {id: 'h'}) RETURN n"},
	{"merge", "MERGE (n:Entity {id: 'hacked'}) RETURN n"},
	{"set", "MATCH (n:Customer) SET n.revenue = '0' RETURN n.name"},
	{"delete", "MATCH (n:Customer) DELETE n RETURN count(*)"},
	{"detach delete", "MATCH (n) DETACH DELETE n RETURN count(*)"},
	{"remove", "MATCH (n:Customer) REMOVE n.tier RETURN n.name"},
	{"remove label", "MATCH (n:Customer) REMOVE n:Customer RETURN n.name"},
	{"drop constraint", "DROP CONSTRAINT entity_id"},
	{"drop index", "DROP INDEX entity_name IF EXISTS"},
	{"load csv", "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row"},
	{"load csv url", "LOAD CSV WITH HEADERS FROM 'http://169.254.169.254/latest/meta-data' AS row RETURN row"},
	{"dbms create user", "CALL dbms.security.createUser('eve', 'pw', false)"},
	{"dbms kill", "CALL dbms.killQueries(['query-1']) YIELD queryId RETURN queryId"},
	{"dbms components", "CALL dbms.components() YIELD name RETURN name"},
	{"apoc create node", "CALL apoc.create.node(['Hacked'], {id: 'h'}) YIELD node RETURN node"},
	{"apoc periodic iterate", "CALL apoc.periodic.iterate('MATCH (n) RETURN n', 'DETACH DELETE n', {}) YIELD batches RETURN batches"},
	{"apoc cypher doIt", "CALL apoc.cypher.doIt('CREATE (n:Hacked) RETURN n', {}) YIELD value RETURN value"},
	{"apoc quoted", "CALL `apoc`.`create`.`node`(['Hacked'], {}) YIELD node RETURN node"},
	{"other procedure", "CALL db.createLabel('Hacked') RETURN 1"},
	{"write after WITH", "MATCH (n:Customer) WITH n CREATE (h:Hacked) RETURN n.name"},
	{"write in CALL subquery", "MATCH (n:Customer) CALL { WITH n SET n.hacked = true } RETURN n.name"},
	{"write in scoped subquery", "MATCH (n:Customer) CALL (n) { DETACH DELETE n } RETURN count(*) AS c"},
	{"in transactions", "MATCH (n) CALL (n) { SET n.x = 1 } IN TRANSACTIONS OF 10 ROWS RETURN count(*) AS c"},
	{"foreach", "MATCH (n) FOREACH (x IN [1] | CREATE (:Hacked)) RETURN n.name"},
	{"block comment", "/* harmless read */ CREATE (n:Hacked) RETURN n"},
	{"line comment", "// just a read\nCREATE (n:Hacked) RETURN n"},
	{"comment then statement", "MATCH (n) RETURN n.name /* ; */ ; CREATE (h:Hacked)"},
	{"odd casing", "cReAtE (n:Hacked) RETURN n"},
	{"odd casing set", "MATCH (n) sEt n.x = 1 ReTuRn n.name"},
	{"tabs and CRLF", "MATCH (n)\r\n\tSET n.x = 1\r\nRETURN n.name"},
	{"no-break space", "MATCH (n)\u00a0CREATE (h:Hacked) RETURN n.name"},
	{"line separator", "MATCH (n)\u2028CREATE (h:Hacked) RETURN n.name"},
	{"zero-width space", "MATCH (n) CRE\u200bATE (h:Hacked) RETURN n.name"},
	{"fullwidth letters", "ＣＲＥＡＴＥ (h:Hacked) RETURN h"},
	{"escaped backslash ends string", `MATCH (n) WHERE n.name = 'a\\' CREATE (h:Hacked) RETURN n.name`},
	{"multiple statements", "MATCH (n) RETURN n.name; MATCH (m) DETACH DELETE m"},
	{"use system", "USE system MATCH (n) RETURN n"},
	{"show users", "SHOW USERS"},
	{"union with a write", "MATCH (n) RETURN n.name AS x UNION CREATE (h:Hacked) RETURN h.id AS x"},
	{"profile runs", "PROFILE MATCH (n) RETURN n.name"},
}

// TestGeneratedCypherCannotWrite runs every adversarial query through
// RunReadOnly against a real graph and checks that each is refused and
// that the database is exactly as it was.
func TestGeneratedCypherCannotWrite(t *testing.T) {
	ctx := context.Background()
	g := openTest(t)
	seedGraph(t, g)
	before := graphFingerprint(t, g)
	if len(adversarial) < 20 {
		t.Fatalf("only %d adversarial cases", len(adversarial))
	}
	for _, tc := range adversarial {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := g.RunReadOnly(ctx, tc.cypher, nil)
			var refused *RefusedError
			if !errors.As(err, &refused) {
				t.Fatalf("not refused: rows %v, err %v", rows, err)
			}
			if refused.Query != tc.cypher || refused.Reason == "" {
				t.Errorf("refusal = %+v", refused)
			}
		})
	}
	if after := graphFingerprint(t, g); after != before {
		t.Errorf("the graph changed: %+v → %+v", before, after)
	}
}

// TestReadOnlyAllowsReads: what the guard must not refuse, including
// write keywords inside string literals and comments.
func TestReadOnlyAllowsReads(t *testing.T) {
	ctx := context.Background()
	g := openTest(t)
	seedGraph(t, g)
	before := graphFingerprint(t, g)
	for _, tc := range []struct {
		cypher string
		rows   int
	}{
		{"MATCH (n:Customer) WHERE n.name <> 'CREATE (x:Hacked)' RETURN n.name AS name ORDER BY name", 4},
		{`MATCH (n:Customer) WHERE NOT n.name CONTAINS "DETACH DELETE; DROP" RETURN n.name`, 4},
		{"// find suppliers; do not CREATE anything\nMATCH (s:Supplier) RETURN s.name /* MERGE */", 2},
		{`RETURN 'a\' CREATE (h:Hacked) RETURN 1 //' AS s`, 1},
		{"MATCH (e:Entity) RETURN e.name", 9},
		{"MATCH (e:Entity) RETURN e.name LIMIT 500", 9},
		{"CALL db.labels() YIELD label RETURN label", 8}, // five kinds, Entity, _Meta, _Migration
		{"MATCH (s:Supplier)-[:SUPPLIES]->(c:Customer) RETURN s.name AS supplier, collect(c.name) AS customers", 2},
		{"MATCH (c:Customer) RETURN c.name AS x UNION MATCH (s:Supplier) RETURN s.name AS x", 6},
		{"MATCH (n:Customer) WHERE n.name = $name RETURN n.name", 1},
	} {
		t.Run(tc.cypher, func(t *testing.T) {
			rows, err := g.RunReadOnly(ctx, tc.cypher, map[string]any{"name": "Initech"})
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != tc.rows {
				t.Errorf("%d rows, want %d: %v", len(rows), tc.rows, rows)
			}
		})
	}
	if after := graphFingerprint(t, g); after != before {
		t.Errorf("reads changed the graph: %+v → %+v", before, after)
	}
}

// TestReadOnlyLayers bypasses the static guard and checks that the
// planner and then the read-access session each refuse a write alone.
func TestReadOnlyLayers(t *testing.T) {
	ctx := context.Background()
	g := openTest(t)
	seedGraph(t, g)
	before := graphFingerprint(t, g)
	s := g.session(ctx, neo4jdrv.AccessModeRead)
	defer s.Close(ctx)
	for _, q := range []string{
		"CREATE (n:Hacked) RETURN n",
		"MATCH (n:Customer) SET n.revenue = '0' RETURN n",
		"MATCH (n) DETACH DELETE n",
		"MATCH (n:Customer) CALL (n) { REMOVE n.tier } RETURN n",
		"MATCH (n) FOREACH (x IN [1] | MERGE (:Hacked {id: x}))",
		"DROP CONSTRAINT entity_id",
		"CALL db.createLabel('Hacked')",
	} {
		t.Run(q, func(t *testing.T) {
			err := g.explain(ctx, s, q, nil)
			var refused *RefusedError
			if !errors.As(err, &refused) {
				t.Errorf("EXPLAIN layer let it through: %v", err)
			}
			_, err = g.execute(ctx, s, q, nil)
			var neoErr *neo4jdrv.Neo4jError
			if !errors.As(err, &neoErr) || !strings.Contains(neoErr.Code, "AccessMode") && !strings.Contains(neoErr.Code, "Forbidden") {
				t.Errorf("read session let it run: %v", err)
			}
		})
	}
	if after := graphFingerprint(t, g); after != before {
		t.Errorf("the graph changed: %+v → %+v", before, after)
	}

	// LOAD CSV plans as a read ("r"): only the static guard stops it,
	// which is why the guard refuses LOAD outright.
	if err := g.explain(ctx, s, "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row", nil); err != nil {
		t.Logf("EXPLAIN of LOAD CSV: %v", err)
	}
}

func TestReadOnlyBounds(t *testing.T) {
	ctx := context.Background()
	g := openTest(t)
	g.cfg.MaxRows = 7
	g.cfg.QueryTimeout = 300 * time.Millisecond

	// A LIMIT given as a parameter is not lowered by the guard, but no more
	// than MaxRows rows are read.
	tab, err := g.runReadOnly(ctx, "UNWIND range(1, 100) AS x RETURN x LIMIT $n", map[string]any{"n": 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.rows) != 7 || !tab.truncated {
		t.Errorf("%d rows (truncated %v), want 7, truncated", len(tab.rows), tab.truncated)
	}
	if !strings.HasSuffix(tab.query, "LIMIT $n") {
		t.Errorf("ran %q", tab.query)
	}
	tab, err = g.runReadOnly(ctx, "UNWIND range(1, 100) AS x RETURN x", nil)
	if err != nil || len(tab.rows) != 7 || !strings.HasSuffix(tab.query, "LIMIT 7") || tab.truncated {
		t.Errorf("got %d rows from %q (truncated %v), %v", len(tab.rows), tab.query, tab.truncated, err)
	}

	// A slow query is stopped by the transaction timeout, as its error
	// says (no wall-clock limit: issue 14). (Its rows come from a product
	// of ranges: one range of a billion the guard refuses.)
	_, err = g.RunReadOnly(ctx, "UNWIND range(1, 10000) AS a UNWIND range(1, 10000) AS b UNWIND range(1, 10000) AS c "+
		"WITH a WHERE a < 0 RETURN a", nil)
	var neoErr *neo4jdrv.Neo4jError
	if !errors.As(err, &neoErr) || !strings.Contains(neoErr.Code, "TimedOut") {
		t.Errorf("slow query: %v", err)
	}
}

// memoryBombs are generated queries that write nothing and read nothing
// but ask the server for more memory than it has. The first is issue 10's:
// it passed every layer and the JVM died of OutOfMemoryError in 4 s.
var memoryBombs = []struct{ name, cypher string }{
	{"doubling reduce", "RETURN size(reduce(s='xxxxxxxx', i IN range(1,40) | s+s)) AS n"},
	{"nested replace", "RETURN size(" + strings.Repeat("replace(", 10) + "'xxxxxxxx'" +
		strings.Repeat(", 'x', 'xxxxxxxx')", 10) + ") AS n"},
	{"huge list comprehension", "RETURN size([x IN range(1, 50000000) | x]) AS n"},
	// Passes the guard; Neo4j tracks collect and stops it at
	// db.memory.transaction.max, long before the heap is used up.
	{"collect past the memory limit", "UNWIND range(1, 10000) AS a UNWIND range(1, 10) AS b " +
		"WITH collect([x IN range(1, 1000) | x]) AS l RETURN size(l) AS n"},
}

// TestGeneratedCypherMemory runs each memory bomb as generated Cypher and
// checks that the server survives it and the question is answered by the
// walk: the guard refuses the ones Neo4j cannot track, the transaction
// memory limit stops the others.
func TestGeneratedCypherMemory(t *testing.T) {
	ctx := context.Background()
	g := openTest(t)
	seedGraph(t, g)

	// The test server must bound transaction memory as production should
	// (scripts/services.sh's launcher, docker-compose.yml, docs/operations.md):
	// without it the last bomb would run the heap out.
	recs, err := g.read(ctx, `SHOW SETTINGS YIELD name, value WHERE name = 'db.memory.transaction.max' RETURN value`, nil)
	if err != nil || len(recs) != 1 {
		t.Fatalf("read db.memory.transaction.max: %v (%d records)", err, len(recs))
	}
	if v, _ := recs[0].Values[0].(string); v == "" || v == "0B" {
		t.Fatalf("the test Neo4j does not bound transaction memory (db.memory.transaction.max = %q): restart it with scripts/services.sh", v)
	}

	alive := func(t *testing.T) {
		t.Helper()
		if recs, err := g.read(ctx, `RETURN 1 AS one`, nil); err != nil || len(recs) != 1 {
			t.Fatalf("the server no longer answers: %v", err)
		}
	}
	for _, tc := range memoryBombs {
		t.Run(tc.name, func(t *testing.T) {
			r := NewGraphRetriever(g)
			r.Writer = &fakeWriter{replies: []string{tc.cypher}}
			docs, err := r.Retrieve(ctx, reqFor("Which customers does Acme Corp supply?"))
			if err != nil {
				t.Fatalf("the question failed: %v", err)
			}
			if len(docs) != 1 || docs[0].Title != "Knowledge graph: neighbourhood of Acme Corp" {
				t.Errorf("want the walk's document, got %+v", docs)
			}
			alive(t)
		})
	}

	// The last bomb is stopped by the server, not the guard.
	_, err = g.RunReadOnly(ctx, memoryBombs[len(memoryBombs)-1].cypher, nil)
	var neoErr *neo4jdrv.Neo4jError
	if !errors.As(err, &neoErr) || neoErr.Code != "Neo.TransientError.General.MemoryPoolOutOfMemoryError" {
		t.Errorf("collect past the limit: %v", err)
	}
	alive(t)
}
