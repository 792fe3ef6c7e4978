package agent

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestNodesAskOnlyTheirPort: the Brains reach a node only as its own port.
// Outside the wiring (brain.go declares Brain, agent.go holds the Agent's
// two Brains, port.go hands each node its port) no code names the Brain
// type or the Agent's Brains, so a node cannot ask a judgement its
// signature does not show. Names are compared, not types: the names
// checked are used for nothing else in the package.
func TestNodesAskOnlyTheirPort(t *testing.T) {
	wiring := map[string]bool{"agent.go": true, "brain.go": true, "port.go": true}
	forbidden := map[string]bool{"Brain": true, "modelBrain": true, "offlineBrain": true}
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	seen := map[string]bool{}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok || !forbidden[id.Name] {
				return true
			}
			seen[id.Name] = true
			if !wiring[p] {
				t.Errorf("%s names %s: give the node its port instead (port.go)", fset.Position(id.Pos()), id.Name)
			}
			return true
		})
	}
	if len(seen) != len(forbidden) {
		t.Errorf("the wiring names only %v of %v: the test checks names that are gone", seen, forbidden)
	}
}
