package neo4j

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	neo4jdrv "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/kb"
)

// CypherWriter writes a Cypher query that answers question over a graph
// described by schema (as Graph.SchemaText renders it). When failedQuery
// is not empty, the previous attempt failed with dbError, the database's
// message, and the writer should return a corrected query.
//
// An empty query with a nil error means the schema cannot answer the
// question; the retriever then walks the graph instead. The query is
// untrusted: the retriever runs it only through RunReadOnly.
//
// llm.Brain implements it.
type CypherWriter interface {
	WriteCypher(ctx context.Context, question, schema, failedQuery, dbError string) (string, error)
}

var _ agent.Retriever = (*GraphRetriever)(nil)

// GraphRetriever is the graph route over Neo4j.
//
// With a Writer it asks the model for Cypher over the live schema and
// runs it with RunReadOnly. On a database error (syntax, unknown
// function, timeout) the writer gets one repair attempt with the
// database's message. The rows become one document: Title "Knowledge
// graph query", Location the Cypher that ran, Content one line per row of
// "key: value" pairs, so the answer cites the query and its rows rather
// than a summary (docs/DESIGN.md, rule 4).
//
// Without a Writer, and whenever the Cypher path gives nothing (an empty
// result, a refused query, a second failure, a query the server stopped
// for its memory, a writer that fails or has no query), it walks the
// entity neighbourhood exactly as sqlite.GraphRetriever does:
//
//  1. Rankings. "top 3 customers", "5 largest suppliers": the label's
//     nodes ordered by a numeric property the question names, else the
//     first present of revenue, sales, turnover, spend, orders, volume,
//     amount, value, ARR, MRR, score, rank.
//  2. Named entities, as Graph.MatchEntities finds them: one document per
//     entity with its relations up to Hops hops away.
//  3. Labels ("customers" → Customer) and name fragments ("Globex" →
//     "Globex Corporation").
//
// The graph has no workspaces: every scope sees all of it.
type GraphRetriever struct {
	g *Graph

	// Writer writes Cypher; nil walks the graph only (offline).
	Writer CypherWriter
	// Hops is how far the walk goes from a named entity: 1 or 2. Zero
	// means 2. Lists and rankings walk one hop.
	Hops int
	// MaxEdges bounds the facts in one walk document. Zero means 40.
	MaxEdges int
	// Logger hears why the Cypher path fell back to the walk; nil
	// discards.
	Logger *slog.Logger
}

// NewGraphRetriever returns a GraphRetriever over g that walks the graph;
// set Writer to let it write Cypher.
func NewGraphRetriever(g *Graph) *GraphRetriever {
	return &GraphRetriever{g: g}
}

func (r *GraphRetriever) log() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// Retrieve returns up to req.Limit (default 6) documents about the part
// of the graph that the request is about, best first. The Cypher writer
// is given req.Question (the standalone question) and the walk req.Query;
// each falls back to the other when empty. Finding nothing is not an
// error. Errors are the database's: a graph that cannot be read fails the
// retrieval. A server that cannot be reached within Config.ReadBudget, or
// whose circuit is open, fails it with an *UnavailableError (errors.Is
// ErrUnavailable), which carries an *agent.Error telling the asker that
// the knowledge graph is unavailable.
func (r *GraphRetriever) Retrieve(ctx context.Context, req agent.Request) ([]agent.Document, error) {
	query, question := strings.TrimSpace(req.Query), strings.TrimSpace(req.Question)
	if query == "" {
		query = question
	}
	if question == "" {
		question = query
	}
	if query == "" {
		return nil, nil
	}
	limit := req.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	var docs []agent.Document
	// The Cypher is written from the question, not the query: after the
	// first graph search of a run (req.Again) it would only be written and
	// run again, which on a local model costs a minute, so a rewrite
	// searches by its new terms with the walk.
	if r.Writer != nil && !req.Again {
		doc, ok, err := r.cypher(ctx, question)
		if err != nil {
			return nil, fmt.Errorf("neo4j: graph retrieve %.80q: %w", question, err)
		}
		if ok {
			docs = []agent.Document{doc}
		}
	}
	if docs == nil {
		var err error
		if docs, err = r.walkRetrieve(ctx, query, limit); err != nil {
			return nil, fmt.Errorf("neo4j: graph retrieve %.80q: %w", query, err)
		}
	}
	for i := range docs {
		docs[i].Score = 1 / float64(i+1)
		docs[i].Route = agent.RouteGraph
	}
	return docs, nil
}

