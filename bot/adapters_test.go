package bot

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestAdaptersDoNotImportAgent keeps the renderers to translating what
// the presenter decided: an adapter that reads the agent's Result would
// word it on its own.
func TestAdaptersDoNotImportAgent(t *testing.T) {
	for _, dir := range []string{"slack", "discord", "console"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				if path, _ := strconv.Unquote(imp.Path.Value); path == "github.com/switchboard/switchboard/agent" {
					t.Errorf("%s imports the agent", name)
				}
			}
		}
	}
}
