package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/sqlite"
)

// switchboard ingest links the files to DOCS_BASE_URL, and what the retriever
// returns carries the link and the section.
func TestIngestLinksFilesToDocsBaseURL(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "handbook")
	for name, text := range map[string]string{
		".git/HEAD":              "ref: refs/heads/main\n",
		"docs/office/parking.md": "# Office\n\n## Parking\n\nStaff park on level 2 of the Harbour Street garage.\n",
		"docs/wiki.md":           "---\nurl: https://wiki.example.com/lunch\n---\n# Lunch\n\nLunch is served at noon in the Harbour Street canteen.\n",
	} {
		p := filepath.Join(repo, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data := t.TempDir()
	env := map[string]string{"SWITCHBOARD_DATA_DIR": data, "DOCS_BASE_URL": "https://github.com/acme/handbook/blob/main/"}
	if out, stderr, err := run(t, env, "ingest", filepath.Join(repo, "docs")); err != nil {
		t.Fatalf("ingest: %v\n%s\n%s", err, out, stderr)
	}

	db, err := sqlite.Open(context.Background(), filepath.Join(data, "switchboard.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := sqlite.NewRetriever(db, nil).Retrieve(context.Background(), agent.Request{Query: "Harbour Street", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{ // location → url, section
		"handbook/docs/office/parking.md": {"https://github.com/acme/handbook/blob/main/docs/office/parking.md", "Parking"},
		"handbook/docs/wiki.md":           {"https://wiki.example.com/lunch", "Lunch"},
	}
	if len(got) != len(want) {
		t.Fatalf("retrieved %+v", got)
	}
	for _, d := range got {
		if w := want[d.Location]; d.Metadata["url"] != w[0] || d.Section != w[1] {
			t.Errorf("%s: url %q, section %q; want %q, %q", d.Location, d.Metadata["url"], d.Section, w[0], w[1])
		}
	}
}
