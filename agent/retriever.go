package agent

import (
	"context"
	"errors"
)

// Retriever fetches evidence for a search query. Implementations: the
// SQLite and PostgreSQL document stores (vector), the SQLite and Neo4j graphs
// (graph) and Tavily (web).
//
// Retrieve returns at most req.Limit documents, best first, and only
// documents that req.Scope may see. It returns ErrNotConfigured when the
// backend is not set up (web search without an API key), which the agent
// reports to the user instead of failing.
type Retriever interface {
	Retrieve(ctx context.Context, req Request) ([]Document, error)
}

// Request is one retrieval.
type Request struct {
	Query    string // the current search query
	Question string // the standalone question, for retrievers that write their own queries
	Scope    Scope
	Limit    int
	// Again is set when this route was already searched in this run: a
	// retriever that writes its query from Question (the graph's model-
	// written Cypher) would only repeat that search, and should search by
	// Query alone.
	Again bool
}

// ErrNotConfigured means a retriever's backend is not configured.
var ErrNotConfigured = errors.New("not configured")

// Checkpointer stores per-thread state between questions.
type Checkpointer interface {
	// Load returns the thread with the given id, or an empty Thread with
	// that id when none is stored.
	Load(ctx context.Context, id string) (Thread, error)
	// Update applies change to the thread stored under id (an empty
	// Thread with that id when none is) and stores the result, as one
	// step: when another process stored the thread between the read and
	// the write, it is read and changed again, never overwritten. A run
	// that read the thread long ago (a replica frozen past its claim)
	// then adds its turn to the thread as it is now, and cannot drop the
	// turns stored since.
	Update(ctx context.Context, id string, change func(*Thread)) error
}
