package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/sqlite"
)

// storedKeys lists the documents and counts the graph nodes of the
// embedded store in dataDir.
func storedKeys(t *testing.T, dataDir string) (keys []string, nodes int) {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(dataDir, "switchboard.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	docs, err := sqlite.NewDocumentStore(db, "").DocumentsByPrefix(context.Background(), "", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		keys = append(keys, d.Key)
	}
	nodes, err = sqlite.NewGraphStore(db).CountNodes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return keys, nodes
}

// The demo is for a store nobody has ingested into: ingesting one file into
// a new store stores that file alone, and answers come from it.
func TestFirstIngestHasNoDemo(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "parking.md")
	os.WriteFile(doc, []byte("# Parking\n\nStaff park on level 2 of the Harbour Street garage; visitors on level 1.\n"), 0o644)
	data := t.TempDir()
	env := map[string]string{"SWITCHBOARD_DATA_DIR": data}
	out, stderr, err := run(t, env, "ingest", doc)
	if err != nil || !strings.Contains(out, "1 added") {
		t.Fatalf("ingest: %v\n%s\n%s", err, out, stderr)
	}
	keys, nodes := storedKeys(t, data)
	if len(keys) != 1 || !strings.HasSuffix(keys[0], "/parking.md") || nodes != 0 {
		t.Errorf("store after the first ingest: %v and %d graph nodes, want parking.md alone", keys, nodes)
	}
	res := askJSON(t, env, "What is our refund policy?")
	for _, s := range res.Sources {
		if strings.Contains(s.Location, "examples/") {
			t.Errorf("answer cites the demo: %+v", s)
		}
	}
	if keys, _ := storedKeys(t, data); len(keys) != 1 {
		t.Errorf("asking loaded the demo again: %v", keys)
	}
}

// `bot ask` on a store nobody has ingested into answers from the demo, and
// the first ingest then removes it.
func TestNeverIngestedStoreGetsTheDemo(t *testing.T) {
	data := t.TempDir()
	env := map[string]string{"SWITCHBOARD_DATA_DIR": data}
	res := askJSON(t, env, "What is our refund policy?")
	if len(res.Sources) == 0 || !strings.HasPrefix(res.Sources[0].Location, "examples/") {
		t.Fatalf("ask on a new store: %s, sources %+v", res.Answer, res.Sources)
	}
	if keys, nodes := storedKeys(t, data); len(keys) == 0 || nodes == 0 {
		t.Fatalf("demo not stored: %v, %d nodes", keys, nodes)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "parking.md"), []byte("# Parking\n\nLevel 2.\n"), 0o644)
	if _, stderr, err := run(t, env, "ingest", dir); err != nil {
		t.Fatalf("ingest: %v\n%s", err, stderr)
	}
	if keys, nodes := storedKeys(t, data); len(keys) != 1 || nodes != 0 {
		t.Errorf("after the first ingest: %v and %d nodes, want the user's file alone", keys, nodes)
	}
}

// A graph import is the user's own knowledge too: the demo goes first.
func TestGraphImportRemovesTheDemo(t *testing.T) {
	data := t.TempDir()
	env := map[string]string{"SWITCHBOARD_DATA_DIR": data}
	askJSON(t, env, "What is our refund policy?") // loads the demo
	dir := t.TempDir()
	nodes := filepath.Join(dir, "nodes.csv")
	os.WriteFile(nodes, []byte("id,label,name\nz1,Customer,Zeta Widgets\nz3,Supplier,Omega Parts\n"), 0o644)
	edges := filepath.Join(dir, "edges.csv")
	os.WriteFile(edges, []byte("source,type,target\nz3,supplies,z1\n"), 0o644)
	if out, stderr, err := run(t, env, "graph", "import", nodes, edges); err != nil {
		t.Fatalf("graph import: %v\n%s%s", err, out, stderr)
	}
	if keys, n := storedKeys(t, data); len(keys) != 0 || n != 2 {
		t.Errorf("after a graph import: documents %v and %d nodes, want no demo and the 2 imported", keys, n)
	}
}
