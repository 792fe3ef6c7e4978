package main

import (
	"strings"
	"testing"

	"github.com/switchboard/switchboard/internal/testenv"
)

// The quickstart scenarios again, on PostgreSQL + pgvector and Neo4j,
// loaded with the normal commands.
func TestQuickstartOnProductionStores(t *testing.T) {
	env := map[string]string{
		"DATABASE_URL":         testenv.PostgresURL(t),
		"NEO4J_URI":            testenv.Neo4jURI(t),
		"SWITCHBOARD_DATA_DIR": t.TempDir(),
	}
	for _, args := range [][]string{
		{"migrate"},
		{"ingest", "../../examples/docs"},
		{"graph", "import", "../../examples/graph/nodes.csv", "../../examples/graph/edges.csv"},
	} {
		if out, stderr, err := run(t, env, args...); err != nil {
			t.Fatalf("switchboard %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
		}
	}
	cases := []struct{ question, route, contains string }{
		{"What is our refund policy?", "vector", "30 days"},
		{"Which suppliers are connected to our top 3 customers?", "graph", "Kestrel Microsystems"},
		{"What is 15% of 340?", "direct", "51"},
		{"What did the Fed announce this morning?", "web", "web search isn't set up here"},
	}
	for _, c := range cases {
		t.Run(c.question, func(t *testing.T) {
			res := askJSON(t, env, c.question)
			if res.Route != c.route || !strings.Contains(res.Answer, c.contains) {
				t.Errorf("route = %s, answer:\n%s", res.Route, res.Answer)
			}
		})
	}
	// A follow-up keeps its thread in PostgreSQL.
	askJSON(t, env, "--thread", "pg", "What is our data retention policy?")
	res := askJSON(t, env, "--thread", "pg", "and for EU customers?")
	if !strings.Contains(strings.ToLower(res.Standalone), "retention") {
		t.Errorf("follow-up not condensed from the stored thread: %q", res.Standalone)
	}
	// Nothing was written to the embedded store.
	if out, _, _ := run(t, map[string]string{"SWITCHBOARD_DATA_DIR": env["SWITCHBOARD_DATA_DIR"], "SWITCHBOARD_DEMO": "false"}, "ask", "--json", "What is our refund policy?"); !strings.Contains(out, `"confidence": "none"`) {
		t.Errorf("the embedded store was used although DATABASE_URL was set:\n%s", out)
	}
}
