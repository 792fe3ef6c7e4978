// Package agent is Switchboard's answering engine: a small, fixed state machine
// that routes a question (vector, graph, web or direct), retrieves evidence,
// grades it document by document, rewrites the search query when nothing is
// relevant, generates an answer only from relevant sources and checks that the
// answer is grounded before it is returned.
//
// The package holds plain data (State, Document, Event, Result), the
// interfaces it needs from the outside world (Brain, Retriever, Checkpointer)
// and one file per node. Every transition is listed in graph.go and every loop
// is bounded by the budgets in budget.go. The agent never prints: it reports
// progress as Events to a callback.
package agent
