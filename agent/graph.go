package agent

import (
	"context"
	"fmt"
)

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

// firstStep is where every run starts (START in the diagram).
const firstStep = StepCondense

// node is one step of the state machine: it updates the state and says
// which step comes next. Nodes are methods of run, so that they reach the
// run's emitter; the table holds them as method expressions.
type node func(r *run, ctx context.Context, s *State) (Step, error)

// edge is one transition: the step a node may hand over to, and when it
// does.
type edge struct {
	to Step
	// when is the condition under which the node takes the edge, in the
	// words of the diagram's label: README.md ("How it answers") and
	// docs/DESIGN.md draw this table, and TestDiagramsMatchTheTable keeps
	// them equal to it. "" is an unconditional edge, or the one a node
	// takes when no other edge's condition holds. The numbers are the
	// default budgets (budget.go).
	when string
}

// stepDef is one node of the table: the method that runs it and the edges
// it may take.
type stepDef struct {
	run   node
	edges []edge
}

// machine is the whole state machine: for each step, its handler and the
// steps it may hand over to. A handler returning a step not listed here is
// a bug, reported as an error naming the path that led there. Every loop
// in it is bounded (docs/DESIGN.md, rule 1): grade→rewrite by MaxRewrites,
// after which the web fallback runs at most once; check→generate by
// MaxRegenerations; and the whole run by MaxSteps.
var machine = map[Step]stepDef{
	StepCondense: {(*run).condense, []edge{
		{StepRoute, ""},
	}},
	StepRoute: {(*run).route, []edge{
		{StepVector, "vector"},
		{StepGraph, "graph"},
		{StepWeb, "web"},
		{StepDirect, "direct"},
	}},
	StepVector: {(*run).vector, []edge{
		{StepGrade, ""},
	}},
	StepGraph: {(*run).graph, []edge{
		{StepGrade, ""},
	}},
	StepWeb: {(*run).web, []edge{
		{StepGrade, ""},
		{StepNoAnswer, "not configured, or failed"},
	}},
	StepDirect: {(*run).direct, []edge{
		{StepEnd, ""},
	}},
	StepGrade: {(*run).grade, []edge{
		{StepGenerate, "≥1 relevant"},
		{StepRewrite, "none relevant, < 3 rewrites"},
		{StepWeb, "3 rewrites used, web configured and not yet searched"},
		{StepNoAnswer, "after the web fallback, or 3 rewrites used, no web fallback"},
	}},
	StepRewrite: {(*run).rewrite, []edge{
		// The rewriter's new search, on the same route or a switched one;
		// or, when it has none left, the fallback grade would take.
		{StepVector, "a new search there"},
		{StepGraph, "a new search there"},
		{StepWeb, "a new search there, or none left: web fallback"},
		{StepNoAnswer, "none left, no web fallback"},
	}},
	StepGenerate: {(*run).generate, []edge{
		{StepCheck, ""},
	}},
	StepCheck: {(*run).check, []edge{
		{StepEnd, "grounded and answering, partial, uncertain, or regenerations used up"},
		{StepGenerate, "not grounded, or not answering the first time, < 2 regenerations"},
	}},
	StepNoAnswer: {(*run).noAnswer, []edge{
		{StepEnd, ""},
	}},
}

// checkGraph verifies at start-up that every step has a handler and
// edges, that every edge leads to a known step, at most once, and that a
// step with several edges says when it takes them (all but one).
func checkGraph(m map[Step]stepDef) error {
	if _, ok := m[firstStep]; !ok {
		return fmt.Errorf("agent: the first step %q is not in the table", firstStep)
	}
	for from, def := range m {
		if def.run == nil {
			return fmt.Errorf("agent: step %q has no handler", from)
		}
		if len(def.edges) == 0 {
			return fmt.Errorf("agent: step %q has no edges", from)
		}
		seen := map[Step]bool{}
		unlabeled := 0
		for _, e := range def.edges {
			if _, ok := m[e.to]; !ok && e.to != StepEnd {
				return fmt.Errorf("agent: edge %s→%s leads to a step with no handler", from, e.to)
			}
			if seen[e.to] {
				return fmt.Errorf("agent: edge %s→%s is listed twice", from, e.to)
			}
			seen[e.to] = true
			if e.when == "" {
				unlabeled++
			}
		}
		if len(def.edges) > 1 && unlabeled > 1 {
			return fmt.Errorf("agent: step %q has %d edges without a condition", from, unlabeled)
		}
	}
	return nil
}

// allowed reports whether the table permits from→to.
func allowed(from, to Step) bool {
	for _, e := range machine[from].edges {
		if e.to == to {
			return true
		}
	}
	return false
}
