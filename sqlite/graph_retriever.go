package sqlite

import (
	"context"
	"fmt"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/graphwalk"
	"github.com/switchboard/switchboard/internal/retrieval"
)

var _ agent.Retriever = (*GraphRetriever)(nil)

// GraphRetriever is the graph route over the embedded store: the
// entity-neighbourhood walk of graphwalk.Walker over a GraphStore. It
// answers rankings ("top 3 customers"), then named entities, then labels
// and name fragments, each as documents of facts
// "Name (Label) -[TYPE]-> Name (Label) {props}"; see graphwalk.Walker.
// neo4j.GraphRetriever walks the same way, so both stores give the same
// documents for the same graph.
//
// The graph has no workspaces: every scope sees all of it.
type GraphRetriever struct {
	g *GraphStore

	// Hops is how far the walk goes from a named entity: 1 or 2. Zero
	// means 2. Lists and rankings walk one hop.
	Hops int
	// MaxEdges bounds the facts in one document. Zero means 40.
	MaxEdges int
}

// NewGraphRetriever returns a GraphRetriever over g.
func NewGraphRetriever(g *GraphStore) *GraphRetriever {
	return &GraphRetriever{g: g}
}

// Retrieve returns up to req.Limit (default 6) documents describing the
// parts of the graph that req.Query (or req.Question) is about, best
// first. No match is not an error: it returns no documents.
func (r *GraphRetriever) Retrieve(ctx context.Context, req agent.Request) ([]agent.Document, error) {
	query, limit, _ := retrieval.Query(req)
	if query == "" {
		return nil, nil
	}
	w := graphwalk.Walker{Store: r.g, Hops: r.Hops, MaxEdges: r.MaxEdges}
	docs, err := w.Retrieve(ctx, query, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: graph retrieve %.80q: %w", query, err)
	}
	for i := range docs {
		docs[i].Score = 1 / float64(i+1)
		docs[i].Route = agent.RouteGraph
	}
	return docs, nil
}