// cypher is the Cypher path: ok is false when it found nothing and the
// walk should answer instead. Its error is for failures that the walk
// could not survive either: the database unreachable, ctx cancelled.
func (r *GraphRetriever) cypher(ctx context.Context, question string) (agent.Document, bool, error) {
	schema, err := r.g.SchemaText(ctx, question)
	if err != nil {
		return agent.Document{}, false, err
	}
	var failed, dbErr string
	for attempt := 1; attempt <= 2; attempt++ {
		q, err := r.Writer.WriteCypher(ctx, question, schema, failed, dbErr)
		if err != nil {
			if ctx.Err() != nil {
				return agent.Document{}, false, ctx.Err()
			}
			r.log().WarnContext(ctx, "neo4j: Cypher writer failed; walking the graph", "attempt", attempt, "err", err)
			return agent.Document{}, false, nil
		}
		if strings.TrimSpace(q) == "" {
			r.log().InfoContext(ctx, "neo4j: no Cypher for the question; walking the graph", "attempt", attempt)
			return agent.Document{}, false, nil
		}
		t, err := r.g.runReadOnly(ctx, q, nil)
		var refused *RefusedError
		var neoErr *neo4jdrv.Neo4jError
		switch {
		case err == nil && len(t.rows) == 0:
			// Generated Cypher carries the asker's words: debug only.
			r.log().InfoContext(ctx, "neo4j: generated Cypher found nothing; walking the graph")
			r.log().DebugContext(ctx, "neo4j: generated Cypher found nothing", "cypher", t.query)
			return agent.Document{}, false, nil
		case err == nil:
			return cypherDocument(t), true, nil
		case errors.As(err, &refused):
			return agent.Document{}, false, nil // logged by runReadOnly
		case ctx.Err() != nil || errors.Is(err, ErrUnavailable):
			// Nothing to fall back to: the walk reads the same server.
			return agent.Document{}, false, err
		case errors.As(err, &neoErr) && neoErr.Classification() == "TransientError":
			// The server is up but would not finish this query: it hit the
			// transaction memory limit (MemoryPoolOutOfMemoryError), the
			// heap (OutOfMemoryError) or was terminated. A repair would
			// likely be as big; the walk's small reads can still answer.
			r.log().WarnContext(ctx, "neo4j: generated Cypher was stopped by the server; walking the graph", "attempt", attempt, "code", neoErr.Code)
			r.log().DebugContext(ctx, "neo4j: generated Cypher was stopped by the server", "cypher", q, "err", neoErr.Msg)
			return agent.Document{}, false, nil
		case errors.As(err, &neoErr) && neoErr.Classification() == "ClientError":
			// The query is wrong (syntax, types, too slow), not the
			// database: worth one repair.
			r.log().InfoContext(ctx, "neo4j: generated Cypher failed; asking for a repair", "attempt", attempt, "code", neoErr.Code)
			r.log().DebugContext(ctx, "neo4j: generated Cypher failed", "attempt", attempt, "cypher", q, "err", neoErr.Msg)
			failed, dbErr = q, neoErr.Msg
		default:
			return agent.Document{}, false, err
		}
	}
	r.log().WarnContext(ctx, "neo4j: repaired Cypher failed too; walking the graph")
	r.log().DebugContext(ctx, "neo4j: repaired Cypher failed too", "cypher", failed, "err", dbErr)
	return agent.Document{}, false, nil
}

// cypherDocument turns a query's rows into the evidence document.
func cypherDocument(t table) agent.Document {
	var b strings.Builder
	for _, row := range t.rows {
		parts := make([]string, 0, len(t.keys))
		for i, k := range t.keys {
			if i < len(row) {
				parts = append(parts, k+": "+formatValue(row[i]))
			}
		}
		b.WriteString(strings.Join(parts, ", ") + "\n")
	}
	md := map[string]string{"cypher": t.query, "rows": strconv.Itoa(len(t.rows))}
	if t.truncated {
		fmt.Fprintf(&b, "(only the first %d rows are shown)\n", len(t.rows))
		md["truncated"] = "true"
	}
	return agent.Document{
		ID:       "graph:cypher:" + kb.Hash(t.query)[:16],
		Title:    "Knowledge graph query",
		Location: t.query,
		Content:  strings.TrimRight(b.String(), "\n"),
		Metadata: md,
		Kind:     agent.KindGraph,
	}
}
