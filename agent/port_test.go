package agent

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
	"testing"
)

// TestNodesAskOnlyTheirPort: the Brains reach a node only as its own port.
// Outside the wiring (agent.go holds the Brains, port.go hands each node
// its port, brain.go declares Brain), no code names the Brain type or
// reads the Agent's Brains, so a node cannot ask a judgement its
// signature does not show.
func TestNodesAskOnlyTheirPort(t *testing.T) {
	wiring := map[string]bool{"agent.go": true, "brain.go": true, "port.go": true}
	fset := token.NewFileSet()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check("github.com/switchboard/switchboard/agent", fset, files, info)
	if err != nil {
		t.Fatalf("type-check: %v", err)
	}
	agent := pkg.Scope().Lookup("Agent").Type().Underlying().(*types.Struct)
	forbidden := map[types.Object]string{pkg.Scope().Lookup("Brain"): "the Brain type"}
	for i := range agent.NumFields() {
		if f := agent.Field(i); f.Name() == "model" || f.Name() == "offline" {
			forbidden[f] = "the Agent's " + f.Name() + " Brain"
		}
	}
	if len(forbidden) != 3 {
		t.Fatalf("found %d of the Brain type and the Agent's two Brains", len(forbidden))
	}
	for id, obj := range info.Uses {
		pos := fset.Position(id.Pos())
		if what, bad := forbidden[obj]; bad && !wiring[filepath.Base(pos.Filename)] {
			t.Errorf("%s uses %s: give the node its port instead (port.go)", pos, what)
		}
	}
}
