package storetest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard/switchboard/ingest"
)

// Checkout makes a Git checkout named "handbook" holding docs/a.md,
// docs/b.md and tools/run.txt, and returns its folder: the layout the
// stores' tests of file keys ingest three ways.
func Checkout(t *testing.T) string {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "handbook")
	for name, text := range map[string]string{".git/HEAD": "ref: refs/heads/main\n", "docs/a.md": "# Parking\n\nLevel 2.", "docs/b.md": "# Desks\n\nHot desks.", "tools/run.txt": "x"} {
		p := filepath.Join(repo, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return repo
}

// IngestFrom ingests path with p as if typed in the folder cwd (the test
// may not be parallel: it changes the working folder).
func IngestFrom(t *testing.T, p *ingest.Pipeline, cwd, path string) ingest.Report {
	t.Helper()
	t.Chdir(cwd)
	rep, err := p.IngestFiles(context.Background(), []string{path})
	if err != nil || rep.Err() != nil {
		t.Fatalf("ingest %s from %s: %v %v", path, cwd, err, rep.Err())
	}
	return rep
}
