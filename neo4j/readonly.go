package neo4j

import (
	"context"
	"errors"
	"fmt"

	neo4jdrv "github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// table is what a generated query returned.
type table struct {
	query     string   // the query that ran, with its LIMIT
	keys      []string // column names, in RETURN order
	rows      [][]any
	truncated bool // there were more rows than MaxRows
}

// RunReadOnly runs Cypher that a language model (or anyone untrusted)
// wrote, and returns its rows, at most Config.MaxRows of them. The query
// runs only if all of these agree that it cannot write:
//
//  1. A static guard reads the query's tokens (comments and strings
//     aside) and refuses write clauses (CREATE, MERGE, SET, DELETE,
//     REMOVE, DROP, FOREACH, …), LOAD CSV, USE, CALL … IN TRANSACTIONS,
//     several statements, APOC and dbms.* anything, and CALLs of
//     procedures other than db.labels, db.relationshipTypes,
//     db.propertyKeys and db.schema.*. It appends a LIMIT (see guard),
//     and refuses the forms that build a huge value inside one
//     expression, which Neo4j's memory limits do not see (see
//     checkMemory).
//  2. The planner: EXPLAIN of the query, in a read session, must report
//     the statement type read-only ("r").
//  3. The query itself runs in a read-access session, where the server
//     refuses any write, with a transaction timeout of
//     Config.QueryTimeout.
//
// The server bounds what the query may allocate with its transaction
// memory limits (docs/operations.md, Production stores): past them it fails with
// Neo.TransientError.General.MemoryPoolOutOfMemoryError.
//
// A refused query returns a *RefusedError and is logged; it has not run
// (or, refused by layer 3, ran and was stopped at its first write). A
// server that cannot be reached gives an *UnavailableError (see reach).
// Any other error is the database's (a syntax error, a timeout, a type
// error, a memory limit): its message, for a repair, is in the driver's
// wrapped *Neo4jError (github.com/neo4j/neo4j-go-driver/v5/neo4j).
func (g *Graph) RunReadOnly(ctx context.Context, cypher string, params map[string]any) ([]map[string]any, error) {
	t, err := g.runReadOnly(ctx, cypher, params)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(t.rows))
	for i, row := range t.rows {
		m := make(map[string]any, len(t.keys))
		for j, k := range t.keys {
			if j < len(row) {
				m[k] = row[j]
			}
		}
		out[i] = m
	}
	return out, nil
}

func (g *Graph) runReadOnly(ctx context.Context, cypher string, params map[string]any) (table, error) {
	q, err := guard(cypher, g.cfg.MaxRows)
	if err != nil {
		g.refused(err)
		return table{}, err
	}
	// The transaction timeout is enforced by the server; reach adds a
	// deadline for a server or network that stops answering altogether.
	s := g.session(ctx, neo4jdrv.AccessModeRead)
	defer s.Close(ctx)
	// EXPLAIN runs nothing, so it may be retried like the package's own
	// reads; a pooled connection that died with a restarted server is
	// replaced there.
	err = g.reach(ctx, true, func(ctx context.Context) error { return g.explain(ctx, s, q, params) })
	if err != nil {
		var refused *RefusedError
		if errors.As(err, &refused) {
			refused.Query = cypher
			g.refused(refused)
			return table{}, refused
		}
		return table{}, fmt.Errorf("neo4j: explain generated Cypher: %w", err)
	}
	// The query itself runs once: if the connection broke while it ran,
	// the query may be what broke the server.
	var t table
	err = g.reach(ctx, false, func(ctx context.Context) error {
		var err error
		t, err = g.execute(ctx, s, q, params)
		return err
	})
	var neoErr *neo4jdrv.Neo4jError
	if errors.As(err, &neoErr) && neoErr.Code == "Neo.ClientError.Statement.AccessMode" {
		// The planner said read-only and the server found a write: a
		// refusal like the others, and one worth knowing about.
		refused := &RefusedError{Query: cypher, Reason: "the read-access session refused a write: " + neoErr.Msg}
		g.refused(refused)
		return table{}, refused
	}
	if err != nil {
		return table{}, fmt.Errorf("neo4j: run generated Cypher: %w", err)
	}
	return t, nil
}

// refused logs a refusal: someone should know that the model tried.
func (g *Graph) refused(err error) {
	var r *RefusedError
	if errors.As(err, &r) {
		g.log.Warn("neo4j: refused generated Cypher", "reason", r.Reason)
		g.log.Debug("neo4j: refused generated Cypher", "query", r.Query) // the asker's words: debug only
	}
}

// explain asks the planner what kind of statement q is, without running
// it, and refuses anything but read-only. It is the layer that catches
// what the static guard might miss: a write hidden where the guard did not
// look still shows in the plan ("rw", "w", or "s" for schema changes).
func (g *Graph) explain(ctx context.Context, s neo4jdrv.SessionWithContext, q string, params map[string]any) error {
	res, err := s.Run(ctx, "EXPLAIN "+q, params, neo4jdrv.WithTxTimeout(g.cfg.QueryTimeout))
	if err != nil {
		return err
	}
	sum, err := res.Consume(ctx)
	if err != nil {
		return err
	}
	if st := sum.StatementType(); st != neo4jdrv.StatementTypeReadOnly {
		return &RefusedError{Query: q, Reason: fmt.Sprintf("the planner classifies it as %q, not read-only", st.String())}
	}
	return nil
}

// execute runs q in s (a read-access session) and reads at most MaxRows
// rows. Rows past that are not read: closing the session discards them.
func (g *Graph) execute(ctx context.Context, s neo4jdrv.SessionWithContext, q string, params map[string]any) (table, error) {
	res, err := s.Run(ctx, q, params, neo4jdrv.WithTxTimeout(g.cfg.QueryTimeout))
	if err != nil {
		return table{}, err
	}
	keys, err := res.Keys()
	if err != nil {
		return table{}, err
	}
	t := table{query: q, keys: keys}
	for len(t.rows) < g.cfg.MaxRows && res.Next(ctx) {
		t.rows = append(t.rows, res.Record().Values)
	}
	if err := res.Err(); err != nil {
		return table{}, err
	}
	t.truncated = len(t.rows) == g.cfg.MaxRows && res.Peek(ctx)
	return t, nil
}
