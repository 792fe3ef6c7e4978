// Package agent is Switchboard's answering engine: a small, fixed state machine
// that routes a question (vector, graph, web or direct), retrieves evidence,
// grades it document by document, rewrites the search query when nothing is
// relevant, generates an answer only from relevant sources and checks that the
// answer is grounded before it is returned.
//
// The package holds plain data (State, Document, Event, Result), the
// interfaces it needs from the outside world and one file per node. Each
// node declares the one-method port it asks its judgement of (Router in
// route.go, Grader in grade.go, …); Brain is their union, which package
// llm, package llm/offline and agenttest.Brain implement. Retriever,
// Checkpointer and Observer are the other ports. Every step, its node and
// its edges, each with the predicate that chooses it, are listed in
// graph.go; a node only changes the State and receives only its own port
// (port.go). Every loop is bounded by the budgets in budget.go. The agent never prints: it reports progress as
// Events to a callback. The design, and the rules the comments cite, are
// in docs/DESIGN.md.
package agent
