package agent

import "fmt"

// Step names a node of the state machine.
type Step string

// The nodes. Retrieval is one node per backend so that the trace says
// which store was asked.
const (
	StepCondense Step = "condense"
	StepRoute    Step = "route"
	StepVector   Step = "vector"
	StepGraph    Step = "graph"
	StepWeb      Step = "web"
	StepDirect   Step = "direct"
	StepGrade    Step = "grade"
	StepRewrite  Step = "rewrite"
	StepGenerate Step = "generate"
	StepCheck    Step = "check"
	StepNoAnswer Step = "no_answer"
	StepEnd      Step = "end"
)

// edges is the whole state machine: for each node, the nodes it may hand
// over to. A node returning a step not listed here is a bug, reported as an
// error naming the path that led there. See DESIGN.md for the picture.
var edges = map[Step][]Step{
	StepCondense: {StepRoute},
	StepRoute:    {StepVector, StepGraph, StepWeb, StepDirect},
	StepVector:   {StepGrade},
	StepGraph:    {StepGrade},
	StepWeb:      {StepGrade, StepNoAnswer}, // NoAnswer: web search not configured or failed
	StepDirect:   {StepEnd},
	StepGrade:    {StepGenerate, StepRewrite, StepWeb, StepNoAnswer},
	StepRewrite:  {StepVector, StepGraph, StepWeb, StepNoAnswer}, // Web: the chosen route or the fallback; NoAnswer: no new search left
	StepGenerate: {StepCheck},
	StepCheck:    {StepEnd, StepGenerate}, // Generate again: a regeneration
	StepNoAnswer: {StepEnd},
}

// checkGraph verifies at start-up that every node has a handler and that
// every edge leads to a known node.
func checkGraph(nodes map[Step]node) error {
	for from, tos := range edges {
		if _, ok := nodes[from]; !ok {
			return fmt.Errorf("agent: step %q has edges but no node", from)
		}
		for _, to := range tos {
			if _, ok := nodes[to]; !ok && to != StepEnd {
				return fmt.Errorf("agent: edge %s→%s leads to a step with no node", from, to)
			}
		}
	}
	for s := range nodes {
		if _, ok := edges[s]; !ok {
			return fmt.Errorf("agent: node %q has no edges", s)
		}
	}
	return nil
}

// allowed reports whether the table permits from→to.
func allowed(from, to Step) bool {
	for _, s := range edges[from] {
		if s == to {
			return true
		}
	}
	return false
}
