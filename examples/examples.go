// Package examples holds the demo knowledge base of Brightline Labs, a
// fictional maker of environmental sensors and of the Brightline Cloud
// platform: five policy documents and a small knowledge graph of customers,
// suppliers, products, people, teams and systems. It is embedded in the
// binary so that the embedded default answers questions out of the box; see
// README.md for what it can answer.
package examples

import (
	"embed"
	"io/fs"
	"sort"
)

// FS holds docs/*.md and graph/{nodes,edges}.csv.
//
//go:embed docs/* graph/*
var FS embed.FS

// Paths of the graph files in FS, in the format ingest.ReadNodesCSV and
// ingest.ReadEdgesCSV read.
const (
	NodesCSV = "graph/nodes.csv"
	EdgesCSV = "graph/edges.csv"
)

// DocsDir is the folder of FS holding the documents.
const DocsDir = "docs"

// Prefix is the namespace for keys of the example documents
// ("examples/docs/refund-policy.md"), so that they never collide with a
// user's own files.
const Prefix = "examples"

// Docs returns the paths in FS of the example documents, sorted.
func Docs() []string {
	entries, err := fs.ReadDir(FS, DocsDir)
	if err != nil {
		return nil // cannot happen: the folder is embedded at build time
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() {
			out = append(out, DocsDir+"/"+e.Name())
		}
	}
	sort.Strings(out)
	return out
}
